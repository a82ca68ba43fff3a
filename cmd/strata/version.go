package main

import (
	"runtime/debug"
	"strings"
)

// buildVersion is set at link time for release builds:
//
//	go build -ldflags "-X main.buildVersion=v1.2.0" ./cmd/strata
//
// It is the one package-level variable of the command, because -X can set nothing else.
var buildVersion string

// version is what `strata --version` prints: the link-time version if there is one, else the
// module version and VCS revision the Go toolchain recorded in the binary (a go install of a
// tagged release reports its tag; a build from a checkout its pseudo-version or commit).
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return versionFromBuildInfo(info)
}

func versionFromBuildInfo(info *debug.BuildInfo) string {
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if v == "" || v == "(devel)" {
		v = "devel"
		if rev != "" {
			v += " " + rev
			if modified == "true" {
				v += "+dirty"
			}
		}
		return v
	}
	// A pseudo-version names the revision already.
	if rev != "" && !strings.Contains(v, rev) {
		v += " (" + rev + ")"
	}
	return v
}

package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "65f21c0abcdef0123456789abcdef0123456789a"
	tests := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install of a tag", "v1.2.0", nil, "v1.2.0"},
		{"tag with revision", "v1.2.0", vcs(rev, "false"), "v1.2.0 (65f21c0abcde)"},
		{"pseudo-version names its revision", "v0.0.0-20261123101706-65f21c0abcde", vcs(rev, "false"), "v0.0.0-20261123101706-65f21c0abcde"},
		{"checkout", "(devel)", vcs(rev, "false"), "devel 65f21c0abcde"},
		{"dirty checkout", "(devel)", vcs(rev, "true"), "devel 65f21c0abcde+dirty"},
		{"no VCS stamp", "(devel)", nil, "devel"},
	}
	for _, tc := range tests {
		info := &debug.BuildInfo{Main: debug.Module{Version: tc.version}, Settings: tc.settings}
		if got := versionFromBuildInfo(info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

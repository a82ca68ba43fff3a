package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestLowerGC: ingest and serve lower the collector's target to longLivedGCPercent, unless GOGC
// is set.
func TestLowerGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		gogc string // "" leaves GOGC unset
		want int
	}{{"", longLivedGCPercent}, {"100", 100}, {"off", 100}} {
		if tc.gogc == "" {
			old, had := os.LookupEnv("GOGC")
			os.Unsetenv("GOGC")
			if had {
				t.Cleanup(func() { os.Setenv("GOGC", old) })
			}
		} else {
			t.Setenv("GOGC", tc.gogc)
		}
		debug.SetGCPercent(100)
		lowerGC()
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC %q: GC percent %d, want %d", tc.gogc, got, tc.want)
		}
	}
}

package memstat

import (
	"runtime/debug"
	"testing"
)

// TestLowerGC: the target is lowered and put back, and a lower target or a collector turned
// off is left as it is.
func TestLowerGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const percent = 10
	for _, tc := range []struct{ before, during int }{{100, percent}, {50, percent}, {5, 5}, {-1, -1}} {
		debug.SetGCPercent(tc.before)
		restore := LowerGC(percent)
		during := debug.SetGCPercent(tc.during) // reads it (and sets what it is)
		restore()
		after := debug.SetGCPercent(tc.before)
		if during != tc.during || after != tc.before {
			t.Errorf("GOGC %d: %d while lowered, %d after; want %d and %d", tc.before, during, after, tc.during, tc.before)
		}
	}
}

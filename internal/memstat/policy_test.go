package memstat

import (
	"runtime/debug"
	"testing"
)

// TestPolicy: Apply sets the process's target unless GCPercent is 0, and Stage lowers it during
// the stages the policy names only, putting back what it found.
func TestPolicy(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	p := Policy{GCPercent: 50, StageGCPercent: map[string]int{"layers": 10}}
	for _, tc := range []struct {
		name            string
		policy          Policy
		stage           string
		applied, during int
	}{
		{"zero policy", Policy{}, "layers", 100, 100},
		{"named stage", p, "layers", 50, 10},
		{"other stage", p, "documents", 50, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			tc.policy.Apply()
			applied := gcPercent()
			end := tc.policy.Stage(tc.stage)
			during := gcPercent()
			end()
			after := debug.SetGCPercent(100)
			if applied != tc.applied || during != tc.during || after != tc.applied {
				t.Errorf("target %d applied, %d during %s, %d after; want %d, %d, %d",
					applied, during, tc.stage, after, tc.applied, tc.during, tc.applied)
			}
		})
	}
}

// gcPercent reads the collector's target.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

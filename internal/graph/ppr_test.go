package graph_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestPPRShares(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seeds []graph.PPRSeed
		want  []graph.PPRSeed
		total int
	}{
		{"none", nil, nil, 0},
		{"no positive weight", []graph.PPRSeed{{ID: "A"}, {ID: "B", Weight: -1}, {ID: "C", Weight: math.NaN()}, {ID: "D", Weight: math.Inf(1)}}, nil, 0},
		// The largest weight is 1 << PPRShareBits; the others are rounded relative to it, a
		// weight too small for a share keeps 1.
		{"relative to the largest", []graph.PPRSeed{{ID: "A", Weight: 2}, {ID: "c", Chunk: true, Weight: 0.5}, {ID: "B", Weight: 0.667}, {ID: "d", Chunk: true, Weight: 1e-6}},
			[]graph.PPRSeed{{ID: "A", Weight: 256}, {ID: "c", Chunk: true, Weight: 64}, {ID: "B", Weight: 85}, {ID: "d", Chunk: true, Weight: 1}}, 406},
		// An entity and a chunk of one id are two seeds; one seed given twice is summed.
		{"kinds apart, repeats summed", []graph.PPRSeed{{ID: "x", Weight: 1}, {ID: "x", Chunk: true, Weight: 1}, {ID: "x", Weight: 1}},
			[]graph.PPRSeed{{ID: "x", Weight: 256}, {ID: "x", Chunk: true, Weight: 128}}, 384},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, total := graph.PPRShares(tc.seeds)
			if !reflect.DeepEqual(got, tc.want) || total != tc.total {
				t.Errorf("PPRShares = %v, %d; want %v, %d", got, total, tc.want, tc.total)
			}
			norm := graph.NormalizePPRSeeds(tc.seeds)
			var sum float64
			for i, s := range norm {
				sum += s.Weight
				if want := tc.want[i].Weight / float64(tc.total); s.Weight != want {
					t.Errorf("normalised %s weighs %v, want %v", s.ID, s.Weight, want)
				}
			}
			if len(norm) > 0 && math.Abs(sum-1) > 1e-12 {
				t.Errorf("normalised weights sum to %v", sum)
			}
		})
	}
}

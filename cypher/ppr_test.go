package cypher

import (
	"math"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// The PPR statements are named in ppr.go; TestQueryFiles checks them with the others.
func init() { allQueryNames = append(allQueryNames, qPPRProject, qPPRStream) }

func TestPPRGroups(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shares []graph.PPRSeed
		total  int
		want   []map[string]any
	}{
		{"none", nil, 0, []map[string]any{}},
		{"one bit each", []graph.PPRSeed{{ID: "c1", Chunk: true, Weight: 64}, {ID: "A", Weight: 256}, {ID: "B", Weight: 256}, {ID: "c2", Chunk: true, Weight: 64}},
			640, []map[string]any{
				{"weight": 256.0 / 640, "entities": []any{"A", "B"}, "chunks": []any{}},
				{"weight": 64.0 / 640, "entities": []any{}, "chunks": []any{"c1", "c2"}},
			}},
		// 5 = 4 + 1 and 3 = 2 + 1: the seeds of share 5 in the groups of bits 2 and 0, those of
		// share 3 in those of bits 1 and 0.
		{"shares of several bits", []graph.PPRSeed{{ID: "A", Weight: 5}, {ID: "c1", Chunk: true, Weight: 3}},
			8, []map[string]any{
				{"weight": 4.0 / 8, "entities": []any{"A"}, "chunks": []any{}},
				{"weight": 2.0 / 8, "entities": []any{}, "chunks": []any{"c1"}},
				{"weight": 1.0 / 8, "entities": []any{"A"}, "chunks": []any{"c1"}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pprGroups(tc.shares, tc.total); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pprGroups = %v, want %v", got, tc.want)
			}
			// The groups' weights times their seeds add up to each seed's share of the total.
			sum := map[string]float64{}
			for _, g := range pprGroups(tc.shares, tc.total) {
				for _, kind := range []string{"entities", "chunks"} {
					for _, id := range g[kind].([]any) {
						sum[id.(string)] += g["weight"].(float64)
					}
				}
			}
			for _, sd := range tc.shares {
				if want := sd.Weight / float64(tc.total); math.Abs(sum[sd.ID]-want) > 1e-12 {
					t.Errorf("%s weighs %v over the groups, want %v", sd.ID, sum[sd.ID], want)
				}
			}
		})
	}
}

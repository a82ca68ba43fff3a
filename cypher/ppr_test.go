package cypher

import (
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// The PPR statements are named in ppr.go; TestQueryFiles checks them with the others.
func init() { allQueryNames = append(allQueryNames, qPPRProject, qPPRStream) }

func TestPPRGroups(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seeds []graph.PPRSeed
		want  []map[string]any
	}{
		{"none", nil, []map[string]any{}},
		{"two weights", []graph.PPRSeed{{ID: "c1", Chunk: true, Weight: 0.1}, {ID: "A", Weight: 0.3}, {ID: "B", Weight: 0.3}, {ID: "c2", Chunk: true, Weight: 0.1}},
			[]map[string]any{
				{"weight": 0.3, "entities": []any{"A", "B"}, "chunks": []any{}},
				{"weight": 0.1, "entities": []any{}, "chunks": []any{"c1", "c2"}},
			}},
		{"one weight, both kinds", []graph.PPRSeed{{ID: "A", Weight: 0.5}, {ID: "c1", Chunk: true, Weight: 0.5}},
			[]map[string]any{{"weight": 0.5, "entities": []any{"A"}, "chunks": []any{"c1"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pprGroups(tc.seeds); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pprGroups = %v, want %v", got, tc.want)
			}
		})
	}
}

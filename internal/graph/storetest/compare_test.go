package storetest

import (
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

func TestDiff(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		got, want any
		same      bool
	}{
		{"equal entities", graph.Entity{ID: "A", Embedding: []float32{1, 2}}, graph.Entity{ID: "A", Embedding: []float32{1, 2}}, true},
		{"nil and empty slices", graph.Relation{ChunkIDs: nil}, graph.Relation{ChunkIDs: []string{}}, true},
		{"time zones", graph.Document{IngestedAt: at}, graph.Document{IngestedAt: at.In(time.FixedZone("X", 3600))}, true},
		{"float32 rounding", []float32{0.1}, []float32{0.1 + 1e-9}, true},
		{"different field", graph.Entity{ID: "A", Name: "x"}, graph.Entity{ID: "A", Name: "y"}, false},
		{"different length", []graph.Hit{{ID: "a"}}, []graph.Hit{{ID: "a"}, {ID: "b"}}, false},
		{"different float", graph.Hit{Score: 0.5}, graph.Hit{Score: 0.6}, false},
		{"different time", graph.Document{IngestedAt: at}, graph.Document{IngestedAt: at.Add(time.Millisecond)}, false},
		{"embedded struct", graph.ScoredChunk{Chunk: graph.Chunk{ID: "a"}}, graph.ScoredChunk{Chunk: graph.Chunk{ID: "b"}}, false},
		{"map value", map[string]int64{"a": 1}, map[string]int64{"a": 2}, false},
		{"map key", map[string]int64{"a": 1}, map[string]int64{"b": 1}, false},
	} {
		if d := diff(tc.got, tc.want); (d == "") != tc.same {
			t.Errorf("%s: diff = %q, want same = %v", tc.name, d, tc.same)
		}
	}
}

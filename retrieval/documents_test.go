package retrieval

import (
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestByDocument(t *testing.T) {
	item := func(id, doc string) graph.Chunk { return graph.Chunk{ID: id, DocumentID: doc} }
	for _, tc := range []struct {
		name string
		in   []graph.Chunk
		want []string
	}{
		{"empty", nil, nil},
		{"one document keeps its order", []graph.Chunk{item("a1", "A"), item("a2", "A")}, []string{"a1", "a2"}},
		{
			"best chunk of each document first",
			[]graph.Chunk{item("a1", "A"), item("a2", "A"), item("a3", "A"), item("b1", "B"), item("a4", "A"), item("c1", "C"), item("b2", "B")},
			[]string{"a1", "b1", "c1", "a2", "b2", "a3", "a4"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range byDocument(tc.in) {
				got = append(got, c.ID)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("byDocument = %v, want %v", got, tc.want)
			}
		})
	}
}

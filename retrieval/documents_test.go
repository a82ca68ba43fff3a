package retrieval

import (
	"slices"
	"testing"
)

func TestByDocument(t *testing.T) {
	item := func(id, doc string) ChunkItem { return ChunkItem{ID: id, DocumentID: doc} }
	for _, tc := range []struct {
		name string
		in   []ChunkItem
		want []string
	}{
		{"empty", nil, nil},
		{"one document keeps its order", []ChunkItem{item("a1", "A"), item("a2", "A")}, []string{"a1", "a2"}},
		{
			"best chunk of each document first",
			[]ChunkItem{item("a1", "A"), item("a2", "A"), item("a3", "A"), item("b1", "B"), item("a4", "A"), item("c1", "C"), item("b2", "B")},
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

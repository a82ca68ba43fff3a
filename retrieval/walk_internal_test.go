package retrieval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// walkStore serves the documents and chunks walkChunks reads.
type walkStore struct {
	graph.ReadSearcher // nil: other methods are not used by the walk
	docs               map[string]graph.Document
}

func (s walkStore) Documents(_ context.Context, ids []string) ([]graph.Document, error) {
	var out []graph.Document
	for _, id := range ids {
		if d, ok := s.docs[id]; ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// Chunks: chunk "<doc>/<n>" belongs to document <doc>.
func (s walkStore) Chunks(_ context.Context, ids []string) ([]graph.Chunk, error) {
	out := make([]graph.Chunk, len(ids))
	for i, id := range ids {
		out[i] = graph.Chunk{ID: id, DocumentID: id[:strings.LastIndex(id, "/")]}
	}
	return out, nil
}

// TestWalkChunksAbout: the walk ranks every linked document; the about list only the documents
// whose title names the entity that links them, by the links' weights (rarer entities, links
// from the better starting document, entities the question names first).
func TestWalkChunksAbout(t *testing.T) {
	store := walkStore{docs: map[string]graph.Document{
		"shirley": {ID: "shirley", Title: "Shirley Temple"},
		"kiss":    {ID: "kiss", Title: "Kiss and Tell (1945 film)"},
		"news":    {ID: "news", Title: "what the papers said on Monday"},
		"ghana":   {ID: "ghana", Title: "Ghana"},
		"corliss": {ID: "corliss", Title: "Corliss Archer"},
	}}
	link := func(entity, doc string, documents int) graph.DocumentLink {
		return graph.DocumentLink{EntityID: entity, DocumentID: doc, ChunkID: doc + "/0", Documents: documents}
	}
	cases := []struct {
		name              string
		found             [][]graph.DocumentLink
		relevant          map[string]int
		wantWalk, wantAbt []string // documents, in order
	}{
		{"the document about a rare entity first",
			[][]graph.DocumentLink{{link("SHIRLEY TEMPLE", "kiss", 2), link("SHIRLEY TEMPLE", "shirley", 2), link("GHANA", "ghana", 5), link("GHANA", "news", 5)}},
			nil, []string{"shirley", "kiss", "ghana", "news"}, []string{"shirley", "ghana"}},
		{"a shared entity that is no document's subject links nothing about",
			[][]graph.DocumentLink{{link("SHIRLEY TEMPLE", "news", 2)}},
			nil, []string{"news"}, nil},
		{"the second starting document counts half",
			[][]graph.DocumentLink{{link("GHANA", "ghana", 3)}, {link("CORLISS ARCHER", "corliss", 3)}},
			nil, []string{"ghana", "corliss"}, []string{"ghana", "corliss"}},
		{"an entity the question names counts more",
			[][]graph.DocumentLink{{link("GHANA", "ghana", 3), link("CORLISS ARCHER", "corliss", 3)}},
			map[string]int{"CORLISS ARCHER": 0}, []string{"corliss", "ghana"}, []string{"corliss", "ghana"}},
		{"an entity only the starting document mentions links nothing",
			[][]graph.DocumentLink{{link("GHANA", "ghana", 1)}},
			nil, nil, nil},
	}
	e := &Engine{Store: store}
	docs := func(cs []graph.Chunk) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.DocumentID)
		}
		return out
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			walked, about, err := e.walkChunks(context.Background(), tc.found, tc.relevant)
			if err != nil {
				t.Fatal(err)
			}
			if got := docs(walked); !slices.Equal(got, tc.wantWalk) {
				t.Errorf("walked %q, want %q", got, tc.wantWalk)
			}
			if got := docs(about); !slices.Equal(got, tc.wantAbt) {
				t.Errorf("about %q, want %q", got, tc.wantAbt)
			}
		})
	}
}

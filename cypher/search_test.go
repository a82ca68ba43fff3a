package cypher

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func TestVectorSearch(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	srv := newSchemaServer()
	srv.dims["chunk_embedding"] = 3
	srv.rows[qSearchVector] = []map[string]any{{"id": "c-1", "score": 1.0}, {"id": "c-2", "score": 0.75}}
	f.answer = srv.answer

	hits, err := s.VectorSearch(t.Context(), graph.ChunkEmbedding, []float32{1, 0, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitsString(hits); got != "c-1:1.000 c-2:0.750" {
		t.Errorf("hits = %s", got)
	}
	p := f.only(qSearchVector)[0].params
	// 200 candidates for k=2: the HNSW index is searched wider than k (see vectorCandidates).
	want := map[string]any{"index": "chunk_embedding", "k": int64(2), "candidates": int64(200), "vector": []float64{1, 0, 0}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("params = %#v, want %#v", p, want)
	}

	for _, tc := range []struct {
		name  string
		index graph.VectorIndex
		vec   []float32
		want  string
	}{
		{"dimension mismatch", graph.ChunkEmbedding, []float32{1, 0}, "query vector has 2 dimensions, the index holds 3-dimensional"},
		{"unknown index", "nope", []float32{1}, "unknown index"},
		{"empty vector", graph.ChunkEmbedding, nil, "empty query vector"},
	} {
		if _, err := s.VectorSearch(t.Context(), tc.index, tc.vec, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}

	// No embeddings were ever written for communities: no index, no hits, no error.
	f.reset()
	hits, err = s.VectorSearch(t.Context(), graph.CommunityEmbedding, []float32{1, 0, 0}, 2)
	if err != nil || len(hits) != 0 {
		t.Errorf("VectorSearch without an index = %v, %v; want nothing", hits, err)
	}
	if len(f.only(qSearchVector)) != 0 {
		t.Error("VectorSearch queried a missing index")
	}
}

func TestTextSearch(t *testing.T) {
	s, f := newFakeStore(t, Config{}, "")
	f.answer = answers(map[string][]map[string]any{qSearchText: {{"id": "t-2", "score": 2.5}}})
	hits, err := s.TextSearch(t.Context(), graph.ChunkText, `title:zebra AND "river`, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := hitsString(hits); got != "t-2:2.500" {
		t.Errorf("hits = %s", got)
	}
	want := map[string]any{"index": "chunk_text", "query": `title\:zebra title zebra and \"river`, "k": int64(5)}
	if p := f.only(qSearchText)[0].params; !reflect.DeepEqual(p, want) {
		t.Errorf("params = %#v, want %#v", p, want)
	}

	f.reset()
	for _, q := range []string{"", "   ", `"*:~`} {
		if hits, err := s.TextSearch(t.Context(), graph.EntityText, q, 5); err != nil || len(hits) != 0 {
			t.Errorf("TextSearch(%q) = %v, %v; want nothing", q, hits, err)
		}
	}
	if _, err := s.TextSearch(t.Context(), "nope", "x", 5); err == nil {
		t.Error("TextSearch on an unknown index succeeded")
	}
	sequence(t, f)
}

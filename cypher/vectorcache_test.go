package cypher

import (
	"context"
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestResidentVectorSearch: a resident store's in-memory entity and chunk searches find what
// the Neo4j indexes find on a graph small enough for them to be exact (same ids, same order,
// scores within float32 rounding), leave out nodes without an embedding, and see nodes written
// after their first search, by this process or another one.
func TestResidentVectorSearch(t *testing.T) {
	plain, resident := residentPair(t)
	ctx := context.Background()
	entity := func(id string, emb ...float32) graph.Entity {
		return graph.Entity{ID: id, Name: id, Type: "T", Embedding: emb}
	}
	chunk := func(id string, seq int, emb ...float32) graph.Chunk {
		return graph.Chunk{ID: id, DocumentID: "d", Seq: seq, Text: id, Embedding: emb}
	}
	err := plain.Apply(ctx, graph.Batch{
		Documents: []graph.Document{{ID: "d", Metadata: "{}"}},
		Chunks:    []graph.Chunk{chunk("c1", 0, 1, 0, 0), chunk("c2", 1, 0.6, 0.8, 0), chunk("c3", 2), chunk("c4", 3, 0, -1, 0)},
		Entities: []graph.Entity{
			entity("a", 1, 0, 0), entity("b", 0.8, 0.6, 0), entity("c", 0, 1, 0), entity("d", -1, 0, 0),
			entity("e", 0.8, 0.6, 0), entity("no-embedding"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	queries := [][]float32{{1, 0, 0}, {0.5, 0.5, 0}, {0, 0, 1}, {-3, 1, 0}}
	same := func(when string) {
		t.Helper()
		for _, index := range []graph.VectorIndex{graph.EntityEmbedding, graph.ChunkEmbedding} {
			for _, q := range queries {
				for _, k := range []int{1, 2, 10} {
					want, err := plain.VectorSearch(ctx, index, q, k)
					if err != nil {
						t.Fatal(err)
					}
					got, err := resident.VectorSearch(ctx, index, q, k)
					if err != nil {
						t.Fatal(err)
					}
					if !sameHits(got, want) {
						t.Errorf("%s: resident %s search %v k=%d = %s, index = %s", when, index, q, k, hitsString(got), hitsString(want))
					}
				}
			}
		}
	}
	same("first load")
	// Written through the other store: only the generations tell the resident one.
	err = plain.Apply(ctx, graph.Batch{Entities: []graph.Entity{entity("f", 0, 0, 1)}, Chunks: []graph.Chunk{chunk("c5", 4, 0, 0.1, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	same("after a write by another process")
	for index, want := range map[graph.VectorIndex]string{graph.EntityEmbedding: "f", graph.ChunkEmbedding: "c5"} {
		hits, err := resident.VectorSearch(ctx, index, []float32{0, 0, 2}, 1)
		if err != nil || len(hits) != 1 || hits[0].ID != want {
			t.Errorf("%s: nearest to (0,0,2) after the write = %v, %v; want %s", index, hits, err, want)
		}
	}
	// A deleted chunk leaves the copy.
	if err := plain.Apply(ctx, graph.Batch{DeleteChunks: []string{"c5"}}); err != nil {
		t.Fatal(err)
	}
	same("after a delete")
}

// sameHits: the same ids in the same order, scores equal up to Neo4j's float32 arithmetic.
func sameHits(a, b []graph.Hit) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || math.Abs(a[i].Score-b[i].Score) > 1e-6 {
			return false
		}
	}
	return true
}

// TestResidentVectorsSearchOrder: best first, ties by id, k bounds the hits, and a query of
// another dimension or of length zero has none.
func TestResidentVectorsSearchOrder(t *testing.T) {
	v := &residentVectors{loaded: true, dim: 2}
	for _, e := range []struct {
		id  string
		vec []float32
	}{{"z", []float32{1, 0}}, {"y", []float32{2, 0}}, {"x", []float32{0, 1}}, {"w", []float32{-1, 0}}} {
		v.ids, v.vecs, v.norms = append(v.ids, e.id), append(v.vecs, e.vec...), append(v.norms, length(e.vec))
	}
	for _, tc := range []struct {
		q    []float32
		k    int
		want string
	}{
		{[]float32{1, 0}, 10, "y:1.000 z:1.000 x:0.500 w:0.000"},
		{[]float32{3, 0}, 2, "y:1.000 z:1.000"},
		{[]float32{0, -1}, 1, "w:0.500"},
		{[]float32{0, 0}, 3, ""},
		{[]float32{1, 0, 0}, 3, ""},
	} {
		if got := hitsString(v.search(tc.q, tc.k)); got != tc.want {
			t.Errorf("search(%v, %d) = %q, want %q", tc.q, tc.k, got, tc.want)
		}
	}
}

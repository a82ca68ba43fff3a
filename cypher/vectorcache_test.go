package cypher

import (
	"context"
	"math"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestResidentEntityVectorSearch: a resident store's in-memory entity search finds what the
// Neo4j index finds on a graph small enough for the index to be exact (same ids, same order,
// scores within float32 rounding), leaves out entities without an embedding, and sees entities
// written after its first search, by this process or another one.
func TestResidentEntityVectorSearch(t *testing.T) {
	_, cfg := emptyServer(t)
	plain := openTestStore(t, cfg)
	cfg.Resident = true
	resident := openTestStore(t, cfg)
	ctx := context.Background()
	entity := func(id string, emb ...float32) graph.Entity {
		return graph.Entity{ID: id, Name: id, Type: "T", Embedding: emb}
	}
	err := plain.Apply(ctx, graph.Batch{Entities: []graph.Entity{
		entity("a", 1, 0, 0), entity("b", 0.8, 0.6, 0), entity("c", 0, 1, 0), entity("d", -1, 0, 0),
		entity("e", 0.8, 0.6, 0), entity("no-embedding"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	queries := [][]float32{{1, 0, 0}, {0.5, 0.5, 0}, {0, 0, 1}, {-3, 1, 0}}
	same := func(when string) {
		t.Helper()
		for _, q := range queries {
			for _, k := range []int{1, 2, 10} {
				want, err := plain.VectorSearch(ctx, graph.EntityEmbedding, q, k)
				if err != nil {
					t.Fatal(err)
				}
				got, err := resident.VectorSearch(ctx, graph.EntityEmbedding, q, k)
				if err != nil {
					t.Fatal(err)
				}
				if !sameHits(got, want) {
					t.Errorf("%s: resident search %v k=%d = %s, index = %s", when, q, k, hitsString(got), hitsString(want))
				}
			}
		}
	}
	same("first load")
	// Written through the other store: only the generation tells the resident one.
	if err := plain.Apply(ctx, graph.Batch{Entities: []graph.Entity{entity("f", 0, 0, 1)}}); err != nil {
		t.Fatal(err)
	}
	same("after a write by another process")
	hits, err := resident.VectorSearch(ctx, graph.EntityEmbedding, []float32{0, 0, 2}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != "f" {
		t.Errorf("nearest to (0,0,2) after writing f = %v, %v; want f", hits, err)
	}
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

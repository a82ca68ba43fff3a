package cypher

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// emptyServer returns the test server, emptied, and a Config that reaches it.
func emptyServer(t *testing.T) (neo4jtest.Server, Config) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	return srv, Config{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: srv.Database}
}

// TestOpenRebuildsQuantizedIndex: a vector index left quantized (Neo4j's default, and what
// earlier strata versions created) is rebuilt exact by Open, and searches then score exactly.
func TestOpenRebuildsQuantizedIndex(t *testing.T) {
	srv, cfg := emptyServer(t)
	s := openTestStore(t, cfg)
	ctx := context.Background()
	err := s.Apply(ctx, graph.Batch{
		Documents: []graph.Document{{ID: "d", Metadata: "{}"}},
		Chunks: []graph.Chunk{
			{ID: "same", DocumentID: "d", Text: "a", Embedding: []float32{3, 0, 0}},
			{ID: "near", DocumentID: "d", Seq: 1, Text: "b", Embedding: []float32{0.8, 0.6, 0}},
			{ID: "opposite", DocumentID: "d", Seq: 2, Text: "c", Embedding: []float32{-1, 0, 0}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Replace the index by a quantized one, as an older strata would have left it.
	if err := s.schemaWrite(ctx, qSchemaIndexDrop, map[string]any{"name": "chunk_embedding"}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Query(ctx, testQuery(t, "quantized_chunk_index"), nil); err != nil {
		t.Fatal(err)
	}
	s = openTestStore(t, cfg)
	rows, err := srv.Query(ctx, testQuery(t, "vector_index_quantized"), nil)
	if err != nil || len(rows) != 1 || rows[0]["quantized"] != false {
		t.Fatalf("after Open, chunk_embedding: %v, %v; want one index with quantization off", rows, err)
	}
	hits, err := s.VectorSearch(ctx, graph.ChunkEmbedding, []float32{-2, 0, 0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != "opposite" || hits[0].Score != 1 {
		t.Errorf("nearest to (-2,0,0) = %v, want [{opposite 1}]", hits)
	}
}

// TestOpenUpgradesChunkText: a chunk_text index over the text alone, with chunks that carry no
// title (what earlier strata versions left), is rebuilt by Open over title and text, with the
// titles copied from the documents.
func TestOpenUpgradesChunkText(t *testing.T) {
	srv, cfg := emptyServer(t)
	s := openTestStore(t, cfg)
	ctx := context.Background()
	err := s.Apply(ctx, graph.Batch{
		Documents: []graph.Document{{ID: "d", Title: "Lighthouse keepers", Metadata: "{}"}},
		Chunks:    []graph.Chunk{{ID: "c", DocumentID: "d", Text: "old chunk"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.schemaWrite(ctx, qSchemaIndexDrop, map[string]any{"name": "chunk_text"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"old_chunk_text", "old_chunk_text_index"} {
		if _, err := srv.Query(ctx, testQuery(t, name), nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if hits, err := s.TextSearch(ctx, graph.ChunkText, "lighthouse", 5); err != nil || len(hits) != 0 {
		t.Fatalf("before the upgrade, TextSearch(title word) = %v, %v; want no hit (the old index has no title)", hits, err)
	}
	s = openTestStore(t, cfg)
	hits, err := s.TextSearch(ctx, graph.ChunkText, "lighthouse", 5)
	if err != nil || len(hits) != 1 || hits[0].ID != "c" {
		t.Errorf("after Open, TextSearch(title word) = %v, %v; want chunk c", hits, err)
	}
	if hits, err := s.TextSearch(ctx, graph.ChunkText, "old", 5); err != nil || len(hits) != 1 {
		t.Errorf("after Open, TextSearch(text word) = %v, %v; want chunk c", hits, err)
	}
}

// testQuery reads a statement from testdata/.
func testQuery(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".cypher"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chainBatch is A-B-C-D related in a chain, and E alone.
func chainBatch() graph.Batch {
	b := graph.Batch{}
	for _, id := range []string{"A", "B", "C", "D", "E"} {
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing"})
	}
	for _, r := range [][2]string{{"A", "B"}, {"C", "B"}, {"C", "D"}} {
		b.Relations = append(b.Relations, graph.Relation{Source: r[0], Target: r[1], Description: r[0] + r[1], Weight: 1})
	}
	return b
}

// TestGDSProjectionLifecycle: on a real server, the GDS route answers paths itself (ShortestPaths
// would hide a failing GDS call behind the Cypher fallback); a change to the entity graph makes
// the projection stale; the next algorithm run projects the new state and drops the old one;
// components and communities share one projection; and two stores running the algorithms at
// once on one database do not break each other.
func TestGDSProjectionLifecycle(t *testing.T) {
	_, cfg := emptyServer(t)
	s := openTestStore(t, cfg)
	ctx := t.Context()
	if s.GDSVersion() == "" {
		t.Fatal("GDS is not installed on the test server")
	}
	if err := s.Apply(ctx, chainBatch()); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ComputeComponents(ctx); err != nil || n != 2 {
		t.Fatalf("ComputeComponents = %d, %v; want 2", n, err)
	}
	// Components project RELATED alone, for themselves, and drop it; communities project the
	// entity graph that paths use too.
	if _, ok := currentProjection(t, s); ok {
		t.Error("ComputeComponents left a projection of the entity graph")
	}
	if _, err := s.ComputeCommunities(ctx, graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	name, ok := currentProjection(t, s)
	if !ok {
		t.Fatal("no current projection after ComputeCommunities")
	}
	reqs := []graph.PathRequest{{Source: "A", Target: "D"}, {Source: "A", Target: "C"}, {Source: "A", Target: "E"},
		{Source: "D", Target: "A"}, {Source: "B", Target: "A"}}
	for _, tc := range []struct {
		maxHops int
		want    map[string][]string
	}{
		// paths_gds_near: neighbours without Dijkstra, farther than maxHops left out.
		{2, map[string][]string{"A>C": {"A", "B", "C"}, "A>B": {"A", "B"}}},
		{4, map[string][]string{"A>D": {"A", "B", "C", "D"}, "A>C": {"A", "B", "C"}, "A>B": {"A", "B"}}},
		// paths_gds: no bound before Dijkstra.
		{5, map[string][]string{"A>D": {"A", "B", "C", "D"}, "A>C": {"A", "B", "C"}, "A>B": {"A", "B"}}},
	} {
		paths, err := s.gdsPaths(ctx, reqs, tc.maxHops)
		if err != nil {
			t.Fatalf("GDS paths on %s, maxHops %d: %v", name, tc.maxHops, err)
		}
		got := map[string][]string{}
		for _, p := range paths {
			got[p.Source+">"+p.Target] = p.Nodes
			if len(p.Steps) != len(p.Nodes)-1 {
				t.Errorf("path %v has %d steps", p.Nodes, len(p.Steps))
			}
		}
		// orient makes A the source of every request; E is unreachable.
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("GDS paths, maxHops %d = %v, want %v", tc.maxHops, got, tc.want)
		}
	}

	if _, err := s.ComputeCommunities(ctx, graph.DefaultLeidenParams()); err != nil {
		t.Fatal(err)
	}
	if again, _ := currentProjection(t, s); again != name {
		t.Errorf("a second ComputeCommunities used %s, want the current projection (%s)", again, name)
	}

	// Joining E makes the projection stale: the GDS statements fail, paths come from Cypher
	// and see the new edge.
	if err := s.Apply(ctx, graph.Batch{Relations: []graph.Relation{{Source: "D", Target: "E", Description: "DE", Weight: 1}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := currentProjection(t, s); ok {
		t.Fatal("the projection is still current after the entity graph changed")
	}
	if _, err := s.gdsPaths(ctx, reqs, 4); err == nil {
		t.Error("GDS paths on a stale projection succeeded")
	}
	found, err := s.ShortestPaths(ctx, []graph.PathRequest{{Source: "A", Target: "E"}}, 4)
	if err != nil || len(found) != 1 || len(found[0].Nodes) != 5 {
		t.Errorf("A>E after the change = %+v, %v; want the 4-hop path", found, err)
	}

	// Two stores recompute at once; afterwards exactly one projection, the current one, is left.
	other := openTestStore(t, cfg)
	errs := make(chan error, 2)
	for _, st := range []*Store{s, other} {
		go func() {
			_, err := st.ComputeComponents(ctx)
			if err == nil {
				_, err = st.ComputeCommunities(ctx, graph.DefaultLeidenParams())
			}
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("concurrent recompute: %v", err)
		}
	}
	st, err := s.catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.graphs[st.current]; !ok || len(st.graphs) != 1 {
		t.Errorf("projections after recompute: %v, want only the current %s", st.graphs, st.current)
	}
}

// currentProjection returns the name of the projection of the current entity graph, and
// whether it exists.
func currentProjection(t *testing.T, s *Store) (string, bool) {
	t.Helper()
	st, err := s.catalog(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, ok := st.graphs[st.current]
	return st.current, ok
}

// TestLeftoverProjectionsDropped: a short-lived projection a killed ingest left behind is
// dropped by the next stage that makes one, once it is old enough; a young one (another
// ingest's, still in use) and other databases' are kept.
func TestLeftoverProjectionsDropped(t *testing.T) {
	srv, cfg := emptyServer(t)
	s := openTestStore(t, cfg)
	ctx := t.Context()
	if err := s.Apply(ctx, chainBatch()); err != nil {
		t.Fatal(err)
	}
	db := cfg.Database + ":"
	left := []string{archGraphKind + db + "killed", relatedGraphKind + db + "killed", archGraphKind + "not-" + db + "killed"}
	for _, name := range left {
		if _, err := srv.Query(ctx, testQuery(t, "leftover_projection"), map[string]any{"graphName": name}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.drop(context.WithoutCancel(ctx), name) })
	}
	exists := func(name string) bool {
		rows, err := srv.Query(ctx, testQuery(t, "projection_exists"), map[string]any{"graphName": name})
		if err != nil || len(rows) != 1 {
			t.Fatalf("gds.graph.exists(%s): %v, %v", name, rows, err)
		}
		return rows[0]["exists"] == true
	}

	// Young: kept.
	if _, err := s.ComputeComponents(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range left {
		if !exists(name) {
			t.Errorf("%s was dropped while younger than %v", name, s.staleTempGraphAge)
		}
	}
	// Old enough: dropped, except the one of another database (its prefix differs).
	s.staleTempGraphAge = 0
	if _, err := s.ComputeComponents(ctx); err != nil {
		t.Fatal(err)
	}
	for i, name := range left {
		if got, want := exists(name), i == 2; got != want {
			t.Errorf("%s exists = %v, want %v", name, got, want)
		}
	}
}

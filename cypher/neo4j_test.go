package cypher

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// TestOpenRebuildsQuantizedIndex: a vector index left quantized (Neo4j's default, and what
// earlier strata versions created) is rebuilt exact by Open, and searches then score exactly.
func TestOpenRebuildsQuantizedIndex(t *testing.T) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	cfg := Config{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: srv.Database}
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
	if err := s.schemaWrite(ctx, qSchemaVectorDrop, map[string]any{"name": "chunk_embedding"}); err != nil {
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

// testQuery reads a statement from testdata/.
func testQuery(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".cypher"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

package pipeline_test

import (
	"context"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/chunk"
)

// documentWrites counts the transactions that write documents, and the documents they write.
type documentWrites struct {
	graph.Store
	writes, documents int
}

func (s *documentWrites) Apply(ctx context.Context, b graph.Batch) error {
	if len(b.Documents) > 0 {
		s.writes++
		s.documents += len(b.Documents)
	}
	return s.Store.Apply(ctx, b)
}

// Small documents are written several to a transaction (up to Options.ChunkBatch chunks), large
// ones batch by batch. How the writes are grouped must not show in the graph: evidence merges in
// document and chunk order whatever the transactions, so a store written a chunk at a time is
// the store written in groups, row for row.
func TestGroupedWritesBuildTheSameStore(t *testing.T) {
	ingestWith := func(chunkBatch int) storeDump {
		dir := t.TempDir()
		store := openStore(t, dir)
		counted := &documentWrites{Store: store}
		in := structureIngester(t, counted)
		in.Options.Chunk = chunk.Options{Size: 120, Overlap: 20} // documents of one and of several chunks
		in.Options.ChunkBatch = chunkBatch
		rep, err := in.Run(context.Background(), []string{corpusDir})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Documents != 17 || rep.Failed != 0 {
			t.Fatalf("ChunkBatch %d: report %+v, want 17 documents written", chunkBatch, rep)
		}
		t.Logf("ChunkBatch %d: %d documents in %d transactions", chunkBatch, counted.documents, counted.writes)
		if chunkBatch > 1 && counted.writes >= rep.Documents {
			t.Errorf("ChunkBatch %d: %d transactions for %d documents; want small documents written together", chunkBatch, counted.writes, rep.Documents)
		}
		store.Close()
		return dumpStore(t, dir)
	}
	oneByOne := ingestWith(1)
	for _, size := range []int{4, 64} {
		compareDumps(t, ingestWith(size), oneByOne)
	}
}

package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

func concurrencyTests() []test {
	return []test{
		{"Concurrent", testConcurrent},
	}
}

// testConcurrent: writes from several goroutines are serialized and reads run next to them;
// every write lands, and no call fails.
func testConcurrent(t *testing.T, s graph.Store) {
	const writers, batches = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches*4)
	for w := range writers {
		wg.Go(func() {
			for i := range batches {
				doc := fmt.Sprintf("w%d-d%d", w, i)
				b := graph.Batch{
					Documents: []graph.Document{{ID: doc, Title: doc, Metadata: "{}"}},
					Chunks: []graph.Chunk{
						{ID: doc + "-0", DocumentID: doc, Seq: 0, Text: "first chunk of " + doc, Embedding: []float32{1, float32(w), float32(i)}},
						{ID: doc + "-1", DocumentID: doc, Seq: 1, Text: "second chunk of " + doc, Embedding: []float32{float32(i), 1, float32(w)}},
					},
					Entities: []graph.Entity{{ID: doc, Name: doc, Type: "thing", Description: "entity of " + doc}},
				}
				if err := s.Apply(ctx(t), b); err != nil {
					errs <- fmt.Errorf("apply %s: %w", doc, err)
				}
				if _, err := s.VectorSearch(ctx(t), graph.ChunkEmbedding, []float32{1, 1, 1}, 3); err != nil {
					errs <- fmt.Errorf("VectorSearch: %w", err)
				}
				if _, err := s.TextSearch(ctx(t), graph.ChunkText, "chunk", 3); err != nil {
					errs <- fmt.Errorf("TextSearch: %w", err)
				}
				if _, err := s.Stats(ctx(t)); err != nil {
					errs <- fmt.Errorf("stats: %w", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := int64(writers * batches)
	check(t, "Stats after concurrent writes", stats(t, s), counts(map[string]int64{
		"Document": n, "Chunk": 2 * n, "Entity": n, "PART_OF": 2 * n, "NEXT": n,
	}))
}

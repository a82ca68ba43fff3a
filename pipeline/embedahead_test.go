package pipeline_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/pipeline"
)

// callRecorder records the texts of every Embed call.
type callRecorder struct {
	embedding.Embedder
	mu    sync.Mutex
	calls [][]string
}

func (r *callRecorder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.calls = append(r.calls, append([]string(nil), texts...))
	r.mu.Unlock()
	return r.Embedder.Embed(ctx, texts)
}

// TestIngestEmbedsAcrossDocuments checks that chunks are embedded in requests that span
// documents, within the text and token limits, and that the graph does not depend on them.
func TestIngestEmbedsAcrossDocuments(t *testing.T) {
	ctx := context.Background()
	docs, _, _, err := pipeline.LoadDocuments(ctx, []string{corpusDir}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		batch, tokens int
		fewerThanDocs bool
	}{
		{"defaults", 64, 8000, true},
		{"three texts", 3, 8000, true},
		{"token cap", 64, 600, false},
		{"one text", 1, 8000, false},
	}
	var want *graphSnapshot
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := openStore(t, t.TempDir())
			in := newIngester(t, store, nil)
			rec := &callRecorder{Embedder: in.Embedder}
			in.Embedder = rec
			in.Options.EmbedBatch, in.Options.EmbedTokens = tc.batch, tc.tokens
			if _, err := in.Run(ctx, []string{corpusDir}); err != nil {
				t.Fatal(err)
			}
			tokens := map[string]int{} // chunk text -> tokens
			for _, d := range docs {
				chunks, err := store.DocumentChunks(ctx, d.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range chunks {
					tokens[c.Text] = c.Tokens
				}
			}
			calls, texts := 0, 0
			for _, call := range rec.calls {
				if _, ok := tokens[call[0]]; !ok {
					continue // entities or reports
				}
				calls++
				texts += len(call)
				sum := 0
				for _, s := range call {
					sum += tokens[s]
				}
				if len(call) > tc.batch || (len(call) > 1 && sum > tc.tokens) {
					t.Errorf("a request of %d texts, %d tokens; limits %d, %d", len(call), sum, tc.batch, tc.tokens)
				}
			}
			if texts != len(tokens) {
				t.Errorf("%d chunk texts embedded, %d chunks stored", texts, len(tokens))
			}
			if tc.fewerThanDocs && calls >= len(docs) {
				t.Errorf("%d chunk requests for %d documents: not embedded across documents", calls, len(docs))
			}
			t.Logf("%d chunks of %d documents in %d requests", len(tokens), len(docs), calls)
			got := snapshot(t, store)
			if want == nil {
				want = &got
			} else if !reflect.DeepEqual(got.stats, want.stats) || !reflect.DeepEqual(got.relations, want.relations) {
				t.Error("the graph depends on the embedding batches")
			}
		})
	}
}

package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/extract"
)

// budgetExtractor extracts offline until it has answered budget chunks, then fails as an
// llm.Client whose token budget is spent.
type budgetExtractor struct {
	extract.Offline
	budget int64
	calls  atomic.Int64
}

func (b *budgetExtractor) Extract(ctx context.Context, text string) (extract.Result, error) {
	if n := b.calls.Add(1); n > b.budget {
		return extract.Result{}, fmt.Errorf("chat completion (extract, model m): %w", &llm.BudgetError{Stage: llm.StageExtract, Spent: int(n - 1), Limit: int(b.budget)})
	}
	return b.Offline.Extract(ctx, text)
}

// TestIngestStopsWhenBudgetSpent: a spent token budget ends the run, instead of failing the
// document it hit and every one after it; what was extracted before it is written (whole
// batches of a large document), the run is recorded unfinished, and a re-run writes the rest.
func TestIngestStopsWhenBudgetSpent(t *testing.T) {
	long := filepath.Join(t.TempDir(), "long.txt")
	var text strings.Builder
	for i := range 60 {
		fmt.Fprintf(&text, "In year %d Ilsa Marrow of Port Avel sent a letter to Corvin Hale of the Harbour Guild about the tariff. ", 1100+i)
	}
	if err := os.WriteFile(long, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		path   string
		budget int64
		batch  int // chunks per batch, of 60 tokens; 0: the defaults
		// documents and chunks the stopped run leaves written
		docs, chunks int
	}{
		// One chunk per document, written in groups: the 5 extracted before the budget went.
		{name: "small documents", path: corpusDir, budget: 5, docs: 5, chunks: 5},
		// Batches of 2 chunks: the batches whole before the budget went, not the one it cut.
		{name: "large document", path: long, budget: 5, batch: 2, docs: 1, chunks: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store := openStore(t, t.TempDir())
			in := newIngester(t, store, &budgetExtractor{budget: tc.budget})
			in.Options.Concurrency = 1 // documents extracted in input order
			if tc.batch > 0 {
				in.Options.ChunkBatch = tc.batch
				in.Options.Chunk.Size, in.Options.Chunk.Overlap = 60, 10
			}
			rep, err := in.Run(ctx, []string{tc.path})
			if !errors.Is(err, llm.ErrBudgetSpent) {
				t.Fatalf("err = %v, want ErrBudgetSpent", err)
			}
			if rep.Failed != 0 {
				t.Errorf("%d documents counted failed: a spent budget is no document's fault", rep.Failed)
			}
			st, err := store.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Nodes["Document"] != int64(tc.docs) || st.Nodes["Chunk"] != int64(tc.chunks) {
				t.Errorf("stopped run left %d documents, %d chunks; want %d, %d", st.Nodes["Document"], st.Nodes["Chunk"], tc.docs, tc.chunks)
			}
			if state, err := graph.ReadIngestState(ctx, store); err != nil || !state.Unfinished {
				t.Errorf("state after the stop: %+v, %v; want unfinished", state, err)
			}

			in.Extractor = extract.NewOffline()
			rep, err = in.Run(ctx, []string{tc.path})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed != 0 {
				t.Errorf("resumed run: %+v", rep)
			}
			if state, err := graph.ReadIngestState(ctx, store); err != nil || !state.Complete {
				t.Errorf("state after the resumed run: %+v, %v; want complete", state, err)
			}
		})
	}
}

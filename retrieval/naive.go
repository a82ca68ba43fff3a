package retrieval

import (
	"context"

	"github.com/stratarag/strata/internal/graph"
)

// naive ranks chunks by fusing vector similarity with full-text (BM25) relevance.
func (e *Engine) naive(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	candidates := opt.TopK * 4
	vhits, err := e.Store.VectorSearch(ctx, graph.ChunkEmbedding, qvec, candidates)
	if err != nil {
		return err
	}
	thits, err := e.Store.TextSearch(ctx, graph.ChunkText, question, candidates)
	if err != nil {
		return err
	}
	hits := fuse(vhits, thits)
	hits = hits[:min(len(hits), opt.TopK)]
	ids := make([]string, len(hits))
	scores := make(map[string]float64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
		scores[h.ID] = h.Score
	}
	chunks, err := e.Store.Chunks(ctx, ids)
	if err != nil {
		return err
	}
	items, err := e.chunkItems(ctx, chunks, scores)
	if err != nil {
		return err
	}
	b := newContextBuilder(e.Tokenizer)
	res.Context.Chunks = b.chunks("Sources", items, opt.MaxContextTokens)
	res.ContextText = b.String()
	return nil
}

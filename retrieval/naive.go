package retrieval

import (
	"context"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

// naive ranks chunks by fusing vector similarity with full-text (BM25) relevance, the vectors
// weighted as the embedder says (embedding.PassageWeight: 0 for the offline embedder).
func (e *Engine) naive(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	// Each list is searched four times deeper than needed, so that a chunk ranked modestly by both
	// can still win the fusion.
	hits, err := e.hybridSearch(ctx, graph.ChunkEmbedding, graph.ChunkText, question, qvec, opt.TopK*4, embedding.PassageWeight(e.Embedder))
	if err != nil {
		return err
	}
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
	items = byDocument(items)
	items = items[:min(len(items), opt.TopK)]
	b := newContextBuilder(e.Tokenizer)
	res.Context.Chunks = b.chunks("Sources", items, opt.MaxContextTokens)
	res.ContextText = b.String()
	return nil
}

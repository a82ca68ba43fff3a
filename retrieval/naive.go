package retrieval

import (
	"context"

	"github.com/stratarag/strata/internal/graph"
)

// naive ranks chunks by fusing vector similarity with full-text (BM25) relevance, the vectors
// weighted as the embedder says (embedding.PassageWeight: 0 for the offline embedder), each
// document's best chunk first (byDocument).
func (e *Engine) naive(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	// Each list is searched four times deeper than needed, so that a chunk ranked modestly by both
	// can still win the fusion, and a few long documents cannot take every slot.
	chunks, scores, err := e.lexicalChunks(ctx, question, qvec, opt.TopK*4)
	if err != nil {
		return err
	}
	return e.chunkContext(ctx, chunks, scores, opt, res)
}

// chunkContext lays ranked chunks out as the context of a chunk-only mode (naive, ppr): each
// document's best chunk first (byDocument), the first TopK, as one Sources section.
func (e *Engine) chunkContext(ctx context.Context, chunks []graph.Chunk, scores map[string]float64, opt Options, res *Result) error {
	chunks = byDocument(chunks)
	items, err := e.chunkItems(ctx, chunks[:min(len(chunks), opt.TopK)], scores)
	if err != nil {
		return err
	}
	b := newContextBuilder(e.Tokenizer)
	res.Context.Chunks = b.chunks("Sources", items, opt.MaxContextTokens)
	res.ContextText = b.String()
	res.Budget = b.budget(opt.MaxContextTokens)
	return nil
}

// chunksOf reads the chunks of ranked hits, in rank order, with their scores by chunk id.
func (e *Engine) chunksOf(ctx context.Context, hits []graph.Hit) ([]graph.Chunk, map[string]float64, error) {
	ids := make([]string, len(hits))
	scores := make(map[string]float64, len(hits))
	for i, h := range hits {
		ids[i], scores[h.ID] = h.ID, h.Score
	}
	chunks, err := e.Store.Chunks(ctx, ids)
	return chunks, scores, err
}

package retrieval

import "context"

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

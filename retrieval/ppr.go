package retrieval

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// Parameters of the personalized PageRank walk (HippoRAG 2's passage ranking), chosen on
// multihop and hp (docs/RETRIEVAL.md, "Personalized PageRank", has the sensitivity table). As in
// HippoRAG 2, the passages the question's search finds carry most of the restarts: the chunks of
// the lexical ranking weigh 1/(1+r) by rank r, the entity candidates 1 each, and the walk adds to
// them what the graph joins to them.
const (
	pprDamping     = 0.5 // HippoRAG's; .3 and .7 moved recall by a few questions either way
	pprIterations  = 20  // GDS's default; at damping .5 what is left after 20 steps is 1e-6
	pprTolerance   = 1e-7
	pprEntitySeeds = 5  // the first candidates of hi's entity search; 10 spread the walk over what the question does not name
	pprChunkSeeds  = 40 // the lexical ranking hi and the ppr mode read (4 × --top-k at the default 10)
)

// errNoPPR is what a store without graph.ChunkRanker answers the ppr mode.
var errNoPPR = errors.New("ppr needs a store that ranks chunks by personalized PageRank (graph.ChunkRanker)")

// pprSeeds turns hi's entity candidates and the lexical chunk ranking into the walk's seeds:
// the first n candidates (pprEntitySeeds in hi, --entities in the ppr mode) at weight 1, the
// first pprChunkSeeds chunks at 1/(1+rank).
func pprSeeds(candidates []graph.Hit, n int, lexical []graph.Chunk) []graph.PPRSeed {
	var seeds []graph.PPRSeed
	for _, h := range candidates[:min(len(candidates), n)] {
		seeds = append(seeds, graph.PPRSeed{ID: h.ID, Weight: 1})
	}
	for r, c := range lexical[:min(len(lexical), pprChunkSeeds)] {
		seeds = append(seeds, graph.PPRSeed{ID: c.ID, Chunk: true, Weight: 1 / float64(1+r)})
	}
	return seeds
}

// pprChunks ranks k chunks by the walk from seeds and reads them.
func (e *Engine) pprChunks(ctx context.Context, seeds []graph.PPRSeed, k int) ([]graph.Chunk, map[string]float64, error) {
	r, ok := e.Store.(graph.ChunkRanker)
	if !ok {
		return nil, nil, errNoPPR
	}
	hits, err := r.PPRChunks(ctx, seeds, graph.PPROptions{Damping: pprDamping, MaxIterations: pprIterations, Tolerance: pprTolerance}, k)
	if err != nil {
		return nil, nil, fmt.Errorf("ppr: %w", err)
	}
	return e.chunksOf(ctx, hits)
}

// ppr ranks chunks by personalized PageRank alone, seeded as hi's channel is (pprSeeds), and
// lays them out as naive does, each document's best chunk first.
func (e *Engine) ppr(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	var (
		candidates []graph.Hit
		lexical    []graph.Chunk
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		candidates, err = e.hybridSearch(gctx, graph.EntityEmbedding, graph.EntityText, question, qvec, max(opt.Entities, hiEntities)*hiOversample, 1)
		return err
	})
	g.Go(func() (err error) {
		lexical, _, err = e.lexicalChunks(gctx, question, qvec, opt.TopK*4)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	chunks, scores, err := e.pprChunks(ctx, pprSeeds(candidates, opt.Entities, lexical), opt.TopK*4)
	if err != nil {
		return err
	}
	return e.chunkContext(ctx, chunks, scores, opt, res)
}

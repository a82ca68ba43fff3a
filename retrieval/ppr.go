package retrieval

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// Parameters of the personalized PageRank walk (HippoRAG 2's passage ranking), chosen on
// multihop and hp (docs/RETRIEVAL.md, "Personalized PageRank", has the sensitivity table). The
// seeds take two weights only, 1 for an entity and pprChunkWeight for a chunk: the Neo4j store
// runs GDS once per distinct weight (GDS 2.13's sourceNodes has no weights), and weighting the
// entities by their scores or ranks moved recall by a few questions either way.
const (
	pprDamping     = 0.5 // HippoRAG's; 0.3 and 0.7 trade R@5 for R@10
	pprIterations  = 20  // GDS's default; at damping .5 what is left after 20 steps is 1e-6
	pprTolerance   = 1e-7
	pprEntitySeeds = 5 // the first candidates of hi's entity search; 20 (hi's seeds) spread the walk over what the question does not name
	pprChunkSeeds  = 10
	pprChunkWeight = 0.05 // HippoRAG 2's passage node weight
)

// errNoPPR is what a store without graph.ChunkRanker answers the ppr mode.
var errNoPPR = errors.New("ppr needs a store that ranks chunks by personalized PageRank (graph.ChunkRanker)")

// pprSeeds turns hi's entity candidates and the lexical chunk ranking into the walk's seeds:
// the first n candidates (pprEntitySeeds in hi, --entities in the ppr mode) at weight 1, the
// first pprChunkSeeds chunks at pprChunkWeight.
func pprSeeds(candidates []graph.Hit, n int, lexical []graph.Chunk) []graph.PPRSeed {
	var seeds []graph.PPRSeed
	for _, h := range candidates[:min(len(candidates), n)] {
		seeds = append(seeds, graph.PPRSeed{ID: h.ID, Weight: 1})
	}
	for _, c := range lexical[:min(len(lexical), pprChunkSeeds)] {
		seeds = append(seeds, graph.PPRSeed{ID: c.ID, Chunk: true, Weight: pprChunkWeight})
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

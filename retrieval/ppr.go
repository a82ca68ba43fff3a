package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// Parameters of the personalized PageRank walk (HippoRAG 2's passage ranking), chosen on
// multihop and hp (docs/RETRIEVAL.md, "Personalized PageRank", has the sensitivity table). As in
// HippoRAG 2, the walk starts from the passages the question's search finds and from the
// entities of the facts that match the question best; its facts are an LLM's triples, ours the
// relation evidence of the best chunks (offline, the sentence two names share).
const (
	pprDamping    = 0.5 // HippoRAG's; .3 and .7 moved recall by a few questions either way
	pprIterations = 20  // GDS's default; at damping .5 what is left after 20 steps is 1e-6
	pprTolerance  = 1e-7
	pprChunkSeeds = 40 // the lexical ranking hi and the ppr mode read (4 × --top-k at the default 10)
	pprFactChunks = 10 // the lexical chunks whose facts are matched; 5 and 20 did as well
	pprFacts      = 5  // HippoRAG 2's link_top_k; 10 and 15 gained on mq and lost on multihop
)

// errNoPPR is what a store without graph.ChunkRanker answers the ppr mode.
var errNoPPR = errors.New("ppr needs a store that ranks chunks by personalized PageRank (graph.ChunkRanker)")

// pprSeeds returns the walk's seeds: the first pprChunkSeeds chunks of the lexical ranking at
// 1/(1+rank), and the two entities of each of the facts best matching the question among those
// of the first pprFactChunks chunks (pprFacts in hi, --entities in the ppr mode), at the fact's
// match relative to the best one's (matchFacts).
func (e *Engine) pprSeeds(ctx context.Context, question string, lexical []graph.Chunk, facts int) ([]graph.PPRSeed, error) {
	var seeds []graph.PPRSeed
	for r, c := range lexical[:min(len(lexical), pprChunkSeeds)] {
		seeds = append(seeds, graph.PPRSeed{ID: c.ID, Chunk: true, Weight: 1 / float64(1+r)})
	}
	ids := make([]string, 0, pprFactChunks)
	for _, c := range lexical[:min(len(lexical), pprFactChunks)] {
		ids = append(ids, c.ID)
	}
	_, evidence, err := e.Store.ChunkEvidence(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("ppr facts: %w", err)
	}
	matched := matchFacts(question, lexical, evidence)
	for _, f := range matched[:min(len(matched), facts)] {
		w := f.score / matched[0].score
		seeds = append(seeds, graph.PPRSeed{ID: f.key.Source, Weight: w}, graph.PPRSeed{ID: f.key.Target, Weight: w})
	}
	return seeds, nil
}

// fact is a relation with how well its evidence matches the question.
type fact struct {
	key   graph.RelationKey
	score float64
}

// matchFacts scores relations by their evidence: a piece of evidence scores the summed weights
// of the question words it holds (function words left out; a word weighs its BM25 idf among the
// lexical candidates, as the second document's choice weighs them, newCoverage), a relation its
// best piece. It returns the relations that hold a question word, best first, ties by key.
// HippoRAG 2 matches the question's embedding to its triples'; without an embedding of each
// piece of evidence, the words it shares with the question stand in.
func matchFacts(question string, lexical []graph.Chunk, evidence []graph.RelationEvidence) []fact {
	weight := newCoverage(question, lexical, nil).weight
	best := map[graph.RelationKey]float64{}
	var buf []byte
	for _, ev := range evidence {
		held := map[string]bool{}
		var score float64
		buf = eachWord(ev.Description, buf, func(w []byte) {
			if wt, ok := weight[string(w)]; ok && !held[string(w)] {
				held[string(w)] = true
				score += wt
			}
		})
		k := graph.RelationKey{Source: ev.Source, Target: ev.Target}
		best[k] = max(best[k], score)
	}
	var facts []fact
	for k, s := range best {
		if s > 0 {
			facts = append(facts, fact{k, s})
		}
	}
	slices.SortFunc(facts, func(a, b fact) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.key.Source, b.key.Source), cmp.Compare(a.key.Target, b.key.Target))
	})
	return facts
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
	lexical, _, err := e.lexicalChunks(ctx, question, qvec, opt.TopK*4)
	if err != nil {
		return err
	}
	seeds, err := e.pprSeeds(ctx, question, lexical, opt.Entities)
	if err != nil {
		return err
	}
	chunks, scores, err := e.pprChunks(ctx, seeds, opt.TopK*4)
	if err != nil {
		return err
	}
	return e.chunkContext(ctx, chunks, scores, opt, res)
}

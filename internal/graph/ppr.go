package graph

import (
	"context"
	"math"
)

// PPRSeed is where personalized PageRank restarts: an entity, or a chunk when Chunk, with its
// share of the restarts.
type PPRSeed struct {
	ID     string
	Chunk  bool
	Weight float64
}

// PPROptions are the walk's parameters (graphalgo.PPROptions, GDS's pageRank configuration).
type PPROptions struct {
	Damping       float64
	MaxIterations int
	Tolerance     float64
}

// ChunkRanker ranks chunks by personalized PageRank (HippoRAG 2's passage ranking) over the
// graph of every entity and chunk: RELATED relationships, undirected, weighted by their weight
// (a non-positive weight counts 1), and HAS_ENTITY mentions, undirected, weight 1. It is a
// separate interface because it is optional: retrieval's ppr mode and hi's PPR channel ask a
// store for it and say what is missing when the store lacks it.
type ChunkRanker interface {
	// PPRChunks returns the k chunks of highest score, best first, with their scores: ties (at
	// the 1e-9 graphalgo.RoundPPR keeps) by chunk id. The seeds' weights are kept at
	// PPRShareBits of precision and normalised to sum to 1 first (NormalizePPRSeeds); seeds
	// that are not in the graph are skipped after. The embedded store computes it in Go
	// (graphalgo.PersonalizedPageRank), Neo4j in GDS, one gds.pageRank run per bit of the
	// seeds' shares (GDS 2.13 takes sources without weights).
	PPRChunks(ctx context.Context, seeds []PPRSeed, opt PPROptions, k int) ([]Hit, error)
}

// PPRShareBits is the precision seeds' weights are kept at: each becomes an integer share of at
// most 1<<PPRShareBits (PPRShares). The walk being linear in its start, a backend that takes
// sources without weights (GDS 2.13) runs once per bit of the shares, at most PPRShareBits+1
// runs whatever the number of distinct weights, and gets the same scores as a weighted walk.
const PPRShareBits = 8

// PPRShares returns the seeds with a positive, finite weight, each (kind, id) once with its
// weights summed, in the order first given, each weight replaced by its share: the weight
// relative to the largest, times 1<<PPRShareBits, rounded, and at least 1. It also returns the
// sum of the shares (0 when no seed has weight).
func PPRShares(seeds []PPRSeed) ([]PPRSeed, int) {
	type key struct {
		chunk bool
		id    string
	}
	index := map[key]int{}
	var out []PPRSeed
	for _, s := range seeds {
		if !(s.Weight > 0) || math.IsInf(s.Weight, 1) {
			continue
		}
		k := key{s.Chunk, s.ID}
		if i, ok := index[k]; ok {
			out[i].Weight += s.Weight
		} else {
			index[k] = len(out)
			out = append(out, s)
		}
	}
	var top float64
	for _, s := range out {
		top = max(top, s.Weight)
	}
	total := 0
	for i := range out {
		share := max(1, math.Round(out[i].Weight/top*(1<<PPRShareBits)))
		out[i].Weight = share
		total += int(share)
	}
	return out, total
}

// NormalizePPRSeeds returns the seeds of PPRShares with their shares divided by the sum, so that
// the weights sum to 1; nil when no seed has weight.
func NormalizePPRSeeds(seeds []PPRSeed) []PPRSeed {
	out, total := PPRShares(seeds)
	for i := range out {
		out[i].Weight /= float64(total)
	}
	return out
}

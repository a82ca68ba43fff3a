package graph

import "context"

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
	// the 1e-9 graphalgo.RoundPPR keeps) by chunk id. The seeds' weights are normalised to sum
	// to 1 first (NormalizePPRSeeds); seeds that are not in the graph are skipped after. The
	// embedded store computes it in Go (graphalgo.PersonalizedPageRank), Neo4j in GDS, one
	// gds.pageRank run per distinct seed weight (GDS 2.13 takes sources without weights), so
	// callers keep the weights few.
	PPRChunks(ctx context.Context, seeds []PPRSeed, opt PPROptions, k int) ([]Hit, error)
}

// NormalizePPRSeeds returns the seeds with positive weight, each (kind, id) once with its
// weights summed, scaled to sum to 1, in the order first given; nil when none has weight.
func NormalizePPRSeeds(seeds []PPRSeed) []PPRSeed {
	type key struct {
		chunk bool
		id    string
	}
	index := map[key]int{}
	var out []PPRSeed
	var sum float64
	for _, s := range seeds {
		if !(s.Weight > 0) {
			continue
		}
		k := key{s.Chunk, s.ID}
		if i, ok := index[k]; ok {
			out[i].Weight += s.Weight
		} else {
			index[k] = len(out)
			out = append(out, s)
		}
		sum += s.Weight
	}
	for i := range out {
		out[i].Weight /= sum
	}
	return out
}

package retrieval

import (
	"context"

	"github.com/stratarag/strata/internal/graph"
)

// The searches BenchmarkArchSearch compares with arch mode's own (Engine.archFindFused).

// archDescent searches the top layer, then each layer below among the members of the nearest
// communities found above it (widened to the next nearest until at least k candidates): a
// C-HNSW-like walk down the hierarchy, ArchRAG's own, down to the layer-0 entities.
func archDescent(ctx context.Context, store graph.ArchIndex, qvec []float32, layers, k int) ([]archHit, error) {
	var out []archHit
	var within []string // nil: the whole layer
	for l := layers; l >= 0; l-- {
		hits, err := store.ArchSearch(ctx, l, qvec, within, k)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			out = append(out, archHit{layer: l, hit: h})
		}
		if l == 0 {
			break
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		comms, err := store.ArchCommunities(ctx, ids)
		if err != nil {
			return nil, err
		}
		within = []string{}
		for _, c := range comms {
			within = append(within, c.Members...)
			if len(within) >= k {
				break
			}
		}
	}
	return out, nil
}

// archFlatVector is archFindFlat down to layer 0, which it searches by vector alone, so that
// the benchmark compares a per-layer vector search with the descent on equal terms.
func archFlatVector(ctx context.Context, store graph.ArchIndex, qvec []float32, layers, k int) ([]archHit, error) {
	out, err := archFindFlat(ctx, store, qvec, layers, k)
	if err != nil {
		return nil, err
	}
	hits, err := store.ArchSearch(ctx, 0, qvec, nil, k)
	if err != nil {
		return nil, err
	}
	for _, h := range hits {
		out = append(out, archHit{layer: 0, hit: h})
	}
	return out, nil
}

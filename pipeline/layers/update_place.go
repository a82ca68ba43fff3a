package layers

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

// neighbours is how many of a new summary's most similar clustered summaries vote for its
// cluster.
const neighbours = 10

// unembedded is what nearest finds for an entity that is not stored with an embedding.
const unembedded = "\x00unembedded"

// nearest finds, for each id (entities of layer without a cluster), the summary its nearest
// clustered neighbours vote for: each of them gives its cosine similarity to each of its
// summaries, and the summary with the most wins (ties: the smaller id); "" when it has no
// clustered neighbour, unembedded when it is not stored with an embedding. At layer 0 the neighbours are the entity's related entities (adj): an
// entity enters the graph through its relations, and reading every embedding of the layer to
// find the nearest would cost what the whole layer costs. Above, a summary layer is small: its
// `neighbours` most similar clustered entities are found by a scan. A vote of neighbours
// rather than the nearest summary: a summary's embedding is that of its text, which names a few
// members, while the neighbours are where the clustering put entities like this one.
func (b *Builder) nearest(ctx context.Context, layer int, ids []string, memberOf map[string][]string, adj map[string][]string) ([]string, error) {
	out := make([]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	want := slices.Clone(ids)
	if layer == 0 {
		for _, id := range ids {
			for _, n := range adj[id] {
				if len(memberOf[n]) > 0 {
					want = append(want, n)
				}
			}
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	vec := map[string][]float32{}
	for start := 0; start < len(want); start += page {
		es, err := b.Store.Entities(ctx, want[start:min(start+page, len(want))])
		if err != nil {
			return nil, fmt.Errorf("read the entities to place in layer %d: %w", layer, err)
		}
		for _, e := range es {
			vec[e.ID] = e.Embedding
		}
	}
	var pool *vectorPool
	if layer > 0 {
		var err error
		if pool, err = b.layerPool(ctx, layer, memberOf); err != nil {
			return nil, err
		}
	}
	for i, id := range ids {
		v := vec[id]
		if len(v) == 0 {
			out[i] = unembedded
			continue
		}
		var hits []graph.Hit
		if pool != nil {
			hits = pool.search(v)
		} else {
			for _, n := range adj[id] {
				if w := vec[n]; len(w) > 0 && len(memberOf[n]) > 0 {
					hits = append(hits, graph.Hit{ID: n, Score: embedding.Cosine(v, w)})
				}
			}
		}
		votes := map[string]float64{}
		for _, h := range hits {
			for _, s := range memberOf[h.ID] {
				votes[s] += h.Score
			}
		}
		best, bestVote := "", math.Inf(-1)
		for _, s := range slices.Sorted(maps.Keys(votes)) {
			if votes[s] > bestVote {
				best, bestVote = s, votes[s]
			}
		}
		out[i] = best
	}
	return out, nil
}

// vectorPool is the clustered entities of a summary layer with their embeddings, searched in
// memory: a summary layer is a twentieth of the one below.
type vectorPool struct {
	ids  []string
	vecs [][]float32
}

func (b *Builder) layerPool(ctx context.Context, layer int, memberOf map[string][]string) (*vectorPool, error) {
	p := &vectorPool{}
	err := b.eachLayer(ctx, layer, func(es []graph.Entity) error {
		for _, e := range es {
			if len(memberOf[e.ID]) > 0 {
				p.ids = append(p.ids, e.ID)
				p.vecs = append(p.vecs, e.Embedding)
			}
		}
		return nil
	})
	return p, err
}

// search returns the `neighbours` entities of the pool most similar to v by cosine.
func (p *vectorPool) search(v []float32) []graph.Hit {
	hits := make([]graph.Hit, 0, len(p.ids))
	for i, w := range p.vecs {
		if len(w) == len(v) {
			hits = append(hits, graph.Hit{ID: p.ids[i], Score: embedding.Cosine(v, w)})
		}
	}
	slices.SortFunc(hits, func(a, b graph.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(neighbours, len(hits))]
}

// Package layers builds HiRAG's hierarchical index (HiIndex): the entities of a layer
// are clustered by their embeddings (PCA, then a Gaussian mixture whose size has the lowest
// BIC, with soft membership), each cluster is summarized into one or more summary entities of
// the next layer, and members are linked to their summaries with SUMMARIZED_BY. Layers are added
// until cluster sparsity settles, reaches 0.98, or two entities or fewer remain.
package layers

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

// Summary is a summary entity written for one cluster.
type Summary struct {
	Name        string
	Type        string
	Description string
}

// Summarizer writes the summary entities of one cluster of entities.
type Summarizer interface {
	Summarize(ctx context.Context, members []graph.Entity) ([]Summary, error)
}

// Options configures the index; zero fields take DefaultOptions' values.
type Options struct {
	MaxLayers     int     // summary layers at most
	Dims          int     // PCA dimensions the embeddings are reduced to before clustering
	MaxComponents int     // largest mixture size searched
	Threshold     float64 // soft membership: an entity joins every cluster it belongs to with probability above this
	Epsilon       float64 // stop when cluster sparsity changes by less than this between layers
	MaxSparsity   float64 // stop when cluster sparsity reaches this
	Concurrency   int     // clusters summarized at once
}

// DefaultOptions returns the index's defaults: at most 5 layers, embeddings reduced to 10
// dimensions, mixtures of up to 50 components, membership above probability 0.1, and a stop at a
// sparsity change under 0.05 or a sparsity of 0.98.
func DefaultOptions() Options {
	return Options{MaxLayers: 5, Dims: 10, MaxComponents: 50, Threshold: 0.1, Epsilon: 0.05, MaxSparsity: 0.98, Concurrency: 8}
}

// Builder builds the summary layers over the layer-0 entities of a store.
type Builder struct {
	Store      graph.ReadWriter
	Embedder   embedding.Embedder
	Summarizer Summarizer
	Log        zerolog.Logger
	Options    Options
	// Seed seeds the Gaussian mixtures: the same seed over the same entities builds the same
	// layers. It is a field of its own, not an option, because the ingester passes one seed to
	// both this index and community detection.
	Seed int64
}

// Layer describes one built layer.
type Layer struct {
	Layer     int     // the layer the summaries belong to (1, 2, …)
	Members   int     // entities of the layer below that were clustered
	Clusters  int     // clusters with at least two members
	Summaries int     // summary entities written
	Sparsity  float64 // cluster sparsity of the clustering
}

// Build replaces every summary layer by a new hierarchy over the current layer-0 entities and
// writes it in one batch. It returns the layers built (none when the graph is too small or
// too sparse to summarize).
func (b *Builder) Build(ctx context.Context) ([]Layer, error) {
	opt := b.options()
	current, err := b.Store.EntitiesByLayer(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("read layer 0: %w", err)
	}
	current = slices.DeleteFunc(current, func(e graph.Entity) bool { return len(e.Embedding) == 0 })
	batch := graph.Batch{ClearSummaries: true}
	var built []Layer
	prevSparsity := math.NaN()
	for layer := 1; layer <= opt.MaxLayers && len(current) > 2; layer++ {
		groups, probs, err := b.cluster(current, opt)
		if err != nil {
			return nil, fmt.Errorf("cluster layer %d: %w", layer-1, err)
		}
		clusters := make([][]int, len(groups))
		for i, g := range groups {
			clusters[i] = g.rows
		}
		sparsity := cluster.Sparsity(clusters, len(current))
		b.Log.Debug().Int("layer", layer).Int("members", len(current)).Int("clusters", len(clusters)).Float64("sparsity", sparsity).Msg("clustered")
		if sparsity >= opt.MaxSparsity || math.Abs(sparsity-prevSparsity) < opt.Epsilon {
			break
		}
		prevSparsity = sparsity
		summaries, links, err := b.summarize(ctx, layer, current, groups, probs, opt)
		if err != nil {
			return nil, err
		}
		if len(summaries) == 0 {
			break
		}
		texts := make([]string, len(summaries))
		for i, s := range summaries {
			texts[i] = s.EmbeddingText()
		}
		vecs, err := b.Embedder.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed layer %d: %w", layer, err)
		}
		for i := range summaries {
			summaries[i].Embedding = vecs[i]
		}
		batch.Entities = append(batch.Entities, summaries...)
		batch.SummaryLinks = append(batch.SummaryLinks, links...)
		built = append(built, Layer{Layer: layer, Members: len(current), Clusters: countClusters(clusters), Summaries: len(summaries), Sparsity: sparsity})
		current = summaries
	}
	if err := b.Store.Apply(ctx, batch); err != nil {
		return nil, fmt.Errorf("write summary layers: %w", err)
	}
	return built, nil
}

func (b *Builder) options() Options {
	def := DefaultOptions()
	o := b.Options
	o.MaxLayers = cmp.Or(o.MaxLayers, def.MaxLayers)
	o.Dims = cmp.Or(o.Dims, def.Dims)
	o.MaxComponents = cmp.Or(o.MaxComponents, def.MaxComponents)
	o.Threshold = cmp.Or(o.Threshold, def.Threshold)
	o.Epsilon = cmp.Or(o.Epsilon, def.Epsilon)
	o.MaxSparsity = cmp.Or(o.MaxSparsity, def.MaxSparsity)
	o.Concurrency = cmp.Or(o.Concurrency, def.Concurrency)
	return o
}

// group is one cluster: a mixture component and the entities (row indexes) that belong to it.
type group struct {
	component int
	rows      []int
}

// cluster reduces the entities' embeddings and fits the mixture of lowest BIC. It returns the
// non-empty clusters (soft: an entity may be in several) and every entity's membership
// probability per component.
func (b *Builder) cluster(entities []graph.Entity, opt Options) ([]group, [][]float64, error) {
	rows := make([][]float32, len(entities))
	for i, e := range entities {
		rows[i] = e.Embedding
	}
	x, err := cluster.PCA(rows, min(opt.Dims, len(entities)-1))
	if err != nil {
		return nil, nil, err
	}
	gmm, _, err := cluster.Select(x, cluster.SelectOptions{
		MaxComponents: min(opt.MaxComponents, len(entities)),
		GMM:           cluster.GMMOptions{Seed: b.Seed},
	})
	if err != nil {
		return nil, nil, err
	}
	probs, err := gmm.Probabilities(x)
	if err != nil {
		return nil, nil, err
	}
	byRow, err := gmm.Membership(x, opt.Threshold)
	if err != nil {
		return nil, nil, err
	}
	var groups []group
	for row, comps := range byRow {
		for _, c := range comps {
			for len(groups) <= c {
				groups = append(groups, group{component: len(groups)})
			}
			groups[c].rows = append(groups[c].rows, row)
		}
	}
	groups = slices.DeleteFunc(groups, func(g group) bool { return len(g.rows) == 0 })
	return groups, probs, nil
}

func countClusters(clusters [][]int) int {
	n := 0
	for _, c := range clusters {
		if len(c) >= 2 {
			n++
		}
	}
	return n
}

// summarize writes the summaries of every cluster of two or more members (concurrently) and
// links members to them; summaries with the same id from different clusters are merged.
func (b *Builder) summarize(ctx context.Context, layer int, members []graph.Entity, groups []group, probs [][]float64, opt Options) ([]graph.Entity, []graph.SummaryLink, error) {
	results := make([][]Summary, len(groups))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for ci, grp := range groups {
		rows := grp.rows
		if len(rows) < 2 {
			continue // a lone entity needs no summary: it would only repeat itself
		}
		g.Go(func() error {
			group := make([]graph.Entity, len(rows))
			for i, r := range rows {
				group[i] = members[r]
			}
			s, err := b.Summarizer.Summarize(gctx, group)
			if err != nil {
				return fmt.Errorf("summarize a cluster of layer %d: %w", layer-1, err)
			}
			results[ci] = s
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	var entities []graph.Entity
	index := map[string]int{}
	links := map[graph.RelationKey]graph.SummaryLink{}
	var linkOrder []graph.RelationKey
	for ci, sums := range results {
		for _, s := range sums {
			id := SummaryID(s.Name, layer)
			if id == SummaryID("", layer) {
				continue
			}
			if i, ok := index[id]; ok {
				if s.Description != "" && !strings.Contains(entities[i].Description, s.Description) {
					entities[i].Description += "\n" + s.Description
				}
			} else {
				index[id] = len(entities)
				entities = append(entities, graph.Entity{ID: id, Name: s.Name, Type: cmp.Or(s.Type, "other"), Description: s.Description, Layer: layer, ComponentID: -1})
			}
			for _, r := range groups[ci].rows {
				k := graph.RelationKey{Source: members[r].ID, Target: id}
				w := probs[r][groups[ci].component]
				if l, ok := links[k]; ok {
					l.Weight = max(l.Weight, w)
					links[k] = l
					continue
				}
				linkOrder = append(linkOrder, k)
				links[k] = graph.SummaryLink{Member: k.Source, Summary: id, Description: members[r].Name + " belongs to " + s.Name, Weight: w}
			}
		}
	}
	out := make([]graph.SummaryLink, len(linkOrder))
	for i, k := range linkOrder {
		out[i] = links[k]
	}
	return entities, out, nil
}

// SummaryID is the id of a summary entity: its normalized name and its layer, so that a summary
// never merges with an extracted entity, or with a summary of another layer, of the same name.
func SummaryID(name string, layer int) string {
	return fmt.Sprintf("%s @L%d", graph.NormalizeID(name), layer)
}

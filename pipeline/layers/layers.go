// Package layers builds HiRAG's hierarchical index (HiIndex): the entities of a layer
// are clustered by their embeddings (PCA, then Gaussian mixtures with soft membership, in
// clusters of bounded size), each cluster is summarized into one or more summary entities of the
// next layer, and members are linked to their summaries with SUMMARIZED_BY. Layers are added
// until one cluster would hold the whole layer.
//
// The index is a pure function of the stored layer-0 entities, their RELATED relationships and
// the seed: it reads degrees from the relations (graph.Reader.Degrees), never Entity.Degree,
// which holds whatever the previous ComputeComponents wrote. So a clean run, a run resumed after
// a kill and an incremental run over the same documents build the same layers.
package layers

import (
	"cmp"
	"context"
	"fmt"
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

// Member is an entity of a cluster as a Summarizer sees it.
type Member struct {
	graph.Entity
	// Connections ranks members, most connected first: for an extracted entity, its RELATED
	// relationships as stored (also in Entity.Degree); for a summary, the sum over its members.
	Connections int
	// Label is how a summary name refers to the member: an extracted entity's name, or for a
	// summary the label of its most connected member, so that names stay short at every layer.
	Label string
}

// Summarizer writes the summary entities of one cluster. Members come most connected first
// (Connections descending, then id).
type Summarizer interface {
	Summarize(ctx context.Context, members []Member) ([]Summary, error)
}

// Options configures the index; zero fields take DefaultOptions' values.
type Options struct {
	MaxLayers int // summary layers at most
	Dims      int // PCA dimensions the embeddings are reduced to before a fit
	// ClusterSize is the size clusters aim at: a layer of n entities is fitted with ⌈n/ClusterSize⌉
	// mixture components. A layer of ClusterSize entities or fewer gets no summary layer above
	// it: one summary of everything would be a hub over all of it.
	ClusterSize int
	// MaxClusterSize bounds a cluster: a larger one is clustered again on its own, recursively
	// (see cluster.Bounded). Zero means twice ClusterSize.
	MaxClusterSize int
	MaxComponents  int     // mixture components of one fit at most
	Threshold      float64 // soft membership: an entity joins every cluster it belongs to with probability above this
	Concurrency    int     // clusters summarized at once
	// AggregateK sets the threshold τ of LeanRAG's aggregation (see Threshold): mean + k·sd of
	// the pairs' counts. It applies when the Builder has a Describer.
	AggregateK float64
}

// DefaultOptions returns the index's defaults: at most 5 layers, embeddings reduced to 10
// dimensions, clusters of about 20 entities and at most 40, at most 50 components per fit,
// membership above probability 0.1.
//
// Why these sizes: HiRAG's clusters hold tens of entities, and so must ours for a summary to say
// something about each member and for a path through a summary to be a short detour rather than
// a hop through a hub. With the lowest-BIC mixture (HiRAG's rule, up to 50 components) the
// offline embeddings of the multihop corpus gave 10 clusters of 34 to 1054 entities over 2865;
// choosing the size instead gives about n/20 clusters, each under 40, and a hierarchy that
// shrinks twentyfold per layer (2865 → ~150 → ~8 entities). The cap is twice the target so that
// the mixture may still follow the data (clusters of 5 or 35) and only runaway clusters are split.
func DefaultOptions() Options {
	return Options{MaxLayers: 5, Dims: 10, ClusterSize: 20, MaxClusterSize: 40, MaxComponents: 50, Threshold: 0.1, Concurrency: 8, AggregateK: AggregateK}
}

// Store is what the index needs of a store: it reads the layer-0 entities a page at a time.
type Store interface {
	graph.ReadWriter
	graph.EntityPager
}

// Builder builds the summary layers over the layer-0 entities of a store.
type Builder struct {
	Store      Store
	Embedder   embedding.Embedder
	Summarizer Summarizer
	// Describer, when set, adds LeanRAG's inter-summary relations to every layer (aggregate.go);
	// nil builds HiRAG's hierarchy alone.
	Describer RelationDescriber
	Log       zerolog.Logger
	Options   Options
	// Seed seeds the Gaussian mixtures: the same seed over the same graph builds the same
	// layers. It is a field of its own, not an option, because the ingester passes one seed to
	// both this index and community detection.
	Seed int64
}

// Layer describes one built layer.
type Layer struct {
	Layer      int     // the layer the summaries belong to (1, 2, …)
	Members    int     // entities of the layer below that were clustered
	Clusters   int     // clusters with at least two members
	Summaries  int     // summary entities written
	MaxCluster int     // members of the largest cluster
	Sparsity   float64 // HiRAG's cluster sparsity of the clustering (cluster.Sparsity)
	// Aggregate describes the layer's inter-summary relations (zero without a Describer).
	Aggregate AggregateStats
}

// Build replaces every summary layer by a new hierarchy over the current layer-0 entities and
// writes it in one batch. It returns the layers built (none when the graph is too small to
// summarize).
func (b *Builder) Build(ctx context.Context) ([]Layer, error) {
	opt := b.options()
	if opt.MaxClusterSize < opt.ClusterSize {
		return nil, fmt.Errorf("hierarchical index: MaxClusterSize %d is below ClusterSize %d", opt.MaxClusterSize, opt.ClusterSize)
	}
	degrees, err := b.Store.Degrees(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("read layer 0: %w", err)
	}
	current, dims, err := b.baseMembers(ctx, degrees)
	if err != nil {
		return nil, err
	}
	degrees = nil // read once, not needed again
	batch := graph.Batch{ClearSummaries: true}
	var ag *aggregator
	if b.Describer != nil {
		edges, err := b.Store.LayerEdges(ctx, 0)
		if err != nil {
			return nil, fmt.Errorf("read layer 0: %w", err)
		}
		if ag, err = newAggregator(edges, current); err != nil {
			return nil, err
		}
		edges = nil // numbered by the aggregator
	}
	var built []Layer
	for layer := 1; layer <= opt.MaxLayers && len(current) > max(opt.ClusterSize, 2); layer++ {
		groups, err := b.cluster(ctx, layer, current, dims, opt)
		if err != nil {
			return nil, fmt.Errorf("cluster layer %d: %w", layer-1, err)
		}
		clusters := make([][]int, len(groups))
		largest := 0
		for i, g := range groups {
			clusters[i] = g.Rows
			largest = max(largest, len(g.Rows))
		}
		sparsity := cluster.Sparsity(clusters, len(current))
		b.Log.Debug().Int("layer", layer).Int("members", len(current)).Int("clusters", len(clusters)).
			Int("largest", largest).Float64("sparsity", sparsity).Msg("clustered")
		summaries, links, err := b.summarize(ctx, layer, current, groups, opt)
		if err != nil {
			return nil, err
		}
		if len(summaries) == 0 || len(summaries) >= len(current) {
			break // nothing to summarize, or a layer that would not be any smaller
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
			batch.Entities = append(batch.Entities, summaries[i].Entity)
		}
		batch.SummaryLinks = append(batch.SummaryLinks, links...)
		l := Layer{Layer: layer, Members: len(current), Clusters: countClusters(clusters),
			Summaries: len(summaries), MaxCluster: largest, Sparsity: sparsity}
		if ag != nil {
			ag.climb(links, summaries)
			rels, st, err := b.aggregate(ctx, layer, ag, summaries, opt)
			if err != nil {
				return nil, err
			}
			batch.Relations = append(batch.Relations, rels...)
			l.Aggregate = st
		}
		built = append(built, l)
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
	o.ClusterSize = cmp.Or(o.ClusterSize, def.ClusterSize)
	o.MaxClusterSize = cmp.Or(o.MaxClusterSize, 2*o.ClusterSize)
	o.MaxComponents = cmp.Or(o.MaxComponents, def.MaxComponents)
	o.Threshold = cmp.Or(o.Threshold, def.Threshold)
	o.Concurrency = cmp.Or(o.Concurrency, def.Concurrency)
	o.AggregateK = cmp.Or(o.AggregateK, def.AggregateK)
	return o
}

// cluster splits the members into clusters of bounded size (soft: a member may be in several).
// The mixtures have diagonal covariances: a component of about ClusterSize members cannot
// determine the 55 values of a full 10×10 covariance (it collapses onto the few directions its
// members span), but can determine 10 variances; and a diagonal EM step costs Dims times less,
// which matters with hundreds of fits per layer.
//
// The extracted entities (layer 0) are held without their embeddings (see baseMembers): their
// PCA reads the embeddings from the store in passes (cluster.PCAStream), which reduces them
// exactly as cluster.Bounded would from memory.
func (b *Builder) cluster(ctx context.Context, layer int, members []Member, dims int, opt Options) ([]cluster.Group, error) {
	bopt := cluster.BoundedOptions{
		Size: opt.ClusterSize, MaxSize: opt.MaxClusterSize, Dims: opt.Dims,
		MaxComponents: opt.MaxComponents, Threshold: opt.Threshold,
		GMM: cluster.GMMOptions{Covariance: cluster.Diag, Seed: b.Seed},
	}
	if layer > 1 {
		rows := make([][]float32, len(members))
		for i, m := range members {
			rows[i] = m.Embedding
		}
		return cluster.Bounded(rows, bopt)
	}
	x, err := cluster.PCAStream(len(members), dims, b.baseEmbeddings(ctx, members), cluster.BoundedDims(len(members), bopt))
	if err != nil {
		return nil, err
	}
	return cluster.BoundedProjected(x, bopt)
}

// basePage is how many layer-0 entities the index reads at a time.
const basePage = 2048

// baseMembers reads the layer-0 entities that have an embedding, a page at a time, and returns
// them as members without their embeddings and descriptions, and the embeddings' dimensions:
// those two are most of an entity's memory, and the index needs them only for the PCA of the
// layer (cluster reads the embeddings again) and for the summaries (summarize reads the
// descriptions of one cluster at a time). So a layer of millions of entities is clustered in a
// fraction of the memory it takes whole.
func (b *Builder) baseMembers(ctx context.Context, degrees map[string]int) ([]Member, int, error) {
	var out []Member
	dims := 0
	err := b.eachBase(ctx, func(e graph.Entity) error {
		if dims == 0 {
			dims = len(e.Embedding)
		}
		e.Degree = degrees[e.ID]
		e.Embedding, e.Description = nil, ""
		out = append(out, Member{Entity: e, Connections: e.Degree, Label: e.Name})
		return nil
	})
	return out, dims, err
}

// eachBase calls fn with every layer-0 entity that has an embedding, in id order.
func (b *Builder) eachBase(ctx context.Context, fn func(graph.Entity) error) error {
	after := ""
	for {
		page, err := b.Store.EntitiesAfter(ctx, 0, after, basePage)
		if err != nil {
			return fmt.Errorf("read layer 0: %w", err)
		}
		for _, e := range page {
			if len(e.Embedding) == 0 {
				continue
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		if len(page) < basePage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// baseEmbeddings is the cluster.RowSource of the embeddings of members, the layer-0 entities
// baseMembers returned, read again from the store. The index is the store's one writer while it
// runs, so every pass reads the same rows; a pass that finds others is an error all the same.
func (b *Builder) baseEmbeddings(ctx context.Context, members []Member) cluster.RowSource {
	return func(fn func(int, []float32) error) error {
		i := 0
		err := b.eachBase(ctx, func(e graph.Entity) error {
			if i >= len(members) || e.ID != members[i].ID {
				return fmt.Errorf("read layer 0: entity %s appeared while the layer was clustered", e.ID)
			}
			i++
			return fn(i-1, e.Embedding)
		})
		if err == nil && i != len(members) {
			err = fmt.Errorf("read layer 0: %d entities with embeddings, %d when the layer was first read", i, len(members))
		}
		return err
	}
}

// withEntities gives layer-0 members, held without descriptions and embeddings (baseMembers),
// their stored entities again, with the degrees counted for the index.
func (b *Builder) withEntities(ctx context.Context, group []Member) error {
	ids := make([]string, len(group))
	for i, m := range group {
		ids[i] = m.ID
	}
	es, err := b.Store.Entities(ctx, ids)
	if err != nil {
		return fmt.Errorf("read the members of a cluster of layer 0: %w", err)
	}
	if len(es) != len(group) {
		return fmt.Errorf("read the members of a cluster of layer 0: %d of %d entities found", len(es), len(group))
	}
	for i := range group {
		if es[i].ID != group[i].ID {
			return fmt.Errorf("read the members of a cluster of layer 0: entity %s where %s was asked for", es[i].ID, group[i].ID)
		}
		es[i].Degree = group[i].Degree
		group[i].Entity = es[i]
	}
	return nil
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
// links members to them; summaries with the same id from different clusters are merged. It
// returns the summaries as the members of the next layer.
func (b *Builder) summarize(ctx context.Context, layer int, members []Member, groups []cluster.Group, opt Options) ([]Member, []graph.SummaryLink, error) {
	results := make([][]Summary, len(groups))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for ci, grp := range groups {
		rows := grp.Rows
		if len(rows) < 2 {
			continue // a lone entity needs no summary: it would only repeat itself
		}
		g.Go(func() error {
			group := make([]Member, len(rows))
			for i, r := range rows {
				group[i] = members[r]
			}
			if layer == 1 {
				if err := b.withEntities(gctx, group); err != nil {
					return err
				}
			}
			slices.SortFunc(group, byConnections)
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
	var out []Member
	index := map[string]int{}
	links := map[graph.RelationKey]graph.SummaryLink{}
	var linkOrder []graph.RelationKey
	for ci, sums := range results {
		for _, s := range sums {
			id := SummaryID(s.Name, layer)
			if id == SummaryID("", layer) {
				continue
			}
			i, ok := index[id]
			if ok {
				if s.Description != "" && !strings.Contains(out[i].Description, s.Description) {
					out[i].Description += "\n" + s.Description
				}
			} else {
				i = len(out)
				index[id] = i
				out = append(out, Member{Entity: graph.Entity{ID: id, Name: s.Name, Type: cmp.Or(s.Type, "other"),
					Description: s.Description, Layer: layer, ComponentID: -1}})
			}
			for j, r := range groups[ci].Rows {
				k := graph.RelationKey{Source: members[r].ID, Target: id}
				w := groups[ci].Probs[j]
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
	// A summary is as connected as its members together, and goes by its best member's label.
	byID := make(map[string]int, len(members))
	for i, m := range members {
		byID[m.ID] = i
	}
	best := make([]int, len(out))
	for i := range best {
		best[i] = -1
	}
	for _, k := range linkOrder {
		s, m := index[k.Target], byID[k.Source]
		out[s].Connections += members[m].Connections
		if best[s] < 0 || byConnections(members[m], members[best[s]]) < 0 {
			best[s] = m
		}
	}
	for i := range out {
		if best[i] >= 0 {
			out[i].Label = members[best[i]].Label
		}
	}
	ls := make([]graph.SummaryLink, len(linkOrder))
	for i, k := range linkOrder {
		ls[i] = links[k]
	}
	return out, ls, nil
}

// byConnections orders members most connected first, then by id.
func byConnections(a, b Member) int {
	return cmp.Or(cmp.Compare(b.Connections, a.Connections), cmp.Compare(a.ID, b.ID))
}

// SummaryID is the id of a summary entity: its normalized name and its layer, so that a summary
// never merges with an extracted entity, or with a summary of another layer, of the same name.
func SummaryID(name string, layer int) string {
	return fmt.Sprintf("%s @L%d", graph.NormalizeID(name), layer)
}

// Package layers builds HiRAG's hierarchical index (HiIndex): the entities of a layer
// are clustered by their embeddings (PCA, then Gaussian mixtures with soft membership, in
// clusters of bounded size), each cluster is summarized into one or more summary entities of the
// next layer, and members are linked to their summaries with SUMMARIZED_BY. Layers are added
// until one cluster would hold the whole layer.
//
// The index is a pure function of the stored layer-0 entities, their RELATED relationships and
// the seed: it counts degrees from the relations (graph.HierarchyReader.EachLayerEdge), never
// reads Entity.Degree, which holds whatever the previous ComputeComponents wrote. So a clean
// run, a run resumed after a kill and an incremental run over the same documents build the same
// layers.
//
// Its memory is a few words per entity of the layer being clustered (see Builder.Build): a
// single document of 50 MiB of random names, 1.8 M entities, is indexed in bounded memory.
package layers

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
)

// Summary is a summary entity written for one cluster.
type Summary struct {
	Name        string
	Type        string
	Description string
}

// Member is an entity of a cluster as a Summarizer sees it: as stored, without its embedding
// (a summary is written from what its members say; reading their vectors cost more than the
// rest of them).
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

// Options configures the index. Start from DefaultOptions and check changed fields with
// Validate: the Builder uses every field as it is (MaxLayers 0 builds no layer).
type Options struct {
	MaxLayers int // summary layers at most
	Dims      int // PCA dimensions the embeddings are reduced to before a fit
	// ClusterSize is the size clusters aim at: a layer of n entities is fitted with ⌈n/ClusterSize⌉
	// mixture components. A layer of ClusterSize entities or fewer gets no summary layer above
	// it: one summary of everything would be a hub over all of it.
	ClusterSize int
	// MaxClusterSize bounds a cluster: a larger one is clustered again on its own, recursively
	// (see cluster.Bounded); at least ClusterSize.
	MaxClusterSize int
	MaxComponents  int     // mixture components of one fit at most
	Threshold      float64 // soft membership: an entity joins every cluster it belongs to with probability above this
	Concurrency    int     // clusters summarized at once
	// AggregateK sets the threshold τ of LeanRAG's aggregation (see threshold): mean + k·sd of
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

// Store is what the index needs of a store: it reads the layer-0 entities a page at a time,
// and reads embeddings only in the passes that use them.
type Store interface {
	graph.ReadWriter
	graph.EntityPager
	graph.EntityScanner
	graph.EntityTextReader
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
	// TempDir is where the aggregation keeps layer 0's relations when they are many (a million
	// or more: 16 bytes each), in a file removed as soon as it is created; "" is os.TempDir.
	TempDir string
	// Release, when not nil, is called where the build has let go of large arrays and is about
	// to allocate others: the process's memory policy (memstat.Policy.Release) decides what to
	// do then.
	Release func()
	spillAt int // the number of relations kept in a file from; 0 is spillEdges (tests lower it)
	holdAt  int // the bytes of a layer's embeddings held between passes at most; 0 is heldEmbeddings (tests lower it)
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
// returns the layers built (none when the graph is too small to summarize).
//
// It removes the previous layers first and then writes each layer as it is built, a page of
// summaries, links or relations per batch, so that what it holds is a few words per entity of
// the layer being clustered whatever the size of the graph: ids, connections and labels, and
// the links as indexes. Descriptions and embeddings stay in the store and are read again a
// cluster or a page at a time. A build interrupted part way leaves a partial hierarchy; the
// ingester marks the structure stale until every structure stage has finished, so the next run
// builds the whole hierarchy again.
func (b *Builder) Build(ctx context.Context) ([]Layer, error) {
	opt := b.Options
	if err := opt.Validate(); err != nil {
		return nil, fmt.Errorf("hierarchical index: %w", err)
	}
	if err := b.Store.Apply(ctx, graph.Batch{ClearSummaries: true}); err != nil {
		return nil, fmt.Errorf("remove the previous summary layers: %w", err)
	}
	current, err := b.baseMembers(ctx)
	if err != nil {
		return nil, err
	}
	dims, err := b.dimensions(ctx, current)
	if err != nil {
		return nil, err
	}
	between, err := b.countConnections(ctx, current)
	if err != nil {
		return nil, err
	}
	return b.buildFrom(ctx, current, dims, between, opt)
}

// buildFrom builds up to opt.MaxLayers layers above current (layer 0, or the top layer an
// update grows) until a stop rule holds; between is the number of layer-0 relations between
// base entities, which the aggregation (from layer 0 only) reads.
func (b *Builder) buildFrom(ctx context.Context, current layerSet, dims int, between int, opt Options) ([]Layer, error) {
	var base layerSet // layer 0, for the aggregation
	var ag *aggregator
	var built []Layer
	last := current.layer + opt.MaxLayers
	for layer := current.layer + 1; layer <= last && current.ids.Len() > max(opt.ClusterSize, 2); layer++ {
		if current.layer == 0 {
			// Layer 0 is clustered without its ids, read again after: the passes over its
			// embeddings follow the store's id order, and the clustering is the stage's peak.
			current.ids = idlist.List{}
		}
		groups, err := b.cluster(ctx, current, dims, opt)
		if err != nil {
			return nil, fmt.Errorf("cluster layer %d: %w", layer-1, err)
		}
		if current.layer == 0 {
			again, err := b.baseMembers(ctx)
			if err != nil {
				return nil, err
			}
			if again.digest != current.digest {
				return nil, fmt.Errorf("read layer 0: its entities changed while it was clustered")
			}
			current.ids = again.ids
			// The aggregation needs layer 0's ids only, not the connections the summaries of
			// layer 1 are ranked by (4 bytes an entity, let go with layer 0 after them).
			base = layerSet{ids: again.ids, digest: again.digest}
		}
		clusters := make([][]int, len(groups))
		largest := 0
		for i, g := range groups {
			clusters[i] = g.Rows
			largest = max(largest, len(g.Rows))
		}
		l := Layer{Layer: layer, Members: current.ids.Len(), Clusters: countClusters(clusters),
			MaxCluster: largest, Sparsity: cluster.Sparsity(clusters, current.ids.Len())}
		clusters = nil // summarize lets each group go once it is linked
		b.Log.Debug().Int("layer", layer).Int("members", l.Members).Int("clusters", len(groups)).
			Int("largest", largest).Float64("sparsity", l.Sparsity).Msg("clustered")
		next, links, d, err := b.summarize(ctx, layer, current, groups, opt)
		if err != nil {
			return nil, err
		}
		if next.ids.Len() >= current.ids.Len() { // a layer that would not be any smaller
			if err := b.Store.Apply(ctx, graph.Batch{DeleteEntities: next.ids.Strings()}); err != nil {
				return nil, fmt.Errorf("remove layer %d, no smaller than the one below: %w", layer, err)
			}
			break
		}
		if next.ids.Len() == 0 {
			break // nothing to summarize
		}
		dims, l.Summaries = d, next.ids.Len()
		if err := b.writeLinks(ctx, current, next, links); err != nil {
			return nil, err
		}
		if b.Describer != nil {
			if ag == nil {
				// Read now rather than with the counts: not held through layer 0's clustering.
				// The clustering and the summaries of a layer of millions leave hundreds of MB of
				// garbage: released first, the edges and the rows read for them do not pile on it.
				b.release()
				edges, err := b.baseEdges(ctx, base, between)
				if err != nil {
					return nil, err
				}
				ag = newAggregator(base.ids, edges)
				defer edges.close()
			}
			ag.climb(links, next.ids)
			if l.Aggregate, err = b.aggregate(ctx, layer, ag, next, opt); err != nil {
				return nil, err
			}
		}
		built = append(built, l)
		current = next.layerSet
	}
	return built, nil
}

// release calls Release, if set.
func (b *Builder) release() {
	if b.Release != nil {
		b.Release()
	}
}

// layerSet is a layer's entities as the index holds them between steps: ids, and what ranks
// and names each in a summary. Descriptions and embeddings stay in the store.
type layerSet struct {
	layer int
	ids   idlist.List // layer 0: ascending, as the store pages it
	conns []int32     // Member.Connections
	// labels are Member.Label of summaries; nil at layer 0, where the label is the name, read
	// with the entity.
	labels []string
	// digest is a hash of layer 0's ids in order, which every pass over it must find again.
	digest uint64
}

// page is how many entities the index reads or writes at a time.
const page = 2048

// idPage is how many ids the index reads at a time when it needs the ids alone: a page of ids
// weighs what a few entities with their embeddings do.
const idPage = 16384

// baseMembers reads the ids of the layer-0 entities that have an embedding, a page at a time.
// The ids are packed (idlist), in allocations of their size.
func (b *Builder) baseMembers(ctx context.Context) (layerSet, error) {
	var set layerSet
	var ids idlist.Builder
	h := fnv.New64a()
	err := b.eachID(ctx, 0, func(page []string) error {
		for _, id := range page {
			digestID(h, id)
			if err := ids.AddString(id); err != nil {
				return fmt.Errorf("layer 0: %w", err)
			}
		}
		return nil
	})
	set.ids = ids.List().Clone()
	set.conns = make([]int32, set.ids.Len())
	set.digest = h.Sum64()
	return set, err
}

// eachID calls fn with every page of the ids of the entities of a layer that have an
// embedding, in id order.
func (b *Builder) eachID(ctx context.Context, layer int, fn func([]string) error) error {
	after := ""
	for {
		ids, err := b.Store.EmbeddedIDsAfter(ctx, layer, after, idPage)
		if err != nil {
			return fmt.Errorf("read the ids of layer %d: %w", layer, err)
		}
		if len(ids) > 0 {
			if err := fn(ids); err != nil {
				return err
			}
			after = ids[len(ids)-1]
		}
		if len(ids) < idPage {
			return nil
		}
	}
}

// countConnections counts the connections of the base entities from the relations of layer 0
// (never from Entity.Degree), and returns how many of those join two base entities.
func (b *Builder) countConnections(ctx context.Context, base layerSet) (int, error) {
	between := 0
	err := b.Store.EachLayerEdge(ctx, 0, func(e graph.Edge) error {
		s, okS := base.ids.Search(e.Source)
		t, okT := base.ids.Search(e.Target)
		if okS {
			base.conns[s]++
		}
		if okT && e.Target != e.Source {
			base.conns[t]++
		}
		if okS && okT {
			between++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read the relations of layer 0: %w", err)
	}
	return between, nil
}

// baseEdges reads the n relations of layer 0 that join two base entities (an end without an
// embedding is in no cluster), numbered as the base entities: in memory, or from spillEdges of
// them on in a temporary file in b.TempDir.
func (b *Builder) baseEdges(ctx context.Context, base layerSet, n int) (edgeList, error) {
	var add func(baseEdge) error
	var mem memEdges
	var file *edgeWriter
	if n < cmp.Or(b.spillAt, spillEdges) {
		mem = make(memEdges, 0, n)
		add = func(e baseEdge) error { mem = append(mem, e); return nil }
	} else {
		var err error
		if file, err = newEdgeFile(b.TempDir); err != nil {
			return nil, err
		}
		add = file.add
	}
	err := b.Store.EachLayerEdge(ctx, 0, func(e graph.Edge) error {
		s, okS := base.ids.Search(e.Source)
		t, okT := base.ids.Search(e.Target)
		if okS && okT {
			return add(baseEdge{s: int32(min(s, t)), t: int32(max(s, t)), weight: e.Weight})
		}
		return nil
	})
	if file == nil {
		if err != nil {
			return nil, fmt.Errorf("read the relations of layer 0: %w", err)
		}
		return mem, nil
	}
	fe, ferr := file.done()
	switch {
	case err != nil:
		if ferr == nil {
			fe.close()
		}
		return nil, fmt.Errorf("read the relations of layer 0: %w", err)
	case ferr != nil:
		return nil, ferr
	}
	return fe, nil
}

// lookup reads entities by id: with their embeddings (graph.Reader.Entities) or without
// (graph.EntityTextReader.EntityTexts).
type lookup func(ctx context.Context, ids []string) ([]graph.Entity, error)

// entities calls fn with the stored entities of the n ids id(0), id(1), …, in that order, a
// page at a time, read by read.
func (b *Builder) entities(ctx context.Context, layer int, n int, id func(int) string, read lookup, fn func([]graph.Entity) error) error {
	want := make([]string, 0, min(n, page))
	for start := 0; start < n; start += page {
		want = want[:0]
		for i := start; i < min(start+page, n); i++ {
			want = append(want, id(i))
		}
		es, err := read(ctx, want)
		if err != nil {
			return fmt.Errorf("read entities of layer %d: %w", layer, err)
		}
		if len(es) != len(want) {
			return fmt.Errorf("read entities of layer %d: %d of %d found", layer, len(es), len(want))
		}
		for i, e := range es {
			if e.ID != want[i] {
				return fmt.Errorf("read entities of layer %d: entity %s where %s was asked for", layer, e.ID, want[i])
			}
		}
		if err := fn(es); err != nil {
			return err
		}
	}
	return nil
}

// SummaryID is the id of a summary entity: its normalized name and its layer, so that a summary
// never merges with an extracted entity, or with a summary of another layer, of the same name.
func SummaryID(name string, layer int) string {
	return fmt.Sprintf("%s @L%d", graph.NormalizeID(name), layer)
}

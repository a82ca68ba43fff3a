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
	"hash"
	"hash/fnv"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
	"github.com/stratarag/strata/internal/memstat"
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
	defer memstat.LowerGC(layersGCPercent)()
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
				// garbage: collected first (its pages handed back), the edges and the rows read
				// for them do not pile on it (the collector would let them, up to half again what
				// was live).
				debug.FreeOSMemory()
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

// layersGCPercent is the collector's target while the layers are built (memstat.LowerGC). A layer
// of millions holds its ids, links and reduced embeddings in large pointer-free arrays while
// reading and writing entities row by row: at the ingest's usual target (50) the 50 MiB
// adversarial document's layers went up to 301 MiB while the links of layer 1 were written.
const layersGCPercent = 10

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

// summaries is a layer of summaries on its way to the store: the layerSet the next layer
// clusters, and what is written of each summary once.
type summaries struct {
	layerSet
	names, types, descs []string
}

// link is a SUMMARIZED_BY link as indexes: a member of the layer below and a summary.
type link struct {
	member, summary int32
	weight          float64
}

// cluster splits the members into clusters of bounded size (soft: a member may be in several).
// The mixtures have diagonal covariances: a component of about ClusterSize members cannot
// determine the 55 values of a full 10×10 covariance (it collapses onto the few directions its
// members span), but can determine 10 variances; and a diagonal EM step costs Dims times less,
// which matters with hundreds of fits per layer.
//
// The embeddings are read from the store in passes (cluster.PCAStream, the same reduction
// cluster.Bounded makes from memory, bit for bit), so a layer of millions of entities is never
// held with its embeddings.
func (b *Builder) cluster(ctx context.Context, set layerSet, dims int, opt Options) ([]cluster.Group, error) {
	bopt := cluster.BoundedOptions{
		Size: opt.ClusterSize, MaxSize: opt.MaxClusterSize, Dims: opt.Dims,
		MaxComponents: opt.MaxComponents, Threshold: opt.Threshold,
		GMM: cluster.GMMOptions{Covariance: cluster.Diag, Seed: b.Seed},
	}
	n := len(set.conns)
	x, err := cluster.PCAStream(n, dims, b.embeddings(ctx, set, dims), cluster.BoundedDims(n, bopt))
	if err != nil {
		return nil, err
	}
	return cluster.BoundedProjected(ctx, x, bopt)
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

// dimensions returns the dimensions of the embeddings of set, those of its first entity's (0
// for an empty set).
func (b *Builder) dimensions(ctx context.Context, set layerSet) (int, error) {
	if set.ids.Len() == 0 {
		return 0, nil
	}
	id := set.ids.At(0)
	es, err := b.Store.Entities(ctx, []string{id})
	if err != nil {
		return 0, fmt.Errorf("read entity %s of layer %d: %w", id, set.layer, err)
	}
	if len(es) != 1 || len(es[0].Embedding) == 0 {
		return 0, fmt.Errorf("read entity %s of layer %d: gone, or without its embedding, since the layer was read", id, set.layer)
	}
	return len(es[0].Embedding), nil
}

// digestID adds an id to a digest of ids in order.
func digestID(h hash.Hash64, id string) {
	h.Write([]byte(id))
	h.Write([]byte{0})
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

// embeddings is the cluster.RowSource of the embeddings of a layer's entities, read from the
// store: layer 0 in id order (its ids need not be held: the pass's digest must be the layer's),
// a summary layer by id. The index is the store's one writer while it runs, so every pass reads
// the same rows; a pass that finds others is an error all the same.
//
// A layer whose embeddings fit in heldEmbeddings bytes is read once and its later passes
// (cluster.PCAStream makes three) come from memory; a larger one is read in every pass.
func (b *Builder) embeddings(ctx context.Context, set layerSet, dims int) cluster.RowSource {
	read := b.readEmbeddings(ctx, set)
	n := len(set.conns)
	if n*dims*4 > cmp.Or(b.holdAt, heldEmbeddings) || dims == 0 {
		return read
	}
	var held []float32 // n×dims, once the first pass is through
	return func(fn func(int, []float32) error) error {
		if held != nil {
			for i := range n {
				if err := fn(i, held[i*dims:(i+1)*dims:(i+1)*dims]); err != nil {
					return err
				}
			}
			return nil
		}
		rows := make([]float32, n*dims)
		err := read(func(i int, row []float32) error {
			if len(row) != dims {
				return fmt.Errorf("read layer %d: an embedding of %d dimensions, %d expected", set.layer, len(row), dims)
			}
			copy(rows[i*dims:], row)
			return fn(i, row)
		})
		if err == nil {
			held = rows
		}
		return err
	}
}

// heldEmbeddings is how many bytes of a layer's embeddings the clustering holds between its
// passes: on Neo4j reading them costs most of the clustering's time (boxed floats on the wire
// and in the driver), held they cost 4 bytes a value. 32 MiB is 20 000 entities of 384
// dimensions; a larger layer is streamed in every pass, as before.
const heldEmbeddings = 32 << 20

// readEmbeddings is the cluster.RowSource that reads the embeddings of a layer from the store in
// every pass.
func (b *Builder) readEmbeddings(ctx context.Context, set layerSet) cluster.RowSource {
	return func(fn func(int, []float32) error) error {
		n, i := len(set.conns), 0
		h := fnv.New64a()
		visit := func(es []graph.Entity) error {
			for _, e := range es {
				if i >= n {
					return fmt.Errorf("read layer %d: more than the %d entities with embeddings it had when first read", set.layer, n)
				}
				digestID(h, e.ID)
				if err := fn(i, e.Embedding); err != nil {
					return err
				}
				i++
			}
			return nil
		}
		var err error
		if set.layer == 0 {
			err = b.eachLayer(ctx, 0, visit)
			if err == nil && i == n && h.Sum64() != set.digest {
				err = fmt.Errorf("read layer 0: its entities changed while it was clustered")
			}
		} else {
			err = b.entities(ctx, set.layer, set.ids.Len(), set.ids.At, b.Store.Entities, visit)
		}
		if err == nil && i != n {
			err = fmt.Errorf("read layer %d: %d entities with embeddings, %d when the layer was first read", set.layer, i, n)
		}
		return err
	}
}

// members returns the rows of set as the summarizer sees them: stored entities without their
// embeddings, with their connections and labels. An extracted entity's Degree is its counted
// connections (the stored one is what the previous components stage left).
func (b *Builder) members(ctx context.Context, set layerSet, rows []int) ([]Member, error) {
	out := make([]Member, 0, len(rows))
	id := func(i int) string { return set.ids.At(rows[i]) }
	err := b.entities(ctx, set.layer, len(rows), id, b.Store.EntityTexts, func(es []graph.Entity) error {
		for _, e := range es {
			r := rows[len(out)]
			m := Member{Entity: e, Connections: int(set.conns[r]), Label: e.Name}
			if set.layer == 0 {
				m.Degree = m.Connections
			} else {
				m.Label = set.labels[r]
			}
			out = append(out, m)
		}
		return nil
	})
	return out, err
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

// clusterSummaries is what summarizing one cluster gave: its summaries and its most connected
// member (the label a summary goes by comes from it).
type clusterSummaries struct {
	sums []Summary
	best Member
}

// summarize summarizes every cluster of two or more members and writes the summaries, a
// window of clusters at a time (the clusters of a window concurrently), and links members to
// them; summaries with the same id from different clusters are merged. It returns the
// summaries, the next layer, with the embeddings' dimensions, and the links, ordered by member
// then summary.
func (b *Builder) summarize(ctx context.Context, layer int, set layerSet, groups []cluster.Group, opt Options) (*summaries, []link, int, error) {
	next := &summaries{layerSet: layerSet{layer: layer}}
	var ids idlist.Builder
	index := map[string]int32{}
	var best []Member // of each summary, the most connected member of its clusters
	// Usually one summary a cluster: the links are sized for that, once, rather than grown by
	// doubling (millions of them at layer 0). Each group is let go once linked.
	n := 0
	for _, g := range groups {
		if len(g.Rows) >= 2 {
			n += len(g.Rows)
		}
	}
	links := make([]link, 0, n)
	// A summary is written with the window that first gives it. One that a later window gives
	// again has its description completed and is written again at the end (rare: soft clusters
	// whose best members coincide): grown holds the descriptions it is given again, joined to
	// the written one at the end, when the summaries written are read back in one pass.
	written := 0
	grown := map[int32][]string{}
	dims := 0
	for start := 0; start < len(groups); start += page {
		window := groups[start:min(start+page, len(groups))]
		results, err := b.summarizeWindow(ctx, layer, set, window, opt)
		if err != nil {
			return nil, nil, 0, err
		}
		for wi, res := range results {
			for _, s := range res.sums {
				id := SummaryID(s.Name, layer)
				if id == SummaryID("", layer) {
					continue
				}
				i, ok := index[id]
				switch {
				case !ok:
					i = int32(next.ids.Len())
					index[id] = i
					if err := ids.AddString(id); err != nil {
						return nil, nil, 0, fmt.Errorf("layer %d: %w", layer, err)
					}
					next.ids = ids.List()
					next.names = append(next.names, s.Name)
					next.types = append(next.types, cmp.Or(s.Type, "other"))
					next.descs = append(next.descs, s.Description)
					best = append(best, res.best)
				case int(i) >= written:
					next.descs[i] = joinDescription(next.descs[i], s.Description)
				default:
					grown[i] = append(grown[i], s.Description)
				}
				if ok && byConnections(res.best, best[i]) < 0 {
					best[i] = res.best
				}
				for j, r := range window[wi].Rows {
					links = append(links, link{member: int32(r), summary: i, weight: window[wi].Probs[j]})
				}
			}
			window[wi] = cluster.Group{}
		}
		d, err := b.writeSummaries(ctx, next, written, next.ids.Len())
		if err != nil {
			return nil, nil, 0, err
		}
		dims = cmp.Or(d, dims)
		written = next.ids.Len()
	}
	if len(grown) > 0 {
		again := slices.Sorted(maps.Keys(grown))
		if err := b.growDescriptions(ctx, next, again, grown); err != nil {
			return nil, nil, 0, err
		}
		if _, err := b.writeEntities(ctx, next, again); err != nil {
			return nil, nil, 0, err
		}
	}
	next.descs, next.types = nil, nil
	// A member in two clusters that gave summaries of one name is linked once, at its
	// strongest.
	slices.SortFunc(links, func(a, b link) int {
		return cmp.Or(cmp.Compare(a.member, b.member), cmp.Compare(a.summary, b.summary), cmp.Compare(b.weight, a.weight))
	})
	links = slices.CompactFunc(links, func(a, b link) bool { return a.member == b.member && a.summary == b.summary })
	// A summary is as connected as its members together, and goes by its best member's label.
	next.conns = make([]int32, next.ids.Len())
	for _, l := range links {
		next.conns[l.summary] += set.conns[l.member]
	}
	next.labels = make([]string, next.ids.Len())
	for i, m := range best {
		next.labels[i] = m.Label
	}
	return next, slices.Clip(links), dims, nil
}

// growDescriptions sets the descriptions of the summaries again of next to their written
// descriptions, read back a page at a time, joined with the ones more gives each.
func (b *Builder) growDescriptions(ctx context.Context, next *summaries, again []int32, more map[int32][]string) error {
	id := func(i int) string { return next.ids.At(int(again[i])) }
	k := 0
	return b.entities(ctx, next.layer, len(again), id, b.Store.EntityTexts, func(es []graph.Entity) error {
		for _, e := range es {
			i := again[k]
			desc := e.Description
			for _, d := range more[i] {
				desc = joinDescription(desc, d)
			}
			next.descs[i] = desc
			k++
		}
		return nil
	})
}

// joinDescription adds the description of a summary given again to the one it has, unless it
// holds it already.
func joinDescription(desc, more string) string {
	if more == "" || strings.Contains(desc, more) {
		return desc
	}
	return desc + "\n" + more
}

// memberPage is how many members summarizeWindow reads at a time, for as many clusters as
// they fill: a lookup per cluster made the stage a few thousand round trips on Neo4j.
const memberPage = 2 * page

// summarizeWindow summarizes the clusters of a window, reading their members memberPage at a
// time and summarizing the clusters of each read concurrently.
func (b *Builder) summarizeWindow(ctx context.Context, layer int, set layerSet, window []cluster.Group, opt Options) ([]clusterSummaries, error) {
	results := make([]clusterSummaries, len(window))
	for start := 0; start < len(window); {
		end, n := start, 0
		for ; end < len(window) && (n == 0 || n+len(window[end].Rows) <= memberPage); end++ {
			if len(window[end].Rows) >= 2 {
				n += len(window[end].Rows)
			}
		}
		if err := b.summarizePart(ctx, layer, set, window[start:end], results[start:end], opt); err != nil {
			return nil, err
		}
		start = end
	}
	return results, nil
}

// summarizePart reads the members of the clusters of part in one lookup (a member of several
// is read once) and summarizes the clusters concurrently into results.
func (b *Builder) summarizePart(ctx context.Context, layer int, set layerSet, part []cluster.Group, results []clusterSummaries, opt Options) error {
	var rows []int
	for _, grp := range part {
		if len(grp.Rows) >= 2 { // a lone entity needs no summary: it would only repeat itself
			rows = append(rows, grp.Rows...)
		}
	}
	slices.Sort(rows)
	rows = slices.Compact(rows)
	members, err := b.members(ctx, set, rows)
	if err != nil {
		return fmt.Errorf("read the members of clusters of layer %d: %w", layer-1, err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opt.Concurrency)
	for ci, grp := range part {
		if len(grp.Rows) < 2 {
			continue
		}
		group := make([]Member, len(grp.Rows))
		for j, r := range grp.Rows {
			i, _ := slices.BinarySearch(rows, r)
			group[j] = members[i]
		}
		g.Go(func() error {
			slices.SortFunc(group, byConnections)
			s, err := b.Summarizer.Summarize(gctx, group)
			if err != nil {
				return fmt.Errorf("summarize a cluster of layer %d: %w", layer-1, err)
			}
			best := group[0]
			results[ci] = clusterSummaries{sums: s, best: Member{Entity: graph.Entity{ID: best.ID}, Connections: best.Connections, Label: best.Label}}
			return nil
		})
	}
	return g.Wait()
}

// writeSummaries embeds and writes the summaries [from, to) of next, dropping their
// descriptions once written. It returns the embeddings' dimensions (0 when there were none).
func (b *Builder) writeSummaries(ctx context.Context, next *summaries, from, to int) (int, error) {
	rows := make([]int32, to-from)
	for i := range rows {
		rows[i] = int32(from + i)
	}
	return b.writeEntities(ctx, next, rows)
}

// writeEntities embeds and writes the summaries of next given, a page at a time, and returns
// the embeddings' dimensions (0 when there were none).
func (b *Builder) writeEntities(ctx context.Context, next *summaries, rows []int32) (int, error) {
	dims := 0
	for start := 0; start < len(rows); start += page {
		part := rows[start:min(start+page, len(rows))]
		es := make([]graph.Entity, len(part))
		texts := make([]string, len(es))
		for i, j := range part {
			es[i] = graph.Entity{ID: next.ids.At(int(j)), Name: next.names[j], Type: next.types[j], Description: next.descs[j], Layer: next.layer, ComponentID: -1}
			texts[i] = es[i].EmbeddingText()
		}
		vecs, err := b.Embedder.Embed(ctx, texts)
		if err != nil {
			return 0, fmt.Errorf("embed layer %d: %w", next.layer, err)
		}
		if len(vecs) != len(es) {
			return 0, fmt.Errorf("embed layer %d: %d embeddings for %d summaries", next.layer, len(vecs), len(es))
		}
		for i := range es {
			es[i].Embedding = vecs[i]
			dims = len(vecs[i])
		}
		if err := b.Store.Apply(ctx, graph.Batch{Entities: es}); err != nil {
			return 0, fmt.Errorf("write summaries of layer %d: %w", next.layer, err)
		}
		for _, j := range part {
			next.descs[j] = ""
		}
	}
	return dims, nil
}

// writeLinks writes the SUMMARIZED_BY links of a layer (ordered by member), a page of members
// at a time, naming each member as stored.
func (b *Builder) writeLinks(ctx context.Context, below layerSet, next *summaries, links []link) error {
	for start := 0; start < len(links); {
		// A page ends at a member's last link, so that each member is read once.
		end := min(start+page, len(links))
		for end < len(links) && links[end].member == links[end-1].member {
			end++
		}
		var ids []string
		for i, l := range links[start:end] {
			if i == 0 || l.member != links[start+i-1].member {
				ids = append(ids, below.ids.At(int(l.member)))
			}
		}
		out := make([]graph.SummaryLink, 0, end-start)
		err := b.entities(ctx, below.layer, len(ids), func(i int) string { return ids[i] }, b.Store.EntityTexts, func(es []graph.Entity) error {
			for _, e := range es {
				for ; start < end && below.ids.At(int(links[start].member)) == e.ID; start++ {
					l := links[start]
					out = append(out, graph.SummaryLink{Member: e.ID, Summary: next.ids.At(int(l.summary)),
						Description: e.Name + " belongs to " + next.names[l.summary], Weight: l.weight})
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := b.Store.Apply(ctx, graph.Batch{SummaryLinks: out}); err != nil {
			return fmt.Errorf("write the links of layer %d to layer %d: %w", below.layer, next.layer, err)
		}
	}
	return nil
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

package layers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
)

// An update brings stored layers up to date with a changed layer 0 at the cost of the change
// (docs/ARCHITECTURE.md, "Updates"): the clusters stay as they are, a new entity joins the
// cluster its neighbours vote for (its related entities at layer 0, its most similar summaries
// above), and only the clusters whose members changed are summarized again, keeping their
// summaries' ids. A cluster is the set of summaries of one layer whose members are the same (a
// cluster usually has one summary; a model may write several).
//
// Drift is bounded per cluster: a cluster grown past half again MaxClusterSize is clustered
// again on its own (as Build splits a runaway cluster), one left with fewer than two members is
// removed (Build gives a lone entity no summary), and the layers follow Build's stop rule (a
// layer of ClusterSize entities or fewer has none above it). What an update cannot repair, a
// full Build does: the pipeline runs one when the changes since the last Build pass a share of
// the graph, and on `ingest --restructure`.

// splitSize is the number of members past which an update clusters a cluster again: half again
// MaxClusterSize, so that a cluster Build filled to the cap is not split by its first new
// member (a split rewrites the cluster's summaries and, with them, the layers above).
func splitSize(opt Options) int { return opt.MaxClusterSize + opt.MaxClusterSize/2 }

// ErrNeedsBuild is returned by Update when the stored layers cannot be updated: the graph has
// no summary layer yet but has grown big enough for one.
var ErrNeedsBuild = errors.New("the summary layers must be built")

// LayerUpdate describes the update of one summary layer.
type LayerUpdate struct {
	Layer       int // the layer the summaries belong to (1, 2, …)
	Assigned    int // entities of the layer below placed in an existing cluster
	Regenerated int // clusters summarized again
	Split       int // clusters grown past splitSize, clustered again
	Dissolved   int // clusters left with fewer than two members, removed
	Kept        int // clusters left as they were
	Written     int // summaries written
	Removed     int // summaries removed
}

// Update is what Builder.Update did.
type Update struct {
	Layers []LayerUpdate
	// Built are the layers added on top, when the top layer grew past ClusterSize.
	Built []Layer
	// Aggregate describes the inter-summary relations of every layer (without a Describer,
	// none).
	Aggregate []AggregateStats
	// Changed are the summaries written or removed and the ends of the inter-summary relations
	// written or removed: with the changed extracted entities, what the communities stage must
	// report again.
	Changed []string
}

// Update updates the stored layers after the entities changed (ids of any layer: new,
// rewritten or removed extracted entities, and summaries that lost a member) have been
// written. Unchanged clusters keep their summaries, links and relations. It returns
// ErrNeedsBuild when there are no layers to update but layer 0 is big enough for one.
func (b *Builder) Update(ctx context.Context, changed []string) (Update, error) {
	opt := b.Options
	var up Update
	if err := opt.Validate(); err != nil {
		return up, fmt.Errorf("hierarchical index: %w", err)
	}
	dirty, err := b.classify(ctx, changed)
	if err != nil {
		return up, err
	}
	// Layer 0's relations and links, each a read of most of the store, are read together.
	var conns map[string]int32
	var adj map[string][]string
	var edges []graph.Edge
	var links []graph.SummaryLink
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		conns, adj, edges, err = b.baseConnections(gctx, dirty[0])
		return err
	})
	g.Go(func() (err error) {
		if links, err = b.Store.LayerLinks(gctx, 0); err != nil {
			return fmt.Errorf("read the links of layer 0: %w", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return up, err
	}
	written := map[string]bool{} // summaries written by this update
	removed := map[string]bool{}
	lbl := labeller{b: b, conns: conns, labels: map[string]string{}}
	if len(links) == 0 {
		n, err := b.countLayer(ctx, 0)
		if err != nil {
			return up, err
		}
		if n > max(opt.ClusterSize, 2) {
			return up, ErrNeedsBuild
		}
		return up, nil
	}
	layer := 0
	for ; len(links) > 0; layer++ {
		above, err := b.Store.LayerLinks(ctx, layer+1)
		if err != nil {
			return up, fmt.Errorf("read the links of layer %d: %w", layer+1, err)
		}
		lu, out, err := b.updateLayer(ctx, layer, links, above, dirty, adj, &lbl, opt)
		if err != nil {
			return up, err
		}
		up.Layers = append(up.Layers, lu)
		for _, id := range out.written {
			written[id] = true
			dirty[layer+1] = append(dirty[layer+1], id)
		}
		for _, id := range out.removed {
			removed[id] = true
		}
		dirty[layer+2] = append(dirty[layer+2], out.lostMember...)
		if links, err = b.Store.LayerLinks(ctx, layer+1); err != nil {
			return up, fmt.Errorf("read the links of layer %d: %w", layer+1, err)
		}
	}
	// layer is now the top layer. A layer left with a cluster's size or fewer has no layer
	// above it, and a top grown past a cluster's size gets layers above it, as in a build.
	pruned, err := b.prune(ctx, layer, len(conns), opt)
	if err != nil {
		return up, err
	}
	for _, id := range pruned {
		removed[id] = true
	}
	if len(pruned) == 0 && layer < opt.MaxLayers {
		built, err := b.grow(ctx, layer, &lbl, opt)
		if err != nil {
			return up, err
		}
		up.Built = built
		if len(built) > 0 {
			ids, err := b.layerIDs(ctx, layer+1, layer+len(built))
			if err != nil {
				return up, err
			}
			for _, id := range ids {
				written[id] = true
			}
		}
	}
	if b.Describer != nil {
		ends, stats, err := b.reaggregate(ctx, edges, written, opt)
		if err != nil {
			return up, err
		}
		up.Aggregate = stats
		b.Log.Debug().Int("ends", len(ends)).Any("stats", stats).Msg("inter-summary relations counted again")
		for _, id := range ends {
			written[id] = true
		}
	}
	up.Changed = slices.Sorted(maps.Keys(written))
	for id := range removed {
		if !written[id] {
			up.Changed = append(up.Changed, id)
		}
	}
	slices.Sort(up.Changed)
	return up, nil
}

// baseConnections reads the relations of layer 0 once: it counts the connections of the
// extracted entities from them, as Build does (countConnections), and returns the related
// entities of those of of and the relations themselves, which the aggregation counts again.
func (b *Builder) baseConnections(ctx context.Context, of []string) (map[string]int32, map[string][]string, []graph.Edge, error) {
	conns := map[string]int32{}
	adj := map[string][]string{}
	for _, id := range of {
		adj[id] = nil
	}
	var edges []graph.Edge
	err := b.Store.EachLayerEdge(ctx, 0, func(e graph.Edge) error {
		edges = append(edges, e)
		conns[e.Source]++
		if e.Target == e.Source {
			return nil
		}
		conns[e.Target]++
		if _, ok := adj[e.Source]; ok {
			adj[e.Source] = append(adj[e.Source], e.Target)
		}
		if _, ok := adj[e.Target]; ok {
			adj[e.Target] = append(adj[e.Target], e.Source)
		}
		return nil
	})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read the relations of layer 0: %w", err)
	}
	return conns, adj, edges, nil
}

// classify reads the changed entities that still exist and groups their ids by layer.
func (b *Builder) classify(ctx context.Context, changed []string) (map[int][]string, error) {
	dirty := map[int][]string{}
	ids := slices.Sorted(slices.Values(changed))
	ids = slices.Compact(ids)
	for start := 0; start < len(ids); start += page {
		es, err := b.Store.EntityTexts(ctx, ids[start:min(start+page, len(ids))])
		if err != nil {
			return nil, fmt.Errorf("read the changed entities: %w", err)
		}
		for _, e := range es {
			dirty[e.Layer] = append(dirty[e.Layer], e.ID)
		}
	}
	return dirty, nil
}

// countLayer counts the entities of a layer that have an embedding.
func (b *Builder) countLayer(ctx context.Context, layer int) (int, error) {
	n := 0
	err := b.eachID(ctx, layer, func(ids []string) error {
		n += len(ids)
		return nil
	})
	return n, err
}

// eachLayer calls fn with every page of the entities of a layer that have an embedding, in id
// order.
func (b *Builder) eachLayer(ctx context.Context, layer int, fn func([]graph.Entity) error) error {
	after := ""
	for {
		es, err := b.Store.EntitiesAfter(ctx, layer, after, page)
		if err != nil {
			return fmt.Errorf("read layer %d: %w", layer, err)
		}
		if len(es) == 0 {
			return nil
		}
		after = es[len(es)-1].ID
		full := len(es) == page
		es = slices.DeleteFunc(es, func(e graph.Entity) bool { return len(e.Embedding) == 0 })
		if err := fn(es); err != nil {
			return err
		}
		if !full {
			return nil
		}
	}
}

// layerIDs returns the ids of the entities of layers from to to.
func (b *Builder) layerIDs(ctx context.Context, from, to int) ([]string, error) {
	var ids []string
	for l := from; l <= to; l++ {
		err := b.eachID(ctx, l, func(page []string) error {
			ids = append(ids, page...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// prune removes the layers above the lowest one (of layers 0 to top) left with ClusterSize
// entities or fewer, which a build would not summarize, and returns the summaries it removed.
// related is the number of extracted entities with a relation: layer 0 is counted only when
// that many could be too few.
func (b *Builder) prune(ctx context.Context, top, related int, opt Options) ([]string, error) {
	small := max(opt.ClusterSize, 2)
	for l := 0; l < top; l++ {
		if l == 0 && related > small {
			continue
		}
		n, err := b.countLayer(ctx, l)
		if err != nil {
			return nil, err
		}
		if n > small {
			continue
		}
		ids, err := b.layerIDs(ctx, l+1, top)
		if err != nil {
			return nil, err
		}
		if err := b.Store.Apply(ctx, graph.Batch{DeleteEntities: ids}); err != nil {
			return nil, fmt.Errorf("remove the layers above layer %d, left with %d entities: %w", l, n, err)
		}
		return ids, nil
	}
	return nil, nil
}

// grow builds layers above the top layer when it has more entities than a cluster holds and
// the layers allow more (Build stops there otherwise). It returns the layers built.
func (b *Builder) grow(ctx context.Context, top int, lbl *labeller, opt Options) ([]Layer, error) {
	var ids idlist.Builder
	var order []string
	err := b.eachID(ctx, top, func(page []string) error {
		order = append(order, page...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(order) <= max(opt.ClusterSize, 2) || top == 0 {
		return nil, nil
	}
	set := layerSet{layer: top, conns: make([]int32, len(order)), labels: make([]string, len(order))}
	if err := lbl.labelAll(ctx, order); err != nil {
		return nil, err
	}
	for i, id := range order {
		if err := ids.AddString(id); err != nil {
			return nil, fmt.Errorf("layer %d: %w", top, err)
		}
		set.conns[i] = lbl.connections(id)
		if set.labels[i], err = lbl.label(ctx, id); err != nil {
			return nil, err
		}
	}
	set.ids = ids.List()
	dims, err := b.dimensions(ctx, set)
	if err != nil {
		return nil, err
	}
	describer := b.Describer
	b.Describer = nil // the update aggregates every layer afterwards
	defer func() { b.Describer = describer }()
	grown := opt
	grown.MaxLayers = opt.MaxLayers - top
	return b.buildFrom(ctx, set, dims, 0, grown)
}

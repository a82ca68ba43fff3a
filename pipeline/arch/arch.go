// Package arch builds ArchRAG's attributed-community hierarchy over the entity graph: the
// layer-0 entities, linked by their RELATED relations and by edges to their nearest neighbours
// by embedding, all weighted by the similarity of their ends (graph.ArchWeights), are
// partitioned by weighted Leiden; each community is summarized and embedded; the communities
// become the nodes of the next layer, linked when members of two of them are linked; and so on
// until a layer has too few nodes, stops shrinking, or the layer limit is reached.
//
// The hierarchy is a pure function of the stored layer-0 entities, their relations and the seed
// (summaries come from the model's response cache on a re-run): a build starts by removing the
// hierarchy and writes each layer whole (graph.ArchIndex.WriteArchLayer), so a build killed
// half-way is simply redone by the next run, which finds the structure stale.
package arch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
)

// Options configures the hierarchy. MaxLayers 0 builds none.
type Options struct {
	// MaxLayers bounds the community layers.
	MaxLayers int
	// K is the number of nearest neighbours by embedding each node is linked to.
	K int
	// Cutoff is the least similarity, on the (1+cos)/2 scale, of a neighbour edge.
	Cutoff float64
	// MinNodes: a layer of MinNodes nodes or fewer is not clustered again (its communities would
	// be a few hubs over everything).
	MinNodes int
	// Concurrency is the number of communities summarized at once.
	Concurrency int
}

// DefaultOptions returns what `strata ingest --arch` builds: at most 3 layers, 10 neighbours
// per node above similarity 0.5 (cosine 0: any neighbour that is not opposed), layers of more
// than 10 nodes clustered, 8 summaries at once.
func DefaultOptions() Options {
	return Options{MaxLayers: 3, K: 10, Cutoff: 0.5, MinNodes: 10, Concurrency: 8}
}

// String is the store setting (graph.MetaArch) of the options: what shapes the hierarchy.
func (o Options) String() string {
	if o.MaxLayers == 0 {
		return "off"
	}
	return fmt.Sprintf("max=%d k=%d cutoff=%g min=%d", o.MaxLayers, o.K, o.Cutoff, o.MinNodes)
}

// ParseOptions reads a store setting written by String into options; what String leaves out
// (Concurrency) is the default.
func ParseOptions(setting string) (Options, error) {
	o := DefaultOptions()
	if setting == "off" || setting == "" {
		o.MaxLayers = 0
		return o, nil
	}
	if _, err := fmt.Sscanf(setting, "max=%d k=%d cutoff=%g min=%d", &o.MaxLayers, &o.K, &o.Cutoff, &o.MinNodes); err != nil {
		return o, fmt.Errorf("read arch setting %q: %w", setting, err)
	}
	if o.String() != setting {
		return o, fmt.Errorf("read arch setting %q: read back as %q", setting, o.String())
	}
	return o, nil
}

// Validate reports the first option no build can use.
func (o Options) Validate() error {
	switch {
	case o.MaxLayers < 0:
		return fmt.Errorf("arch layers must not be negative, got %d", o.MaxLayers)
	case o.MaxLayers == 0:
		return nil
	case o.K < 1:
		return fmt.Errorf("arch neighbours must be at least 1, got %d", o.K)
	case o.Cutoff < 0 || o.Cutoff > 1:
		return fmt.Errorf("arch cutoff must be in [0, 1], got %g", o.Cutoff)
	case o.MinNodes < 1:
		return fmt.Errorf("arch min nodes must be at least 1, got %d", o.MinNodes)
	case o.Concurrency < 1:
		return fmt.Errorf("arch concurrency must be at least 1, got %d", o.Concurrency)
	}
	return nil
}

// Member is a node of a community as a Summarizer sees it: an extracted entity at layer 1, a
// community of the layer below above it.
type Member struct {
	ID, Name, Type, Description string
	Layer                       int     // the member's own layer: 0 for an entity
	Links                       float64 // summed weight of the member's links within its layer
}

// Summary is what a Summarizer writes for one community.
type Summary struct {
	Title, Summary string
}

// Summarizer describes one community of a layer (layer is the community's: 1 for communities of
// entities). Members come most linked first (Links descending, then id).
type Summarizer interface {
	Summarize(ctx context.Context, layer int, members []Member) (Summary, error)
}

// Store is what the builder needs: layer-0 entities to describe, the hierarchy to build.
type Store interface {
	graph.Reader
	graph.Writer // graph.MetaArchLayers
	graph.ArchIndex
}

// Layer reports one built layer.
type Layer struct {
	Layer       int `json:"layer"`       // the layer of the communities (1 over the entities)
	Nodes       int `json:"nodes"`       // nodes of the layer below that were clustered
	Communities int `json:"communities"` // communities built
	Largest     int `json:"largest"`     // members of the largest
	Links       int `json:"links"`       // ARCH_RELATED links among the communities
}

// Builder builds the hierarchy.
type Builder struct {
	Store      Store
	Embedder   embedding.Embedder
	Summarizer Summarizer
	Log        zerolog.Logger
	Options    Options // used as they are: see DefaultOptions and Validate
	Seed       int64
}

// Build removes the stored hierarchy and builds it again, layer by layer.
func (b *Builder) Build(ctx context.Context) ([]Layer, error) {
	if err := b.Store.WriteArchLayer(ctx, 1, nil, nil); err != nil {
		return nil, fmt.Errorf("remove the previous hierarchy: %w", err)
	}
	if err := b.recordLayers(ctx, 0); err != nil {
		return nil, err
	}
	if b.Options.MaxLayers == 0 {
		return nil, nil
	}
	out, err := b.build(ctx)
	if err != nil {
		return out, err
	}
	return out, b.recordLayers(ctx, len(out))
}

func (b *Builder) recordLayers(ctx context.Context, n int) error {
	if err := b.Store.Apply(ctx, graph.Batch{Meta: map[string]string{graph.MetaArchLayers: strconv.Itoa(n)}}); err != nil {
		return fmt.Errorf("record the number of attributed-community layers: %w", err)
	}
	return nil
}

// build builds the layers of an emptied hierarchy.
func (b *Builder) build(ctx context.Context) ([]Layer, error) {
	entities, err := b.Store.EntitiesByLayer(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("read layer-0 entities: %w", err)
	}
	nodes := make(map[string]Member, len(entities))
	for _, e := range entities {
		nodes[e.ID] = Member{ID: e.ID, Name: e.Name, Type: e.Type, Description: e.Description}
	}
	leiden := graph.DefaultLeidenParams()
	leiden.Seed = b.Seed
	params := graph.ArchParams{K: b.Options.K, Cutoff: b.Options.Cutoff, Leiden: leiden}
	var out []Layer
	for below := 0; below < b.Options.MaxLayers; below++ {
		part, err := b.Store.ArchPartition(ctx, below, params)
		if err != nil {
			return out, fmt.Errorf("cluster layer %d: %w", below, err)
		}
		part = graph.DensePartition(part) // community i is groups[i] and graph.ArchCommunityID(layer, i)
		groups := groupsOf(part)
		if len(part) <= b.Options.MinNodes || len(groups) >= len(part) {
			b.Log.Info().Int("layer", below).Int("nodes", len(part)).Int("communities", len(groups)).
				Msg("attributed communities: the layer is too small or does not shrink; hierarchy done")
			break
		}
		links, err := b.Store.ArchLinks(ctx, below)
		if err != nil {
			return out, fmt.Errorf("read the links of layer %d: %w", below, err)
		}
		linked := map[string]float64{}
		for _, l := range links {
			linked[l.Source] += l.Weight
			linked[l.Target] += l.Weight
		}
		comms, err := b.describe(ctx, below+1, groups, nodes, linked)
		if err != nil {
			return out, err
		}
		up := upLinks(part, links, below+1)
		if err := b.Store.WriteArchLayer(ctx, below+1, comms, up); err != nil {
			return out, err
		}
		l := Layer{Layer: below + 1, Nodes: len(part), Communities: len(comms), Links: len(up)}
		next := make(map[string]Member, len(comms))
		for _, c := range comms {
			l.Largest = max(l.Largest, len(c.Members))
			next[c.ID] = Member{ID: c.ID, Name: c.Title, Type: "community", Description: c.Summary, Layer: below + 1}
		}
		out = append(out, l)
		b.Log.Info().Int("layer", l.Layer).Int("nodes", l.Nodes).Int("communities", l.Communities).
			Int("largest", l.Largest).Int("links", l.Links).Msg("attributed community layer built")
		nodes = next
	}
	return out, nil
}

// groupsOf turns a dense partition (numbered 0.., see graph.DensePartition) into its
// communities' sorted member ids, community i at index i.
func groupsOf(part map[string]int) [][]string {
	n := 0
	for _, c := range part {
		n = max(n, c+1)
	}
	groups := make([][]string, n)
	for id, c := range part {
		groups[c] = append(groups[c], id)
	}
	for _, g := range groups {
		slices.Sort(g)
	}
	return groups
}

// describe summarizes and embeds the communities of one layer.
func (b *Builder) describe(ctx context.Context, layer int, groups [][]string, nodes map[string]Member, linked map[string]float64) ([]graph.ArchCommunity, error) {
	comms := make([]graph.ArchCommunity, len(groups))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.Options.Concurrency)
	for i, ids := range groups {
		g.Go(func() error {
			members := make([]Member, 0, len(ids))
			for _, id := range ids {
				m, ok := nodes[id]
				if !ok {
					m = Member{ID: id, Name: id}
				}
				m.Links = linked[id]
				members = append(members, m)
			}
			slices.SortStableFunc(members, func(a, c Member) int {
				return cmp.Or(cmp.Compare(c.Links, a.Links), cmp.Compare(a.ID, c.ID))
			})
			s, err := b.Summarizer.Summarize(gctx, layer, members)
			if err != nil {
				return fmt.Errorf("summarize community %s: %w", graph.ArchCommunityID(layer, i), err)
			}
			comms[i] = graph.ArchCommunity{ID: graph.ArchCommunityID(layer, i), Layer: layer, Title: s.Title, Summary: s.Summary, Members: ids}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	texts := make([]string, len(comms))
	for i, c := range comms {
		texts[i] = c.EmbeddingText()
	}
	const batch = 64
	for start := 0; start < len(texts); start += batch {
		vecs, err := b.Embedder.Embed(ctx, texts[start:min(len(texts), start+batch)])
		if err != nil {
			return nil, fmt.Errorf("embed the communities of layer %d: %w", layer, err)
		}
		for j, v := range vecs {
			comms[start+j].Embedding = v
		}
	}
	return comms, nil
}

// upLinks links two communities of the new layer when a member of one is linked to a member of
// the other, weighted by the sum of those links' weights.
func upLinks(part map[string]int, links []graph.ArchLink, layer int) []graph.ArchLink {
	sum := map[graph.RelationKey]float64{}
	for _, l := range links {
		a, okA := part[l.Source]
		c, okC := part[l.Target]
		if !okA || !okC || a == c {
			continue
		}
		sum[graph.NewRelationKey(graph.ArchCommunityID(layer, a), graph.ArchCommunityID(layer, c))] += l.Weight
	}
	out := make([]graph.ArchLink, 0, len(sum))
	for k, w := range sum {
		out = append(out, graph.ArchLink{Source: k.Source, Target: k.Target, Weight: w})
	}
	slices.SortFunc(out, func(x, y graph.ArchLink) int {
		return cmp.Or(cmp.Compare(x.Source, y.Source), cmp.Compare(x.Target, y.Target))
	})
	return out
}

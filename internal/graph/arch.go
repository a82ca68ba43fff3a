package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// ArchCommunity is a node of the attributed-community hierarchy (ArchRAG; docs/ARCHITECTURE.md,
// Data model): a community of the nodes one layer down, found by weighted Leiden over their
// links and their attribute (embedding) similarity. It is stored apart from the Leiden
// communities (Community) and the HiRAG summary entities (Entity:Summary), whose layers it would
// otherwise be mistaken for: Neo4j label ArchCommunity, relationships ARCH_MEMBER_OF and
// ARCH_RELATED.
type ArchCommunity struct {
	ID    string // ArchCommunityID(Layer, n)
	Layer int    // 1 groups layer-0 entities, L+1 groups the communities of layer L
	Title string
	// Summary describes the community: extractive offline, written by the model otherwise.
	Summary string
	// Members are the ids of the nodes one layer down the community holds (layer-0 entities at
	// layer 1, ArchCommunity ids above), sorted.
	Members   []string
	Embedding []float32 // of Title + Summary (ArchCommunity.EmbeddingText)
}

// MetaArch records the options the attributed-community hierarchy was built with ("off", or
// absent in a store from before the option, when none was): a run with other options
// recomputes the structure.
const MetaArch = "arch"

// MetaArchLayers is the number of layers of the stored attributed-community hierarchy, written
// when a build starts ("0") and when it ends, so that a search knows where the top is.
const MetaArchLayers = "arch.layers"

// ArchCommunityID returns the id of the n-th community of a layer.
func ArchCommunityID(layer, n int) string { return fmt.Sprintf("A%d-%d", layer, n) }

// EmbeddingText is the text an attributed community is embedded from.
func (c ArchCommunity) EmbeddingText() string { return c.Title + ": " + c.Summary }

// ArchLink is an ARCH_RELATED relationship between two communities of one layer, present when a
// member of one is linked to a member of the other; Weight sums the weights of those links.
// Source < Target.
type ArchLink struct {
	Source, Target string
	Weight         float64
}

// ArchParams configures the attributed clustering of one layer (ArchIndex.ArchPartition).
type ArchParams struct {
	// K is the number of nearest neighbours by embedding each node is linked to.
	K int
	// Cutoff is the least similarity, on the (1+cos)/2 scale of Hit, of a neighbour edge.
	Cutoff float64
	// Leiden configures the weighted Leiden run; the partition is its final level, as GDS's
	// communityId. The next layer is clustered again, so each layer is one Leiden partition of
	// the one below, rather than Leiden's own intermediate levels.
	Leiden LeidenParams
}

// Validate reports the first parameter no backend can cluster a layer with, wrapping
// ErrInvalidParams.
func (p ArchParams) Validate() error {
	switch {
	case p.K < 1:
		return fmt.Errorf("%w: arch neighbours must be at least 1, got %d", ErrInvalidParams, p.K)
	case !(p.Cutoff >= 0 && p.Cutoff <= 1):
		return fmt.Errorf("%w: arch cutoff must be in [0, 1], got %g", ErrInvalidParams, p.Cutoff)
	}
	return p.Leiden.Validate()
}

// ArchIndex stores and searches the attributed-community hierarchy. The hierarchy is a function
// of the stored layer-0 graph and a seed: the pipeline rebuilds it layer by layer, each layer
// written whole by WriteArchLayer, so a run killed half-way leaves complete lower layers and the
// next run rebuilds from layer 1.
type ArchIndex interface {
	// ArchPartition clusters the nodes of one layer: layer 0 is the layer-0 entities with their
	// RELATED relations, layer L >= 1 the communities of layer L with their ARCH_RELATED links.
	// Every node gets edges to its p.K nearest neighbours by embedding (similarity at least
	// p.Cutoff), every edge (link or neighbour) is weighted by the similarity of its ends'
	// embeddings (ArchEdgeWeight), and weighted Leiden partitions the result. It returns each
	// node's community number, numbered 0.. in order of the smallest member id. Nodes without an
	// embedding are left out.
	ArchPartition(ctx context.Context, layer int, p ArchParams) (map[string]int, error)
	// WriteArchLayer replaces the communities of one layer (>= 1) and their links, and removes
	// every layer above it; layer 1 with no communities removes the whole hierarchy. Members must
	// exist one layer down.
	WriteArchLayer(ctx context.Context, layer int, comms []ArchCommunity, links []ArchLink) error
	// ArchLayer returns the communities of one layer with their members and embeddings, ordered
	// by id. ArchLinks returns the links among the nodes of a layer that have embeddings (layer
	// 0: RELATED between layer-0 entities, with their weights), ordered by key.
	ArchLayer(ctx context.Context, layer int) ([]ArchCommunity, error)
	ArchLinks(ctx context.Context, layer int) ([]ArchLink, error)
	// ArchCommunities looks communities up by id (members included, embeddings left out).
	ArchCommunities(ctx context.Context, ids []string) ([]ArchCommunity, error)
	// ArchSearch returns the k nodes of a layer (0: layer-0 entities; L >= 1: communities of
	// layer L) nearest to vec by cosine similarity, scored as Hit. A non-nil within restricts the
	// search to those ids (unknown ids and ids of another layer are ignored).
	ArchSearch(ctx context.Context, layer int, vec []float32, within []string, k int) ([]Hit, error)
}

// ArchEdgeWeight is the weight of an edge of the attributed graph between two nodes whose
// embeddings have similarity sim, on the (1+cos)/2 scale: links and neighbour edges both weigh
// what their ends have in common, so that Leiden cuts where neither structure nor attributes
// hold nodes together. A link that is also a neighbour edge weighs twice (once per edge), and a
// pair that are each other's neighbours counts both edges. sim is squared so that the spread
// between similar and dissimilar pairs, narrow on this scale, counts.
func ArchEdgeWeight(sim float64) float64 {
	if sim < 0 {
		return 0
	}
	return sim * sim
}

// ArchPair is an edge of the attributed graph between nodes A and B (indexes into the caller's
// node list) whose embeddings have similarity Sim.
type ArchPair struct {
	A, B int
	Sim  float64
}

// ArchWeights combines a layer's links and its nearest-neighbour edges (directed: A's neighbour
// is B) into one undirected weighted edge per pair of nodes, each edge weighing
// ArchEdgeWeight(Sim) and a pair summing its edges; self-pairs are dropped. The result has
// A < B, Sim holding the weight, ordered by A then B. Both backends weight with it, so that the
// same graph gets the same weights whichever clusters it.
func ArchWeights(links, neighbours []ArchPair) []ArchPair {
	type key struct{ a, b int }
	sum := map[key]float64{}
	add := func(p ArchPair) {
		if p.A == p.B {
			return
		}
		k := key{min(p.A, p.B), max(p.A, p.B)}
		sum[k] += ArchEdgeWeight(p.Sim)
	}
	for _, p := range links {
		add(p)
	}
	for _, p := range neighbours {
		add(p)
	}
	out := make([]ArchPair, 0, len(sum))
	for k, w := range sum {
		out = append(out, ArchPair{A: k.a, B: k.b, Sim: w})
	}
	slices.SortFunc(out, func(x, y ArchPair) int {
		if c := cmp.Compare(x.A, y.A); c != 0 {
			return c
		}
		return cmp.Compare(x.B, y.B)
	})
	return out
}

// DensePartition renumbers a partition (node id → any community label) 0.. in order of each
// community's smallest member id, so that two runs finding the same communities number them
// alike.
func DensePartition(part map[string]int) map[string]int {
	ids := make([]string, 0, len(part))
	for id := range part {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	next := map[int]int{}
	out := make(map[string]int, len(part))
	for _, id := range ids {
		n, ok := next[part[id]]
		if !ok {
			n = len(next)
			next[part[id]] = n
		}
		out[id] = n
	}
	return out
}

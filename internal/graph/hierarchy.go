package graph

import "context"

// Edge is a RELATED relationship as a key and its weight, without description or chunk ids: what
// a stage that counts relations needs, at a fraction of the memory of whole relations.
type Edge struct {
	Source, Target string // Source < Target, as RelationKey
	Weight         float64
}

// Hierarchy is a part of the summary hierarchy: some entities and everything above them.
type Hierarchy struct {
	// Entities are the entities asked for that exist and every entity reachable from them over
	// SUMMARIZED_BY (upwards, any number of steps), ordered by layer then id, without embeddings.
	Entities []Entity
	// Links are the SUMMARIZED_BY relationships between two of the entities, ordered by member
	// then summary.
	Links []SummaryLink
	// Relations are the RELATED relationships between two of the entities, ordered by key.
	Relations []Relation
}

// HierarchyReader reads the summary hierarchy: the layers stage counts the relations between the
// members of clusters with it (LeanRAG's aggregation), and lca retrieval walks up from the seed
// entities to their lowest common ancestors.
type HierarchyReader interface {
	// EachLayerEdge calls fn with every RELATED relationship between two entities of one layer
	// (a self-relation included), in key order, and stops at the first error fn returns. A
	// backend that can streams them, so that a layer of millions of relations is never held.
	EachLayerEdge(ctx context.Context, layer int, fn func(Edge) error) error
	// Ancestors returns the entities with the given ids, all their ancestors over SUMMARIZED_BY,
	// and the SUMMARIZED_BY and RELATED relationships among them (see Hierarchy). Missing ids are
	// skipped.
	Ancestors(ctx context.Context, ids []string) (Hierarchy, error)
	// AncestorLinks returns the SUMMARIZED_BY links above the entities with the given ids:
	// theirs and those of every entity above them, member and summary only (no description or
	// weight), ordered by member then summary. Missing ids are skipped. It is the Links of
	// Ancestors without reading the entities and relations, for a caller that asks about many
	// entities at once (lca's hop from a document, which names hundreds).
	AncestorLinks(ctx context.Context, ids []string) ([]SummaryLink, error)
	// LayerLinks returns every SUMMARIZED_BY link from an entity of the given layer to a summary
	// of the layer above, ordered by member then summary.
	LayerLinks(ctx context.Context, layer int) ([]SummaryLink, error)
}

// LayerEdges collects what r.EachLayerEdge streams: for a caller that holds a layer's edges
// anyway (small layers, tests).
func LayerEdges(ctx context.Context, r HierarchyReader, layer int) ([]Edge, error) {
	var out []Edge
	err := r.EachLayerEdge(ctx, layer, func(e Edge) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

package cypher

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/stratarag/strata/internal/graph"
)

// EachLayerEdge implements graph.Store (read_layer_edges.cypher). The runner returns a
// statement's rows together, so the edges are held as rows while fn sees them.
func (s *Store) EachLayerEdge(ctx context.Context, layer int, fn func(graph.Edge) error) error {
	rows, err := s.readRows(ctx, qReadLayerEdges, map[string]any{"layer": int64(layer)})
	if err != nil {
		return fmt.Errorf("cypher: relations of layer %d: %w", layer, err)
	}
	for i, row := range rows {
		f := fields{m: row}
		e := graph.Edge{Source: f.str("source"), Target: f.str("target"), Weight: f.float("weight")}
		if f.err != nil {
			return fmt.Errorf("cypher: relations of layer %d: %w", layer, f.err)
		}
		rows[i] = nil
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Ancestors implements graph.Store with one statement (read_ancestors.cypher) that walks up
// SUMMARIZED_BY from the entities, or on a resident store from its copies (summarylinks.go); the
// lists are ordered here.
func (s *Store) Ancestors(ctx context.Context, ids []string) (graph.Hierarchy, error) {
	if err := ctx.Err(); err != nil {
		return graph.Hierarchy{}, err
	}
	if len(ids) == 0 {
		return graph.Hierarchy{}, nil
	}
	if s.resident {
		h, err := s.residentAncestors(ctx, ids)
		if err != nil {
			return graph.Hierarchy{}, fmt.Errorf("cypher: ancestors: %w", err)
		}
		return h, nil
	}
	rows, err := s.readRows(ctx, qReadAncestors, map[string]any{"ids": graph.UniqueIDs(ids)})
	if err != nil {
		return graph.Hierarchy{}, fmt.Errorf("cypher: ancestors: %w", err)
	}
	if len(rows) == 0 {
		return graph.Hierarchy{}, nil
	}
	h, err := decodeHierarchy(rows[0])
	if err != nil {
		return graph.Hierarchy{}, fmt.Errorf("cypher: ancestors: %w", err)
	}
	return h, nil
}

// AncestorLinks implements graph.Store with one statement (read_ancestor_links.cypher), or on
// a resident store from its copy of the links (summarylinks.go); the links are ordered here.
func (s *Store) AncestorLinks(ctx context.Context, ids []string) ([]graph.SummaryLink, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if s.resident {
		links, err := s.residentAncestorLinks(ctx, ids)
		if err != nil {
			return nil, fmt.Errorf("cypher: ancestor links: %w", err)
		}
		return links, nil
	}
	rows, err := s.readRows(ctx, qReadAncestorLinks, map[string]any{"ids": graph.UniqueIDs(ids)})
	if err != nil {
		return nil, fmt.Errorf("cypher: ancestor links: %w", err)
	}
	links := make([]graph.SummaryLink, 0, len(rows))
	for _, row := range rows {
		g := fields{m: row}
		l := graph.SummaryLink{Member: g.str("member"), Summary: g.str("summary")}
		if g.err != nil {
			return nil, fmt.Errorf("cypher: ancestor links: %w", g.err)
		}
		links = append(links, l)
	}
	sortLinks(links)
	return links, nil
}

// LayerLinks implements graph.Store (read_layer_links.cypher); the links are ordered here.
func (s *Store) LayerLinks(ctx context.Context, layer int) ([]graph.SummaryLink, error) {
	rows, err := s.readRows(ctx, qReadLayerLinks, map[string]any{"layer": int64(layer)})
	if err != nil {
		return nil, fmt.Errorf("cypher: summary links of layer %d: %w", layer, err)
	}
	links := make([]graph.SummaryLink, 0, len(rows))
	for _, row := range rows {
		l, err := decodeSummaryLink(row)
		if err != nil {
			return nil, fmt.Errorf("cypher: summary links of layer %d: %w", layer, err)
		}
		links = append(links, l)
	}
	sortLinks(links)
	return links, nil
}

func decodeSummaryLink(m map[string]any) (graph.SummaryLink, error) {
	g := fields{m: m}
	l := graph.SummaryLink{Member: g.str("member"), Summary: g.str("summary"), Description: g.str("description"), Weight: g.float("weight")}
	return l, g.err
}

// sortLinks orders links by member, then summary.
func sortLinks(links []graph.SummaryLink) {
	slices.SortFunc(links, func(a, b graph.SummaryLink) int {
		return cmp.Or(cmp.Compare(a.Member, b.Member), cmp.Compare(a.Summary, b.Summary))
	})
}

func decodeHierarchy(row map[string]any) (graph.Hierarchy, error) {
	f := &fields{m: row}
	var h graph.Hierarchy
	var err error
	if h.Entities, err = decodeList(f, "entities", decodeEntity); err != nil {
		return h, err
	}
	if h.Links, err = decodeList(f, "links", decodeSummaryLink); err != nil {
		return h, err
	}
	if h.Relations, err = decodeList(f, "relations", decodeRelation); err != nil {
		return h, err
	}
	slices.SortFunc(h.Entities, func(a, b graph.Entity) int { return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.ID, b.ID)) })
	sortLinks(h.Links)
	slices.SortFunc(h.Relations, func(a, b graph.Relation) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	})
	return h, nil
}

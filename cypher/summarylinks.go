package cypher

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// residentLinks is a resident store's copy of every SUMMARIZED_BY link, which answers
// AncestorLinks and, with the relation copy, Ancestors: lca asks both on every query, for its
// seeds and for the entities its top document names (hundreds on long documents), and the copy
// spares those statements. It belongs to one generation of the entity graph
// (metaEntityGraphGeneration, which Apply bumps whenever summary links change).
type residentLinks struct {
	mu     sync.Mutex
	loaded bool
	gen    string
	up     map[string][]graph.SummaryLink // member → its links to its summaries
}

// withLinks calls f with the copy of the links, loading it first when the entity graph's
// generation moved on; f must not keep what it reads.
func (s *Store) withLinks(ctx context.Context, f func(rl *residentLinks)) error {
	gen, err := s.generation(ctx, metaEntityGraphGeneration)
	if err != nil {
		return err
	}
	rl := &s.links
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if !rl.loaded || rl.gen != gen {
		if err := s.loadLinks(ctx, rl); err != nil {
			return err
		}
	}
	f(rl)
	return nil
}

// above returns ids and every entity above them over the links, each once, ids first.
func (rl *residentLinks) above(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	stack := slices.Clone(graph.UniqueIDs(ids))
	slices.Reverse(stack)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		out = append(out, x)
		for _, l := range rl.up[x] {
			stack = append(stack, l.Summary)
		}
	}
	return out
}

// residentAncestorLinks answers AncestorLinks from the copy of the links.
func (s *Store) residentAncestorLinks(ctx context.Context, ids []string) ([]graph.SummaryLink, error) {
	var links []graph.SummaryLink
	err := s.withLinks(ctx, func(rl *residentLinks) {
		for _, x := range rl.above(ids) {
			for _, l := range rl.up[x] {
				links = append(links, graph.SummaryLink{Member: l.Member, Summary: l.Summary})
			}
		}
	})
	sortLinks(links)
	return links, err
}

// residentAncestors answers Ancestors as read_ancestors.cypher does, from the copies of the
// links, the relations and the entity records.
func (s *Store) residentAncestors(ctx context.Context, ids []string) (graph.Hierarchy, error) {
	// Empty lists, not nil, as the statement's are.
	h := graph.Hierarchy{Entities: []graph.Entity{}, Links: []graph.SummaryLink{}, Relations: []graph.Relation{}}
	var nodes []string
	if err := s.withLinks(ctx, func(rl *residentLinks) {
		nodes = rl.above(ids)
		for _, x := range nodes {
			h.Links = append(h.Links, rl.up[x]...)
		}
	}); err != nil {
		return h, err
	}
	entities, err := s.cachedEntityTexts(ctx, nodes)
	if err != nil {
		return h, err
	}
	in := make(map[string]bool, len(entities))
	for _, e := range entities {
		in[e.ID] = true
	}
	if err := s.withRelations(ctx, func(rr *residentRelations) {
		for _, e := range entities {
			for _, i := range rr.byEntity[e.ID] {
				if r := rr.rels[i]; r.Source == e.ID && in[r.Target] {
					h.Relations = append(h.Relations, r.relation())
				}
			}
		}
	}); err != nil {
		return h, err
	}
	h.Entities = append(h.Entities, entities...)
	slices.SortFunc(h.Entities, func(a, b graph.Entity) int { return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.ID, b.ID)) })
	sortLinks(h.Links)
	slices.SortFunc(h.Relations, func(a, b graph.Relation) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	})
	return h, nil
}

// loadLinks replaces the copy rl by the links read_summary_links reads, with their generation;
// the caller holds rl.mu.
func (s *Store) loadLinks(ctx context.Context, rl *residentLinks) error {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadSummaryLinks, map[string]any{"key": metaEntityGraphGeneration})
	if err != nil {
		return fmt.Errorf("load the summary links: %w", err)
	}
	up := map[string][]graph.SummaryLink{}
	gen := ""
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 {
			gen = f.str("generation")
		}
		if row["member"] == nil {
			continue // no link at all: the one row carries the generation
		}
		l := graph.SummaryLink{Member: f.str("member"), Summary: f.str("summary"), Description: f.str("description"), Weight: f.float("weight")}
		if f.err != nil {
			return fmt.Errorf("load the summary links: %w", f.err)
		}
		up[l.Member] = append(up[l.Member], l)
	}
	rl.up, rl.gen, rl.loaded = up, gen, true
	s.log.Debug().Int("links", len(rows)).Dur("took", time.Since(start)).Msg("neo4j: summary links copied")
	return nil
}

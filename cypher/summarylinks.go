package cypher

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// residentLinks is a resident store's copy of every SUMMARIZED_BY link, which answers
// AncestorLinks: lca asks it on every query for the entities its top document names, hundreds
// on long documents, and the copy spares that statement. It belongs to one generation of the
// entity graph (metaEntityGraphGeneration, which Apply bumps whenever summary links change).
type residentLinks struct {
	mu      sync.Mutex
	loaded  bool
	gen     string
	parents map[string][]string // member → its summaries, by id
}

// residentAncestorLinks answers AncestorLinks from the copy of the links, loading it first
// when the entity graph's generation moved on.
func (s *Store) residentAncestorLinks(ctx context.Context, ids []string) ([]graph.SummaryLink, error) {
	gen, err := s.generation(ctx, metaEntityGraphGeneration)
	if err != nil {
		return nil, err
	}
	rl := &s.links
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if !rl.loaded || rl.gen != gen {
		if err := s.loadLinks(ctx, rl); err != nil {
			return nil, err
		}
	}
	var links []graph.SummaryLink
	seen := map[string]bool{}
	stack := graph.UniqueIDs(ids)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		for _, p := range rl.parents[x] {
			links = append(links, graph.SummaryLink{Member: x, Summary: p})
			stack = append(stack, p)
		}
	}
	sortLinks(links)
	return links, nil
}

// loadLinks replaces the copy rl by the links read_summary_links reads, with their generation;
// the caller holds rl.mu.
func (s *Store) loadLinks(ctx context.Context, rl *residentLinks) error {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadSummaryLinks, map[string]any{"key": metaEntityGraphGeneration})
	if err != nil {
		return fmt.Errorf("load the summary links: %w", err)
	}
	parents := map[string][]string{}
	gen := ""
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 {
			gen = f.str("generation")
		}
		if row["member"] == nil {
			continue // no link at all: the one row carries the generation
		}
		m, p := f.str("member"), f.str("summary")
		if f.err != nil {
			return fmt.Errorf("load the summary links: %w", f.err)
		}
		parents[m] = append(parents[m], p)
	}
	rl.parents, rl.gen, rl.loaded = parents, gen, true
	s.log.Debug().Int("links", len(rows)).Dur("took", time.Since(start)).Msg("neo4j: summary links copied")
	return nil
}

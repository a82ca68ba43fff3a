package cypher

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// residentPaths is a resident store's copy of the entity projection (gdsGraph) with the step
// each pair of neighbours contributes to a path, for one generation of the entity graph. GDS
// answers a path request per source in milliseconds, most of a served hi query on Neo4j; the
// copy finds the same paths in microseconds. It serves only while the projection it copies exists
// in the GDS catalog, as the generations read with the query say (read_generations.cypher):
// without it, the path statements answer with plain Cypher, which may pick other paths among
// equally short ones, and a served query must answer as a fresh process does.
type residentPaths struct {
	mu       sync.Mutex
	loaded   bool
	gen      string
	g        *gdsGraph
	steps    map[[2]int32]graph.PathStep // by (lower, higher) node number
	searches *sync.Pool                  // *gdsDijkstra on g
}

// residentGDSPaths answers requests as gdsPaths would, from the copy of the projection, except
// that paths longer than maxHops, which ShortestPaths leaves out, are not looked for; ok is
// false when it cannot (the projection is not in the catalog, or the graph changed while the
// copy was read), and the path statements answer instead.
func (s *Store) residentGDSPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int) (paths []graph.Path, ok bool, err error) {
	vals, err := s.generations(ctx)
	if err != nil {
		return nil, false, err
	}
	if vals[projectionKey] != "true" {
		return nil, false, nil
	}
	gen := vals[metaEntityGraphGeneration]
	if gen == "" {
		gen = "0" // as the path statements name the projection of a graph never written
	}
	rp := &s.paths
	rp.mu.Lock()
	if !rp.loaded || rp.gen != gen {
		if err := s.loadPaths(ctx, rp); err != nil {
			rp.mu.Unlock()
			return nil, false, err
		}
	}
	g, steps, searches, loadedGen := rp.g, rp.steps, rp.searches, rp.gen
	rp.mu.Unlock()
	if loadedGen != gen {
		return nil, false, nil
	}
	d := searches.Get().(*gdsDijkstra)
	defer searches.Put(d)
	for _, row := range bySource(orient(reqs)) {
		src, ok := g.number[row["source"].(string)]
		if !ok {
			continue
		}
		var targets []int32
		for _, id := range row["targets"].([]string) {
			if t, ok := g.number[id]; ok && t != src {
				targets = append(targets, t)
			}
		}
		if len(targets) == 0 {
			continue
		}
		found := d.paths(src, targets, maxHops)
		for _, t := range targets {
			nodes := found[t]
			if nodes == nil {
				continue
			}
			p := graph.Path{Source: g.ids[src], Target: g.ids[t]}
			for i, u := range nodes {
				p.Nodes = append(p.Nodes, g.ids[u])
				if i == 0 {
					continue
				}
				step := steps[pairKey(nodes[i-1], u)]
				step.From, step.To = g.ids[nodes[i-1]], g.ids[u]
				p.Steps = append(p.Steps, step)
			}
			paths = append(paths, p)
		}
	}
	return paths, true, nil
}

func pairKey(a, b int32) [2]int32 {
	if a > b {
		a, b = b, a
	}
	return [2]int32{a, b}
}

// loadPaths replaces the copy rp by the projection's rows as read_entity_graph returns them;
// the caller holds rp.mu. Between two neighbours the step is the relationship the path
// statements match back to a hop: RELATED before SUMMARIZED_BY, then the heavier one (a missing
// weight first, as Cypher orders nulls in descending order), then the first read.
func (s *Store) loadPaths(ctx context.Context, rp *residentPaths) error {
	start := time.Now()
	rows, err := s.readRows(ctx, qReadEntityGraph, map[string]any{"key": metaEntityGraphGeneration})
	if err != nil {
		return fmt.Errorf("load the entity graph: %w", err)
	}
	type candidate struct {
		step     graph.PathStep
		noWeight bool
	}
	better := func(a, b candidate) bool {
		if c := cmp.Compare(a.step.Type, b.step.Type); c != 0 {
			return c < 0
		}
		if a.noWeight != b.noWeight {
			return a.noWeight
		}
		return a.step.Weight > b.step.Weight
	}
	b := newGDSGraphBuilder()
	best := map[[2]int32]candidate{}
	gen := "0"
	for i, row := range rows {
		f := fields{m: row}
		if i == 0 && f.str("generation") != "" {
			gen = f.str("generation")
		}
		source, target := f.str("source"), f.str("target")
		c := candidate{step: graph.PathStep{Type: f.str("type"), Description: f.str("description"), Weight: f.float("weight")},
			noWeight: row["weight"] == nil}
		if f.err != nil {
			return fmt.Errorf("load the entity graph: %w", f.err)
		}
		b.row(source, target)
		if target == "" {
			continue
		}
		key := pairKey(b.g.number[source], b.g.number[target])
		if have, ok := best[key]; !ok || better(c, have) {
			best[key] = c
		}
	}
	g := b.build()
	rp.loaded, rp.gen, rp.g = true, gen, g
	rp.searches = &sync.Pool{New: func() any { return newGDSDijkstra(g) }}
	rp.steps = make(map[[2]int32]graph.PathStep, len(best))
	for k, c := range best {
		rp.steps[k] = c.step
	}
	s.copyLoaded(qReadEntityGraph, len(rows), start)
	return nil
}

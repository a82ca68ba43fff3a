package cypher

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// ShortestPaths implements graph.Store. With GDS, paths come from gds.shortestPath.dijkstra on
// the projection of the current entity graph (made by ComputeComponents or ComputeCommunities;
// any later change to the entity graph makes it stale, see projection), one call per source for
// all its targets, requests turned around so that few entities are sources (orient); when that
// projection is missing, or GDS fails, from Cypher's shortestPath(), which searches at most 4
// hops when maxHops <= 4 and at most 32 otherwise (a variable-length bound cannot be a
// parameter). Either way paths longer than maxHops are left out. A request from an entity to
// itself is the zero-step path when the entity exists.
func (s *Store) ShortestPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int) ([]graph.Path, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(reqs) == 0 || maxHops < 0 {
		return nil, nil
	}
	found := map[graph.PathRequest]graph.Path{}
	var same []string
	var pending []graph.PathRequest
	seen := map[graph.PathRequest]bool{}
	for _, r := range reqs {
		if seen[r] {
			continue
		}
		seen[r] = true
		if r.Source == r.Target {
			same = append(same, r.Source)
		} else if maxHops > 0 {
			pending = append(pending, r)
		}
	}
	if len(same) > 0 {
		es, err := s.Entities(ctx, same)
		if err != nil {
			return nil, fmt.Errorf("cypher: shortest paths: %w", err)
		}
		for _, e := range es {
			found[graph.PathRequest{Source: e.ID, Target: e.ID}] = graph.Path{Source: e.ID, Target: e.ID, Nodes: []string{e.ID}}
		}
	}
	if len(pending) > 0 {
		if err := s.findPaths(ctx, pending, maxHops, found); err != nil {
			return nil, fmt.Errorf("cypher: shortest paths: %w", err)
		}
	}
	var out []graph.Path
	for _, r := range reqs {
		if p, ok := found[r]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// shortPathHops is the hop bound written into paths_cypher.cypher (a variable-length bound
// cannot be a parameter); longer limits use paths_cypher_long.cypher.
const shortPathHops = 4

// findPaths answers requests between distinct entities into found.
func (s *Store) findPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int, found map[graph.PathRequest]graph.Path) error {
	rest := reqs
	if s.gds != "" {
		paths, err := s.gdsPaths(ctx, reqs, maxHops)
		if err == nil {
			// The projection holds the current entity graph, so a request without a row has
			// no path.
			rest = nil
			asked := map[graph.PathRequest]bool{}
			for _, r := range reqs {
				asked[r] = true
			}
			for _, p := range paths {
				for _, p := range []graph.Path{p, reversePath(p)} {
					key := graph.PathRequest{Source: p.Source, Target: p.Target}
					switch {
					case !asked[key]:
					case len(p.Steps) != len(p.Nodes)-1:
						// A hop the projection has and the database no longer has: a
						// change committed after the generation was read.
						rest = append(rest, key)
					case len(p.Steps) <= maxHops:
						found[key] = p
					}
				}
			}
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
		// On any other GDS error (no projection of the current graph: not made yet, or
		// dropped) the plain-Cypher search below answers every request.
	}
	if len(rest) == 0 {
		return nil
	}
	statement := qPathsCypher
	if maxHops > shortPathHops {
		statement = qPathsCypherLong
	}
	paths, err := s.pathRows(ctx, statement, pairs(rest), nil)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if len(p.Steps) == len(p.Nodes)-1 && len(p.Steps) <= maxHops {
			found[graph.PathRequest{Source: p.Source, Target: p.Target}] = p
		}
	}
	return nil
}

// gdsPaths finds the paths of reqs on the projection of the current entity graph, whose name
// the statement reads with the generation, so that a query needs no catalog round trip. When
// maxHops is at most shortPathHops, paths_gds_near leaves out targets farther than that before
// Dijkstra runs, and answers neighbours without it. Requests keep the orientation orient gives
// the whole set: Dijkstra from the other end may pick another of several shortest paths.
func (s *Store) gdsPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int) ([]graph.Path, error) {
	if s.resident {
		paths, ok, err := s.residentGDSPaths(ctx, reqs, maxHops)
		if ok || ctx.Err() != nil {
			return paths, err
		}
		// Otherwise the statements answer: without the projection they fail and plain
		// Cypher answers, as in a fresh process.
	}
	statement := qPathsGDS
	params := map[string]any{"prefix": s.projectionPrefix, "key": metaEntityGraphGeneration}
	if maxHops <= shortPathHops {
		statement, params["maxHops"] = qPathsGDSNear, int64(maxHops)
	}
	return s.gdsPathRows(ctx, statement, bySource(orient(reqs)), params)
}

// pairs is the request rows of the Cypher path statements.
func pairs(reqs []graph.PathRequest) []map[string]any {
	return rowsOf(reqs, func(r graph.PathRequest) map[string]any {
		return map[string]any{"source": r.Source, "target": r.Target}
	})
}

// orient turns requests around (paths are undirected) so that few distinct entities are
// sources, since the GDS path statements run Dijkstra once per source for all of its targets; a pair asked
// both ways is asked once. Greedily, the entity in most of the pairs not yet oriented becomes
// the source of all of them (ties: the entity seen first), which halves the runs for the
// chain of key entities that bridge retrieval asks about.
func orient(reqs []graph.PathRequest) []graph.PathRequest {
	var pairs []graph.PathRequest
	seen := map[graph.RelationKey]bool{}
	var order []string
	first := map[string]int{}
	for _, r := range reqs {
		k := graph.NewRelationKey(r.Source, r.Target)
		if seen[k] {
			continue
		}
		seen[k] = true
		pairs = append(pairs, r)
		for _, id := range []string{r.Source, r.Target} {
			if _, ok := first[id]; !ok {
				first[id] = len(order)
				order = append(order, id)
			}
		}
	}
	out := make([]graph.PathRequest, 0, len(pairs))
	done := make([]bool, len(pairs))
	for len(out) < len(pairs) {
		count := make([]int, len(order))
		for i, p := range pairs {
			if !done[i] {
				count[first[p.Source]]++
				count[first[p.Target]]++
			}
		}
		best := 0
		for i, c := range count {
			if c > count[best] {
				best = i
			}
		}
		src := order[best]
		for i, p := range pairs {
			switch {
			case done[i]:
			case p.Source == src:
				out, done[i] = append(out, p), true
			case p.Target == src:
				out, done[i] = append(out, graph.PathRequest{Source: src, Target: p.Source}), true
			}
		}
	}
	return out
}

// reversePath is p walked from its target to its source.
func reversePath(p graph.Path) graph.Path {
	r := graph.Path{Source: p.Target, Target: p.Source, Nodes: slices.Clone(p.Nodes), Steps: slices.Clone(p.Steps)}
	slices.Reverse(r.Nodes)
	slices.Reverse(r.Steps)
	for i := range r.Steps {
		r.Steps[i].From, r.Steps[i].To = r.Steps[i].To, r.Steps[i].From
	}
	return r
}

// pathWorkers is how many paths_gds transactions run at once: each Dijkstra run is
// single-threaded on the server, and a query's few sources are otherwise answered one by one.
const pathWorkers = 4

// gdsPathRows runs a GDS path statement over the per-source rows in up to pathWorkers
// concurrent transactions.
func (s *Store) gdsPathRows(ctx context.Context, statement string, sources []map[string]any, params map[string]any) ([]graph.Path, error) {
	parts := min(pathWorkers, len(sources))
	results := make([][]graph.Path, parts)
	g, gctx := errgroup.WithContext(ctx)
	for w := range parts {
		lo, hi := w*len(sources)/parts, (w+1)*len(sources)/parts
		g.Go(func() (err error) {
			results[w], err = s.pathRows(gctx, statement, sources[lo:hi], params)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return slices.Concat(results...), nil
}

// bySource is the request rows of the GDS path statements: one per source with all its targets, in first-seen
// order, so that one Dijkstra run serves them all.
func bySource(reqs []graph.PathRequest) []map[string]any {
	var rows []map[string]any
	index := map[string]int{}
	for _, r := range reqs {
		i, ok := index[r.Source]
		if !ok {
			i = len(rows)
			index[r.Source] = i
			rows = append(rows, map[string]any{"source": r.Source, "targets": []string{}})
		}
		rows[i]["targets"] = append(rows[i]["targets"].([]string), r.Target)
	}
	return rows
}

// pathRows runs one of the path statements over request rows, in batches, and decodes its rows.
func (s *Store) pathRows(ctx context.Context, name string, reqs []map[string]any, extra map[string]any) ([]graph.Path, error) {
	var out []graph.Path
	for _, part := range chunked(reqs, s.batchSize) {
		params := map[string]any{"requests": part}
		for k, v := range extra {
			params[k] = v
		}
		// GDS catalog graphs live on the server that projected them; a write transaction is
		// routed to the same (leader) server as the algorithm runs were.
		rows, err := s.run.one(ctx, true, s.q.get(name), params)
		if err != nil {
			return nil, err
		}
		for _, row := range rows {
			p, err := decodePath(row)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// decodePath reads one row of a path statement; steps are oriented in walking direction.
func decodePath(row map[string]any) (graph.Path, error) {
	f := &fields{m: row}
	p := graph.Path{Source: f.str("source"), Target: f.str("target"), Nodes: f.strs("nodes")}
	steps := f.maps("steps")
	if f.err != nil {
		return graph.Path{}, f.err
	}
	for i, m := range steps {
		if i+1 >= len(p.Nodes) {
			break
		}
		g := fields{m: m}
		p.Steps = append(p.Steps, graph.PathStep{
			From:        p.Nodes[i],
			To:          p.Nodes[i+1],
			Type:        g.str("type"),
			Description: g.str("description"),
			Weight:      g.float("weight"),
		})
		if g.err != nil {
			return graph.Path{}, g.err
		}
	}
	return p, nil
}

package cypher

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// ShortestPaths implements graph.Store. With GDS and a current entity projection (left by
// ComputeComponents or ComputeCommunities, dropped by any Apply that changes the entity graph)
// paths come from gds.shortestPath.dijkstra; otherwise, or when GDS fails, from Cypher's
// shortestPath(), which searches at most 32 hops. Either way paths longer than maxHops are left
// out (the Cypher search is capped at 32 hops: a variable-length bound cannot be a parameter). A
// request from an entity to itself is the zero-step path when the entity exists.
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

// findPaths answers requests between distinct entities into found.
func (s *Store) findPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int, found map[graph.PathRequest]graph.Path) error {
	rest := reqs
	if s.projectionUsable(ctx) {
		paths, err := s.pathRows(ctx, qPathsGDS, reqs, map[string]any{"graphName": s.graphName})
		if err == nil {
			// Requests without a row have no path in the projection, which matches the database
			// (any Apply changing the entity graph drops the projection).
			rest = nil
			for _, p := range paths {
				key := graph.PathRequest{Source: p.Source, Target: p.Target}
				if len(p.Steps) != len(p.Nodes)-1 {
					// The projection knows a hop that the database no longer has.
					rest = append(rest, key)
					continue
				}
				if len(p.Steps) <= maxHops {
					found[key] = p
				}
			}
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
		// On any other GDS error (projection dropped meanwhile, entity not projected) the
		// plain-Cypher search below answers every request.
	}
	if len(rest) == 0 {
		return nil
	}
	paths, err := s.pathRows(ctx, qPathsCypher, rest, nil)
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

// projectionUsable reports whether GDS is installed and the entity projection exists.
func (s *Store) projectionUsable(ctx context.Context) bool {
	if s.gds == "" {
		return false
	}
	rows, err := s.readRows(ctx, qGDSExists, map[string]any{"graphName": s.graphName})
	if err != nil || len(rows) == 0 {
		return false
	}
	f := fields{m: rows[0]}
	return f.bool("exists") && f.err == nil
}

// pathRows runs one of the path statements over reqs and decodes its rows.
func (s *Store) pathRows(ctx context.Context, name string, reqs []graph.PathRequest, extra map[string]any) ([]graph.Path, error) {
	var out []graph.Path
	for _, part := range chunked(reqs, s.batchSize) {
		params := map[string]any{"requests": rowsOf(part, func(r graph.PathRequest) map[string]any {
			return map[string]any{"source": r.Source, "target": r.Target}
		})}
		for k, v := range extra {
			params[k] = v
		}
		// GDS catalog graphs live on the server that projected them; a write transaction is
		// routed to the same (leader) server as the algorithm runs were.
		var rows []map[string]any
		err := s.run.write(ctx, func(t tx) (err error) {
			rows, err = t.run(ctx, s.q.get(name), params)
			return err
		})
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

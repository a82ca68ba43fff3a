package embedded

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
)

// ShortestPaths finds, for each request, a path with the fewest steps (at most maxHops) over
// RELATED and SUMMARIZED_BY, walked in either direction. Results follow the order of the requests;
// requests naming a missing entity or without such a path are left out, and so is everything
// when maxHops < 0. A request from an entity to itself yields a path of that one entity and no
// steps. Among several shortest paths the one through entities with smaller ids is preferred, so
// results are deterministic. Where two entities are joined both ways, the step is the RELATED
// one.
func (s *Store) ShortestPaths(ctx context.Context, reqs []graph.PathRequest, maxHops int) ([]graph.Path, error) {
	const what = "shortest paths"
	if len(reqs) == 0 || maxHops < 0 {
		return nil, ctxErr(ctx, what)
	}
	var out []graph.Path
	err := s.read(ctx, what, func(tx *sql.Tx) error {
		eg, err := s.entityGraph(ctx, tx, true)
		if err != nil {
			return err
		}
		var pairs []graphalgo.Pair
		for _, r := range reqs {
			u, okU := eg.node(r.Source)
			v, okV := eg.node(r.Target)
			// graphalgo reads a limit of 0 as none; with maxHops 0 only trivial paths exist.
			if okU && okV && (maxHops > 0 || u == v) {
				pairs = append(pairs, graphalgo.Pair{Src: u, Dst: v})
			}
		}
		found := graphalgo.ShortestPaths(eg.g, pairs, maxHops)

		hops := map[graph.RelationKey]bool{}
		for _, nodes := range found {
			for i := 1; i < len(nodes); i++ {
				hops[graph.NewRelationKey(eg.ids.At(nodes[i-1]), eg.ids.At(nodes[i]))] = true
			}
		}
		steps, err := loadSteps(ctx, tx, hops)
		if err != nil {
			return err
		}
		for k, nodes := range found {
			if nodes == nil {
				continue
			}
			p := graph.Path{Source: strings.Clone(eg.ids.At(pairs[k].Src)), Target: strings.Clone(eg.ids.At(pairs[k].Dst)), Nodes: make([]string, len(nodes))}
			for i, n := range nodes {
				p.Nodes[i] = strings.Clone(eg.ids.At(n))
			}
			for i := 1; i < len(p.Nodes); i++ {
				from, to := p.Nodes[i-1], p.Nodes[i]
				st, ok := steps[graph.NewRelationKey(from, to)]
				if !ok {
					return fmt.Errorf("no relationship between %s and %s on a found path", from, to)
				}
				st.From, st.To = from, to
				p.Steps = append(p.Steps, st)
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadSteps returns the relationship behind each pair of adjacent entities: the RELATED relation
// when there is one, else the SUMMARIZED_BY link in either direction. From and To are left for
// the caller, who knows the walking direction.
func loadSteps(ctx context.Context, tx *sql.Tx, hops map[graph.RelationKey]bool) (map[graph.RelationKey]graph.PathStep, error) {
	steps := make(map[graph.RelationKey]graph.PathStep, len(hops))
	if len(hops) == 0 {
		return steps, nil
	}
	pairs := make([][2]string, 0, len(hops))
	for k := range hops {
		pairs = append(pairs, [2]string{k.Source, k.Target})
	}
	pairsJSON, _ := json.Marshal(pairs) // cannot fail for strings

	// Summary links first, so that relations overwrite them. Of two links joining the same pair
	// in opposite directions, the one whose member sorts last wins; ordering makes it stable.
	for _, q := range []struct {
		typ, query string
	}{
		{"SUMMARIZED_BY", summaryStepsSQL()},
		{"RELATED", relatedStepsSQL()},
	} {
		rows, err := tx.QueryContext(ctx, q.query, string(pairsJSON))
		if err != nil {
			return nil, fmt.Errorf("load %s steps: %w", q.typ, err)
		}
		for rows.Next() {
			var a, b string
			st := graph.PathStep{Type: q.typ}
			if err := rows.Scan(&a, &b, &st.Description, &st.Weight); err != nil {
				rows.Close()
				return nil, err
			}
			steps[graph.NewRelationKey(a, b)] = st
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

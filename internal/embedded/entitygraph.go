package embedded

import (
	"context"
	"database/sql"
	"math"
	"sync"

	"github.com/stratarag/strata/internal/graphalgo"
)

// entityGraph is the graph the algorithms run on (the components and communities stages): every entity of every layer is a
// node, numbered in id order so that results are deterministic, and RELATED and SUMMARIZED_BY
// are undirected edges weighted by their weight. Apply refuses relationships to missing entities;
// loading still skips any, so that the graph can never refer to a node it lacks.
type entityGraph struct {
	gen     int64 // genEntityGraph the graph was loaded at
	ids     []string
	index   map[string]int
	g       *graphalgo.Graph
	related []int // number of RELATED relationships per node: Entity.Degree
}

// graphCache keeps the entity graph between calls until a write changes it.
type graphCache struct {
	mu sync.Mutex
	eg *entityGraph
}

// entityGraph returns the entity graph of tx's snapshot, from the cache when it is current.
func (s *Store) entityGraph(ctx context.Context, tx *sql.Tx) (*entityGraph, error) {
	s.graphs.mu.Lock()
	defer s.graphs.mu.Unlock()
	gen, err := generation(ctx, tx, genEntityGraph)
	if err != nil {
		return nil, err
	}
	if s.graphs.eg != nil && s.graphs.eg.gen == gen {
		return s.graphs.eg, nil
	}
	eg, err := loadEntityGraph(ctx, tx)
	if err != nil {
		return nil, err
	}
	eg.gen = gen
	s.graphs.eg = eg
	return eg, nil
}

func loadEntityGraph(ctx context.Context, tx *sql.Tx) (*entityGraph, error) {
	eg := &entityGraph{index: map[string]int{}}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM entities ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		eg.index[id] = len(eg.ids)
		eg.ids = append(eg.ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	eg.related = make([]int, len(eg.ids))

	var edges []graphalgo.Edge
	for _, q := range []struct {
		query   string
		related bool
	}{
		{`SELECT source, target, weight FROM relations`, true},
		{`SELECT member, summary, weight FROM summary_links`, false},
	} {
		rows, err := tx.QueryContext(ctx, q.query)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var a, b string
			var w float64
			if err := rows.Scan(&a, &b, &w); err != nil {
				rows.Close()
				return nil, err
			}
			u, okU := eg.index[a]
			v, okV := eg.index[b]
			if !okU || !okV {
				continue
			}
			edges = append(edges, graphalgo.Edge{U: u, V: v, W: edgeWeight(w)})
			if q.related {
				eg.related[u]++
				if v != u {
					eg.related[v]++
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	eg.g = graphalgo.NewGraph(len(eg.ids), edges)
	return eg, nil
}

// edgeWeight is the weight an edge gets in the algorithms: a missing or non-positive weight
// counts as 1, so that such a relationship still ties its entities together.
func edgeWeight(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}

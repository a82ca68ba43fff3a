package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"sync"

	"github.com/stratarag/strata/internal/graphalgo"
)

// entityGraph is the graph the algorithms run on (the components and communities stages): every entity of every layer is a
// node, numbered in id order so that results are deterministic, and RELATED and SUMMARIZED_BY
// are undirected edges weighted by their weight. Apply refuses relationships to missing entities;
// loading still skips any, so that the graph can never refer to a node it lacks.
type entityGraph struct {
	gen     int64  // genEntityGraph the graph was loaded at
	ids     idList // in id order: node finds a node by binary search
	g       *graphalgo.Graph
	related []int32 // number of RELATED relationships per node: Entity.Degree
	// edges are the edges g was built from, RELATED first (nRelated of them), kept so that the
	// writer can store the graph in its file (entitygraphfile.go).
	edges    graphalgo.EdgeList
	nRelated int
	fromFile bool // read from the entity graph file rather than SQLite
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
	st, err := readFileState(ctx, tx, genEntityGraph, graphFileMetaKey)
	if err != nil {
		return nil, err
	}
	if s.graphs.eg != nil && s.graphs.eg.gen == st.gen {
		return s.graphs.eg, nil
	}
	// The file, when it carries this snapshot's generation and tag; else SQLite.
	eg, err := readGraphFile(filepath.Join(s.absDir, graphFileName), st)
	if err != nil {
		if eg, err = loadEntityGraph(ctx, tx); err != nil {
			return nil, err
		}
		eg.gen = st.gen
	}
	s.graphs.eg = eg
	return eg, nil
}

// loadEntityGraph reads the entity graph from SQLite. Ids and endpoints are scanned as raw
// bytes and ids packed (idList), so that no row costs an allocation of its own: the graph of one
// huge document has millions of them.
func loadEntityGraph(ctx context.Context, tx *sql.Tx) (*entityGraph, error) {
	// Sized up front from the row counts (an upper bound on the edges, as edges to missing
	// entities are skipped): grown by append, the arrays would hold up to a quarter of slack and
	// copy themselves as they grow.
	var nIDs, nEdges int
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM entities),
		(SELECT count(*) FROM relations) + (SELECT count(*) FROM summary_links)`).Scan(&nIDs, &nEdges); err != nil {
		return nil, err
	}
	b := idListBuilder{ends: make([]uint32, 0, nIDs)}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM entities ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id sql.RawBytes
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if err := b.add(id); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ids := b.list()
	index := newIDIndex(ids)

	edges := graphalgo.EdgeList{U: make([]int32, 0, nEdges), V: make([]int32, 0, nEdges), W: make([]float64, 0, nEdges)}
	nRelated := 0
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
			var a, b sql.RawBytes
			var w float64
			if err := rows.Scan(&a, &b, &w); err != nil {
				rows.Close()
				return nil, err
			}
			u, okU := index.find(a)
			v, okV := index.find(b)
			if !okU || !okV {
				continue
			}
			edges.Append(u, v, edgeWeight(w))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if q.related {
			nRelated = edges.Len()
		}
	}
	return newEntityGraph(ids, edges, nRelated)
}

// newEntityGraph builds the entity graph of ids, sorted, from edges, of which the first nRelated
// are RELATED and the rest SUMMARIZED_BY.
func newEntityGraph(ids idList, edges graphalgo.EdgeList, nRelated int) (*entityGraph, error) {
	eg := &entityGraph{ids: ids, related: make([]int32, ids.len()), edges: edges, nRelated: nRelated}
	for i, u := range edges.U[:nRelated] {
		if u < 0 || int(u) >= ids.len() || edges.V[i] < 0 || int(edges.V[i]) >= ids.len() {
			return nil, fmt.Errorf("edge %d (%d-%d): node out of range [0, %d)", i, u, edges.V[i], ids.len())
		}
		eg.related[u]++
		if v := edges.V[i]; v != u {
			eg.related[v]++
		}
	}
	var err error
	if eg.g, err = graphalgo.NewGraphFromList(ids.len(), edges); err != nil {
		return nil, err
	}
	return eg, nil
}

// node returns the node of entity id. The graph keeps no map from ids to nodes: building one
// for every entity was a tenth of loading the graph file, which a fresh query process does to
// look up a few dozen ids.
func (eg *entityGraph) node(id string) (int, bool) {
	return eg.ids.search(id)
}

// edgeWeight is the weight an edge gets in the algorithms: a missing or non-positive weight
// counts as 1, so that such a relationship still ties its entities together.
func edgeWeight(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}

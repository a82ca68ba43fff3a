package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"sync"

	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// entityGraph is the graph the algorithms run on (the communities stage and bridge paths):
// every entity of every layer is a node, numbered in id order so that results are
// deterministic, and RELATED and SUMMARIZED_BY are undirected edges weighted by their weight.
// Apply refuses relationships to missing entities; loading still skips any, so that the graph
// can never refer to a node it lacks. The graph holds no list of its edges: they are read from
// the store twice as it is built (graphalgo.EdgeSource), and the entity graph file is written
// from the store the same way (entitygraphfile.go).
type entityGraph struct {
	gen      int64       // genEntityGraph the graph was loaded at
	ids      idlist.List // in id order: node finds a node by binary search
	g        *graphalgo.Graph
	fromFile bool // read from the entity graph file rather than SQLite
}

// graphCache keeps the entity graph between calls until a write changes it.
type graphCache struct {
	mu sync.Mutex
	eg *entityGraph
}

// entityGraph returns the entity graph of tx's snapshot: the cached one when it is current, else
// the file's when it carries this snapshot's generation and tag, else SQLite's. A stale cached
// graph is dropped first, so that it is not held beside the new one. With keep, the graph read
// is cached; the communities stage, which runs once an ingest, does not keep it, as a cached
// graph (hundreds of megabytes for one huge document) would be held through the stages after
// it, which never read it.
func (s *Store) entityGraph(ctx context.Context, tx *sql.Tx, keep bool) (*entityGraph, error) {
	s.graphs.mu.Lock()
	defer s.graphs.mu.Unlock()
	st, err := readFileState(ctx, tx, genEntityGraph, graphFileMetaKey)
	if err != nil {
		return nil, err
	}
	if s.graphs.eg != nil && s.graphs.eg.gen == st.Gen {
		return s.graphs.eg, nil
	}
	s.graphs.eg = nil
	eg, err := readGraphFile(filepath.Join(s.absDir, graphFileName), st)
	if err != nil {
		if eg, err = loadEntityGraph(ctx, tx); err != nil {
			return nil, err
		}
		eg.gen = st.Gen
	}
	if keep {
		s.graphs.eg = eg
	}
	return eg, nil
}

// The edges of the entity graph, as queries returning both ends and the weight: RELATED, then
// SUMMARIZED_BY. A query without ORDER BY returns its rows in the same order every time it is
// run on one snapshot, which is all an EdgeSource needs.
const (
	relatedEdgesQuery = `SELECT source, target, weight FROM relations`
	linkEdgesQuery    = `SELECT member, summary, weight FROM summary_links`
)

// loadEntityGraph reads the entity graph from SQLite: its ids, then its edges twice (once to
// size the adjacency, once to fill it).
func loadEntityGraph(ctx context.Context, tx *sql.Tx) (*entityGraph, error) {
	ids, err := readEntityIDs(ctx, tx)
	if err != nil {
		return nil, err
	}
	index := idlist.NewIndex(ids)
	g, err := graphalgo.NewGraphFromSource(ids.Len(), entityEdges(ctx, tx, index, relatedEdgesQuery, linkEdgesQuery))
	if err != nil {
		return nil, fmt.Errorf("entity graph: %w", err)
	}
	return &entityGraph{ids: ids, g: g}, nil
}

// readEntityIDs reads the id of every entity in id order. Ids are scanned as raw bytes and
// packed (idlist.List), so that no row costs an allocation of its own: the graph of one huge
// document has millions of them.
func readEntityIDs(ctx context.Context, tx *sql.Tx) (idlist.List, error) {
	return readEntityIDsWhere(ctx, tx, "", nil)
}

// readLayerIDs reads the ids of the entities of one layer in id order (from the covering index
// entities_layer), as readEntityIDs reads all of them.
func readLayerIDs(ctx context.Context, tx *sql.Tx, layer int) (idlist.List, error) {
	return readEntityIDsWhere(ctx, tx, "WHERE layer = ?", []any{layer})
}

// readEntityIDsWhere reads the ids of the entities that where (with args) selects, in id order.
func readEntityIDsWhere(ctx context.Context, tx *sql.Tx, where string, args []any) (idlist.List, error) {
	// Sized up front: grown by doubling, the packed text would keep up to half its size as
	// slack.
	var n, size int
	if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(length(CAST(id AS BLOB))), 0) FROM entities `+where, args...).Scan(&n, &size); err != nil {
		return idlist.List{}, fmt.Errorf("count entities: %w", err)
	}
	var b idlist.Builder
	b.Grow(n, size)
	rows, err := tx.QueryContext(ctx, `SELECT id FROM entities `+where+` ORDER BY id`, args...)
	if err != nil {
		return idlist.List{}, err
	}
	defer rows.Close()
	var id sql.RawBytes // one buffer for every row: the driver's text is copied into it
	for rows.Next() {
		if err := rows.Scan(&id); err != nil {
			return idlist.List{}, err
		}
		if err := b.Add(id); err != nil {
			return idlist.List{}, err
		}
	}
	if err := rows.Err(); err != nil {
		return idlist.List{}, fmt.Errorf("read entity ids: %w", err)
	}
	return b.List(), nil
}

// entityEdges is the EdgeSource of the rows of queries, in order, as edges between the nodes
// index gives their ends, weighted as the algorithms weigh them (edgeWeight); a row with an end
// that is not an entity is skipped.
func entityEdges(ctx context.Context, tx *sql.Tx, index *idlist.Index, queries ...string) graphalgo.EdgeSource {
	return func(yield func(u, v int32, w float64) error) error {
		for _, q := range queries {
			err := eachEdgeRow(ctx, tx, index, q, func(u, v int32, w float64) error { return yield(u, v, edgeWeight(w)) })
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// eachEdgeRow calls yield with each row (source, target, weight) of query whose two ends index
// finds, as their numbers in index, with the stored weight.
func eachEdgeRow(ctx context.Context, tx *sql.Tx, index *idlist.Index, query string, yield func(u, v int32, w float64) error) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	var a, b sql.RawBytes // one buffer each for every row
	var w float64
	for rows.Next() {
		if err := rows.Scan(&a, &b, &w); err != nil {
			return err
		}
		u, okU := index.Find(a)
		v, okV := index.Find(b)
		if !okU || !okV {
			continue
		}
		if err := yield(u, v, w); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read entity graph edges: %w", err)
	}
	return nil
}

// node returns the node of entity id. The graph keeps no map from ids to nodes: building one
// for every entity was a tenth of loading the graph file, which a fresh query process does to
// look up a few dozen ids.
func (eg *entityGraph) node(id string) (int, bool) {
	return eg.ids.Search(id)
}

// edgeWeight is the weight an edge gets in the algorithms: a missing or non-positive weight
// counts as 1, so that such a relationship still ties its entities together.
func edgeWeight(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 1) {
		return 1
	}
	return w
}

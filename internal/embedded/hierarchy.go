package embedded

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/idlist"
)

// EachLayerEdge streams the RELATED relationships between two entities of one layer, ordered by
// key, from one read transaction.
func (s *Store) EachLayerEdge(ctx context.Context, layer int, fn func(graph.Edge) error) error {
	return s.read(ctx, fmt.Sprintf("relations of layer %d", layer), func(tx *sql.Tx) error {
		if layer == 0 {
			return eachBaseEdge(ctx, tx, fn)
		}
		// A summary layer is a small part of the graph: its entities drive the query, each
		// one's relations looked up by source (the update of the summary layers reads every
		// layer's at each change). CROSS JOIN keeps that order.
		rows, err := tx.QueryContext(ctx, `SELECT r.source, r.target, r.weight FROM entities a
			CROSS JOIN relations r CROSS JOIN entities b
			WHERE a.layer = ? AND r.source = a.id AND b.id = r.target AND b.layer = ?
			ORDER BY r.source, r.target`, layer, layer)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e graph.Edge
			if err := rows.Scan(&e.Source, &e.Target, &e.Weight); err != nil {
				return err
			}
			if err := fn(e); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// Ancestors returns the entities with the given ids and every entity above them over
// SUMMARIZED_BY (a recursive walk up summary_links), with the links and relations among them.
func (s *Store) Ancestors(ctx context.Context, ids []string) (graph.Hierarchy, error) {
	var h graph.Hierarchy
	if len(ids) == 0 {
		return h, ctxErr(ctx, "ancestors")
	}
	err := s.read(ctx, "ancestors", func(tx *sql.Tx) error {
		var err error
		h.Entities, err = queryAll(ctx, tx, scanEntity, `
			WITH RECURSIVE up(id) AS (
				SELECT value FROM json_each(?)
				UNION
				SELECT l.summary FROM summary_links l JOIN up ON l.member = up.id
			)
			SELECT `+entityColsNoEmbedding("e")+` FROM entities e JOIN up ON e.id = up.id
			ORDER BY e.layer, e.id`, encodeStrings(ids))
		if err != nil {
			return err
		}
		found := make([]string, len(h.Entities))
		for i, e := range h.Entities {
			found[i] = e.ID
		}
		set := encodeStrings(found)
		// The unary + keeps the second list out of the primary key: with both lists as keys,
		// SQLite probes the key with every pair of them, quadratic in the entities found
		// (hundreds when lca asks for the entities a document names); with one, it reads each
		// member's few links and filters them.
		h.Links, err = queryAll(ctx, tx, scanSummaryLink, `SELECT l.member, l.summary, l.description, l.weight FROM summary_links l
			WHERE l.member IN (SELECT value FROM json_each(?)) AND +l.summary IN (SELECT value FROM json_each(?))
			ORDER BY l.member, l.summary`, set, set)
		if err != nil {
			return err
		}
		h.Relations, err = queryAll(ctx, tx, scanRelation, `SELECT `+relationCols("r")+` FROM relations r
			WHERE r.source IN (SELECT value FROM json_each(?)) AND +r.target IN (SELECT value FROM json_each(?))
			ORDER BY r.source, r.target`, set, set)
		return err
	})
	if err != nil {
		return graph.Hierarchy{}, err
	}
	return h, nil
}

// AncestorLinks returns the SUMMARIZED_BY links above the entities with the given ids (a
// recursive walk up summary_links, each step by the primary key), member and summary only.
func (s *Store) AncestorLinks(ctx context.Context, ids []string) ([]graph.SummaryLink, error) {
	if len(ids) == 0 {
		return nil, ctxErr(ctx, "ancestor links")
	}
	var links []graph.SummaryLink
	err := s.read(ctx, "ancestor links", func(tx *sql.Tx) error {
		var err error
		links, err = queryAll(ctx, tx, func(sc scanner, _ ...any) (graph.SummaryLink, error) {
			var l graph.SummaryLink
			err := sc.Scan(&l.Member, &l.Summary)
			return l, err
		}, `
			WITH RECURSIVE up(id) AS (
				SELECT value FROM json_each(?)
				UNION
				SELECT l.summary FROM summary_links l JOIN up ON l.member = up.id
			)
			SELECT l.member, l.summary FROM up CROSS JOIN summary_links l ON l.member = up.id
			ORDER BY l.member, l.summary`, encodeStrings(ids))
		return err
	})
	return links, err
}

// LayerLinks returns the SUMMARIZED_BY links from the entities of one layer to the summaries of
// the layer above, ordered by member then summary (the primary key's order).
func (s *Store) LayerLinks(ctx context.Context, layer int) ([]graph.SummaryLink, error) {
	var links []graph.SummaryLink
	err := s.read(ctx, fmt.Sprintf("summary links of layer %d", layer), func(tx *sql.Tx) error {
		var err error
		if layer == 0 {
			links, err = baseLinks(ctx, tx)
			return err
		}
		// CROSS JOIN fixes the order: a summary layer, a small part of the graph, drives the
		// query, its entities in id order, each one's links by the key. Left to the planner,
		// without statistics, it paired every entity of one layer with every one of the other
		// (23 M probes on the mix corpus).
		links, err = queryAll(ctx, tx, scanSummaryLink, `SELECT l.member, l.summary, l.description, l.weight
			FROM entities m
			CROSS JOIN summary_links l ON l.member = m.id
			CROSS JOIN entities s ON s.id = l.summary
			WHERE m.layer = ? AND s.layer = ?
			ORDER BY l.member, l.summary`, layer, layer+1)
		return err
	})
	if err != nil {
		return nil, err
	}
	return links, nil
}

func scanSummaryLink(sc scanner, _ ...any) (graph.SummaryLink, error) {
	var l graph.SummaryLink
	err := sc.Scan(&l.Member, &l.Summary, &l.Description, &l.Weight)
	return l, err
}

// Layer 0 is most of the graph, and most relations and links start there: rather than look
// both ends of each row up in entities (two index probes a row, 0.45 s for the 53 k relations
// of the mix store), the layers' ids are read once, in the order of an index, and the rows of
// the whole table, in key order, are kept when both ends are in them: the rows and order
// the join gives.

// eachBaseEdge calls fn with each relation between two entities of layer 0, ordered by source
// then target.
func eachBaseEdge(ctx context.Context, tx *sql.Tx, fn func(graph.Edge) error) error {
	base, err := readLayerIDs(ctx, tx, 0)
	if err != nil {
		return err
	}
	return eachEdgeRow(ctx, tx, idlist.NewIndex(base), `SELECT source, target, weight FROM relations ORDER BY source, target`,
		func(u, v int32, w float64) error {
			return fn(graph.Edge{Source: base.At(int(u)), Target: base.At(int(v)), Weight: w})
		})
}

// baseLinks returns the links from entities of layer 0 to summaries of layer 1, ordered by
// member then summary.
func baseLinks(ctx context.Context, tx *sql.Tx) ([]graph.SummaryLink, error) {
	layer0, err := readLayerIDs(ctx, tx, 0)
	if err != nil {
		return nil, err
	}
	layer1, err := readLayerIDs(ctx, tx, 1)
	if err != nil {
		return nil, err
	}
	members, summaries := idlist.NewIndex(layer0), idlist.NewIndex(layer1)
	rows, err := tx.QueryContext(ctx, `SELECT member, summary, description, weight FROM summary_links ORDER BY member, summary`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var links []graph.SummaryLink
	var m, sum, desc sql.RawBytes
	var w float64
	for rows.Next() {
		if err := rows.Scan(&m, &sum, &desc, &w); err != nil {
			return nil, err
		}
		if _, ok := members.Find(m); !ok {
			continue
		}
		if _, ok := summaries.Find(sum); !ok {
			continue
		}
		links = append(links, graph.SummaryLink{Member: string(m), Summary: string(sum), Description: string(desc), Weight: w})
	}
	return links, rows.Err()
}

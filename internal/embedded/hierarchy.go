package embedded

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stratarag/strata/internal/graph"
)

// EachLayerEdge streams the RELATED relationships between two entities of one layer, ordered by
// key, from one read transaction.
func (s *Store) EachLayerEdge(ctx context.Context, layer int, fn func(graph.Edge) error) error {
	return s.read(ctx, fmt.Sprintf("relations of layer %d", layer), func(tx *sql.Tx) error {
		// CROSS JOIN keeps SQLite from pairing every two entities of the layer (layer is
		// indexed, so the planner liked that order) before looking relations up: one scan of
		// the relations instead, 9 s → 0.05 s on the multihop store.
		// A summary layer is a small part of the graph: its entities drive the query, each
		// one's relations looked up by source (the update of the summary layers reads every
		// layer's at each change).
		q := `SELECT r.source, r.target, r.weight FROM relations r
			CROSS JOIN entities a CROSS JOIN entities b
			WHERE a.id = r.source AND b.id = r.target AND a.layer = ? AND b.layer = ?
			ORDER BY r.source, r.target`
		if layer > 0 {
			q = `SELECT r.source, r.target, r.weight FROM entities a
				CROSS JOIN relations r CROSS JOIN entities b
				WHERE a.layer = ? AND r.source = a.id AND b.id = r.target AND b.layer = ?
				ORDER BY r.source, r.target`
		}
		rows, err := tx.QueryContext(ctx, q, layer, layer)
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
		// CROSS JOIN fixes the order: the links in key order (the ORDER BY's), each end looked
		// up by id. Left to the planner, without statistics, it pairs every entity of one
		// layer with every one of the other (23 M probes on the mix corpus). A summary layer,
		// a small part of the graph, drives the query instead: its entities in id order, each
		// one's links by the key.
		q := `SELECT l.member, l.summary, l.description, l.weight
			FROM summary_links l
			CROSS JOIN entities m ON m.id = l.member
			CROSS JOIN entities s ON s.id = l.summary
			WHERE m.layer = ? AND s.layer = ?
			ORDER BY l.member, l.summary`
		if layer > 0 {
			q = `SELECT l.member, l.summary, l.description, l.weight
				FROM entities m
				CROSS JOIN summary_links l ON l.member = m.id
				CROSS JOIN entities s ON s.id = l.summary
				WHERE m.layer = ? AND s.layer = ?
				ORDER BY l.member, l.summary`
		}
		links, err = queryAll(ctx, tx, scanSummaryLink, q, layer, layer+1)
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

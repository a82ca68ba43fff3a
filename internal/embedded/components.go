package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/graphalgo"
	"github.com/stratarag/strata/internal/idlist"
)

// ComputeComponents runs WCC over the RELATED edges of the entity graph and writes every
// entity's componentId and degree (its number of RELATED relationships) in one transaction.
// Component ids are dense from 0, numbered in order of each component's smallest entity id. It
// returns the number of components.
func (s *Store) ComputeComponents(ctx context.Context) (int, error) {
	var n int
	err := s.write(ctx, "compute components", func(tx *sql.Tx) error {
		ids, err := readEntityIDs(ctx, tx)
		if err != nil {
			return err
		}
		// RELATED only: the summary hierarchy (SUMMARIZED_BY), whose top joins everything,
		// would make the whole graph one component. Union-find over the relations as they are
		// read needs neither the graph's adjacency nor a list of its edges.
		related := make([]int32, ids.Len())
		edges := entityEdges(ctx, tx, idlist.NewIndex(ids), relatedEdgesQuery)
		component, sizes, err := graphalgo.WCCSource(ids.Len(), func(yield func(u, v int32, w float64) error) error {
			return edges(func(u, v int32, w float64) error {
				related[u]++
				if v != u {
					related[v]++
				}
				return yield(u, v, w)
			})
		})
		if err != nil {
			return fmt.Errorf("entity graph: %w", err)
		}
		// Only rows whose values change are written: the stored ones are read in one scan in
		// id order (the order of ids), so that an update of a few entities makes a few writes
		// rather than a statement per entity.
		rows, err := tx.QueryContext(ctx, `SELECT component_id, degree FROM entities ORDER BY id`)
		if err != nil {
			return err
		}
		var stale []int32
		for i := 0; rows.Next(); i++ {
			var c, d int64
			if err := rows.Scan(&c, &d); err != nil {
				rows.Close()
				return err
			}
			if i >= ids.Len() {
				rows.Close()
				return fmt.Errorf("read components: more entities than the %d read before", ids.Len())
			}
			if c != int64(component[i]) || d != int64(related[i]) {
				stale = append(stale, int32(i))
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("read components: %w", err)
		}
		stmt, err := tx.PrepareContext(ctx, `UPDATE entities SET component_id = ?1, degree = ?2 WHERE id = ?3`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, i := range stale {
			id := ids.At(int(i))
			if _, err := stmt.ExecContext(ctx, int64(component[i]), int64(related[i]), id); err != nil {
				return fmt.Errorf("write component of entity %s: %w", id, err)
			}
		}
		n = len(sizes)
		return nil
	})
	return n, err
}

// UpdateComponents brings componentId and degree up to date after a change, reading only around
// the changed entities (graph.PlanComponents): an entity and its relations by key per entity
// visited, then a bulk rename of the part of a touched component that was not visited, and the
// rows whose values change. Untouched components keep their ids. It returns the number of
// components.
func (s *Store) UpdateComponents(ctx context.Context, changed []string) (int, error) {
	var n int
	err := s.write(ctx, "update components", func(tx *sql.Tx) error {
		// One scan of the table for the largest id and the count before; every entity
		// without a component is new since the last run, so among the changed ones.
		var next, before int64
		if err := tx.QueryRowContext(ctx, `
			SELECT coalesce(max(component_id), -1) + 1, count(DISTINCT CASE WHEN component_id >= 0 THEN component_id END)
			FROM entities`).Scan(&next, &before); err != nil {
			return fmt.Errorf("read the component ids: %w", err)
		}
		entity, err := tx.PrepareContext(ctx, `SELECT component_id, degree FROM entities WHERE id = ?`)
		if err != nil {
			return err
		}
		defer entity.Close()
		// One statement per direction, each by an index (the primary key, relations_target).
		related, err := tx.PrepareContext(ctx, `
			SELECT target FROM relations WHERE source = ?1
			UNION ALL SELECT source FROM relations WHERE target = ?1 AND source <> ?1`)
		if err != nil {
			return err
		}
		defer related.Close()
		expand := func(ctx context.Context, ids []string) (map[string]graph.ComponentNode, error) {
			out := make(map[string]graph.ComponentNode, len(ids))
			for _, id := range ids {
				var cn graph.ComponentNode
				switch err := entity.QueryRowContext(ctx, id).Scan(&cn.Component, &cn.Degree); err {
				case nil:
				case sql.ErrNoRows:
					continue
				default:
					return nil, fmt.Errorf("read entity %s: %w", id, err)
				}
				rows, err := related.QueryContext(ctx, id)
				if err != nil {
					return nil, fmt.Errorf("read relations of %s: %w", id, err)
				}
				for rows.Next() {
					var v string
					if err := rows.Scan(&v); err != nil {
						rows.Close()
						return nil, fmt.Errorf("read relations of %s: %w", id, err)
					}
					cn.Neighbours = append(cn.Neighbours, v)
				}
				if err := rows.Close(); err != nil {
					return nil, fmt.Errorf("read relations of %s: %w", id, err)
				}
				cn.Related = len(cn.Neighbours)
				out[id] = cn
			}
			return out, nil
		}
		plan, err := graph.PlanComponents(ctx, changed, next, expand)
		if err != nil {
			return err
		}
		for _, r := range plan.Relabel {
			args := make([]any, 0, len(r.From)+1)
			args = append(args, r.Keep)
			for _, c := range r.From {
				args = append(args, c)
			}
			q := `UPDATE entities SET component_id = ? WHERE component_id IN (?` + strings.Repeat(", ?", len(r.From)-1) + `)`
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return fmt.Errorf("rename components %v: %w", r.From, err)
			}
		}
		stmt, err := tx.PrepareContext(ctx, `UPDATE entities SET component_id = ?1, degree = ?2 WHERE id = ?3`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, w := range plan.Writes {
			if _, err := stmt.ExecContext(ctx, w.Component, w.Degree, w.ID); err != nil {
				return fmt.Errorf("write component of entity %s: %w", w.ID, err)
			}
		}
		n = int(before) + plan.Components - plan.Touched
		return nil
	})
	return n, err
}

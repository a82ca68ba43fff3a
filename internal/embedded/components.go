package embedded

import (
	"context"
	"database/sql"
	"fmt"

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

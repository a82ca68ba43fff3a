package embedded

import (
	"context"
	"database/sql"
	"fmt"
)

// Generations let this process cache structures derived from the database (decoded vectors, the
// entity graph) without missing writes, including writes of another process: every write that
// can change a structure increments its counter in the generations table inside the same
// transaction, and a reader compares the counter it cached with the one in its snapshot.
//
// The names are the three vector index names, genEntityGraph and (schema version 6 on)
// genMentions.

// genEntityGraph counts writes to entities, RELATED and SUMMARIZED_BY.
const genEntityGraph = "entity_graph"

// generation reads the counter of name, in the snapshot of q when q is a transaction.
func generation(ctx context.Context, q rowQuerier, name string) (int64, error) {
	var gen int64
	if err := q.QueryRowContext(ctx, `SELECT gen FROM generations WHERE name = ?`, name).Scan(&gen); err != nil {
		return 0, fmt.Errorf("read generation of %s: %w", name, err)
	}
	return gen, nil
}

// bumpGeneration increments the counters of names.
func bumpGeneration(ctx context.Context, tx *sql.Tx, names ...string) error {
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, `UPDATE generations SET gen = gen + 1 WHERE name = ?`, name); err != nil {
			return fmt.Errorf("mark %s changed: %w", name, err)
		}
	}
	return nil
}

// rowQuerier is what *sql.DB and *sql.Tx have in common for single-row queries.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

package embedded

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// stmtCache keeps the statements of the query paths prepared in a Resident store. Parsing and planning a statement
// cost about a tenth of a hi query's CPU when every call prepared its statements anew; a
// statement prepared once on the database is prepared once per pooled connection and reused
// there (database/sql's Tx.StmtContext).
type stmtCache struct {
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// cachedTx runs queries of a read transaction through the store's prepared statements when the
// store is Resident. A store that answers one query prepares each statement once anyway, and the
// cache would prepare it twice (on the database, then on the transaction's connection).
type cachedTx struct {
	tx *sql.Tx
	s  *Store
}

// cached wraps tx so that queryAll reuses prepared statements.
func (s *Store) cached(tx *sql.Tx) cachedTx { return cachedTx{tx: tx, s: s} }

// QueryContext implements querier.
func (c cachedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if !c.s.resident {
		return c.tx.QueryContext(ctx, query, args...)
	}
	stmt, err := c.s.stmts.get(ctx, c.s.db, query)
	if err != nil {
		return nil, err
	}
	// The transaction's copy of the statement is closed with the transaction; the prepared
	// statement of the connection stays with stmt.
	return c.tx.StmtContext(ctx, stmt).QueryContext(ctx, args...)
}

// get returns the prepared statement of query, preparing it on first use.
func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("store is closed")
	}
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st, nil
}

// close closes every cached statement; later gets fail.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

package cypher

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// runner is what the store needs from a Neo4j session: managed read and write transactions,
// which may run work more than once (retries on transient errors), so work must be repeatable;
// single statements in transactions of their own, retried alike; and auto-commit statements,
// which `CALL { … } IN TRANSACTIONS` needs to commit its batches. The driver implements it in
// production; tests use a fake that records queries and parameters.
type runner interface {
	read(ctx context.Context, work func(tx) error) error
	write(ctx context.Context, work func(tx) error) error
	one(ctx context.Context, write bool, q query, params map[string]any) ([]map[string]any, error)
	auto(ctx context.Context, q query, params map[string]any) error
	close(ctx context.Context) error
}

// tx runs statements inside one transaction and returns every record as a map by column name.
type tx interface {
	run(ctx context.Context, q query, params map[string]any) ([]map[string]any, error)
}

// driverRunner runs transactions on one database through neo4j-go-driver.
type driverRunner struct {
	driver   neo4j.DriverWithContext
	database string        // "" is the server's default database
	retry    time.Duration // Config.RetryTime
	stmts    statements
}

func (r *driverRunner) read(ctx context.Context, work func(tx) error) error {
	return r.exec(ctx, neo4j.AccessModeRead, work)
}

func (r *driverRunner) write(ctx context.Context, work func(tx) error) error {
	return r.exec(ctx, neo4j.AccessModeWrite, work)
}

func (r *driverRunner) close(ctx context.Context) error { return r.driver.Close(ctx) }

// one runs q as a transaction of its own. A write goes through neo4j.ExecuteQuery, which
// retries it as a managed transaction is retried but sends BEGIN together with the statement
// (ExecuteWrite waits for BEGIN's answer first). A read runs as an auto-commit statement: RUN
// and PULL go together and no COMMIT follows, one round trip where ExecuteQuery takes two (its
// COMMIT). A query's reads mostly wait on each other, so on a server 20 ms away this is about
// 20 ms a statement. The driver does not retry auto-commit statements; retryRead does.
func (r *driverRunner) one(ctx context.Context, write bool, q query, params map[string]any) ([]map[string]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !write {
		return r.retryRead(ctx, q, params)
	}
	start := time.Now()
	res, err := neo4j.ExecuteQuery(ctx, r.driver, q.text, params, neo4j.EagerResultTransformer,
		neo4j.ExecuteQueryWithDatabase(r.database), neo4j.ExecuteQueryWithWritersRouting())
	if err != nil {
		r.stmts.record(q.name, 0, time.Since(start))
		return nil, fmt.Errorf("%s: %w", q.name, err)
	}
	r.stmts.record(q.name, len(res.Records), time.Since(start))
	return recordMaps(res.Records), nil
}

// The delays between tries of a read, doubling from the first to the last, within retryTime.
const (
	firstReadRetryDelay = 100 * time.Millisecond
	lastReadRetryDelay  = 5 * time.Second
)

// retryRead runs a read statement in an auto-commit transaction, again while it fails with an
// error the driver would retry a managed transaction for (a lost connection, a transient
// error, a leader switch) and retryTime has not passed. A read is safe to repeat.
func (r *driverRunner) retryRead(ctx context.Context, q query, params map[string]any) ([]map[string]any, error) {
	begin := time.Now()
	delay := firstReadRetryDelay
	for {
		rows, err := r.autoRead(ctx, q, params)
		if err == nil {
			return rows, nil
		}
		if !neo4j.IsRetryable(err) || time.Since(begin)+delay > r.retryTime() {
			return nil, fmt.Errorf("%s: %w", q.name, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w (after %w)", q.name, ctx.Err(), err)
		case <-time.After(delay):
		}
		delay = min(2*delay, lastReadRetryDelay)
	}
}

// autoRead runs a read statement once, in an auto-commit transaction.
func (r *driverRunner) autoRead(ctx context.Context, q query, params map[string]any) ([]map[string]any, error) {
	session := r.session(ctx, neo4j.AccessModeRead)
	defer session.Close(ctx)
	start := time.Now()
	res, err := session.Run(ctx, q.text, params)
	var records []*neo4j.Record
	if err == nil {
		records, err = res.Collect(ctx)
	}
	r.stmts.record(q.name, len(records), time.Since(start))
	if err != nil {
		return nil, err // unwrapped: neo4j.IsRetryable looks at its type
	}
	return recordMaps(records), nil
}

// retryTime is how long a read is retried: Config.RetryTime, else the driver's 30 s.
func (r *driverRunner) retryTime() time.Duration {
	if r.retry > 0 {
		return r.retry
	}
	return 30 * time.Second
}

// recordMaps is every record as a map by column name.
func recordMaps(records []*neo4j.Record) []map[string]any {
	out := make([]map[string]any, len(records))
	for i, rec := range records {
		out[i] = rec.AsMap()
	}
	return out
}

// auto runs one statement in an auto-commit transaction on the write server. The driver does
// not retry these, so statements run here must be safe to repeat as a whole: the callers'
// batched updates and deletes are.
func (r *driverRunner) auto(ctx context.Context, q query, params map[string]any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	session := r.session(ctx, neo4j.AccessModeWrite)
	defer session.Close(ctx)
	start := time.Now()
	res, err := session.Run(ctx, q.text, params)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	r.stmts.record(q.name, 0, time.Since(start))
	if err != nil {
		return fmt.Errorf("%s: %w", q.name, err)
	}
	return nil
}

// session opens a session of mode on the database. The shared bookmark manager makes every
// session causally consistent with the writes of the others: on a cluster a read right after
// Apply sees what Apply wrote.
func (r *driverRunner) session(ctx context.Context, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return r.driver.NewSession(ctx, neo4j.SessionConfig{
		AccessMode:      mode,
		DatabaseName:    r.database,
		BookmarkManager: r.driver.ExecuteQueryBookmarkManager(),
	})
}

func (r *driverRunner) exec(ctx context.Context, mode neo4j.AccessMode, work func(tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	session := r.session(ctx, mode)
	defer session.Close(ctx)
	t := &driverTx{stmts: &r.stmts}
	fn := func(mt neo4j.ManagedTransaction) (any, error) {
		t.tx = mt
		return nil, work(t)
	}
	var err error
	if mode == neo4j.AccessModeRead {
		_, err = session.ExecuteRead(ctx, fn)
	} else {
		_, err = session.ExecuteWrite(ctx, fn)
	}
	if err != nil && t.failed != "" {
		// Name the statement that failed. Wrapping happens only here, after the driver has
		// decided about retries, because it inspects the error types that work returns.
		return fmt.Errorf("%s: %w", t.failed, err)
	}
	return err
}

// driverTx adapts a managed transaction and remembers which statement failed.
type driverTx struct {
	tx     neo4j.ManagedTransaction
	failed string
	stmts  *statements
}

func (t *driverTx) run(ctx context.Context, q query, params map[string]any) ([]map[string]any, error) {
	t.failed = ""
	start := time.Now()
	res, err := t.tx.Run(ctx, q.text, params)
	if err != nil {
		t.failed = q.name
		t.stmts.record(q.name, 0, time.Since(start))
		return nil, err
	}
	records, err := res.Collect(ctx)
	t.stmts.record(q.name, len(records), time.Since(start))
	if err != nil {
		t.failed = q.name
		return nil, err
	}
	return recordMaps(records), nil
}

package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/stratarag/strata/internal/graph"
)

// dbFile is the name of the database inside the data directory.
const dbFile = "strata.db"

// DatabaseFile is the path of the database file of the store in dir, the file a writable Open
// checks whole (see open.go).
func DatabaseFile(dir string) string { return filepath.Join(dir, dbFile) }

// busyTimeoutMS bounds how long a statement waits for SQLite's own file locks (a reader
// checkpointing, another connection of this process) before failing with SQLITE_BUSY.
const busyTimeoutMS = 10000

// readIdleConns is how many idle connections a read-only store keeps. A query runs several
// store calls concurrently (retrieval's hi mode up to six), and database/sql closes idle
// connections beyond two by default, which would throw away their page caches and parsed
// schema after every burst.
const readIdleConns = 8

// writeConns is how many connections a writable store opens at most, and keeps idle. Each
// connection holds a page cache of up to 2 MiB, which SQLite's allocator (modernc.org/memory)
// lays out in 8 KiB slots. An ingest reads with up to eight goroutines at once (summary
// layers); unbounded, database/sql opened a connection for each, kept two idle and closed the
// others after every burst. With four, the 50 MiB adversarial document's layers stage held at
// most 41 MB outside the Go heap, against 62 with eight. Writes go one at a time (writeMu), so
// four leave three to the readers.
const writeConns = 4

// Options configures Open.
type Options struct {
	// ReadOnly opens an existing store for reading: no writer lock is taken, nothing is created,
	// and every write method fails. Several readers may run next to one writer.
	ReadOnly bool
	// Resident is for a store that answers many queries (strata serve): read paths keep what
	// they would otherwise read from SQLite on every call in memory, loaded once per generation
	// of the data it comes from (DocumentLinks: every mention, mentionindex.go; TextSearch:
	// the full-text indexes, textindex.go). A fresh process answering one query
	// leaves it off, since the loading costs more than the query.
	Resident bool
	// BeforeCheck, when not nil, is called with the database file's path and size before a
	// writable Open runs the integrity check that reads all of it (see open.go), so that the
	// caller can say why a large store is slow to open.
	BeforeCheck func(path string, size int64)
	// Release, when not nil, is called where a computation of the store has let go of large
	// arrays and is about to allocate others (ComputeCommunities): the process's memory policy
	// (memstat.Policy.Release) decides what to do then.
	Release func()
}

// Store is the embedded graph.Store. It is safe for concurrent use.
type Store struct {
	dir      string
	absDir   string // dir made absolute: where the query files (vectorfile.go) live
	db       *sql.DB
	readOnly bool
	resident bool   // Options.Resident
	release  func() // Options.Release, never nil
	version  int64  // schema version; a reader may open an older store as it is
	opened   bool   // Open succeeded: Close may write vector files
	// quickChecked: a writable Open runs quick_check, as the files were not as a clean close
	// left them
	quickChecked bool
	lock         *writerLock // nil when read-only

	// writeMu serializes write transactions of this process; other processes are kept out by
	// lock.
	writeMu  sync.Mutex
	vectors  vectorCache
	graphs   graphCache
	mentions mentionCache
	ppr      pprCache // PPRChunks' graph of a Resident store (ppr.go)
	stmts    stmtCache
	// the in-memory full-text indexes of a Resident store (textindex.go)
	entityTexts, chunkTexts textIndexCache

	// background is the context of work a Resident store does in the background (textindex.go);
	// Close cancels it and waits for that work.
	background context.Context
	stop       context.CancelFunc

	closeOnce sync.Once
	closeErr  error
}

var _ graph.Store = (*Store)(nil)

// Open opens the store in dir, creating dir and an empty store when needed (unless read-only).
func Open(ctx context.Context, dir string, opt Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open store: no data directory given")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	path := filepath.Join(abs, dbFile)

	s := &Store{dir: dir, absDir: abs, readOnly: opt.ReadOnly, resident: opt.Resident, release: opt.Release}
	if s.release == nil {
		s.release = func() {}
	}
	s.background, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	if opt.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("open store %s: no strata store here (%s is missing); run `strata ingest` first", dir, dbFile)
			}
			return nil, fmt.Errorf("open store %s: %w", dir, err)
		}
	} else {
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return nil, fmt.Errorf("open store %s: create directory: %w", dir, err)
		}
		if s.lock, err = acquireWriterLock(dir, filepath.Join(abs, lockFile)); err != nil {
			return nil, err
		}
	}

	// Before SQLite touches the files.
	s.quickChecked = !opt.ReadOnly && !closedClean(abs)
	if fi, err := os.Stat(path); err == nil && s.quickChecked && opt.BeforeCheck != nil {
		opt.BeforeCheck(path, fi.Size())
	}
	s.db, err = sql.Open("sqlite", dsn(path, opt.ReadOnly))
	if err == nil {
		if !opt.ReadOnly {
			s.db.SetMaxOpenConns(writeConns)
		}
		s.db.SetMaxIdleConns(s.idleConns())
	}
	if err == nil {
		err = s.db.PingContext(ctx)
	}
	if err == nil && s.quickChecked {
		err = quickCheck(ctx, s.db, dir) // before the schema is touched; see open.go
	}
	if err == nil {
		s.version, err = initSchema(ctx, s.db, dir, opt.ReadOnly)
	} else if !errors.Is(err, ErrDamaged) {
		err = fmt.Errorf("open store %s: %w", dir, err)
	}
	if err != nil {
		err = s.openFailed(ctx, err)
		s.Close()
		return nil, err
	}
	s.opened = true
	return s, nil
}

// dsn builds the SQLite URI for the database at path. Every pooled connection gets the same
// pragmas: WAL so readers never block the writer and a killed writer leaves the last committed
// state; synchronous=NORMAL, which in WAL mode is still atomic and durable across process crashes
// (only an OS crash can lose the newest commits).
func dsn(path string, readOnly bool) string {
	// SQLite URIs decode %XX escapes; escape what would otherwise end or confuse the path.
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	q := fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeoutMS)
	if readOnly {
		return "file:" + esc + q + "&mode=ro"
	}
	return "file:" + esc + q + "&mode=rwc&_txlock=immediate&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
}

// DatabasePath returns the path of the database file of the store in dir.
func DatabasePath(dir string) string { return filepath.Join(dir, dbFile) }

// Dir returns the data directory the store was opened in.
func (s *Store) Dir() string { return s.dir }

// Close writes the vector files of a writable store (WriteQueryFiles), closes the database and
// then releases the writer lock. Later calls return the result of
// the first; methods called after Close fail.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.stop()
		s.entityTexts.close()
		s.chunkTexts.close()
		var errs []error
		if s.opened && !s.readOnly {
			// The end of every ingest: leave fresh query processes vectors they can read in
			// one pass. Failing here loses no data (queries fall back to SQLite), but is
			// reported so that a full disk does not go unnoticed.
			errs = append(errs, s.WriteQueryFiles(context.Background()))
		}
		if s.db != nil {
			errs = append(errs, s.stmts.close(), s.db.Close())
		}
		if s.opened && !s.readOnly && errors.Join(errs...) == nil {
			// Still under the writer lock: nobody else can have written since.
			markClean(s.absDir)
		}
		if err := s.vectors.unmapAll(); err != nil {
			errs = append(errs, fmt.Errorf("unmap vector files: %w", err))
		}
		if s.lock != nil {
			errs = append(errs, s.lock.release())
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close store %s: %w", s.dir, err)
		}
	})
	return s.closeErr
}

// ReleaseIdle closes the store's idle database connections; the next call opens them again.
// With them go their page caches and parsed schemas, and, when no other connection to the
// database is open, the WAL index that SQLite keeps mapped (the last connection checkpoints the
// WAL and removes it). The pipeline calls it between stages, so that what one stage's
// connections cached stays resident through none of the next: at 50 MiB the communities stage
// needs one connection, next to a graph of hundreds of MB.
func (s *Store) ReleaseIdle() {
	s.db.SetMaxIdleConns(0)
	s.db.SetMaxIdleConns(s.idleConns())
}

// idleConns is how many idle connections the store keeps: readIdleConns or writeConns.
func (s *Store) idleConns() int {
	if s.readOnly {
		return readIdleConns
	}
	return writeConns
}

// write runs fn in one write transaction: all of it commits or none of it does. what names the
// operation in errors.
func (s *Store) write(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("%s: store %s is open read-only", what, s.dir)
	}
	if err := ctxErr(ctx, what); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return asDamaged(s.dir, fmt.Errorf("%s: %w", what, err))
	}
	if err := tx.Commit(); err != nil {
		return asDamaged(s.dir, fmt.Errorf("%s: commit: %w", what, err))
	}
	return nil
}

// read runs fn in one read transaction, so that the several queries of one method see a single
// snapshot even while another process writes.
func (s *Store) read(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	if err := ctxErr(ctx, what); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return asDamaged(s.dir, fmt.Errorf("%s: %w", what, err))
	}
	return nil
}

// ctxErr reports a done context as an error of the operation what.
func ctxErr(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

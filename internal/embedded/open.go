package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stratarag/strata/internal/vectorindex"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrDamaged marks a store whose database file fails SQLite's integrity check. Errors wrapping
// it say what to do: move the file aside and ingest again.
var ErrDamaged = errors.New("the store's database file is damaged")

// When the integrity check runs (PRAGMA quick_check: every page and record is read and checked,
// unique indexes are not re-verified; BenchmarkQuickCheck reads about 180 MB/s on a 2-core
// machine, so 0.1 s for a 14 MB store and some 6 s for 1 GB):
//   - on a writable Open (strata ingest, delete), before the schema is touched, unless the files
//     are byte for byte what the last writer left when it closed the store cleanly (see
//     cleanStamp): a writer must not build on a damaged file and then report success, but an
//     update of one document must not pay a read of the whole store's records either (on a
//     167 MB store the check took 0.8 s of a 5 s update; its checksum takes 0.05 s);
//   - when Open fails, to tell a damaged file from any other failure;
//   - on demand (Store.QuickCheck), which strata status runs.
// Read-only opens (query, eval, a server) skip it: they are frequent, write nothing, and an
// operation that reads a damaged page fails with the same guidance (asDamaged).

// quickCheckRows bounds the problems quick_check lists; the first few say enough.
const quickCheckRows = 5

// QuickCheck runs SQLite's quick_check over the whole database file and returns an error
// wrapping ErrDamaged, with what to do, when it finds a problem.
func (s *Store) QuickCheck(ctx context.Context) error {
	return quickCheck(ctx, s.db, s.dir)
}

func quickCheck(ctx context.Context, db *sql.DB, dir string) error {
	rows, err := db.QueryContext(ctx, fmt.Sprintf("PRAGMA quick_check(%d)", quickCheckRows))
	if err != nil {
		if isDamage(err) {
			return damaged(dir, err)
		}
		return fmt.Errorf("check store %s: %w", dir, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check store %s: %w", dir, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		if isDamage(err) {
			return damaged(dir, err)
		}
		return fmt.Errorf("check store %s: %w", dir, err)
	}
	if len(problems) > 0 {
		return damaged(dir, fmt.Errorf("quick_check: %s", strings.Join(problems, "; ")))
	}
	return nil
}

// isDamage reports whether err is SQLite's report of a damaged or foreign file
// (SQLITE_CORRUPT, SQLITE_NOTADB, with any extended code).
func isDamage(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// damaged is the error for a damaged store in dir: what SQLite found (detail, wrapped) and what
// to do about it.
func damaged(dir string, detail error) error {
	// The -wal and -shm files go with it: SQLite could replay an old write-ahead log into a new
	// database of the same name.
	return fmt.Errorf("%w: %s: %w. Move it aside with its -wal and -shm files (cd %s && mkdir damaged && mv %s* damaged/; "+
		"`sqlite3 damaged/%s .recover` may save some of it) and run `strata ingest` again to rebuild the store; "+
		"the LLM response cache is kept, so work already paid for is not paid again",
		ErrDamaged, filepath.Join(dir, dbFile), detail, dir, dbFile, dbFile)
}

// asDamaged turns an error that reports a damaged file into the damaged-store error with its
// guidance, keeping the operation's message; other errors are returned unchanged.
func asDamaged(dir string, err error) error {
	if err == nil || errors.Is(err, ErrDamaged) || !isDamage(err) {
		return err
	}
	return damaged(dir, err)
}

// openFailed explains a failed Open: an error that is SQLite's report of a damaged file, or a
// failure the integrity check then confirms as damage, becomes the damaged-store error with what
// to do; anything else (a foreign database, a newer schema, permissions) is returned as it is.
func (s *Store) openFailed(ctx context.Context, err error) error {
	if errors.Is(err, ErrDamaged) {
		return err
	}
	if isDamage(err) {
		return damaged(s.dir, err)
	}
	if s.db != nil {
		if cerr := quickCheck(ctx, s.db, s.dir); errors.Is(cerr, ErrDamaged) {
			return fmt.Errorf("%w (%w)", cerr, err)
		}
	}
	return err
}

// cleanFile is the stamp a writer leaves beside the database when it closes the store cleanly:
// the size and CRC-32C of the database file and of its write-ahead log as the writer left them
// (cleanStamp). Its name starts with the database's, so that moving a damaged store aside
// (strata.db*) takes it along.
const cleanFile = dbFile + "-clean"

// cleanStamp describes the database file at path and its write-ahead log: each one's size and
// CRC-32C, or that the log is absent. Any change to a byte of either, by a foreign writer, a
// restore from backup or the disk itself, gives another stamp; reading them costs a fraction of
// quick_check's walk over every record.
func cleanStamp(path string) (string, error) {
	var b strings.Builder
	b.WriteString("strata clean close v1\n")
	for _, p := range []string{path, path + "-wal"} {
		f, err := os.Open(p)
		if p != path && (errors.Is(err, fs.ErrNotExist) || err == nil && isEmpty(f)) {
			// An empty log holds no frames: as good as none (SQLite creates it on connecting).
			if f != nil {
				f.Close()
			}
			fmt.Fprintf(&b, "%s empty\n", filepath.Base(p))
			continue
		}
		if err != nil {
			return "", err
		}
		h := crc32.New(vectorindex.Castagnoli)
		n, err := io.CopyBuffer(h, f, make([]byte, 1<<20))
		f.Close()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %d %08x\n", filepath.Base(p), n, h.Sum32())
	}
	return b.String(), nil
}

func isEmpty(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Size() == 0
}

// closedClean reports whether the database in dir is exactly as a writer left it when it last
// closed the store cleanly. Any doubt (no stamp, an unreadable file) says no.
func closedClean(dir string) bool {
	want, err := os.ReadFile(filepath.Join(dir, cleanFile))
	if err != nil {
		return false
	}
	got, err := cleanStamp(filepath.Join(dir, dbFile))
	return err == nil && got == string(want)
}

// markClean writes the stamp of the database in dir after a clean close (the writer lock still
// held). It is best effort: when it cannot, it removes any older stamp, and the next writer
// checks the file.
func markClean(dir string) {
	path := filepath.Join(dir, cleanFile)
	stamp, err := cleanStamp(filepath.Join(dir, dbFile))
	if err == nil {
		err = os.WriteFile(path, []byte(stamp), 0o644)
	}
	if err != nil {
		os.Remove(path)
	}
}

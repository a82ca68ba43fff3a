package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

func TestOpenCreatesDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b", ".strata")
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	for _, name := range []string{dbFile, lockFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("store file %s: %v", name, err)
		}
	}
	if s.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", s.Dir(), dir)
	}
}

func TestOpenErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := t.TempDir()
	createForeignDB(t, filepath.Join(foreign, dbFile))
	missing := filepath.Join(t.TempDir(), "missing")

	for _, tc := range []struct {
		name string
		dir  string
		opt  Options
		want []string // substrings of the error
	}{
		{"no directory", "", Options{}, []string{"no data directory"}},
		{"directory is a file", file, Options{}, []string{file}},
		{"directory is a file, read-only", file, Options{ReadOnly: true}, []string{file}},
		{"missing store, read-only", missing, Options{ReadOnly: true}, []string{missing, "strata ingest"}},
		{"foreign database", foreign, Options{}, []string{foreign, "not a strata store"}},
		{"foreign database, read-only", foreign, Options{ReadOnly: true}, []string{foreign, "not a strata store"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), tc.dir, tc.opt)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
		})
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only Open created %s (stat: %v)", missing, err)
	}
}

// createForeignDB writes an SQLite database that is not a strata store.
func createForeignDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
}

func TestSecondWriterIsLocked(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	second, err := Open(t.Context(), dir, Options{})
	if err == nil {
		second.Close()
		t.Fatal("second writer opened the store")
	}
	if !errors.Is(err, graph.ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Errorf("second writer: error %q, want graph.ErrLocked naming %s", err, dir)
	}

	// Readers take no lock.
	reader, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reader next to a writer: %v", err)
	}
	reader.Close()

	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	again, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open after the first writer closed: %v", err)
	}
	again.Close()
}

func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer w.Close()
	doc := graph.Document{ID: "d", Metadata: "{}"}
	chunk := func(id string, v ...float32) graph.Chunk {
		return graph.Chunk{ID: id, DocumentID: "d", Text: "text " + id, Embedding: v}
	}
	if err := w.Apply(t.Context(), graph.Batch{Documents: []graph.Document{doc}, Chunks: []graph.Chunk{chunk("x", 1, 0)}}); err != nil {
		t.Fatalf("Apply: %v", err)
	}

	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("Open read-only: %v", err)
	}
	defer r.Close()
	search := func() []graph.Hit {
		t.Helper()
		hits, err := r.VectorSearch(t.Context(), graph.ChunkEmbedding, []float32{0, 1}, 1)
		if err != nil {
			t.Fatalf("VectorSearch: %v", err)
		}
		return hits
	}
	if hits := search(); len(hits) != 1 || hits[0].ID != "x" {
		t.Fatalf("reader VectorSearch = %v, want x", hits)
	}

	// The reader sees what the writer commits later, cached vectors included.
	if err := w.Apply(t.Context(), graph.Batch{Chunks: []graph.Chunk{chunk("y", 0, 1)}}); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if hits := search(); len(hits) != 1 || hits[0].ID != "y" {
		t.Errorf("reader VectorSearch after a write = %v, want y", hits)
	}

	writes := map[string]func(context.Context) error{
		"Apply": func(ctx context.Context) error {
			return r.Apply(ctx, graph.Batch{Documents: []graph.Document{{ID: "e", Metadata: "{}"}}})
		},
		"ComputeComponents": func(ctx context.Context) error { _, err := r.ComputeComponents(ctx); return err },
		"ComputeCommunities": func(ctx context.Context) error {
			_, err := r.ComputeCommunities(ctx, graph.DefaultLeidenParams())
			return err
		},
	}
	for name, write := range writes {
		if err := write(t.Context()); err == nil {
			t.Errorf("%s on a read-only store succeeded", name)
		}
	}
	if docs, _ := w.Documents(t.Context(), []string{"e"}); len(docs) != 0 {
		t.Errorf("read-only Apply wrote %v", docs)
	}
}

func TestSchemaVersion(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := s.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, opt := range []Options{{}, {ReadOnly: true}} {
		s, err := Open(t.Context(), dir, opt)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%+v) of a store with schema version 99 succeeded", opt)
		}
		if !strings.Contains(err.Error(), "99") || !strings.Contains(err.Error(), dir) {
			t.Errorf("Open(%+v): error %q does not name the version and the store", opt, err)
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	b := graph.Batch{Meta: map[string]string{"k": "v"}}
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// A closed writer leaves no WAL behind; a reader must cope with that.
	for _, opt := range []Options{{ReadOnly: true}, {}} {
		s, err = Open(t.Context(), dir, opt)
		if err != nil {
			t.Fatalf("reopen(%+v): %v", opt, err)
		}
		if v, ok, err := s.Meta(t.Context(), "k"); err != nil || !ok || v != "v" {
			t.Errorf("reopen(%+v): Meta = %q, %v, %v", opt, v, ok, err)
		}
		s.Close()
	}
}

func TestUseAfterClose(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Stats(t.Context()); err == nil {
		t.Error("Stats after Close succeeded")
	}
	if err := s.Apply(t.Context(), graph.Batch{Meta: map[string]string{"k": "v"}}); err == nil {
		t.Error("Apply after Close succeeded")
	}
}

// TestUpgradeFromVersion1 builds a version-1 store holding a document and a chunk with an
// embedding, then checks that a reader can use it as it is and that a writer upgrades it: the
// index dimension is taken from the stored embedding (version 2) and the chunk's document title
// becomes searchable (version 3).
func TestUpgradeFromVersion1(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	stmts := append(schemaSQL(),
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
		`PRAGMA user_version = 1`,
		`INSERT INTO documents (id, title, source, sha256, metadata, ingested_at) VALUES ('d', 'Lighthouse keepers', '', '', '{}', '')`,
		`INSERT INTO chunks (id, document_id, seq, text, tokens, embedding) VALUES ('c', 'd', 0, 'old chunk', 2, X'0000803F0000000000000000')`,
	)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a version-1 store: %v", err)
	}
	if hits, err := r.TextSearch(t.Context(), graph.ChunkText, "old", 1); err != nil || len(hits) != 1 {
		t.Errorf("reader of a version-1 store: TextSearch = %v, %v", hits, err)
	}
	old := graph.Chunk{ID: "c", DocumentID: "d", Text: "old chunk", Tokens: 2, Embedding: []float32{1, 0, 0}}
	if got, err := r.Chunks(t.Context(), []string{"c"}); err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], old) {
		t.Errorf("reader of a version-1 store: Chunks = %+v, %v; want %+v, without pages", got, err, old)
	}
	r.Close()

	w, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("upgrading open: %v", err)
	}
	defer w.Close()
	var version int
	if err := w.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("version after upgrade = %d, %v; want %d", version, err, schemaVersion)
	}
	bad := graph.Batch{Chunks: []graph.Chunk{{ID: "c2", DocumentID: "d", Text: "new", Embedding: []float32{1, 0}}}}
	if err := w.Apply(t.Context(), bad); err == nil {
		t.Error("after the upgrade, a 2-dimensional chunk embedding was accepted next to 3-dimensional ones")
	}
	if hits, err := w.TextSearch(t.Context(), graph.ChunkText, "lighthouse", 1); err != nil || len(hits) != 1 || hits[0].ID != "c" {
		t.Errorf("after the upgrade, TextSearch(title word) = %v, %v; want chunk c", hits, err)
	}
	paged := graph.Chunk{ID: "c3", DocumentID: "d", Seq: 1, Text: "paged", Tokens: 1, FirstPage: 2, LastPage: 3}
	if err := w.Apply(t.Context(), graph.Batch{Chunks: []graph.Chunk{paged}}); err != nil {
		t.Fatal(err)
	}
	got, err := w.Chunks(t.Context(), []string{"c", "c3"})
	if err != nil || len(got) != 2 || !reflect.DeepEqual(got[0], old) || !reflect.DeepEqual(got[1], paged) {
		t.Errorf("after the upgrade, Chunks = %+v, %v; want %+v without pages and %+v", got, err, old, paged)
	}
}

// builtStore writes a store of a few MB in a fresh directory and closes it (which checkpoints
// the write-ahead log into strata.db), returning the directory.
func builtStore(t testing.TB, docs int) string {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range docs {
		if err := s.Apply(t.Context(), benchBatch(rng, fmt.Sprintf("doc%d", i), 50, 25, 64)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// damage overwrites strata.db in dir from byte offset at for n bytes (to the end when n < 0).
func damage(t *testing.T, dir string, at, n int) {
	t.Helper()
	path := filepath.Join(dir, dbFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n < 0 || at+n > len(b) {
		n = len(b) - at
	}
	for i := at; i < at+n; i++ {
		b[i] = byte(0xA5 ^ i)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedStore: a damaged strata.db is found and named, with what to do, wherever strata
// meets it: a writable Open (ingest) always checks the file and refuses it, a read-only Open
// fails or leaves it to QuickCheck (status) and to any read that hits a damaged page. Following
// the advice (moving the file aside) gives a working store.
func TestDamagedStore(t *testing.T) {
	const page = 4096
	for _, tc := range []struct {
		name    string
		at, n   int
		readAll bool // every page but the first is damaged, so a read-only count hits one
	}{
		{"header overwritten", 0, 100, false},
		{"pages in the middle", 40 * page, 2 * page, false},
		{"everything but the first page", page, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := builtStore(t, 40)
			if fi, err := os.Stat(filepath.Join(dir, dbFile)); err != nil || fi.Size() < 50*page {
				t.Fatalf("store too small to damage page 40: %v %v", fi.Size(), err)
			}
			damage(t, dir, tc.at, tc.n)
			advice := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("%s: error %v, want ErrDamaged", what, err)
				}
				for _, want := range []string{filepath.Join(dir, dbFile), "mv strata.db* damaged/", "strata ingest"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%s: error %q does not say %q", what, err, want)
					}
				}
			}

			s, err := Open(t.Context(), dir, Options{})
			if err == nil {
				s.Close()
				t.Fatal("writable Open accepted a damaged store")
			}
			advice("writable Open", err)

			ro, err := Open(t.Context(), dir, Options{ReadOnly: true})
			if err != nil {
				advice("read-only Open", err)
			} else {
				advice("QuickCheck", ro.QuickCheck(t.Context()))
				if _, err := ro.Stats(t.Context()); tc.readAll {
					advice("Stats", err)
				}
				ro.Close()
			}

			aside := filepath.Join(dir, "damaged")
			if err := os.Mkdir(aside, 0o755); err != nil {
				t.Fatal(err)
			}
			matches, _ := filepath.Glob(filepath.Join(dir, dbFile+"*"))
			for _, m := range matches {
				if err := os.Rename(m, filepath.Join(aside, filepath.Base(m))); err != nil {
					t.Fatal(err)
				}
			}
			s, err = Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatalf("Open after moving the damaged file aside: %v", err)
			}
			defer s.Close()
			if err := s.QuickCheck(t.Context()); err != nil {
				t.Errorf("QuickCheck of the new store: %v", err)
			}
		})
	}
}

func TestQuickCheckHealthyStore(t *testing.T) {
	dir := builtStore(t, 5)
	for _, opt := range []Options{{}, {ReadOnly: true}} {
		s, err := Open(t.Context(), dir, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		if err := s.QuickCheck(t.Context()); err != nil {
			t.Errorf("%+v: %v", opt, err)
		}
		s.Close()
	}
}

// BenchmarkQuickCheck measures the integrity check every writable Open runs, per MB of store.
func BenchmarkQuickCheck(b *testing.B) {
	dir := builtStore(b, 400)
	fi, err := os.Stat(filepath.Join(dir, dbFile))
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(b.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetBytes(fi.Size())
	for b.Loop() {
		if err := s.QuickCheck(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWritableStoreConnections: a writable store reads with at most writeConns connections
// however many goroutines read at once, and ReleaseIdle closes the idle ones, the last of them
// checkpointing and removing the WAL; the store then reads and writes as before.
func TestWritableStoreConnections(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	if err := s.Apply(ctx, graph.Batch{Meta: map[string]string{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	var inside, most atomic.Int32
	var g errgroup.Group
	for range 4 * writeConns {
		g.Go(func() error {
			return s.read(ctx, "test read", func(tx *sql.Tx) error {
				n := inside.Add(1)
				defer inside.Add(-1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				var v string
				if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'k'`).Scan(&v); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond) // hold the connection while others ask for one
				return nil
			})
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if m := most.Load(); m > writeConns {
		t.Errorf("%d reads ran at once, want at most %d connections", m, writeConns)
	}
	st := s.db.Stats()
	if st.MaxOpenConnections != writeConns || st.OpenConnections > writeConns || st.Idle == 0 {
		t.Errorf("after the reads: %+v, want at most %d connections, some idle", st, writeConns)
	}
	wal := DatabaseFile(s.Dir()) + "-wal"
	if _, err := os.Stat(wal); err != nil {
		t.Fatalf("WAL before ReleaseIdle: %v", err)
	}

	s.ReleaseIdle()
	if st := s.db.Stats(); st.OpenConnections != 0 {
		t.Errorf("after ReleaseIdle: %d connections open, want 0", st.OpenConnections)
	}
	if _, err := os.Stat(wal); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after ReleaseIdle the WAL is still there (%v); the last connection should have removed it", err)
	}
	if err := s.Apply(ctx, graph.Batch{Meta: map[string]string{"k": "w"}}); err != nil {
		t.Fatalf("write after ReleaseIdle: %v", err)
	}
	if v, ok, err := s.Meta(ctx, "k"); err != nil || !ok || v != "w" {
		t.Errorf("read after ReleaseIdle: %q, %v, %v; want \"w\"", v, ok, err)
	}
}

// TestCleanCloseSkipsQuickCheck: a writable Open checks the database unless it is exactly as the
// last writer left it when it closed the store cleanly.
func TestCleanCloseSkipsQuickCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		after     func(t *testing.T, dir string) // what happens to the store after a clean close
		wantCheck bool
	}{
		{"clean close", func(*testing.T, string) {}, false},
		{"read-only use", func(t *testing.T, dir string) {
			r, err := Open(t.Context(), dir, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Stats(t.Context()); err != nil {
				t.Fatal(err)
			}
			r.Close()
		}, false},
		{"writer killed", func(t *testing.T, dir string) {
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), benchBatch(rand.New(rand.NewPCG(3, 4)), "late", 5, 5, 64)); err != nil {
				t.Fatal(err)
			}
			// As if killed: no query files, no stamp, and the WAL left behind.
			s.opened = false
			s.readOnly = true
			s.Close()
		}, true},
		{"written by another program", func(t *testing.T, dir string) {
			db, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`UPDATE entities SET description = 'edited' WHERE rid = 1`); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"stamp removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, cleanFile)); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := builtStore(t, 3)
			tc.after(t, dir)
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if s.quickChecked != tc.wantCheck {
				t.Errorf("quick_check ran: %v, want %v", s.quickChecked, tc.wantCheck)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// Whatever came before, this close was clean.
			if again, err := Open(t.Context(), dir, Options{}); err != nil || again.quickChecked {
				t.Errorf("after a clean close: err %v, quick_check ran %v", err, err == nil && again.quickChecked)
			} else {
				again.Close()
			}
		})
	}
}

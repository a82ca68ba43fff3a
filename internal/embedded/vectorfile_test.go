package embedded

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/vectorindex"
)

// entityBatch is a batch of n entities with random embeddings of dim dimensions, ids prefixed.
func entityBatch(rng *rand.Rand, prefix string, n, dim int) graph.Batch {
	var b graph.Batch
	for i := range n {
		id := fmt.Sprintf("%s-%05d", prefix, i)
		b.Entities = append(b.Entities, graph.Entity{ID: id, Name: id, Type: "thing", Embedding: randomVector(rng, dim)})
	}
	return b
}

// sqliteVectors loads index from SQLite in the snapshot of s, bypassing caches and files: the
// reference every vector file must agree with.
func sqliteVectors(t testing.TB, s *Store, index graph.VectorIndex) *vectorSet {
	t.Helper()
	table, _ := vectorTable(index)
	var set *vectorSet
	err := s.read(t.Context(), "reference vectors", func(tx *sql.Tx) (err error) {
		if set, err = loadVectors(t.Context(), tx, table); err != nil {
			return err
		}
		set.gen, err = generation(t.Context(), tx, string(index))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// loadedSet returns the vectors a fresh reader of dir gets for index, and closes it.
func loadedSet(t testing.TB, dir string, index graph.VectorIndex) (got, want *vectorSet) {
	t.Helper()
	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// Not before the caller is done: a set read from a mapped file lives as long as its store.
	t.Cleanup(func() { r.Close() })
	table, _ := vectorTable(index)
	got, err = r.vectorSet(t.Context(), index, table)
	if err != nil {
		t.Fatalf("vectorSet: %v", err)
	}
	return got, sqliteVectors(t, r, index)
}

func sameVectors(a, b *vectorSet) bool {
	if a.gen != b.gen || a.Dim() != b.Dim() || a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.ID(i) != b.ID(i) || !slices.Equal(a.Row(i), b.Row(i)) {
			return false
		}
	}
	return true
}

func TestVectorFileWrittenOnCloseAndRead(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	if err := s.Apply(t.Context(), entityBatch(rng, "a", 300, 32)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, index := range vectorIndexes {
		if _, err := os.Stat(filepath.Join(dir, vectorFileName(index))); err != nil {
			t.Errorf("no %s vector file after Close: %v", index, err)
		}
	}
	got, want := loadedSet(t, dir, graph.EntityEmbedding)
	if !got.fromFile {
		t.Fatal("a fresh reader read SQLite although the vector file is current")
	}
	if !sameVectors(got, want) || got.Len() != 300 {
		t.Fatalf("vector file holds %d vectors of gen %d, SQLite %d of gen %d, or they differ", got.Len(), got.gen, want.Len(), want.gen)
	}
	// A fresh reader maps the file (Linux); a resident one reads it into its own memory. Both
	// search exactly like SQLite's vectors.
	if runtime.GOOS == "linux" && got.Mapping() == nil {
		t.Error("a fresh reader did not map the vector file")
	}
	r, err := Open(t.Context(), dir, Options{ReadOnly: true, Resident: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, err := r.vectorSet(t.Context(), graph.EntityEmbedding, "entities")
	if err != nil {
		t.Fatal(err)
	}
	if res.Mapping() != nil || !res.fromFile || !sameVectors(res, want) {
		t.Errorf("resident reader: mapped %v, from file %v, same as SQLite %v", res.Mapping() != nil, res.fromFile, sameVectors(res, want))
	}
	q := want.Row(0)
	if a, b := got.Search(q, 20), want.Search(q, 20); !slices.Equal(a, b) {
		t.Errorf("search over the mapped file = %v, over SQLite's vectors %v", a, b)
	}
	// An index without vectors has a file too, and it reads as empty.
	if got, _ := loadedSet(t, dir, graph.ChunkEmbedding); !got.fromFile || got.Dim() != 0 || got.Len() != 0 {
		t.Errorf("empty chunk index: fromFile %v, %d dims, %d ids", got.fromFile, got.Dim(), got.Len())
	}
}

// TestVectorFileRefused checks every way a file can disagree with the store: each must make the
// reader fall back to SQLite and return exactly SQLite's vectors.
func TestVectorFileRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	build := func(t *testing.T) string {
		dir := t.TempDir()
		s, err := Open(t.Context(), dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Apply(t.Context(), entityBatch(rng, "a", 200, 16)); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	path := func(dir string) string { return filepath.Join(dir, vectorFileName(graph.EntityEmbedding)) }
	cases := []struct {
		name  string
		spoil func(t *testing.T, dir string)
	}{
		{"missing", func(t *testing.T, dir string) { os.Remove(path(dir)) }},
		{"truncated", func(t *testing.T, dir string) { os.Truncate(path(dir), 64+200*16*4/2) }},
		{"header only", func(t *testing.T, dir string) { os.Truncate(path(dir), vectorindex.HeaderSize) }},
		{"flipped vector byte", func(t *testing.T, dir string) { flipByte(t, path(dir), vectorindex.HeaderSize+1000) }},
		{"flipped id byte", func(t *testing.T, dir string) { flipByte(t, path(dir), -3) }},
		{"flipped header byte", func(t *testing.T, dir string) { flipByte(t, path(dir), 25) }},
		{"generation moved on", func(t *testing.T, dir string) {
			// A writer that applies and is killed before Close leaves the old file behind.
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), entityBatch(rng, "b", 5, 16)); err != nil {
				t.Fatal(err)
			}
			s.opened = false // as if killed: Close must not refresh the file
			s.Close()
		}},
		{"store rebuilt", func(t *testing.T, dir string) {
			// A new store of the same generation must not accept the old store's file.
			keep := filepath.Join(t.TempDir(), "old")
			if err := os.Rename(path(dir), keep); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{dbFile, dbFile + "-wal", dbFile + "-shm"} {
				os.Remove(filepath.Join(dir, f))
			}
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(t.Context(), entityBatch(rng, "c", 200, 16)); err != nil {
				t.Fatal(err)
			}
			s.opened = false
			s.Close()
			if err := os.Rename(keep, path(dir)); err != nil {
				t.Fatal(err)
			}
		}},
		{"other store's file", func(t *testing.T, dir string) {
			other := build(t)
			data, err := os.ReadFile(path(other))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path(dir), data, 0o644)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := build(t)
			if got, _ := loadedSet(t, dir, graph.EntityEmbedding); !got.fromFile {
				t.Fatal("the unspoilt file was not used")
			}
			tc.spoil(t, dir)
			got, want := loadedSet(t, dir, graph.EntityEmbedding)
			if got.fromFile {
				t.Error("the reader used the spoilt file")
			}
			if !sameVectors(got, want) {
				t.Error("the reader's vectors differ from SQLite's")
			}
			// The next writer repairs it.
			s, err := Open(t.Context(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got, want := loadedSet(t, dir, graph.EntityEmbedding); !got.fromFile || !sameVectors(got, want) {
				t.Errorf("after the next writer closed: fromFile %v, same as SQLite %v", got.fromFile, sameVectors(got, want))
			}
		})
	}
}

// flipByte inverts the byte at off (from the end when negative).
func flipByte(t *testing.T, path string, off int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if off < 0 {
		off += len(data)
	}
	data[off] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVectorFileReadOnlyWritesNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(t.Context(), entityBatch(rand.New(rand.NewPCG(5, 6)), "a", 10, 8)); err != nil {
		t.Fatal(err)
	}
	s.opened = false // no files from this writer
	s.Close()
	r, err := Open(t.Context(), dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.VectorSearch(t.Context(), graph.EntityEmbedding, make([]float32, 8), 3); err == nil {
		t.Error("a zero query vector was accepted")
	}
	if _, err := r.VectorSearch(t.Context(), graph.EntityEmbedding, []float32{1, 0, 0, 0, 0, 0, 0, 0}, 3); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteQueryFiles(t.Context()); err == nil {
		t.Error("a read-only store wrote vector files")
	}
	r.Close()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "vectors") {
			t.Errorf("a reader left %s behind", e.Name())
		}
	}
}

// The kill test runs WriteQueryFiles in a child process (this test binary again), kills it with
// SIGKILL at a random moment, and checks that a reader then gets exactly SQLite's vectors, that
// the final file name never holds a torn file that is accepted, and that the next writer cleans
// up.
const vectorKillEnv = "STRATA_EMBEDDED_VECTOR_KILL_DIR"

func TestVectorFileKillChild(t *testing.T) {
	dir := os.Getenv(vectorKillEnv)
	if dir == "" {
		t.Skip("only runs as the child of TestVectorFileKill")
	}
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatalf("child: Open: %v", err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; ; i++ {
		if err := s.Apply(t.Context(), entityBatch(rng, fmt.Sprintf("k%03d", i), 50, 384)); err != nil {
			t.Fatalf("child: Apply: %v", err)
		}
		if err := s.WriteQueryFiles(t.Context()); err != nil {
			t.Fatalf("child: WriteQueryFiles: %v", err)
		}
		fmt.Printf("wrote %d\n", i)
	}
}

func TestVectorFileKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kill test skipped in -short mode")
	}
	dir := t.TempDir()
	s, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Enough vectors that a file takes a while to write.
	if err := s.Apply(t.Context(), entityBatch(rand.New(rand.NewPCG(9, 10)), "base", 8000, 384)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The kill delays are random, to land at different points of the write; the seed is logged
	// so that a failure can be replayed.
	seed := uint64(time.Now().UnixNano())
	t.Logf("kill delays seeded with %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	usedFile := 0
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVectorFileKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), vectorKillEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "wrote ") {
		}
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("kill child: %v", err)
		}
		for lines.Scan() {
		}
		cmd.Wait()

		got, want := loadedSet(t, dir, graph.EntityEmbedding)
		if !sameVectors(got, want) {
			t.Fatalf("round %d: after the kill a reader got %d vectors of gen %d (from file: %v), SQLite has %d of gen %d",
				round, got.Len(), got.gen, got.fromFile, want.Len(), want.gen)
		}
		if got.fromFile {
			usedFile++
		}
		// Whatever is under the final name is either refused or exactly SQLite's vectors.
		r, err := Open(t.Context(), dir, Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var st vectorindex.Label
		r.read(t.Context(), "state", func(tx *sql.Tx) (err error) {
			st, err = readVectorFileState(context.Background(), tx, graph.EntityEmbedding)
			return err
		})
		r.Close()
		for _, mapped := range []bool{false, true} {
			f, err := vectorindex.ReadFile(filepath.Join(dir, vectorFileName(graph.EntityEmbedding)), st, mapped)
			if err == nil && !sameVectors(&vectorSet{Set: f, gen: st.Gen}, want) {
				t.Fatalf("round %d: an accepted file (mapped %v) differs from SQLite", round, mapped)
			}
			if err == nil && f.Mapping() != nil {
				vectorindex.Unmap(f.Mapping())
			}
		}
	}
	t.Logf("%d of 3 readers after a kill used the vector file", usedFile)
	s, err = Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, vectorindex.TempPattern)); len(tmp) > 0 {
		t.Errorf("the next writer left %v behind", tmp)
	}
	if got, want := loadedSet(t, dir, graph.EntityEmbedding); !got.fromFile || !sameVectors(got, want) {
		t.Errorf("after the next writer: fromFile %v, same as SQLite %v", got.fromFile, sameVectors(got, want))
	}
}

package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/chunk"
)

// A document of many chunks is written in batches of Options.ChunkBatch chunks, each its own
// transaction: a run killed inside the document resumes after the last batch written and ends
// with the store a clean run leaves.

// Environment of the child process of TestBigDocumentResumesAfterKill.
const (
	bigDocChildEnv  = "STRATA_TEST_BIGDOC_DIR"    // the store the child ingests into
	bigDocInputEnv  = "STRATA_TEST_BIGDOC_INPUT"  // the document it ingests
	bigDocMarkerEnv = "STRATA_TEST_BIGDOC_MARKER" // the file it creates when it stops
	bigDocAfterEnv  = "STRATA_TEST_BIGDOC_AFTER"  // the number of batches it writes before stopping
)

// bigDocIngester is structureIngester cutting small chunks written 3 at a time, so that the
// test document (the corpus on one line) needs dozens of batches.
func bigDocIngester(t testing.TB, store graph.Store) *pipeline.Ingester {
	in := structureIngester(t, store)
	in.Options.Chunk = chunk.Options{Size: 80, Overlap: 10}
	in.Options.ChunkBatch = 3
	return in
}

// batchPausingStore stops the process after `after` writes of an unfinished document (a batch
// before its last): it creates the marker file and sleeps until the parent kills it.
type batchPausingStore struct {
	graph.Store
	after   int
	marker  string
	batches int
}

func (p *batchPausingStore) Apply(ctx context.Context, b graph.Batch) error {
	err := p.Store.Apply(ctx, b)
	if err == nil && len(b.Documents) == 1 && b.Documents[0].SHA256 == "" {
		p.batches++
		if p.batches == p.after {
			if err := os.WriteFile(p.marker, []byte("paused"), 0o644); err != nil {
				os.Exit(4)
			}
			time.Sleep(time.Minute)
			os.Exit(5) // never killed: the parent has failed already
		}
	}
	return err
}

// bigDocument writes the corpus's text files as one single-line document, big.txt, alone in a
// folder, and returns the folder.
func bigDocument(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s: %v", corpusDir, err)
	}
	var text []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text = append(text, strings.Fields(string(b))...)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Join(text, " ")), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBigDocumentResumesAfterKill(t *testing.T) {
	if dir := os.Getenv(bigDocChildEnv); dir != "" {
		store := openStore(t, dir)
		after, err := strconv.Atoi(os.Getenv(bigDocAfterEnv))
		if err != nil {
			os.Exit(3)
		}
		ps := &batchPausingStore{Store: store, after: after, marker: os.Getenv(bigDocMarkerEnv)}
		_, _ = bigDocIngester(t, ps).Run(context.Background(), []string{os.Getenv(bigDocInputEnv)})
		os.Exit(0) // the kill point was never reached; the parent reports it
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	input := bigDocument(t)
	cleanDir := t.TempDir()
	clean := openStore(t, cleanDir)
	rep, err := bigDocIngester(t, clean).Run(context.Background(), []string{input})
	if err != nil {
		t.Fatal(err)
	}
	total := rep.Chunks
	if total < 20 {
		t.Fatalf("the clean run wrote %d chunks, want 20 or more (several batches of 3)", total)
	}
	clean.Close()
	want := dumpStore(t, cleanDir)

	const after = 4 // batches written before the kill
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "paused")
	cmd := exec.Command(os.Args[0], "-test.run=^TestBigDocumentResumesAfterKill$")
	cmd.Env = append(os.Environ(), bigDocChildEnv+"="+dir, bigDocInputEnv+"="+input,
		bigDocMarkerEnv+"="+marker, bigDocAfterEnv+"="+strconv.Itoa(after))
	killAtMarker(t, cmd, marker, fmt.Sprintf("%d batches", after))

	store := openStore(t, dir)
	ctx := context.Background()
	docs, err := store.Documents(ctx, []string{"big.txt"})
	if err != nil || len(docs) != 1 || docs[0].SHA256 != "" {
		t.Fatalf("after the kill, document big.txt = %+v, %v; want it stored without its sha256", docs, err)
	}
	stored, err := store.DocumentChunks(ctx, "big.txt")
	if err != nil || len(stored) != after*3 {
		t.Fatalf("after the kill, %d chunks stored (%v); want the %d of %d batches", len(stored), err, after*3, after)
	}
	rep, err = bigDocIngester(t, store).Run(ctx, []string{input})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != 1 || rep.Chunks != total-after*3 || rep.DeletedChunks != 0 {
		t.Errorf("resume run = %+v; want the document finished with its %d remaining chunks", rep, total-after*3)
	}
	store.Close()
	compareDumps(t, dumpStore(t, dir), want)

	// A run after the finished document finds it unchanged.
	store = openStore(t, dir)
	if rep, err := bigDocIngester(t, store).Run(ctx, []string{input}); err != nil || rep.Unchanged != 1 || rep.Chunks != 0 {
		t.Errorf("a third run = %+v, %v; want the document unchanged", rep, err)
	}
}

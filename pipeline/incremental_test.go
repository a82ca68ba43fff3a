package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline"
	"github.com/stratarag/strata/pipeline/layers"
)

// TestRandomChangesEqualCleanIngest is the property of incremental updates: after any sequence
// of adds, edits and deletes of documents (each step followed by `strata ingest DIR` and
// `strata delete --missing DIR`), the store holds exactly what one ingest of the final corpus
// builds: the same documents, chunks, entities, relations and evidence at once, and, after an
// ingest --restructure (the structure an update leaves depends on the order of the changes),
// every row of every table apart from ingestion times (compareWithClean). No step leaves an
// entity or a relation without evidence.
func TestRandomChangesEqualCleanIngest(t *testing.T) {
	names := corpusFiles(t)
	for seed := range uint64(5) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			corpus := t.TempDir()
			present := map[string]bool{}
			for _, n := range names {
				if rng.IntN(2) == 0 {
					copyFile(t, filepath.Join(corpusDir, n), filepath.Join(corpus, n))
					present[n] = true
				}
			}
			if len(present) == 0 {
				copyFile(t, filepath.Join(corpusDir, names[0]), filepath.Join(corpus, names[0]))
				present[names[0]] = true
			}
			incDir := t.TempDir()
			inc := openStore(t, incDir)
			update := func(step string) {
				t.Helper()
				in := structureIngester(t, inc)
				if _, err := in.Run(context.Background(), []string{corpus}); err != nil {
					t.Fatalf("%s: ingest: %v", step, err)
				}
				missing, err := in.MissingDocuments(context.Background(), []string{corpus})
				if err != nil {
					t.Fatalf("%s: missing documents: %v", step, err)
				}
				if len(missing) > 0 {
					ids := make([]string, len(missing))
					for i, d := range missing {
						ids[i] = d.ID
					}
					if _, err := structureIngester(t, inc).Delete(context.Background(), ids, false); err != nil {
						t.Fatalf("%s: delete %v: %v", step, ids, err)
					}
				}
				if e, r, err := inc.Unsupported(context.Background()); err != nil || e+r > 0 {
					t.Fatalf("%s: %d entities and %d relations without evidence (%v)", step, e, r, err)
				}
			}
			update("first ingest")
			var steps []string
			for i := range 8 {
				step := changeCorpus(t, rng, corpus, names, present)
				steps = append(steps, step)
				update(fmt.Sprintf("step %d (%s)", i+1, step))
			}
			inc.Close()
			t.Logf("steps: %s", strings.Join(steps, "; "))

			compareWithClean(t, incDir, corpus)
		})
	}
}

// changeCorpus adds, edits or deletes one document of corpus at random and says what it did.
// An edit drops one paragraph (a record of a JSON Lines file) or adds a sentence taken from
// another document, so that entities gain and lose evidence.
func changeCorpus(t *testing.T, rng *rand.Rand, corpus string, names []string, present map[string]bool) string {
	t.Helper()
	var in, out []string
	for _, n := range names {
		if present[n] {
			in = append(in, n)
		} else {
			out = append(out, n)
		}
	}
	switch op := rng.IntN(3); {
	case op == 0 && len(out) > 0 || len(in) == 1 && len(out) > 0:
		n := out[rng.IntN(len(out))]
		copyFile(t, filepath.Join(corpusDir, n), filepath.Join(corpus, n))
		present[n] = true
		return "add " + n
	case op == 1 && len(in) > 1:
		n := in[rng.IntN(len(in))]
		if err := os.Remove(filepath.Join(corpus, n)); err != nil {
			t.Fatal(err)
		}
		delete(present, n)
		return "delete " + n
	default:
		n := in[rng.IntN(len(in))]
		path := filepath.Join(corpus, n)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sep := "\n\n"
		if strings.HasSuffix(n, ".jsonl") {
			sep = "\n"
		}
		parts := slices.DeleteFunc(strings.Split(strings.TrimSpace(string(b)), sep), func(p string) bool { return strings.TrimSpace(p) == "" })
		what := ""
		if len(parts) > 1 && rng.IntN(2) == 0 {
			i := rng.IntN(len(parts))
			parts = slices.Delete(parts, i, i+1)
			what = fmt.Sprintf("edit %s: drop part %d", n, i)
		} else if !strings.HasSuffix(n, ".jsonl") {
			other, err := os.ReadFile(filepath.Join(corpusDir, names[rng.IntN(len(names))]))
			if err != nil {
				t.Fatal(err)
			}
			sentences := strings.SplitAfter(string(other), ". ")
			s := strings.TrimSpace(sentences[rng.IntN(len(sentences))])
			parts = append(parts, s)
			what = fmt.Sprintf("edit %s: add %q", n, s)
		} else {
			return changeCorpus(t, rng, corpus, names, present)
		}
		if err := os.WriteFile(path, []byte(strings.Join(parts, sep)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return what
	}
}

// Environment of the child process of TestDeleteResumesAfterKill.
const (
	deleteChildEnv  = "STRATA_TEST_DELETE_DIR"    // the store the child deletes from
	deleteKillAtEnv = "STRATA_TEST_DELETE_KILLAT" // the point where it stops
	deleteMarkerEnv = "STRATA_TEST_DELETE_MARKER" // the file it creates when it gets there
)

// deletedDocs are the documents TestDeleteResumesAfterKill deletes.
var deletedDocs = []string{"grey-heron.md", "salt-tariff.txt"}

// TestDeleteResumesAfterKill kills (SIGKILL) a deletion of two documents after the first
// document's transaction and at every kill point of the update of the structure: the store it leaves
// has no entity or relation without evidence, and deleting the documents still stored completes
// it into exactly what a clean ingest of the remaining documents builds, with the structure
// settings the store records.
func TestDeleteResumesAfterKill(t *testing.T) {
	if dir := os.Getenv(deleteChildEnv); dir != "" {
		store, err := embedded.Open(context.Background(), dir, embedded.Options{})
		if err != nil {
			os.Exit(3)
		}
		ps := &pausingStore{Store: store, at: os.Getenv(deleteKillAtEnv), marker: os.Getenv(deleteMarkerEnv)}
		_, _ = structureIngester(t, ps).Delete(context.Background(), deletedDocs, false)
		os.Exit(0) // the kill point was never reached; the parent reports it
	}
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	for _, at := range append([]string{"delete"}, updateKillPoints...) {
		t.Run(at, func(t *testing.T) {
			corpus := t.TempDir()
			if err := os.CopyFS(corpus, os.DirFS(corpusDir)); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			store := openStore(t, dir)
			structureIngest(t, store, corpus)
			store.Close()

			marker := filepath.Join(t.TempDir(), "paused")
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeleteResumesAfterKill$")
			cmd.Env = append(os.Environ(), deleteChildEnv+"="+dir, deleteKillAtEnv+"="+at, deleteMarkerEnv+"="+marker)
			killAtMarker(t, cmd, marker, at)

			store = openStore(t, dir)
			ctx := context.Background()
			if e, r, err := store.Unsupported(ctx); err != nil || e+r > 0 {
				t.Errorf("after the kill at %s: %d entities and %d relations without evidence (%v)", at, e, r, err)
			}
			var left []string
			for _, id := range deletedDocs {
				if docs, err := store.Documents(ctx, []string{id}); err != nil {
					t.Fatal(err)
				} else if len(docs) > 0 {
					left = append(left, id)
				}
			}
			if at == "delete" && len(left) != 1 {
				t.Errorf("killed after the first document's deletion, %d of the 2 documents are left", len(left))
			}
			// The completing run has the default layer options: it must take the store's.
			in := newIngester(t, store, nil)
			in.LayerSummarizer = layers.Extractive{}
			rep, err := in.Delete(ctx, left, false)
			if err != nil {
				t.Fatalf("completing the deletion of %v: %v", left, err)
			}
			if rep.Communities == 0 {
				t.Errorf("the completing run did not rebuild the structure: %+v", rep.Report)
			}
			store.Close()

			for _, name := range deletedDocs {
				if err := os.Remove(filepath.Join(corpus, name)); err != nil {
					t.Fatal(err)
				}
			}
			compareWithClean(t, dir, corpus)
		})
	}
}

// TestRebuildStoreWithoutEvidence: a store an older strata built (no per-chunk evidence) is
// refused by ingest, and rebuilt with --rebuild into exactly what a clean ingest builds.
func TestRebuildStoreWithoutEvidence(t *testing.T) {
	ctx := context.Background()
	corpus := t.TempDir()
	if err := os.CopyFS(corpus, os.DirFS(corpusDir)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := openStore(t, dir)
	structureIngest(t, store, corpus)
	// What an older strata left: no evidence key, mentions and relations without evidence.
	old := graph.Batch{Meta: map[string]string{graph.MetaEvidence: ""}}
	if err := store.Apply(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := structureIngester(t, store).Run(ctx, []string{corpus}); !errors.Is(err, pipeline.ErrSettingsChanged) || !strings.Contains(err.Error(), "--rebuild") {
		t.Fatalf("ingest into a store without evidence: %v; want it refused, naming --rebuild", err)
	}
	if err := os.Remove(filepath.Join(corpus, "grey-heron.md")); err != nil {
		t.Fatal(err)
	}
	in := structureIngester(t, store)
	in.Options.Rebuild = true
	if _, err := in.Run(ctx, []string{corpus}); err != nil {
		t.Fatalf("ingest --rebuild: %v", err)
	}
	store.Close()

	compareWithClean(t, dir, corpus)
}

// corpusFiles returns the names of the test corpus's files.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
)

// TestWritableOpenAnnouncesLongCheck: an ingest into a store whose database file is large says,
// before the integrity check that reads all of it, that it is checking the file; a small store
// opens without the notice.
func TestWritableOpenAnnouncesLongCheck(t *testing.T) {
	const notice = "checking the store's database file"
	doc := filepath.Join("..", "..", "testdata", "corpus", "ashfever.txt")

	small := t.TempDir()
	if code, _, stderr := strata(t, "ingest", "--data-dir", small, doc); code != 0 || strings.Contains(stderr, notice) {
		t.Fatalf("small store: exit %d, stderr %q; want 0 and no notice", code, stderr)
	}

	// A sparse file of slowCheckBytes: no disk used, and not a database, so the open fails
	// right after the notice.
	large := t.TempDir()
	f, err := os.Create(filepath.Join(large, "strata.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(slowCheckBytes); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := strata(t, "ingest", "--data-dir", large, doc)
	if code == 0 || !strings.Contains(stderr, notice) || !strings.Contains(stderr, `"gib":1`) {
		t.Errorf("large store: exit %d, stderr %q; want a failure after the notice with the size", code, stderr)
	}
}

// TestWritersLeaveQueryFilesCurrent: after ingest and delete, which write the query files beside
// their last reads, the files are those of the store as it was closed: a writer opening it
// again has none to rewrite.
func TestWritersLeaveQueryFilesCurrent(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ingest", "--data-dir", dir, corpusDir},
		{"delete", "--data-dir", dir, "port-avel.md"},
	} {
		if code, _, errOut := strata(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "strata-*"))
		if len(files) != 4 {
			t.Fatalf("%v left query files %v, want 3 vector files and the entity graph file", args, files)
		}
		written := map[string]os.FileInfo{} // a file written again is a new file (renamed into place)
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			written[f] = fi
		}
		s, err := embedded.Open(t.Context(), dir, embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil { // writes any query file that is not current
			t.Fatal(err)
		}
		for f, before := range written {
			if fi, err := os.Stat(f); err != nil || !os.SameFile(fi, before) {
				t.Errorf("after %v, %s was not current: the next close wrote it again", args[0], filepath.Base(f))
			}
		}
	}
}

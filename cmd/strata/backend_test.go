package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

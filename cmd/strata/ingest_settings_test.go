package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/neo4jtest"
)

type ingestReport struct {
	Documents, Unchanged int
	Skipped              []string
}

// TestIngestIdentityAndSettings runs, on both backends, the re-ingests that could duplicate or
// silently keep stale data: a corpus then its parent folder stores each file once; other chunk
// settings are refused until --rebuild, which re-chunks; --layers 0 removes the summaries.
func TestIngestIdentityAndSettings(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		dir := t.TempDir()
		checkIdentityAndSettings(t, func(args ...string) (int, string, string) {
			return strata(t, append([]string{args[0], "--data-dir", dir}, args[1:]...)...)
		})
	})
	t.Run("neo4j", func(t *testing.T) {
		srv := neo4jtest.Require(t)
		srv.Reset(t)
		checkIdentityAndSettings(t, func(args ...string) (int, string, string) {
			if args[0] == "ingest" {
				args = append([]string{"ingest", "--offline"}, args[1:]...)
			}
			return neo4jCLI(t, srv, args...)
		})
	})
}

func checkIdentityAndSettings(t *testing.T, cli func(args ...string) (int, string, string)) {
	t.Helper()
	ingest := func(args ...string) ingestReport {
		t.Helper()
		code, out, errOut := cli(append([]string{"ingest", "--json"}, args...)...)
		if code != 0 && code != exitPartial { // testdata holds bad inputs: exit 3
			t.Fatalf("ingest %v: exit %d\n%s", args, code, errOut)
		}
		return decodeJSON[ingestReport](t, "ingest", out)
	}
	summaries := func() int {
		t.Helper()
		code, out, errOut := cli("status", "--json")
		if code != 0 {
			t.Fatalf("status: exit %d\n%s", code, errOut)
		}
		return decodeJSON[statusReport](t, "status", out).Store.Nodes["summaries"]
	}

	if rep := ingest(corpusDir); rep.Documents != 17 {
		t.Fatalf("first ingest: %+v", rep)
	}
	// testdata holds the corpus, README.md and the one good record of bad/broken.jsonl.
	if rep := ingest(filepath.Dir(corpusDir)); rep.Unchanged != 17 || rep.Documents != 2 {
		t.Errorf("corpus then its parent: %+v, want the 17 unchanged", rep)
	}
	if summaries() == 0 {
		t.Fatal("the default ingest built no summaries")
	}

	small := []string{"--chunk-size", "200", "--chunk-overlap", "20"}
	code, _, errOut := cli(append(append([]string{"ingest"}, small...), corpusDir)...)
	if code != exitFailure || !strings.Contains(errOut, "--rebuild") {
		t.Errorf("other chunk settings: exit %d, stderr %s; want a refusal naming --rebuild", code, errOut)
	}
	if rep := ingest(append(append([]string{"--rebuild"}, small...), corpusDir)...); rep.Unchanged == 17 || rep.Documents == 0 {
		t.Errorf("--rebuild with other chunk settings: %+v, want documents re-chunked", rep)
	}
	ingest(append(append([]string{"--layers", "0"}, small...), corpusDir)...)
	if n := summaries(); n != 0 {
		t.Errorf("%d summaries left after --layers 0", n)
	}
	_, out, _ := cli("status", "--json")
	meta := decodeJSON[struct{ Meta map[string]string }](t, "status", out).Meta
	if meta["chunking"] != "cl100k_base size=200 overlap=20" || meta["layers"] != "max=0" || meta["seed"] != "42" {
		t.Errorf("status shows the settings %v", meta)
	}
}

// TestIngestReplaceFlag: two inputs with one id are refused, naming both; an id the store holds
// for another file is refused, naming both files and --replace, and --replace hands it over.
func TestIngestReplaceFlag(t *testing.T) {
	work := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(work, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name, "notes.txt"), []byte("Notes kept in folder "+name+" by Ilsa Marrow."), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	a, b := filepath.Join(work, "a"), filepath.Join(work, "b")
	// Both folders give notes.txt the id "notes.txt": refused in one run, nothing written.
	if code, _, errOut := strata(t, "ingest", "--data-dir", dir, a, b); code != exitFailure ||
		!strings.Contains(errOut, filepath.Join("a", "notes.txt")) || !strings.Contains(errOut, filepath.Join("b", "notes.txt")) {
		t.Errorf("ingest a b: exit %d, stderr %s; want a refusal naming both files", code, errOut)
	}
	if code, _, errOut := strata(t, "ingest", "--data-dir", dir, a); code != 0 {
		t.Fatalf("ingest a: exit %d\n%s", code, errOut)
	}
	code, _, errOut := strata(t, "ingest", "--data-dir", dir, b)
	if code != exitFailure || !strings.Contains(errOut, filepath.Join("a", "notes.txt")) || !strings.Contains(errOut, filepath.Join("b", "notes.txt")) ||
		!strings.Contains(errOut, "--replace") {
		t.Errorf("ingest b: exit %d, stderr %s; want a refusal naming both files and --replace", code, errOut)
	}
	code, out, errOut := strata(t, "ingest", "--data-dir", dir, "--replace", "--json", b)
	if rep := decodeJSON[ingestReport](t, "ingest", out); code != 0 || rep.Documents != 1 {
		t.Errorf("ingest --replace b: exit %d, %+v\n%s", code, rep, errOut)
	}
}

// TestIngestIgnoredEntries: entries a folder walk leaves out by rule are listed under "ignored"
// and in the summary line, and are no failure (exit 0, unlike skipped inputs' exit 3).
func TestIngestIgnoredEntries(t *testing.T) {
	work := t.TempDir()
	for name, text := range map[string]string{"notes.txt": "Ilsa Marrow founded the guild.", ".draft.txt": "hidden", "logo.png": "PNG"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	code, out, errOut := strata(t, "ingest", "--data-dir", dir, "--json", work)
	rep := decodeJSON[struct {
		Documents        int
		Skipped, Ignored []string
	}](t, "ingest", out)
	if code != 0 || rep.Documents != 1 || len(rep.Skipped) != 0 || len(rep.Ignored) != 2 ||
		!strings.Contains(strings.Join(rep.Ignored, "\n"), "logo.png: unsupported file type") {
		t.Errorf("exit %d, report %+v\n%s", code, rep, errOut)
	}
	code, out, _ = strata(t, "ingest", "--data-dir", dir, work)
	if code != 0 || !strings.Contains(out, "0 inputs skipped, 2 ignored") {
		t.Errorf("exit %d, summary:\n%s", code, out)
	}
}

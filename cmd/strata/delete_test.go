package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/neo4jtest"
)

// corpusCopy copies the test corpus into a new folder, from which a test may remove files.
func corpusCopy(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := os.CopyFS(dir, os.DirFS(corpusDir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

type deleteReport struct {
	DryRun          bool `json:"dry_run"`
	Deleted         []struct{ ID string }
	Unknown         []string
	Chunks          int
	EntitiesRemoved int `json:"entities_removed"`
}

type evidenceStatus struct {
	statusReport
	Unsupported *struct{ Entities, Relations int }
}

func deletedIDs(r deleteReport) []string {
	var ids []string
	for _, d := range r.Deleted {
		ids = append(ids, d.ID)
	}
	return ids
}

// graphCounts are the counts of what ingest derives from the documents, the community
// hierarchy aside (the two backends' Leiden differ).
func graphCounts(st evidenceStatus) map[string]int {
	return map[string]int{
		"documents": st.Store.Nodes["documents"], "chunks": st.Store.Nodes["chunks"],
		"entities": st.Store.Nodes["entities"], "summaries": st.Store.Nodes["summaries"],
		"has_entity": st.Store.Relationships["has_entity"], "related": st.Store.Relationships["related"],
		"summarized_by": st.Store.Relationships["summarized_by"], "next": st.Store.Relationships["next"],
	}
}

// checkDelete runs the deletions a user runs against one backend (cli runs strata with its
// store flags) and compares the result with a fresh ingest of the remaining documents into the
// embedded store: an unknown id refused before anything goes, a dry run that writes nothing, a
// deletion by id, a deletion of the files gone from a folder (--missing).
func checkDelete(t *testing.T, cli func(args ...string) (int, string, string)) {
	corpus := corpusCopy(t)
	if code, out, errOut := cli("ingest", "--offline", "--json", corpus); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	documents := func() int {
		code, out, errOut := cli("status", "--json")
		if code != 0 {
			t.Fatalf("status: exit %d: %s", code, errOut)
		}
		return decodeJSON[evidenceStatus](t, "status", out).Store.Nodes["documents"]
	}

	code, out, _ := cli("delete", "--offline", "--json", "port-avel.md", "no-such-doc.md")
	if code != exitFailure || !strings.Contains(out, "no-such-doc.md") || !strings.Contains(out, "nothing was deleted") {
		t.Errorf("delete with an unknown id: exit %d, %s", code, out)
	}
	if n := documents(); n != 17 {
		t.Errorf("an unknown id left %d documents, want 17", n)
	}

	code, out, errOut := cli("delete", "--offline", "--json", "--dry-run", "port-avel.md")
	if rep := decodeJSON[deleteReport](t, "delete --dry-run", out); code != 0 || !rep.DryRun ||
		!slices.Equal(deletedIDs(rep), []string{"port-avel.md"}) || rep.Chunks != 1 {
		t.Errorf("dry run: exit %d, %+v\n%s", code, rep, errOut)
	}
	if n := documents(); n != 17 {
		t.Errorf("a dry run left %d documents, want 17", n)
	}

	code, out, errOut = cli("delete", "--offline", "--json", "port-avel.md")
	if rep := decodeJSON[deleteReport](t, "delete", out); code != 0 || !slices.Equal(deletedIDs(rep), []string{"port-avel.md"}) {
		t.Fatalf("delete port-avel.md: exit %d, %+v\n%s", code, rep, errOut)
	}
	for _, name := range []string{"port-avel.md", "lira-solenne.txt"} {
		if err := os.Remove(filepath.Join(corpus, name)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut = cli("delete", "--offline", "--json", "--missing", corpus)
	if rep := decodeJSON[deleteReport](t, "delete --missing", out); code != 0 || !slices.Equal(deletedIDs(rep), []string{"lira-solenne.txt"}) {
		t.Fatalf("delete --missing: exit %d, %+v\n%s", code, rep, errOut)
	}
	code, out, errOut = cli("status", "--json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	got := decodeJSON[evidenceStatus](t, "status", out)
	if u := got.Unsupported; u == nil || u.Entities+u.Relations != 0 {
		t.Errorf("after the deletions, unsupported = %+v", u)
	}

	fresh := t.TempDir()
	if code, _, errOut := strata(t, "ingest", "--offline", "--data-dir", fresh, corpus); code != 0 {
		t.Fatalf("fresh ingest: exit %d: %s", code, errOut)
	}
	_, out, _ = strata(t, "status", "--json", "--data-dir", fresh)
	want := decodeJSON[evidenceStatus](t, "status", out)
	if !reflect.DeepEqual(graphCounts(got), graphCounts(want)) {
		t.Errorf("after the deletions %v\na fresh ingest of the rest %v", graphCounts(got), graphCounts(want))
	}
}

func TestDelete(t *testing.T) {
	dir := t.TempDir()
	checkDelete(t, func(args ...string) (int, string, string) {
		return strata(t, append(args, "--data-dir", dir)...)
	})
	for _, args := range [][]string{{"delete"}, {"delete", "--missing"}} {
		if code, _, errOut := strata(t, append(args, "--data-dir", dir)...); code != exitUsage {
			t.Errorf("strata %v: exit %d, want %d: %s", args, code, exitUsage, errOut)
		}
	}
}

func TestNeo4jDelete(t *testing.T) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	checkDelete(t, func(args ...string) (int, string, string) {
		return neo4jCLI(t, srv, args...)
	})
}

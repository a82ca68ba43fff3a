package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
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
	// The deletions updated the structure, which depends on the order of the changes: what
	// they leave of the extracted graph is exact, and a --restructure builds what a fresh
	// ingest builds.
	exact := func(c map[string]int) map[string]int {
		delete(c, "summaries")
		delete(c, "summarized_by")
		delete(c, "related") // inter-summary relations count too
		return c
	}
	if !reflect.DeepEqual(exact(graphCounts(got)), exact(graphCounts(want))) {
		t.Errorf("after the deletions %v\na fresh ingest of the rest %v", graphCounts(got), graphCounts(want))
	}
	if code, out, errOut := cli("ingest", "--offline", "--json", "--restructure", corpus); code != 0 || !strings.Contains(out, `"mode":"build"`) {
		t.Fatalf("ingest --restructure: exit %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ = cli("status", "--json")
	if got := decodeJSON[evidenceStatus](t, "status", out); !reflect.DeepEqual(graphCounts(got), graphCounts(want)) {
		t.Errorf("after --restructure %v\na fresh ingest of the rest %v", graphCounts(got), graphCounts(want))
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

// memberSignatures describes every community and every summary of the store in dir by what its
// model prompt is made of: its members with their descriptions (and, for a community, the
// relations among them). A deletion may cost a model call only for a signature the store did not
// have before.
func memberSignatures(t *testing.T, dir string) (communities, summaries map[string]bool) {
	t.Helper()
	ctx := context.Background()
	s := openReadOnly(t, dir)
	comms, err := s.CommunitiesByLevel(ctx, -1)
	if err != nil {
		t.Fatal(err)
	}
	communities = map[string]bool{}
	for _, c := range comms {
		m, err := s.CommunityMembers(ctx, c.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, e := range m.Entities {
			parts = append(parts, e.ID+": "+e.Description)
		}
		for _, r := range m.Relations {
			parts = append(parts, r.Source+" - "+r.Target+": "+r.Description)
		}
		slices.Sort(parts)
		communities[strings.Join(parts, "\n")] = true
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "strata.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT l.summary, e.id || ': ' || e.description FROM summary_links l JOIN entities e ON e.id = l.member ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	members := map[string][]string{}
	for rows.Next() {
		var summary, member string
		if err := rows.Scan(&summary, &member); err != nil {
			t.Fatal(err)
		}
		members[summary] = append(members[summary], member)
	}
	summaries = map[string]bool{}
	for _, m := range members {
		summaries[strings.Join(m, "\n")] = true
	}
	return communities, summaries
}

func newSignatures(before, after map[string]bool) int {
	n := 0
	for sig := range after {
		if !before[sig] {
			n++
		}
	}
	return n
}

// TestLLMDeleteCallsOnlyForWhatChanged: with a model (the fake server), deleting one document
// makes no extraction call, and summary and report calls only for the summaries and communities
// whose members changed; ingesting the remaining documents again afterwards makes no call.
func TestLLMDeleteCallsOnlyForWhatChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several LLM ingests")
	}
	fakeAPI(t, fakeopenai.Options{Seed: 1})
	corpus := corpusCopy(t)
	dir := t.TempDir()
	if code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--json", corpus); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	commsBefore, sumsBefore := memberSignatures(t, dir)

	code, out, errOut := runCLI(t, "delete", "--data-dir", dir, "--json", "grey-heron.md")
	if code != 0 {
		t.Fatalf("delete: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		LLM struct {
			Stages map[string]struct {
				Calls int `json:"llm_calls"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	commsAfter, sumsAfter := memberSignatures(t, dir)
	changedComms, changedSums := newSignatures(commsBefore, commsAfter), newSignatures(sumsBefore, sumsAfter)
	calls := func(stage string) int { return rep.LLM.Stages[stage].Calls }
	t.Logf("delete: %d report calls for %d changed of %d communities, %d layer calls for %d changed of %d summaries, %d summarize calls",
		calls(llm.StageReport), changedComms, len(commsAfter), calls(llm.StageLayers), changedSums, len(sumsAfter), calls(llm.StageSummarize))
	if n := calls(llm.StageExtract) + calls(llm.StageRelations) + calls(llm.StageGlean); n != 0 {
		t.Errorf("delete made %d extraction calls, want 0", n)
	}
	if calls(llm.StageReport) > changedComms {
		t.Errorf("delete made %d report calls for %d communities whose members changed", calls(llm.StageReport), changedComms)
	}
	if calls(llm.StageLayers) > changedSums {
		t.Errorf("delete made %d summary calls for %d summaries whose members changed", calls(llm.StageLayers), changedSums)
	}
	if changedComms == len(commsAfter) {
		t.Errorf("every community changed (%d): the test cannot tell cached reports from new ones", changedComms)
	}

	if err := os.Remove(filepath.Join(corpus, "grey-heron.md")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "ingest", "--data-dir", dir, "--json", corpus)
	if code != 0 {
		t.Fatalf("re-ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	rep.LLM.Stages = nil
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for stage, u := range rep.LLM.Stages {
		if u.Calls != 0 {
			t.Errorf("ingest of the remaining documents after the delete made %d %s calls, want 0", u.Calls, stage)
		}
	}
	if t.Failed() {
		t.Logf("%s\n%s", out, errOut)
	}
}

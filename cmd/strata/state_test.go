package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// statusState is the part of status --json that tells whether the last ingest finished.
type statusState struct {
	Ingest   graph.IngestState
	Warnings []string
}

// markInterrupted writes into store what a run killed after writing documents and before
// finishing the structure leaves behind (the pipeline writes the same keys).
func markInterrupted(t *testing.T, store graph.Store) {
	t.Helper()
	defer store.Close()
	if err := store.Apply(context.Background(), graph.Batch{Meta: map[string]string{
		graph.MetaStructureStale: "true", graph.MetaIngestState: graph.IngestStarted, graph.MetaIngestStarted: "2026-01-02T03:04:05Z",
	}}); err != nil {
		t.Fatal(err)
	}
}

// checkIngestState runs status (text and --json) and a query --json through cli, a CLI bound
// to one store, and checks that they show an unfinished ingest exactly when wantStale.
func checkIngestState(t *testing.T, when string, cli func(args ...string) (int, string, string), wantStale bool) {
	t.Helper()
	code, out, errOut := cli("status", "--json")
	if code != 0 {
		t.Fatalf("%s: status exit %d: %s", when, code, errOut)
	}
	var st statusState
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%s: %v\n%s", when, err, out)
	}
	if st.Ingest.StructureStale != wantStale || st.Ingest.Unfinished != wantStale || st.Ingest.Complete == wantStale ||
		(len(st.Warnings) > 0) != wantStale || st.Ingest.Started == "" || st.Warnings == nil {
		t.Errorf("%s: status --json %s", when, out)
	}

	code, out, _ = cli("status")
	hasWarning := strings.Contains(out, "warning: the graph structure is stale") && strings.Contains(out, "re-run `strata ingest`") &&
		strings.Contains(out, "Last ingest: unfinished (started 2026-01-02T03:04:05Z)")
	if code != 0 || hasWarning != wantStale || (!wantStale && !strings.Contains(out, "Last ingest: finished ")) {
		t.Errorf("%s: status exit %d, text:\n%s", when, code, out)
	}

	code, out, errOut = cli("query", "--json", "Who founded the Saltmere Cartographers' Guild?")
	if code != 0 {
		t.Fatalf("%s: query exit %d: %s", when, code, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%s: %v\n%s", when, err, out)
	}
	warned := strings.Contains(errOut, "strata: warning: the graph structure is stale")
	if _, inJSON := res["warnings"]; warned != wantStale || inJSON != wantStale {
		t.Errorf("%s: query warned on stderr %v, warnings in --json %v; want %v\nstderr: %s", when, warned, inJSON, wantStale, errOut)
	}
	code, _, errOut = cli("eval", "--questions", questionFile)
	if code != 0 {
		t.Fatalf("%s: eval exit %d: %s", when, code, errOut)
	}
	if warned := strings.Contains(errOut, "strata: warning: the graph structure is stale"); warned != wantStale {
		t.Errorf("%s: eval warned on stderr %v, want %v\nstderr: %s", when, warned, wantStale, errOut)
	}
}

// TestStatusAndQueryShowUnfinishedIngest: after an ingest stopped between the documents and the
// structure, status says so with what to do (text and --json), and query warns on stderr and in
// --json "warnings"; a re-run clears all of it.
func TestStatusAndQueryShowUnfinishedIngest(t *testing.T) {
	dir := ingested(t)
	cli := func(args ...string) (int, string, string) {
		return strata(t, append([]string{args[0], "--data-dir", dir}, args[1:]...)...)
	}
	checkInterruptAndRerun(t, cli, func() (graph.Store, error) {
		return embedded.Open(context.Background(), dir, embedded.Options{})
	})
}

// checkInterruptAndRerun checks the state a finished ingest leaves, marks the store interrupted,
// checks the state again, re-runs the ingest and checks that everything is clear.
func checkInterruptAndRerun(t *testing.T, cli func(args ...string) (int, string, string), open func() (graph.Store, error)) {
	t.Helper()
	checkIngestState(t, "after a finished ingest", cli, false)
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	markInterrupted(t, s)
	checkIngestState(t, "after an interrupted ingest", cli, true)
	if code, _, errOut := cli("ingest", corpusDir); code != 0 {
		t.Fatalf("re-ingest: %s", errOut)
	}
	checkIngestState(t, "after the re-run", cli, false)
}

// TestNeo4jStatusAndQueryShowUnfinishedIngest is the same on Neo4j.
func TestNeo4jStatusAndQueryShowUnfinishedIngest(t *testing.T) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	cli := func(args ...string) (int, string, string) {
		return neo4jCLI(t, srv, args...) // offline: neo4jCLI clears the API settings
	}
	if code, _, errOut := cli("ingest", corpusDir); code != 0 {
		t.Fatalf("ingest into Neo4j: %s", errOut)
	}
	checkInterruptAndRerun(t, cli, func() (graph.Store, error) {
		return cypher.Open(context.Background(), cypher.Config{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: srv.Database})
	})
}

// TestDamagedStoreFailsWithAdvice: a damaged strata.db that no read of an unchanged re-ingest
// would touch makes ingest fail (not report success), and status fail, each saying to move the
// file aside and ingest again; with --json the advice is the error object.
func TestDamagedStoreFailsWithAdvice(t *testing.T) {
	dir := ingested(t)
	path := filepath.Join(dir, "strata.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Damage the last pages: an ingest of unchanged documents never reads them.
	const page = 4096
	for i := len(b) - 2*page; i < len(b); i++ {
		b[i] = 0xA5
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ingest", "--data-dir", dir, corpusDir},
		{"status", "--data-dir", dir},
		{"status", "--data-dir", dir, "--json"},
	} {
		code, out, errOut := strata(t, args...)
		msg := errOut
		if args[len(args)-1] == "--json" {
			var e struct{ Error string }
			if err := json.Unmarshal([]byte(out), &e); err != nil {
				t.Errorf("%v: stdout is not an error object: %v\n%s", args, err, out)
			}
			msg = e.Error
		}
		if code != 1 || !strings.Contains(msg, "database file is damaged") || !strings.Contains(msg, "mv strata.db* damaged/") ||
			!strings.Contains(msg, "strata ingest") {
			t.Errorf("%v: exit %d, stdout %s\nstderr %s", args, code, out, errOut)
		}
	}
}

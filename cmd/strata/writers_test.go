package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stratarag/strata/cypher"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// childArgsEnv hands a child process of a test the CLI arguments it runs (separated by \x1f).
const childArgsEnv = "STRATA_TEST_WRITER_ARGS"

// runChildCLI runs the CLI's main code path in this test binary when it is the child of test
// name, and exits; in the parent it does nothing.
func runChildCLI() {
	if args := os.Getenv(childArgsEnv); args != "" {
		os.Exit(run(context.Background(), append([]string{"strata"}, strings.Split(args, "\x1f")...), os.Stdout, os.Stderr))
	}
}

// childCLI starts the CLI with args in a child process (its own pid, as a second strata process
// has), running test name's child branch.
func childCLI(t *testing.T, name string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$")
	cmd.Env = append(os.Environ(), childArgsEnv+"="+strings.Join(args, "\x1f"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stdout, &stderr
}

// leaseHolderPID is the pid of the process holding the database's writer lease, 0 for none.
func leaseHolderPID(t *testing.T, srv neo4jtest.Server) int64 {
	t.Helper()
	rows, err := srv.Query(context.Background(), "MATCH (l:StrataLease {id: 'writer'}) RETURN l.pid AS pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return 0
	}
	pid, _ := rows[0]["pid"].(int64)
	return pid
}

// countDocuments is the number of Document nodes with one of ids.
func countDocuments(t *testing.T, srv neo4jtest.Server, ids []string) int64 {
	t.Helper()
	rows, err := srv.Query(context.Background(), "MATCH (d:Document) WHERE d.id IN $ids RETURN count(d) AS n", map[string]any{"ids": ids})
	if err != nil {
		t.Fatal(err)
	}
	return rows[0]["n"].(int64)
}

// splitCorpus copies the corpus's Markdown files into two folders, alternately; n is how many.
func splitCorpus(t *testing.T) (a, b string, bIDs []string, n int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.md"))
	if err != nil || len(files) < 4 {
		t.Fatalf("corpus files: %v, %v", files, err)
	}
	a, b = t.TempDir(), t.TempDir()
	for i, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := a
		if i%2 == 1 {
			dir = b
			bIDs = append(bIDs, filepath.Base(f))
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, bIDs, len(files)
}

// waitChild waits for a child strata process and returns its exit code.
func waitChild(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode()
}

// hostPort is the host:port of a bolt:// or neo4j:// URI.
func hostPort(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// graphContent is what a graph holds, for comparing two runs: counts per label and type, and
// every entity and relation with what was written on it. Communities are left out: GDS Leiden
// visits nodes in the order of their internal ids, which depend on the order they were created
// in, so an interrupted and resumed run may partition alike but not identically.
type graphContent struct {
	Nodes, Relationships map[string]int64
	Entities             []string
	Relations            []string
}

func readGraph(t *testing.T, srv neo4jtest.Server) graphContent {
	t.Helper()
	ctx := t.Context()
	s, err := cypher.Open(ctx, cypher.Config{URI: srv.URI, Username: srv.Username, Password: srv.Password, Database: srv.Database})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := graphContent{Nodes: map[string]int64{}, Relationships: map[string]int64{}}
	for k, v := range st.Nodes {
		if k != "Community" {
			g.Nodes[k] = v
		}
	}
	for k, v := range st.Relationships {
		if k != "IN_COMMUNITY" && k != "CHILD_OF" {
			g.Relationships[k] = v
		}
	}
	var ids []string
	for layer := 0; ; layer++ {
		es, err := s.EntitiesByLayer(ctx, layer)
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			break
		}
		for _, e := range es {
			ids = append(ids, e.ID)
			g.Entities = append(g.Entities, strings.Join([]string{e.ID, strconv.Itoa(e.Layer), e.Name, e.Type, e.Description,
				strconv.FormatInt(e.ComponentID, 10)}, "|"))
		}
	}
	var keys []graph.RelationKey
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			keys = append(keys, graph.NewRelationKey(ids[i], ids[j]))
		}
	}
	rels, err := s.Relations(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		g.Relations = append(g.Relations, strings.Join([]string{r.Source, r.Target, r.Description, strconv.FormatFloat(r.Weight, 'g', -1, 64)}, "|"))
	}
	sort.Strings(g.Entities)
	sort.Strings(g.Relations)
	return g
}

// TestNeo4jSecondWriterRefused: while one `strata ingest` writes to a Neo4j database (a child
// process, held at its first document write by a proxy, with its lease taken), a second ingest
// of other documents is refused before it writes anything, with a message naming the first;
// readers run meanwhile; once the first is done, the second goes through, and the database holds
// the documents, chunks, entities and relations one ingest of both builds.
func TestNeo4jSecondWriterRefused(t *testing.T) {
	runChildCLI()
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	a, b, bIDs, n := splitCorpus(t)

	p := newBoltProxy(t, hostPort(t, srv.URI))
	stalled := make(chan struct{})
	p.on(statementMarker(t, "write_documents"), 1, func() {
		p.stall()
		close(stalled)
	})
	t.Setenv("NEO4J_URI", p.uri())
	first, stdout, stderr := childCLI(t, "TestNeo4jSecondWriterRefused", "ingest", "--offline", "--json", a)
	t.Cleanup(func() {
		if first.ProcessState == nil {
			_ = first.Process.Kill()
			_ = first.Wait()
		}
	})
	<-stalled
	if pid := leaseHolderPID(t, srv); pid != int64(first.Process.Pid) {
		t.Fatalf("the first ingest (pid %d) writes without the lease: holder pid %d", first.Process.Pid, pid)
	}

	code, out, errOut := neo4jCLI(t, srv, "ingest", "--offline", "--json", b)
	host, _ := os.Hostname()
	want := fmt.Sprintf("store is locked by another writer: strata (pid %d on %s) has been writing to this database since ", first.Process.Pid, host)
	if code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("second ingest while the first runs: exit %d, stderr %q; want exit 1 naming the first (%q)", code, errOut, want)
	}
	if msg := checkJSONError(t, out, exitFailure); !strings.Contains(msg, want) || !strings.Contains(msg, "wait for it to finish") {
		t.Errorf("second ingest --json error %q", msg)
	}
	if n := countDocuments(t, srv, bIDs); n != 0 {
		t.Errorf("the refused ingest wrote %d documents", n)
	}
	code, out, errOut = neo4jCLI(t, srv, "status", "--json")
	if code != 0 {
		t.Errorf("status while the first ingest runs: exit %d: %s", code, errOut)
	} else if st := decodeJSON[struct{ Writer *struct{ PID int } }](t, "status", out); st.Writer == nil || st.Writer.PID != first.Process.Pid {
		t.Errorf("status while the first ingest runs: writer %+v, want pid %d", st.Writer, first.Process.Pid)
	}

	p.release()
	if code := waitChild(t, first); code != 0 {
		t.Fatalf("first ingest: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if pid := leaseHolderPID(t, srv); pid != 0 {
		t.Errorf("after the first ingest finished, pid %d holds the lease; want it given up", pid)
	}
	code, out, errOut = neo4jCLI(t, srv, "ingest", "--offline", "--json", b)
	if code != 0 {
		t.Fatalf("second ingest after the first: exit %d\n%s\n%s", code, out, errOut)
	}
	both := readGraph(t, srv)
	if both.Nodes["Document"] != int64(n) {
		t.Errorf("after both ingests, %d of the %d documents stored", both.Nodes["Document"], n)
	}

	srv.Reset(t)
	if code, out, errOut := neo4jCLI(t, srv, "ingest", "--offline", "--json", a, b); code != 0 {
		t.Fatalf("one ingest of both: exit %d\n%s\n%s", code, out, errOut)
	}
	once := readGraph(t, srv)
	// The summary layers of the second run are an update of the first's, which may cluster
	// otherwise than one build of both: they are left out (summaries are Entity nodes too).
	both.Nodes["Entity"] -= both.Nodes["Summary"]
	once.Nodes["Entity"] -= once.Nodes["Summary"]
	for _, label := range []string{"Document", "Chunk", "Entity"} {
		if both.Nodes[label] != once.Nodes[label] {
			t.Errorf("%s: %d after the two runs, %d after one ingest of both", label, both.Nodes[label], once.Nodes[label])
		}
	}
	for _, typ := range []string{"PART_OF", "HAS_ENTITY", "RELATED"} {
		if both.Relationships[typ] != once.Relationships[typ] {
			t.Errorf("%s: %d after the two runs, %d after one ingest of both", typ, both.Relationships[typ], once.Relationships[typ])
		}
	}
}

// TestNeo4jServerLostMidIngest: the Neo4j server goes away in the middle of an ingest (a proxy
// between strata and the server drops every connection and refuses new ones, as a stopped or
// restarting server does) while the documents are written, and while the structure is built.
// The ingest stops with one clear message (the connection was lost; the same command resumes),
// not the driver's errors; once the server is back, the same command finishes, taking over the
// lease the stopped run could not give up, and the graph is the one an uninterrupted run builds.
func TestNeo4jServerLostMidIngest(t *testing.T) {
	runChildCLI()
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	srv := neo4jtest.Require(t)
	// Small chunks, so that the documents are written in several batches.
	args := []string{"ingest", "--offline", "--json", "--chunk-size", "40", "--chunk-overlap", "0", corpusDir}
	srv.Reset(t)
	if code, out, errOut := neo4jCLI(t, srv, args...); code != 0 {
		t.Fatalf("uninterrupted ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	want := readGraph(t, srv)
	if len(want.Entities) == 0 || len(want.Relations) == 0 {
		t.Fatalf("the uninterrupted ingest built %+v", want)
	}

	for _, tc := range []struct {
		name      string
		statement string // the server goes away as the client sends it
		count     int
	}{
		{"second batch of documents", "write_chunks", 2},
		{"components", "gds_wcc_write", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset(t)
			p := newBoltProxy(t, hostPort(t, srv.URI))
			var cut atomic.Bool
			p.on(statementMarker(t, tc.statement), tc.count, func() {
				cut.Store(true)
				p.cut()
			})
			through := srv
			through.URI = p.uri()
			through.Setenv(t)
			t.Setenv("STRATA_NEO4J_RETRY_TIME", "2s") // the driver's retries end soon
			cmd, stdout, stderr := childCLI(t, "TestNeo4jServerLostMidIngest", args...)
			if code := waitChild(t, cmd); !cut.Load() || code != exitFailure {
				t.Fatalf("ingest with the server gone: cut %v, exit %d, want 1\nstdout: %s\nstderr: %s", cut.Load(), code, stdout, stderr)
			}
			msg := checkJSONError(t, stdout.String(), exitFailure)
			t.Logf("message: %s", msg)
			if !strings.HasPrefix(msg, "lost the connection to Neo4j") || !strings.Contains(msg, "run the same command again") {
				t.Errorf("error %q; want it to say the connection was lost and the command resumes", msg)
			}
			for _, driver := range []string{"ConnectivityError", "TransactionExecutionLimit", "Neo4jError"} {
				if strings.Contains(msg, driver) {
					t.Errorf("error %q shows the driver's %s", msg, driver)
				}
			}

			p.up()
			code, out, errOut := neo4jCLI(t, through, args...)
			if code != 0 {
				t.Fatalf("ingest again with the server back: exit %d\n%s\n%s", code, out, errOut)
			}
			got := readGraph(t, srv)
			if !reflect.DeepEqual(got.Nodes, want.Nodes) || !reflect.DeepEqual(got.Relationships, want.Relationships) {
				t.Errorf("resumed: counts %v %v, want %v %v", got.Nodes, got.Relationships, want.Nodes, want.Relationships)
			}
			if !reflect.DeepEqual(got.Entities, want.Entities) || !reflect.DeepEqual(got.Relations, want.Relations) {
				t.Errorf("resumed: %d entities and %d relations differ from the uninterrupted run's %d and %d",
					len(got.Entities), len(got.Relations), len(want.Entities), len(want.Relations))
			}
		})
	}
}

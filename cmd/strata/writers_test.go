package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
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

// TestNeo4jSecondWriterRefused: while one `strata ingest` writes to a Neo4j database (a child
// process, slowed by a model that answers in 150 ms), a second ingest of other documents into it
// is refused before it writes anything, with a message naming the first; once the first is done,
// the second goes through and the database holds both.
func TestNeo4jSecondWriterRefused(t *testing.T) {
	runChildCLI()
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	srv := neo4jtest.Require(t)
	fakeAPI(t, fakeopenai.Options{Seed: 3, Latency: 150 * time.Millisecond}) // clears NEO4J_URI
	srv.Reset(t)
	srv.Setenv(t)
	a, b, bIDs, n := splitCorpus(t)

	first, stdout, stderr := childCLI(t, "TestNeo4jSecondWriterRefused", "ingest", "--json", "--concurrency", "1", "--llm-concurrency", "1", a)
	deadline := time.Now().Add(2 * time.Minute)
	for leaseHolderPID(t, srv) != int64(first.Process.Pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if leaseHolderPID(t, srv) != int64(first.Process.Pid) {
		_ = first.Process.Kill()
		t.Fatalf("the first ingest (pid %d) never took the writer lease\nstderr: %s", first.Process.Pid, stderr)
	}

	code, out, errOut := runCLI(t, "ingest", "--json", b)
	want := fmt.Sprintf("store is locked by another writer: strata (pid %d on ", first.Process.Pid)
	if code != exitFailure || !strings.Contains(errOut, want) {
		t.Errorf("second ingest while the first runs: exit %d, stderr %q; want exit 1 naming the first (%q)", code, errOut, want)
	}
	if msg := checkJSONError(t, out, exitFailure); !strings.Contains(msg, want) {
		t.Errorf("second ingest --json error %q", msg)
	}
	if n := countDocuments(t, srv, bIDs); n != 0 {
		t.Errorf("the refused ingest wrote %d documents", n)
	}

	if err := first.Wait(); err != nil {
		t.Fatalf("first ingest: %v\nstdout: %s\nstderr: %s", err, stdout, stderr)
	}
	if pid := leaseHolderPID(t, srv); pid != 0 {
		t.Errorf("after the first ingest finished, pid %d holds the lease; want it given up", pid)
	}
	code, out, errOut = runCLI(t, "ingest", "--json", b)
	if code != 0 {
		t.Fatalf("second ingest after the first: exit %d\n%s\n%s", code, out, errOut)
	}
	if n := countDocuments(t, srv, bIDs); n != int64(len(bIDs)) {
		t.Errorf("after both ingests, %d of the second's %d documents stored", n, len(bIDs))
	}
	code, out, _ = runCLI(t, "status", "--json")
	if st := decodeJSON[statusReport](t, "status", out); code != 0 || st.Store.Nodes["documents"] != n {
		t.Errorf("status after both: exit %d, %+v; want the %d documents", code, st.Store, n)
	}
}

// proxy forwards TCP connections to a server until cut, which closes every connection and
// refuses new ones (the server as a client sees it stop) until restored.
type proxy struct {
	target string
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	down   bool
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{target: target, ln: ln}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.accept()
	return p
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
	}
}

func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// TestNeo4jServerLostMidIngest: an ingest whose server goes away after its documents are stored
// (every connection cut, new ones refused, as a restart looks to a client) fails with a message
// that says so and that the same command resumes, not a stack of driver errors; run again once
// the server is back, it finishes, and the database holds what an uninterrupted ingest leaves.
func TestNeo4jServerLostMidIngest(t *testing.T) {
	runChildCLI()
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	srv := neo4jtest.Require(t)
	// The uninterrupted ingest, for comparison.
	srv.Reset(t)
	if code, out, errOut := neo4jCLI(t, srv, "ingest", "--json", corpusDir); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ := neo4jCLI(t, srv, "status", "--json")
	want := decodeJSON[statusReport](t, "status", out)

	srv.Reset(t)
	host := strings.TrimPrefix(srv.URI, "bolt://")
	host = strings.TrimPrefix(host, "neo4j://")
	p := startProxy(t, host)
	t.Setenv("NEO4J_URI", "bolt://"+p.ln.Addr().String())
	cmd, stdout, stderr := childCLI(t, "TestNeo4jServerLostMidIngest", "ingest", "--json", corpusDir)
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.md"))
	var some []string
	for _, f := range files {
		some = append(some, filepath.Base(f))
	}
	deadline := time.Now().Add(2 * time.Minute)
	for countDocuments(t, srv, some) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.cut()
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailure {
		t.Fatalf("ingest with the server gone: %v, want exit 1\nstdout: %s\nstderr: %s", err, stdout, stderr)
	}
	msg := checkJSONError(t, stdout.String(), exitFailure)
	if !strings.HasPrefix(msg, "lost the connection to Neo4j") || !strings.Contains(msg, "run the same command again") {
		t.Errorf("error %q; want it to say the connection was lost and the command resumes", msg)
	}

	p.restore()
	code, out, errOut := runCLI(t, "ingest", "--json", corpusDir)
	if code != 0 {
		t.Fatalf("ingest again with the server back: exit %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ = runCLI(t, "status", "--json")
	got := decodeJSON[statusReport](t, "status", out)
	if fmt.Sprint(got.Store) != fmt.Sprint(want.Store) {
		t.Errorf("after the resumed ingest the store holds %+v; an uninterrupted ingest leaves %+v", got.Store, want.Store)
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/neo4jtest"
	"github.com/stratarag/strata/retrieval/eval"
)

// serveContext is the *cli.Context strata serve would get for args, with the environment as the
// test set it.
func serveContext(t *testing.T, args ...string) *cli.Context {
	t.Helper()
	set := flag.NewFlagSet("serve", flag.ContinueOnError)
	for _, f := range serveCommand().Flags {
		if err := f.Apply(set); err != nil {
			t.Fatal(err)
		}
	}
	if err := set.Parse(args); err != nil {
		t.Fatal(err)
	}
	c := cli.NewContext(newApp(io.Discard, io.Discard), set, nil)
	c.Context = context.Background()
	return c
}

// testServer runs strata serve's handler, offline, over the embedded store in dir (which need not
// exist yet).
func testServer(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	t.Setenv("NEO4J_URI", "")
	return testServerEnv(t, "--data-dir", dir)
}

// testServerEnv runs strata serve's handler, offline, over the store that args and the
// environment name.
func testServerEnv(t *testing.T, args ...string) *httptest.Server {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	return serveFlags(t, args...)
}

// serveFlags runs strata serve's handler with the given flags and the environment as the test
// set it, until the test ends.
func serveFlags(t *testing.T, args ...string) *httptest.Server {
	t.Helper()
	srv, _, err := serverFromCLI(serveContext(t, append([]string{"--log-format", "json", "--log-level", "error"}, args...)...))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return hs
}

// withoutTimings drops what differs between two runs of the same query.
func withoutTimings(v map[string]any) map[string]any {
	delete(v, "timings_ms")
	return v
}

// TestServeMatchesCLI: POST /query answers with exactly query --json's object in every mode and
// with every option, and GET /status with status --json's.
func TestServeMatchesCLI(t *testing.T) {
	dir := ingested(t)
	hs := testServer(t, dir)
	const question = "Under which rector did the designer of the Kestrel Point Lighthouse study?"
	for _, tc := range []struct {
		body string
		args []string
	}{
		{`{"question": "` + question + `"}`, nil},
		{`{"question": "` + question + `", "mode": "naive", "top_k": 3}`, []string{"--mode", "naive", "--top-k", "3"}},
		{`{"question": "` + question + `", "mode": "local", "entities": 4, "max_context_tokens": 3000}`, []string{"--mode", "local", "--entities", "4", "--max-context-tokens", "3000"}},
		{`{"question": "` + question + `", "mode": "global", "context_only": true}`, []string{"--mode", "global", "--context-only"}},
		{`{"question": "` + question + `", "mode": "hi_bridge", "entities": 0}`, []string{"--mode", "hi_bridge"}},
	} {
		status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", tc.body)
		if status != http.StatusOK {
			t.Fatalf("%s: status %d: %v", tc.body, status, got)
		}
		if _, ok := got["timings_ms"].(map[string]any)["retrieve"]; !ok {
			t.Errorf("%s: no timings_ms.retrieve: %v", tc.body, got["timings_ms"])
		}
		code, out, errOut := strata(t, append([]string{"query", "--data-dir", dir, "--json", question}, tc.args...)...)
		if code != 0 {
			t.Fatalf("query %v: exit %d: %s", tc.args, code, errOut)
		}
		want := oneJSONObject(t, out)
		if !reflect.DeepEqual(withoutTimings(got), withoutTimings(want)) {
			t.Errorf("%s: serve and query --json differ:\nserve: %v\nquery: %v", tc.body, got, want)
		}
	}

	status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/status", "")
	code, out, errOut := strata(t, "status", "--data-dir", dir, "--json")
	if status != http.StatusOK || code != 0 {
		t.Fatalf("status: HTTP %d, exit %d: %v %s", status, code, got, errOut)
	}
	if want := oneJSONObject(t, out); !reflect.DeepEqual(got, want) {
		t.Errorf("GET /status and status --json differ:\nserve: %v\nstatus: %v", got, want)
	}
	if status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/healthz", ""); status != http.StatusOK || got["status"] != "ok" {
		t.Errorf("healthz: %d %v", status, got)
	}
}

// TestServeStoreAppearsLater: a server started before the first ingest answers 503 with what is
// missing, then serves once an ingest has created the store, without a restart.
func TestServeStoreAppearsLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	hs := testServer(t, dir)
	for _, path := range []string{"/healthz", "/status"} {
		status, header, got := servertest.Do(t, http.MethodGet, hs.URL+path, "")
		if status != http.StatusServiceUnavailable || got["code"] != float64(503) || header.Get("Retry-After") == "" {
			t.Errorf("%s before ingest: %d %v %v", path, status, header, got)
		}
		if msg, _ := got["error"].(string); !strings.Contains(msg, "run `strata ingest` first") {
			t.Errorf("%s before ingest: error %q does not say what to do", path, msg)
		}
	}
	if status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question": "Where is Port Avel?"}`); status != http.StatusServiceUnavailable {
		t.Errorf("query before ingest: %d %v", status, got)
	}
	if code, _, errOut := strata(t, "ingest", "--data-dir", dir, corpusDir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	if status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question": "Where is Port Avel?"}`); status != http.StatusOK || len(got["context"].(map[string]any)["chunks"].([]any)) == 0 {
		t.Errorf("query after ingest: %d %v", status, got)
	}
}

// TestServeStoreReplaced: a data dir deleted and ingested again is a new database file; the
// server answers from the new one without a restart, and 503 while there is none.
func TestServeStoreReplaced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if code, _, errOut := strata(t, "ingest", "--data-dir", dir, corpusDir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	hs := testServer(t, dir)
	documents := func() any {
		t.Helper()
		status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/status", "")
		if status != http.StatusOK {
			t.Fatalf("status: %d %v", status, got)
		}
		return got["store"].(map[string]any)["nodes"].(map[string]any)["documents"]
	}
	before := documents()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/healthz", ""); status != http.StatusServiceUnavailable {
		t.Errorf("healthz with the data dir deleted: %d %v", status, got)
	}
	one := filepath.Join(corpusDir, "grey-heron.md")
	if code, _, errOut := strata(t, "ingest", "--data-dir", dir, one); code != 0 {
		t.Fatalf("ingest again: exit %d: %s", code, errOut)
	}
	if after := documents(); after != float64(1) {
		t.Errorf("documents after the store was rebuilt from one file = %v (before: %v), want 1", after, before)
	}
}

// TestServeNeo4jUnreachable: a Neo4j server that cannot be reached is a 503 that says so.
func TestServeNeo4jUnreachable(t *testing.T) {
	hs := testServerEnv(t, "--"+flagNeo4jURI, "bolt://127.0.0.1:1")
	status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question": "Where is Port Avel?"}`)
	if msg, _ := got["error"].(string); status != http.StatusServiceUnavailable || !strings.Contains(msg, "the store cannot be opened") || !strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("status %d, body %v", status, got)
	}
}

// TestNeo4jServe: strata serve over a real Neo4j server answers as query --json and status --json
// do on it, in every mode.
func TestNeo4jServe(t *testing.T) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	if code, out, errOut := neo4jCLI(t, srv, "ingest", "--offline", "--json", corpusDir); code != 0 {
		t.Fatalf("ingest into Neo4j: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	hs := testServerEnv(t) // neo4jCLI left the server's NEO4J_* variables set
	const question = "Under which rector did the designer of the Kestrel Point Lighthouse study?"
	for _, mode := range []string{"hi", "naive", "local", "global"} {
		status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question": "`+question+`", "mode": "`+mode+`"}`)
		if status != http.StatusOK {
			t.Fatalf("%s: status %d: %v", mode, status, got)
		}
		code, out, errOut := neo4jCLI(t, srv, "query", "--offline", "--json", "--mode", mode, question)
		if code != 0 {
			t.Fatalf("query --mode %s: exit %d: %s", mode, code, errOut)
		}
		if want := oneJSONObject(t, out); !reflect.DeepEqual(withoutTimings(got), withoutTimings(want)) {
			t.Errorf("%s: serve and query --json differ on Neo4j:\nserve: %v\nquery: %v", mode, got, want)
		}
	}
	status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/status", "")
	code, out, errOut := neo4jCLI(t, srv, "status", "--json")
	if status != http.StatusOK || code != 0 {
		t.Fatalf("status: HTTP %d, exit %d: %v %s", status, code, got, errOut)
	}
	if want := oneJSONObject(t, out); !reflect.DeepEqual(got, want) || got["backend"].(map[string]any)["kind"] != "neo4j" {
		t.Errorf("GET /status and status --json differ on Neo4j:\nserve: %v\nstatus: %v", got, want)
	}
}

// TestNeo4jServeWorkspaces: a workspace on a database of the Neo4j server and one on an embedded
// store, in one server, answer each from its own documents.
func TestNeo4jServeWorkspaces(t *testing.T) {
	srv := neo4jtest.Require(t)
	srv.Reset(t)
	corpora, ids := corpusHalves(t)
	if code, out, errOut := neo4jCLI(t, srv, "ingest", "--offline", "--json", corpora[0]); code != 0 {
		t.Fatalf("ingest into Neo4j: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	dir := t.TempDir()
	if code, out, errOut := neo4jCLI(t, srv, "ingest", "--offline", "--neo4j-uri", "", "--data-dir", dir, corpora[1]); code != 0 {
		t.Fatalf("ingest into the embedded store: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	db := srv.Database
	if db == "" {
		db = "neo4j" // the server's default database
	}
	keysFile := filepath.Join(t.TempDir(), "keys")
	keys := [2]string{"graph-key-0123456789abcdef", "files-key-0123456789abcdef"}
	if err := os.WriteFile(keysFile, []byte(keys[0]+" graph\n"+keys[1]+" files\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// neo4jCLI left the server's NEO4J_* variables set: the neo4j: workspace is on that server.
	hs := testServerEnv(t, "--api-keys", keysFile, "--workspace", "graph=neo4j:"+db, "--workspace", "files="+dir)
	checkApart(t, hs.URL, [2]string{"graph", "files"}, keys, ids, []string{"naive", "local", "hi"})
	status, _, got := servertest.DoKey(t, http.MethodGet, hs.URL+"/w/graph/status", "", keys[0])
	if status != http.StatusOK || got["backend"].(map[string]any)["kind"] != "neo4j" {
		t.Errorf("GET /w/graph/status: %d %v", status, got)
	}
}

// TestServeDuringIngest: queries sent while an ingest writes into the served store all succeed
// (reads see the last committed state through WAL), concurrently, and once the ingest has
// committed, the next query finds the new document without a restart.
func TestServeDuringIngest(t *testing.T) {
	dir := ingested(t)
	hs := testServer(t, dir)
	const question = `{"question": "Who keeps the Vellmoor Observatory ledger?", "mode": "%s"}`
	docs := func(mode string) []string {
		status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", strings.Replace(question, "%s", mode, 1))
		if status != http.StatusOK {
			t.Errorf("%s: status %d: %v", mode, status, got)
			return nil
		}
		var ids []string
		for _, c := range got["context"].(map[string]any)["chunks"].([]any) {
			ids = append(ids, c.(map[string]any)["document_id"].(string))
		}
		return ids
	}
	for _, mode := range []string{"naive", "hi"} {
		if ids := docs(mode); slices.Contains(ids, "vellmoor.md") {
			t.Fatalf("%s: the new document is found before it was ingested: %v", mode, ids)
		}
	}

	extra := t.TempDir()
	var text strings.Builder
	for i := 0; i < 40; i++ {
		text.WriteString("The Vellmoor Observatory ledger is kept by Orrin Thale, keeper of the Vellmoor Observatory. ")
	}
	if err := os.WriteFile(filepath.Join(extra, "vellmoor.md"), []byte("# Vellmoor Observatory\n\n"+text.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	done := make(chan string, 1)
	go func() {
		code, _, errOut := runCLI(t, "ingest", "--data-dir", dir, extra)
		if code != 0 {
			done <- errOut
		}
		close(done)
	}()
	var wg sync.WaitGroup
	var served atomic.Int64
	stop := make(chan struct{})
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Post(hs.URL+"/query", "application/json", strings.NewReader(`{"question": "Where is Port Avel?", "mode": "hi"}`))
				if err != nil {
					t.Error(err)
					return
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("query during ingest: %d %s", resp.StatusCode, body)
					return
				}
				served.Add(1)
			}
		}()
	}
	if errOut, failed := <-done; failed {
		t.Fatalf("ingest beside the server failed: %s", errOut)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d queries answered during the ingest", served.Load())
	for _, mode := range []string{"naive", "hi"} {
		if ids := docs(mode); !slices.Contains(ids, "vellmoor.md") || (mode == "naive" && ids[0] != "vellmoor.md") {
			t.Errorf("%s after ingest: documents %v, want vellmoor.md among them (first in naive)", mode, ids)
		}
	}
}

// TestServeProcess runs strata serve as a real process (main's code path, signal handling
// included) with an LLM behind it: it answers, counts LLM usage per request, lets a request in
// flight finish after SIGTERM and exits 0.
func TestServeProcess(t *testing.T) {
	if args := os.Getenv("STRATA_TEST_MAIN_ARGS"); args != "" {
		ctx, stop := notifyInterrupt(context.Background())
		code := run(ctx, append([]string{"strata"}, strings.Split(args, "\x1f")...), os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	fake, err := fakeopenai.New(fakeopenai.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	// Once armed, the first chat call is held until the test lets it go: its query is then in
	// flight when the signal comes, and finishes only once the server is shutting down.
	var armed atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	var holdOnce sync.Once
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if armed.Load() && strings.HasSuffix(r.URL.Path, "/chat/completions") {
			holdOnce.Do(func() { close(held) })
			<-release
		}
		fake.ServeHTTP(w, r)
	}))
	defer api.Close()
	releaseHeld := sync.OnceFunc(func() { close(release) })
	defer releaseHeld() // before api.Close, which waits for the held call
	t.Setenv("OPENAI_BASE_URL", api.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
	t.Setenv("NEO4J_URI", "")
	t.Setenv("STRATA_OFFLINE", "")
	dir := t.TempDir()
	if code, _, errOut := runCLI(t, "ingest", "--data-dir", dir, corpusDir); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}

	args := []string{"serve", "--data-dir", dir, "--addr", "127.0.0.1:0", "--log-format", "json"}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeProcess$")
	cmd.Env = append(os.Environ(), "STRATA_TEST_MAIN_ARGS="+strings.Join(args, "\x1f"))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// The address comes from the "serving" log line; the rest of the log is kept for checks.
	lines := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line map[string]any
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				lines <- line
			}
		}
		close(lines)
	}()
	var url string
	var logged []map[string]any
	for url == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("serve exited before serving: %v", logged)
			}
			logged = append(logged, line)
			if line["message"] == "serving" {
				url = line["url"].(string)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no \"serving\" log line in 30 s")
		}
	}

	for _, q := range []string{"Who founded the Saltmere Cartographers' Guild?", "What ended the Salt Tariff Dispute?"} {
		status, _, got := servertest.Do(t, http.MethodPost, url+"/query", `{"question": "`+q+`", "mode": "naive"}`)
		if status != http.StatusOK || got["answer"] == nil {
			t.Fatalf("%s: %d %v", q, status, got)
		}
		// Per request: a total since start would say 2 for the second question.
		if u := got["usage"].(map[string]any); u["llm_calls"] != float64(1) {
			t.Errorf("%s: usage %v, want the one answer call of this request", q, u)
		}
	}

	armed.Store(true)
	inFlight := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/query", "application/json", strings.NewReader(`{"question": "Who designed the Kestrel Point Lighthouse?"}`))
		if err != nil {
			t.Errorf("request in flight at SIGTERM: %v", err)
			inFlight <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		inFlight <- resp.StatusCode
	}()
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatal("the query sent before SIGTERM made no chat call in 30 s")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for shuttingDown := false; !shuttingDown; {
		line, ok := <-lines
		if !ok {
			t.Fatalf("serve exited before shutting down: %v", logged)
		}
		logged = append(logged, line)
		shuttingDown = line["message"] == "shutting down: waiting for requests in flight"
	}
	releaseHeld()
	if status := <-inFlight; status != http.StatusOK {
		t.Errorf("request in flight at SIGTERM: status %d, want 200", status)
	}
	for line := range lines {
		logged = append(logged, line)
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil {
		t.Fatalf("serve after SIGTERM: %v, want exit 0\nlog: %v", err, logged)
	}
	if stdout.Len() != 0 {
		t.Errorf("serve wrote on stdout: %q", stdout.String())
	}
	var requests int
	for _, line := range logged {
		if line["message"] != "request" {
			continue
		}
		requests++
		for _, k := range []string{"method", "path", "status", "duration_ms"} {
			if _, ok := line[k]; !ok {
				t.Errorf("request log line without %s: %v", k, line)
			}
		}
		for k, v := range line {
			if s, ok := v.(string); ok && (strings.Contains(s, "Salt") || strings.Contains(s, "sk-test")) {
				t.Errorf("request log line holds the question or the API key in %s: %v", k, line)
			}
		}
	}
	if requests != 3 || logged[len(logged)-1]["message"] != "stopped" {
		t.Errorf("%d request lines (want 3), last line %v", requests, logged[len(logged)-1])
	}
}

// TestServeFlagBounds: serve's numeric flags outside their bounds are bad usage (exit 2) naming
// the flag, before anything listens; the bounds themselves are accepted.
func TestServeFlagBounds(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		msg  string // "" for flags that are accepted
	}{
		{[]string{"--max-conns", "0"}, "--max-conns must be between 1 and 65536, got 0"},
		{[]string{"--max-conns", "65537"}, "--max-conns must be between 1 and 65536, got 65537"},
		{[]string{"--max-conns", "-9223372036854775808"}, "--max-conns must be between 1 and 65536"},
		{[]string{"--idle-timeout", "0s"}, "--idle-timeout must be above 0 and at most 10m0s, got 0s"},
		{[]string{"--idle-timeout", "10m1s"}, "--idle-timeout must be above 0 and at most 10m0s, got 10m1s"},
		{[]string{"--idle-timeout", "-1s"}, "--idle-timeout must be above 0"},
		{[]string{"--request-timeout", "0s"}, "--request-timeout must be above 0 and at most 1h0m0s, got 0s"},
		{[]string{"--request-timeout", "1h0m1s"}, "--request-timeout must be above 0 and at most 1h0m0s"},
		{[]string{"--max-inflight", "0"}, "--max-inflight must be between 1 and 10000, got 0"},
		{[]string{"--max-inflight", "10001"}, "--max-inflight must be between 1 and 10000, got 10001"},
		{[]string{"--rate", "-1"}, "--rate must be between 0 (no limit) and 1e+06, got -1"},
		{[]string{"--rate", "1e300"}, "--rate must be between 0 (no limit) and 1e+06"},
		{[]string{"--rate", "NaN"}, "--rate must be between 0 (no limit) and 1e+06, got NaN"},
		{[]string{"--max-conns", "1", "--idle-timeout", "1ns", "--request-timeout", "1ns", "--max-inflight", "1", "--rate", "0"}, ""},
		{[]string{"--max-conns", "65536", "--idle-timeout", "10m", "--request-timeout", "1h", "--max-inflight", "10000", "--rate", "1e6"}, ""},
	} {
		args := append([]string{"--data-dir", dir, "--log-level", "error"}, tc.args...)
		srv, _, err := serverFromCLI(serveContext(t, args...))
		if srv != nil {
			srv.Close()
		}
		var usage usageError
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.msg != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), tc.msg)):
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.msg)
		}
	}
}

// TestServeKeysAndAddress: a keys file that cannot be used stops serve at start (exit 2) with
// the reason and line; a non-loopback address without keys is refused unless --insecure.
func TestServeKeysAndAddress(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("keys", "# team\nserve-test-key-0123456789 *\n", 0o600)
	malformed := write("malformed", "# team\nserve-test-key-0123456789 *\nserve-test-key-abcdefghij\n", 0o600)
	open := write("open", "serve-test-key-0123456789 *\n", 0o646)
	store := filepath.Join(dir, "store")
	// An ended context: a serve that gets past its checks stops at once, exit 0.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	t.Setenv("NEO4J_URI", "")
	for _, tc := range []struct {
		env  string // STRATA_API_KEYS_FILE
		args []string
		code int
		msg  string
	}{
		{"", []string{"--api-keys", malformed}, 2, "--api-keys: keys file " + malformed + ": line 3: a key without workspaces"},
		{malformed, nil, 2, "line 3: a key without workspaces"},
		{"", []string{"--api-keys", open}, 2, "writable by every user"},
		{"", []string{"--api-keys", filepath.Join(dir, "missing")}, 2, "no such file"},
		{"", []string{"--addr", "0.0.0.0:0"}, 2, "--addr 0.0.0.0:0 is reachable from other machines and no --api-keys are set"},
		{"", []string{"--addr", "[::]:0"}, 2, "is reachable from other machines"},
		{"", []string{"--addr", "0.0.0.0:0", "--insecure"}, 0, ""},
		{"", []string{"--addr", "0.0.0.0:0", "--api-keys", good}, 0, ""},
		{good, []string{"--addr", "0.0.0.0:0"}, 0, ""},
		{"", []string{"--addr", "127.0.0.1:0"}, 0, ""},
	} {
		t.Setenv("STRATA_API_KEYS_FILE", tc.env)
		var stdout, stderr lockedBuffer
		args := append([]string{"strata", "serve", "--data-dir", store, "--log-level", "error"}, tc.args...)
		code := run(ended, args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("env %q, %v: exit %d, stderr %q; want %d and %q", tc.env, tc.args, code, stderr.String(), tc.code, tc.msg)
		}
		if strings.Contains(stderr.String(), "serve-test-key-") {
			t.Errorf("%v: stderr holds a key: %s", tc.args, stderr.String())
		}
	}
}

// corpusHalves copies the test corpus's files into two directories, about half each, and returns
// them with the document ids each holds (a file's name; a JSON Lines file's records' ids).
func corpusHalves(t *testing.T) (dirs [2]string, ids [2]map[string]bool) {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range dirs {
		dirs[i], ids[i] = t.TempDir(), map[string]bool{}
	}
	for n, e := range entries {
		half := n * 2 / len(entries)
		data, err := os.ReadFile(filepath.Join(corpusDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[half], e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(e.Name(), ".jsonl") {
			ids[half][e.Name()] = true
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var rec struct{ ID string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.ID == "" {
				t.Fatalf("%s: %q: %v", e.Name(), line, err)
			}
			ids[half][rec.ID] = true
		}
	}
	return dirs, ids
}

// TestServeWorkspaces: two workspaces over stores of different documents, one server: every
// question, in every mode, asked of either workspace is answered from its documents only (no
// other document is named anywhere in the answer), each key reaches only its workspaces, and
// /query without a workspace named default is a 404 that says where to ask.
func TestServeWorkspaces(t *testing.T) {
	corpora, ids := corpusHalves(t)
	names := [2]string{"north", "south"}
	stores := [2]string{}
	for i, corpus := range corpora {
		stores[i] = t.TempDir()
		if code, out, errOut := strata(t, "ingest", "--data-dir", stores[i], corpus); code != 0 {
			t.Fatalf("ingest %s: exit %d: %s%s", names[i], code, out, errOut)
		}
	}
	keysFile := filepath.Join(t.TempDir(), "keys")
	keys := [2]string{"north-key-0123456789abcdef", "south-key-0123456789abcdef"}
	if err := os.WriteFile(keysFile, []byte(keys[0]+" north\n"+keys[1]+" south\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs := testServerEnv(t, "--api-keys", keysFile, "--workspace", "north="+stores[0], "--workspace", "south="+stores[1])

	checkApart(t, hs.URL, names, keys, ids, []string{"naive", "local", "global", "hi", "lca", "ppr"})

	for _, tc := range []struct {
		method, path, key string
		status            int
		msg               string
	}{
		{"GET", "/w/north/status", keys[0], 200, ""},
		{"GET", "/w/south/status", keys[0], 403, `not granted the workspace "south"`},
		{"POST", "/w/north/query", keys[1], 403, `not granted the workspace "north"`},
		{"GET", "/w/east/status", keys[0], 403, `not granted the workspace "east"`},
		{"POST", "/query", keys[0], 403, `not granted the workspace "default"`},
		{"GET", "/w/south/query", keys[1], 405, "method not allowed"},
		{"GET", "/w/south/statuses", keys[1], 404, "no such endpoint"},
	} {
		status, _, got := servertest.DoKey(t, tc.method, hs.URL+tc.path, `{"question": "x"}`, tc.key)
		if msg, _ := got["error"].(string); status != tc.status || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s %s: %d %v; want %d saying %q", tc.method, tc.path, status, got, tc.status, tc.msg)
		}
	}
}

// checkApart asks every test question in every mode of both workspaces of the server at url
// (names, with their keys) and fails t when an answer draws on, or names, a document of the
// other workspace (ids: each workspace's documents), or when the answers draw on too few of a
// workspace's documents for the check to mean much.
func checkApart(t *testing.T, url string, names, keys [2]string, ids [2]map[string]bool, modes []string) {
	t.Helper()
	qs, err := eval.ReadQuestions(questionFile)
	if err != nil {
		t.Fatal(err)
	}
	var questions []string
	for _, q := range qs {
		questions = append(questions, q.Question)
	}
	seen := [2]map[string]bool{{}, {}}
	for _, mode := range modes {
		for _, q := range questions {
			for i, name := range names {
				body := fmt.Sprintf(`{"question": %q, "mode": %q, "context_only": true, "top_k": 20}`, q, mode)
				status, _, got := servertest.DoKey(t, http.MethodPost, url+"/w/"+name+"/query", body, keys[i])
				if status != http.StatusOK {
					t.Fatalf("%s %s %q: %d %v", name, mode, q, status, got)
				}
				raw, _ := json.Marshal(got)
				for _, c := range got["context"].(map[string]any)["chunks"].([]any) {
					doc := c.(map[string]any)["document_id"].(string)
					if !ids[i][doc] {
						t.Errorf("%s %s %q: a chunk of %s, not one of the workspace's documents", name, mode, q, doc)
					}
					seen[i][doc] = true
				}
				for other := range ids[1-i] {
					if strings.Contains(string(raw), "doc:"+other) || strings.Contains(string(raw), `"document_id":"`+other+`"`) {
						t.Errorf("%s %s %q: the answer names %s, a document of %s", name, mode, q, other, names[1-i])
					}
				}
			}
		}
	}
	for i, name := range names {
		if len(seen[i]) < len(ids[i])/2 {
			t.Errorf("%s: answers drew on %d of its %d documents; the check above saw too little", name, len(seen[i]), len(ids[i]))
		}
	}

}

// TestServeWorkspacesWithoutDefault: a server of named workspaces only answers /query with a
// 404 that says where to ask, and a workspace it does not have with a 404 naming it.
func TestServeWorkspacesWithoutDefault(t *testing.T) {
	dir := ingested(t)
	hs := testServerEnv(t, "--workspace", "only="+dir)
	for _, tc := range []struct {
		method, path string
		status       int
		msg          string
	}{
		{"POST", "/query", 404, `this server has no workspace "default": ask /w/NAME/query`},
		{"GET", "/w/default/status", 404, `this server has no workspace "default": ask /w/NAME/status`},
		{"GET", "/w/other/status", 404, `no workspace "other"`},
		{"GET", "/w/only/status", 200, ""},
		{"POST", "/w/only/query", 200, ""},
		{"GET", "/healthz", 200, ""},
	} {
		status, _, got := servertest.Do(t, tc.method, hs.URL+tc.path, `{"question": "Who founded the guild?"}`)
		if msg, _ := got["error"].(string); status != tc.status || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s %s: %d %v; want %d saying %q", tc.method, tc.path, status, got, tc.status, tc.msg)
		}
	}
}

// TestServeWorkspaceErrors: a --workspace that cannot be served stops serve at start (exit 2),
// naming the workspace and what is wrong.
func TestServeWorkspaceErrors(t *testing.T) {
	store := ingested(t)
	empty := t.TempDir()
	t.Setenv("NEO4J_URI", "")
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--workspace", "a=" + store, "--workspace", "a=" + empty}, 2, "workspace a given twice (" + store + " and " + empty + ")"},
		{[]string{"--workspace", "a=" + empty}, 2, "--workspace a=" + empty + ": no store there"},
		{[]string{"--workspace", "a=" + filepath.Join(empty, "missing")}, 2, "no store there"},
		{[]string{"--workspace", "a b=" + store}, 2, `workspace name "a b"`},
		{[]string{"--workspace", "=" + store}, 2, `workspace name ""`},
		{[]string{"--workspace", store}, 2, "want NAME=PATH"},
		{[]string{"--workspace", "a="}, 2, "want NAME=PATH"},
		{[]string{"--workspace", "a=neo4j:"}, 2, "want neo4j:DATABASE"},
		{[]string{"--workspace", "a=neo4j:other"}, 2, "--workspace a=neo4j:other: no Neo4j server is configured"},
		{[]string{"--workspace", "a=" + store, "--data-dir", store}, 2, "--data-dir and --workspace do not go together"},
	} {
		var stdout, stderr lockedBuffer
		code := run(ended, append([]string{"strata", "serve", "--log-level", "error"}, tc.args...), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
	// Stores that are there: opened at start, then served until the context ends.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stderr := &cancelOn{text: `"message":"serving"`, cancel: stop}
	args := []string{"strata", "serve", "--log-format", "json", "--addr", "127.0.0.1:0", "--workspace", "a=" + store, "--workspace", "default=" + store}
	if code := run(ctx, args, io.Discard, stderr); code != 0 || !strings.Contains(stderr.String(), `"workspace":"default"`) {
		t.Errorf("%v: exit %d, stderr %s", args, code, stderr.String())
	}
}

// cancelOn is a log writer that calls cancel once what is written holds text.
type cancelOn struct {
	lockedBuffer
	text   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	n, err := c.lockedBuffer.Write(p)
	if strings.Contains(c.lockedBuffer.String(), c.text) {
		c.cancel()
	}
	return n, err
}

// TestServeClientGoneCancelsModelCall: a client that hangs up while the model writes its answer
// ends the model call too (the request to the model's API is cancelled), not only the query.
func TestServeClientGoneCancelsModelCall(t *testing.T) {
	dir := ingested(t)
	fake, err := fakeopenai.New(fakeopenai.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	held, cancelled, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			fake.ServeHTTP(w, r)
			return
		}
		// The server notices a closed connection only once the body is read, as a model
		// server does before it answers.
		io.Copy(io.Discard, r.Body)
		once.Do(func() {
			close(held)
			select {
			case <-r.Context().Done(): // strata's request to the model was given up
				close(cancelled)
			case <-ended:
			}
		})
	}))
	defer api.Close()
	defer close(ended) // before api.Close, which waits for the held call
	t.Setenv("OPENAI_BASE_URL", api.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
	t.Setenv("NEO4J_URI", "")
	t.Setenv("STRATA_OFFLINE", "")
	hs := serveFlags(t, "--data-dir", dir)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/query", strings.NewReader(`{"question": "Who founded the guild?"}`))
		if err == nil {
			var resp *http.Response
			if resp, err = http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		done <- err
	}()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("the query ended before its model call: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("no model call in 60 s")
	}
	cancel()
	select {
	case <-cancelled:
	case <-time.After(60 * time.Second):
		t.Fatal("the model call was still open 60 s after the client went away")
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v, want cancelled", err)
	}
}

// TestServeMetricsCountModelUse: /metrics counts the model calls and tokens of queries, as
// their answers' usage reports them, per workspace.
func TestServeMetricsCountModelUse(t *testing.T) {
	dir := ingested(t)
	fake, err := fakeopenai.New(fakeopenai.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	api := httptest.NewServer(fake)
	defer api.Close()
	t.Setenv("OPENAI_BASE_URL", api.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
	t.Setenv("NEO4J_URI", "")
	t.Setenv("STRATA_OFFLINE", "")
	keysFile := filepath.Join(t.TempDir(), "keys")
	const key = "metrics-key-0123456789abcdef"
	if err := os.WriteFile(keysFile, []byte(key+" *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs := serveFlags(t, "--api-keys", keysFile, "--workspace", "docs="+dir, "--no-cache")
	var calls, prompt, completion float64
	for _, q := range []string{"Who founded the guild?", "Where is Port Avel?"} {
		status, _, got := servertest.DoKey(t, http.MethodPost, hs.URL+"/w/docs/query", `{"question": "`+q+`", "mode": "naive"}`, key)
		if status != http.StatusOK {
			t.Fatalf("query: %d %v", status, got)
		}
		u := got["usage"].(map[string]any)
		calls += u["llm_calls"].(float64)
		prompt += u["prompt_tokens"].(float64)
		completion += u["completion_tokens"].(float64)
	}
	if calls < 2 || prompt == 0 || completion == 0 {
		t.Fatalf("usage of two answered queries: %v calls, %v + %v tokens", calls, prompt, completion)
	}
	m := servertest.Metrics(t, hs.URL+"/metrics", key)
	for series, want := range map[string]float64{
		`strata_llm_calls_total{workspace="docs"}`:                                           calls,
		`strata_llm_tokens_total{kind="prompt",workspace="docs"}`:                            prompt,
		`strata_llm_tokens_total{kind="completion",workspace="docs"}`:                        completion,
		`strata_requests_total{endpoint="query",mode="naive",status="200",workspace="docs"}`: 2,
	} {
		if m[series] != want {
			t.Errorf("%s = %v, want %v", series, m[series], want)
		}
	}
}

// TestServeHealthcheck: serve --healthcheck exits 0 when the server at --addr answers /healthz
// with 200 (asked on loopback for an unspecified host, as in a container), 1 otherwise.
func TestServeHealthcheck(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer ok.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error": "the store cannot be opened", "code": 503}`, http.StatusServiceUnavailable)
	}))
	defer down.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	port := func(s *httptest.Server) string { return s.URL[strings.LastIndexByte(s.URL, ':')+1:] }
	for _, tc := range []struct {
		addr string
		code int
		msg  string
	}{
		{"0.0.0.0:" + port(ok), 0, ""},
		{":" + port(ok), 0, ""},
		{"127.0.0.1:" + port(ok), 0, ""},
		{"0.0.0.0:" + port(down), 1, "503 Service Unavailable: {\"error\": \"the store cannot be opened\""},
		{"127.0.0.1:" + port(gone), 1, "connection refused"},
		{"no-port", 2, "--addr no-port"},
	} {
		code, _, errOut := strata(t, "serve", "--healthcheck", "--addr", tc.addr)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("--addr %s: exit %d, stderr %q; want %d and %q", tc.addr, code, errOut, tc.code, tc.msg)
		}
	}
}

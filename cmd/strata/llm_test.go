package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// fakeAPI starts a fake OpenAI-compatible server and points the CLI at it.
func fakeAPI(t *testing.T, opts fakeopenai.Options) *fakeopenai.Server {
	t.Helper()
	fake, err := fakeopenai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	serveAPI(t, fake)
	return fake
}

// fakeAPILogged is fakeAPI with every request body counted.
func fakeAPILogged(t *testing.T, opts fakeopenai.Options) *requestLog {
	t.Helper()
	fake, err := fakeopenai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := &requestLog{bodies: map[string]int{}}
	serveAPI(t, reqs.wrap(fake))
	return reqs
}

// serveAPI serves h as the CLI's OpenAI-compatible API for the rest of the test, with the store
// embedded and offline mode off.
func serveAPI(t *testing.T, h http.Handler) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
	t.Setenv("STRATA_EMBEDDING_BASE_URL", "")
	t.Setenv("NEO4J_URI", "")
	t.Setenv("STRATA_OFFLINE", "")
}

type graphDump struct {
	Stats     graph.Stats
	Entities  []graph.Entity
	Relations []graph.Relation
}

// openReadOnly opens the embedded store in dir for reading until the test ends.
func openReadOnly(t *testing.T, dir string) *embedded.Store {
	t.Helper()
	s, err := embedded.Open(context.Background(), dir, embedded.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func dumpGraph(t *testing.T, dir string) graphDump {
	t.Helper()
	ctx := context.Background()
	s := openReadOnly(t, dir)
	var err error
	var d graphDump
	if d.Stats, err = s.Stats(ctx); err != nil {
		t.Fatal(err)
	}
	if d.Entities, err = s.EntitiesByLayer(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var keys []graph.RelationKey
	for i := range d.Entities {
		for j := i + 1; j < len(d.Entities); j++ {
			keys = append(keys, graph.NewRelationKey(d.Entities[i].ID, d.Entities[j].ID))
		}
	}
	if d.Relations, err = s.Relations(ctx, keys); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLLMPathEndToEnd ingests testdata through the LLM path against the fake server: with injected
// 429s and 500s the graph equals a fault-free run's, a re-run makes no call, a dry run of the
// same input sees every call cached, and a query returns a generated answer with its usage.
func TestLLMPathEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several ingests")
	}
	clean := fakeAPI(t, fakeopenai.Options{Seed: 1})
	cleanDir := t.TempDir()
	if code, out, errOut := runCLI(t, "ingest", "--data-dir", cleanDir, "--json", corpusDir); code != 0 {
		t.Fatalf("fault-free ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	if clean.Counts().Requests == 0 {
		t.Fatal("the LLM path made no requests")
	}
	want := dumpGraph(t, cleanDir)
	if want.Stats.Nodes["Entity"] == 0 || want.Stats.Relationships["RELATED"] == 0 || want.Stats.Nodes["Community"] == 0 {
		t.Fatalf("LLM ingest built an empty graph: %+v", want.Stats)
	}

	faulty := fakeAPI(t, fakeopenai.Options{Seed: 2, RateLimitRate: 0.2, ServerErrorRate: 0.1})
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--json", corpusDir)
	if code != 0 {
		t.Fatalf("ingest with faults: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		Failed int
		Chunks int
		Usage  struct {
			LLMCalls         int `json:"llm_calls"`
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
		LLM struct {
			Total struct {
				Retries int `json:"retries"`
			}
		}
		PerCorpusToken map[string]float64 `json:"llm_tokens_per_corpus_token"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Failed != 0 || rep.Usage.LLMCalls == 0 {
		t.Errorf("report with faults: %s", out)
	}
	// The cost of the index per corpus token, per stage and in all: the chat tokens over the
	// tokens of the chunks written (testdata: 4 738).
	sum := 0.0
	for stage, v := range rep.PerCorpusToken {
		if stage != "total" {
			sum += v
		}
	}
	wantTotal := float64(rep.Usage.PromptTokens+rep.Usage.CompletionTokens) / 4738
	if tot := rep.PerCorpusToken["total"]; rep.PerCorpusToken["extract"] == 0 || math.Abs(tot-sum) > 1e-9 || math.Abs(tot-wantTotal) > 1e-9 {
		t.Errorf("llm_tokens_per_corpus_token %v, want a total of %v", rep.PerCorpusToken, wantTotal)
	}
	if faulty.Counts().Requests <= clean.Counts().Requests {
		t.Errorf("no faults were injected: %d requests vs %d fault-free", faulty.Counts().Requests, clean.Counts().Requests)
	}
	got := dumpGraph(t, dir)
	if !reflect.DeepEqual(got.Stats, want.Stats) || !reflect.DeepEqual(got.Relations, want.Relations) || len(got.Entities) != len(want.Entities) {
		t.Errorf("graph with 30%% faults differs from the fault-free graph: %+v vs %+v", got.Stats, want.Stats)
	}
	for i := range got.Entities {
		if g, w := got.Entities[i], want.Entities[i]; g.ID != w.ID || g.Description != w.Description || g.Type != w.Type {
			t.Errorf("entity %d differs: %+v vs %+v", i, g.ID, w.ID)
		}
	}

	before := faulty.Counts().Requests
	if code, _, errOut := runCLI(t, "ingest", "--data-dir", dir, corpusDir); code != 0 {
		t.Fatalf("re-run: %s", errOut)
	}
	// Only the embedding-dimension probe may reach the server, and it is cached too.
	if after := faulty.Counts().Requests; after != before {
		t.Errorf("re-run made %d requests, want 0", after-before)
	}

	code, out, _ = runCLI(t, "ingest", "--data-dir", dir, "--dry-run", "--json", corpusDir)
	var dry struct {
		Chunks, Documents, Unchanged int
		Estimate                     struct {
			Stages map[string]struct {
				Calls       int `json:"calls"`
				CachedCalls int `json:"cached_calls"`
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &dry) != nil {
		t.Fatalf("dry run: exit %d: %s", code, out)
	}
	// Against the store every document is unchanged: nothing to extract, no structure call.
	// (TestDryRunWritesNothing checks that a dry run without the store finds cached calls.)
	for stage, st := range dry.Estimate.Stages {
		if st.Calls+st.CachedCalls != 0 {
			t.Errorf("dry run after ingest: %s %+v, want no call", stage, st)
		}
	}
	if dry.Chunks != 17 || dry.Unchanged != dry.Documents {
		t.Errorf("dry run after ingest: %d chunks, %d of %d documents unchanged; want 17, all", dry.Chunks, dry.Unchanged, dry.Documents)
	}

	code, out, errOut = runCLI(t, "query", "--data-dir", dir, "--json", "Who founded the Saltmere Cartographers' Guild?")
	if code != 0 {
		t.Fatalf("query: exit %d: %s", code, errOut)
	}
	var res struct {
		Answer *string
		Usage  struct {
			LLMCalls     int `json:"llm_calls"`
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Answer == nil || *res.Answer == "" || res.Usage.LLMCalls != 1 || res.Usage.PromptTokens == 0 {
		t.Errorf("query answer %v usage %+v", res.Answer, res.Usage)
	}
	code, out, _ = runCLI(t, "query", "--data-dir", dir, "--json", "--context-only", "Who founded the guild?")
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Answer != nil {
		t.Errorf("--context-only: exit %d answer %v", code, res.Answer)
	}
}

func TestDryRunOffline(t *testing.T) {
	code, out, _ := strata(t, "ingest", "--dry-run", "--data-dir", filepath.Join(t.TempDir(), "never-created"), corpusDir)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if want := "Offline: ingesting makes no LLM calls."; !contains(out, want) || !contains(out, "17 documents, 17 chunks") {
		t.Errorf("output:\n%s", out)
	}
}

// requestLog records a hash of every chat request body that reaches the fake server.
type requestLog struct {
	mu      sync.Mutex
	bodies  map[string]int
	total   int
	waiters []countWaiter
}

// countWaiter is a channel closed once the log holds n requests.
type countWaiter struct {
	n  int
	ch chan struct{}
}

// reached returns a channel closed once n chat requests have reached the server.
func (l *requestLog) reached(n int) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{})
	if l.total >= n {
		close(ch)
	} else {
		l.waiters = append(l.waiters, countWaiter{n, ch})
	}
	return ch
}

func (l *requestLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			body, _ := io.ReadAll(r.Body)
			sum := sha256.Sum256(body)
			l.mu.Lock()
			l.bodies[hex.EncodeToString(sum[:])]++
			l.total++
			l.waiters = slices.DeleteFunc(l.waiters, func(w countWaiter) bool {
				if l.total >= w.n {
					close(w.ch)
				}
				return l.total >= w.n
			})
			l.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

func (l *requestLog) repeats() (total, repeated int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.bodies {
		repeated += n - 1
	}
	return l.total, repeated
}

// TestLLMIngestKilledAndResumed kills an LLM ingest (a child process) mid-run and resumes it: the
// resumed run repeats no chat call except those in flight at the kill, and builds the same
// graph as an uninterrupted run.
func TestLLMIngestKilledAndResumed(t *testing.T) {
	if args := os.Getenv("STRATA_TEST_CHILD_ARGS"); args != "" {
		os.Exit(run(context.Background(), append([]string{"strata"}, strings.Split(args, "\x1f")...), io.Discard, io.Discard))
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	const concurrency = 2
	reqs := fakeAPILogged(t, fakeopenai.Options{Seed: 3, Latency: 40 * time.Millisecond})

	dir := t.TempDir()
	args := []string{"ingest", "--data-dir", dir, "--concurrency", "1", "--llm-concurrency", fmt.Sprint(concurrency), corpusDir}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLLMIngestKilledAndResumed$")
	cmd.Env = append(os.Environ(), "STRATA_TEST_CHILD_ARGS="+strings.Join(args, "\x1f"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reqs.reached(6):
	case <-time.After(30 * time.Second):
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	killedAt, _ := reqs.repeats()
	if killedAt < 6 {
		t.Fatalf("the child made only %d chat requests before the deadline", killedAt)
	}

	// The killed run shows in status until the resumed one finishes.
	_, out, _ := runCLI(t, "status", "--data-dir", dir, "--json")
	if st := decodeJSON[statusState](t, "status", out); !st.Ingest.Unfinished || st.Ingest.Complete || len(st.Warnings) == 0 {
		t.Errorf("status after a kill: %s", out)
	}
	if code, out, errOut := runCLI(t, args...); code != 0 {
		t.Fatalf("resumed ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ = runCLI(t, "status", "--data-dir", dir, "--json")
	if st := decodeJSON[statusState](t, "status", out); !st.Ingest.Complete || len(st.Warnings) != 0 {
		t.Errorf("status after the resumed run: %s", out)
	}
	total, repeated := reqs.repeats()
	t.Logf("chat requests: %d before the kill, %d in all, %d repeated", killedAt, total, repeated)
	if repeated > concurrency {
		t.Errorf("%d chat requests were made twice; at most the %d in flight at the kill may repeat", repeated, concurrency)
	}
	if total <= killedAt {
		t.Error("the resumed run made no calls: the kill came too late to test anything")
	}

	fakeAPI(t, fakeopenai.Options{Seed: 3})
	cleanDir := t.TempDir()
	if code, _, errOut := runCLI(t, "ingest", "--data-dir", cleanDir, corpusDir); code != 0 {
		t.Fatalf("clean ingest: %s", errOut)
	}
	if got, want := dumpGraph(t, dir), dumpGraph(t, cleanDir); !reflect.DeepEqual(got.Stats, want.Stats) || !reflect.DeepEqual(got.Relations, want.Relations) {
		t.Errorf("resumed graph differs from an uninterrupted run: %+v vs %+v", got.Stats, want.Stats)
	}
}

// TestQueryUsesStoredEmbedder: a store built offline answers once a chat endpoint is set, its
// questions embedded with the hashing embedder it was built with (make demo, then
// OPENAI_BASE_URL); an embedding model named explicitly is refused, with the flag named, before
// any request.
func TestQueryUsesStoredEmbedder(t *testing.T) {
	dir := ingested(t) // offline
	fake := fakeAPI(t, fakeopenai.Options{Seed: 4})
	code, out, errOut := runCLI(t, "query", "--data-dir", dir, "--json", "Who founded the guild?")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var q struct{ Answer *string }
	if err := json.Unmarshal([]byte(out), &q); err != nil || q.Answer == nil || *q.Answer == "" {
		t.Errorf("no answer: %s (%v)", out, err)
	}
	if n := fake.Counts(); n.Chat != 1 || n.Embeddings != 0 {
		t.Errorf("%d chat and %d embedding requests; want the answer's one and none", n.Chat, n.Embeddings)
	}
	before := fake.Counts().Requests
	code, _, errOut = runCLI(t, "query", "--data-dir", dir, "--embedding-model", "text-embedding-3-small", "Who founded the guild?")
	if code != exitFailure || !strings.Contains(errOut, `built with embedding model "strata-offline-hash-v1"`) || !strings.Contains(errOut, "--embedding-model") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
	if n := fake.Counts().Requests - before; n != 0 {
		t.Errorf("the model check made %d requests; the name alone decides", n)
	}
}

package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/pipeline/pipelinetest"
	"github.com/stratarag/strata/retrieval"
)

// run serves the handler of a server over open until the test ends.
func run(t *testing.T, log io.Writer, open Opener) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(zerolog.New(log), Config{Store: open})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return srv, hs
}

// opened is an Opener of a store without an engine, enough for what needs no query.
func opened(context.Context) (*Store, error) {
	return &Store{Kind: "test", Close: func() {}}, nil
}

// TestErrors: every request strata cannot serve gets {"error", "code"} with the matching HTTP
// status, and a message naming what is wrong.
func TestErrors(t *testing.T) {
	_, hs := run(t, io.Discard, opened)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"unknown field", "POST", "/query", `{"question": "x", "topk": 3}`, 400, `unknown field "topk"`},
		{"not JSON", "POST", "/query", `question=x`, 400, "invalid character"},
		{"empty body", "POST", "/query", ``, 400, "empty request body"},
		{"two objects", "POST", "/query", `{"question": "x"} {"question": "y"}`, 400, "unexpected data after the JSON object"},
		{"wrong type", "POST", "/query", `{"question": "x", "top_k": "3"}`, 400, "top_k"},
		{"no question", "POST", "/query", `{"mode": "hi"}`, 400, `"question" is missing or empty`},
		{"blank question", "POST", "/query", `{"question": "  "}`, 400, `"question" is missing or empty`},
		{"bad mode", "POST", "/query", `{"question": "x", "mode": "fast"}`, 400, `"mode": `},
		{"top_k 0", "POST", "/query", `{"question": "x", "top_k": 0}`, 400, "top-k must be at least 1, got 0"},
		{"negative entities", "POST", "/query", `{"question": "x", "entities": -1}`, 400, "entities must be at least 1"},
		{"tiny budget", "POST", "/query", `{"question": "x", "max_context_tokens": 5}`, 400, "max context tokens must be at least"},
		// Past every bound: refused before the store is opened (this one has no engine).
		{"top_k past the bound", "POST", "/query", `{"question": "x", "top_k": 1001}`, 400, "top-k must be at most 1000, got 1001"},
		{"largest top_k", "POST", "/query", `{"question": "x", "top_k": 9223372036854775807}`, 400, "top-k must be at most 1000"},
		{"top_k beyond int64", "POST", "/query", `{"question": "x", "top_k": 1e30}`, 400, "top_k"},
		{"smallest top_k", "POST", "/query", `{"question": "x", "top_k": -9223372036854775808}`, 400, "top-k must be at least 1"},
		{"entities past the bound", "POST", "/query", `{"question": "x", "entities": 501}`, 400, "entities must be at most 500, got 501"},
		{"a billion entities", "POST", "/query", `{"question": "x", "entities": 1000000000, "mode": "lca"}`, 400, "entities must be at most 500, got 1000000000"},
		{"entities as a float", "POST", "/query", `{"question": "x", "entities": 1e9}`, 400, "entities"},
		{"smallest entities", "POST", "/query", `{"question": "x", "entities": -9223372036854775808}`, 400, "entities must be at least 1"},
		{"budget past the bound", "POST", "/query", `{"question": "x", "max_context_tokens": 1000001}`, 400, "max context tokens must be at most 1000000, got 1000001"},
		{"largest budget", "POST", "/query", `{"question": "x", "max_context_tokens": 9223372036854775807}`, 400, "max context tokens must be at most 1000000"},
		{"question past the bound", "POST", "/query", `{"question": "` + strings.Repeat("é", MaxQuestionChars+1) + `"}`, 400, `"question" must be at most 10000 characters, got 10001`},
		{"too large", "POST", "/query", `{"question": "` + strings.Repeat("a", maxQueryBody) + `"}`, 413, "request body larger than 1048576 bytes"},
		{"GET /query", "GET", "/query", ``, 405, "method not allowed (want POST)"},
		{"POST /status", "POST", "/status", `{}`, 405, "method not allowed (want GET or HEAD)"},
		{"unknown path", "GET", "/", ``, 404, "no such endpoint /"},
		{"unknown path under query", "POST", "/query/x", `{}`, 404, "no such endpoint /query/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, header, got := servertest.Do(t, tc.method, hs.URL+tc.path, tc.body)
			if status != tc.status || got["code"] != float64(tc.status) {
				t.Errorf("status %d, body %v; want %d", status, got, tc.status)
			}
			if msg, _ := got["error"].(string); !strings.Contains(msg, tc.msg) {
				t.Errorf("error %q, want it to contain %q", msg, tc.msg)
			}
			if tc.status == 405 && header.Get("Allow") == "" {
				t.Error("405 without an Allow header")
			}
			if len(got) != 2 {
				t.Errorf("error body %v, want error and code only", got)
			}
		})
	}
	if status, _, _ := servertest.Do(t, http.MethodHead, hs.URL+"/healthz", ""); status != http.StatusOK {
		t.Errorf("HEAD /healthz: %d", status)
	}
}

// TestUnavailable: a store that cannot be opened is a 503 with Retry-After that says why, on
// every endpoint, and is tried again at each request.
func TestUnavailable(t *testing.T) {
	var opens atomic.Int64
	_, hs := run(t, io.Discard, func(context.Context) (*Store, error) {
		opens.Add(1)
		return nil, errors.New("no store here")
	})
	for _, req := range []struct{ method, path, body string }{
		{"GET", "/healthz", ""}, {"GET", "/status", ""}, {"POST", "/query", `{"question": "x"}`},
	} {
		status, header, got := servertest.Do(t, req.method, hs.URL+req.path, req.body)
		msg, _ := got["error"].(string)
		if status != http.StatusServiceUnavailable || got["code"] != float64(503) || header.Get("Retry-After") == "" ||
			msg != "the store cannot be opened: no store here" {
			t.Errorf("%s %s: %d %v %v", req.method, req.path, status, header, got)
		}
	}
	if n := opens.Load(); n != 3 {
		t.Errorf("%d opens for 3 requests, want one each", n)
	}
}

// TestStoreReplaced: a store replaced on disk is opened again at the next request, and the old
// one is closed once, when the requests reading through it are done.
func TestStoreReplaced(t *testing.T) {
	var mu sync.Mutex
	var stores []string // opened, in order
	var closed []string
	var replaced atomic.Bool
	srv, hs := run(t, io.Discard, func(context.Context) (*Store, error) {
		mu.Lock()
		defer mu.Unlock()
		name := []string{"first", "second"}[len(stores)]
		stores = append(stores, name)
		return &Store{Kind: "test", Location: name,
			Close:    func() { mu.Lock(); closed = append(closed, name); mu.Unlock() },
			Replaced: func() bool { return name == "first" && replaced.Load() },
		}, nil
	})
	if status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/healthz", ""); status != http.StatusOK {
		t.Fatalf("healthz: %d %v", status, got)
	}
	// A request still reading through the first store when it is replaced.
	first, release, err := srv.store(context.Background(), srv.workspaces[DefaultWorkspace])
	if err != nil || first.Location != "first" {
		t.Fatalf("store: %v %v", first, err)
	}
	replaced.Store(true)
	if status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/healthz", ""); status != http.StatusOK {
		t.Fatalf("healthz after the store was replaced: %d %v", status, got)
	}
	mu.Lock()
	if want := []string{"first", "second"}; !slices.Equal(stores, want) || len(closed) != 0 {
		t.Errorf("opened %v, closed %v; want %v opened and none closed while a request reads the first", stores, closed, want)
	}
	mu.Unlock()
	release()
	srv.Close()
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(closed) // the first closes on its own goroutine, before or after the second
	if want := []string{"first", "second"}; !slices.Equal(closed, want) {
		t.Errorf("closed %v, want each store closed once", closed)
	}
}

// blockingAnswerer answers only when its context ends, as a model that takes too long.
type blockingAnswerer struct{ started chan struct{} }

func (b blockingAnswerer) Answer(ctx context.Context, _, _ string) (retrieval.Answer, error) {
	close(b.started)
	<-ctx.Done()
	return retrieval.Answer{}, ctx.Err()
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestClientGoesAway: a query whose client hangs up is cancelled and logged as 499, not as a
// failure of the server.
func TestClientGoesAway(t *testing.T) {
	f := pipelinetest.Ingested(t, 64)
	answerer := blockingAnswerer{started: make(chan struct{})}
	var logBuf lockedBuffer
	_, hs := run(t, &logBuf, func(context.Context) (*Store, error) {
		engine := &retrieval.Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer, Answerer: answerer}
		return &Store{Engine: engine, Kind: "embedded", Close: func() {}}, nil
	})

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-answerer.started
		cancel()
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/query", strings.NewReader(`{"question": "Where is Port Avel?"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("request: %v, want it cancelled", err)
	}
	hs.Close() // waits for the handler, which logs the request as it returns
	if log := logBuf.String(); !strings.Contains(log, `"status":499`) || strings.Contains(log, `"level":"error"`) {
		t.Errorf("log: %s\nwant the request logged with status 499 and no error", log)
	}
}

// TestLargestOptions: a query at every bound at once (the longest question, the largest top_k,
// entities and context budget) is answered in every mode, as the smallest values are.
func TestLargestOptions(t *testing.T) {
	f := pipelinetest.Ingested(t, 64)
	_, hs := run(t, io.Discard, func(context.Context) (*Store, error) {
		engine := &retrieval.Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer}
		return &Store{Engine: engine, Kind: "embedded", Close: func() {}}, nil
	})
	long := strings.Repeat("Where is Port Avel? ", MaxQuestionChars/20)
	for _, mode := range retrieval.Modes() {
		for _, body := range []string{
			fmt.Sprintf(`{"question": %q, "mode": %q, "top_k": %d, "entities": %d, "max_context_tokens": %d}`,
				long, mode, retrieval.MaxTopK, retrieval.MaxEntities, retrieval.MaxContextTokens),
			fmt.Sprintf(`{"question": "Port Avel", "mode": %q, "top_k": 1, "entities": 1, "max_context_tokens": 100}`, mode),
		} {
			status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", body)
			if status != http.StatusOK || got["mode"] != mode.String() {
				t.Errorf("%s, %.80s…: %d %v", mode, body, status, got["error"])
			}
		}
	}
}

// TestHealthzWarm: /healthz says whether the store has loaded what it keeps in memory, and a
// store that keeps nothing is always warm.
func TestHealthzWarm(t *testing.T) {
	var warm atomic.Bool
	for _, tc := range []struct {
		name string
		open Opener
		want []bool // before and after warm is set
	}{
		{"always ready", opened, []bool{true, true}},
		{"loading in the background", func(context.Context) (*Store, error) {
			return &Store{Kind: "test", Close: func() {}, Warm: warm.Load}, nil
		}, []bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			warm.Store(false)
			_, hs := run(t, io.Discard, tc.open)
			for i, want := range tc.want {
				if i == 1 {
					warm.Store(true)
				}
				status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/healthz", "")
				if status != http.StatusOK || got["status"] != "ok" || got["warm"] != want {
					t.Errorf("healthz %d: %d %v; want ok with warm %v", i, status, got, want)
				}
			}
		})
	}
}

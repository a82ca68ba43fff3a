package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/cmd/strata/internal/server/apikeys"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
	"github.com/stratarag/strata/pipeline/pipelinetest"
	"github.com/stratarag/strata/retrieval"
)

// heldAnswerer answers once released, or fails when its context ends first; started gets a
// value as each answer begins.
type heldAnswerer struct {
	started chan struct{}
	release chan struct{}
}

func (h heldAnswerer) Answer(ctx context.Context, _, _ string) (retrieval.Answer, error) {
	h.started <- struct{}{}
	select {
	case <-h.release:
		return retrieval.Answer{Text: "held answer"}, nil
	case <-ctx.Done():
		return retrieval.Answer{}, ctx.Err()
	}
}

// runWith serves cfg (its Store: the test store answered by answerer) until the test ends.
func runWith(t *testing.T, cfg Config, answerer retrieval.Answerer) *httptest.Server {
	t.Helper()
	f := pipelinetest.Ingested(t, 64)
	cfg.Store = func(context.Context) (*Store, error) {
		engine := &retrieval.Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer, Answerer: answerer}
		return &Store{Engine: engine, Kind: "embedded", Close: func() {},
			Status: func(context.Context) (any, error) { return map[string]string{"store": "test"}, nil }}, nil
	}
	srv, err := New(zerolog.Nop(), cfg)
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

const question = `{"question": "Where is Port Avel?"}`

// TestMaxInflight: past MaxInflight queries being answered, a query gets 503 with Retry-After
// at once; status requests are not counted; once a query is done, the next one is answered.
func TestMaxInflight(t *testing.T) {
	held := heldAnswerer{started: make(chan struct{}, 4), release: make(chan struct{})}
	hs := runWith(t, Config{MaxInflight: 2}, held)
	var wg sync.WaitGroup
	statuses := make(chan int, 2)
	for range 2 {
		wg.Go(func() {
			status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", question)
			if got["answer"] != "held answer" {
				t.Errorf("held query: %d %v", status, got)
			}
			statuses <- status
		})
	}
	<-held.started
	<-held.started
	status, header, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", question)
	if msg, _ := got["error"].(string); status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" ||
		!strings.Contains(msg, "2 queries are being answered, the most this server takes at once") {
		t.Errorf("a third query with 2 in flight: %d %v %v", status, header, got)
	}
	if status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/status", ""); status != http.StatusOK {
		t.Errorf("status with 2 queries in flight: %d %v", status, got)
	}
	close(held.release)
	wg.Wait()
	close(statuses)
	for status := range statuses {
		if status != http.StatusOK {
			t.Errorf("held query: %d", status)
		}
	}
	if status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", question); status != http.StatusOK {
		t.Errorf("a query once the others are done: %d %v", status, got)
	}
}

// TestRequestTimeout: a query still running at the request timeout is stopped (its model call's
// context ends) and answered 504 saying so, streamed or not.
func TestRequestTimeout(t *testing.T) {
	held := heldAnswerer{started: make(chan struct{}, 2), release: make(chan struct{})}
	hs := runWith(t, Config{RequestTimeout: 50 * time.Millisecond}, held)
	for _, body := range []string{question, `{"question": "Where is Port Avel?", "stream": true}`} {
		status, _, got := servertest.Do(t, http.MethodPost, hs.URL+"/query", body)
		if msg, _ := got["error"].(string); status != http.StatusGatewayTimeout || got["code"] != float64(504) ||
			msg != "the request took longer than 50ms, the server's limit" {
			t.Errorf("%s: %d %v", body, status, got)
		}
	}
}

// TestRate: past its rate a key gets 429 with Retry-After, and other keys do not; without keys
// the rate holds for all requests together.
func TestRate(t *testing.T) {
	keys, err := apikeys.Parse(strings.NewReader(keyDefault + " *\n" + keyOther + " *\n"))
	if err != nil {
		t.Fatal(err)
	}
	// One request per 1000 s: the test never sees the bucket refill.
	hs := runWith(t, Config{Keys: keys, Rate: 0.001}, nil)
	if status, _, got := servertest.DoKey(t, http.MethodGet, hs.URL+"/status", "", keyDefault); status != http.StatusOK {
		t.Fatalf("first request: %d %v", status, got)
	}
	for _, req := range []struct{ method, path string }{{"GET", "/status"}, {"POST", "/query"}} {
		status, header, got := servertest.DoKey(t, req.method, hs.URL+req.path, question, keyDefault)
		retry, _ := strconv.Atoi(header.Get("Retry-After"))
		if msg, _ := got["error"].(string); status != http.StatusTooManyRequests || retry < 1 || retry > 1000 ||
			!strings.Contains(msg, "over the key "+apikeys.ID(keyDefault)+"'s rate of 0.001 requests per second: retry in") {
			t.Errorf("%s past the rate: %d %v %v", req.path, status, header, got)
		}
	}
	if status, _, got := servertest.DoKey(t, http.MethodPost, hs.URL+"/query", question, keyOther); status != http.StatusOK {
		t.Errorf("another key: %d %v", status, got)
	}
	if status, _, got := servertest.Do(t, http.MethodGet, hs.URL+"/healthz", ""); status != http.StatusOK {
		t.Errorf("healthz is not rated: %d %v", status, got)
	}

	open := runWith(t, Config{Rate: 0.001}, nil)
	servertest.Do(t, http.MethodGet, open.URL+"/status", "")
	if status, _, got := servertest.Do(t, http.MethodPost, open.URL+"/query", question); status != http.StatusTooManyRequests ||
		!strings.Contains(got["error"].(string), "over this server's rate") {
		t.Errorf("without keys, past the rate: %d %v", status, got)
	}
}

// TestLimitsChecked: limits outside their bounds are refused by New, naming the limit.
func TestLimitsChecked(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		msg string
	}{
		{Config{RequestTimeout: -1}, "request timeout must be between 0"},
		{Config{RequestTimeout: MaxRequestTimeout + 1}, "request timeout must be between 0"},
		{Config{MaxInflight: -1}, "max queries in flight must be between 0"},
		{Config{MaxInflight: MaxMaxInflight + 1}, "max queries in flight must be between 0"},
		{Config{Rate: -1}, "rate must be between 0"},
		{Config{Rate: MaxRate * 2}, "rate must be between 0"},
		{Config{MaxConns: -1}, "max connections must be between 0"},
		{Config{IdleTimeout: MaxIdleTimeout + 1}, "idle timeout must be between 0"},
		{Config{Workspaces: map[string]Opener{"a/b": opened}}, `workspace name "a/b"`},
		{Config{Workspaces: map[string]Opener{DefaultWorkspace: opened}}, `two stores for the workspace "default"`},
	} {
		if tc.cfg.Store == nil && len(tc.cfg.Workspaces) == 0 || tc.cfg.Workspaces[DefaultWorkspace] != nil {
			tc.cfg.Store = opened
		}
		if _, err := New(zerolog.Nop(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.msg)
		}
	}
	if _, err := New(zerolog.Nop(), Config{}); err == nil || err.Error() != "no store to serve" {
		t.Errorf("no store: %v", err)
	}
}

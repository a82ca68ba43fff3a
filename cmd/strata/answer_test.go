package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/answer"
	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
)

// answerAPI is the fake API with the answer prompt answered as a test says: with reply and
// finish when reply is set, with an HTTP error when status is, else by the fake. It counts the
// answer requests.
type answerAPI struct {
	fake http.Handler

	mu            sync.Mutex
	reply, finish string
	status        int
	calls         int
	// breakAt > 0 ends a streamed reply after its first breakAt runes with an error event, as
	// llama.cpp reports a failure found after the stream started.
	breakAt int
}

// setBreak makes the answer reply's first breakAt runes, streamed, then an error.
func (a *answerAPI) setBreak(reply string, breakAt int) {
	a.set(reply, "stop", 0)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.breakAt = breakAt
}

func (a *answerAPI) set(reply, finish string, status int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reply, a.finish, a.status, a.calls, a.breakAt = reply, finish, status, 0, 0
}

func (a *answerAPI) answerCalls() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

func (a *answerAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		Model    string
		Messages []struct{ Role, Content string }
		Stream   bool
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") || json.Unmarshal(body, &req) != nil ||
		len(req.Messages) == 0 || prompts.TaskOf(req.Messages[0].Content) != answer.Task {
		a.fake.ServeHTTP(w, r)
		return
	}
	a.mu.Lock()
	a.calls++
	reply, finish, status, breakAt := a.reply, a.finish, a.status, a.breakAt
	a.mu.Unlock()
	if reply != "" && req.Stream {
		streamReply(w, reply, finish, breakAt)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case status != 0:
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error": {"message": "this model does not take that request (fake)", "type": "invalid_request_error"}}`)
	case reply != "":
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		})
	default:
		a.fake.ServeHTTP(w, r)
	}
}

// streamReply writes reply as server-sent events of three runes each, then finish and usage, or
// after breakAt runes (when > 0) an error event.
func streamReply(w http.ResponseWriter, reply, finish string, breakAt int) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	runes := []rune(reply)
	for i := 0; i < len(runes); i += 3 {
		if breakAt > 0 && i >= breakAt {
			event(map[string]any{"error": map[string]any{"message": "the model crashed (fake)", "type": "server_error"}})
			return
		}
		event(map[string]any{"choices": []map[string]any{{"index": 0, "delta": map[string]any{"content": string(runes[i:min(i+3, len(runes))])}, "finish_reason": nil}}})
	}
	event(map[string]any{"choices": []map[string]any{{"index": 0, "delta": map[string]any{}, "finish_reason": finish}}})
	event(map[string]any{"choices": []any{}, "usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// llmIngested ingests a few documents of the test corpus with the fake model behind api, and
// returns the data directory.
func llmIngested(t *testing.T, api *answerAPI) string {
	t.Helper()
	fake, err := fakeopenai.New(fakeopenai.Options{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	api.fake = fake
	serveAPI(t, api)
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"harbor-guild.md", "kestrel-lighthouse.md", "port-avel.md", "salt-tariff.txt"} {
		b, err := os.ReadFile(filepath.Join(corpusDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(corpus, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, corpus); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	return dir
}

type queryAnswer struct {
	Answer      *string
	AnswerNotes *retrieval.AnswerNotes `json:"answer_notes"`
}

// TestQueryAnswerNotesCLI: an answer cut at the token limit, or with made-up citations removed,
// says so in query --json ("answer_notes"), in serve's answer (the same object) and on stderr
// after the text answer; a whole answer has notes that say nothing and no warning.
func TestQueryAnswerNotesCLI(t *testing.T) {
	api := &answerAPI{}
	dir := llmIngested(t, api)
	hs := serveFlags(t, "--data-dir", dir, "--no-cache")
	const question = "Who founded the Saltmere Cartographers' Guild?"
	tests := []struct {
		name, reply, finish string
		want                retrieval.AnswerNotes
		warning             string // on stderr; "" for none
		notInAnswer         string
	}{
		{"whole", "", "", retrieval.AnswerNotes{}, "", ""},
		{"cut at the token limit", "Ilsa Marrow founded the guild [doc:harbor-guild.md] in the year", "length",
			retrieval.AnswerNotes{Truncated: true}, "strata: warning: the answer was cut at the model's token limit", ""},
		{"made-up citation", "Ilsa Marrow founded it [doc:harbor-guild.md], as the annals say [doc:annals-of-vell].", "stop",
			retrieval.AnswerNotes{CitationsRemoved: 1}, "strata: warning: 1 citation(s) of sources not in the context were removed", "annals-of-vell"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api.set(tc.reply, tc.finish, 0)
			// --no-cache: every case asks the same question, and its answer must be this case's.
			code, out, errOut := runCLI(t, "query", "--data-dir", dir, "--no-cache", "--json", question)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			got := decodeJSON[queryAnswer](t, "query", out)
			if got.Answer == nil || got.AnswerNotes == nil || *got.AnswerNotes != tc.want || api.answerCalls() != 1 {
				t.Fatalf("answer %v, notes %+v after %d answer calls; want notes %+v", got.Answer, got.AnswerNotes, api.answerCalls(), tc.want)
			}
			if tc.notInAnswer != "" && strings.Contains(*got.Answer, tc.notInAnswer) {
				t.Errorf("answer %q still cites %s", *got.Answer, tc.notInAnswer)
			}
			if tc.warning == "" && strings.Contains(errOut, "strata: warning:") {
				t.Errorf("a warning about a whole answer:\n%s", errOut)
			}
			if !strings.Contains(errOut, tc.warning) {
				t.Errorf("--json: stderr does not say %q:\n%s", tc.warning, errOut)
			}

			code, out, errOut = runCLI(t, "query", "--data-dir", dir, "--no-cache", question)
			if code != 0 || !strings.HasPrefix(out, *got.Answer+"\n") || !strings.Contains(errOut, tc.warning) {
				t.Errorf("text: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
			}

			status, _, served := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question": "`+question+`"}`)
			if status != http.StatusOK {
				t.Fatalf("serve: status %d: %v", status, served)
			}
			raw, _ := json.Marshal(served)
			if s := decodeJSON[queryAnswer](t, "serve", string(raw)); s.AnswerNotes == nil || *s.AnswerNotes != tc.want {
				t.Errorf("serve: notes %+v, want %+v", s.AnswerNotes, tc.want)
			}
		})
	}
}

// TestGlobalNothingFoundCLI: a global query whose map step keeps no point answers that nothing
// relevant was found and exits 0, as the other modes do with a context that does not answer, and
// asks the model no answer.
func TestGlobalNothingFoundCLI(t *testing.T) {
	api := &answerAPI{}
	dir := llmIngested(t, api)
	const question = "Xyzzy plugh qwertz?" // no word of it is in any report
	code, out, errOut := runCLI(t, "query", "--data-dir", dir, "--mode", "global", "--json", question)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	got := decodeJSON[queryAnswer](t, "query", out)
	if got.Answer == nil || *got.Answer != retrieval.NothingFoundAnswer || got.AnswerNotes == nil || !got.AnswerNotes.NothingFound {
		t.Errorf("answer %v, notes %+v", got.Answer, got.AnswerNotes)
	}
	code, out, errOut = runCLI(t, "query", "--data-dir", dir, "--mode", "global", question)
	if code != 0 || out != retrieval.NothingFoundAnswer+"\n" {
		t.Errorf("text: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if n := api.answerCalls(); n != 0 {
		t.Errorf("%d answer calls for an empty context", n)
	}
}

// TestQueryAnswerErrorMessage: a failed answer call is named once in the message, in front of the
// client's error, in the stderr line and in the --json error.
func TestQueryAnswerErrorMessage(t *testing.T) {
	api := &answerAPI{}
	dir := llmIngested(t, api)
	api.set("", "", http.StatusBadRequest)
	code, out, errOut := runCLI(t, "query", "--data-dir", dir, "--no-cache", "--json", "Who founded the Saltmere Cartographers' Guild?")
	if code != exitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	msg := checkJSONError(t, out, exitFailure)
	const want = "generate the answer: chat completion (answer, model gpt-4o-mini): "
	if !strings.HasPrefix(msg, want) || strings.Count(msg, "generate") != 1 || !strings.Contains(msg, "does not take that request") {
		t.Errorf("message %q, want %q followed by the server's", msg, want)
	}
	if !strings.Contains(errOut, "strata: "+msg+"\n") {
		t.Errorf("stderr does not end with the message:\n%s", errOut)
	}
}

// Package tasktest holds what the model tasks' tests share: the check of a rendered prompt, a
// fake OpenAI server with a client for it, and chats that answer from a script or with one
// canned response.
package tasktest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/prompts"
)

// Fake starts a fake OpenAI server with opts, closed when t ends, and a client for it that
// retries without waiting.
func Fake(t testing.TB, opts fakeopenai.Options) (*llm.Client, *fakeopenai.Server) {
	t.Helper()
	srv, s, err := fakeopenai.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test-not-a-secret", RetryBaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

// CannedChat answers every request with Resp and Err, and keeps the last request in Req.
type CannedChat struct {
	Resp llm.ChatResponse
	Err  error
	Req  llm.ChatRequest
}

// Chat implements llm.Chatter.
func (c *CannedChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	c.Req = req
	return c.Resp, c.Err
}

// ScriptedChat answers each request with the next of Answers and records the requests.
type ScriptedChat struct {
	Answers []string
	Reqs    []llm.ChatRequest
}

// Chat implements llm.Chatter.
func (s *ScriptedChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.Reqs = append(s.Reqs, req)
	a := s.Answers[0]
	s.Answers = s.Answers[1:]
	return llm.ChatResponse{Content: a}, nil
}

// CheckPrompt fails t unless p is a prompt of task whose document data, fenced once under label,
// holds want: the system prompt names the task and announces the fence, no template value is
// missing, and text inside the data cannot close the fence itself.
func CheckPrompt(t testing.TB, p prompts.Prompt, task, label, want string) {
	t.Helper()
	if got := prompts.TaskOf(p.System); got != task {
		t.Errorf("task = %q, want %q", got, task)
	}
	if strings.Contains(p.System, "<no value>") || strings.Contains(p.User, "<no value>") {
		t.Errorf("template rendered a missing value:\n%s\n%s", p.System, p.User)
	}
	data, ok := prompts.Unfence(p.User, label)
	if !ok || !strings.Contains(data, want) {
		t.Errorf("data lost or not fenced: %q", p.User)
	}
	if strings.Count(p.User, prompts.EndFence(label)) != 1 || !strings.Contains(p.System, prompts.BeginFence(label)) {
		t.Errorf("fence wrong:\n%s\n%s", p.System, p.User)
	}
}

package llmtask

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/prompts"
)

func TestTasks(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{})
	ps := prompts.New()
	ctx := context.Background()
	pts, err := KeyPoints(ctx, c, ps, "Who founded the guild?", "[community:0-1] Ilsa Marrow founded the guild.")
	if err != nil || len(pts) != 1 {
		t.Errorf("points %+v %v", pts, err)
	}
	st := c.Stats().Stages
	if st[llm.StageMap].LLMCalls != 1 || s.Counts().Chat != 1 {
		t.Errorf("stages %+v", st)
	}
}

func TestKeyPointsAsksAgainAfterUnreadableAnswer(t *testing.T) {
	chat := &scriptedChat{answers: []string{"no", "still no"}}
	if pts, err := KeyPoints(context.Background(), chat, prompts.New(), "q?", "r"); !errors.Is(err, prompts.ErrUnreadable) || pts != nil {
		t.Errorf("unreadable key points: %v %v", pts, err)
	}
	chat = &scriptedChat{answers: []string{"no", `{"points":[]}`}}
	if pts, err := KeyPoints(context.Background(), chat, prompts.New(), "q?", "r"); err != nil || len(pts) != 0 {
		t.Errorf("no points: %v %v", pts, err)
	}
}

// TestUnreadableAnswers runs every task against the fake API answering malformed output. A
// mangled answer (prose and fences around it, cut JSON, broken records) is salvaged; an answer
// cut off while the model was still reasoning holds nothing, and every task returns an error
// wrapping prompts.ErrUnreadable, after asking again where its doc says so.
func TestUnreadableAnswers(t *testing.T) {
	ps := prompts.New()
	tasks := []struct {
		name  string
		calls int // what an unreadable answer costs
		run   func(ctx context.Context, chat llm.Chatter) error
	}{
		{"key points", 2, func(ctx context.Context, chat llm.Chatter) error {
			_, err := KeyPoints(ctx, chat, ps, "Who founded the guild?", "[community:0-1] Ilsa Marrow founded the guild.")
			return err
		}},
	}
	answers := []struct {
		name           string
		opts           fakeopenai.Options
		wantUnreadable bool
	}{
		{"malformed", fakeopenai.Options{MalformedRate: 1}, false},
		{"unreadable", fakeopenai.Options{UnreadableRate: 1}, true},
	}
	for _, a := range answers {
		for _, tc := range tasks {
			t.Run(a.name+"/"+tc.name, func(t *testing.T) {
				c, s := fake(t, a.opts)
				err := tc.run(context.Background(), c)
				if a.wantUnreadable != (err != nil) || (err != nil && !errors.Is(err, prompts.ErrUnreadable)) {
					t.Fatalf("err = %v, want unreadable: %v", err, a.wantUnreadable)
				}
				n := s.Counts()
				if a.wantUnreadable && (n.Chat != tc.calls || n.Unreadable != tc.calls) {
					t.Errorf("%d calls (%d unreadable), want %d", n.Chat, n.Unreadable, tc.calls)
				}
				if !a.wantUnreadable && n.Malformed == 0 {
					t.Error("no answer was mangled; the case proves nothing")
				}
			})
		}
	}
}

type scriptedChat struct {
	answers []string
	reqs    []llm.ChatRequest
}

func (s *scriptedChat) Chat(_ context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	s.reqs = append(s.reqs, req)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return llm.ChatResponse{Content: a}, nil
}

// fake starts a fake OpenAI server and a client for it.
func fake(t *testing.T, opts fakeopenai.Options) (*llm.Client, *fakeopenai.Server) {
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

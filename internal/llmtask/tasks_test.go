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
	r, err := Report(ctx, c, ps, "Ilsa Marrow founded the Saltmere Guild. Corvin Hale surveyed for the Saltmere Guild.")
	if err != nil || r.Title == "" || len(r.Findings) == 0 {
		t.Errorf("report %+v %v", r, err)
	}
	pts, err := KeyPoints(ctx, c, ps, "Who founded the guild?", "[community:0-1] Ilsa Marrow founded the guild.")
	if err != nil || len(pts) != 1 {
		t.Errorf("points %+v %v", pts, err)
	}
	recs, err := SummaryEntities(ctx, c, ps, "- Ilsa Marrow: founder\n- Corvin Hale: surveyor", nil)
	if err != nil || len(recs.Entities) != 1 || len(recs.Relationships) != 2 {
		t.Errorf("summary entities %+v %v", recs, err)
	}
	st := c.Stats().Stages
	if st[llm.StageReport].LLMCalls != 1 || st[llm.StageMap].LLMCalls != 1 || st[llm.StageLayers].LLMCalls != 1 || s.Counts().Chat != 3 {
		t.Errorf("stages %+v", st)
	}
}

func TestReportAsksAgainAfterUnreadableAnswer(t *testing.T) {
	chat := &scriptedChat{answers: []string{"I cannot write JSON today.", `{"title":"T","summary":"S"}`}}
	r, err := Report(context.Background(), chat, prompts.New(), "Ilsa Marrow")
	if err != nil || r.Title != "T" || len(chat.reqs) != 2 || chat.reqs[1].Temperature == 0 || !chat.reqs[0].JSON {
		t.Errorf("report %+v %v after %d calls", r, err, len(chat.reqs))
	}
	chat = &scriptedChat{answers: []string{"no", "still no"}}
	if _, err := Report(context.Background(), chat, prompts.New(), "Ilsa Marrow"); !errors.Is(err, prompts.ErrUnreadable) {
		t.Errorf("unreadable report: err = %v", err)
	}
	chat = &scriptedChat{answers: []string{"no", "still no"}}
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
		{"report", 2, func(ctx context.Context, chat llm.Chatter) error {
			_, err := Report(ctx, chat, ps, "Ilsa Marrow founded the Saltmere Guild. Corvin Hale surveyed for the Saltmere Guild.")
			return err
		}},
		{"key points", 2, func(ctx context.Context, chat llm.Chatter) error {
			_, err := KeyPoints(ctx, chat, ps, "Who founded the guild?", "[community:0-1] Ilsa Marrow founded the guild.")
			return err
		}},
		{"summary entities", 1, func(ctx context.Context, chat llm.Chatter) error {
			_, err := SummaryEntities(ctx, chat, ps, "- Ilsa Marrow: founder\n- Corvin Hale: surveyor", nil)
			return err
		}},
		{"summarize", 1, func(ctx context.Context, chat llm.Chatter) error {
			sum, err := NewSummarizer(chat, SummarizerOptions{MaxWords: 5})
			if err != nil {
				return err
			}
			_, err = sum.Summarize(ctx, "Ilsa Marrow", []string{"Ilsa Marrow founded the guild in 1102.", "She led the guild until 1124."})
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

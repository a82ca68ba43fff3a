package llm

import (
	"context"
	"strings"
	"testing"
)

// recordingChat answers every request with its stage repeated, and keeps the requests.
type recordingChat struct{ reqs []ChatRequest }

func (r *recordingChat) Chat(_ context.Context, req ChatRequest) (ChatResponse, error) {
	r.reqs = append(r.reqs, req)
	return ChatResponse{Content: strings.Repeat(req.Stage+" ", 3)}, nil
}

// TestSampler: sample calls are kept out of the cache and their answers counted per stage.
func TestSampler(t *testing.T) {
	next := &recordingChat{}
	s := &Sampler{Next: next, Count: func(s string) int { return len(strings.Fields(s)) }}
	for _, stage := range []string{StageReport, StageReport, StageLayers} {
		if _, err := s.Chat(context.Background(), ChatRequest{Stage: stage}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range next.reqs {
		if !r.NoStore {
			t.Errorf("a %s sample call may be cached", r.Stage)
		}
	}
	for _, tc := range []struct {
		stage         string
		tokens, calls int
	}{{StageReport, 6, 2}, {StageLayers, 3, 1}, {StageExtract, 0, 0}} {
		if tokens, calls := s.Answered(tc.stage); tokens != tc.tokens || calls != tc.calls {
			t.Errorf("%s: %d tokens in %d calls, want %d in %d", tc.stage, tokens, calls, tc.tokens, tc.calls)
		}
	}
}

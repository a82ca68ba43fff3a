package llm

import (
	"context"
	"sync"
)

// Sampler is a Chatter for a dry run's sample calls: it passes requests on to Next with NoStore
// (a dry run writes nothing; an answer already cached is used as it is) and counts, per stage,
// the tokens of the answers' text as Count counts them. What a model writes differs by a factor
// of three and more between models, which no fixed ratio predicts, so a dry run measures it.
type Sampler struct {
	Next  Chatter
	Count func(string) int

	mu     sync.Mutex
	tokens map[string]int
	calls  map[string]int
}

// Chat implements Chatter.
func (s *Sampler) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	req.NoStore = true
	resp, err := s.Next.Chat(ctx, req)
	if err != nil {
		return resp, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens, s.calls = map[string]int{}, map[string]int{}
	}
	s.tokens[req.Stage] += s.Count(resp.Content)
	s.calls[req.Stage]++
	return resp, nil
}

// Answered returns the answer tokens and the calls counted for stage.
func (s *Sampler) Answered(stage string) (tokens, calls int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[stage], s.calls[stage]
}

package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
)

// Generated is one question's answer as a query gave it.
type Generated struct {
	ID       string
	Question string
	Answer   string
	// Unreadable: the model's answer held nothing once its reasoning was removed; Answer is
	// empty and scores 0 (counted, not dropped).
	Unreadable bool
	// Result is the query's result (nil when Unreadable): its context feeds recall.
	Result *retrieval.Result
	// Usage is what the query's model calls cost: its answer, and global's or arch's map step.
	Usage   llm.StageUsage
	Latency time.Duration
}

// Generate asks every question with opt, answer included, as `strata query` would, and keeps
// each answer with what its query cost in model calls and time. An answer the model gave in a
// form nothing could be read from is kept as an unreadable empty answer; any other failure
// stops the run.
func Generate(ctx context.Context, q Querier, questions []Question, opt retrieval.Options) ([]Generated, error) {
	opt.ContextOnly = false
	out := make([]Generated, 0, len(questions))
	for _, question := range questions {
		meter := llm.NewMeter()
		start := time.Now()
		res, err := q.Query(llm.WithMeter(ctx, meter), question.Question, opt)
		g := Generated{ID: question.ID, Question: question.Question, Latency: time.Since(start), Usage: meter.Stats().Total}
		switch {
		case errors.Is(err, prompts.ErrUnreadable):
			g.Unreadable = true
		case err != nil:
			if errors.Is(err, context.Canceled) {
				return out, err
			}
			return out, fmt.Errorf("question %s: %w", question.ID, err)
		default:
			g.Result = res
			if res.Answer != nil {
				g.Answer = *res.Answer
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// AnswerReport is the answers object of `strata eval --answers --json`: the means of the
// metrics, what a query cost, and every question's figures.
type AnswerReport struct {
	Mode      retrieval.Mode `json:"mode"`
	Questions int            `json:"questions"`
	Scores                   // means over the questions, an unreadable answer scoring 0
	// Unreadable counts answers nothing could be read from.
	Unreadable           int     `json:"unreadable"`
	MeanLLMCalls         float64 `json:"mean_llm_calls"`
	MeanPromptTokens     float64 `json:"mean_prompt_tokens"`
	MeanCompletionTokens float64 `json:"mean_completion_tokens"`
	// LatencyMS is the whole query's latency: embedding the question, retrieval and the answer.
	LatencyMS Latency        `json:"latency_ms"`
	Results   []AnswerResult `json:"results"`
}

// Latency is a latency distribution's percentiles, in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// AnswerResult is one question's answer and scores.
type AnswerResult struct {
	ID         string  `json:"id"`
	Question   string  `json:"question"`
	Gold       Aliases `json:"gold"`
	Answer     string  `json:"answer"`
	Unreadable bool    `json:"unreadable,omitempty"`
	Scores
	LLMCalls         int     `json:"llm_calls"`
	CacheHits        int     `json:"cache_hits"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	LatencyMS        float64 `json:"latency_ms"`
}

// ScoreAnswers scores the generated answers against the questions' gold answers (matched by
// position: gen is Generate's result for questions).
func ScoreAnswers(mode retrieval.Mode, questions []Question, gen []Generated) AnswerReport {
	n := len(gen)
	rep := AnswerReport{Mode: mode, Questions: n, Results: make([]AnswerResult, 0, n)}
	latencies := make([]float64, 0, n)
	for i, g := range gen {
		r := AnswerResult{ID: g.ID, Question: g.Question, Gold: questions[i].Answer, Answer: g.Answer, Unreadable: g.Unreadable,
			Scores: Score(g.Answer, questions[i].Answer), LLMCalls: g.Usage.LLMCalls, CacheHits: g.Usage.CacheHits,
			PromptTokens: g.Usage.PromptTokens, CompletionTokens: g.Usage.CompletionTokens, LatencyMS: ms(g.Latency)}
		if g.Unreadable {
			rep.Unreadable++
		}
		rep.Scores.add(r.Scores, n)
		rep.MeanLLMCalls += float64(r.LLMCalls) / float64(n)
		rep.MeanPromptTokens += float64(r.PromptTokens) / float64(n)
		rep.MeanCompletionTokens += float64(r.CompletionTokens) / float64(n)
		latencies = append(latencies, r.LatencyMS)
		rep.Results = append(rep.Results, r)
	}
	rep.LatencyMS = Latency{P50: Percentile(latencies, 50), P95: Percentile(latencies, 95)}
	return rep
}

// Percentile is the nearest-rank percentile p (0–100] of xs: the smallest value with at least p
// % of the values at or below it; 0 for no values.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
)

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		p      float64
		n      int
		lo, hi float64
	}{
		// (p + z²/2n)/(1 + z²/n) ∓ z/(1 + z²/n)·√(p(1−p)/n + z²/4n²), z = 1.959964.
		{0.7, 10, 0.396778, 0.892209},
		{1, 4, 0.510109, 1},
		{0.5, 2, 0.094531, 0.905469},
		{0.5, 0, 0, 1},
	} {
		lo, hi := Wilson(tc.p, tc.n)
		if math.Abs(lo-tc.lo) > 1e-6 || math.Abs(hi-tc.hi) > 1e-6 {
			t.Errorf("Wilson(%v, %d) = [%.6f, %.6f], want [%.6f, %.6f]", tc.p, tc.n, lo, hi, tc.lo, tc.hi)
		}
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tc := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {10, 1}, {100, 10}} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("no values")
	}
}

// lengthJudge prefers the longer answer on every dimension and ties equal lengths; it fails on
// answers containing "unreadable" and, with bias, prefers the first answer on diversity
// whatever it says.
func lengthJudge(bias bool, calls *atomic.Int32) JudgeFunc {
	return func(_ context.Context, _ string, first, second string) (map[string]Preference, error) {
		calls.Add(1)
		if strings.Contains(first+second, "unreadable") {
			return nil, fmt.Errorf("judge: %w", prompts.ErrUnreadable)
		}
		p := PreferNeither
		switch {
		case len(first) > len(second):
			p = PreferFirst
		case len(second) > len(first):
			p = PreferSecond
		}
		out := map[string]Preference{}
		for _, d := range Dimensions {
			out[d] = p
		}
		if bias {
			out["diversity"] = PreferFirst
		}
		return out, nil
	}
}

// TestJudgePairs: both orders are judged, winners are named from strata's side, a position bias
// cancels, ties count half, and unreadable verdicts are counted and kept out of the rates.
func TestJudgePairs(t *testing.T) {
	pairs := []Pair{
		{ID: "1", Question: "q1", Strata: "a longer answer", Other: "short"},
		{ID: "2", Question: "q2", Strata: "same", Other: "same"},
		{ID: "3", Question: "q3", Strata: "no", Other: "a longer one"},
		{ID: "4", Question: "q4", Strata: "unreadable", Other: "x"},
	}
	var calls atomic.Int32
	rep, err := JudgePairs(context.Background(), lengthJudge(true, &calls), "naive", pairs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 8 || rep.Questions != 4 || rep.Judgments != 6 || rep.Unreadable != 2 {
		t.Fatalf("%d calls; report %d questions, %d judgments, %d unreadable", calls.Load(), rep.Questions, rep.Judgments, rep.Unreadable)
	}
	// Overall: strata wins q1 twice, ties q2 twice, loses q3 twice: (2 + 1) / 6.
	if got := rep.WinRates["overall"]; math.Abs(got-0.5) > 1e-9 || rep.Ties["overall"] != 2 || rep.Counted["overall"] != 6 {
		t.Errorf("overall %v, ties %d, counted %d", got, rep.Ties["overall"], rep.Counted["overall"])
	}
	// Diversity always goes to the first answer: each pair is won once and lost once.
	if got := rep.WinRates["diversity"]; math.Abs(got-0.5) > 1e-9 || rep.Ties["diversity"] != 0 {
		t.Errorf("diversity %v (ties %d): the position bias did not cancel", got, rep.Ties["diversity"])
	}
	j := rep.Results[0].Judgments
	if j[0].Order != StrataFirst || j[1].Order != OtherFirst || j[0].Winners["overall"] != "strata" || j[1].Winners["overall"] != "strata" {
		t.Errorf("q1 judgments %+v", j)
	}
	if lo, hi := rep.Intervals["overall"][0], rep.Intervals["overall"][1]; !(lo < 0.5 && hi > 0.5) {
		t.Errorf("interval %v", rep.Intervals["overall"])
	}
	if !rep.Results[3].Judgments[0].Unreadable {
		t.Errorf("q4: %+v", rep.Results[3].Judgments)
	}

	failing := func(context.Context, string, string, string) (map[string]Preference, error) {
		return nil, errors.New("connection refused")
	}
	if _, err := JudgePairs(context.Background(), failing, "naive", pairs, 2); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("a failed call: %v", err)
	}
}

// scriptedQuerier answers each question with a fixed answer, or fails as the answer task fails.
type scriptedQuerier map[string]string

func (s scriptedQuerier) Query(_ context.Context, q string, opt retrieval.Options) (*retrieval.Result, error) {
	if opt.ContextOnly {
		return nil, errors.New("asked for the context only")
	}
	a, ok := s[q]
	switch {
	case !ok:
		return nil, errors.New("store unreadable")
	case a == "<unreadable>":
		return nil, fmt.Errorf("generate the answer: %w", prompts.ErrUnreadable)
	}
	time.Sleep(time.Millisecond)
	return &retrieval.Result{Query: q, Answer: &a}, nil
}

// TestGenerateAndScore: answers are scored against their aliases, an unreadable answer scores 0
// and is counted, and any other failure stops the run.
func TestGenerateAndScore(t *testing.T) {
	questions := []Question{
		{ID: "1", Question: "Who founded the guild?", Answer: Aliases{"Ilsa Marrow"}},
		{ID: "2", Question: "What did Quill add?", Answer: Aliases{"a tide dial", "tide dial"}},
		{ID: "3", Question: "Broken?", Answer: Aliases{"x"}},
	}
	q := scriptedQuerier{
		"Who founded the guild?": "Ilsa Marrow founded it [doc:harbor-guild.md].",
		"What did Quill add?":    "A tide dial.",
		"Broken?":                "<unreadable>",
	}
	gen, err := Generate(context.Background(), q, questions, retrieval.DefaultOptions(retrieval.ModeHi))
	if err != nil {
		t.Fatal(err)
	}
	rep := ScoreAnswers(retrieval.ModeHi, questions, gen)
	// Accuracy: 1, 1, 0. EM: 0, 1, 0. F1: [ilsa marrow founded it docharborguildmd] against
	// [ilsa marrow]: P 2/5, R 1, F1 4/7; then 1; then 0.
	want := Scores{Accuracy: 2.0 / 3, ExactMatch: 1.0 / 3, F1: (4.0/7 + 1) / 3}
	if math.Abs(rep.Accuracy-want.Accuracy) > 1e-9 || math.Abs(rep.ExactMatch-want.ExactMatch) > 1e-9 || math.Abs(rep.F1-want.F1) > 1e-9 {
		t.Errorf("means %+v, want %+v", rep.Scores, want)
	}
	if rep.Unreadable != 1 || !rep.Results[2].Unreadable || rep.Questions != 3 || rep.LatencyMS.P95 < rep.LatencyMS.P50 || rep.LatencyMS.P50 <= 0 {
		t.Errorf("report %+v", rep)
	}
	if _, err := Generate(context.Background(), q, append(questions, Question{ID: "4", Question: "unknown"}), retrieval.DefaultOptions(retrieval.ModeHi)); err == nil || !strings.Contains(err.Error(), "question 4") {
		t.Errorf("a failed query: %v", err)
	}
}

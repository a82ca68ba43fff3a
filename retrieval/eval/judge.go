package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/prompts"
)

// Dimensions are the dimensions a judge compares two answers on, after HiRAG's and LightRAG's
// evaluation (internal/llmtask/pairjudge words them for the model).
var Dimensions = []string{"comprehensiveness", "empowerment", "diversity", "overall"}

// Preference is a judge's verdict on one dimension of two answers shown in some order.
type Preference int

// The preferences a judge may state.
const (
	PreferFirst Preference = iota + 1
	PreferSecond
	PreferNeither // a tie
)

// JudgeFunc judges the answers first and second, shown to the judge in that order, to question.
// A dimension missing from the result could not be read; an error wrapping
// prompts.ErrUnreadable means that no dimension could.
type JudgeFunc func(ctx context.Context, question, first, second string) (map[string]Preference, error)

// Pair is one question's two answers: strata's and the other system's.
type Pair struct {
	ID, Question, Strata, Other string
}

// Judgment is one verdict on a pair shown in one order.
type Judgment struct {
	// Order says which answer the judge saw first: "strata_first" or "other_first".
	Order string `json:"order"`
	// Winners maps each dimension read to "strata", "other" or "tie".
	Winners map[string]string `json:"winners"`
	// Unreadable: nothing could be read from the verdict.
	Unreadable bool `json:"unreadable,omitempty"`
}

// The orders of a Judgment.
const (
	StrataFirst = "strata_first"
	OtherFirst  = "other_first"
)

// PairResult is a pair and its two judgments.
type PairResult struct {
	ID        string     `json:"id"`
	Question  string     `json:"question"`
	Strata    string     `json:"answer"`
	Other     string     `json:"other_answer"`
	Judgments []Judgment `json:"judgments"`
}

// JudgeReport is the judge object of `strata eval --against --json`.
type JudgeReport struct {
	Against   string `json:"against"`
	Questions int    `json:"questions"`
	// Judgments counts the verdicts read, in full or in part: 2 × questions when all are.
	Judgments int `json:"judgments"`
	// Unreadable counts the verdicts nothing could be read from. They are in no win rate, and
	// counted here so that none goes missing silently.
	Unreadable int `json:"unreadable"`
	// WinRates is strata's share of the verdicts read on each dimension, a tie counting half.
	// A dimension no verdict could be read on is left out.
	WinRates map[string]float64 `json:"win_rates"`
	// Intervals are the 95 % intervals of the win rates (IntervalMethod).
	Intervals      map[string][2]float64 `json:"intervals"`
	IntervalMethod string                `json:"interval_method"`
	// Counted is the number of verdicts read on each dimension, the n of its rate; Ties how
	// many of them were ties.
	Counted map[string]int `json:"counted"`
	Ties    map[string]int `json:"ties"`
	Results []PairResult   `json:"results"`
}

// intervalMethod names the interval of the win rates for readers of the report.
const intervalMethod = "wilson score, 95 %, over the verdicts read on the dimension (ties as half a win)"

// JudgePairs asks judge about every pair in both orders, strata's answer first and then the
// other's, so that a judge's preference for a position cancels out, at most concurrency
// verdicts at a time, and tallies the verdicts. A verdict nothing could be read from is counted
// as unreadable; any other failure stops the run.
func JudgePairs(ctx context.Context, judge JudgeFunc, against string, pairs []Pair, concurrency int) (JudgeReport, error) {
	results := make([]PairResult, len(pairs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, concurrency))
	for i, p := range pairs {
		results[i] = PairResult{ID: p.ID, Question: p.Question, Strata: p.Strata, Other: p.Other, Judgments: make([]Judgment, 2)}
		for k, order := range []string{StrataFirst, OtherFirst} {
			g.Go(func() error {
				first, second := p.Strata, p.Other
				if order == OtherFirst {
					first, second = second, first
				}
				prefs, err := judge(gctx, p.Question, first, second)
				j := Judgment{Order: order, Winners: map[string]string{}}
				switch {
				case errors.Is(err, prompts.ErrUnreadable):
					j.Unreadable = true
				case err != nil:
					return fmt.Errorf("judge question %s (%s): %w", p.ID, order, err)
				}
				for d, pref := range prefs {
					j.Winners[d] = winnerName(pref, order)
				}
				if len(j.Winners) == 0 {
					j.Unreadable = true
				}
				results[i].Judgments[k] = j
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return JudgeReport{}, err
	}
	return Tally(against, results), nil
}

// winnerName names the winner of a preference stated with the answers shown in order.
func winnerName(p Preference, order string) string {
	switch {
	case p == PreferNeither:
		return "tie"
	case (p == PreferFirst) == (order == StrataFirst):
		return "strata"
	}
	return "other"
}

// Tally computes the report's counts, win rates and intervals from judged pairs.
func Tally(against string, results []PairResult) JudgeReport {
	rep := JudgeReport{Against: against, Questions: len(results), WinRates: map[string]float64{},
		Intervals: map[string][2]float64{}, IntervalMethod: intervalMethod, Counted: map[string]int{}, Ties: map[string]int{},
		Results: results}
	wins := map[string]float64{}
	for _, r := range results {
		for _, j := range r.Judgments {
			if j.Unreadable {
				rep.Unreadable++
				continue
			}
			rep.Judgments++
			for d, w := range j.Winners {
				rep.Counted[d]++
				switch w {
				case "strata":
					wins[d]++
				case "tie":
					wins[d] += 0.5
					rep.Ties[d]++
				}
			}
		}
	}
	for _, d := range Dimensions {
		n := rep.Counted[d]
		if n == 0 {
			continue
		}
		p := wins[d] / float64(n)
		rep.WinRates[d] = p
		lo, hi := Wilson(p, n)
		rep.Intervals[d] = [2]float64{lo, hi}
	}
	return rep
}

// z95 is the standard normal quantile of a two-sided 95 % interval.
const z95 = 1.959964

// Wilson is the 95 % Wilson score interval of a proportion p observed over n trials. It stays
// within [0, 1] and is not degenerate at p = 0 or 1, unlike the normal approximation, which
// matters at the small n an evaluation of a few dozen questions has.
func Wilson(p float64, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	z2 := z95 * z95
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := z95 / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(0, center-half), min(1, center+half)
}

// Package eval measures retrieval and answer quality: recall of gold documents among the ranked
// documents of a query's context chunks (Run), generated answers scored against gold answers
// (metrics.go, answers.go), and judged head-to-head win rates of two systems' answers (judge.go).
package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/stratarag/strata/retrieval"
)

// Question is one line of a questions file.
type Question struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	// Answer is the gold answer: a string or a list of aliases in the file.
	Answer Aliases  `json:"answer,omitempty"`
	Gold   []string `json:"gold"`
}

// questionLine is a line as written: "query" is taken for "question", as in the answer files
// other systems publish.
type questionLine struct {
	Question
	Query string `json:"query"`
}

// Need says what every question of a file must have besides its text.
type Need int

// What a questions file must hold for each kind of evaluation.
const (
	NeedGold   Need = 1 << iota // gold document ids, and an id (recall)
	NeedAnswer                  // a gold answer (answer metrics)
)

// ErrNoAnswer is wrapped by ReadFor's error for a question without a gold answer when one is
// needed: the file is wrong for the evaluation asked for, which callers report as bad usage.
var ErrNoAnswer = errors.New(`missing "answer" (the gold answer, a string or a list of aliases)`)

// ReadQuestions reads a JSON Lines questions file for recall: every line must be a question
// with an id, a question text and at least one gold document id; a bad line is an error naming
// the line.
func ReadQuestions(path string) ([]Question, error) { return ReadFor(path, NeedGold) }

// ReadFor reads a JSON Lines questions file whose every line has a question text ("question" or
// "query") and what need asks for; a bad line is an error naming the line. Without NeedGold a
// question without an id is given "#<line>".
func ReadFor(path string, need Need) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read questions: %w", err)
	}
	defer f.Close()
	var qs []Question
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var ql questionLine
		if err := json.Unmarshal([]byte(text), &ql); err != nil {
			return nil, fmt.Errorf("%s:%d: not a JSON object: %w", path, line, err)
		}
		q := ql.Question
		if strings.TrimSpace(q.Question) == "" {
			q.Question = ql.Query
		}
		if q.ID == "" && need&NeedGold == 0 {
			q.ID = fmt.Sprintf("#%d", line)
		}
		switch {
		case q.ID == "":
			return nil, fmt.Errorf("%s:%d: missing \"id\"", path, line)
		case strings.TrimSpace(q.Question) == "":
			return nil, fmt.Errorf("%s:%d: missing \"question\"", path, line)
		case need&NeedGold != 0 && len(q.Gold) == 0:
			return nil, fmt.Errorf("%s:%d: missing \"gold\" document ids", path, line)
		case need&NeedAnswer != 0 && len(q.Answer) == 0:
			return nil, fmt.Errorf("%s:%d: %w", path, line, ErrNoAnswer)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no questions", path)
	}
	return qs, nil
}

// Ks are the cut-offs recall is reported at.
var Ks = []int{2, 5, 10}

// Report is the result of an evaluation run.
type Report struct {
	Mode      retrieval.Mode     `json:"mode"`
	Questions int                `json:"questions"`
	Recall    map[string]float64 `json:"recall"` // "recall@2" → mean recall
	MeanMS    float64            `json:"mean_query_ms"`
	// MeanContextTokens is the mean size of the context text in tokens (0 when Run had no
	// counter): what the answer's prompt would carry, to compare modes at equal recall.
	MeanContextTokens float64 `json:"mean_context_tokens"`
	// MeanSectionTokens is the mean of each context section's tokens by its heading (a question
	// without the section counts 0), from the results' budget: where the context's tokens go.
	MeanSectionTokens map[string]float64 `json:"mean_section_tokens"`
	Results           []QuestionResult   `json:"results"`
}

// QuestionResult is the outcome of one question.
type QuestionResult struct {
	ID        string             `json:"id"`
	Gold      []string           `json:"gold"`
	Documents []string           `json:"documents"` // ranked, distinct, as retrieved
	Recall    map[string]float64 `json:"recall"`
	// ContextTokens is the size of the context text in tokens (0 without a counter).
	ContextTokens int `json:"context_tokens"`
}

// Counter counts the tokens of a text (*tokenizer.Tokenizer is one).
type Counter interface {
	Count(s string) int
}

// Querier runs one query; *retrieval.Engine is one.
type Querier interface {
	Query(ctx context.Context, question string, opt retrieval.Options) (*retrieval.Result, error)
}

// Run asks every question with opt (context only) and computes recall@k of the gold documents,
// and with a counter (tok may be nil) the context text's size in tokens.
func Run(ctx context.Context, q Querier, tok Counter, questions []Question, opt retrieval.Options) (Report, error) {
	opt.ContextOnly = true
	opt.TopK = max(opt.TopK, slices.Max(Ks))
	rep := newReport(opt.Mode, len(questions))
	var total time.Duration
	for _, question := range questions {
		start := time.Now()
		res, err := q.Query(ctx, question.Question, opt)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return rep, err
			}
			return rep, fmt.Errorf("question %s: %w", question.ID, err)
		}
		total += time.Since(start)
		rep.add(question, res, tok)
	}
	rep.MeanMS = float64(total.Microseconds()) / 1000 / float64(len(questions))
	return rep, nil
}

func newReport(mode retrieval.Mode, questions int) Report {
	return Report{Mode: mode, Questions: questions, Recall: map[string]float64{}, MeanSectionTokens: map[string]float64{}}
}

// add adds one question's result to the report's per-question results and means.
func (rep *Report) add(question Question, res *retrieval.Result, tok Counter) {
	n := float64(rep.Questions)
	qr := QuestionResult{ID: question.ID, Gold: question.Gold, Documents: []string{}, Recall: map[string]float64{}}
	for _, c := range res.Context.Chunks {
		if !slices.Contains(qr.Documents, c.DocumentID) {
			qr.Documents = append(qr.Documents, c.DocumentID)
		}
	}
	if tok != nil {
		qr.ContextTokens = tok.Count(res.ContextText)
		rep.MeanContextTokens += float64(qr.ContextTokens) / n
	}
	for _, s := range res.Budget.Sections {
		rep.MeanSectionTokens[s.Section] += float64(s.Tokens) / n
	}
	for _, k := range Ks {
		r := Recall(question.Gold, qr.Documents, k)
		qr.Recall[key(k)] = r
		rep.Recall[key(k)] += r / n
	}
	rep.Results = append(rep.Results, qr)
}

// Recall returns the fraction of gold ids among the first k ranked ids.
func Recall(gold, ranked []string, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	top := ranked[:min(k, len(ranked))]
	found := 0
	for _, g := range gold {
		if slices.Contains(top, g) {
			found++
		}
	}
	return float64(found) / float64(len(gold))
}

func key(k int) string { return fmt.Sprintf("recall@%d", k) }

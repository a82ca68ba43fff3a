// Package pairjudge is the model task that judges two answers to one question head to head
// (stage Stage), as HiRAG, LightRAG, LeanRAG and ArchRAG evaluate answers: a verdict on each of
// four dimensions (comprehensiveness, empowerment, diversity, overall), asked as a JSON object
// (schema.go). Its prompt (pairjudge.tmpl) is written after the papers' definitions of the
// dimensions, in strata's own words. The caller shows every pair in both orders, so that a
// judge's preference for a position cancels out; this package judges one order.
package pairjudge

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// Task is the task title of the prompt, by which its requests are recognized (prompts.TaskOf).
const Task = "Answer comparison"

// Labels fence the question and the two answers in the prompt. Letters, not digits: the fence
// neutraliser only recognises fence-like lines whose label is letters and spaces, so an answer
// that writes "-----END ANSWER A-----" cannot close its own fence.
const (
	QuestionLabel = "QUESTION"
	LabelA        = "ANSWER A"
	LabelB        = "ANSWER B"
)

// Stage labels the judge's calls in the client's accounting. It is not one of internal/llm's
// stages because only strata eval makes these calls.
const Stage = "judge"

// MaxTokens caps the verdict: four one-sentence reasons and four winners.
const MaxTokens = 600

// noAnswer stands in for an empty answer, so that the judge sees that nothing was said rather
// than an empty fence it might read as a formatting slip.
const noAnswer = "(no answer)"

// The dimensions judged, in the order reports list them.
const (
	Comprehensiveness = "comprehensiveness"
	Empowerment       = "empowerment"
	Diversity         = "diversity"
	Overall           = "overall"
)

// Dimensions lists the dimensions in report order.
var Dimensions = []string{Comprehensiveness, Empowerment, Diversity, Overall}

// Winner is the verdict on one dimension.
type Winner string

// The winners a verdict may name.
const (
	WinnerA Winner = "A"
	WinnerB Winner = "B"
	Tie     Winner = "tie"
)

// Verdict maps each dimension the judge's answer named a winner for to that winner; a dimension
// missing from it could not be read.
type Verdict map[string]Winner

//go:embed pairjudge.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "pairjudge.tmpl")

// Prompt renders the comparison prompt of answers a and b (shown in that order) to question.
// An empty answer is shown as "(no answer)".
func Prompt(question, a, b string) (prompts.Prompt, error) {
	if strings.TrimSpace(question) == "" {
		return prompts.Prompt{}, errors.New("answer comparison prompt: empty question")
	}
	shown := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return noAnswer
		}
		return s
	}
	return prompts.RenderPair(templates, "pairjudge", struct {
		Question, A, B prompts.Fenced
	}{prompts.Fence(QuestionLabel, question), prompts.Fence(LabelA, shown(a)), prompts.Fence(LabelB, shown(b))})
}

// Options configures a judgment. Zero fields take defaults.
type Options struct {
	// MaxAnswerTokens clips each answer to this many tokens (cl100k) before it is shown; 0
	// clips only what the judge's context window cannot hold (when the client knows it).
	MaxAnswerTokens int
}

// Judge asks chat which of a and b (shown in that order) answers question better on each
// dimension. An answer with no readable winner on any dimension is asked for once more, then is
// unreadable (the error wraps prompts.ErrUnreadable); an answer with some dimensions readable is
// kept, the others missing from the verdict.
func Judge(ctx context.Context, chat llm.Chatter, question, a, b string, opts Options) (Verdict, error) {
	if n := answerBudget(chat, opts.MaxAnswerTokens); n > 0 {
		a, b = clip(chat, a, n), clip(chat, b, n)
	}
	p, err := Prompt(question, a, b)
	if err != nil {
		return nil, err
	}
	msgs := llmtask.Messages(p)
	req := llm.ChatRequest{Stage: Stage, Messages: msgs, MaxTokens: MaxTokens, JSON: true, Judge: judge,
		Structured: &llm.Structured{Name: "answer_comparison", Schema: Schema(), Messages: msgs}}
	v, err := llmtask.AskTwice(ctx, chat, req, func(answer string) (Verdict, error) {
		v, _, err := Parse(answer)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("answer comparison: %w", err)
	}
	return v, nil
}

// promptTokens is what the comparison prompt takes besides the answers: its instructions, the
// question and the fences, generously.
const promptTokens = 700

// answerBudget is the most tokens each answer may keep: max when set, and in any case what a
// known context window holds beside the prompt and the verdict (with the fifth the client keeps
// for the server's tokenizer); 0 for no limit.
func answerBudget(chat llm.Chatter, maxTokens int) int {
	window := llm.WindowOf(chat)
	if window <= 0 {
		return maxTokens
	}
	fit := max(1, (llm.PromptRoom(window, MaxTokens)-promptTokens)/2)
	if maxTokens > 0 {
		return min(maxTokens, fit)
	}
	return fit
}

// clip cuts s to n tokens when chat can count them, else to about 4 characters a token, and
// says that it did: the judge should not take a cut answer for one that stops mid-sentence.
func clip(chat llm.Chatter, s string, n int) string {
	cut := -1
	if t, ok := chat.(interface{ Tokenizer() *tokenizer.Tokenizer }); ok {
		if ends, err := t.Tokenizer().Ends(s); err == nil && len(ends) > n {
			cut = ends[n-1]
		} else if err == nil {
			return s
		}
	}
	if cut < 0 {
		if len(s) <= 4*n {
			return s
		}
		cut = 4 * n
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
	}
	return strings.TrimSpace(s[:cut]) + " […]"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Parse reads a verdict from the judge's answer: a JSON object (fenced, in prose, truncated)
// keyed by dimension in any letter case, each value an object with a "winner" (or "better",
// "choice") or the winner itself; winners written "A", "Answer A", "1", "answer 1", "tie",
// "equal", "both", "neither". dropped counts dimensions without a readable winner. It fails only
// when no dimension has one.
func Parse(answer string) (v Verdict, dropped int, err error) {
	js, err := prompts.ExtractJSON(answer)
	if err != nil {
		return nil, len(Dimensions), err
	}
	var raw any
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		return nil, len(Dimensions), err
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, len(Dimensions), errors.New("verdict is not a JSON object")
	}
	lower := map[string]any{}
	for k, val := range m {
		lower[strings.ToLower(strings.TrimSpace(k))] = val
	}
	v = Verdict{}
	for _, d := range Dimensions {
		if w, ok := winnerOf(lower[d]); ok {
			v[d] = w
		} else {
			dropped++
		}
	}
	if len(v) == 0 {
		return nil, dropped, errors.New("verdict names no winner on any dimension")
	}
	return v, dropped, nil
}

// winnerOf reads the winner of one dimension's value.
func winnerOf(val any) (Winner, bool) {
	switch t := val.(type) {
	case string:
		return ParseWinner(t)
	case map[string]any:
		for k, x := range t {
			switch strings.ToLower(k) {
			case "winner", "better", "choice", "preferred":
				if s, ok := x.(string); ok {
					return ParseWinner(s)
				}
			}
		}
	}
	return "", false
}

// ParseWinner reads a winner as models write it.
func ParseWinner(s string) (Winner, bool) {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), `"'.*:`))
	s = strings.TrimSpace(strings.TrimPrefix(s, "answer"))
	switch s {
	case "a", "1":
		return WinnerA, true
	case "b", "2":
		return WinnerB, true
	case "tie", "equal", "both", "neither", "draw", "same":
		return Tie, true
	}
	return "", false
}

func judge(resp llm.ChatResponse) llm.Verdict {
	_, dropped, err := Parse(resp.Content)
	return llmtask.JSONVerdict(dropped, err, resp.Truncated())
}

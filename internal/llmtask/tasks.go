// Package llmtask holds strata's prompt-level model tasks. Each task is one package below this
// one (extraction, report, summaryentities, summarize, summaryrelation, archsummary, keypoints,
// answer, pairjudge)
// holding its template, the rendering of its prompt, the call and the reading and judging of
// the answer: adding a task touches its package and the stage that uses it. This package holds
// what they share (Messages, AskTwice, the judges' verdicts). A task sends its prompt through an
// llm.Chatter (normally an *llm.Client, which brings retries, rate limits, the response cache
// and accounting), so that the client stays a transport and the stages that use a task never
// see a message or a parser.
//
// Every task but extraction (which salvages every answer) follows one rule for answers it
// cannot use: it returns an error wrapping
// prompts.ErrUnreadable, which a caller with a model-free stand-in absorbs and any other caller
// passes on. Each task's doc says what makes its answer unreadable, whether it asks once more
// first, and what it salvages from an answer that is only partly readable; a salvaged answer is
// not an error. Every task judges its answers (judge.go): salvaged and unreadable answers are
// counted per stage by the client and never cached, so a later run asks for them again.
package llmtask

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
)

// Input budgets of the prompts, in cl100k tokens, for callers that set none. InputTokens bounds
// the descriptions merged in one summarize request (the first mentions of an entity say what
// it is; later ones mostly repeat them) and ClusterInputTokens the member list of one
// summary-entities prompt (about twenty members, the most connected first: those a summary is
// named for). ReportInputTokens bounds the community text of one report prompt: the heaviest
// members first, which hold what a report's five findings say (past about 2 000 tokens the
// prompt grew with the community while the answer did not). ReportMinInputTokens is the
// community text below which a report is written without a model: a community that says about
// as much as a report would (a dozen short member lines, or the reports of two or three
// sub-communities) is read as well from its members, and such communities are most of the
// finest levels.
const (
	InputTokens          = 2000
	ClusterInputTokens   = 1000
	ReportInputTokens    = 2000
	ReportMinInputTokens = 800
)

// FitInput returns budget, or less when chat's known context window (llm.WindowOf) cannot hold
// a prompt of overhead tokens besides the input, plus an answer of up to answerCap tokens (at
// most a quarter of the window), with the margin the client keeps for the server's own tokenizer
// (llm.PromptRoom). It never returns less than a tenth of budget: a window that small fails the
// call with the client's own message rather than sending nothing.
func FitInput(chat llm.Chatter, budget, answerCap, overhead int) int {
	window := llm.WindowOf(chat)
	if window <= 0 {
		return budget
	}
	fit := llm.PromptRoom(window, min(answerCap, window/4)) - overhead
	return max(min(budget, fit), budget/10)
}

// retryTemperature is used for the one extra attempt after an unreadable answer. The first
// attempt runs at temperature 0, so asking again unchanged would return the same answer (and
// the cache would serve it); a little randomness gives the model another chance.
const retryTemperature = 0.5

// Messages are the chat messages of a rendered prompt: its system message, then its user
// message.
func Messages(p prompts.Prompt) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: p.System}, {Role: llm.RoleUser, Content: p.User}}
}

// AskTwice sends req and parses the answer. An answer parse rejects is asked for once more at
// retryTemperature; when that one is rejected too, the error wraps prompts.ErrUnreadable and the
// parser's last complaint.
func AskTwice[T any](ctx context.Context, chat llm.Chatter, req llm.ChatRequest, parse func(answer string) (T, error)) (T, error) {
	var zero T
	var perr error
	for _, temp := range []float32{0, retryTemperature} {
		req.Temperature = temp
		resp, err := chat.Chat(ctx, req)
		if err != nil {
			return zero, err
		}
		v, err := parse(resp.Content)
		if err == nil {
			return v, nil
		}
		perr = err
	}
	return zero, fmt.Errorf("%w: %w", prompts.ErrUnreadable, perr)
}

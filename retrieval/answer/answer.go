// Package answer adapts the answer task (internal/llmtask/answer) to retrieval's engine: a
// Generator is a retrieval.Answerer and retrieval.StreamingAnswerer, and fits the engine's
// context budget to the chat model's window.
package answer

import (
	"context"

	"github.com/stratarag/strata/internal/llm"
	task "github.com/stratarag/strata/internal/llmtask/answer"
	"github.com/stratarag/strata/retrieval"
)

// Options configures answer generation (task.Options). Zero fields take defaults.
type Options = task.Options

// Generator adapts the answer task to an interface with an Answer method (retrieval.Answerer).
type Generator struct {
	chat llm.Chatter
	opts Options
}

// New returns a Generator calling chat with opts.
func New(chat llm.Chatter, opts Options) *Generator {
	return &Generator{chat: chat, opts: opts}
}

// answerPromptTokens is what the answer prompt takes besides the context: its instructions and
// the question, generously.
const answerPromptTokens = 500

// The engine lowers a query's context to what fits the model (retrieval.ContextBudgeter).
var _ retrieval.ContextBudgeter = (*Generator)(nil)

// ContextBudget is the most context, in tokens, that fits the chat model's window together with
// the answer prompt and an answer of up to a quarter of the window (at most the answer's cap),
// or 0 when the window is not known. retrieval.Engine fits every mode's budget to it.
func (g *Generator) ContextBudget() int {
	window := llm.WindowOf(g.chat)
	if window <= 0 {
		return 0
	}
	maxTokens := g.opts.MaxTokens
	if maxTokens <= 0 {
		maxTokens = task.DefaultMaxTokens
	}
	return max(0, llm.PromptRoom(window, min(maxTokens, window/4))-answerPromptTokens)
}

// Answer answers question from contextText; the answer says whether it was cut at the token
// limit and how many made-up citations were removed.
func (g *Generator) Answer(ctx context.Context, question, contextText string) (retrieval.Answer, error) {
	return g.AnswerStream(ctx, question, contextText, nil)
}

// AnswerStream is Answer, sending the answer's text to onText while it is written: the pieces
// concatenate to the start of the final text, with reasoning and made-up citations left out
// (retrieval.StreamingAnswerer).
func (g *Generator) AnswerStream(ctx context.Context, question, contextText string, onText func(string)) (retrieval.Answer, error) {
	a, err := task.GenerateStream(ctx, g.chat, question, contextText, g.opts, onText)
	if err != nil {
		return retrieval.Answer{}, err
	}
	return retrieval.Answer{Text: a.Text, Truncated: a.Truncated, CitationsRemoved: len(a.Removed)}, nil
}

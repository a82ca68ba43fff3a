// Package answer generates answers from retrieved context with an LLM, citing the sources the
// context labels ([doc:ID], [chunk:ID], …).
package answer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
	"github.com/stratarag/strata/retrieval"
)

// DefaultMaxTokens caps an answer.
const DefaultMaxTokens = 1500

// ErrEmptyContext is returned when there is no context to answer from; no call is made.
var ErrEmptyContext = errors.New("no context to answer from")

// Options configures answer generation. Zero fields take defaults.
type Options struct {
	MaxTokens   int     // DefaultMaxTokens when 0
	Temperature float32 // 0: as repeatable as the server allows
	// KeepUnknownCitations keeps citations of ids that do not occur in the context. By default
	// they are removed, since the model made them up.
	KeepUnknownCitations bool
}

// Answer is a generated answer.
type Answer struct {
	Text string
	// Citations are the sources the answer cites that occur in the context, in order.
	Citations []prompts.Citation
	// Removed are cited ids that do not occur in the context and were taken out of Text.
	Removed []prompts.Citation
	// Truncated reports that the answer hit MaxTokens.
	Truncated bool
}

// Generate answers question from contextText with the answer prompt and returns the answer text.
func Generate(ctx context.Context, chat llm.Chatter, question, contextText string) (string, error) {
	a, err := GenerateWith(ctx, chat, prompts.New(), question, contextText, Options{})
	if err != nil {
		return "", err
	}
	return a.Text, nil
}

// GenerateWith is Generate with a prompt set and options, returning citations too. An answer
// with nothing left once reasoning is removed is unreadable (the error wraps
// prompts.ErrUnreadable); it is not asked for again.
func GenerateWith(ctx context.Context, chat llm.Chatter, ps *prompts.Set, question, contextText string, opts Options) (Answer, error) {
	return generate(ctx, chat, ps, question, contextText, opts, nil)
}

// generate is GenerateWith, sending the answer's text to onText while it is written when onText
// is set (see newStreamFilter for what is sent).
func generate(ctx context.Context, chat llm.Chatter, ps *prompts.Set, question, contextText string, opts Options, onText func(string)) (Answer, error) {
	if strings.TrimSpace(contextText) == "" {
		return Answer{}, ErrEmptyContext
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	p, err := ps.Answer(question, contextText)
	if err != nil {
		return Answer{}, err
	}
	keep := func(c prompts.Citation) bool {
		return opts.KeepUnknownCitations || strings.Contains(contextText, c.Kind+":"+c.ID)
	}
	req := llm.ChatRequest{
		Stage:       llm.StageAnswer,
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: p.System}, {Role: llm.RoleUser, Content: p.User}},
		MaxTokens:   opts.MaxTokens,
		Temperature: opts.Temperature,
	}
	if onText != nil {
		f := newStreamFilter(keep, onText)
		req.OnDelta, req.OnRetry = f.write, f.retry
	}
	resp, err := chat.Chat(ctx, req)
	if err != nil {
		// The client's error names the stage and model already; callers say what failed.
		return Answer{}, err
	}
	text := prompts.CleanAnswer(resp.Content)
	if text == "" {
		return Answer{}, fmt.Errorf("%w: nothing was left once the model's reasoning was removed", prompts.ErrUnreadable)
	}
	a := Answer{Truncated: resp.Truncated()}
	a.Text, a.Citations, a.Removed = prompts.FilterCitations(text, keep)
	return a, nil
}

// Generator adapts Generate to an interface with an Answer method (retrieval.Answerer).
type Generator struct {
	chat    llm.Chatter
	prompts *prompts.Set
	opts    Options
}

// New returns a Generator calling chat with opts.
func New(chat llm.Chatter, opts Options) *Generator {
	return &Generator{chat: chat, prompts: prompts.New(), opts: opts}
}

// answerPromptTokens is what the answer prompt takes besides the context: its instructions and
// the question, generously.
const answerPromptTokens = 500

// ContextBudget is the most context, in tokens, that fits the chat model's window together with
// the answer prompt and an answer of up to a quarter of the window (at most the answer's cap),
// or 0 when the window is not known. retrieval.Engine fits every mode's budget to it.
func (g *Generator) ContextBudget() int {
	w, ok := g.chat.(interface{ ContextWindow() int })
	if !ok || w.ContextWindow() <= 0 {
		return 0
	}
	window := w.ContextWindow()
	maxTokens := g.opts.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	// The client estimates prompts in cl100k and keeps a fifth more for the server's tokenizer.
	return max(0, (window-min(maxTokens, window/4))*5/6-answerPromptTokens)
}

// Answer answers question from contextText; the answer says whether it was cut at the token
// limit and how many made-up citations were removed.
func (g *Generator) Answer(ctx context.Context, question, contextText string) (retrieval.Answer, error) {
	a, err := GenerateWith(ctx, g.chat, g.prompts, question, contextText, g.opts)
	if err != nil {
		return retrieval.Answer{}, err
	}
	return retrieval.Answer{Text: a.Text, Truncated: a.Truncated, CitationsRemoved: len(a.Removed)}, nil
}

// AnswerStream is Answer, sending the answer's text to onText while it is written: the pieces
// concatenate to the start of the final text, with reasoning and made-up citations left out
// (retrieval.StreamingAnswerer).
func (g *Generator) AnswerStream(ctx context.Context, question, contextText string, onText func(string)) (retrieval.Answer, error) {
	a, err := generate(ctx, g.chat, g.prompts, question, contextText, g.opts, onText)
	if err != nil {
		return retrieval.Answer{}, err
	}
	return retrieval.Answer{Text: a.Text, Truncated: a.Truncated, CitationsRemoved: len(a.Removed)}, nil
}

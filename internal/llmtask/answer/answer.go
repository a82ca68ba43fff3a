// Package answer is the model task that answers a question from retrieved context, citing the
// sources the context labels ([doc:ID], [chunk:ID], …) (stage llm.StageAnswer): its prompt
// (answer.tmpl), the call, streamed or not, and the reading of the answer, whose made-up
// citations are removed. The citation format (prompts.Citation, prompts.FilterCitations) stays
// in package prompts: retrieval reads the citations of key points with it. retrieval/answer
// adapts the task to retrieval's engine.
package answer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/prompts"
)

// Task is the task title of the prompt, by which its requests are recognized (prompts.TaskOf).
const Task = "Answer with citations"

// Label fences the context in the prompt.
const Label = "CONTEXT"

// DefaultMaxTokens caps an answer.
const DefaultMaxTokens = 1500

// ErrEmptyContext is returned when there is no context to answer from; no call is made.
var ErrEmptyContext = errors.New("no context to answer from")

//go:embed answer.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "answer.tmpl")

// Prompt renders the answer prompt for question over retrieved contextText. Sources in
// contextText are expected to carry bracketed ids such as [doc:ID] or [chunk:ID].
func Prompt(question, contextText string) (prompts.Prompt, error) {
	if strings.TrimSpace(question) == "" {
		return prompts.Prompt{}, errors.New("answer prompt: empty question")
	}
	return prompts.RenderPair(templates, "answer", struct {
		Question string
		Context  prompts.Fenced
	}{strings.Join(strings.Fields(question), " "), prompts.Fence(Label, contextText)})
}

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
	a, err := GenerateStream(ctx, chat, question, contextText, Options{}, nil)
	if err != nil {
		return "", err
	}
	return a.Text, nil
}

// GenerateStream is Generate with options, returning citations too, and sending the answer's
// text to onText while it is written when onText is set: the pieces concatenate to the start of
// the final text, with reasoning and made-up citations left out (see newStreamFilter). An answer
// with nothing left once reasoning is removed is unreadable (the error wraps
// prompts.ErrUnreadable); it is not asked for again.
func GenerateStream(ctx context.Context, chat llm.Chatter, question, contextText string, opts Options, onText func(string)) (Answer, error) {
	if strings.TrimSpace(contextText) == "" {
		return Answer{}, ErrEmptyContext
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	p, err := Prompt(question, contextText)
	if err != nil {
		return Answer{}, err
	}
	keep := func(c prompts.Citation) bool {
		return opts.KeepUnknownCitations || strings.Contains(contextText, c.Kind+":"+c.ID)
	}
	req := llm.ChatRequest{
		Stage:       llm.StageAnswer,
		Messages:    llmtask.Messages(p),
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

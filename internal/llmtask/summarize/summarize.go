// Package summarize is the model task that merges the descriptions an entity or relation
// collected across chunks into one (stage llm.StageSummarize): its prompt (summarize.tmpl), the
// calls, in groups when the descriptions exceed the input budget, and the reading of the answer.
package summarize

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llmtask"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// Task is the task title of the prompt, by which its requests are recognized (prompts.TaskOf).
const Task = "Description merging"

// Label fences the descriptions in the prompt.
const Label = "DESCRIPTIONS"

// DefaultWords is the word limit of a merged description when the options give none.
const DefaultWords = 200

//go:embed summarize.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "summarize.tmpl")

// Prompt renders the prompt that merges the descriptions of one entity or relationship (name)
// into one of at most maxWords words (DefaultWords when not positive).
func Prompt(name string, descriptions []string, maxWords int) (prompts.Prompt, error) {
	if len(descriptions) == 0 {
		return prompts.Prompt{}, errors.New("summarize prompt: no descriptions")
	}
	if maxWords <= 0 {
		maxWords = DefaultWords
	}
	var b strings.Builder
	for _, d := range descriptions {
		b.WriteString("- ")
		b.WriteString(strings.Join(strings.Fields(d), " "))
		b.WriteByte('\n')
	}
	return prompts.RenderPair(templates, "summarize", struct {
		Name         string
		Descriptions prompts.Fenced
		MaxWords     int
	}{prompts.CleanText(name), prompts.Fence(Label, b.String()), maxWords})
}

// Options configures a Summarizer. Zero fields take defaults.
type Options struct {
	// MaxWords bounds the merged description (DefaultWords).
	MaxWords int
	// MaxInputTokens bounds the descriptions sent in one request (llmtask.InputTokens).
	// Longer lists are merged in groups first, then the group summaries are merged.
	MaxInputTokens int
	// Counter counts tokens for that budget; when nil a cl100k tokenizer is loaded.
	Counter llm.Counter
}

// Summarizer merges the descriptions an entity or relation collected across chunks into one,
// with the LLM. It implements the Summarizer interface of pipeline/resolve.
type Summarizer struct {
	chat llm.Chatter
	opts Options
}

// New returns a summarizer that calls chat (normally an *llm.Client).
func New(chat llm.Chatter, opts Options) (*Summarizer, error) {
	if opts.MaxWords <= 0 {
		opts.MaxWords = DefaultWords
	}
	if opts.MaxInputTokens <= 0 {
		opts.MaxInputTokens = llmtask.InputTokens
	}
	if opts.Counter == nil {
		if c, ok := chat.(*llm.Client); ok {
			opts.Counter = c.Tokenizer()
		} else {
			tok, err := tokenizer.New()
			if err != nil {
				return nil, fmt.Errorf("summarizer: %w", err)
			}
			opts.Counter = tok
		}
	}
	return &Summarizer{chat: chat, opts: opts}, nil
}

// Summarize returns one description for name merging descriptions. Exact duplicates are sent
// once; a single description within the word limit is returned as is, at no cost. An answer
// with nothing left once reasoning, quotes and labels are removed is unreadable; it is not asked
// for again.
func (s *Summarizer) Summarize(ctx context.Context, name string, descriptions []string) (string, error) {
	return s.merge(ctx, name, dedupe(descriptions))
}

// merge summarizes parts, in groups first when they exceed the input budget. Every group holds
// at least two parts, so each round at least halves the count and the recursion ends.
func (s *Summarizer) merge(ctx context.Context, name string, parts []string) (string, error) {
	switch {
	case len(parts) == 0:
		return "", nil
	case len(parts) == 1 && len(strings.Fields(parts[0])) <= s.opts.MaxWords:
		return parts[0], nil
	}
	groups := s.group(parts)
	if len(groups) == 1 {
		return s.summarize(ctx, name, groups[0])
	}
	merged := make([]string, 0, len(groups))
	for _, g := range groups {
		m, err := s.summarize(ctx, name, g)
		if err != nil {
			return "", err
		}
		merged = append(merged, m)
	}
	return s.merge(ctx, name, merged)
}

func (s *Summarizer) summarize(ctx context.Context, name string, parts []string) (string, error) {
	p, err := Prompt(name, parts, s.opts.MaxWords)
	if err != nil {
		return "", err
	}
	resp, err := s.chat.Chat(ctx, llm.ChatRequest{
		Stage:     llm.StageSummarize,
		Messages:  llmtask.Messages(p),
		MaxTokens: s.opts.MaxWords*2 + 64, // about 1.3 tokens a word, with room to finish
		Judge:     llmtask.JudgeSummary,
	})
	if err != nil {
		return "", fmt.Errorf("summarize %s: %w", name, err)
	}
	out := prompts.CleanSummary(resp.Content)
	if out == "" {
		return "", fmt.Errorf("summarize %s: %w: empty", name, prompts.ErrUnreadable)
	}
	return out, nil
}

// summarizeOverhead is the summarize prompt's tokens besides the descriptions, generously.
const summarizeOverhead = 300

// group splits parts into runs that fit the input budget (and the model's window), with at least two parts a run (the
// budget is exceeded rather than leaving a part alone, which would not shrink it).
func (s *Summarizer) group(parts []string) [][]string {
	budget := llmtask.FitInput(s.chat, s.opts.MaxInputTokens, s.opts.MaxWords*2+64, summarizeOverhead)
	var groups [][]string
	var cur []string
	used := 0
	for i, p := range parts {
		n := s.opts.Counter.Count(p) + 2
		if len(cur) >= 2 && used+n > budget && i < len(parts)-1 {
			groups = append(groups, cur)
			cur, used = nil, 0
		}
		cur = append(cur, p)
		used += n
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups
}

func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	var out []string
	for _, d := range in {
		d = strings.Join(strings.Fields(d), " ")
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

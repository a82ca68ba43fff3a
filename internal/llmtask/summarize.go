package llmtask

import (
	"context"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/prompts"
)

// SummarizerOptions configures a Summarizer. Zero fields take defaults.
type SummarizerOptions struct {
	// MaxWords bounds the merged description (prompts.DefaultSummaryWords, 200).
	MaxWords int
	// MaxInputTokens bounds the descriptions sent in one request (InputTokens). Longer lists are
	// merged in groups first, then the group summaries are merged.
	MaxInputTokens int
	// Counter counts tokens for that budget; when nil a cl100k tokenizer is loaded.
	Counter llm.Counter
}

// Summarizer merges the descriptions an entity or relation collected across chunks into one,
// with the LLM. It implements the Summarizer interface of pipeline/resolve.
type Summarizer struct {
	chat    llm.Chatter
	prompts *prompts.Set
	opts    SummarizerOptions
}

// NewSummarizer returns a summarizer that calls chat (normally an *llm.Client).
func NewSummarizer(chat llm.Chatter, opts SummarizerOptions) (*Summarizer, error) {
	if opts.MaxWords <= 0 {
		opts.MaxWords = prompts.DefaultSummaryWords
	}
	if opts.MaxInputTokens <= 0 {
		opts.MaxInputTokens = InputTokens
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
	return &Summarizer{chat: chat, prompts: prompts.New(), opts: opts}, nil
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
	p, err := s.prompts.Summarize(name, parts, s.opts.MaxWords)
	if err != nil {
		return "", err
	}
	resp, err := s.chat.Chat(ctx, llm.ChatRequest{
		Stage:     llm.StageSummarize,
		Messages:  promptMessages(p),
		MaxTokens: s.opts.MaxWords*2 + 64, // about 1.3 tokens a word, with room to finish
		Judge:     judgeSummary,
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

// group splits parts into runs that fit the input budget, with at least two parts a run (the
// budget is exceeded rather than leaving a part alone, which would not shrink it).
func (s *Summarizer) group(parts []string) [][]string {
	var groups [][]string
	var cur []string
	used := 0
	for i, p := range parts {
		n := s.opts.Counter.Count(p) + 2
		if len(cur) >= 2 && used+n > s.opts.MaxInputTokens && i < len(parts)-1 {
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

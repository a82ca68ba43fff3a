// Package summaryrelation is the model task that describes the relation between two summary
// entities of the hierarchical index (LeanRAG's aggregation; stage llm.StageAggregate): its
// prompt (summary_relation.tmpl), the call and the reading of the answer.
package summaryrelation

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
const Task = "Summary relation"

// Label fences the data of the prompt.
const Label = "RELATIONS"

// DefaultWords is the word limit of a description.
const DefaultWords = 60

// MaxTokens caps the answer: a description of DefaultWords words, at about 1.3 tokens a word,
// with room to finish.
const MaxTokens = DefaultWords*2 + 40

//go:embed summary_relation.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "summary_relation.tmpl")

// Prompt renders the prompt that describes the relation between two summary entities from their
// descriptions and a sample of the relationships between their members. count is how many
// relationships join the two groups.
func Prompt(source, sourceDesc, target, targetDesc string, count int, relations []string) (prompts.Prompt, error) {
	if len(relations) == 0 {
		return prompts.Prompt{}, errors.New("summary relation prompt: no relationships")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n%s: %s\n\n%d relationships join their members; the strongest:\n",
		prompts.CleanText(source), strings.Join(strings.Fields(sourceDesc), " "), prompts.CleanText(target), strings.Join(strings.Fields(targetDesc), " "), count)
	for _, r := range relations {
		b.WriteString("- ")
		b.WriteString(strings.Join(strings.Fields(r), " "))
		b.WriteByte('\n')
	}
	return prompts.RenderPair(templates, "summary_relation", struct {
		Source, Target string
		Data           prompts.Fenced
		MaxWords       int
	}{prompts.CleanText(source), prompts.CleanText(target), prompts.Fence(Label, b.String()), DefaultWords})
}

// Describe asks for the description. An answer with no text once reasoning, quotes and labels are
// removed is unreadable (prompts.ErrUnreadable); it is not asked for again.
func Describe(ctx context.Context, chat llm.Chatter, source, sourceDesc, target, targetDesc string, count int, relations []string) (string, error) {
	p, err := Prompt(source, sourceDesc, target, targetDesc, count, relations)
	if err != nil {
		return "", err
	}
	resp, err := chat.Chat(ctx, llm.ChatRequest{Stage: llm.StageAggregate, Messages: llmtask.Messages(p), MaxTokens: MaxTokens, Judge: llmtask.JudgeSummary})
	if err != nil {
		return "", fmt.Errorf("summary relation %s -- %s: %w", source, target, err)
	}
	out := prompts.CleanSummary(resp.Content)
	if out == "" {
		return "", fmt.Errorf("summary relation %s -- %s: %w: empty", source, target, prompts.ErrUnreadable)
	}
	return out, nil
}

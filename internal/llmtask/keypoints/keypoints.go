// Package keypoints is the model task of global search's map step (stage llm.StageMap): from a
// batch of community reports, the points that help answer a question, each scored 0–100. It
// holds the prompt (keypoints.tmpl), the call and the judging of the answer. The answer's format
// (prompts.Point, prompts.ParsePoints, prompts.PointsSchema) stays in package prompts: retrieval
// ranks the points without calling a model.
package keypoints

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
const Task = "Key points for a question"

// Label fences the reports in the prompt.
const Label = "REPORTS"

// MaxTokens caps the answer.
const MaxTokens = 1000

//go:embed keypoints.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "keypoints.tmpl")

// Prompt renders the map prompt of global search: points from a batch of community reports
// (reportsText) that help answer question, each scored 0–100.
func Prompt(question, reportsText string) (prompts.Prompt, error) {
	if strings.TrimSpace(question) == "" {
		return prompts.Prompt{}, errors.New("key points prompt: empty question")
	}
	return prompts.RenderPair(templates, "keypoints", struct {
		Question string
		Reports  prompts.Fenced
	}{strings.Join(strings.Fields(question), " "), prompts.Fence(Label, reportsText)})
}

// Find runs the map step over one batch of reports and returns the scored points. An answer
// without JSON is asked for once more, then is unreadable (prompts.ErrUnreadable). Points without
// a description are dropped; JSON that holds no point is an answer with no points, not an error.
func Find(ctx context.Context, chat llm.Chatter, question, reportsText string) ([]prompts.Point, error) {
	p, err := Prompt(question, reportsText)
	if err != nil {
		return nil, err
	}
	msgs := llmtask.Messages(p)
	req := llm.ChatRequest{Stage: llm.StageMap, Messages: msgs, MaxTokens: MaxTokens, JSON: true, Judge: judge,
		Structured: &llm.Structured{Name: "key_points", Schema: prompts.PointsSchema(), Messages: msgs}}
	points, err := llmtask.AskTwice(ctx, chat, req, func(answer string) ([]prompts.Point, error) {
		points, _, err := prompts.ParsePoints(answer)
		return points, err
	})
	if err != nil {
		return nil, fmt.Errorf("key points: %w", err)
	}
	return points, nil
}

func judge(resp llm.ChatResponse) llm.Verdict {
	_, dropped, err := prompts.ParsePoints(resp.Content)
	return llmtask.JSONVerdict(dropped, err, resp.Truncated())
}

// Mapper runs Find with one client; it is what global search's map step (retrieval.Mapper)
// needs.
type Mapper struct {
	Chat llm.Chatter
}

// KeyPoints returns the points of one batch of reports (Find).
func (m Mapper) KeyPoints(ctx context.Context, question, reportsText string) ([]prompts.Point, error) {
	return Find(ctx, m.Chat, question, reportsText)
}

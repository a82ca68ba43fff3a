// Package report is the model task that writes the report of one community (stage
// llm.StageReport): its prompt (report.tmpl), the call and the judging of the answer. The answer's
// format (prompts.Report, prompts.ParseReport, prompts.ReportSchema) stays in package prompts,
// beside the other stored answer formats: retrieval reads stored reports with it.
package report

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
const Task = "Community report"

// Label fences the community in the prompt.
const Label = "COMMUNITY"

// MaxTokens caps the answer.
const MaxTokens = 1500

// Finding counts asked for when the caller gives none.
const (
	DefaultMinFindings = 3
	DefaultMaxFindings = 8
)

//go:embed report.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "report.tmpl")

// Prompt renders the community-report prompt. communityText describes the community (entities,
// relationships, child reports) as assembled by the reports stage; finding counts that are not
// positive, or a maximum below the minimum, take the defaults.
func Prompt(communityText string, minFindings, maxFindings int) (prompts.Prompt, error) {
	if strings.TrimSpace(communityText) == "" {
		return prompts.Prompt{}, errors.New("report prompt: empty community")
	}
	if minFindings <= 0 {
		minFindings = DefaultMinFindings
	}
	if maxFindings < minFindings {
		maxFindings = max(minFindings, DefaultMaxFindings)
	}
	return prompts.RenderPair(templates, "report", struct {
		Community                prompts.Fenced
		MinFindings, MaxFindings int
	}{prompts.Fence(Label, communityText), minFindings, maxFindings})
}

// Write asks for the community report of communityText and parses it. An answer without a JSON
// object holding a title, a summary or a finding is asked for once more, then is unreadable
// (prompts.ErrUnreadable). A partly readable report is kept: missing fields stay empty and
// findings with nothing in them are dropped.
func Write(ctx context.Context, chat llm.Chatter, communityText string) (prompts.Report, error) {
	p, err := Prompt(communityText, 0, 0)
	if err != nil {
		return prompts.Report{}, err
	}
	msgs := llmtask.Messages(p)
	req := llm.ChatRequest{Stage: llm.StageReport, Messages: msgs, MaxTokens: MaxTokens, JSON: true, Judge: judge,
		Structured: &llm.Structured{Name: "community_report", Schema: prompts.ReportSchema(), Messages: msgs}}
	r, err := llmtask.AskTwice(ctx, chat, req, func(answer string) (prompts.Report, error) {
		r, _, err := prompts.ParseReport(answer)
		return r, err
	})
	if err != nil {
		return prompts.Report{}, fmt.Errorf("community report: %w", err)
	}
	return r, nil
}

func judge(resp llm.ChatResponse) llm.Verdict {
	_, dropped, err := prompts.ParseReport(resp.Content)
	return llmtask.JSONVerdict(dropped, err, resp.Truncated())
}

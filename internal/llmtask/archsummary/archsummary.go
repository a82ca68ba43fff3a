// Package archsummary is the model task that titles and summarizes one attributed community of
// ArchRAG's hierarchy (stage llm.StageArch): its prompt (arch_summary.tmpl), the call and the
// reading of the answer.
package archsummary

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
	"github.com/stratarag/strata/internal/textutil"
	"github.com/stratarag/strata/prompts"
)

// Task is the task title of the prompt, by which its requests are recognized (prompts.TaskOf).
const Task = "Attributed community summary"

// Label fences the members of the community.
const Label = "MEMBERS"

// Words is the word limit of a community summary.
const Words = 80

// MaxTokens caps the answer: a title and a summary of at most Words words.
const MaxTokens = 300

// The prompt is kept out of the extraction templates, whose digest (extraction.Version) names
// the extractor a store records: an index option's prompt does not change what extraction does, so
// it must not make existing stores refuse their extractor.
//
//go:embed arch_summary.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "arch_summary.tmpl")

// Prompt renders the prompt that titles and summarizes one attributed community of the given
// layer from its members' lines (membersText, one member per line) and their count.
func Prompt(layer, count int, membersText string) (prompts.Prompt, error) {
	return render(layer, count, membersText, false)
}

// PromptJSON is Prompt asking for the title and summary as one JSON object, which
// prompts.TitleSummarySchema describes, for servers that enforce a schema.
func PromptJSON(layer, count int, membersText string) (prompts.Prompt, error) {
	return render(layer, count, membersText, true)
}

func render(layer, count int, membersText string, asJSON bool) (prompts.Prompt, error) {
	if strings.TrimSpace(membersText) == "" {
		return prompts.Prompt{}, errors.New("attributed community summary prompt: no members")
	}
	return prompts.RenderPair(templates, "arch_summary", struct {
		Layer, Count, MaxWords int
		Members                prompts.Fenced
		JSON                   bool
	}{layer, count, Words, prompts.Fence(Label, membersText), asJSON})
}

// Summarize asks for the title and summary of one attributed community of the given layer from
// its members' lines (count members): as a JSON object under a schema where the server enforces
// one (a small model asked for two lines wrote prose around them, or neither), else as TITLE:
// and SUMMARY: lines. An answer without both a title and a summary is asked for once more, then
// is unreadable (prompts.ErrUnreadable).
func Summarize(ctx context.Context, chat llm.Chatter, layer, count int, membersText string) (title, summary string, err error) {
	p, err := Prompt(layer, count, membersText)
	if err != nil {
		return "", "", err
	}
	pj, err := PromptJSON(layer, count, membersText)
	if err != nil {
		return "", "", err
	}
	req := llm.ChatRequest{Stage: llm.StageArch, Messages: llmtask.Messages(p), MaxTokens: MaxTokens, Judge: judge,
		Structured: &llm.Structured{Name: "community_summary", Schema: prompts.TitleSummarySchema(), Messages: llmtask.Messages(pj)}}
	pair, err := llmtask.AskTwice(ctx, chat, req, func(answer string) ([2]string, error) {
		t, s, err := Parse(answer)
		return [2]string{t, s}, err
	})
	if err != nil {
		return "", "", fmt.Errorf("attributed community summary: %w", err)
	}
	return pair[0], pair[1], nil
}

func judge(resp llm.ChatResponse) llm.Verdict {
	_, _, err := Parse(resp.Content)
	return llmtask.JSONVerdict(0, err, resp.Truncated())
}

// Parse reads a JSON object with "title" and "summary", or a "TITLE: …" and a "SUMMARY: …" line
// (any case, reasoning blocks and code fences removed; a summary may run over several lines). An
// answer without a title or without a summary is an error; the other one may then still be read,
// for a caller that salvages.
func Parse(answer string) (title, summary string, err error) {
	s := strings.TrimSpace(textutil.StripThinking(answer))
	if js, jerr := prompts.ExtractJSON(s); jerr == nil {
		var v struct{ Title, Summary string }
		if json.Unmarshal([]byte(js), &v) == nil && (v.Title != "" || v.Summary != "") {
			return checkPair(prompts.CleanText(v.Title), prompts.CleanText(strings.Join(strings.Fields(v.Summary), " ")))
		}
	}
	if body, ok := prompts.FencedBlock(s); ok && strings.HasPrefix(s, "```") {
		s = body
	}
	var sum []string
	inSummary := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "*#"))
		upper := strings.ToUpper(t)
		switch {
		case strings.HasPrefix(upper, "TITLE:"):
			title, inSummary = prompts.CleanText(strings.Trim(strings.TrimSpace(t[len("TITLE:"):]), `"*`)), false
		case strings.HasPrefix(upper, "SUMMARY:"):
			sum, inSummary = []string{strings.Trim(strings.TrimSpace(t[len("SUMMARY:"):]), `*`)}, true
		case inSummary && t != "":
			sum = append(sum, t)
		}
	}
	return checkPair(title, prompts.CleanText(strings.Join(strings.Fields(strings.Join(sum, " ")), " ")))
}

// checkPair says which of title and summary is missing, if either is.
func checkPair(title, summary string) (string, string, error) {
	switch {
	case title == "" && summary == "":
		return "", "", fmt.Errorf("no TITLE: or SUMMARY: line in the answer")
	case title == "":
		return "", summary, fmt.Errorf("no TITLE: line in the answer")
	case summary == "":
		return title, "", fmt.Errorf("no SUMMARY: line in the answer")
	}
	return title, summary, nil
}

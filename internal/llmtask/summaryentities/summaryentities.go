// Package summaryentities is HiIndex's model task (stage llm.StageLayers): it abstracts a cluster
// of entities into summary entities and links each member to its summary. It holds the prompt
// (summary_entities.tmpl, which uses the record format rules shared with extraction), the call
// and the judging of the answer, which is in the tuple format of prompts.ParseRecords.
package summaryentities

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
const Task = "Summary entities"

// Label fences the cluster in the prompt.
const Label = "CLUSTER"

// MaxTokens caps the answer.
const MaxTokens = 2000

// DefaultTypes returns the summary entity types asked for when the caller gives none.
func DefaultTypes() []string {
	return []string{"concept", "theme", "group", "event", "field", "place", "organization"}
}

//go:embed summary_entities.tmpl
var templateFS embed.FS

// templates are parsed once from the embedded file; a parsed template is immutable and safe for
// concurrent use.
var templates = prompts.Templates(templateFS, "summary_entities.tmpl")

// Prompt renders the prompt that abstracts a cluster of entities into summary entities of the
// given types (DefaultTypes when empty). clusterText lists the members (name, type,
// description). The answer is in the tuple format: entity records for the summaries,
// relationship records from each member to its summary.
func Prompt(clusterText string, types []string) (prompts.Prompt, error) {
	return render(clusterText, types, false)
}

// PromptJSON is Prompt asking for the records as one JSON object, which
// prompts.ExtractionSchema(types, true, true) describes, for servers that enforce a schema.
func PromptJSON(clusterText string, types []string) (prompts.Prompt, error) {
	return render(clusterText, types, true)
}

func render(clusterText string, types []string, asJSON bool) (prompts.Prompt, error) {
	if strings.TrimSpace(clusterText) == "" {
		return prompts.Prompt{}, errors.New("summary entities prompt: empty cluster")
	}
	if len(types) == 0 {
		types = DefaultTypes()
	}
	return prompts.RenderPair(templates, "summary_entities", struct {
		Cluster                     prompts.Fenced
		Types                       []string
		WantEntities, WantRelations bool
		JSON                        bool
	}{prompts.Fence(Label, clusterText), types, true, true, asJSON})
}

// Ask asks HiIndex's question for one cluster: summary entities of the given types (DefaultTypes
// when empty) and member→summary links, as tuple records. Malformed records are dropped and
// counted in Records.Dropped, and the rest kept; an answer without a single entity is unreadable
// (prompts.ErrUnreadable). The answer is not asked for again.
func Ask(ctx context.Context, chat llm.Chatter, clusterText string, types []string) (prompts.Records, error) {
	if len(types) == 0 {
		types = DefaultTypes()
	}
	p, err := Prompt(clusterText, types)
	if err != nil {
		return prompts.Records{}, err
	}
	pj, err := PromptJSON(clusterText, types)
	if err != nil {
		return prompts.Records{}, err
	}
	resp, err := chat.Chat(ctx, llm.ChatRequest{Stage: llm.StageLayers, Messages: llmtask.Messages(p), MaxTokens: MaxTokens, Judge: judge,
		Structured: &llm.Structured{Name: "summary_entities", Schema: prompts.ExtractionSchema(types, true, true), Messages: llmtask.Messages(pj)}})
	if err != nil {
		return prompts.Records{}, fmt.Errorf("summary entities: %w", err)
	}
	recs := prompts.ParseRecords(resp.Content)
	if len(recs.Entities) == 0 {
		return prompts.Records{}, fmt.Errorf("summary entities: %w: no entity record (%d relationships, %d dropped)",
			prompts.ErrUnreadable, len(recs.Relationships), recs.Dropped)
	}
	return recs, nil
}

// judge judges HiIndex's answer: without an entity record it is unreadable (Ask fails with
// prompts.ErrUnreadable), whatever else it holds.
func judge(resp llm.ChatResponse) llm.Verdict {
	recs := prompts.ParseRecords(resp.Content)
	if len(recs.Entities) == 0 {
		return llm.Verdict{Unreadable: true, Dropped: recs.Dropped, Reason: "no entity record"}
	}
	return llmtask.RecordsVerdict(recs, resp.Truncated())
}

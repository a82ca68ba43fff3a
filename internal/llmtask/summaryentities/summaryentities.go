// Package summaryentities is HiIndex's model task (stage llm.StageLayers): it abstracts a cluster
// of entities into summary entities (the layers stage links the members to them). It holds the prompt
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

// MaxTokens caps the answer: a few entity records of two to four sentences each. The members
// are linked to their summaries by the layers stage, not by the model, so the answer holds no
// record per member and does not grow with the cluster.
const MaxTokens = 600

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
// description). The answer is in the tuple format: entity records for the summaries.
func Prompt(clusterText string, types []string) (prompts.Prompt, error) {
	return render(clusterText, types, false)
}

// PromptJSON is Prompt asking for the records as one JSON object, which
// prompts.ExtractionSchema(types, true, false, true) describes, for servers that enforce a schema.
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
		JSON, Brief                 bool
	}{prompts.Fence(Label, clusterText), types, true, false, asJSON, false})
}

// Ask asks HiIndex's question for one cluster: summary entities of the given types (DefaultTypes
// when empty), as tuple records. Malformed records are dropped and counted in Records.Dropped,
// and the rest kept. An answer without a single entity is asked for once more (the answer is a
// record or two, so one damaged record leaves nothing), then is unreadable (prompts.ErrUnreadable).
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
	req := llm.ChatRequest{Stage: llm.StageLayers, Messages: llmtask.Messages(p), MaxTokens: MaxTokens, Judge: judge,
		Structured: &llm.Structured{Name: "summary_entities", Schema: prompts.ExtractionSchema(types, true, false, true), Messages: llmtask.Messages(pj)}}
	recs, err := llmtask.AskTwice(ctx, chat, req, func(answer string) (prompts.Records, error) {
		recs := prompts.ParseRecords(answer)
		if len(recs.Entities) == 0 {
			return recs, fmt.Errorf("no entity record (%d relationships, %d dropped)", len(recs.Relationships), recs.Dropped)
		}
		return recs, nil
	})
	if err != nil {
		return prompts.Records{}, fmt.Errorf("summary entities: %w", err)
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

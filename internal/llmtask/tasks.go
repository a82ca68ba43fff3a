// Package llmtask runs strata's prompt-level model tasks: community reports, the summary entities
// of the hierarchical index, global search's key points and merged descriptions. A task renders a
// prompt of package prompts, sends it through an llm.Chatter (normally an *llm.Client, which
// brings retries, rate limits, the response cache and accounting) and parses the answer, so that
// the client stays a transport and the stages that use a task never see a message or a parser.
package llmtask

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
)

// Token caps of the structured tasks below.
const (
	ReportMaxTokens          = 1500
	KeyPointsMaxTokens       = 1000
	SummaryEntitiesMaxTokens = 2000
)

// retryTemperature is used for the one extra attempt after an unreadable answer. The first
// attempt runs at temperature 0, so asking again unchanged would return the same answer (and
// the cache would serve it); a little randomness gives the model another chance.
const retryTemperature = 0.5

func promptMessages(p prompts.Prompt) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: p.System}, {Role: llm.RoleUser, Content: p.User}}
}

// Report asks for the community report of communityText (entities, relationships and child
// reports as the reports stage lays them out) and parses it. An answer with no usable JSON is
// asked for once more before failing.
func Report(ctx context.Context, chat llm.Chatter, ps *prompts.Set, communityText string) (prompts.Report, error) {
	p, err := ps.ReportPrompt(communityText, 0, 0)
	if err != nil {
		return prompts.Report{}, err
	}
	req := llm.ChatRequest{Stage: llm.StageReport, Messages: promptMessages(p), MaxTokens: ReportMaxTokens, JSON: true}
	var perr error
	for _, temp := range []float32{0, retryTemperature} {
		req.Temperature = temp
		resp, err := chat.Chat(ctx, req)
		if err != nil {
			return prompts.Report{}, fmt.Errorf("community report: %w", err)
		}
		r, _, err := prompts.ParseReport(resp.Content)
		if err == nil {
			return r, nil
		}
		perr = err
	}
	return prompts.Report{}, fmt.Errorf("community report: %w: %w", prompts.ErrUnreadable, perr)
}

// KeyPoints runs the map step of global search over one batch of reports and returns the scored
// points. An unreadable answer is asked for once more, then counts as no points.
func KeyPoints(ctx context.Context, chat llm.Chatter, ps *prompts.Set, question, reportsText string) ([]prompts.Point, error) {
	p, err := ps.KeyPoints(question, reportsText)
	if err != nil {
		return nil, err
	}
	req := llm.ChatRequest{Stage: llm.StageMap, Messages: promptMessages(p), MaxTokens: KeyPointsMaxTokens, JSON: true}
	for _, temp := range []float32{0, retryTemperature} {
		req.Temperature = temp
		resp, err := chat.Chat(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("key points: %w", err)
		}
		if points, _, err := prompts.ParsePoints(resp.Content); err == nil {
			return points, nil
		}
	}
	return nil, nil
}

// SummaryEntities asks HiIndex's question for one cluster: summary entities of the given types
// (prompts.DefaultMetaTypes when empty) and member→summary links, as tuple records.
func SummaryEntities(ctx context.Context, chat llm.Chatter, ps *prompts.Set, clusterText string, types []string) (prompts.Records, error) {
	p, err := ps.SummaryEntities(clusterText, types)
	if err != nil {
		return prompts.Records{}, err
	}
	resp, err := chat.Chat(ctx, llm.ChatRequest{Stage: llm.StageLayers, Messages: promptMessages(p), MaxTokens: SummaryEntitiesMaxTokens})
	if err != nil {
		return prompts.Records{}, fmt.Errorf("summary entities: %w", err)
	}
	return prompts.ParseRecords(resp.Content), nil
}

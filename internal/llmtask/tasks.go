// Package llmtask runs strata's prompt-level model tasks: community reports, the summary entities
// of the hierarchical index, global search's key points and merged descriptions. A task renders a
// prompt of package prompts, sends it through an llm.Chatter (normally an *llm.Client, which
// brings retries, rate limits, the response cache and accounting) and parses the answer, so that
// the client stays a transport and the stages that use a task never see a message or a parser.
//
// Every task follows one rule for answers it cannot use: it returns an error wrapping
// prompts.ErrUnreadable, which a caller with a model-free stand-in absorbs and any other caller
// passes on. Each task's doc says what makes its answer unreadable, whether it asks once more
// first, and what it salvages from an answer that is only partly readable; a salvaged answer is
// not an error. Every task judges its answers (judge.go): salvaged and unreadable answers are
// counted per stage by the client and never cached, so a later run asks for them again.
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

// Input budgets of the prompts, in cl100k tokens, for callers that set none: the descriptions
// merged in one summarize request and the cluster text of one summary-entities prompt
// (InputTokens), and the community text of one report prompt (ReportInputTokens).
const (
	InputTokens       = 6000
	ReportInputTokens = 8000
)

// retryTemperature is used for the one extra attempt after an unreadable answer. The first
// attempt runs at temperature 0, so asking again unchanged would return the same answer (and
// the cache would serve it); a little randomness gives the model another chance.
const retryTemperature = 0.5

func promptMessages(p prompts.Prompt) []llm.Message {
	return []llm.Message{{Role: llm.RoleSystem, Content: p.System}, {Role: llm.RoleUser, Content: p.User}}
}

// askTwice sends req and parses the answer. An answer parse rejects is asked for once more at
// retryTemperature; when that one is rejected too, the error wraps prompts.ErrUnreadable and the
// parser's last complaint.
func askTwice[T any](ctx context.Context, chat llm.Chatter, req llm.ChatRequest, parse func(answer string) (T, error)) (T, error) {
	var zero T
	var perr error
	for _, temp := range []float32{0, retryTemperature} {
		req.Temperature = temp
		resp, err := chat.Chat(ctx, req)
		if err != nil {
			return zero, err
		}
		v, err := parse(resp.Content)
		if err == nil {
			return v, nil
		}
		perr = err
	}
	return zero, fmt.Errorf("%w: %w", prompts.ErrUnreadable, perr)
}

// Report asks for the community report of communityText (entities, relationships and child
// reports as the reports stage lays them out) and parses it. An answer without a JSON object
// holding a title, a summary or a finding is asked for once more, then is unreadable. A partly
// readable report is kept: missing fields stay empty and findings with nothing in them are
// dropped.
func Report(ctx context.Context, chat llm.Chatter, ps *prompts.Set, communityText string) (prompts.Report, error) {
	p, err := ps.ReportPrompt(communityText, 0, 0)
	if err != nil {
		return prompts.Report{}, err
	}
	msgs := promptMessages(p)
	req := llm.ChatRequest{Stage: llm.StageReport, Messages: msgs, MaxTokens: ReportMaxTokens, JSON: true, Judge: judgeReport,
		Structured: &llm.Structured{Name: "community_report", Schema: prompts.ReportSchema(), Messages: msgs}}
	r, err := askTwice(ctx, chat, req, func(answer string) (prompts.Report, error) {
		r, _, err := prompts.ParseReport(answer)
		return r, err
	})
	if err != nil {
		return prompts.Report{}, fmt.Errorf("community report: %w", err)
	}
	return r, nil
}

// KeyPoints runs the map step of global search over one batch of reports and returns the scored
// points. An answer without JSON is asked for once more, then is unreadable. Points without a
// description are dropped; JSON that holds no point is an answer with no points, not an error.
func KeyPoints(ctx context.Context, chat llm.Chatter, ps *prompts.Set, question, reportsText string) ([]prompts.Point, error) {
	p, err := ps.KeyPoints(question, reportsText)
	if err != nil {
		return nil, err
	}
	msgs := promptMessages(p)
	req := llm.ChatRequest{Stage: llm.StageMap, Messages: msgs, MaxTokens: KeyPointsMaxTokens, JSON: true, Judge: judgePoints,
		Structured: &llm.Structured{Name: "key_points", Schema: prompts.PointsSchema(), Messages: msgs}}
	points, err := askTwice(ctx, chat, req, func(answer string) ([]prompts.Point, error) {
		points, _, err := prompts.ParsePoints(answer)
		return points, err
	})
	if err != nil {
		return nil, fmt.Errorf("key points: %w", err)
	}
	return points, nil
}

// SummaryEntities asks HiIndex's question for one cluster: summary entities of the given types
// (prompts.DefaultMetaTypes when empty) and member→summary links, as tuple records. Malformed
// records are dropped and counted in Records.Dropped, and the rest kept; an answer without a
// single entity is unreadable. The answer is not asked for again.
func SummaryEntities(ctx context.Context, chat llm.Chatter, ps *prompts.Set, clusterText string, types []string) (prompts.Records, error) {
	if len(types) == 0 {
		types = prompts.DefaultMetaTypes()
	}
	p, err := ps.SummaryEntities(clusterText, types)
	if err != nil {
		return prompts.Records{}, err
	}
	pj, err := ps.SummaryEntitiesJSON(clusterText, types)
	if err != nil {
		return prompts.Records{}, err
	}
	resp, err := chat.Chat(ctx, llm.ChatRequest{Stage: llm.StageLayers, Messages: promptMessages(p), MaxTokens: SummaryEntitiesMaxTokens, Judge: judgeSummaryEntities,
		Structured: &llm.Structured{Name: "summary_entities", Schema: prompts.ExtractionSchema(types, true, true), Messages: promptMessages(pj)}})
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

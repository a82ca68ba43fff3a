package llmtask

import (
	"context"
	"fmt"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/prompts"
)

// SummaryRelationMaxTokens caps the answer of SummaryRelation: a description of
// prompts.DefaultRelationWords words, at about 1.3 tokens a word, with room to finish.
const SummaryRelationMaxTokens = prompts.DefaultRelationWords*2 + 40

// SummaryRelation asks for the description of the relation between two summary entities of the
// hierarchical index, from their descriptions and the strongest relations between their
// members (LeanRAG's aggregation; stage llm.StageAggregate). An answer with no text once
// reasoning, quotes and labels are removed is unreadable; it is not asked for again.
func SummaryRelation(ctx context.Context, chat llm.Chatter, ps *prompts.Set, source, sourceDesc, target, targetDesc string, count int, relations []string) (string, error) {
	p, err := ps.SummaryRelation(source, sourceDesc, target, targetDesc, count, relations, 0)
	if err != nil {
		return "", err
	}
	resp, err := chat.Chat(ctx, llm.ChatRequest{Stage: llm.StageAggregate, Messages: promptMessages(p), MaxTokens: SummaryRelationMaxTokens, Judge: judgeSummary})
	if err != nil {
		return "", fmt.Errorf("summary relation %s -- %s: %w", source, target, err)
	}
	out := prompts.CleanSummary(resp.Content)
	if out == "" {
		return "", fmt.Errorf("summary relation %s -- %s: %w: empty", source, target, prompts.ErrUnreadable)
	}
	return out, nil
}

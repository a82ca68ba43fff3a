package layers

import (
	"fmt"
	"strings"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llmtask"
)

// Sizes of the typical inter-summary relation prompt EstimateCall renders: summary descriptions
// of about this many words (a model's summary entity), evidence descriptions of about this many.
const (
	estimateSummaryWords  = 60
	estimateEvidenceWords = 30
)

// EstimateCall predicts the prompt and completion tokens of one DescribeRelation call, rendering
// the prompt with two summary descriptions and evidenceRelations relation descriptions of typical
// length; the answer is counted at its token cap, an upper bound.
func (x *LLMRelations) EstimateCall(tok llm.Counter) (llm.StageEstimate, error) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	evidence := make([]string, evidenceRelations)
	for i := range evidence {
		evidence[i] = words(estimateEvidenceWords)
	}
	p, err := x.Prompts.SummaryRelation("First summary", words(estimateSummaryWords), "Second summary", words(estimateSummaryWords), 10, evidence, 0)
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("estimate the aggregation: %w", err)
	}
	return llm.StageEstimate{Calls: 1, PromptTokens: tok.Count(p.System) + tok.Count(p.User), CompletionTokens: llmtask.SummaryRelationMaxTokens}, nil
}

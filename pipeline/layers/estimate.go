package layers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stratarag/strata/internal/llmtask/summaryentities"

	"github.com/stratarag/strata/internal/llmtask/summaryrelation"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
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
	p, err := summaryrelation.Prompt("First summary", words(estimateSummaryWords), "Second summary", words(estimateSummaryWords), 10, evidence)
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("estimate the aggregation: %w", err)
	}
	return llm.StageEstimate{Calls: 1, PromptTokens: tok.Count(p.System) + tok.Count(p.User), CompletionTokens: summaryrelation.MaxTokens}, nil
}

// RedescribesStored reports whether an update that changes the evidence of an inter-summary
// relation stored with description d asks the model for a new one: with All, always; otherwise
// when the model wrote d, since the evidence (the descriptions of a few base relations) mostly
// stays as long as it was.
func (x *LLMRelations) RedescribesStored(d string) bool {
	return x.All || !extractive(d)
}

// EstimateSummary predicts the prompt and completion tokens of one Summarize call over members
// as they are stored (a dry run's update: the members a cluster will have are not known yet). The
// prompt is rendered, in cl100k; the answer is counted at its token cap, an upper bound.
func (x *LLM) EstimateSummary(tok llm.Counter, members []graph.Entity) (llm.StageEstimate, error) {
	ms := make([]Member, len(members))
	for i, e := range members {
		ms[i] = Member{Entity: e, Connections: e.Degree, Label: e.Name}
	}
	slices.SortFunc(ms, byConnections)
	p, err := summaryentities.Prompt(x.clusterText(ms), summaryentities.DefaultTypes())
	if err != nil {
		return llm.StageEstimate{}, fmt.Errorf("estimate a summary: %w", err)
	}
	return llm.StageEstimate{Calls: 1, PromptTokens: tok.Count(p.System) + tok.Count(p.User), CompletionTokens: summaryentities.MaxTokens}, nil
}

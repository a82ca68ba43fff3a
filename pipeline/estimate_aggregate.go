package pipeline

import (
	"fmt"
	"math"

	"github.com/stratarag/strata/internal/llm"
)

// The dry run cannot know the graph extraction will build, so it predicts the aggregation's calls
// from the corpus size with ratios measured offline (bench/multihop, docs/ARCHITECTURE.md,
// "Ingestion stages"): entities per 1000 corpus tokens (multihop 21, mix 30) and inter-summary
// relations per summary entity at the default k (multihop 0.83, mix 2.7). A model extracts other
// entities than the offline extractor, so these are orders of magnitude, and said to be.
const (
	estimateEntitiesPerKToken     = 25.0
	estimateRelationsPerSummary   = 1.5
	estimateAssumptionAggregation = "aggregate: %.0f entities per 1000 corpus tokens, summaries of %d members, %.1f inter-summary relations per summary (measured offline), answers at their cap"
)

// relationEstimator is a relation describer that can predict the cost of one call
// (layers.LLMRelations).
type relationEstimator interface {
	EstimateCall(tok llm.Counter) (llm.StageEstimate, error)
}

// estimateAggregate adds the aggregation's calls (stage llm.StageAggregate) to est when the run
// would aggregate with a model.
func (in *Ingester) estimateAggregate(est *Estimate) error {
	x, ok := in.RelationDescriber.(relationEstimator)
	if !ok || !in.Options.Aggregate || in.LayerSummarizer == nil || in.Options.Layers.MaxLayers == 0 {
		return nil
	}
	call, err := x.EstimateCall(in.Tokenizer)
	if err != nil {
		return err
	}
	size := max(in.Options.Layers.ClusterSize, 2)
	entities := float64(est.CorpusTokens) / 1000 * estimateEntitiesPerKToken
	// Each layer is about size times smaller than the one below: n/size + n/size² + … = n/(size-1).
	summaries := entities / float64(size-1)
	calls := int(math.Ceil(summaries * estimateRelationsPerSummary))
	if calls == 0 {
		return nil
	}
	est.LLM.Add(llm.StageAggregate, llm.StageEstimate{Calls: calls, PromptTokens: calls * call.PromptTokens, CompletionTokens: calls * call.CompletionTokens})
	est.LLM.Assumptions = append(est.LLM.Assumptions, fmt.Sprintf(estimateAssumptionAggregation, estimateEntitiesPerKToken, size, estimateRelationsPerSummary))
	return nil
}

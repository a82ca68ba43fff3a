package pipeline

import (
	"fmt"
	"math"

	"github.com/stratarag/strata/internal/llm"
)

// estimateEntitiesPerKToken is the entities extraction finds per 1000 corpus tokens, measured
// offline (multihop 21, mix 30): what an update's new chunks are counted as.
const estimateEntitiesPerKToken = 25.0

// relationEstimator is a relation describer that can predict the cost of one call
// (layers.LLMRelations).
type relationEstimator interface {
	EstimateCall(tok llm.Counter) (llm.StageEstimate, error)
}

// buildRatio is what one structure stage of a fresh build spends per token of extraction
// answer: its calls and its prompt and completion tokens. The structure stages read what
// extraction wrote (descriptions merged, clustered, summarized and reported), so they grow with
// it and not with the corpus: a model that writes twice as much pays about twice as much after
// extraction too. Measured with the fake model on multihop (220 722 answer tokens) and mix
// (986 122), the geometric mean of the two (bench/README.md, "cost"); testdata's small graph
// sits within a factor of two of them per stage.
type buildRatio struct{ calls, prompt, completion float64 }

var buildRatios = map[string]buildRatio{
	llm.StageSummarize: {3.9e-5, 0.037, 0.0107},
	llm.StageLayers:    {7.5e-4, 0.802, 0.0269},
	llm.StageAggregate: {3.72e-4, 0.162, 0.0209},
	llm.StageReport:    {7.2e-4, 0.788, 0.127},
}

const estimateAssumptionBuild = "%s: %.2f tokens per token of extraction answer (%d predicted), as measured on multihop and mix with the fake model; the graph extraction builds decides, so take it as ±50 %% per stage"

// estimateBuild adds the structure stages of a fresh build that call a model (description
// summaries, summary entities, inter-summary relations, community reports) to est, from the
// extraction answer tokens it predicts.
func (in *Ingester) estimateBuild(est *Estimate) {
	answers := 0
	for _, stage := range []string{llm.StageExtract, llm.StageRelations, llm.StageGlean} {
		answers += est.LLM.Stages[stage].CompletionTokens
	}
	if answers == 0 {
		return
	}
	_, layered := in.LayerSummarizer.(summaryEstimator)
	layered = layered && in.Options.Layers.MaxLayers != 0
	_, described := in.RelationDescriber.(relationEstimator)
	_, reported := in.Reporter.(reportEstimator)
	runs := map[string]bool{
		llm.StageSummarize: in.Summarizer != nil,
		llm.StageLayers:    layered,
		llm.StageAggregate: layered && described && in.Options.Aggregate,
		llm.StageReport:    reported,
	}
	for _, stage := range []string{llm.StageSummarize, llm.StageLayers, llm.StageAggregate, llm.StageReport} {
		r := buildRatios[stage]
		if !runs[stage] {
			continue
		}
		a := float64(answers)
		s := llm.StageEstimate{Calls: int(math.Ceil(r.calls * a)), PromptTokens: int(math.Round(r.prompt * a)), CompletionTokens: int(math.Round(r.completion * a))}
		est.LLM.Add(stage, s)
		est.LLM.Assumptions = append(est.LLM.Assumptions, fmt.Sprintf(estimateAssumptionBuild, stage, r.prompt+r.completion, answers))
	}
}

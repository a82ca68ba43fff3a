package pipeline

import (
	"context"
	"fmt"
	"math"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/pipeline/extract"
	"github.com/stratarag/strata/pipeline/layers"
)

// relationEstimator is a relation describer that can predict the cost of one call, and whether
// a stored relation would cost one when it changes (layers.LLMRelations).
type relationEstimator interface {
	EstimateCall(tok llm.Counter) (llm.StageEstimate, error)
	RedescribesStored(description string) bool
}

// buildRatio is what one structure stage of a fresh build spends per record extraction finds
// (an entity or a relation): its calls and its prompt and completion tokens. The structure
// stages read what extraction found (descriptions merged, clustered, summarized and reported),
// so they grow with the graph and not with the corpus: name-dense text pays more after
// extraction than prose does. Measured with the fake model on multihop and mix, the geometric
// mean of the two (bench/README.md, "cost"); testdata's small graph sits within a factor of
// two of them per stage.
type buildRatio struct{ calls, prompt, completion float64 }

var buildRatios = map[string]buildRatio{
	llm.StageSummarize: {1.87e-3, 1.93, 0.488},
	llm.StageLayers:    {1.18e-2, 12.6, 0.423},
	llm.StageAggregate: {2.13e-3, 2.23, 0.135},
	llm.StageReport:    {6.79e-3, 11.3, 1.19},
}

// buildRatiosAll are the ratios when every summary, inter-summary relation and report is asked
// of the model (Options.ModelStructureAll), measured the same way.
var buildRatiosAll = map[string]buildRatio{
	llm.StageSummarize: {1.87e-3, 1.93, 0.488},
	llm.StageLayers:    {1.87e-2, 16.2, 0.668},
	llm.StageAggregate: {2.65e-2, 14.7, 1.64},
	llm.StageReport:    {7.31e-2, 46.2, 12.2},
}

// buildRatiosLean are the ratios when the summary layers are written without the model
// (--llm-structure lean), measured the same way: the inter-summary relations and reports of
// the hierarchy offline summaries make.
var buildRatiosLean = map[string]buildRatio{
	llm.StageSummarize: {1.87e-3, 1.93, 0.488},
	llm.StageAggregate: {2.24e-3, 3.00, 0.164},
	llm.StageReport:    {7.75e-3, 12.6, 1.53},
}

const estimateAssumptionBuild = "%s: %.1f tokens per entity or relation extracted (%d predicted), as measured on multihop and mix with the fake model; the graph extraction builds decides, so take it as ±50 %% per stage"

// reportSampler and summarySampler are structure stages that can measure what one of their
// calls makes the model write (reports.LLM, layers.LLM).
type reportSampler interface {
	SampleCompletion(ctx context.Context, m graph.Members) (int, error)
}

type summarySampler interface {
	SampleCompletion(ctx context.Context, members []layers.Member) (int, error)
}

// estimateBuild adds the structure stages of a fresh build that call a model (description
// summaries, summary entities, inter-summary relations, community reports) to est, from the
// entities and relations extraction is predicted to find. Unless in.NoSample, the answers of
// the summary entities and the reports are measured on one call each (sampleStructure), since
// their length is the model's more than the graph's.
func (in *Ingester) estimateBuild(ctx context.Context, est *Estimate, texts []string) error {
	records := est.LLM.Records
	if records == 0 {
		return nil
	}
	_, modelSummaries := in.LayerSummarizer.(summaryEstimator)
	layered := in.Options.Layers.MaxLayers != 0
	_, described := in.RelationDescriber.(relationEstimator)
	_, reported := in.Reporter.(reportEstimator)
	runs := map[string]bool{
		llm.StageSummarize: in.Summarizer != nil,
		llm.StageLayers:    layered && modelSummaries,
		llm.StageAggregate: layered && described && in.Options.Aggregate,
		llm.StageReport:    reported,
	}
	perCall := map[string]int{}
	if !in.NoSample {
		var err error
		if perCall, err = in.sampleStructure(ctx, texts, runs); err != nil {
			return err
		}
	}
	ratios := buildRatios
	switch {
	case in.Options.ModelStructureAll:
		ratios = buildRatiosAll
	case !modelSummaries:
		ratios = buildRatiosLean
	}
	for _, stage := range []string{llm.StageSummarize, llm.StageLayers, llm.StageAggregate, llm.StageReport} {
		r := ratios[stage]
		if !runs[stage] {
			continue
		}
		a := float64(records)
		s := llm.StageEstimate{Calls: int(math.Ceil(r.calls * a)), PromptTokens: int(math.Round(r.prompt * a)), CompletionTokens: int(math.Round(r.completion * a))}
		why := fmt.Sprintf(estimateAssumptionBuild, stage, r.prompt+r.completion, records)
		if n, ok := perCall[stage]; ok {
			// The expected calls, not their count rounded up: on a small graph a stage's
			// expectation is a fraction of a call.
			s.CompletionTokens = int(math.Round(r.calls * a * float64(n)))
			why = fmt.Sprintf(estimateAssumptionSampled, stage, r.calls*1000, r.prompt, records, n)
		}
		est.LLM.Add(stage, s)
		est.LLM.Assumptions = append(est.LLM.Assumptions, why)
	}
	return nil
}

const estimateAssumptionSampled = "%s: %.2f calls per 1000 and %.1f prompt tokens per entity or relation extracted (%d predicted), as measured on multihop and mix with the fake model, each call answered with %d tokens as one sample call was (not cached)"

// sampleGraphChunks is how many of the chunks a sample graph is read from.
const sampleGraphChunks = 3

// sampleStructure measures, with one call each, what a summary-entities call and a report call
// make the model write, on a cluster and a community made of what the offline extractor finds in
// a few of texts (a stand-in for the graph the run would build: the answer's length is the
// model's habit more than the data's). It returns the answer tokens per call of each stage it
// sampled.
func (in *Ingester) sampleStructure(ctx context.Context, texts []string, runs map[string]bool) (map[string]int, error) {
	out := map[string]int{}
	sumX, sums := in.LayerSummarizer.(summarySampler)
	repX, reps := in.Reporter.(reportSampler)
	sums, reps = sums && runs[llm.StageLayers], reps && runs[llm.StageReport]
	if !sums && !reps || len(texts) == 0 {
		return out, nil
	}
	m := sampleMembers(ctx, texts)
	if len(m.Entities) < 2 {
		return out, nil
	}
	if sums {
		members := make([]layers.Member, len(m.Entities))
		for i, e := range m.Entities {
			members[i] = layers.Member{Entity: e, Connections: e.Degree, Label: e.Name}
		}
		n, err := sumX.SampleCompletion(ctx, members)
		if err != nil {
			return nil, err
		}
		out[llm.StageLayers] = n
	}
	if reps && m.RelationCount > 0 {
		n, err := repX.SampleCompletion(ctx, m)
		if err != nil {
			return nil, err
		}
		out[llm.StageReport] = n
	}
	return out, nil
}

// sampleMembers is a community of the size clusters aim at (20 entities and the relations among
// them), read by the offline extractor from a few of texts spread over them.
func sampleMembers(ctx context.Context, texts []string) graph.Members {
	const size = 20
	x := extract.NewOffline()
	var m graph.Members
	seen := map[string]bool{}
	n := min(sampleGraphChunks, len(texts))
	for i := range n {
		res, err := x.Extract(ctx, texts[i*len(texts)/n])
		if err != nil {
			continue
		}
		for _, e := range res.Entities {
			id := graph.NormalizeID(e.Name)
			if len(m.Entities) < size && !seen[id] {
				seen[id] = true
				m.Entities = append(m.Entities, graph.Entity{ID: id, Name: e.Name, Type: e.Type, Description: e.Description})
			}
		}
		for _, r := range res.Relations {
			s, t := graph.NormalizeID(r.Source), graph.NormalizeID(r.Target)
			if seen[s] && seen[t] && s != t && len(m.Relations) < size {
				m.Relations = append(m.Relations, graph.Relation{Source: s, Target: t, Description: r.Description, Weight: r.Strength})
			}
		}
	}
	m.RelationCount = len(m.Relations)
	return m
}

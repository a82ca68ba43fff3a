package retrieval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/testcorpus"
	"github.com/stratarag/strata/pipeline/layers"
	"github.com/stratarag/strata/pipeline/pipelinetest"
	"github.com/stratarag/strata/retrieval"
	"github.com/stratarag/strata/retrieval/eval"
)

// TestLCAOverTheHierarchy: over the test corpus with summary layers and LeanRAG's aggregation,
// lca mode puts base-layer seeds, the summaries above them and the relations among those into
// the context, inter-summary relations among them on some question, and keeps to its budget.
func TestLCAOverTheHierarchy(t *testing.T) {
	ctx := context.Background()
	f := pipelinetest.Ingested(t, 384)
	b := &layers.Builder{Store: f.Store, Embedder: f.Embedder, Summarizer: layers.Extractive{},
		Describer: layers.ExtractiveRelations{}, Log: zerolog.Nop(), Seed: 42, Options: layers.DefaultOptions()}
	built, err := b.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(built) == 0 || built[0].Aggregate.Relations == 0 {
		t.Fatalf("layers %+v: want a layer with inter-summary relations to retrieve", built)
	}
	engine := &retrieval.Engine{Store: f.Store, Embedder: f.Embedder, Tokenizer: f.Tokenizer}
	questions, err := eval.ReadQuestions(testcorpus.Questions())
	if err != nil {
		t.Fatal(err)
	}
	opt := retrieval.DefaultOptions(retrieval.ModeLCA)
	summaries, interSummary := 0, 0
	for _, q := range questions {
		res, err := engine.Query(ctx, q.Question, opt)
		if err != nil {
			t.Fatalf("%s: %v", q.ID, err)
		}
		seeds := 0
		summaryNames := map[string]bool{}
		for _, e := range res.Context.Entities {
			if e.Layer == 0 {
				seeds++
			} else {
				summaryNames[e.Name] = true
			}
		}
		if seeds == 0 || seeds > opt.Entities || len(res.Context.Chunks) == 0 {
			t.Errorf("%s: %d seeds, %d chunks", q.ID, seeds, len(res.Context.Chunks))
		}
		summaries += len(summaryNames)
		for _, p := range res.Context.Paths {
			if summaryNames[p.Source] && summaryNames[p.Target] && strings.Contains(p.Description, "relations join their members") {
				interSummary++
			}
		}
		if !strings.Contains(res.ContextText, "-----Summaries-----") && len(summaryNames) > 0 {
			t.Errorf("%s: summaries in the JSON context but not in its text", q.ID)
		}
	}
	if summaries == 0 || interSummary == 0 {
		t.Errorf("over %d questions: %d summaries and %d inter-summary relations in lca contexts, want some of each", len(questions), summaries, interSummary)
	}

	small := opt
	small.MaxContextTokens = 1000
	rep, err := eval.Run(ctx, engine, f.Tokenizer, questions, small)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		// Each section keeps to its share, but its first item is kept whole up to the share and
		// each heading costs a few tokens more.
		if r.ContextTokens == 0 || r.ContextTokens > small.MaxContextTokens+40 {
			t.Errorf("%s: %d context tokens with a budget of %d", r.ID, r.ContextTokens, small.MaxContextTokens)
		}
	}
}

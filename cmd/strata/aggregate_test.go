package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stratarag/strata/internal/llmtask/summaryrelation"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// interSummaryRelations counts the RELATED relationships between two summaries in the store.
func interSummaryRelations(t *testing.T, dir string) int {
	t.Helper()
	ctx := context.Background()
	s := openReadOnly(t, dir)
	n := 0
	for layer := 1; layer <= 5; layer++ {
		edges, err := graph.LayerEdges(ctx, s, layer)
		if err != nil {
			t.Fatal(err)
		}
		n += len(edges)
	}
	return n
}

// TestAggregationCostsReported: with a model asked for every inter-summary relation
// (--llm-structure all), LeanRAG's aggregation makes one call per relation, which the run report
// counts under its own stage (aggregate) and the dry run predicts under the same stage;
// --aggregate=false makes none, and predicts none.
func TestAggregationCostsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two ingests")
	}
	fake := fakeAPI(t, fakeopenai.Options{Seed: 1})
	type stages struct {
		LLM struct {
			Stages map[string]struct {
				LLMCalls     int `json:"llm_calls"`
				PromptTokens int `json:"prompt_tokens"`
			} `json:"stages"`
		} `json:"llm"`
		Estimate struct {
			Stages map[string]struct {
				Calls        int `json:"calls"`
				PromptTokens int `json:"prompt_tokens"`
			} `json:"stages"`
		} `json:"estimate"`
	}
	run := func(args ...string) stages {
		t.Helper()
		code, out, errOut := runCLI(t, args...)
		var s stages
		if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errOut)
		}
		return s
	}

	dir := t.TempDir()
	before := fake.Counts().ByTask[summaryrelation.Task]
	// Model descriptions: each document extracted alone, testdata's graph has inter-summary
	// relations (packed, its summaries join none).
	rep := run("ingest", "--data-dir", dir, "--json", "--llm-structure", "all", "--extract-descriptions", "model", corpusDir)
	agg := rep.LLM.Stages["aggregate"]
	rels := interSummaryRelations(t, dir)
	if rels == 0 || agg.LLMCalls != rels || agg.PromptTokens == 0 {
		t.Errorf("aggregate stage %+v for %d inter-summary relations, want one call each", agg, rels)
	}
	if got := fake.Counts().ByTask[summaryrelation.Task] - before; got != agg.LLMCalls {
		t.Errorf("the server answered %d summary relation prompts, the report counts %d", got, agg.LLMCalls)
	}
	dry := run("ingest", "--dry-run", "--json", "--llm-structure", "all", "--extract-descriptions", "model", corpusDir)
	if e := dry.Estimate.Stages["aggregate"]; e.Calls == 0 || e.PromptTokens == 0 {
		t.Errorf("dry run: aggregate %+v, want calls and tokens", e)
	}

	// Turned off on the same store: the structure is recomputed without them.
	if code, _, errOut := runCLI(t, "ingest", "--data-dir", dir, "--aggregate=false", "--extract-descriptions", "model", corpusDir); code != 0 || interSummaryRelations(t, dir) != 0 {
		t.Errorf("--aggregate=false over an aggregated store: exit %d, %d inter-summary relations left\n%s", code, interSummaryRelations(t, dir), errOut)
	}

	off := t.TempDir()
	rep = run("ingest", "--data-dir", off, "--json", "--aggregate=false", corpusDir)
	if _, ok := rep.LLM.Stages["aggregate"]; ok || interSummaryRelations(t, off) != 0 {
		t.Errorf("--aggregate=false: stage %+v, %d inter-summary relations; want none", rep.LLM.Stages["aggregate"], interSummaryRelations(t, off))
	}
	if _, ok := run("ingest", "--dry-run", "--json", "--aggregate=false", corpusDir).Estimate.Stages["aggregate"]; ok {
		t.Error("--aggregate=false: the dry run predicts aggregation calls")
	}
}

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
	"github.com/stratarag/strata/internal/llmtask/report"
	"github.com/stratarag/strata/internal/llmtask/summaryentities"
)

// TestLeanStructure: --llm-structure lean writes the summary layers without the model (the
// layers still exist) while the reports still ask it, the dry run predicts no summary call,
// and an unknown value is a usage error naming the three.
func TestLeanStructure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an LLM ingest")
	}
	fake := fakeAPI(t, fakeopenai.Options{Seed: 1})
	var out struct {
		LLM struct {
			Stages map[string]struct {
				LLMCalls int `json:"llm_calls"`
			} `json:"stages"`
		} `json:"llm"`
		Estimate struct {
			Stages map[string]struct {
				Calls int `json:"calls"`
			} `json:"stages"`
		} `json:"estimate"`
		Store struct {
			Nodes map[string]int `json:"nodes"`
		} `json:"store"`
	}
	run := func(args ...string) {
		t.Helper()
		code, stdout, errOut := runCLI(t, args...)
		out.LLM.Stages, out.Estimate.Stages, out.Store.Nodes = nil, nil, nil
		if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, errOut)
		}
	}
	run("ingest", "--dry-run", "--json", "--llm-structure", "lean", corpusDir)
	if e, ok := out.Estimate.Stages["layers"]; ok {
		t.Errorf("dry run: layers %+v predicted, want none", e)
	}
	if out.Estimate.Stages["report"].Calls == 0 {
		t.Errorf("dry run: no report call predicted; stages %+v", out.Estimate.Stages)
	}

	dir := t.TempDir()
	reports := fake.Counts().ByTask[report.Task] // the dry run measured one
	run("ingest", "--data-dir", dir, "--json", "--llm-structure", "lean", corpusDir)
	if n := fake.Counts().ByTask[summaryentities.Task]; n != 0 {
		t.Errorf("lean: %d summary prompts answered, want none", n)
	}
	if n := fake.Counts().ByTask[report.Task] - reports; n == 0 || out.LLM.Stages["report"].LLMCalls != n {
		t.Errorf("lean: %d report prompts answered, the report counts %d; want the model to write some", n, out.LLM.Stages["report"].LLMCalls)
	}
	run("status", "--data-dir", dir, "--json")
	if out.Store.Nodes["summaries"] == 0 {
		t.Errorf("lean: store %+v has no summaries", out.Store.Nodes)
	}

	code, _, errOut := runCLI(t, "ingest", "--dry-run", "--llm-structure", "leaner", corpusDir)
	if code != 2 || !strings.Contains(errOut, "want large, all or lean") {
		t.Errorf("--llm-structure leaner: exit %d\n%s", code, errOut)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// predictedCalls reads the estimate of a dry run's --json output: calls per stage, cached ones
// included (the structure stages cannot tell them apart).
func predictedCalls(t *testing.T, out string) map[string]int {
	t.Helper()
	var rep struct {
		Offline  bool
		Estimate *llm.Estimate
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Offline || rep.Estimate == nil {
		t.Fatalf("dry run with a model has no estimate:\n%s", out)
	}
	calls := map[string]int{}
	for stage, s := range rep.Estimate.Stages {
		calls[stage] = s.Calls + s.CachedCalls
	}
	return calls
}

// actualCalls reads the calls per stage of a run's --json output, cache hits included.
func actualCalls(t *testing.T, out string) map[string]int {
	t.Helper()
	var rep struct{ LLM llm.Stats }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	calls := map[string]int{}
	for stage, s := range rep.LLM.Stages {
		calls[stage] = s.LLMCalls + s.CacheHits
	}
	return calls
}

// checkPrediction compares a dry run's calls with the run's: each structure stage within half
// of what the run made, or two calls, either way.
func checkPrediction(t *testing.T, what string, predicted, actual map[string]int) {
	t.Helper()
	for _, stage := range []string{llm.StageLayers, llm.StageAggregate, llm.StageReport} {
		p, a := predicted[stage], actual[stage]
		t.Logf("%s %s: predicted %d, made %d", what, stage, p, a)
		if d := p - a; max(d, -d) > max(2, a/2) {
			t.Errorf("%s: %d %s calls predicted, %d made", what, p, stage, a)
		}
	}
}

// TestLLMDryRunPredictsUpdate: with a model (the fake server), `delete --dry-run` of a document
// predicts the summary, aggregation and report calls the deletion then makes, and `ingest
// --dry-run` of the corpus with the document back predicts the extraction of that document
// alone and the calls of the update that adds it.
func TestLLMDryRunPredictsUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several LLM ingests")
	}
	fakeAPI(t, fakeopenai.Options{Seed: 1})
	corpus := corpusCopy(t)
	dir := t.TempDir()
	if code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--json", corpus); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	const doc = "grey-heron.md"
	code, out, errOut := runCLI(t, "delete", "--data-dir", dir, "--dry-run", "--json", doc)
	if code != 0 {
		t.Fatalf("delete --dry-run: exit %d\n%s\n%s", code, out, errOut)
	}
	predicted := predictedCalls(t, out)
	code, out, errOut = runCLI(t, "delete", "--data-dir", dir, "--json", doc)
	if code != 0 {
		t.Fatalf("delete: exit %d\n%s\n%s", code, out, errOut)
	}
	checkPrediction(t, "delete", predicted, actualCalls(t, out))

	code, out, errOut = runCLI(t, "ingest", "--data-dir", dir, "--dry-run", "--json", corpus)
	if code != 0 {
		t.Fatalf("ingest --dry-run: exit %d\n%s\n%s", code, out, errOut)
	}
	var est struct {
		Documents, Unchanged int
		ExtractChunks        int `json:"chunks_to_extract"`
	}
	if err := json.Unmarshal([]byte(out), &est); err != nil {
		t.Fatal(err)
	}
	predicted = predictedCalls(t, out)
	text, err := os.ReadFile(filepath.Join(corpus, doc))
	if err != nil {
		t.Fatal(err)
	}
	if est.Unchanged != est.Documents-1 || est.ExtractChunks == 0 {
		t.Errorf("ingest --dry-run with %s back: %d of %d documents unchanged, %d chunks to extract; want all but one unchanged (%d bytes to extract)",
			doc, est.Unchanged, est.Documents, est.ExtractChunks, len(text))
	}
	code, out, errOut = runCLI(t, "ingest", "--data-dir", dir, "--json", corpus)
	if code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	actual := actualCalls(t, out)
	if predicted[llm.StageExtract] != actual[llm.StageExtract] {
		t.Errorf("ingest of %s again: %d extraction calls predicted, %d made", doc, predicted[llm.StageExtract], actual[llm.StageExtract])
	}
	checkPrediction(t, "add", predicted, actual)
}

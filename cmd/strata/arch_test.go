package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llmtask/archsummary"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// TestArchWithLLM ingests testdata with --arch through the fake LLM: the run report counts the
// community summaries under their own stage, one call per community; the dry run predicts the
// stage, and only with --arch; arch mode then filters with the model and answers.
func TestArchWithLLM(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an ingest through the fake LLM")
	}
	fake := fakeAPI(t, fakeopenai.Options{Seed: 1})
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--json", "--arch", "3", corpusDir)
	if code != 0 {
		t.Fatalf("ingest --arch: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep ingestOutput
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	comms := 0
	for _, l := range rep.Arch {
		comms += l.Communities
	}
	if rep.LLM == nil || comms == 0 {
		t.Fatalf("report without attributed communities or LLM stats: %s", out)
	}
	st := rep.LLM.Stages[llm.StageArch]
	if st.LLMCalls != comms || st.LLMCalls != fake.Counts().ByTask[archsummary.Task] || st.PromptTokens == 0 || st.CompletionTokens == 0 {
		t.Errorf("arch stage %+v for %d communities (%d summary requests), want one call each with tokens",
			st, comms, fake.Counts().ByTask[archsummary.Task])
	}
	if !strings.Contains(errOut, "arch") {
		t.Errorf("the usage table on stderr has no arch row:\n%s", errOut)
	}

	for _, tc := range []struct {
		args []string
		want bool
	}{{[]string{"--arch", "3"}, true}, {nil, false}} {
		args := append([]string{"ingest", "--data-dir", t.TempDir(), "--dry-run", "--json"}, tc.args...)
		code, out, _ := runCLI(t, append(args, corpusDir)...)
		var dry struct {
			Estimate llm.Estimate
		}
		if code != 0 || json.Unmarshal([]byte(out), &dry) != nil {
			t.Fatalf("dry run %v: exit %d: %s", tc.args, code, out)
		}
		a, ok := dry.Estimate.Stages[llm.StageArch]
		if ok != tc.want || (ok && (a.Calls == 0 || a.PromptTokens == 0)) {
			t.Errorf("dry run %v: arch stage %+v (present %v), want present %v with calls", tc.args, a, ok, tc.want)
		}
	}

	code, out, errOut = runCLI(t, "query", "--data-dir", dir, "--json", "--mode", "arch", "Who commissioned the Kestrel Point Lighthouse?")
	if code != 0 {
		t.Fatalf("query --mode arch: exit %d: %s", code, errOut)
	}
	var res struct {
		Answer      *string
		ContextText string `json:"context_text"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Answer == nil || !strings.Contains(res.ContextText, "-----Findings-----") {
		t.Errorf("arch query: answer %v, context:\n%s", res.Answer, res.ContextText)
	}
}

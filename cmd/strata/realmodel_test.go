package main

import (
	"encoding/json"
	"fmt"
	"github.com/stratarag/strata/cmd/strata/internal/server/servertest"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// realModel points the CLI at the real model servers that models/local/with-models.sh starts
// (a small instruct model behind llama-cpp-python's OpenAI-compatible server, and an e5
// embedding server) through STRATA_TEST_LLM_* and STRATA_TEST_EMBEDDING_*.
func realModel(t *testing.T) {
	t.Helper()
	modelServers(t, "STRATA_TEST_LLM_BASE_URL", "STRATA_TEST_EMBEDDING_BASE_URL")
	t.Setenv("STRATA_OFFLINE", "")
	t.Setenv("OPENAI_BASE_URL", os.Getenv("STRATA_TEST_LLM_BASE_URL"))
	t.Setenv("STRATA_LLM_MODEL", os.Getenv("STRATA_TEST_LLM_MODEL"))
	// A window smaller than the server's keeps every answer, and so the suite, short on two
	// cores, and makes the run fit its answers and query budgets to a window as a user's would.
	t.Setenv("STRATA_LLM_CONTEXT", "1536")
	// llama-cpp-python answers one request at a time and says nothing of its slots.
	t.Setenv("STRATA_LLM_CONCURRENCY", "1")
}

// realEmbedder points the CLI at the real embedding server only: extraction is offline.
func realEmbedder(t *testing.T) {
	t.Helper()
	modelServers(t, "STRATA_TEST_EMBEDDING_BASE_URL")
	t.Setenv("STRATA_OFFLINE", "1")
	t.Setenv("OPENAI_BASE_URL", "")
}

// modelServers checks that the variables naming the servers a test needs are set, and sets what
// every model test shares. Without them the test skips, unless STRATA_REQUIRE_MODEL=1 (make test,
// CI), where it fails; a test that runs adds its name to STRATA_MODEL_TEST_LOG, which
// with-models.sh counts.
func modelServers(t *testing.T, vars ...string) {
	t.Helper()
	for _, v := range vars {
		if os.Getenv(v) != "" {
			continue
		}
		if os.Getenv("STRATA_REQUIRE_MODEL") == "1" {
			t.Fatalf("STRATA_REQUIRE_MODEL=1 but %s is not set", v)
		}
		t.Skip("no real model server: run the tests through models/local/with-models.sh (make test does)")
	}
	if path := os.Getenv("STRATA_MODEL_TEST_LOG"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintln(f, t.Name())
			f.Close()
		}
	}
	t.Setenv("NEO4J_URI", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("STRATA_EMBEDDING_BASE_URL", os.Getenv("STRATA_TEST_EMBEDDING_BASE_URL"))
	t.Setenv("STRATA_EMBEDDING_MODEL", os.Getenv("STRATA_TEST_EMBEDDING_MODEL"))
}

// stageUsage is the part of the llm report this suite reads.
type stageUsage struct {
	LLMCalls   int `json:"llm_calls"`
	CacheHits  int `json:"cache_hits"`
	Unreadable int `json:"unreadable"`
	Salvaged   int `json:"salvaged"`
	Embedding  int `json:"embedding_calls"`
}

type runReport struct {
	Documents int
	Failed    int
	Entities  int
	Usage     struct {
		LLMCalls       int `json:"llm_calls"`
		EmbeddingCalls int `json:"embedding_calls"`
	}
	LLM struct {
		Total  stageUsage
		Stages map[string]stageUsage
	}
}

func decodeReport(t *testing.T, out string) runReport {
	t.Helper()
	var r runReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

var citation = regexp.MustCompile(`\[doc:([^\]\s]+)\]`)

// The pipeline's contract with a real model: answers parsed, cached, cited and counted. What a
// 135M-parameter model knows is not asserted.
func TestRealModel(t *testing.T) {
	realModel(t)
	dir, in := t.TempDir(), t.TempDir()
	docs := []string{"edda-fenwick.txt", "harbor-guild.md"}
	for _, d := range docs {
		b, err := os.ReadFile(filepath.Join(corpusDir, d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(in, d), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{in}
	start := time.Now()
	step := func(name string) {
		t.Logf("%s done after %s", name, time.Since(start).Round(time.Second))
	}

	code, out, errOut := runCLI(t, append([]string{"ingest", "--data-dir", dir, "--json"}, paths...)...)
	if code != 0 {
		t.Fatalf("ingest exit %d\n%s\n%s", code, out, errOut)
	}
	rep := decodeReport(t, out)
	ext := rep.LLM.Stages["extract"]
	if rep.Documents != 2 || ext.LLMCalls < 2 || rep.Entities == 0 || rep.Usage.EmbeddingCalls == 0 {
		t.Fatalf("ingest report: %s", out)
	}
	if ext.Unreadable != 0 {
		t.Errorf("%d of %d extraction answers unreadable under a JSON schema", ext.Unreadable, ext.LLMCalls)
	}
	step("ingest")
	t.Logf("ingest: %d extraction calls (%d salvaged), %d calls in all, %d entities", ext.LLMCalls, ext.Salvaged, rep.Usage.LLMCalls, rep.Entities)

	_, out, _ = runCLI(t, "status", "--data-dir", dir, "--json")
	var st struct {
		Meta  map[string]string
		Store struct{ Nodes map[string]int }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(st.Meta["extractor"], "llm:"+os.Getenv("STRATA_TEST_LLM_MODEL")+":") ||
		!strings.HasPrefix(st.Meta["embedding.model"], os.Getenv("STRATA_TEST_EMBEDDING_MODEL")) || st.Store.Nodes["documents"] != 2 {
		t.Errorf("status: %s", out)
	}

	for _, mode := range []string{"hi", "naive"} {
		code, out, errOut := runCLI(t, "query", "--data-dir", dir, "--json", "--mode", mode, "Who led the Harbor Guild?")
		if code != 0 {
			t.Fatalf("query --mode %s: exit %d\n%s", mode, code, errOut)
		}
		var q struct {
			Answer *string
			Usage  struct {
				LLMCalls int `json:"llm_calls"`
			}
		}
		if err := json.Unmarshal([]byte(out), &q); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if q.Answer == nil || strings.TrimSpace(*q.Answer) == "" || q.Usage.LLMCalls == 0 {
			t.Fatalf("query --mode %s: no answer from the model: %s", mode, out)
		}
		for _, m := range citation.FindAllStringSubmatch(*q.Answer, -1) {
			if m[1] != docs[0] && m[1] != docs[1] {
				t.Errorf("query --mode %s cites %q, which is not stored: %s", mode, m[0], *q.Answer)
			}
		}
		t.Logf("%s: %q", mode, *q.Answer)
		step("query --mode " + mode)
	}

	code, out, errOut = runCLI(t, append([]string{"ingest", "--data-dir", dir, "--json"}, paths...)...)
	if rerun := decodeReport(t, out); code != 0 || rerun.Usage.LLMCalls != 0 || rerun.Usage.EmbeddingCalls != 0 {
		t.Errorf("re-run: exit %d, %d model calls, %d embedding calls; want none\n%s", code, rerun.Usage.LLMCalls, rerun.Usage.EmbeddingCalls, errOut)
	}

	step("re-run")
	code, out, errOut = runCLI(t, "delete", "--data-dir", dir, "--json", docs[1])
	if code != 0 {
		t.Fatalf("delete: exit %d\n%s\n%s", code, out, errOut)
	}
	if del := decodeReport(t, out); del.LLM.Stages["extract"].LLMCalls != 0 || del.LLM.Stages["glean"].LLMCalls != 0 {
		t.Errorf("delete made extraction calls: %+v", del.LLM.Stages)
	}

	step("delete")
	hs := serveFlags(t, "--data-dir", dir)
	status, _, body := servertest.Do(t, http.MethodPost, hs.URL+"/query", `{"question":"Who is Edda Fenwick?","mode":"hi"}`)
	answer, _ := body["answer"].(string)
	if status != http.StatusOK || strings.TrimSpace(answer) == "" {
		t.Fatalf("serve: %d %v", status, body)
	}
	for _, m := range citation.FindAllStringSubmatch(answer, -1) {
		if m[1] != docs[0] {
			t.Errorf("serve cites %q after %s was deleted: %s", m[0], docs[1], answer)
		}
	}
	step("serve")
}

// TestRealModelEval: eval --answers and --against naive with the local chat model on three
// testdata questions, over a store built offline with the real embedder: the plumbing (answers
// generated, scored, judged in both orders, counted, cached), not what a 135M model knows or
// how well it judges.
func TestRealModelEval(t *testing.T) {
	realModel(t)
	dir := t.TempDir()
	t.Setenv("STRATA_OFFLINE", "1") // the store: offline extraction, real embeddings
	if code, out, errOut := runCLI(t, "ingest", "--data-dir", dir, "--json", corpusDir); code != 0 {
		t.Fatalf("ingest exit %d\n%s\n%s", code, out, errOut)
	}
	t.Setenv("STRATA_OFFLINE", "")
	questions := threeQuestions(t)
	start := time.Now()

	code, out, errOut := runCLI(t, "eval", "--data-dir", dir, "--json", "--questions", questions, "--answers")
	if code != 0 {
		t.Fatalf("eval --answers: exit %d\n%s\n%s", code, out, errOut)
	}
	r := decodeEval(t, out)
	if a := r.Answers; a == nil || a.Questions != 3 || len(a.Results) != 3 || a.MeanLLMCalls == 0 || r.Usage.LLMCalls < 3 {
		t.Fatalf("eval --answers: %s", out)
	}
	t.Logf("answers: accuracy %.2f, f1 %.2f, %d unreadable, %.1f calls per query, p50 %.0f ms (%s)",
		r.Answers.Accuracy, r.Answers.F1, r.Answers.Unreadable, r.Answers.MeanLLMCalls, r.Answers.LatencyMS.P50, time.Since(start).Round(time.Second))

	// Exit 3 is the judge's unusable verdicts, which a 135M model may give: the run is complete
	// and reported either way.
	code, out, errOut = runCLI(t, "eval", "--data-dir", dir, "--json", "--questions", questions, "--against", "naive")
	if code != 0 && code != exitPartial {
		t.Fatalf("eval --against naive: exit %d\n%s\n%s", code, out, errOut)
	}
	r = decodeEval(t, out)
	j := r.Judge
	if j == nil || j.Questions != 3 || j.Judgments+j.Unreadable != 6 || len(j.Results) != 3 {
		t.Fatalf("eval --against naive: %s", out)
	}
	t.Logf("judge: %d verdicts read, %d unreadable, win rates %v, exit %d (%s)", j.Judgments, j.Unreadable, j.WinRates, code, time.Since(start).Round(time.Second))

	code, out, _ = runCLI(t, "eval", "--data-dir", dir, "--json", "--questions", questions, "--answers")
	if again := decodeEval(t, out); code != 0 || again.Usage.LLMCalls != 0 {
		t.Errorf("re-run of eval --answers: exit %d, %d LLM calls; want none", code, again.Usage.LLMCalls)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/testcorpus"
)

var (
	corpusDir    = testcorpus.Dir()
	questionFile = testcorpus.Questions()
)

// strata runs the CLI in-process, offline, and returns its exit code, stdout and stderr.
func strata(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("STRATA_EMBEDDING_BASE_URL", "")
	t.Setenv("NEO4J_URI", "")
	return runCLI(t, args...)
}

// runCLI runs the CLI in-process with the environment as the test set it.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr lockedBuffer
	code := run(context.Background(), append([]string{"strata"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func ingested(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := strata(t, "ingest", "--data-dir", dir, "--json", corpusDir)
	if code != 0 {
		t.Fatalf("ingest exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("ingest --json output is not one JSON object: %v\n%s", err, out)
	}
	if rep["documents"] != float64(17) {
		t.Fatalf("ingest report: %v", rep)
	}
	return dir
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// checkBudget checks the budget object of a query's JSON: its keys, a section per heading of the
// context text, the last one (the sources) holding items, and in hi mode each section's level.
func checkBudget(t *testing.T, mode string, v any) {
	t.Helper()
	b, ok := v.(map[string]any)
	if !ok || !reflect.DeepEqual(keys(b), []string{"max_tokens", "sections"}) {
		t.Fatalf("%s: budget %v", mode, v)
	}
	sections := b["sections"].([]any)
	if len(sections) == 0 {
		t.Fatalf("%s: budget without sections", mode)
	}
	levels := map[string]string{"Backgrounds": "global", "Reasoning Path": "bridge", "Detail Entity Information": "local", "Source Documents": "sources"}
	for _, it := range sections {
		s := it.(map[string]any)
		want := []string{"budget", "items", "section", "tokens"}
		if mode == "hi" {
			want = []string{"budget", "items", "level", "section", "tokens"}
			if s["level"] != levels[s["section"].(string)] {
				t.Errorf("%s: section %v has level %v", mode, s["section"], s["level"])
			}
		}
		if got := keys(s); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: budget section keys %v, want %v", mode, got, want)
		}
		if s["tokens"].(float64) <= 0 || s["items"].(float64) <= 0 {
			t.Errorf("%s: section %v spent %v tokens on %v items", mode, s["section"], s["tokens"], s["items"])
		}
	}
}

func TestQueryJSONShape(t *testing.T) {
	dir := ingested(t)
	for _, mode := range []string{"hi", "naive", "local"} {
		code, out, errOut := strata(t, "query", "--data-dir", dir, "--json", "--mode", mode, "Who founded the Saltmere Cartographers' Guild?")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", mode, code, errOut)
		}
		dec := json.NewDecoder(strings.NewReader(out))
		var res map[string]any
		if err := dec.Decode(&res); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		if dec.More() {
			t.Fatalf("%s: more than one JSON value on stdout", mode)
		}
		want := []string{"answer", "answer_notes", "budget", "context", "context_text", "mode", "query", "timings_ms", "usage"}
		if got := keys(res); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: keys %v, want %v", mode, got, want)
		}
		if res["answer"] != nil || res["answer_notes"] != nil || res["mode"] != mode {
			t.Errorf("%s: answer %v mode %v", mode, res["answer"], res["mode"])
		}
		ctx := res["context"].(map[string]any)
		if got := keys(ctx); !reflect.DeepEqual(got, []string{"chunks", "communities", "entities", "paths"}) {
			t.Errorf("%s: context keys %v", mode, got)
		}
		itemKeys := map[string][]string{
			"chunks":      {"document_id", "id", "score", "text", "title"},
			"entities":    {"description", "id", "layer", "name", "score", "type"},
			"communities": {"id", "level", "rating", "summary", "title"},
			"paths":       {"description", "source", "target", "weight"},
		}
		for list, wantKeys := range itemKeys {
			items, ok := ctx[list].([]any)
			if !ok {
				t.Errorf("%s: context.%s is not a list: %v", mode, list, ctx[list])
				continue
			}
			for _, it := range items {
				item := it.(map[string]any)
				if list == "chunks" && item["excerpt"] == true { // hi writes its lower chunks as excerpts
					delete(item, "excerpt")
				}
				if got := keys(item); !reflect.DeepEqual(got, wantKeys) {
					t.Errorf("%s: context.%s item keys %v, want %v", mode, list, got, wantKeys)
				}
			}
		}
		checkBudget(t, mode, res["budget"])
		chunks := ctx["chunks"].([]any)
		if len(chunks) == 0 {
			t.Fatalf("%s: no chunks", mode)
		}
		for i := 1; i < len(chunks); i++ {
			if chunks[i].(map[string]any)["score"].(float64) > chunks[i-1].(map[string]any)["score"].(float64) {
				t.Errorf("%s: chunks not in rank order", mode)
			}
		}
		if mode != "naive" && len(ctx["entities"].([]any)) == 0 {
			t.Errorf("%s mode returned no entities", mode)
		}
		if mode == "hi" && (len(ctx["communities"].([]any)) == 0 || len(ctx["paths"].([]any)) == 0) {
			t.Errorf("hi mode returned no communities or no bridge paths: %v / %v", ctx["communities"], ctx["paths"])
		}
		if got := keys(res["usage"].(map[string]any)); !reflect.DeepEqual(got, []string{"completion_tokens", "embedding_calls", "llm_calls", "prompt_tokens"}) {
			t.Errorf("usage keys %v", got)
		}
		if !strings.Contains(res["context_text"].(string), "harbor-guild.md") {
			t.Errorf("%s: context text does not cite the founding document", mode)
		}
	}
}

func TestQueryTextSaysNoAnswer(t *testing.T) {
	dir := ingested(t)
	code, out, _ := strata(t, "query", "--data-dir", dir, "Where is Port Avel?")
	if code != 0 || !strings.Contains(out, "No answer generated") || !strings.Contains(out, "-----Source Documents-----") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

func TestStatusAndEval(t *testing.T) {
	dir := ingested(t)
	code, out, errOut := strata(t, "status", "--data-dir", dir, "--json")
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, errOut)
	}
	st := decodeJSON[statusReport](t, "status", out)
	if st.Backend.Kind != "embedded" || st.Store.Nodes["documents"] != 17 || st.Store.Nodes["entities"] == 0 {
		t.Errorf("status = %+v", st)
	}

	code, out, errOut = strata(t, "eval", "--data-dir", dir, "--questions", questionFile, "--mode", "naive", "--json")
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, errOut)
	}
	var rep struct {
		Questions int
		Recall    map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 16 || rep.Recall["recall@10"] < rep.Recall["recall@2"] || rep.Recall["recall@10"] == 0 {
		t.Errorf("eval report = %+v", rep)
	}
}

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of loggers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestQueryCitesPDFPages: a chunk of a PDF comes with its pages in query --json, and the context
// text labels it with them; the text file beside it keeps the labels it always had.
func TestQueryCitesPDFPages(t *testing.T) {
	in := t.TempDir()
	pdf, err := os.ReadFile(filepath.Join("..", "..", "pipeline", "load", "testdata", "inputs", "good", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "report.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "notes.txt"), []byte("The lighthouse keepers of Gull Point log the ferries."), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if code, out, errOut := strata(t, "ingest", "--data-dir", dir, "--json", in); code != 0 {
		t.Fatalf("ingest exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	code, out, errOut := strata(t, "query", "--data-dir", dir, "--json", "--context-only", "--mode", "naive", "When was the lighthouse on Gull Point rebuilt?")
	if code != 0 {
		t.Fatalf("query exit %d: %s", code, errOut)
	}
	var res struct {
		Context struct {
			Chunks []struct {
				DocumentID string `json:"document_id"`
				ID         string `json:"id"`
				Pages      []int  `json:"pages"`
			} `json:"chunks"`
		} `json:"context"`
		ContextText string `json:"context_text"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	docs := map[string]bool{}
	for _, c := range res.Context.Chunks {
		docs[c.DocumentID] = true
		// The whole report is one chunk at the default size.
		label := "[doc:" + c.DocumentID + " chunk:" + c.ID + "]"
		if c.DocumentID == "report.pdf" {
			if !reflect.DeepEqual(c.Pages, []int{1, 2, 3}) {
				t.Errorf("report.pdf chunk pages %v, want [1 2 3]", c.Pages)
			}
			label = "[doc:report.pdf pp.1-3 chunk:" + c.ID + "]"
		} else if c.Pages != nil {
			t.Errorf("%s chunk has pages %v", c.DocumentID, c.Pages)
		}
		if !strings.Contains(res.ContextText, label) {
			t.Errorf("context text does not label the chunk %s:\n%s", label, res.ContextText)
		}
	}
	if !docs["report.pdf"] || !docs["notes.txt"] {
		t.Errorf("context holds chunks of %v, want both documents", docs)
	}
}

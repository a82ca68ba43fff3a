package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// TestIngestReportsMalformedAnswers: with a model that mangles some answers, ingest counts the
// salvaged ones per stage in --json ("malformed_answers"), in the text summary and in a warning
// on stderr; a fresh store over the same cache asks for them again and reports them again,
// rather than rebuilding the damaged graph from the cache without a word.
func TestIngestReportsMalformedAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two LLM ingests")
	}
	opts := fakeopenai.Options{Seed: 5, MalformedRate: 0.3}
	fake := fakeAPI(t, opts)
	cache := filepath.Join(t.TempDir(), "cache")
	code, out, errOut := runCLI(t, "ingest", "--data-dir", t.TempDir(), "--cache-dir", cache, "--json", corpusDir)
	if code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		Malformed map[string]malformedCounts `json:"malformed_answers"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ext := rep.Malformed["extract"]
	if fake.Counts().BrokenRecords == 0 || ext.Salvaged+ext.Unreadable == 0 || ext.DroppedRecords == 0 {
		t.Fatalf("server broke %d records; ingest reports %+v", fake.Counts().BrokenRecords, rep.Malformed)
	}
	if !strings.Contains(errOut, "malformed model answers") || !strings.Contains(errOut, "not cached") {
		t.Errorf("no warning about malformed answers on stderr:\n%s", errOut)
	}

	again := fakeAPI(t, opts)
	code, out, errOut = runCLI(t, "ingest", "--data-dir", t.TempDir(), "--cache-dir", cache, corpusDir)
	if code != 0 {
		t.Fatalf("second ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	if again.Counts().Chat < ext.Salvaged+ext.Unreadable {
		t.Errorf("fresh store over the same cache made %d chat requests; the %d damaged extraction answers must be asked again",
			again.Counts().Chat, ext.Salvaged+ext.Unreadable)
	}
	if !strings.Contains(out, "salvaged in part") || !strings.Contains(out, "extract ") {
		t.Errorf("text summary does not report the malformed answers:\n%s", out)
	}
}

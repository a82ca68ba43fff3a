package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
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
	// 30 % mangled is a model that mostly follows the format: the run is not judged unusable.
	// testdata's 17 short documents are extracted in 14 calls (extract.Packs).
	if ext.Answers < 14 || ext.UnreadableShare != float64(ext.Unreadable)/float64(ext.Answers) || ext.UnreadableShare >= 0.5 {
		t.Errorf("extract figures %+v", ext)
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

func TestUnusable(t *testing.T) {
	tests := []struct {
		calls, cacheHits, unreadable int
		want                         bool
	}{
		{0, 0, 0, false},
		{1, 0, 0, false},
		{1, 0, 1, true}, // a tiny run's only answer: the stage got nothing
		{2, 0, 1, false},
		{2, 0, 2, true},
		{3, 0, 2, false}, // too few to judge the model by
		{4, 0, 2, false},
		{6, 0, 3, true}, // half, and enough of them
		{7, 0, 3, false},
		{17, 0, 17, true},
		{3, 10, 3, false}, // the cache's answers were read in full: 3 of 13
		{1, 1, 1, false},
	}
	for _, tc := range tests {
		u := llm.StageUsage{LLMCalls: tc.calls, CacheHits: tc.cacheHits, Unreadable: tc.unreadable}
		if got := unusable(u); got != tc.want {
			t.Errorf("%d unreadable of %d calls and %d cache hits: unusable = %v, want %v", tc.unreadable, tc.calls, tc.cacheHits, got, tc.want)
		}
	}
}

// TestIngestUnusableModel: a model whose every answer is unreadable makes ingest exit 3 and say
// which stage it could not do, with the figure and what to try, in the --json report
// ("unusable_stages", "malformed_answers".<stage>.unreadable_share, "error") and on stderr.
func TestIngestUnusableModel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two LLM ingests")
	}
	fakeAPI(t, fakeopenai.Options{Seed: 6, UnreadableRate: 1})
	code, out, errOut := runCLI(t, "ingest", "--data-dir", t.TempDir(), "--json", corpusDir)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitPartial, out, errOut)
	}
	var rep struct {
		Documents int
		Malformed map[string]malformedCounts `json:"malformed_answers"`
		Unusable  []string                   `json:"unusable_stages"`
		Error     string
		Code      int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ext := rep.Malformed["extract"]
	// testdata's 17 short documents are extracted in 14 calls (extract.Packs).
	if rep.Documents != 17 || ext.Answers != 14 || ext.Unreadable != 14 || ext.UnreadableShare != 1 {
		t.Errorf("report: %d documents, extract %+v", rep.Documents, ext)
	}
	if len(rep.Unusable) == 0 || rep.Unusable[0] != "extract" || rep.Code != exitPartial {
		t.Errorf("unusable_stages %q, code %d", rep.Unusable, rep.Code)
	}
	for _, want := range []string{"the model cannot follow", "14 of 14 extract answers (100%) were unreadable", "instruction-tuned", "structured output", "--extract-mode two-pass"} {
		if !strings.Contains(rep.Error, want) {
			t.Errorf("error %q does not say %q", rep.Error, want)
		}
	}
	if !strings.Contains(errOut, "strata: "+rep.Error+"\n") {
		t.Errorf("stderr does not end with the error:\n%s", errOut)
	}

	// In two-pass mode the advice is the other mode, and the text summary exits 3 too.
	code, out, errOut = runCLI(t, "ingest", "--data-dir", t.TempDir(), "--extract-mode", "two-pass", corpusDir)
	if code != exitPartial || !strings.Contains(errOut, "--extract-mode combined") || !strings.Contains(out, "Ingested into") {
		t.Errorf("two-pass: exit %d\n%s\n%s", code, out, errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// batchArgs run the Batch API at a test's pace.
var batchArgs = []string{"--llm-batch", "--llm-batch-wait", "30ms", "--llm-batch-poll", "2ms"}

// billed is what each stage was billed: calls and tokens, the figures batch mode must keep.
func billed(st *llm.Stats) map[string][3]int {
	out := map[string][3]int{}
	if st == nil {
		return out
	}
	for name, u := range st.Stages {
		if name == llm.StageEmbed {
			continue
		}
		out[name] = [3]int{u.LLMCalls, u.PromptTokens, u.CompletionTokens}
	}
	return out
}

// TestIngestLLMBatch: ingest --llm-batch builds the graph a direct run builds, with the same
// calls and tokens per stage, all of them through batch jobs. A job that expires (or fails)
// makes the run exit 1 naming the requests it left unanswered, and the same command then
// submits those and completes the store.
func TestIngestLLMBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs LLM ingests")
	}
	fakeAPI(t, fakeopenai.Options{Seed: 5})
	directDir := t.TempDir()
	code, out, errOut := runCLI(t, "ingest", "--data-dir", directDir, "--json", corpusDir)
	if code != 0 {
		t.Fatalf("direct ingest: exit %d\n%s", code, errOut)
	}
	want := decodeJSON[ingestOutput](t, "ingest", out)

	tests := []struct {
		name string
		end  string // how the first run's jobs end
	}{
		{name: "completed", end: "completed"},
		{name: "expired then resumed", end: "expired"},
		{name: "failed then resumed", end: "failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeAPI(t, fakeopenai.Options{Seed: 5, Batch: fakeopenai.BatchOptions{End: tc.end}})
			dir := t.TempDir()
			args := append(append([]string{"ingest", "--data-dir", dir, "--json"}, batchArgs...), corpusDir)
			code, out, errOut := runCLI(t, args...)
			if tc.end != "completed" {
				// Exit 1 with the unanswered requests named, then the same command resumes.
				if code != exitFailure || !strings.Contains(errOut, "batch job batch_1 "+tc.end) ||
					!regexp.MustCompile(`extract-[0-9a-f]{16}`).MatchString(errOut) || !strings.Contains(errOut, "the same command submits the rest again") {
					t.Fatalf("first run: exit %d, stderr %s", code, lastLine(errOut))
				}
				if recs, _ := os.ReadDir(filepath.Join(dir, "llm-cache", "batches")); len(recs) != 0 {
					t.Errorf("records of ended jobs left: %d", len(recs))
				}
				fake.SetBatch(fakeopenai.BatchOptions{})
				code, out, errOut = runCLI(t, args...)
			}
			if code != 0 {
				t.Fatalf("batch ingest: exit %d\n%s", code, lastLine(errOut))
			}
			got := decodeJSON[ingestOutput](t, "ingest", out)
			if !reflect.DeepEqual(got.Store, want.Store) {
				t.Errorf("store %+v, direct run's %+v", got.Store, want.Store)
			}
			counts := fake.Counts()
			// Every chat answer came in a job. (Counting POSTs instead, an upload and a job each,
			// fails by timing: a job of another stage may upload its file as a failed one stops
			// the run, and never be created.)
			if counts.BatchCreates == 0 || counts.Chat != counts.BatchLines {
				t.Errorf("%d jobs, %d chat answers of which %d in jobs: chat requests went direct", counts.BatchCreates, counts.Chat, counts.BatchLines)
			}
			if tc.end == "completed" {
				if g, w := billed(got.LLM), billed(want.LLM); !reflect.DeepEqual(g, w) {
					t.Errorf("billed per stage %v, direct run's %v", g, w)
				}
				if got.LLM.Batch == nil || got.LLM.Batch.Jobs != counts.BatchCreates || got.LLM.Batch.Lines != counts.Chat {
					t.Errorf("llm.batch %+v, fake saw %d jobs and %d answers", got.LLM.Batch, counts.BatchCreates, counts.Chat)
				}
			}
			// Every answer cached: a re-run makes no job.
			code, _, errOut = runCLI(t, args...)
			if code != 0 || fake.Counts().BatchCreates != counts.BatchCreates {
				t.Errorf("re-run: exit %d, %d jobs more\n%s", code, fake.Counts().BatchCreates-counts.BatchCreates, lastLine(errOut))
			}
		})
	}
}

// TestBatchFlagUsage: batch settings out of range are bad usage, on both commands that take them.
func TestBatchFlagUsage(t *testing.T) {
	fakeAPI(t, fakeopenai.Options{})
	for _, args := range [][]string{
		{"ingest", "--llm-batch", "--llm-batch-size", "0", corpusDir},
		{"ingest", "--llm-batch-size", "50001", corpusDir},
		{"delete", "--llm-batch", "--llm-batch-wait", "0s", "port-avel.md"},
		{"ingest", "--llm-batch-poll", "-1s", corpusDir},
	} {
		code, _, errOut := runCLI(t, append(args, "--data-dir", t.TempDir())...)
		if code != exitUsage || !strings.Contains(errOut, "--llm-batch") {
			t.Errorf("%v: exit %d, %s", args, code, lastLine(errOut))
		}
	}
}

// lastLine is the end of stderr, where a failure's message is.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

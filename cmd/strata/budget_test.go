package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// TestBudgetUsageErrors: a budget of 0 or below, by flag or environment, is bad usage naming the
// flag, on both commands that take it, before anything is opened.
func TestBudgetUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		env  string // STRATA_MAX_LLM_TOKENS
		args []string
	}{
		{name: "ingest 0", args: []string{"ingest", "--max-llm-tokens", "0", corpusDir}},
		{name: "ingest -5", args: []string{"ingest", "--max-llm-tokens", "-5", corpusDir}},
		{name: "ingest -5 json", args: []string{"ingest", "--json", "--max-llm-tokens=-5", corpusDir}},
		{name: "ingest env 0", env: "0", args: []string{"ingest", corpusDir}},
		{name: "delete 0", args: []string{"delete", "--max-llm-tokens", "0", "port-avel.md"}},
		{name: "delete -5 json", args: []string{"delete", "port-avel.md", "--json", "--max-llm-tokens", "-5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("STRATA_MAX_LLM_TOKENS", tc.env)
			if tc.env == "" {
				os.Unsetenv("STRATA_MAX_LLM_TOKENS") // set-but-empty is not unset to urfave/cli
			}
			dir := filepath.Join(t.TempDir(), "store")
			code, out, errOut := strata(t, append(tc.args, "--data-dir", dir)...)
			if code != exitUsage || !strings.Contains(errOut, "--max-llm-tokens must be at least 1") {
				t.Errorf("exit %d, stderr %s", code, errOut)
			}
			if slices.Contains(tc.args, "--json") {
				if e := decodeJSON[jsonError](t, tc.args[0], out); e.Code != exitUsage || !strings.Contains(e.Error, "--max-llm-tokens") {
					t.Errorf("--json: %s", out)
				}
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("a refused run created the store: %v", err)
			}
		})
	}
}

// TestBudgetRefusesOverPrediction: when the dry run's prediction exceeds the budget, ingest
// (into a new store or an existing one) and delete refuse with exit 2 before any request
// reaches the model and before the store changes.
func TestBudgetRefusesOverPrediction(t *testing.T) {
	if testing.Short() {
		t.Skip("runs LLM ingests")
	}
	fake := fakeAPI(t, fakeopenai.Options{Seed: 11})
	// A store holding a third of a copy of the corpus; the rest is then added to the copy, for
	// a refused update and a refused deletion.
	part := t.TempDir()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	copyEntries := func(third bool) {
		for i, e := range entries {
			if (i%3 == 0) == third && e.Type().IsRegular() {
				b, err := os.ReadFile(filepath.Join(corpusDir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(part, e.Name()), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	copyEntries(true)
	stored := t.TempDir()
	if code, _, errOut := runCLI(t, "ingest", "--data-dir", stored, part); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	copyEntries(false)
	doc := entries[0].Name()

	tests := []struct {
		name    string
		dir     string // the store; "" for a new one
		args    []string
		command string
		stages  []string // named in the message
	}{
		{name: "ingest into a new store", args: []string{"ingest", corpusDir}, command: "ingest", stages: []string{"extract"}},
		{name: "ingest into a store", dir: stored, args: []string{"ingest", part, "--llm-structure", "all"}, command: "ingest", stages: []string{"extract", "report"}},
		{name: "delete", dir: stored, args: []string{"delete", doc, "--llm-structure", "all"}, command: "delete", stages: []string{"report"}},
	}
	for _, tc := range tests {
		for _, asJSON := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{true: " json"}[asJSON], func(t *testing.T) {
				dir := tc.dir
				if dir == "" {
					dir = filepath.Join(t.TempDir(), "store")
				}
				var before graphDump
				if tc.dir != "" {
					before = dumpGraph(t, dir)
				}
				requests := fake.Counts().Requests
				args := append(append([]string{}, tc.args...), "--data-dir", dir, "--max-llm-tokens", "100")
				if asJSON {
					args = append(args, "--json")
				}
				code, out, errOut := runCLI(t, args...)
				msg := errOut
				if asJSON {
					e := decodeJSON[jsonError](t, tc.command, out)
					if e.Code != exitUsage {
						t.Errorf("--json code %d", e.Code)
					}
					msg = e.Error
				}
				if code != exitUsage || !strings.Contains(msg, "LLM tokens exceed --max-llm-tokens 100 (") ||
					!strings.Contains(msg, "see "+tc.command+" --dry-run") {
					t.Errorf("exit %d, message %q", code, msg)
				}
				for _, stage := range tc.stages {
					if !strings.Contains(msg, stage+" ") {
						t.Errorf("message names no %s tokens: %s", stage, msg)
					}
				}
				if n := fake.Counts().Requests - requests; n != 0 {
					t.Errorf("%d requests reached the model", n)
				}
				if tc.dir == "" {
					if _, err := os.Stat(embedded.DatabaseFile(dir)); !os.IsNotExist(err) {
						t.Errorf("a refused run created the store: %v", err)
					}
				} else if after := dumpGraph(t, dir); !reflect.DeepEqual(after, before) {
					t.Errorf("a refused run changed the store: %+v, was %+v", after.Stats, before.Stats)
				}
			})
		}
	}
}

// TestBudgetStopsAndResumes: a run whose prediction fits the budget but whose spend passes it
// (the fake model writes longer answers than the prediction assumes) stops with exit 1 and says
// so, keeps what it did, and the same command without the budget finishes it, paying only for
// the calls the stopped run did not make: no chat request is sent twice, the two runs make the
// calls of one uninterrupted run, and the graph is that run's.
func TestBudgetStopsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several LLM ingests")
	}
	ref := fakeAPILogged(t, fakeopenai.Options{Seed: 12})
	refDir := t.TempDir()
	// The model writes descriptions and gleans: longer answers than the check assumes (it comes
	// before any call, so without the dry run's sample), and the run spends past the prediction.
	code, out, errOut := runCLI(t, "ingest", "--json", "--extract-descriptions", "model", "--gleaning", "1", "--data-dir", refDir, corpusDir)
	if code != 0 {
		t.Fatalf("uninterrupted ingest: %s", errOut)
	}
	refCalls, _ := ref.repeats()
	refUsage := decodeJSON[struct {
		Usage struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
		}
	}](t, "ingest", out).Usage
	refTokens := refUsage.Prompt + refUsage.Completion
	// The prediction the budget is checked against (the dry run's without its sample, since the
	// check comes before any call), read off a refusal.
	code, _, errOut = runCLI(t, "ingest", "--max-llm-tokens", "1", "--extract-descriptions", "model", "--gleaning", "1", "--data-dir", t.TempDir(), corpusDir)
	m := regexp.MustCompile(`predicted ([0-9 ]+) LLM tokens`).FindStringSubmatch(errOut)
	if code != exitUsage || m == nil {
		t.Fatalf("refusal: exit %d\n%s", code, errOut)
	}
	predicted, err := strconv.Atoi(strings.ReplaceAll(m[1], " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	if predicted >= refTokens {
		t.Fatalf("predicted %d chat tokens, an uninterrupted run spends %d: no budget passes the one and stops the other", predicted, refTokens)
	}

	reqs := fakeAPILogged(t, fakeopenai.Options{Seed: 12})
	dir := t.TempDir()
	budget := (predicted + refTokens) / 2 // passes the prediction; the structure's calls go past it
	args := []string{"ingest", "--extract-descriptions", "model", "--gleaning", "1", "--data-dir", dir, corpusDir}
	code, _, errOut = runCLI(t, append(args, "--max-llm-tokens", strconv.Itoa(budget))...)
	if code != exitFailure || !strings.Contains(errOut, "strata: LLM token budget spent:") ||
		!strings.Contains(errOut, "run the same command again") {
		t.Fatalf("stopped run: exit %d\n%s", code, errOut)
	}
	stopped, repeated := reqs.repeats()
	if stopped == 0 || stopped >= refCalls || repeated != 0 {
		t.Fatalf("the stopped run made %d chat requests (%d repeated), the uninterrupted one %d", stopped, repeated, refCalls)
	}
	_, out, _ = runCLI(t, "status", "--data-dir", dir, "--json")
	if st := decodeJSON[statusState](t, "status", out); !st.Ingest.Unfinished || st.Ingest.Complete {
		t.Errorf("status after the stop: %s", out)
	}
	if d := dumpGraph(t, dir); d.Stats.Nodes["Document"] == 0 || d.Stats.Nodes["Entity"] == 0 {
		t.Errorf("the stopped run kept nothing: %+v", d.Stats)
	}

	if code, out, errOut := runCLI(t, args...); code != 0 {
		t.Fatalf("resumed run: exit %d\n%s\n%s", code, out, errOut)
	}
	total, repeated := reqs.repeats()
	t.Logf("chat requests: %d uninterrupted; %d before the stop, %d in all, %d repeated", refCalls, stopped, total, repeated)
	if total != refCalls || repeated != 0 {
		t.Errorf("stopped and resumed runs made %d chat requests (%d repeated), an uninterrupted run %d", total, repeated, refCalls)
	}
	_, out, _ = runCLI(t, "status", "--data-dir", dir, "--json")
	if st := decodeJSON[statusState](t, "status", out); !st.Ingest.Complete {
		t.Errorf("status after the resumed run: %s", out)
	}
	if got, want := dumpGraph(t, dir), dumpGraph(t, refDir); !reflect.DeepEqual(got.Stats, want.Stats) || !reflect.DeepEqual(got.Relations, want.Relations) {
		t.Errorf("resumed graph differs from an uninterrupted run: %+v vs %+v", got.Stats, want.Stats)
	}
}

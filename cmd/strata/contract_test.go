package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/stratarag/strata/internal/embedded"
)

// docs/CLI.md's promises about the command line ("Exit codes and errors"), one test each.

// oneJSONObject decodes stdout, failing t unless it is exactly one JSON object and nothing else.
func oneJSONObject(t *testing.T, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%q", err, out)
	}
	if rest := strings.TrimSpace(out[dec.InputOffset():]); rest != "" {
		t.Fatalf("stdout holds more than one JSON object; after it: %q", rest)
	}
	return obj
}

// checkJSONError checks the --json failure shape: {"error": non-empty string, "code": the exit
// code}, nothing more.
func checkJSONError(t *testing.T, out string, code int) string {
	t.Helper()
	obj := oneJSONObject(t, out)
	if got := keys(obj); !reflect.DeepEqual(got, []string{"code", "error"}) {
		t.Errorf("error object keys %v, want [code error]: %v", got, obj)
	}
	msg, _ := obj["error"].(string)
	if msg == "" || obj["code"] != float64(code) {
		t.Errorf("error object %v, want a message and code %d", obj, code)
	}
	return msg
}

// TestExitCodes runs every kind of failure twice: as text (stdout empty, one "strata: ..." line
// on stderr) and with --json (stdout exactly one {"error", "code"} object with code = exit code).
func TestExitCodes(t *testing.T) {
	dir := ingested(t)
	tmp := t.TempDir()
	notADir := filepath.Join(tmp, "file")
	corrupt := filepath.Join(tmp, "corrupt")
	for _, err := range []error{
		os.WriteFile(notADir, []byte("x"), 0o644),
		os.MkdirAll(corrupt, 0o755),
		os.WriteFile(filepath.Join(corrupt, "strata.db"), []byte(strings.Repeat("not a database ", 500)), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	locked := t.TempDir()
	holder, err := embedded.Open(context.Background(), locked, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close() })
	emptyTxt := filepath.Join("..", "..", "testdata", "bad", "empty.txt")

	tests := []struct {
		name    string
		args    []string // --json is added for the JSON run
		code    int
		message string // in the error message
	}{
		{"no command", nil, exitUsage, "no command given"},
		{"unknown command", []string{"foo"}, exitUsage, `unknown command "foo"`},
		{"unknown flag", []string{"query", "--nope", "q"}, exitUsage, "nope"},
		{"unknown flag after the argument", []string{"query", "q", "--nope"}, exitUsage, "nope"},
		{"flag without its value", []string{"ingest", corpusDir, "--data-dir"}, exitUsage, "data-dir"},
		{"missing required flag", []string{"eval", "--data-dir", dir}, exitUsage, "--questions"},
		{"empty question", []string{"query", "--data-dir", dir, ""}, exitUsage, "question is empty"},
		{"blank question", []string{"query", "--data-dir", dir, "  "}, exitUsage, "question is empty"},
		{"no question", []string{"query", "--data-dir", dir}, exitUsage, "exactly one argument"},
		{"two questions", []string{"query", "--data-dir", dir, "a", "b"}, exitUsage, "exactly one argument"},
		{"status with an argument", []string{"status", dir}, exitUsage, "no arguments"},
		{"eval with an argument", []string{"eval", "--questions", questionFile, "x"}, exitUsage, "no arguments"},
		{"no paths", []string{"ingest", "--data-dir", tmp}, exitUsage, "at least one PATH"},
		{"bad mode", []string{"query", "--data-dir", dir, "--mode", "psychic", "q"}, exitUsage, `unknown mode "psychic"`},
		{"bad chunking", []string{"ingest", "--data-dir", tmp, "--chunk-size", "10", "--chunk-overlap", "10", corpusDir}, exitUsage, "overlap"},
		{"bad extract mode offline", []string{"ingest", "--offline", "--data-dir", tmp, "--extract-mode", "bogus", corpusDir}, exitUsage, "--extract-mode"},
		{"bad gleaning offline", []string{"ingest", "--offline", "--data-dir", tmp, "--gleaning", "9", corpusDir}, exitUsage, "--gleaning"},
		{"bad log level", []string{"status", "--data-dir", dir, "--log-level", "loud"}, exitUsage, "--log-level"},
		{"help on an unknown command", []string{"help", "foo"}, exitUsage, "foo"},

		{"missing store", []string{"query", "--data-dir", filepath.Join(tmp, "none"), "q"}, exitFailure, "strata ingest"},
		{"store is a file", []string{"status", "--data-dir", notADir}, exitFailure, notADir},
		{"corrupt store", []string{"status", "--data-dir", corrupt}, exitFailure, corrupt},
		{"unreachable Neo4j", []string{"status", "--neo4j-uri", "bolt://127.0.0.1:1"}, exitFailure, "cannot reach Neo4j"},
		{"locked store", []string{"ingest", "--data-dir", locked, corpusDir}, exitFailure, "another strata process"},
		{"nothing to ingest", []string{"ingest", "--data-dir", t.TempDir(), emptyTxt}, exitFailure, "nothing could be ingested"},
		{"missing questions file", []string{"eval", "--data-dir", dir, "--questions", filepath.Join(tmp, "q.jsonl")}, exitFailure, "q.jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := strata(t, tc.args...)
			if code != tc.code {
				t.Errorf("text: exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if out != "" {
				t.Errorf("text: stdout not empty on failure: %q", out)
			}
			if !strings.Contains(errOut, "strata: ") || !strings.Contains(errOut, tc.message) {
				t.Errorf("text: stderr %q, want a strata: line with %q", errOut, tc.message)
			}

			code, out, errOut = strata(t, append([]string{"--json"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("--json: exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if msg := checkJSONError(t, out, tc.code); !strings.Contains(msg, tc.message) {
				t.Errorf("--json: error %q, want it to hold %q", msg, tc.message)
			}
		})
	}
}

// TestJSONFlagAnywhere: --json counts wherever it is, even when the command line around it
// cannot be parsed, but not after "--", where it is a positional argument.
func TestJSONFlagAnywhere(t *testing.T) {
	for _, args := range [][]string{
		{"--json", "foo"},
		{"foo", "--json"},
		{"query", "--nope", "--json", "q"},
		{"eval", "--json"},
		{"query", "--json=true", ""},
	} {
		code, out, _ := strata(t, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
		checkJSONError(t, out, exitUsage)
	}
	code, out, _ := strata(t, "query", "--data-dir", filepath.Join(t.TempDir(), "none"), "--", "--json")
	if code != exitFailure || out != "" {
		t.Errorf(`query -- --json: exit %d, stdout %q; want 1 and no JSON (the question is "--json")`, code, out)
	}
}

// TestPartialIngestExitCode: an ingest that finished with some inputs failed or skipped exits 3;
// with --json its report is the one object on stdout and carries "error" and "code": 3 too.
func TestPartialIngestExitCode(t *testing.T) {
	bad := filepath.Join("..", "..", "testdata", "bad", "empty.txt")
	code, out, errOut := strata(t, "ingest", "--data-dir", t.TempDir(), corpusDir, bad)
	if code != exitPartial {
		t.Fatalf("text: exit %d, want %d\n%s\n%s", code, exitPartial, out, errOut)
	}
	if !strings.Contains(out, "1 inputs skipped") || !strings.Contains(errOut, "1 input(s) skipped") {
		t.Errorf("text: stdout %q\nstderr %q", out, errOut)
	}

	code, out, errOut = strata(t, "ingest", "--json", "--data-dir", t.TempDir(), corpusDir, bad)
	if code != exitPartial {
		t.Fatalf("--json: exit %d, want %d\n%s", code, exitPartial, errOut)
	}
	rep := oneJSONObject(t, out)
	if rep["code"] != float64(exitPartial) || !strings.Contains(rep["error"].(string), "1 input(s) skipped") ||
		rep["documents"] != float64(17) || len(rep["skipped"].([]any)) != 1 {
		t.Errorf("report %v", rep)
	}

	// A clean run has neither key.
	_, out, _ = strata(t, "ingest", "--json", "--data-dir", t.TempDir(), corpusDir)
	rep = oneJSONObject(t, out)
	if _, ok := rep["error"]; ok {
		t.Errorf("a clean ingest report has an error: %v", rep)
	}
	if _, ok := rep["code"]; ok {
		t.Errorf("a clean ingest report has a code: %v", rep)
	}
}

// TestInterruptedExitCode: a run cancelled by SIGINT or SIGTERM says "interrupted; re-run to
// resume" (not "context canceled") and exits 128 + the signal's number. The signal itself is
// sent to a real process in TestSignalInterruptsIngest.
func TestInterruptedExitCode(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interruptedError{tc.sig})
		t.Setenv("OPENAI_API_KEY", "")
		t.Setenv("OPENAI_BASE_URL", "")
		t.Setenv("NEO4J_URI", "")
		var stdout, stderr lockedBuffer
		code := run(ctx, []string{"strata", "ingest", "--json", "--data-dir", t.TempDir(), corpusDir}, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.sig, code, tc.code, stderr.String())
		}
		if msg := checkJSONError(t, stdout.String(), tc.code); msg != "interrupted; re-run to resume" {
			t.Errorf("%v: error %q", tc.sig, msg)
		}
		if !strings.Contains(stderr.String(), "strata: interrupted; re-run to resume\n") {
			t.Errorf("%v: stderr %q", tc.sig, stderr.String())
		}
	}
}

// TestFlagsAfterArguments: `ingest PATH --data-dir DIR` writes into DIR and reads no flag as a
// path; the same for status, query and eval.
func TestFlagsAfterArguments(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd) // a misread --data-dir would write ./.strata here
	dir := filepath.Join(wd, "store")
	code, out, errOut := strata(t, "ingest", corpusDir, "--data-dir", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	rep := oneJSONObject(t, out)
	if rep["documents"] != float64(17) || len(rep["skipped"].([]any)) != 0 {
		t.Errorf("report %v", rep)
	}
	if _, err := os.Stat(filepath.Join(wd, ".strata")); !os.IsNotExist(err) {
		t.Errorf("./.strata exists (err %v): --data-dir was not honoured", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "strata.db")); err != nil {
		t.Errorf("no store in --data-dir: %v", err)
	}
	for _, args := range [][]string{
		{"status", "--json", "--data-dir", dir},
		{"--data-dir", dir, "status", "--json"},
		{"query", "Who founded the guild?", "--data-dir", dir, "--json", "--mode", "naive"},
		{"eval", "--questions", questionFile, "--data-dir", dir, "--json", "--mode", "naive"},
	} {
		code, out, errOut := strata(t, args...)
		if code != 0 {
			t.Errorf("%q: exit %d\n%s", args, code, errOut)
			continue
		}
		if obj := oneJSONObject(t, out); obj["error"] != nil {
			t.Errorf("%q: %v", args, obj)
		}
	}
}

// TestDashDashEndsFlags: after "--", an argument that looks like a flag is an input path.
func TestDashDashEndsFlags(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	if err := os.WriteFile("-notes.txt", []byte("Edda Fenwick led the Saltmere Guild from 1124."), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := strata(t, "ingest", "--json", "--data-dir", "store", "--", "-notes.txt")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if rep := oneJSONObject(t, out); rep["documents"] != float64(1) {
		t.Errorf("report %v", rep)
	}
	// Without "--" it is an unknown flag.
	if code, _, _ := strata(t, "ingest", "--data-dir", "store", "-notes.txt"); code != exitUsage {
		t.Errorf("without --: exit %d, want %d", code, exitUsage)
	}
}

// TestStoreCountKeys: ingest --json and status --json report the store under the same "store"
// key with the same lowercase keys, and summaries are not counted as entities.
func TestStoreCountKeys(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := strata(t, "ingest", "--json", "--data-dir", dir, corpusDir)
	if code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, errOut)
	}
	ing := oneJSONObject(t, out)["store"].(map[string]any)
	code, out, errOut = strata(t, "status", "--json", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	st := oneJSONObject(t, out)
	if got := keys(st); !reflect.DeepEqual(got, []string{"backend", "ingest", "meta", "store", "unsupported", "warnings", "writer"}) {
		t.Errorf("status keys %v", got)
	}
	if got := st["unsupported"]; !reflect.DeepEqual(got, map[string]any{"entities": 0.0, "relations": 0.0}) {
		t.Errorf("status unsupported = %v, want no entity or relation without evidence", got)
	}
	if !reflect.DeepEqual(ing, st["store"]) {
		t.Errorf("ingest's store %v\nstatus's store %v", ing, st["store"])
	}
	nodes := ing["nodes"].(map[string]any)
	if got := keys(nodes); !reflect.DeepEqual(got, []string{"chunks", "communities", "documents", "entities", "summaries"}) {
		t.Errorf("node keys %v", got)
	}
	rels := keys(ing["relationships"].(map[string]any))
	if want := []string{"child_of", "has_entity", "in_community", "next", "part_of", "related", "summarized_by"}; !reflect.DeepEqual(rels, want) {
		t.Errorf("relationship keys %v, want %v", rels, want)
	}

	// The store counts summary entities under both labels; status separates them.
	s, err := embedded.Open(context.Background(), dir, embedded.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.Stats(context.Background())
	_ = s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if raw.Nodes["Summary"] == 0 {
		t.Fatal("the corpus built no summary entities: the test proves nothing")
	}
	if nodes["entities"] != float64(raw.Nodes["Entity"]-raw.Nodes["Summary"]) || nodes["summaries"] != float64(raw.Nodes["Summary"]) {
		t.Errorf("entities %v summaries %v; store: %d Entity, %d Summary", nodes["entities"], nodes["summaries"], raw.Nodes["Entity"], raw.Nodes["Summary"])
	}
	_, out, _ = strata(t, "status", "--data-dir", dir)
	if !strings.Contains(out, "summaries") {
		t.Errorf("status text does not show summaries:\n%s", out)
	}
}

// TestVersion: --version prints the version the binary carries: from the build info (a test
// binary has some), or the one set with -ldflags "-X main.buildVersion=...".
func TestVersion(t *testing.T) {
	code, out, _ := strata(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "strata version ") || strings.TrimSpace(strings.TrimPrefix(out, "strata version ")) == "" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
	defer func(v string) { buildVersion = v }(buildVersion)
	buildVersion = "v9.9.9"
	if code, out, _ := strata(t, "--version"); code != 0 || out != "strata version v9.9.9\n" {
		t.Errorf("with buildVersion set: exit %d, stdout %q", code, out)
	}
}

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMultihopScriptKeepsUserDirs: bench/multihop/run.sh DIR builds its store in DIR, so it must
// refuse (exit 2, before building anything) a DIR that holds anything, a strata store included,
// and leave it as it was: DIR reads like a corpus argument, so it may well hold a user's data.
func TestMultihopScriptKeepsUserDirs(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join("..", "..", "bench", "multihop", "run.sh")
	notes := t.TempDir()
	store := t.TempDir()
	file := filepath.Join(t.TempDir(), "corpus.jsonl")
	for path, text := range map[string]string{
		filepath.Join(notes, "notes.md"):  "my notes",
		filepath.Join(store, "strata.db"): "a store",
		file:                              `{"id":"a","text":"b"}`,
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, arg, keep, stderr string
	}{
		{"folder with files", notes, filepath.Join(notes, "notes.md"), "not an empty directory"},
		{"strata store", store, filepath.Join(store, "strata.db"), "already holds a strata store"},
		{"a file", file, file, "not an empty directory"},
		{"an option", "--corpus", "", "unknown option --corpus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bash, script, tc.arg)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Errorf("run.sh %s: %v, want exit 2\n%s", tc.arg, err, out)
			}
			if !strings.Contains(string(out), tc.stderr) || strings.Contains(string(out), "== ingest") {
				t.Errorf("output %q, want %q and nothing run", out, tc.stderr)
			}
			if tc.keep != "" {
				if _, err := os.Stat(tc.keep); err != nil {
					t.Errorf("%s is gone: %v", tc.keep, err)
				}
			}
		})
	}
	cmd := exec.Command(bash, script, "a", "b")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "Usage:") {
		t.Errorf("two arguments: %v\n%s", err, out)
	}
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// snapshot lists every folder under root, and every file with its size, mode and modification
// time; nil when root does not exist. SQLite's -wal and -shm files are left out: opening the
// embedded store read-only, as every query does, creates them when they are missing, and they
// hold no data of the store (the writer checkpoints and removes them).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			out[rel] = "dir"
			return nil
		}
		if strings.HasSuffix(rel, "-wal") || strings.HasSuffix(rel, "-shm") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[rel] = fmt.Sprintf("%s %d %s", info.Mode(), info.Size(), info.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDryRunWritesNothing: with a model configured, ingest --dry-run and delete --dry-run leave
// the data directory and the LLM cache as they were (no llm-cache folder appears, no store file
// changes), and a dry run still reads a cache that exists.
func TestDryRunWritesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an LLM ingest")
	}
	fakeAPI(t, fakeopenai.Options{Seed: 7})
	corpus := filepath.Join(t.TempDir(), "corpus")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(corpusDir, "harbor-guild.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(corpus, "harbor-guild.md"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	// The store's cache lives apart, so that the data directory holds none.
	data, cache := filepath.Join(t.TempDir(), "data"), filepath.Join(t.TempDir(), "cache")
	if code, out, errOut := runCLI(t, "ingest", "--data-dir", data, "--cache-dir", cache, corpus); code != 0 {
		t.Fatalf("ingest: exit %d\n%s\n%s", code, out, errOut)
	}
	absent := filepath.Join(t.TempDir(), "never-created")

	tests := []struct {
		name string
		args []string
		dirs []string // must stay as they were
		// cached: the dry run must find the ingest's calls in the cache
		cached bool
	}{
		{"ingest, no data dir", []string{"ingest", "--dry-run", "--json", "--data-dir", absent, corpus}, []string{absent}, false},
		{"ingest, no cache", []string{"ingest", "--dry-run", "--json", "--data-dir", data, corpus}, []string{data}, false},
		// Without the store (which holds the document unchanged: nothing to extract), against
		// the cache the ingest filled.
		{"ingest, cache", []string{"ingest", "--dry-run", "--json", "--data-dir", absent, "--cache-dir", cache, corpus}, []string{absent, cache}, true},
		{"delete, no cache", []string{"delete", "--dry-run", "--json", "--data-dir", data, "harbor-guild.md"}, []string{data}, false},
		{"delete, cache", []string{"delete", "--dry-run", "--json", "--data-dir", data, "--cache-dir", cache, "harbor-guild.md"}, []string{data, cache}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([]map[string]string, len(tt.dirs))
			for i, d := range tt.dirs {
				before[i] = snapshot(t, d)
			}
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			for i, d := range tt.dirs {
				if after := snapshot(t, d); !reflect.DeepEqual(after, before[i]) {
					t.Errorf("%s changed:\nbefore %v\nafter  %v", d, before[i], after)
				}
			}
			if tt.cached {
				var est struct {
					Estimate struct {
						Stages map[string]struct {
							CachedCalls int `json:"cached_calls"`
						}
					}
				}
				if err := json.Unmarshal([]byte(out), &est); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				if n := est.Estimate.Stages["extract"].CachedCalls; n == 0 {
					t.Errorf("the dry run found no cached extraction call in the existing cache: %s", out)
				}
			}
		})
	}
}

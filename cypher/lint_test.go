package cypher

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLintRejectsBadFixtures proves that the Cypher linter (lint/lint.mjs, Neo4j's own parser)
// fails where it must: every fixture in lint/testdata/bad has a file:line:col problem and makes
// the run exit non-zero. It needs node and the linter installed (lint/run.sh or npm ci in
// cypher/lint), as `make test` arranges.
func TestLintRejectsBadFixtures(t *testing.T) {
	node := lintReady(t)
	fixtures, err := filepath.Glob(filepath.Join("lint", "testdata", "bad", "*.cypher"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no lint fixtures: %v", err)
	}
	cmd := exec.Command(node, filepath.Join("lint", "lint.mjs"), filepath.Join("lint", "testdata", "bad"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("lint of the bad fixtures: %v, want exit status 1\n%s", err, out.String())
	}
	for _, f := range fixtures {
		pat := regexp.MustCompile(regexp.QuoteMeta(filepath.Base(f)) + `:\d+:\d+: (error|warning): `)
		if !pat.MatchString(out.String()) {
			t.Errorf("%s was not reported\n%s", filepath.Base(f), out.String())
		}
	}
	if want := "with problems"; !strings.Contains(out.String(), want) {
		t.Errorf("no summary line in\n%s", out.String())
	}
}

// lintReady returns the node binary, or skips when the linter cannot run here.
func lintReady(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Cypher lint self-test did not run")
	}
	if _, err := os.Stat(filepath.Join("lint", "node_modules", "@neo4j-cypher", "language-support")); err != nil {
		t.Skip("the Cypher linter is not installed: run cypher/lint/run.sh (npm ci) to run this test")
	}
	return node
}

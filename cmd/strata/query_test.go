package main

import (
	"strings"
	"testing"
)

// TestQueryOptionBounds: every numeric flag of query (and eval, which shares them) past its
// bound is bad usage (exit 2) naming the flag's bound, before any store is opened; the bounds
// themselves are accepted.
func TestQueryOptionBounds(t *testing.T) {
	dir := t.TempDir() // no store: a flag that passed would fail to open it instead
	for _, tc := range []struct {
		flags []string
		msg   string
	}{
		{[]string{"--top-k", "1001"}, "top-k must be at most 1000, got 1001"},
		{[]string{"--top-k", "9223372036854775807"}, "top-k must be at most 1000"},
		{[]string{"--top-k", "-9223372036854775808"}, "top-k must be at least 1"},
		{[]string{"--entities", "1000000000", "--mode", "lca"}, "entities must be at most 500, got 1000000000"},
		{[]string{"--entities", "-1"}, "entities must be at least 1, got -1"},
		{[]string{"--max-context-tokens", "1000001"}, "max context tokens must be at most 1000000, got 1000001"},
		{[]string{"--max-context-tokens", "99"}, "max context tokens must be at least 100"},
		{[]string{"--ppr-weight", "1e300"}, "ppr weight must be at most 100"},
		{[]string{"--ppr-weight", "-0.5"}, "ppr weight must not be negative"},
	} {
		for _, cmd := range []string{"query", "eval"} {
			args := append([]string{cmd, "--data-dir", dir}, tc.flags...)
			if cmd == "query" {
				args = append(args, "Who founded the guild?")
			} else {
				args = append(args, "--questions", questionFile)
			}
			code, _, errOut := strata(t, args...)
			if code != 2 || !strings.Contains(errOut, tc.msg) {
				t.Errorf("%s: exit %d, stderr %q; want 2 and %q", strings.Join(args, " "), code, errOut, tc.msg)
			}
		}
	}
	args := []string{"query", "--data-dir", dir, "--top-k", "1000", "--entities", "500", "--max-context-tokens", "1000000",
		"--ppr-weight", "100", "Who founded the guild?"}
	if code, _, errOut := strata(t, args...); code == 2 {
		t.Errorf("%s: exit 2 at the bounds: %s", strings.Join(args, " "), errOut)
	}
}

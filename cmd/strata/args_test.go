package main

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestParseCommandLine holds the rewriting that lets flags go anywhere: urfave/cli stops reading
// flags at the first positional argument, so parseCommandLine moves every flag (with its value)
// before the positional arguments, and keeps "--" as the end of flags.
func TestParseCommandLine(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string // nil: a usage error whose message holds wantErr
		command string
		json    bool
		wantErr string
	}{
		{"flags after the path", []string{"ingest", "corpus", "--data-dir", "/tmp/x"},
			[]string{"ingest", "--data-dir", "/tmp/x", "corpus"}, "ingest", false, ""},
		{"flags between paths", []string{"ingest", "a", "--json", "b", "--layers=0", "c"},
			[]string{"ingest", "--json", "--layers=0", "a", "b", "c"}, "ingest", true, ""},
		{"flags before the command", []string{"--data-dir", "d", "status", "--json"},
			[]string{"status", "--data-dir", "d", "--json"}, "status", true, ""},
		{"value that looks like a flag", []string{"query", "q", "--mode", "-x"},
			[]string{"query", "--mode", "-x", "q"}, "query", false, ""},
		{"-- ends the flags", []string{"query", "--json", "--", "--data-dir"},
			[]string{"query", "--json", "--", "--data-dir"}, "query", true, ""},
		{"-- before a path starting with -", []string{"ingest", "--", "-notes.txt", "b.txt"},
			[]string{"ingest", "--", "-notes.txt", "b.txt"}, "ingest", false, ""},
		{"-- with no dash argument is dropped", []string{"ingest", "a", "--", "b"},
			[]string{"ingest", "a", "b"}, "ingest", false, ""},
		{"single-dash flag", []string{"query", "q", "-json"},
			[]string{"query", "-json", "q"}, "query", true, ""},
		{"--json=false", []string{"status", "--json=false"},
			[]string{"status", "--json=false"}, "status", false, ""},
		{"bool flag does not take the next argument", []string{"ingest", "--offline", "corpus"},
			[]string{"ingest", "--offline", "corpus"}, "ingest", false, ""},
		{"unknown flag left to urfave/cli", []string{"query", "q", "--nope"},
			[]string{"query", "--nope", "q"}, "query", false, ""},
		{"app flags", []string{"--version"}, []string{"--version"}, "", false, ""},
		{"help command", []string{"help", "ingest"}, []string{"help", "ingest"}, "", false, ""},
		{"command help flag after a path", []string{"ingest", "corpus", "--help"},
			[]string{"ingest", "--help", "corpus"}, "ingest", false, ""},

		{"unknown command", []string{"foo"}, nil, "", false, `unknown command "foo"`},
		{"unknown command, --json", []string{"--json", "foo"}, nil, "", true, `unknown command "foo"`},
		{"missing value at the end", []string{"ingest", "corpus", "--data-dir"}, nil, "ingest", false, "--data-dir needs a value"},
		{"missing value before the command", []string{"--data-dir"}, nil, "", false, "--data-dir needs a value"},
		{"no command", nil, nil, "", false, "no command given"},
		{"flag without command", []string{"--json"}, nil, "", true, "no command given for flag --json"},
		{"unknown flag before the command", []string{"--nope", "status"}, nil, "", false, "unknown flag --nope"},
		{"flag of another command", []string{"--layers", "2", "status"}, nil, "status", false, "not a flag of status"},
		{"help on an unknown command", []string{"help", "foo"}, nil, "", false, `no help for "foo"`},
		{"-- before the command", []string{"--", "status"}, nil, "", false, `"--" before a command`},
	}
	app := newApp(io.Discard, io.Discard)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := parseCommandLine(app, append([]string{"strata"}, tc.args...))
			if cl.json != tc.json {
				t.Errorf("json = %v, want %v", cl.json, tc.json)
			}
			if tc.want == nil {
				var usage usageError
				if !errors.As(err, &usage) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cl.args[1:]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("args %q, want %q", got, tc.want)
			}
			if cl.command != tc.command {
				t.Errorf("command %q, want %q", cl.command, tc.command)
			}
		})
	}
}

// TestFlagsTakeValuesConsistently: a flag given before the command is read with the union of all
// commands' flags, which is only right if a name takes a value in every command or in none.
func TestFlagsTakeValuesConsistently(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range newApp(io.Discard, io.Discard).Commands {
		for name, takes := range takesValue(c.Flags) {
			if prev, ok := seen[name]; ok && prev != takes {
				t.Errorf("flag --%s takes a value in one command and not in another (%s)", name, c.Name)
			}
			seen[name] = takes
		}
	}
	if !seen[flagDataDir] || seen[flagJSON] {
		t.Errorf("--data-dir should take a value and --json not: %v", seen)
	}
}

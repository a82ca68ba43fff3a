package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// TestSignalInterruptsIngest sends SIGINT and SIGTERM to a real ingest (a child process running
// main's code path, signal handling included) while it waits on a slow LLM: it stops, prints
// "interrupted; re-run to resume" (as the one JSON object on stdout with --json, and on stderr),
// never a raw "context canceled", exits 130 or 143, and the same command then resumes and
// completes.
func TestSignalInterruptsIngest(t *testing.T) {
	if args := os.Getenv("STRATA_TEST_MAIN_ARGS"); args != "" {
		ctx, stop := notifyInterrupt(context.Background())
		code := run(ctx, append([]string{"strata"}, strings.Split(args, "\x1f")...), os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	reqs := fakeAPILogged(t, fakeopenai.Options{Seed: 5, Latency: 20 * time.Millisecond})

	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		dir := t.TempDir()
		args := []string{"ingest", "--json", "--log-format", "json", "--data-dir", dir, "--concurrency", "1", "--llm-concurrency", "1", corpusDir}
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignalInterruptsIngest$")
		cmd.Env = append(os.Environ(), "STRATA_TEST_MAIN_ARGS="+strings.Join(args, "\x1f"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		before, _ := reqs.repeats()
		select {
		case <-reqs.reached(before + 3):
		case <-time.After(30 * time.Second):
		}
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
			t.Fatalf("%v: wait: %v, want exit %d\nstdout: %s\nstderr: %s", tc.sig, err, tc.code, stdout.String(), stderr.String())
		}
		if msg := checkJSONError(t, stdout.String(), tc.code); msg != "interrupted; re-run to resume" {
			t.Errorf("%v: error %q", tc.sig, msg)
		}
		last := strings.TrimSpace(stderr.String())
		last = last[strings.LastIndex(last, "\n")+1:]
		if last != "strata: interrupted; re-run to resume" {
			t.Errorf("%v: last stderr line %q", tc.sig, last)
		}

		code, out, errOut := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: resumed ingest: exit %d\n%s\n%s", tc.sig, code, out, errOut)
		}
		rep := oneJSONObject(t, out)
		if rep["documents"].(float64)+rep["unchanged"].(float64) != 17 || rep["failed"] != float64(0) {
			t.Errorf("%v: resumed run: %v", tc.sig, rep)
		}
		t.Logf("%v: resumed run wrote %v documents, %v unchanged", tc.sig, rep["documents"], rep["unchanged"])
	}
}

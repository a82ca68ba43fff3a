// Package querybench measures the CPU time of warm queries on a real store (cpu_test.go).
package querybench

import (
	"bufio"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/tokenizer"
	"github.com/stratarag/strata/retrieval"
)

// TestCPUPerQuery prints the CPU time (user + sys) per warm context-only query of every mode, on
// the offline store in $STRATA_BENCH_STORE (skipped without it), opened as strata serve opens it
// (resident; STRATA_BENCH_RESIDENT=0 opens it as a fresh strata query does). Each mode asks the
// questions of questions.txt once to warm up, then four times; the best round is what the
// machine's load disturbs least. STRATA_BENCH_MODES="hi local" measures only those modes (to
// profile one with -cpuprofile):
//
//	STRATA_BENCH_STORE=/path/to/store go test -count=1 -run CPUPerQuery -v ./bench/query
func TestCPUPerQuery(t *testing.T) {
	dir := os.Getenv("STRATA_BENCH_STORE")
	if dir == "" {
		t.Skip("set STRATA_BENCH_STORE to an offline store (bench/query/run.sh builds one)")
	}
	store, err := embedded.Open(t.Context(), dir, embedded.Options{ReadOnly: true, Resident: os.Getenv("STRATA_BENCH_RESIDENT") != "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	engine := &retrieval.Engine{Store: store, Embedder: embedding.NewOffline(384), Tokenizer: tokenizer.Load()}
	f, err := os.Open("questions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var questions []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if q := strings.TrimSpace(sc.Text()); q != "" {
			questions = append(questions, q)
		}
	}
	modes := []retrieval.Mode{retrieval.ModeNaive, retrieval.ModeLocal, retrieval.ModeGlobal, retrieval.ModeHi}
	if names := strings.Fields(os.Getenv("STRATA_BENCH_MODES")); len(names) > 0 {
		modes = modes[:0]
		for _, name := range names {
			mode, err := retrieval.ParseMode(name)
			if err != nil {
				t.Fatalf("STRATA_BENCH_MODES: %v", err)
			}
			modes = append(modes, mode)
		}
	}
	// One pass of every mode first, then a wait until the process is idle: a resident store
	// loads some of its in-memory structures in the background (the entity text index), whose
	// CPU would otherwise count against the mode measured while it runs.
	for _, mode := range modes {
		opt := retrieval.DefaultOptions(mode)
		opt.ContextOnly = true
		for _, q := range questions {
			if _, err := engine.Query(t.Context(), q, opt); err != nil {
				t.Fatalf("%s: %q: %v", mode, q, err)
			}
		}
	}
	waitIdle(t)
	for _, mode := range modes {
		opt := retrieval.DefaultOptions(mode)
		opt.ContextOnly = true
		best := -1.0
		for round := range 5 {
			start := cpuMS(t)
			for _, q := range questions {
				if _, err := engine.Query(t.Context(), q, opt); err != nil {
					t.Fatalf("%s: %q: %v", mode, q, err)
				}
			}
			if per := (cpuMS(t) - start) / float64(len(questions)); round > 0 && (best < 0 || per < best) {
				best = per
			}
		}
		t.Logf("%-6s CPU per warm query, best of 4 rounds: %.1f ms", mode, best)
	}
}

// waitIdle waits until the process uses less than 5 % of a core over 200 ms, for at most 30 s.
func waitIdle(t *testing.T) {
	for range 900 {
		start := cpuMS(t)
		time.Sleep(200 * time.Millisecond)
		if cpuMS(t)-start < 10 {
			return
		}
	}
	t.Log("the process did not become idle within 3 minutes")
}

// cpuMS is the CPU time (user + sys) this process has used, in milliseconds.
func cpuMS(t *testing.T) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}

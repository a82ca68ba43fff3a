// Command stagemem measures the memory of the structure stages that follow the layers stage on an
// embedded store: components, communities, reports (extractive, offline embedder) and close. It
// runs them on the store in DIR (use a copy: the stages rewrite it) and prints, per stage, the
// wall time, the peak Go heap in use (sampled every 5 ms), the heap still in use after it and the
// peak RSS of the stage alone (Linux: VmHWM, reset before each stage through
// /proc/self/clear_refs) with the RSS it started from. The peak of what the Go runtime holds
// (mapped, not returned) tells its share of that RSS from SQLite's.
//
// Usage: go run ./bench/bigdoc/stagemem DIR [STAGE...]   (only the stages named, in their order,
// when any are; reports without communities reads the communities from the store; STAGEMEM_PROFILE=prefix also writes a heap profile
// taken near each stage's peak to prefix-STAGE.pprof; the profiler forces collections, so
// measure without it; STAGEMEM_CPUPROFILE=prefix writes each stage's CPU profile to
// prefix-STAGE.pprof; an interrupt (Ctrl-C) stops the stage running and still writes its
// profiles; the collector runs at GOGC=50, as in strata ingest, unless GOGC is set)
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stratarag/strata/internal/embedded"
	"github.com/stratarag/strata/internal/embedding"
	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/memstat"
	"github.com/stratarag/strata/pipeline/reports"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: stagemem DIR [components|communities|reports|close ...]")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "stagemem:", err)
		os.Exit(1)
	}
}

func run(dir string, only []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The memory policy strata ingest runs with (cmd/strata memoryPolicy), GOGC aside: the
	// default target doubles what a stage holds live, and the peaks would not be strata's.
	policy := memstat.Policy{StageGCPercent: map[string]int{"communities": 10}, ReturnFreed: true}
	if _, set := os.LookupEnv("GOGC"); !set {
		policy.GCPercent = 50
	}
	policy.Apply()
	s, err := embedded.Open(ctx, dir, embedded.Options{Release: policy.Release})
	if err != nil {
		return err
	}
	var comms []graph.Community
	stages := []struct {
		name string
		fn   func() error
	}{
		{"components", func() error { _, err := s.ComputeComponents(ctx); return err }},
		{"communities", func() error {
			defer policy.Stage("communities")()
			comms, err = s.ComputeCommunities(ctx, graph.DefaultLeidenParams())
			return err
		}},
		{"reports", func() error {
			r := &reports.Extractive{Embedder: embedding.NewOffline(384)}
			cs := &countingStore{Store: s}
			defer progress(comms, &cs.read)()
			return r.Reports(ctx, cs, comms)
		}},
		{"close", func() error { comms = nil; return s.Close() }},
	}
	if len(only) > 0 && slices.Contains(only, "reports") && !slices.Contains(only, "communities") {
		// Without the communities stage in this run, the communities it last wrote (their
		// reports are replaced), read before the stages are measured and stripped of their
		// reports and embeddings, as the communities stage hands them over.
		if comms, err = s.CommunitiesByLevel(ctx, -1); err != nil {
			return err
		}
		for i, c := range comms {
			comms[i] = graph.Community{ID: c.ID, Level: c.Level, CommunityID: c.CommunityID, ParentID: c.ParentID, Size: c.Size}
		}
	}
	for _, st := range stages {
		if len(only) > 0 && !slices.Contains(only, st.name) {
			continue
		}
		// Collected and handed back to the OS first: the pages a stage freed but the runtime
		// kept would otherwise count in the next stage's peak.
		debug.FreeOSMemory()
		resetPeakRSS()
		rssBefore := peakRSS() // what the stage starts from: its peak counts it
		var peak, peakHeld atomic.Uint64
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				if h := memstat.Now().HeapInUse; h > peak.Load() {
					peak.Store(h)
				}
				if h := goHeld(); h > peakHeld.Load() {
					peakHeld.Store(h)
				}
				select {
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
		stopProfile := func() {}
		if prefix := os.Getenv("STAGEMEM_PROFILE"); prefix != "" {
			pctx, cancel := context.WithCancel(ctx)
			perr := make(chan error, 1)
			go func() {
				perr <- memstat.HeapProfiler{Path: prefix + "-" + st.name + ".pprof", Interval: 50 * time.Millisecond}.Run(pctx)
			}()
			stopProfile = func() {
				cancel()
				if err := <-perr; err != nil {
					fmt.Fprintln(os.Stderr, "stagemem: heap profile:", err)
				}
			}
		}
		stopCPU, err := startCPUProfile(st.name)
		if err != nil {
			return err
		}
		start := time.Now()
		err = st.fn()
		took := time.Since(start)
		close(done)
		stopProfile()
		if cerr := stopCPU(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
		runtime.GC()
		fmt.Printf("%-12s %7.1f s  peak heap %7.1f MiB  after %7.1f MiB  peak held by Go %7.1f MiB  peak RSS %7.1f MiB (from %.1f)\n",
			st.name, took.Seconds(), mib(peak.Load()), mib(memstat.Now().HeapInUse), mib(peakHeld.Load()), mib(peakRSS()), mib(rssBefore))
	}
	return s.Close() // a no-op after the close stage
}

// startCPUProfile starts the CPU profile of stage when STAGEMEM_CPUPROFILE is set.
func startCPUProfile(stage string) (stop func() error, err error) {
	prefix := os.Getenv("STAGEMEM_CPUPROFILE")
	if prefix == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(prefix + "-" + stage + ".pprof")
	if err != nil {
		return nil, fmt.Errorf("CPU profile of %s: %w", stage, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("CPU profile of %s: %w", stage, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// countingStore counts the communities whose members the reports stage has read.
type countingStore struct {
	*embedded.Store
	read atomic.Int64
}

func (c *countingStore) CommunityMembers(ctx context.Context, id string, maxRelations int) (graph.Members, error) {
	c.read.Add(1)
	return c.Store.CommunityMembers(ctx, id, maxRelations)
}

// progress prints to stderr, every minute until the returned stop is called, how many of comms
// (ordered by level) have been read and the level reached, so that a slow level shows while it
// runs.
func progress(comms []graph.Community, read *atomic.Int64) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		last := int64(0)
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			n := read.Load()
			level := -1
			if n > 0 && int(n) <= len(comms) {
				level = comms[n-1].Level
			}
			fmt.Fprintf(os.Stderr, "reports: %d of %d communities read (level %d), %d in the last minute\n", n, len(comms), level, n-last)
			last = n
		}
	}()
	return func() { close(done) }
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// goHeld is the memory the Go runtime has mapped and not returned to the OS: what the process
// holds beyond it is SQLite's (its C heap, through modernc.org/libc) and the mapped files'.
func goHeld() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() - s[1].Value.Uint64()
}

// resetPeakRSS resets VmHWM (Linux only; elsewhere peakRSS reports 0).
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

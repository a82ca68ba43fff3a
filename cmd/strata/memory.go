package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/memstat"
)

// The process's memory policy (garbage collector targets) and the profiles an ingest can write
// for diagnosis.

// longLivedGCPercent is the garbage collector's target for ingest and serve unless GOGC says
// otherwise: the heap may grow half over what is live between collections instead of doubling.
// Both hold large things live for long (an ingest a huge document's text through all its batches
// and a layer's entities through its clustering; a server its store's in-memory indexes), where
// the default doubling shows in peak RSS and collecting more often costs little CPU
// (bench/README.md, bigdoc and query).
const longLivedGCPercent = 50

// stageGCPercent is the collector's target while the summary layers and the communities are
// computed. A layer of millions holds its ids, links and reduced embeddings in large
// pointer-free arrays, and the communities stage the entity graph and Leiden's arrays, while
// they read and write entities row by row, making garbage at every row (the driver's strings and
// arguments), which longLivedGCPercent lets pile up over those arrays (bench/README.md, bigdoc).
const stageGCPercent = 10

// memoryPolicy is the memory policy of the process, applied by ingest and serve (Apply) and by
// the stage runner of ingest and delete: longLivedGCPercent unless the user set GOGC,
// stageGCPercent during the layers and communities stages (unless GOGC is lower or off), and
// the garbage of every stage and of the large steps within them collected at once, its pages
// handed back (memstat.Policy.ReturnFreed).
func memoryPolicy() memstat.Policy {
	p := memstat.Policy{
		StageGCPercent: map[string]int{"layers": stageGCPercent, "communities": stageGCPercent},
		ReturnFreed:    true,
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		p.GCPercent = longLivedGCPercent
	}
	return p
}

// lowerGC applies longLivedGCPercent unless the user set GOGC (memoryPolicy).
func lowerGC() {
	memoryPolicy().Apply()
}

// heapProfileEnv names a file to write a heap profile of an ingest to, taken near the peak of
// the Go heap (memstat.HeapProfiler): a diagnostic for bench/bigdoc, not a documented option.
const heapProfileEnv = "STRATA_HEAP_PROFILE"

// profileHeap profiles the heap into path until the returned stop is called; a failure to write
// the profile is logged, never fatal.
func profileHeap(ctx context.Context, path string, log zerolog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := (memstat.HeapProfiler{Path: path}).Run(ctx); err != nil {
			log.Warn().Err(err).Msg("heap profile")
		}
	}()
	return func() { cancel(); <-done }
}

// cpuProfileEnv names a file prefix to write CPU profiles of an ingest to, one per
// cpuProfileWindow (PREFIX.000, PREFIX.001, ...), so that a slow phase of a long run has a
// profile of its own: a diagnostic for bench/bigdoc, not a documented option.
const cpuProfileEnv = "STRATA_CPU_PROFILE"

const cpuProfileWindow = 5 * time.Minute

// profileCPU writes CPU profiles to prefix.NNN until the returned stop is called; a failure to
// write one is logged, never fatal.
func profileCPU(ctx context.Context, prefix string, log zerolog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			path := fmt.Sprintf("%s.%03d", prefix, i)
			if err := profileCPUWindow(ctx, path); err != nil {
				log.Warn().Err(err).Msg("CPU profile")
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// profileCPUWindow profiles into path for cpuProfileWindow or until ctx is done.
func profileCPUWindow(ctx context.Context, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(cpuProfileWindow):
	}
	pprof.StopCPUProfile()
	return f.Close()
}

func describe(b backend) string { return fmt.Sprintf("%s store at %s", b.Kind, b.Location) }

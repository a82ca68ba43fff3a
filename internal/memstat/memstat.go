// Package memstat reports the memory of the running process, so that a stage of a long run can
// log what it cost: the Go heap in use and the peak resident set size the kernel recorded. It
// also writes a heap profile at the peak of the heap when asked (HeapProfiler), to find what
// held the memory.
package memstat

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/rs/zerolog"
)

// Sample is the memory of the process at one moment.
type Sample struct {
	HeapInUse uint64 // bytes of live and not yet swept Go heap objects (runtime/metrics)
	// HeapUnused is memory of the Go heap's spans that holds no object: what objects that
	// outlive their neighbours keep resident (fragmentation). HeapFree is free pages the runtime
	// has not handed back to the OS yet. Both count in the RSS, not in HeapInUse.
	HeapUnused, HeapFree uint64
	MaxRSS               uint64 // peak resident set size of the process so far, in bytes; 0 where unknown
}

// HeapInUseMiB and MaxRSSMiB are the sample in MiB, for logs.
func (s Sample) HeapInUseMiB() float64 { return float64(s.HeapInUse) / (1 << 20) }

// HeapUnusedMiB and HeapFreeMiB are the sample's HeapUnused and HeapFree in MiB.
func (s Sample) HeapUnusedMiB() float64 { return float64(s.HeapUnused) / (1 << 20) }

func (s Sample) HeapFreeMiB() float64 { return float64(s.HeapFree) / (1 << 20) }

// MaxRSSMiB is the peak resident set size in MiB (0 where the platform does not report it).
func (s Sample) MaxRSSMiB() float64 { return float64(s.MaxRSS) / (1 << 20) }

// Now samples the process. It does not stop the world (runtime/metrics, not ReadMemStats).
func Now() Sample {
	var s Sample
	m := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(m)
	for i, dst := range []*uint64{&s.HeapInUse, &s.HeapUnused, &s.HeapFree} {
		if m[i].Value.Kind() == metrics.KindUint64 {
			*dst = m[i].Value.Uint64()
		}
	}
	s.MaxRSS = maxRSS()
	return s
}

// HeapProfiler writes a heap profile to Path whenever the live heap has grown past the largest
// seen so far, checking every Interval: at the end of the run the file holds the profile taken
// nearest the peak. Profiles are of memory in use at the last garbage collection (pprof's
// inuse_space), so Run forces one before it looks, but only once the heap in use is twice that
// peak (where the collector's own goal would put a heap whose live part had not grown): forcing
// one whenever garbage had piled up would keep the heap, and the RSS being measured, below
// what a run without the profiler reaches.
type HeapProfiler struct {
	Path     string
	Interval time.Duration // zero: 500 ms
}

// Run profiles until ctx is done. Errors writing the file are returned at once.
func (p HeapProfiler) Run(ctx context.Context) error {
	interval := p.Interval
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var peak uint64
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if h := Now().HeapInUse; h > 2*peak {
			runtime.GC()
			if live := Now().HeapInUse; live > peak {
				peak = live
				if err := p.write(); err != nil {
					return err
				}
			}
		}
	}
}

func (p HeapProfiler) write() error {
	tmp := p.Path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("heap profile %s: %w", p.Path, err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile %s: %w", p.Path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("heap profile %s: %w", p.Path, err)
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		return fmt.Errorf("heap profile %s: %w", p.Path, err)
	}
	return nil
}

// Fields adds the sample to a log event as the fields of the "stage finished" and "document batch
// written" lines, in MiB to one decimal.
func (s Sample) Fields(e *zerolog.Event) *zerolog.Event {
	r := func(x float64) float64 { return math.Round(x*10) / 10 }
	return e.Float64("heap_mib", r(s.HeapInUseMiB())).Float64("heap_unused_mib", r(s.HeapUnusedMiB())).
		Float64("heap_free_mib", r(s.HeapFreeMiB())).Float64("max_rss_mib", r(s.MaxRSSMiB()))
}

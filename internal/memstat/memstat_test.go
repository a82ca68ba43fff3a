package memstat

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestNowSeesAllocation(t *testing.T) {
	before := Now()
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after := Now()
	runtime.KeepAlive(buf)
	if after.HeapInUse < before.HeapInUse+32<<20 {
		t.Errorf("heap in use %d → %d after a 64 MiB allocation", before.HeapInUse, after.HeapInUse)
	}
	if runtime.GOOS == "linux" && after.MaxRSS < 64<<20 {
		t.Errorf("max RSS %d after touching 64 MiB", after.MaxRSS)
	}
}

// TestNowSeesFragmentation: small objects of which a few outlive the rest keep their spans,
// which HeapUnused counts and HeapInUse does not.
func TestNowSeesFragmentation(t *testing.T) {
	runtime.GC()
	before := Now()
	all := make([]*[64]byte, 1<<20) // 64 MiB of 64-byte objects, 128 to a page
	for i := range all {
		all[i] = new([64]byte)
	}
	kept := make([]*[64]byte, 0, len(all)/64)
	for i := 0; i < len(all); i += 64 {
		kept = append(kept, all[i])
	}
	all = nil
	runtime.GC()
	after := Now()
	runtime.KeepAlive(kept)
	if after.HeapUnused < before.HeapUnused+32<<20 {
		t.Errorf("heap unused %d -> %d with 1 in 64 of 64 MiB of small objects kept", before.HeapUnused, after.HeapUnused)
	}
	if after.HeapInUse > before.HeapInUse+16<<20 {
		t.Errorf("heap in use %d -> %d: counts the unused spans", before.HeapInUse, after.HeapInUse)
	}
}

func TestHeapProfilerWritesAtGrowth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- HeapProfiler{Path: path, Interval: 5 * time.Millisecond}.Run(ctx) }()
	buf := make([]byte, 16<<20)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(buf)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no heap profile written: %v", err)
	}
}

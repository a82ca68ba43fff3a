package cypher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/internal/neo4jtest"
)

// TestWriterLease: one store holds the writer lease at a time; a second writer is refused with
// graph.ErrLocked naming the holder, and gets the lease once the holder closes. A lease left by a
// process that is gone (expired, or its holder no longer runs on this host) is taken over; one
// held by a live writer elsewhere is not.
func TestWriterLease(t *testing.T) {
	srv, cfg := emptyServer(t)
	ctx := context.Background()
	host, _ := os.Hostname()

	a := openTestStore(t, cfg)
	if err := a.TakeWriterLease(ctx); err != nil {
		t.Fatal(err)
	}
	b := openTestStore(t, cfg)
	if l, held, err := b.WriterLease(ctx); err != nil || !held || l.PID != os.Getpid() || l.Host != host || l.ExpiresIn <= 0 {
		t.Errorf("WriterLease while a holds it = %+v, %v, %v; want pid %d on %s, live", l, held, err, os.Getpid(), host)
	}
	err := b.TakeWriterLease(ctx)
	if !errors.Is(err, graph.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d on %s", os.Getpid(), host)) {
		t.Fatalf("second writer: %v; want graph.ErrLocked naming pid %d on %s", err, os.Getpid(), host)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if l, held, err := b.WriterLease(ctx); err != nil || held {
		t.Errorf("WriterLease after the holder closed = %+v, %v, %v; want none", l, held, err)
	}
	if err := b.TakeWriterLease(ctx); err != nil {
		t.Fatalf("after the holder closed: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		host        string
		pid         int
		expiresInMs int64
		taken       bool
	}{
		{"live writer on another host", "elsewhere", 1, 60_000, false},
		{"expired lease of another host", "elsewhere", 1, -1, true},
		{"writer of this host that is gone", host, gone.Process.Pid, 60_000, true},
		{"live writer of this host", host, os.Getpid(), 60_000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			putLease(t, srv, tc.host, tc.pid, tc.expiresInMs)
			s := openTestStore(t, cfg)
			err := s.TakeWriterLease(ctx)
			switch {
			case tc.taken && err != nil:
				t.Errorf("TakeWriterLease: %v; want the lease taken over", err)
			case !tc.taken && (!errors.Is(err, graph.ErrLocked) || !strings.Contains(err.Error(), tc.host)):
				t.Errorf("TakeWriterLease: %v; want graph.ErrLocked naming host %s", err, tc.host)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWriterLeaseLost: a writer whose lease another process took over (after it stopped renewing
// it) fails its next write with ErrLeaseLost instead of writing beside the new holder.
func TestWriterLeaseLost(t *testing.T) {
	srv, cfg := emptyServer(t)
	ctx := context.Background()
	s := openTestStore(t, cfg)
	if err := s.takeWriterLease(ctx, 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	doc := graph.Batch{Documents: []graph.Document{{ID: "d", Metadata: "{}"}}}
	if err := s.Apply(ctx, doc); err != nil {
		t.Fatalf("write while holding the lease: %v", err)
	}
	putLease(t, srv, "elsewhere", 1, 60_000)
	// The next renewal (every 100 ms) finds the lease taken.
	deadline := time.Now().Add(30 * time.Second)
	for s.checkLease() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := s.Apply(ctx, doc); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("write after the lease was taken over: %v; want ErrLeaseLost", err)
	}
}

// putLease makes a writer of another process the holder of the lease.
func putLease(t *testing.T, srv neo4jtest.Server, host string, pid int, expiresInMs int64) {
	t.Helper()
	params := map[string]any{"host": host, "pid": int64(pid), "expiresInMs": expiresInMs}
	if _, err := srv.Query(context.Background(), testQuery(t, "put_lease"), params); err != nil {
		t.Fatal(err)
	}
}

// TestWriterLeaseOneWinner: writers that try to take the lease at the same moment, each through
// its own driver as separate processes would, never both win: neither a lease that does not
// exist yet (even rounds) nor one that lapsed (odd rounds).
func TestWriterLeaseOneWinner(t *testing.T) {
	srv, cfg := emptyServer(t)
	const writers, rounds = 6, 10
	stores := make([]*Store, writers)
	for i := range stores {
		stores[i] = openTestStore(t, cfg)
	}
	for round := range rounds {
		if round%2 == 1 {
			putLease(t, srv, "elsewhere", 1, -1000)
		}
		start := make(chan struct{})
		errs := make([]error, writers)
		var wg sync.WaitGroup
		for i, s := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = s.TakeWriterLease(t.Context())
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
				if err := stores[i].releaseLease(t.Context()); err != nil {
					t.Fatal(err)
				}
			case !errors.Is(err, graph.ErrLocked):
				t.Fatalf("round %d, writer %d: %v", round, i, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d of %d concurrent writers took the lease, want exactly 1", round, won, writers)
		}
	}
}

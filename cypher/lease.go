package cypher

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/stratarag/strata/internal/graph"
)

// leaseTTL is how long a writer lease lasts without renewal. A writer renews it every
// leaseTTL/4, so only a writer whose process died (or lost the server for that long) lets it
// expire; a dead writer on the same host is recognised at once (see TakeWriterLease).
const leaseTTL = time.Minute

// ErrLeaseLost is returned by writes after another process took the writer lease over, which
// it can only do once this one stopped renewing it for leaseTTL.
var ErrLeaseLost = errors.New("this process lost the database's writer lease to another strata process")

// lease is the writer lease a Store holds (see TakeWriterLease).
type lease struct {
	token string
	ttl   time.Duration
	stop  chan struct{}
	done  chan struct{}

	mu   sync.Mutex
	lost bool
}

// leaseHolder is who holds the lease, as lease_acquire.cypher returns it.
type leaseHolder struct {
	acquired  bool
	token     string
	host      string
	pid       int
	startedAt time.Time
	expiresIn time.Duration
}

// TakeWriterLease makes this store the database's one writer until Close: strata's commands that
// write (ingest, delete) take it, readers do not. A database another live process writes to is
// refused with graph.ErrLocked and a message naming that process; a lease whose holder stopped
// renewing it for a minute, or whose holder ran on this host and is no longer running, is taken
// over. Two processes writing one graph at once would each derive entities, layers and
// communities from a graph the other is changing.
func (s *Store) TakeWriterLease(ctx context.Context) error {
	return s.takeWriterLease(ctx, leaseTTL)
}

func (s *Store) takeWriterLease(ctx context.Context, ttl time.Duration) error {
	if s.lease != nil {
		return nil
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return fmt.Errorf("cypher: writer lease: %w", err)
	}
	host, _ := os.Hostname()
	token := hex.EncodeToString(b)
	h, err := s.acquireLease(ctx, token, "", host, ttl)
	if err != nil {
		return err
	}
	if !h.acquired && h.host == host && !processAlive(h.pid) {
		// The holder ran here and is gone (killed, crashed, or cut off from the server before
		// it could give the lease up): replace exactly that holder.
		if h, err = s.acquireLease(ctx, token, h.token, host, ttl); err != nil {
			return err
		}
	}
	if !h.acquired {
		return fmt.Errorf("cypher: %w: strata (pid %d on %s) has been writing to this database since %s; "+
			"wait for it to finish, then run this command again (if that process is gone, its lease expires within %s "+
			"and the next run takes it over; a run on %s takes it over at once)",
			graph.ErrLocked, h.pid, h.host, h.startedAt.UTC().Format(time.RFC3339), h.expiresIn.Round(time.Second), h.host)
	}
	l := &lease{token: token, ttl: ttl, stop: make(chan struct{}), done: make(chan struct{})}
	s.lease = l
	go s.renewLease(l)
	return nil
}

func (s *Store) acquireLease(ctx context.Context, token, replace, host string, ttl time.Duration) (leaseHolder, error) {
	var h leaseHolder
	err := s.run.write(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qLeaseAcquire), map[string]any{
			"token": token, "replace": replace, "host": host, "pid": int64(os.Getpid()), "ttlMs": ttl.Milliseconds(),
		})
		if err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("%s: %d rows, want 1", qLeaseAcquire, len(rows))
		}
		f := fields{m: rows[0]}
		h = leaseHolder{
			acquired: f.bool("acquired"), token: f.str("token"), host: f.str("host"), pid: int(f.int("pid")),
			startedAt: time.UnixMilli(f.int("startedAt")), expiresIn: time.Duration(f.int("expiresInMs")) * time.Millisecond,
		}
		return f.err
	})
	if err != nil {
		return leaseHolder{}, fmt.Errorf("cypher: take the writer lease: %w", err)
	}
	return h, nil
}

// renewLease extends the lease every ttl/4 until Close. A renewal that fails (the server is
// unreachable) is tried again at the next tick; one that finds another holder marks the lease
// lost, and every write after that fails with ErrLeaseLost.
func (s *Store) renewLease(l *lease) {
	defer close(l.done)
	tick := time.NewTicker(l.ttl / 4)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/4)
		var renewed bool
		err := s.run.write(ctx, func(t tx) error {
			rows, err := t.run(ctx, s.q.get(qLeaseRenew), map[string]any{"token": l.token, "ttlMs": l.ttl.Milliseconds()})
			renewed = len(rows) > 0
			return err
		})
		cancel()
		if err == nil && !renewed {
			l.mu.Lock()
			l.lost = true
			l.mu.Unlock()
			return
		}
	}
}

// checkLease fails once the store's writer lease is lost; a store without one writes freely.
func (s *Store) checkLease() error {
	l := s.lease
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return fmt.Errorf("cypher: %w (it stopped renewing it for %s, cut off from the server?); "+
			"run the command again once the other process has finished", ErrLeaseLost, l.ttl)
	}
	return nil
}

// releaseLease stops the renewals and gives the lease up.
func (s *Store) releaseLease(ctx context.Context) error {
	l := s.lease
	if l == nil {
		return nil
	}
	close(l.stop)
	<-l.done
	s.lease = nil
	err := s.run.write(ctx, func(t tx) error {
		_, err := t.run(ctx, s.q.get(qLeaseRelease), map[string]any{"token": l.token})
		return err
	})
	if err != nil {
		return fmt.Errorf("cypher: give the writer lease up: %w", err)
	}
	return nil
}

// processAlive reports whether a process with this pid runs on this host (signal 0 checks
// without sending anything; EPERM means it runs under another user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Lease is who holds a database's writer lease: the process writing to it.
type Lease struct {
	Host      string        `json:"host"`
	PID       int           `json:"pid"`
	Started   time.Time     `json:"started"`
	ExpiresIn time.Duration `json:"-"` // negative once expired: its holder stopped renewing it
}

// WriterLease says who holds the writer lease; false when nobody does. Reading it takes
// nothing: status shows it while an ingest runs.
func (s *Store) WriterLease(ctx context.Context) (Lease, bool, error) {
	var l Lease
	var found bool
	err := s.run.read(ctx, func(t tx) error {
		rows, err := t.run(ctx, s.q.get(qLeaseRead), nil)
		if err != nil || len(rows) == 0 {
			return err
		}
		f := fields{m: rows[0]}
		l = Lease{Host: f.str("host"), PID: int(f.int("pid")), Started: time.UnixMilli(f.int("startedAt")).UTC(),
			ExpiresIn: time.Duration(f.int("expiresInMs")) * time.Millisecond}
		found = true
		return f.err
	})
	if err != nil {
		return Lease{}, false, fmt.Errorf("cypher: read the writer lease: %w", err)
	}
	return l, found, nil
}

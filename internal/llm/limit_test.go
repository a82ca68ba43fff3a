package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stratarag/strata/internal/llm/fakeopenai"
)

// gate is a waiter that admits one request per permit and records what it was charged; changed
// receives a value each time a request starts or stops waiting.
type gate struct {
	permits chan struct{}
	changed chan struct{}
	mu      sync.Mutex
	waiting int
	charged []int
}

func newGate() *gate {
	return &gate{permits: make(chan struct{}, 100), changed: make(chan struct{}, 100)}
}

func (g *gate) WaitN(ctx context.Context, n int) error {
	g.setWaiting(+1)
	defer g.setWaiting(-1)
	select {
	case <-g.permits:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.charged = append(g.charged, n)
	g.mu.Unlock()
	return nil
}

func (g *gate) setWaiting(d int) {
	g.mu.Lock()
	g.waiting += d
	g.mu.Unlock()
	g.changed <- struct{}{}
}

func (g *gate) waiters() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

func (g *gate) release(n int) {
	for range n {
		g.permits <- struct{}{}
	}
}

// free is a waiter that admits everything and records the charges.
type free struct {
	mu      sync.Mutex
	charged []int
}

func (f *free) WaitN(_ context.Context, n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.charged = append(f.charged, n)
	return nil
}

// The RPM limiter decides when requests reach the server: with k permits granted, exactly k
// requests have been made, whatever the concurrency.
func TestRateLimiterGatesRequests(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{}, Config{Concurrency: 8})
	g := newGate()
	c.lim.rpm = g
	const requests = 6
	var wg sync.WaitGroup
	var done atomic.Int32
	for _, text := range passages(requests) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), extractRequest(t, text)); err != nil {
				t.Error(err)
			}
			done.Add(1)
			g.changed <- struct{}{}
		}()
	}
	// Once the admitted requests are done and all the others wait at the gate, a request that
	// went round the gate would have shown up at the server.
	timeout := time.After(30 * time.Second)
	admitted := 0
	for _, step := range []int{0, 2, 1, 3} {
		g.release(step)
		admitted += step
		for int(done.Load()) < admitted || g.waiters() < requests-admitted {
			select {
			case <-g.changed:
			case <-timeout:
				t.Fatalf("after %d permits: %d requests done, %d waiting, after 30 s", admitted, done.Load(), g.waiters())
			}
		}
		if got := s.Counts().Requests; got != admitted {
			t.Fatalf("after %d permits the server saw %d requests", admitted, got)
		}
	}
	wg.Wait()
}

// TPM is charged with the estimated prompt tokens plus max_tokens, once per attempt.
func TestTokensPerMinuteCharge(t *testing.T) {
	c, s := fake(t, fakeopenai.Options{Seed: 7, RateLimitRate: 0.5, RetryAfter: time.Millisecond}, Config{MaxRetries: 20})
	tpm, rpm := &free{}, &free{}
	c.lim.tpm, c.lim.tpmBurst, c.lim.rpm = tpm, 1<<30, rpm
	req := extractRequest(t, passages(1)[0])
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	attempts := s.Counts().Requests
	if attempts < 2 {
		t.Fatalf("only %d attempts; want a retry to check per-attempt charging", attempts)
	}
	want := c.CountMessages(req.Messages) + req.MaxTokens
	if len(tpm.charged) != attempts || len(rpm.charged) != attempts {
		t.Fatalf("tpm charged %d times, rpm %d times, for %d attempts", len(tpm.charged), len(rpm.charged), attempts)
	}
	for _, n := range tpm.charged {
		if n != want {
			t.Errorf("charged %d tokens, want %d", n, want)
		}
	}
}

// A request larger than the TPM bucket is charged in bucket-sized pieces instead of failing.
func TestLargeRequestChargedInPieces(t *testing.T) {
	l := newLimiter(1, 0, 600)
	rec := &free{}
	l.tpm = rec
	release, err := l.acquire(context.Background(), 250)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if l.tpmBurst != 100 || len(rec.charged) != 3 || rec.charged[2] != 50 {
		t.Errorf("burst %d, charges %v", l.tpmBurst, rec.charged)
	}
}

func TestRealLimiterAdmitsWithinBurst(t *testing.T) {
	l := newLimiter(4, 600, 60000)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for range 10 { // burst of RPM/6 = 100 requests and TPM/6 = 10000 tokens
		release, err := l.acquire(ctx, 500)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
}

// With Concurrency 3, the server sees 3 requests at once and never more: the first three are
// held until all three have arrived, and the others wait for a slot meanwhile.
func TestConcurrencyBound(t *testing.T) {
	var inFlight atomic.Int32
	arrived, release := make(chan struct{}, 12), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := inFlight.Add(1); n > 3 {
			t.Errorf("%d requests in flight, want at most 3", n)
		}
		arrived <- struct{}{}
		<-release
		inFlight.Add(-1)
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	c := client(t, srv.URL, Config{Concurrency: 3})
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), ChatRequest{Messages: []Message{{Role: RoleUser, Content: string(rune('a' + i))}}}); err != nil {
				t.Error(err)
			}
		}()
	}
	for range 3 {
		select {
		case <-arrived:
		case <-time.After(30 * time.Second):
			close(release)
			t.Fatal("fewer than 3 requests reached the server in 30 s")
		}
	}
	if n := inFlight.Load(); n != 3 || len(c.lim.sem) != cap(c.lim.sem) {
		t.Errorf("%d requests in flight, %d of %d slots taken; want 3 of 3", n, len(c.lim.sem), cap(c.lim.sem))
	}
	close(release)
	wg.Wait()
}

func TestAcquireHonoursContext(t *testing.T) {
	l := newLimiter(1, 0, 0)
	release, err := l.acquire(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.acquire(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

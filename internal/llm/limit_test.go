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

// gate is a waiter that admits one request per permit and records what it was charged.
type gate struct {
	permits chan struct{}
	mu      sync.Mutex
	charged []int
}

func newGate() *gate { return &gate{permits: make(chan struct{}, 100)} }

func (g *gate) WaitN(ctx context.Context, n int) error {
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
	var wg sync.WaitGroup
	var done atomic.Int32
	for _, text := range passages(6) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Chat(context.Background(), extractRequest(t, text)); err != nil {
				t.Error(err)
			}
			done.Add(1)
		}()
	}
	for _, step := range []int{2, 1, 3} {
		before := int(done.Load())
		g.release(step)
		for int(done.Load()) < before+step {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond) // give a wrongly admitted request time to show up
		if got, want := s.Counts().Requests, before+step; got != want {
			t.Fatalf("after %d permits the server saw %d requests", want, got)
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

func TestConcurrencyBound(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
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
	wg.Wait()
	if p := peak.Load(); p > 3 || p == 0 {
		t.Errorf("peak in-flight requests %d, want at most 3", p)
	}
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

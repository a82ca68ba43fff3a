package llm

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// waiter is the part of *rate.Limiter the client uses; tests substitute their own.
type waiter interface {
	WaitN(ctx context.Context, n int) error
}

// limiter admits requests: at most Concurrency in flight, no faster than RPM and TPM allow, and
// none while a server-requested cool-down (Retry-After on a 429) is running. The cool-down is
// shared so that one 429 slows every worker, instead of each worker discovering the limit on its
// own and the server answering a storm of 429s.
type limiter struct {
	sem      chan struct{}
	rpm, tpm waiter // nil means unlimited
	tpmBurst int

	mu    sync.Mutex
	until time.Time
}

func newLimiter(concurrency, rpm, tpm int) *limiter {
	l := &limiter{sem: make(chan struct{}, concurrency)}
	// Buckets hold ten seconds' worth: enough to start promptly, small enough that providers
	// enforcing their limits over windows shorter than a minute do not see a burst.
	if rpm > 0 {
		l.rpm = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, rpm/6))
	}
	if tpm > 0 {
		l.tpmBurst = max(1, tpm/6)
		l.tpm = rate.NewLimiter(rate.Limit(float64(tpm)/60), l.tpmBurst)
	}
	return l
}

// acquire waits until a request charged tokens tokens may start, and returns the function that
// frees its concurrency slot.
func (l *limiter) acquire(ctx context.Context, tokens int) (release func(), err error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release = func() { <-l.sem }
	if err := l.admit(ctx, tokens); err != nil {
		release()
		return nil, err
	}
	return release, nil
}

func (l *limiter) admit(ctx context.Context, tokens int) error {
	if err := l.waitCooldown(ctx); err != nil {
		return err
	}
	if l.rpm != nil {
		if err := l.rpm.WaitN(ctx, 1); err != nil {
			return err
		}
	}
	if l.tpm != nil {
		// A request larger than the bucket is charged in bucket-sized pieces, so it waits as
		// long as its size demands instead of failing.
		for rest := max(tokens, 1); rest > 0; rest -= l.tpmBurst {
			if err := l.tpm.WaitN(ctx, min(rest, l.tpmBurst)); err != nil {
				return err
			}
		}
	}
	return nil
}

// cooldown holds back new requests for d (extending, never shortening, a running cool-down).
func (l *limiter) cooldown(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := time.Now().Add(d); t.After(l.until) {
		l.until = t
	}
}

func (l *limiter) waitCooldown(ctx context.Context) error {
	for {
		l.mu.Lock()
		d := time.Until(l.until)
		l.mu.Unlock()
		if d <= 0 {
			return nil
		}
		if err := sleep(ctx, d); err != nil {
			return err
		}
	}
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

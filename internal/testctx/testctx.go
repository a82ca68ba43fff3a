// Package testctx holds contexts for tests of long computations.
package testctx

import "context"

// Countdown returns a context whose Err turns to context.Canceled at its n-th call (and stays
// so), so that a test can cancel a computation part way through, at a chosen check, without
// timing. Done never closes: it suits code that polls Err.
func Countdown(parent context.Context, n int) context.Context {
	return &countdown{Context: parent, n: n}
}

type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n <= 0 {
		return context.Canceled
	}
	return nil
}

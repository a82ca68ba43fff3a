// Package storetest is the contract test suite of graph.Store. Every backend runs it:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) graph.Store { return openEmptyStore(t) })
//	}
//
// The suite uses the store only through graph.Store, so what it checks is the contract and not
// an implementation. Fixtures are small and written out in full so that a failure can be followed
// by hand.
package storetest

import (
	"context"
	"strconv"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// Run runs every contract test as a subtest of t. open must return a new, empty store for each
// subtest and arrange for it to be closed and disposed of (t.Cleanup). Subtests run one after the
// other, never in parallel, so backends that share a server can reuse one database.
func Run(t *testing.T, open func(t *testing.T) graph.Store) {
	for _, tc := range tests() {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, open(t))
		})
	}
}

type test struct {
	name string
	run  func(t *testing.T, s graph.Store)
}

// tests lists the contract tests, grouped by the part of the contract they cover.
func tests() []test {
	var all []test
	for _, group := range [][]test{
		applyTests(),
		lookupTests(),
		vectorTests(),
		textTests(),
		localTests(),
		pathTests(),
		hierarchyTests(),
		componentTests(),
		communityTests(),
		digestTests(),
		archTests(),
		concurrencyTests(),
		contextTests(),
		evidenceTests(),
		pageTests(),
		paramTests(),
		pprTests(),
	} {
		all = append(all, group...)
	}
	return all
}

// apply writes b and fails the test on error.
func apply(t *testing.T, s graph.Store, b graph.Batch) {
	t.Helper()
	if err := s.Apply(t.Context(), b); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

// must fails the test when err is not nil and returns v otherwise.
func must[T any](t *testing.T, what string) func(v T, err error) T {
	t.Helper()
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

// stats returns s's Stats and fails the test on error.
func stats(t *testing.T, s graph.Store) graph.Stats {
	t.Helper()
	return must[graph.Stats](t, "Stats")(s.Stats(t.Context()))
}

// itoa formats an int for test names and messages.
func itoa(i int) string { return strconv.Itoa(i) }

// ctx is a shorthand for the test's context.
func ctx(t *testing.T) context.Context { return t.Context() }

package cypher

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// call is one statement the store ran through the fake.
type call struct {
	name   string
	write  bool // inside a write transaction
	txn    int  // which transaction, counted from 1
	params map[string]any
}

// fakeRunner records every statement with its parameters and answers from canned responses.
// It fails the test when a statement is sent parameters other than those its file declares,
// which ties the Go side to the "// @param" headers that the linter checks.
type fakeRunner struct {
	t *testing.T

	mu    sync.Mutex
	calls []call
	txns  int
	// answer returns the records for a statement; nil answers every statement with no rows.
	answer func(name string, params map[string]any) ([]map[string]any, error)
	closed bool
}

func (f *fakeRunner) read(ctx context.Context, work func(tx) error) error {
	return f.exec(ctx, false, work)
}

func (f *fakeRunner) write(ctx context.Context, work func(tx) error) error {
	return f.exec(ctx, true, work)
}

func (f *fakeRunner) exec(ctx context.Context, write bool, work func(tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.txns++
	n := f.txns
	f.mu.Unlock()
	return work(&fakeTx{f: f, write: write, txn: n})
}

// one records a single statement as a transaction of its own.
func (f *fakeRunner) one(ctx context.Context, write bool, q query, params map[string]any) (rows []map[string]any, err error) {
	err = f.exec(ctx, write, func(t tx) error {
		rows, err = t.run(ctx, q, params)
		return err
	})
	return rows, err
}

// auto records an auto-commit statement as a write transaction of its own.
func (f *fakeRunner) auto(ctx context.Context, q query, params map[string]any) error {
	return f.exec(ctx, true, func(t tx) error {
		_, err := t.run(ctx, q, params)
		return err
	})
}

func (f *fakeRunner) close(context.Context) error {
	f.closed = true
	return nil
}

type fakeTx struct {
	f     *fakeRunner
	write bool
	txn   int
}

func (t *fakeTx) run(_ context.Context, q query, params map[string]any) ([]map[string]any, error) {
	f := t.f
	f.t.Helper()
	var got []string
	for k := range params {
		got = append(got, k)
	}
	sort.Strings(got)
	if !slices.Equal(got, q.params) {
		f.t.Errorf("%s sent parameters %v, its file declares %v", q.name, got, q.params)
	}
	f.mu.Lock()
	f.calls = append(f.calls, call{name: q.name, write: t.write, txn: t.txn, params: params})
	f.mu.Unlock()
	if f.answer == nil {
		return nil, nil
	}
	return f.answer(q.name, params)
}

// names lists the statements run so far.
func (f *fakeRunner) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		out[i] = c.name
	}
	return out
}

// only returns the calls of one statement.
func (f *fakeRunner) only(name string) []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []call
	for _, c := range f.calls {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeRunner) reset() {
	f.mu.Lock()
	f.calls = nil
	f.mu.Unlock()
}

// answers builds an answer function from canned rows per statement; statements not listed
// return no rows.
func answers(m map[string][]map[string]any) func(string, map[string]any) ([]map[string]any, error) {
	return func(name string, _ map[string]any) ([]map[string]any, error) { return m[name], nil }
}

// newFakeStore returns a store on a fake runner. The store believes GDS is installed when gds
// is not "".
func newFakeStore(t *testing.T, cfg Config, gds string) (*Store, *fakeRunner) {
	t.Helper()
	qs, err := loadQueries()
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{t: t}
	s := newStore(f, qs, cfg)
	s.gds = gds
	return s, f
}

// rowsParam returns the "rows" parameter of a call.
func rowsParam(t *testing.T, c call) []map[string]any {
	t.Helper()
	rows, ok := c.params["rows"].([]map[string]any)
	if !ok {
		t.Fatalf("%s: rows is %T", c.name, c.params["rows"])
	}
	return rows
}

// sequence compares run statements with want, ignoring order-insensitive noise nowhere: the
// order of statements is part of what Apply promises (references are checked before writes).
func sequence(t *testing.T, f *fakeRunner, want ...string) {
	t.Helper()
	if got := f.names(); !slices.Equal(got, want) {
		t.Errorf("statements:\n got  %s\n want %s", strings.Join(got, " "), strings.Join(want, " "))
	}
}

func hitsString(hs []graph.Hit) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "%s:%.3f ", h.ID, h.Score)
	}
	return strings.TrimSpace(b.String())
}

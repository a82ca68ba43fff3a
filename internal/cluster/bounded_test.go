package cluster

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/testctx"
)

func float32Rows(x [][]float64) [][]float32 {
	out := make([][]float32, len(x))
	for i, r := range x {
		out[i] = make([]float32, len(r))
		for j, v := range r {
			out[i][j] = float32(v)
		}
	}
	return out
}

// checkGroups checks what every result of Bounded must satisfy: groups of at least one row and
// at most max rows, rows in increasing order with probabilities in (0, 1], and every row of n in
// some group.
func checkGroups(t *testing.T, groups []Group, n, max int) {
	t.Helper()
	seen := make([]bool, n)
	for gi, g := range groups {
		if len(g.Rows) == 0 || len(g.Rows) > max || len(g.Probs) != len(g.Rows) {
			t.Errorf("group %d: %d rows, %d probabilities; want 1..%d rows, one probability each", gi, len(g.Rows), len(g.Probs), max)
		}
		if !slices.IsSorted(g.Rows) {
			t.Errorf("group %d: rows %v not in increasing order", gi, g.Rows)
		}
		for i, r := range g.Rows {
			seen[r] = true
			if p := g.Probs[i]; !(p > 0 && p <= 1) {
				t.Errorf("group %d: row %d has probability %v", gi, r, p)
			}
		}
	}
	for r, ok := range seen {
		if !ok {
			t.Errorf("row %d is in no group", r)
		}
	}
}

func TestBounded(t *testing.T) {
	blobs, labels := makeBlobs(blobSpec{n: 900, d: 16, k: 3, sep: 30, seed: 5})
	identical := make([][]float64, 130)
	for i := range identical {
		identical[i] = []float64{1, 2, 3, 4}
	}
	small, _ := makeBlobs(blobSpec{n: 12, d: 4, k: 2, sep: 30, seed: 9})
	tests := []struct {
		name      string
		rows      [][]float64
		opt       BoundedOptions
		minGroups int
	}{
		// Three blobs of ~300 rows: BIC would choose three clusters; the bound makes ~45.
		{"blobs", blobs, BoundedOptions{Size: 20, MaxSize: 40, Dims: 8, MaxComponents: 50, Threshold: 0.1}, 900 / 40},
		// A first fit capped at 4 components leaves groups of ~225 rows to the recursion.
		{"few components per fit", blobs, BoundedOptions{Size: 20, MaxSize: 30, Dims: 8, MaxComponents: 4, Threshold: 0.1}, 900 / 30},
		// No fit can separate identical rows: the cut along the first component bounds them.
		{"identical rows", identical, BoundedOptions{Size: 10, MaxSize: 15, Dims: 4, MaxComponents: 50, Threshold: 0.1}, 130 / 15},
		{"identical rows, many components", identical, BoundedOptions{Size: 5, MaxSize: 8, Dims: 4, MaxComponents: 50, Threshold: 0.1}, 130 / 8},
		// No more rows than Size: one group of all.
		{"one group", small, BoundedOptions{Size: 12, MaxSize: 20, Dims: 4, MaxComponents: 50, Threshold: 0.1}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := float32Rows(tc.rows)
			got, err := Bounded(rows, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkGroups(t, got, len(rows), tc.opt.MaxSize)
			if len(got) < tc.minGroups {
				t.Errorf("%d groups, want at least %d", len(got), tc.minGroups)
			}
			again, err := Bounded(rows, tc.opt)
			if err != nil || !reflect.DeepEqual(got, again) {
				t.Errorf("a second run differs (%v)", err)
			}
		})
	}

	// The bounded groups refine the blobs: nearly every group lies within one blob.
	got, err := Bounded(float32Rows(blobs), tests[0].opt)
	if err != nil {
		t.Fatal(err)
	}
	mixed := 0
	for _, g := range got {
		for _, r := range g.Rows {
			if labels[r] != labels[g.Rows[0]] {
				mixed++
				break
			}
		}
	}
	if mixed > len(got)/10 {
		t.Errorf("%d of %d groups mix blobs", mixed, len(got))
	}
}

// TestBoundedSoft: on data without gaps (a uniform square) rows near the border of two clusters
// join both, and soft members never push a group past MaxSize.
func TestBoundedSoft(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rows := make([][]float64, 300)
	for i := range rows {
		rows[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64() * 0.01}
	}
	opt := BoundedOptions{Size: 20, MaxSize: 30, Dims: 3, MaxComponents: 50, Threshold: 0.1, GMM: GMMOptions{Covariance: Diag}}
	got, err := Bounded(float32Rows(rows), opt)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, got, len(rows), opt.MaxSize)
	in := make([]int, len(rows))
	soft := false
	for _, g := range got {
		for i, r := range g.Rows {
			in[r]++
			soft = soft || g.Probs[i] < 0.5
		}
	}
	shared := 0
	for _, n := range in {
		if n > 1 {
			shared++
		}
	}
	if shared == 0 || !soft {
		t.Errorf("%d rows in two groups or more, soft probabilities seen: %v; want some of both", shared, soft)
	}
}

func TestBoundedErrors(t *testing.T) {
	rows := float32Rows([][]float64{{1, 2}, {3, 4}, {5, 6}})
	good := BoundedOptions{Size: 2, MaxSize: 2, Dims: 2, MaxComponents: 50, Threshold: 0.1}
	for _, tc := range []struct {
		name string
		rows [][]float32
		opt  func(o *BoundedOptions)
	}{
		{"no rows", nil, func(*BoundedOptions) {}},
		{"size 0", rows, func(o *BoundedOptions) { o.Size = 0 }},
		{"max below size", rows, func(o *BoundedOptions) { o.MaxSize = 1 }},
		{"dims 0", rows, func(o *BoundedOptions) { o.Dims = 0 }},
		{"one component", rows, func(o *BoundedOptions) { o.MaxComponents = 1 }},
		{"ragged", [][]float32{{1, 2}, {3}, {4, 5}}, func(*BoundedOptions) {}},
	} {
		opt := good
		tc.opt(&opt)
		if _, err := Bounded(tc.rows, opt); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := Bounded(rows, good); err != nil {
		t.Errorf("valid options: %v", err)
	}
}

// TestBoundedProjectedMatchesBounded: clustering rows reduced beforehand gives Bounded's groups.
func TestBoundedProjectedMatchesBounded(t *testing.T) {
	rows := randomRows(600, 16, 0.9, 3)
	opt := BoundedOptions{Size: 20, MaxSize: 40, Dims: 5, MaxComponents: 50, Threshold: 0.1, GMM: GMMOptions{Covariance: Diag, Seed: 9}}
	want, err := Bounded(rows, opt)
	if err != nil {
		t.Fatal(err)
	}
	x, err := PCAStream(len(rows), 16, Rows(rows), BoundedDims(len(rows), opt))
	if err != nil {
		t.Fatal(err)
	}
	got, err := BoundedProjected(t.Context(), x, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BoundedProjected: %d groups, Bounded: %d; they differ", len(got), len(want))
	}
	// Cancelled before the first fit, or part way through the recursion (at its third check):
	// the context's error, and no groups.
	for _, checks := range []int{1, 3} {
		groups, err := BoundedProjected(testctx.Countdown(t.Context(), checks), x, opt)
		if !errors.Is(err, context.Canceled) || groups != nil {
			t.Errorf("cancelled at check %d: %d groups, error %v; want none and context.Canceled", checks, len(groups), err)
		}
	}
}

// TestBoundedSampledFit: a fit made on an even sample of the rows, over rows held in float32
// (as for a layer of millions of entities), finds the partition a fit on every row finds, and
// every row lands in a group of bounded size.
func TestBoundedSampledFit(t *testing.T) {
	blobs, labels := makeBlobs(blobSpec{n: 6000, d: 12, k: 12, sep: 30, seed: 21})
	// Rows ordered by blob, as a store's order may follow content: a sample that is not spread
	// over all rows misses blobs.
	order := make([]int, len(blobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return labels[a] - labels[b] })
	sortedBlobs, sortedLabels := make([][]float64, len(blobs)), make([]int, len(blobs))
	for i, o := range order {
		sortedBlobs[i], sortedLabels[i] = blobs[o], labels[o]
	}
	rows, labels := float32Rows(sortedBlobs), sortedLabels
	opt := BoundedOptions{Size: 500, MaxSize: 1000, Dims: 10, MaxComponents: 12, Threshold: 0.1, GMM: GMMOptions{Covariance: Diag, Seed: 4}}
	exact, err := PCAStream(len(rows), 12, Rows(rows), BoundedDims(len(rows), opt))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := boundedProjected(t.Context(), exact, opt, len(rows))
	if err != nil {
		t.Fatal(err)
	}
	rounded, err := pcaStream(len(rows), 12, Rows(rows), BoundedDims(len(rows), opt), 0)
	if err != nil {
		t.Fatal(err)
	}
	sampled, err := boundedProjected(t.Context(), rounded, opt, 600)
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, sampled, len(rows), opt.MaxSize)
	// Each row's group: the one it is most probable in.
	hard := func(groups []Group) []int {
		label, best := make([]int, len(rows)), make([]float64, len(rows))
		for gi, g := range groups {
			for i, r := range g.Rows {
				if g.Probs[i] > best[r] {
					label[r], best[r] = gi, g.Probs[i]
				}
			}
		}
		return label
	}
	if a := ari(hard(sampled), hard(whole)); a < 0.99 {
		t.Errorf("a fit on a sample of 600 rows agrees with the fit on all 6000 at ARI %.3f, want >= 0.99", a)
	}
	if a := ari(hard(sampled), labels); a < 0.95 {
		t.Errorf("the sampled fit recovers the blobs at ARI %.3f, want >= 0.95", a)
	}
}

package cluster

import (
	"cmp"
	"fmt"
	"slices"
)

// BoundedOptions configures Bounded.
type BoundedOptions struct {
	// Size is the number of rows a cluster should hold: a set of n rows is fitted with
	// ⌈n/Size⌉ mixture components (at most MaxComponents).
	Size int
	// MaxSize bounds the clusters returned: a cluster with more rows is clustered again on its
	// own (a new PCA and mixture over just its rows), recursively, until every cluster fits. It
	// must be at least Size.
	MaxSize int
	// Dims is the number of principal components every set of rows is reduced to before a fit.
	Dims int
	// MaxComponents bounds the components of one fit. It keeps the cost of the first fit over a
	// large layer in check; the recursion reaches Size from there.
	MaxComponents int
	// Threshold is the soft membership rule: a row joins every component whose posterior
	// probability exceeds it (and its most probable one in any case), as in Membership.
	Threshold float64
	// GMM configures every fit.
	GMM GMMOptions
}

// Group is one cluster returned by Bounded: its rows in increasing order and, for each, the
// probability that it belongs to the cluster (the product of its posterior probabilities along
// the fits that led to the cluster).
type Group struct {
	Rows  []int
	Probs []float64
}

// Bounded clusters rows (embeddings) into groups of about opt.Size rows and never more than
// opt.MaxSize: the rows are reduced by PCA and fitted with a Gaussian mixture of ⌈n/Size⌉
// components, membership is soft (opt.Threshold), and every group still larger than MaxSize is
// clustered again the same way. The number of components comes from the number of rows rather
// than from the lowest BIC: on a large layer, and on the near-uniform offline embeddings in
// particular, BIC prefers a handful of components holding hundreds of rows each, and a summary
// over hundreds of entities is a hub that describes none of them.
//
// When a fit fails to split its rows (one component takes them all, as with identical
// embeddings), the rows are cut into ⌈n/Size⌉ runs along their first principal component
// instead, so the recursion always ends. With fewer than Size+1 rows there is one group of all
// of them. Groups come in a deterministic order (depth first, by component), and the result
// depends only on the rows, the options and opt.GMM.Seed.
func Bounded(rows [][]float32, opt BoundedOptions) ([]Group, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("cluster: Bounded: %w", ErrNoRows)
	}
	if opt.Size < 1 || opt.MaxSize < opt.Size {
		return nil, fmt.Errorf("cluster: Bounded: Size %d and MaxSize %d, want 1 <= Size <= MaxSize", opt.Size, opt.MaxSize)
	}
	if opt.Dims < 1 {
		return nil, fmt.Errorf("cluster: Bounded: Dims %d, want at least 1", opt.Dims)
	}
	if opt.MaxComponents < 2 {
		return nil, fmt.Errorf("cluster: Bounded: MaxComponents %d, want at least 2", opt.MaxComponents)
	}
	all := Group{Rows: make([]int, len(rows)), Probs: make([]float64, len(rows))}
	for i := range all.Rows {
		all.Rows[i] = i
		all.Probs[i] = 1
	}
	b := bounded{rows: rows, opt: opt}
	if err := b.split(all, true); err != nil {
		return nil, fmt.Errorf("cluster: Bounded: %w", err)
	}
	return b.out, nil
}

type bounded struct {
	rows [][]float32
	opt  BoundedOptions
	out  []Group
}

// split clusters g and appends its final groups to b.out. The whole set is always split when it
// holds more than Size rows (force); a group found on the way only when it exceeds MaxSize.
func (b *bounded) split(g Group, force bool) error {
	n := len(g.Rows)
	k := min((n+b.opt.Size-1)/b.opt.Size, b.opt.MaxComponents, n)
	if (!force && n <= b.opt.MaxSize) || k < 2 {
		b.out = append(b.out, g)
		return nil
	}
	sub := make([][]float32, n)
	for i, r := range g.Rows {
		sub[i] = b.rows[r]
	}
	x, err := PCA(sub, min(b.opt.Dims, n-1))
	if err != nil {
		return fmt.Errorf("%d rows: %w", n, err)
	}
	gmm, err := FitGMM(x, k, b.opt.GMM)
	if err != nil {
		return fmt.Errorf("%d rows, %d components: %w", n, k, err)
	}
	probs, err := gmm.Probabilities(x)
	if err != nil {
		return fmt.Errorf("%d rows, %d components: %w", n, k, err)
	}
	parts := make([]Group, gmm.K())
	for i, comps := range membership(probs, b.opt.Threshold) {
		for _, c := range comps {
			parts[c].Rows = append(parts[c].Rows, g.Rows[i])
			parts[c].Probs = append(parts[c].Probs, g.Probs[i]*probs[i][c])
		}
	}
	parts = slices.DeleteFunc(parts, func(p Group) bool { return len(p.Rows) == 0 })
	if slices.ContainsFunc(parts, func(p Group) bool { return len(p.Rows) == n }) {
		parts = cut(g, x, k)
	}
	for _, p := range parts {
		if err := b.split(p, false); err != nil {
			return err
		}
	}
	return nil
}

// cut splits g into k runs of near-equal length along the first principal coordinate x[i][0]
// (ties by row), keeping each row's probability; every run is smaller than g when k >= 2.
func cut(g Group, x [][]float64, k int) []Group {
	n := len(g.Rows)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(x[a][0], x[b][0]), cmp.Compare(g.Rows[a], g.Rows[b]))
	})
	parts := make([]Group, k)
	for j := range parts {
		run := order[j*n/k : (j+1)*n/k]
		slices.SortFunc(run, func(a, b int) int { return cmp.Compare(g.Rows[a], g.Rows[b]) })
		for _, i := range run {
			parts[j].Rows = append(parts[j].Rows, g.Rows[i])
			parts[j].Probs = append(parts[j].Probs, g.Probs[i])
		}
	}
	return parts
}

package cluster

import (
	"cmp"
	"context"
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
	// Dims is the number of principal components the rows are reduced to, once, before the
	// first fit; every fit of the recursion works in these coordinates. (A PCA per fit would
	// follow local structure better, but on the flat spectra of text embeddings each one takes
	// hundreds of subspace iterations, and the recursion makes hundreds of fits.)
	Dims int
	// MaxComponents bounds the components of one fit. It keeps the cost of the first fit over a
	// large layer in check; the recursion reaches Size from there.
	MaxComponents int
	// Threshold is the soft membership rule: a row joins every component whose posterior
	// probability exceeds it (and its most probable one in any case).
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
// components, every group of most probable members still larger than MaxSize is fitted again
// the same way, and the final groups take soft members (opt.Threshold) while they have room. The number of components comes from the number of rows rather
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
	if err := opt.check(); err != nil {
		return nil, err
	}
	x, err := PCA(rows, BoundedDims(len(rows), opt))
	if err != nil {
		return nil, fmt.Errorf("cluster: Bounded: %w", err)
	}
	p, err := NewProjection(x)
	if err != nil {
		return nil, fmt.Errorf("cluster: Bounded: %w", err)
	}
	return BoundedProjected(context.Background(), p, opt) // in memory, not cancelled
}

// BoundedDims is the number of principal components Bounded reduces n rows to.
func BoundedDims(n int, opt BoundedOptions) int { return min(opt.Dims, n-1) }

// BoundedProjected is Bounded over rows already reduced: x must be PCAStream (or PCA) of the
// rows with BoundedDims components. Bounded(rows, opt) equals BoundedProjected of
// NewProjection(PCA(rows, BoundedDims(len(rows), opt))); a caller that cannot hold the rows
// reduces them with PCAStream.
//
// A fit over more than 2^18 rows (the first fit over a layer of millions of entities) is made
// on an even sample of 2^18 of them, and every row then takes the component it is most
// probable in under that fit: thousands of rows per component determine a mixture of at most
// MaxComponents components as well as millions do, at a fraction of the time and memory.
//
// It stops with ctx's error, checked before every fit, when ctx is done: the fits over a layer of
// millions of entities take many minutes.
func BoundedProjected(ctx context.Context, x *Projection, opt BoundedOptions) ([]Group, error) {
	return boundedProjected(ctx, x, opt, fitRows)
}

// fitRows is the most rows one fit of Bounded is made on.
const fitRows = 1 << 18

func boundedProjected(ctx context.Context, x *Projection, opt BoundedOptions, fitRows int) ([]Group, error) {
	if x == nil || x.Len() == 0 {
		return nil, fmt.Errorf("cluster: Bounded: %w", ErrNoRows)
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	all := Group{Rows: make([]int, x.Len()), Probs: make([]float64, x.Len())}
	for i := range all.Rows {
		all.Rows[i] = i
		all.Probs[i] = 1
	}
	b := bounded{ctx: ctx, x: x, opt: opt, fitRows: max(fitRows, opt.MaxComponents)}
	if err := b.split(all, true); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("cluster: Bounded: %w", err)
	}
	return b.out, nil
}

// check refuses options Bounded cannot work with.
func (opt BoundedOptions) check() error {
	if opt.Size < 1 || opt.MaxSize < opt.Size {
		return fmt.Errorf("cluster: Bounded: Size %d and MaxSize %d, want 1 <= Size <= MaxSize", opt.Size, opt.MaxSize)
	}
	if opt.Dims < 1 {
		return fmt.Errorf("cluster: Bounded: Dims %d, want at least 1", opt.Dims)
	}
	if opt.MaxComponents < 2 {
		return fmt.Errorf("cluster: Bounded: MaxComponents %d, want at least 2", opt.MaxComponents)
	}
	return nil
}

type bounded struct {
	ctx     context.Context // stops the recursion, checked before every fit and within it
	x       *Projection     // the rows reduced by PCA
	opt     BoundedOptions
	fitRows int // the most rows a fit is made on
	out     []Group
}

// split clusters g and appends its final groups to b.out. The whole set is always split when it
// holds more than Size rows (force); a group found on the way only when it exceeds MaxSize.
//
// The recursion follows a hard partition (every row goes to its most probable component), so
// the groups' sizes shrink at every level; soft membership is added only to the final groups,
// from the fit that made them, where the posterior probabilities compare like with like.
func (b *bounded) split(g Group, force bool) error {
	n := len(g.Rows)
	k := min((n+b.opt.Size-1)/b.opt.Size, b.opt.MaxComponents, n)
	if (!force && n <= b.opt.MaxSize) || k < 2 {
		b.out = append(b.out, g)
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	sample := g.Rows
	if n > b.fitRows {
		sample = make([]int, b.fitRows)
		for j := range sample {
			sample[j] = g.Rows[j*n/b.fitRows]
		}
	}
	x, err := b.x.gather(sample)
	if err != nil {
		return fmt.Errorf("%d rows: %w", n, err)
	}
	gmm, err := fit(b.ctx, x, len(sample), b.x.Dims(), k, b.opt.GMM)
	if err != nil {
		return fmt.Errorf("%d rows, %d components: %w", n, k, err)
	}
	x, sample = nil, nil
	d := b.x.Dims()
	fill := func(start, end int, dst []float64) {
		for i := start; i < end; i++ {
			b.x.row(g.Rows[i], dst[(i-start)*d:])
		}
	}
	post := gmm.posteriorsFrom(n, b.opt.Threshold, fill, nil)
	// hard[c] holds the local indexes of the rows whose most probable component is c.
	size := make([]int, gmm.K())
	for _, c := range post.best {
		size[c]++
	}
	hard := make([][]int, gmm.K())
	for c := range hard {
		hard[c] = make([]int, 0, size[c])
	}
	for i, c := range post.best {
		hard[c] = append(hard[c], i)
	}
	largest := slices.Max(size)
	// A fit that leaves most rows together (identical or near-identical embeddings) would make
	// the recursion crawl; cutting along the first principal component bounds its depth.
	if largest > 3*n/4 {
		for _, p := range cut(g, b.x, k) {
			if err := b.split(p, false); err != nil {
				return err
			}
		}
		return nil
	}
	// Soft members are kept only for the components whose group is final: on a fit over
	// millions of rows, whose groups all split again, they would outweigh everything else.
	final := func(c int) bool { return size[c] > 0 && size[c] <= b.opt.MaxSize }
	for c := range size {
		if final(c) {
			post.soft = gmm.posteriorsFrom(n, b.opt.Threshold, fill, final).soft
			break
		}
	}
	// Every component's group is settled from the posteriors first: a group still too large to
	// be final, and the final ones with their soft members. Only then does the recursion run, in
	// component order, so that they are not held through it.
	type step struct {
		group Group
		final bool
	}
	steps := make([]step, 0, len(hard))
	for c, h := range hard {
		if len(h) == 0 {
			continue
		}
		if len(h) > b.opt.MaxSize {
			p := Group{Rows: make([]int, len(h)), Probs: make([]float64, len(h))}
			for j, i := range h {
				p.Rows[j], p.Probs[j] = g.Rows[i], g.Probs[i]*post.bestP[i]
			}
			steps = append(steps, step{group: p})
			continue
		}
		steps = append(steps, step{group: b.soft(g, h, c, post), final: true})
	}
	post, hard = posteriors{}, nil
	for i, st := range steps {
		steps[i] = step{} // held by b.out or done with: the recursion need not keep it
		if st.final {
			b.out = append(b.out, st.group)
			continue
		}
		if err := b.split(st.group, false); err != nil {
			return err
		}
	}
	return nil
}

// soft returns the final group of component c: its hard members and, while it has room for
// them under MaxSize, the other rows of g whose probability of c exceeds Threshold, most
// probable first.
func (b *bounded) soft(g Group, hard []int, c int, post posteriors) Group {
	extra := slices.Clone(post.soft[c]) // in row order, none of them in hard
	slices.SortStableFunc(extra, func(a, b softRow) int { return cmp.Compare(b.p, a.p) })
	extra = extra[:min(len(extra), max(0, b.opt.MaxSize-len(hard)))]
	out := Group{Rows: make([]int, 0, len(hard)+len(extra)), Probs: make([]float64, 0, len(hard)+len(extra))}
	type member struct {
		i int
		p float64
	}
	members := make([]member, 0, len(hard)+len(extra))
	for _, i := range hard {
		members = append(members, member{i, post.bestP[i]})
	}
	for _, e := range extra {
		members = append(members, member{int(e.i), e.p})
	}
	slices.SortFunc(members, func(a, b member) int { return cmp.Compare(a.i, b.i) })
	for _, m := range members {
		out.Rows = append(out.Rows, g.Rows[m.i])
		out.Probs = append(out.Probs, g.Probs[m.i]*m.p)
	}
	return out
}

// cut splits g into k runs of near-equal length along the first principal coordinate of its rows
// (x is indexed by row; ties by row), keeping each row's probability; every run is smaller than g when k >= 2.
func cut(g Group, x *Projection, k int) []Group {
	n := len(g.Rows)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(x.at(g.Rows[a], 0), x.at(g.Rows[b], 0)), cmp.Compare(g.Rows[a], g.Rows[b]))
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

package graphalgo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// EdgeSource hands every undirected edge u-v of weight w of a graph to yield, in one order, and
// stops at the first error yield returns, returning it. A source is read more than once (a
// counting pass, then a filling pass) and must give the same edges in the same order each time:
// that is what lets the entity graph of one huge document be built straight from its store
// rows, never held as a list of edges beside its adjacency.
type EdgeSource func(yield func(u, v int32, w float64) error) error

// errSourceChanged reports a source that gave other edges on its second read.
var errSourceChanged = errors.New("edge source gave other edges on its second read")

// NewGraphFromSource builds the graph of n nodes and the edges of src, checking them as
// NewGraphChecked does. Duplicate edges are merged as NewGraph merges them, so the same edges in
// the same order give the same graph, bit for bit, however they are handed over.
func NewGraphFromSource(n int, src EdgeSource) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("negative node count %d", n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("node count %d exceeds the int32 node id range", n)
	}
	return buildCSR(n, src)
}

// buildCSR builds the adjacency of src. Each half-edge is placed in its source's row in edge
// order, every row is then sorted stably by target, and adjacent duplicates are merged in place,
// so duplicate weights are summed in edge order (in float64, rounded once to the stored float32).
// The adjacency is built in its final arrays: a graph of m edges needs no more than its own 16m
// bytes while it is built.
func buildCSR(n int, src EdgeSource) (*Graph, error) {
	g := &Graph{offsets: make([]uint32, n+1)}
	// Row sizes, accumulated into row starts in g.offsets (shifted by one).
	cnt := g.offsets
	i := 0
	err := src(func(u, v int32, w float64) error {
		if u < 0 || int(u) >= n || v < 0 || int(v) >= n {
			return fmt.Errorf("edge %d (%d-%d): node out of range [0, %d)", i, u, v, n)
		}
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("edge %d (%d-%d): invalid weight %v", i, u, v, w)
		}
		i++
		if u == v {
			if g.self == nil {
				g.self = make([]float64, n) // dropped again by finish if every loop weighs 0
			}
			g.self[u] += w
			return nil
		}
		cnt[u+1]++
		cnt[v+1]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	h := 0
	for i := 1; i <= n; i++ {
		h += int(cnt[i])
		if h > math.MaxUint32 {
			return nil, fmt.Errorf("more than %d adjacency entries (twice the edges)", uint32(math.MaxUint32))
		}
		cnt[i] = uint32(h)
	}
	targets := make([]int32, h)
	weights := make([]float32, h)
	next := make([]int32, n) // fill position within each row
	place := func(u, v int32, w float64) bool {
		p := int(cnt[u]) + int(next[u])
		if p >= int(cnt[u+1]) {
			return false
		}
		targets[p], weights[p] = v, float32(w)
		next[u]++
		return true
	}
	filled := 0
	err = src(func(u, v int32, w float64) error {
		if u < 0 || int(u) >= n || v < 0 || int(v) >= n {
			return errSourceChanged
		}
		if u == v {
			return nil
		}
		if !place(u, v, w) || !place(v, u, w) {
			return errSourceChanged
		}
		filled += 2
		return nil
	})
	if err != nil {
		return nil, err
	}
	if filled != h {
		return nil, errSourceChanged
	}
	next = nil
	type half struct {
		t int32
		w float32
	}
	var row []half
	out := 0
	for u := 0; u < n; u++ {
		a, b := int(cnt[u]), int(cnt[u+1])
		if !slices.IsSorted(targets[a:b]) {
			row = row[:0]
			for p := a; p < b; p++ {
				row = append(row, half{targets[p], weights[p]})
			}
			slices.SortStableFunc(row, func(x, y half) int { return cmp.Compare(x.t, y.t) })
			for i, e := range row {
				targets[a+i], weights[a+i] = e.t, e.w
			}
		}
		// cnt and g.offsets are one array: row u starts at out from here on, and cnt[u+1]
		// (read above, before this write to g.offsets[u]) is the end of its input.
		g.offsets[u] = uint32(out)
		for p := a; p < b; {
			// A run of duplicates is summed in float64 from the source's weights rounded to
			// float32, then rounded once.
			t, w := targets[p], float64(weights[p])
			for p++; p < b && targets[p] == t; p++ {
				w += float64(weights[p])
			}
			targets[out], weights[out] = t, float32(w)
			out++
		}
	}
	g.offsets[n] = uint32(out)
	g.targets = slices.Clip(targets[:out])
	g.weights = slices.Clip(weights[:out])
	g.finish()
	return g, nil
}

package graphalgo

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// EdgeList is a list of undirected edges held as parallel arrays: 16 bytes an edge where a
// []Edge takes 24, which matters for the entity graph of one huge document (millions of
// edges). Edge i is U[i]-V[i] with weight W[i].
type EdgeList struct {
	U, V []int32
	W    []float64
}

// Len returns the number of edges.
func (l *EdgeList) Len() int { return len(l.U) }

// Append adds the edge u-v of weight w.
func (l *EdgeList) Append(u, v int32, w float64) {
	l.U, l.V, l.W = append(l.U, u), append(l.V, v), append(l.W, w)
}

// Slice returns the edges [i, j), sharing storage with l.
func (l *EdgeList) Slice(i, j int) EdgeList {
	return EdgeList{U: l.U[i:j:j], V: l.V[i:j:j], W: l.W[i:j:j]}
}

// NewGraphFromList is NewGraphChecked for an EdgeList: the same graph from the same edges in the
// same order, bit for bit.
func NewGraphFromList(n int, edges EdgeList) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("negative node count %d", n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("node count %d exceeds the int32 node id range", n)
	}
	if len(edges.V) != len(edges.U) || len(edges.W) != len(edges.U) {
		return nil, fmt.Errorf("edge list arrays differ in length: %d, %d, %d", len(edges.U), len(edges.V), len(edges.W))
	}
	for i := range edges.U {
		u, v, w := edges.U[i], edges.V[i], edges.W[i]
		if u < 0 || int(u) >= n || v < 0 || int(v) >= n {
			return nil, fmt.Errorf("edge %d (%d-%d): node out of range [0, %d)", i, u, v, n)
		}
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("edge %d (%d-%d): invalid weight %v", i, u, v, w)
		}
	}
	return buildCSR(n, edges), nil
}

// buildCSR builds the adjacency of valid edges. Each half-edge is placed in its source's row in
// edge order, every row is then sorted stably by target, and adjacent duplicates are merged in
// place, so duplicate weights are summed in edge order. The adjacency is built in its final
// arrays: a graph of m edges needs no more than its own 24m bytes while it is built.
func buildCSR(n int, edges EdgeList) *Graph {
	g := &Graph{
		offsets:  make([]int, n+1),
		self:     make([]float64, n),
		strength: make([]float64, n),
	}
	// Row sizes, accumulated into row starts in g.offsets (shifted by one).
	cnt := g.offsets
	for i, u := range edges.U {
		v := edges.V[i]
		if u == v {
			g.self[u] += edges.W[i]
			continue
		}
		cnt[u+1]++
		cnt[v+1]++
	}
	for i := 1; i <= n; i++ {
		cnt[i] += cnt[i-1]
	}
	h := cnt[n]
	targets := make([]int32, h)
	weights := make([]float64, h)
	next := make([]int32, n) // fill position within each row
	for i, u := range edges.U {
		v, w := edges.V[i], edges.W[i]
		if u == v {
			continue
		}
		p := cnt[u] + int(next[u])
		targets[p], weights[p] = v, w
		next[u]++
		p = cnt[v] + int(next[v])
		targets[p], weights[p] = u, w
		next[v]++
	}
	next = nil
	type half struct {
		t int32
		w float64
	}
	var row []half
	out := 0
	for u := 0; u < n; u++ {
		a, b := cnt[u], cnt[u+1]
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
		g.offsets[u] = out
		start := out
		for p := a; p < b; p++ {
			if out > start && targets[out-1] == targets[p] {
				weights[out-1] += weights[p]
				continue
			}
			targets[out], weights[out] = targets[p], weights[p]
			out++
		}
	}
	g.offsets[n] = out
	g.targets = slices.Clip(targets[:out])
	g.weights = slices.Clip(weights[:out])
	g.finish()
	return g
}

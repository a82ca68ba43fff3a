// Package graphalgo holds the graph algorithms that strata's embedded store needs and that the
// Neo4j backend delegates to GDS: hierarchical Leiden community detection, weakly connected
// components and shortest paths. The package is self-contained: it depends on the standard
// library only, so it can be tested and benchmarked against reference implementations on its own.
//
// All algorithms work on Graph, an undirected weighted graph stored in compressed sparse row
// (CSR) form. Nodes are the integers 0..NumNodes()-1; callers map their own identifiers onto
// them.
package graphalgo

import (
	"fmt"
	"math"
)

// Edge is an undirected edge between nodes U and V with weight W. An edge with U == V is a
// self-loop.
type Edge struct {
	U, V int
	W    float64
}

// Graph is an undirected weighted graph in CSR form. Duplicate edges are merged (their weights
// summed) and self-loops are kept as a weight on the node rather than in the adjacency, so that
// Neighbors never returns the node itself. A Graph is immutable once built and safe for
// concurrent readers.
//
// Edge weights are stored as float32, then summed and compared in float64: the adjacency is most
// of the memory of a graph of millions of nodes, and a weight rounded to 7 significant digits can
// at most break a near tie of Leiden another way (on the 2 MiB adversarial test document a few
// fine communities differ from those of float64 weights; the graphs of the test corpora give the
// same ones). Strengths, self-loops and totals are float64, accumulated from the stored weights,
// so that modularity agrees with the adjacency. A graph built from edges keeps no strengths: a
// node's is summed from its row when asked, in the order it always was (8 bytes a node less; a
// row is a few contiguous weights, read next to the neighbours' far more costly lookups).
//
// Weighted degrees follow the usual convention for modularity: a self-loop of weight w adds 2w to
// the strength of its node, and the total weight counts it once.
type Graph struct {
	offsets  []uint32  // row u of the adjacency is targets[offsets[u]:offsets[u+1]]
	targets  []int32   // neighbour ids, sorted by id within a row for graphs built by NewGraph
	weights  []float32 // weights parallel to targets
	self     []float64 // self-loop weight per node; nil when the graph has none
	strength []float64 // weighted degree per node, self-loops counted twice; nil: from the rows
	total    float64   // sum of all edge weights, each undirected edge and self-loop once
	loops    int       // number of nodes with a self-loop
}

// NewGraph builds a graph with n nodes from edges. Duplicate edges (in either orientation) are
// merged by summing their weights. It panics if an edge refers to a node outside [0, n) or has a
// negative, infinite or NaN weight; use NewGraphChecked for input that has not been validated.
func NewGraph(n int, edges []Edge) *Graph {
	g, err := NewGraphChecked(n, edges)
	if err != nil {
		panic("graphalgo: " + err.Error())
	}
	return g
}

// NewGraphChecked is like NewGraph but reports invalid input as an error instead of panicking.
func NewGraphChecked(n int, edges []Edge) (*Graph, error) {
	if n < 0 {
		return nil, fmt.Errorf("negative node count %d", n)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("node count %d exceeds the int32 node id range", n)
	}
	for i, e := range edges {
		if e.U < 0 || e.U >= n || e.V < 0 || e.V >= n {
			return nil, fmt.Errorf("edge %d (%d-%d): node out of range [0, %d)", i, e.U, e.V, n)
		}
		if e.W < 0 || math.IsNaN(e.W) || math.IsInf(e.W, 0) {
			return nil, fmt.Errorf("edge %d (%d-%d): invalid weight %v", i, e.U, e.V, e.W)
		}
	}
	return buildCSR(n, edgesSource(edges))
}

// edgesSource is the EdgeSource of edges, in order; their ends must fit in int32.
func edgesSource(edges []Edge) EdgeSource {
	return func(yield func(u, v int32, w float64) error) error {
		for _, e := range edges {
			if err := yield(int32(e.U), int32(e.V), e.W); err != nil {
				return err
			}
		}
		return nil
	}
}

// finish computes the total weight from the adjacency and self-loops, and drops the self-loop
// weights of a graph that has none (8 bytes a node of a graph of millions).
func (g *Graph) finish() {
	n := g.NumNodes()
	var twice float64
	g.loops = 0
	for u := range n {
		if g.SelfLoop(u) != 0 {
			g.loops++
		}
		twice += g.rowStrength(u)
	}
	g.total = twice / 2
	if g.loops == 0 {
		g.self = nil
	}
}

// rowStrength sums the strength of u from its self-loop and its row.
func (g *Graph) rowStrength(u int) float64 {
	s := 2 * g.SelfLoop(u)
	for _, w := range g.weights[g.offsets[u]:g.offsets[u+1]] {
		s += float64(w)
	}
	return s
}

// NumNodes returns the number of nodes.
func (g *Graph) NumNodes() int { return max(len(g.offsets)-1, 0) }

// NumEdges returns the number of distinct undirected edges, self-loops (of non-zero weight)
// included, which is how networkx and igraph count the edges of a simple graph.
func (g *Graph) NumEdges() int { return len(g.targets)/2 + g.loops }

// Neighbors returns the neighbours of u and the weights of the edges to them. Self-loops are not
// included (see SelfLoop). The slices alias the graph's storage and must not be modified.
func (g *Graph) Neighbors(u int) (targets []int32, weights []float32) {
	a, b := g.offsets[u], g.offsets[u+1]
	return g.targets[a:b:b], g.weights[a:b:b]
}

// Degree returns the number of distinct neighbours of u.
func (g *Graph) Degree(u int) int { return int(g.offsets[u+1] - g.offsets[u]) }

// SelfLoop returns the weight of the self-loop on u, 0 if there is none.
func (g *Graph) SelfLoop(u int) float64 {
	if g.self == nil {
		return 0
	}
	return g.self[u]
}

// Strength returns the weighted degree of u, with its self-loop counted twice.
func (g *Graph) Strength(u int) float64 {
	if g.strength == nil {
		return g.rowStrength(u)
	}
	return g.strength[u]
}

// TotalWeight returns the sum of the weights of all edges, each self-loop counted once. It is the
// m of the modularity formula.
func (g *Graph) TotalWeight() float64 { return g.total }

// Edges returns every edge once with U <= V: node by node, its self-loop (if it has one) and then
// its edges to higher-numbered neighbours. It allocates a new slice.
func (g *Graph) Edges() []Edge {
	out := make([]Edge, 0, len(g.targets)/2+g.loops)
	for u := range g.NumNodes() {
		if w := g.SelfLoop(u); w != 0 {
			out = append(out, Edge{U: u, V: u, W: w})
		}
		ts, ws := g.Neighbors(u)
		for i, v := range ts {
			if int(v) > u {
				out = append(out, Edge{U: u, V: int(v), W: float64(ws[i])})
			}
		}
	}
	return out
}

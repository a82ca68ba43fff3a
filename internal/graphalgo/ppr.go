package graphalgo

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// PPROptions are the parameters of PersonalizedPageRank, named as GDS names them
// (gds.pageRank: dampingFactor, maxIterations, tolerance), since the Neo4j backend runs the same
// computation there and both must rank alike.
type PPROptions struct {
	// Damping is the probability of following an edge rather than restarting at a seed.
	Damping float64
	// MaxIterations caps the supersteps: superstep 0 sends the seeds' scores, each later one
	// adds what arrived and passes it on, so MaxIterations-1 steps of propagation are counted.
	MaxIterations int
	// Tolerance: a node whose score grew by at most this in a superstep stops passing its
	// increment on (GDS's per-node convergence test). 0 propagates every increment.
	Tolerance float64
}

// Seed is a node the walk restarts at, with its share of the restarts.
type Seed struct {
	Node   int
	Weight float64
}

// PersonalizedPageRank returns the personalized PageRank score of every node of g, restarting
// at seeds in proportion to their weights (summed when a node is given twice; non-positive and
// out-of-range seeds are ignored). Edges are followed in both directions in proportion to their
// weight; a node's self-loop is not followed.
//
// The computation is the one GDS 2.13's gds.pageRank runs with sourceNodes (PageRankComputation,
// a Pregel program), generalised from a set of equally weighted sources to weighted ones: every
// seed starts at (1-Damping)·weight, and in each superstep every node that grew by more than
// Tolerance passes Damping times its growth to its neighbours, split by edge weight. The score
// is the sum of its growths, so it is linear in the seed weights: GDS, which takes only sets of
// sources, gives the same scores as a weighted sum of one run per distinct weight (with
// Tolerance 0 exactly; otherwise the cut-offs differ by at most Tolerance per node). Scores are
// not normalised and mass reaching a node without edges stays there.
//
// Senders are visited in node order and each passes to its neighbours in adjacency order, so
// the floating-point sums, and hence the scores, are the same on every run. A superstep costs
// the edges of the nodes still growing, not the whole graph.
func PersonalizedPageRank(g *Graph, seeds []Seed, opt PPROptions) ([]float64, error) {
	if !(opt.Damping >= 0 && opt.Damping < 1) {
		return nil, fmt.Errorf("ppr: damping %v outside [0, 1)", opt.Damping)
	}
	if opt.MaxIterations < 1 {
		return nil, fmt.Errorf("ppr: max iterations %d < 1", opt.MaxIterations)
	}
	if opt.Tolerance < 0 || math.IsNaN(opt.Tolerance) {
		return nil, fmt.Errorf("ppr: negative tolerance %v", opt.Tolerance)
	}
	n := g.NumNodes()
	score := make([]float64, n)
	delta := make([]float64, n) // growth of the last superstep, what a node passes on
	var active []int32          // nodes that pass their growth on in the next superstep
	for _, s := range seeds {
		if s.Node < 0 || s.Node >= n || !(s.Weight > 0) || math.IsInf(s.Weight, 1) {
			continue
		}
		if delta[s.Node] == 0 {
			active = append(active, int32(s.Node))
		}
		delta[s.Node] += (1 - opt.Damping) * s.Weight
	}
	slices.Sort(active)
	for _, u := range active {
		score[u] = delta[u]
	}
	// Superstep 0 sends every seed's start whatever its size (GDS's initial superstep does);
	// later ones only growths above the tolerance.
	inbox := make([]float64, n)
	stamp := make([]int32, n) // stamp[v] == step+1: v received something in this step
	var received []int32
	for step := 1; step < opt.MaxIterations && len(active) > 0; step++ {
		received = received[:0]
		for _, u := range active {
			nbrs, ws := g.Neighbors(int(u))
			var deg float64
			for _, w := range ws {
				deg += float64(w)
			}
			if deg <= 0 {
				continue
			}
			share := delta[u] / deg
			for i, v := range nbrs {
				if stamp[v] != int32(step) {
					stamp[v] = int32(step)
					inbox[v] = 0
					received = append(received, v)
				}
				inbox[v] += share * float64(ws[i])
			}
		}
		for _, u := range active {
			delta[u] = 0
		}
		// The receivers in node order: sorted when few, else read off the stamps, which costs
		// a pass over the nodes but no n·log n sort once the walk has spread.
		if len(received) < n/16 {
			slices.Sort(received)
		} else {
			received = received[:0]
			for v := range n {
				if stamp[v] == int32(step) {
					received = append(received, int32(v))
				}
			}
		}
		active = active[:0]
		for _, v := range received {
			d := opt.Damping * inbox[v]
			score[v] += d
			delta[v] = d
			if d > opt.Tolerance {
				active = append(active, v)
			}
		}
	}
	return score, nil
}

// PPRRound is the precision scores are compared at when PersonalizedPageRank's results are
// ranked: two nodes a graph's symmetry gives the same score can differ in the last bits
// depending on the order their sums were taken in (GDS sums messages in parallel), and ranks
// must not depend on that. Seeds' weights summing to 1, scores are at most 1, and 1e-9 keeps the
// digits that order the nodes any walk from the seeds reaches.
const PPRRound = 1e9

// RoundPPR rounds a score to PPRRound, half away from zero, as Cypher's round(x, 9) does.
func RoundPPR(s float64) float64 { return math.Round(s*PPRRound) / PPRRound }

// TopNodes returns up to k of the nodes keep accepts with a positive score, best first by their
// score rounded (RoundPPR), then by less (a caller's order of ids: nodes numbered in id order
// pass cmp.Compare).
func TopNodes(score []float64, k int, keep func(v int) bool, less func(a, b int) int) []int {
	var out []int
	for v, s := range score {
		if RoundPPR(s) > 0 && (keep == nil || keep(v)) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b int) int {
		return cmp.Or(cmp.Compare(RoundPPR(score[b]), RoundPPR(score[a])), less(a, b))
	})
	return out[:min(k, len(out))]
}

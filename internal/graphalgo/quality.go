package graphalgo

import (
	"maps"
	"math"
	"slices"
)

// Modularity returns the modularity of the partition membership of g with resolution gamma:
//
//	Q = Σ_c [ L_c/m − gamma·(K_c/2m)² ]
//
// where m is the total edge weight, L_c the weight of the edges inside community c (self-loops
// included) and K_c the total strength of its nodes. This is the definition used by networkx,
// igraph and leidenalg. Community ids may be any integers; len(membership) must equal
// g.NumNodes(). A graph without edge weight has modularity 0 by convention.
func Modularity(g *Graph, membership []int, gamma float64) float64 {
	n := g.NumNodes()
	if len(membership) != n {
		panic("graphalgo: Modularity: membership length differs from node count")
	}
	part, nc := denseLabels(membership)
	return modularityDense(g, part, nc, gamma)
}

// denseLabels renumbers arbitrary integer labels as 0..k-1 in order of first appearance.
func denseLabels(labels []int) ([]int32, int) {
	out := make([]int32, len(labels))
	// Fast path: labels already in [0, len) need no map.
	inRange := true
	for _, c := range labels {
		if c < 0 || c >= len(labels) {
			inRange = false
			break
		}
	}
	if inRange {
		ids := make([]int32, len(labels))
		for i := range ids {
			ids[i] = -1
		}
		k := int32(0)
		for i, c := range labels {
			if ids[c] < 0 {
				ids[c] = k
				k++
			}
			out[i] = ids[c]
		}
		return out, int(k)
	}
	ids := make(map[int]int32)
	for i, c := range labels {
		id, ok := ids[c]
		if !ok {
			id = int32(len(ids))
			ids[c] = id
		}
		out[i] = id
	}
	return out, len(ids)
}

// NMI returns the normalised mutual information between two partitions of the same items,
// 2·I(a;b) / (H(a)+H(b)) (the arithmetic normalisation of Danon et al., as in igraph's
// compare_communities and scikit-learn's default). Labels may be any integers. Two partitions
// that both put everything in one group are identical and get 1. It panics if the lengths
// differ.
func NMI(a, b []int) float64 {
	if len(a) != len(b) {
		panic("graphalgo: NMI: partitions of different length")
	}
	n := len(a)
	if n == 0 {
		return 1
	}
	pa, ka := denseLabels(a)
	pb, kb := denseLabels(b)
	ca := make([]float64, ka)
	cb := make([]float64, kb)
	joint := make(map[uint64]float64)
	for i := range pa {
		ca[pa[i]]++
		cb[pb[i]]++
		joint[uint64(pa[i])<<32|uint64(pb[i])]++
	}
	fn := float64(n)
	entropy := func(counts []float64) float64 {
		var h float64
		for _, c := range counts {
			p := c / fn
			h -= p * math.Log(p)
		}
		return h
	}
	ha, hb := entropy(ca), entropy(cb)
	if ha+hb == 0 {
		return 1
	}
	// Sum in key order so that the result does not depend on map iteration order.
	var mi float64
	for _, key := range slices.Sorted(maps.Keys(joint)) {
		c := joint[key]
		x, y := ca[key>>32], cb[key&0xffffffff]
		mi += c / fn * math.Log(c*fn/(x*y))
	}
	nmi := 2 * mi / (ha + hb)
	return min(max(nmi, 0), 1)
}

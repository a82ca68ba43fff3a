package graphalgo

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/stratarag/strata/internal/cluster"
	"github.com/stratarag/strata/internal/vectorindex"
)

// Nearest neighbours of a large set are approximate (ApproxKNN): an exact search is n²·d
// multiply-adds, 150 G for the mix corpus's 20 k entities of 384 dimensions (7 minutes on two
// cores). Above
// exactKNNMACs the vectors are projected on their knnReducedDims principal components, the
// knnCandidates·k nearest there are found exactly, and those are ranked again by their full
// similarity (the cutoff applies to it). GDS's gds.knn, on Neo4j, is approximate too.
const (
	exactKNNMACs   = 2e9
	knnReducedDims = 32
	knnCandidates  = 3
)

// ApproxKNN returns the k nearest neighbours of every unit vector (best first, ties by lower
// index) with similarity at least cutoff, on KNN's (1+cos)/2 scale: exact (KNN) for small sets,
// through a PCA projection for large ones. It is what the embedded store's attributed
// communities link by, where GDS's gds.knn does on Neo4j.
func ApproxKNN(unit [][]float32, k int, cutoff float64) [][]Neighbor {
	return approxKNNAbove(unit, k, cutoff, exactKNNMACs)
}

// approxKNNAbove is ApproxKNN with the size from which the search is approximate.
func approxKNNAbove(unit [][]float32, k int, cutoff, exactMACs float64) [][]Neighbor {
	n := len(unit)
	d := 0
	if n > 0 {
		d = len(unit[0])
	}
	workers := runtime.GOMAXPROCS(0)
	if float64(n)*float64(n)*float64(d) <= exactMACs || d <= knnReducedDims {
		return KNN(unit, k, cutoff, workers)
	}
	reduced, err := cluster.PCA(unit, knnReducedDims)
	if err != nil {
		return KNN(unit, k, cutoff, workers) // slow but exact
	}
	rows := make([][]float32, n)
	for i, r := range reduced {
		rows[i] = make([]float32, len(r))
		for j, v := range r {
			rows[i][j] = float32(v)
		}
	}
	cands := KNN(rows, knnCandidates*k, 0, workers)
	out := make([][]Neighbor, n)
	for i, cs := range cands {
		ns := make([]Neighbor, 0, len(cs))
		for _, c := range cs {
			if len(unit[i]) != len(unit[c.Node]) {
				continue
			}
			if sim := (1 + vectorindex.Dot(unit[i], unit[c.Node])) / 2; sim >= cutoff {
				ns = append(ns, Neighbor{Node: c.Node, Sim: sim})
			}
		}
		slices.SortStableFunc(ns, func(a, b Neighbor) int {
			return cmp.Or(cmp.Compare(b.Sim, a.Sim), cmp.Compare(a.Node, b.Node))
		})
		out[i] = ns[:min(k, len(ns))]
	}
	return out
}

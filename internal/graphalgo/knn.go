package graphalgo

import (
	"math"
	"sync"
)

// Neighbor is one of a node's nearest neighbours: its index and its similarity.
type Neighbor struct {
	Node int
	Sim  float64
}

// KNN returns, for every vector, its k nearest other vectors by cosine similarity with
// similarity at least cutoff, best first (ties by lower index). Similarities are on the (1+cos)/2
// scale of Neo4j's vector functions, so that thresholds mean the same on both backends. A zero
// vector is similar to nothing (similarity 0.5). The search is exact, O(n²·d), spread over
// workers goroutines (1 when workers < 1); the result does not depend on workers. It is what
// GDS's gds.knn approximates on the Neo4j backend.
func KNN(vectors [][]float32, k int, cutoff float64, workers int) [][]Neighbor {
	n := len(vectors)
	out := make([][]Neighbor, n)
	if k <= 0 || n < 2 {
		return out
	}
	unit := make([][]float32, n)
	for i, v := range vectors {
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		u := make([]float32, len(v))
		if norm > 0 {
			inv := float32(1 / math.Sqrt(norm))
			for j, x := range v {
				u[j] = x * inv
			}
		}
		unit[i] = u
	}
	workers = max(1, min(workers, n))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				out[i] = nearest(unit, i, k, cutoff)
			}
		}()
	}
	wg.Wait()
	return out
}

// nearest keeps the k best neighbours of node i in a list sorted best first.
func nearest(unit [][]float32, i, k int, cutoff float64) []Neighbor {
	best := make([]Neighbor, 0, k+1)
	a := unit[i]
	for j, b := range unit {
		if j == i || len(b) != len(a) {
			continue
		}
		sim := (1 + dot32(a, b)) / 2
		if sim < cutoff || (len(best) == k && sim <= best[k-1].Sim) {
			continue
		}
		// Insert after every neighbour at least as similar: equal similarities keep index order.
		pos := len(best)
		for pos > 0 && best[pos-1].Sim < sim {
			pos--
		}
		best = append(best, Neighbor{})
		copy(best[pos+1:], best[pos:])
		best[pos] = Neighbor{Node: j, Sim: sim}
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// dot32 is the inner product of two vectors of one length, over four independent sums, which
// keeps the CPU's pipelines busy (about twice as fast as one sum).
func dot32(a, b []float32) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64((s0 + s1) + (s2 + s3))
}

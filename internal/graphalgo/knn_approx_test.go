package graphalgo

import (
	"math/rand/v2"
	"testing"

	"github.com/stratarag/strata/internal/vectorindex"
)

// TestApproxKNN: on clustered vectors, the PCA-projected search finds most of the
// exact neighbours, scores each with its full similarity, keeps the cutoff and at most k.
func TestApproxKNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n, d, k, cutoff = 400, 96, 5, 0.55
	centres := make([][]float32, 20)
	for c := range centres {
		centres[c] = make([]float32, d)
		for j := range centres[c] {
			centres[c][j] = float32(rng.NormFloat64())
		}
	}
	unit := make([][]float32, n)
	for i := range unit {
		v := make([]float32, d)
		for j := range v {
			v[j] = centres[i%len(centres)][j] + 0.5*float32(rng.NormFloat64())
		}
		unit[i] = vectorindex.Normalized(v)
	}
	exact := KNN(unit, k, cutoff, 2)
	approx := approxKNNAbove(unit, k, cutoff, 0)
	found, total := 0, 0
	for i := range unit {
		if len(approx[i]) > k {
			t.Fatalf("node %d: %d neighbours, want at most %d", i, len(approx[i]), k)
		}
		want := map[int]bool{}
		for _, nb := range exact[i] {
			want[nb.Node] = true
		}
		total += len(want)
		for j, nb := range approx[i] {
			if sim := (1 + vectorindex.Dot(unit[i], unit[nb.Node])) / 2; nb.Sim != sim || sim < cutoff || nb.Node == i {
				t.Fatalf("node %d: neighbour %+v, full similarity %v, cutoff %v", i, nb, sim, cutoff)
			}
			if j > 0 && nb.Sim > approx[i][j-1].Sim {
				t.Fatalf("node %d: neighbours not best first: %v", i, approx[i])
			}
			if want[nb.Node] {
				found++
			}
		}
	}
	if recall := float64(found) / float64(total); recall < 0.8 {
		t.Errorf("approximate search found %.2f of the exact neighbours, want at least 0.8", recall)
	} else {
		t.Logf("recall of the exact neighbours: %.3f", recall)
	}
}

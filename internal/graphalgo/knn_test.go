package graphalgo

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

func TestKNN(t *testing.T) {
	vecs := [][]float32{{1, 0}, {0.9, 0.1}, {0, 1}, {-1, 0}, {0, 0}}
	tests := []struct {
		name   string
		k      int
		cutoff float64
		want   [][]int // neighbour indexes per node
	}{
		{"k=1", 1, 0, [][]int{{1}, {0}, {1}, {2}, {0}}},
		{"k=2", 2, 0, [][]int{{1, 2}, {0, 2}, {1, 0}, {2, 4}, {0, 1}}},
		{"cutoff drops the opposite and the zero vector", 3, 0.6, [][]int{{1}, {0}, nil, nil, nil}},
		{"k=0", 0, 0, [][]int{nil, nil, nil, nil, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := KNN(vecs, tc.k, tc.cutoff, 2)
			ids := make([][]int, len(got))
			for i, ns := range got {
				for _, n := range ns {
					ids[i] = append(ids[i], n.Node)
				}
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("got %v, want %v", ids, tc.want)
			}
		})
	}
}

// TestKNNBruteForce compares KNN with sorting every pair, for several worker counts.
func TestKNNBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, 60)
	for i := range vecs {
		vecs[i] = make([]float32, 8)
		for d := range vecs[i] {
			vecs[i][d] = float32(rng.NormFloat64())
		}
	}
	cos := func(a, b []float32) float64 {
		var dot, na, nb float64
		for i := range a {
			dot += float64(a[i]) * float64(b[i])
			na += float64(a[i]) * float64(a[i])
			nb += float64(b[i]) * float64(b[i])
		}
		return (1 + dot/math.Sqrt(na*nb)) / 2
	}
	for _, workers := range []int{1, 3} {
		got := KNN(vecs, 5, 0.55, workers)
		for i := range vecs {
			var want []Neighbor
			for j := range vecs {
				if s := cos(vecs[i], vecs[j]); j != i && s >= 0.55 {
					want = append(want, Neighbor{j, s})
				}
			}
			sort.SliceStable(want, func(a, b int) bool { return want[a].Sim > want[b].Sim })
			want = want[:min(5, len(want))]
			if len(got[i]) != len(want) {
				t.Fatalf("workers %d node %d: %d neighbours, want %d", workers, i, len(got[i]), len(want))
			}
			for n := range want {
				if got[i][n].Node != want[n].Node || math.Abs(got[i][n].Sim-want[n].Sim) > 1e-5 {
					t.Fatalf("workers %d node %d: got %v, want %v", workers, i, got[i], want)
				}
			}
		}
	}
}

package vectorindex

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stratarag/strata/internal/graph"
)

// TestDot4MatchesDot: the four-row kernel (AVX2 where the CPU has it) and its Go twin give
// exactly dot's result for every row, so that a search ranks the same wherever it runs.
func TestDot4MatchesDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{8, 16, 384, 1536} {
		t.Run(fmt.Sprintf("dim=%d", dim), func(t *testing.T) {
			for range 50 {
				q := Normalized(randomVector(rng, dim))
				rows := make([]float32, 0, 4*dim)
				for range 4 {
					rows = append(rows, Normalized(randomVector(rng, dim))...)
				}
				var kernel, twin [32]float32
				dot4AVX2(&q[0], &rows[0], dim, &kernel)
				dot4Lanes(q, rows, dim, &twin)
				for r := range 4 {
					want := Dot(q, rows[r*dim:(r+1)*dim])
					if got := lanesDot(twin[8*r : 8*r+8]); got != want {
						t.Fatalf("row %d: dot4Lanes gives %v, dot %v", r, got, want)
					}
					if hasDot4 {
						if got := lanesDot(kernel[8*r : 8*r+8]); got != want {
							t.Fatalf("row %d: dot4AVX2 gives %v, dot %v", r, got, want)
						}
					}
				}
			}
		})
	}
}

// TestSearchMatchesBruteForce: search (split over CPUs, four rows at a time, a tail of fewer
// rows) returns the k best of all vectors by score, then id, scored with dot.
func TestSearchMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{1, 7, 1001, 6003} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			const dim = 384
			set := &Set{dim: dim}
			for i := range n {
				set.ids = append(set.ids, fmt.Sprintf("v%05d", (i*7919)%n))
				v := Normalized(randomVector(rng, dim))
				if i%10 == 3 && i > 0 {
					v = set.vecs[(i-1)*dim : i*dim] // equal scores: the ids decide
				}
				set.vecs = append(set.vecs, v...)
			}
			q := Normalized(randomVector(rng, dim))
			all := make([]graph.Hit, n)
			for i := range n {
				all[i] = graph.Hit{ID: set.ids[i], Score: (1 + Dot(q, set.vecs[i*dim:(i+1)*dim])) / 2}
			}
			slices.SortFunc(all, func(a, b graph.Hit) int { return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID, b.ID)) })
			for _, k := range []int{1, 20, 200} {
				if got, want := set.Search(q, k), all[:min(k, n)]; !reflect.DeepEqual(got, want) {
					t.Errorf("k=%d: search differs from sorting every score", k)
				}
			}
		})
	}
}

// BenchmarkDot compares scoring 512 rows of 384 dimensions with dot and with dot4AVX2: rows that
// stay in the CPU's cache, so this is the kernels' own speed (5-6x apart on the project's
// machine). A whole index (20 k rows are 30 MB) is read from memory, which narrows the gap to
// what the memory bus allows.
func BenchmarkDot(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n, dim = 512, 384
	q := Normalized(randomVector(rng, dim))
	rows := make([]float32, 0, n*dim)
	for range n {
		rows = append(rows, Normalized(randomVector(rng, dim))...)
	}
	var sink float64
	b.Run("dot", func(b *testing.B) {
		for b.Loop() {
			for i := range n {
				sink += Dot(q, rows[i*dim:(i+1)*dim])
			}
		}
	})
	b.Run("dot4", func(b *testing.B) {
		if !hasDot4 {
			b.Skip("no AVX2")
		}
		var lanes [32]float32
		for b.Loop() {
			for i := 0; i < n; i += 4 {
				dot4AVX2(&q[0], &rows[i*dim], dim, &lanes)
				for r := range 4 {
					sink += lanesDot(lanes[8*r : 8*r+8])
				}
			}
		}
	})
	_ = sink
}

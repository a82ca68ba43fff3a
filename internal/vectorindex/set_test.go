package vectorindex

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestParallelSearchIsExact checks that splitting a large search over CPUs returns exactly the
// single scan's hits, ties (equal vectors under different ids) included.
func TestParallelSearchIsExact(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(12, 13))
	const n, dim = 40000, 128 // n*dim ≥ parallelSearchMACs: search splits
	set := &Set{dim: dim}
	for i := range n {
		set.ids = append(set.ids, fmt.Sprintf("e%06d", (i*7919)%n)) // ids not in row order
		if i%10 == 9 {
			set.vecs = append(set.vecs, set.vecs[(i-1)*dim:i*dim]...) // a tie with the row before
			continue
		}
		set.vecs = append(set.vecs, Normalized(randomVector(rng, dim))...)
	}
	for range 5 {
		q := Normalized(randomVector(rng, dim))
		for _, k := range []int{1, 20, 100} {
			got, want := set.Search(q, k), set.searchRange(q, k, 0, n)
			if !slices.Equal(got, want) || len(got) != k {
				t.Fatalf("k=%d: parallel search %v, one scan %v", k, got, want)
			}
		}
	}
}

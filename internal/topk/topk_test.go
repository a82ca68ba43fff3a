package topk

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOfIsSortedPrefix checks that Of gives what sorting a copy puts first, for every k including
// none, more than there are items, and all (k < 0).
func TestOfIsSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 4, 5, 6, 50, 1000} {
		values := make([]int, n)
		for i := range values {
			values[i] = rng.IntN(40) // ties, broken below by position
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		byValue := func(a, b int) int { return cmp.Or(cmp.Compare(values[a], values[b]), cmp.Compare(a, b)) }
		sorted := slices.SortedFunc(slices.Values(idx), byValue)
		for _, k := range []int{0, 1, 5, n + 1, -1} {
			want := sorted
			if k >= 0 {
				want = sorted[:min(k, n)]
			}
			shuffled := slices.Clone(idx)
			rng.Shuffle(n, func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			if got := Of(shuffled, k, byValue); !slices.Equal(got, want) {
				t.Errorf("n=%d k=%d: %v, want %v", n, k, got, want)
			}
		}
	}
}

func ExampleOf() {
	weights := []int{7, 3, 9, 3, 1}
	fmt.Println(Of(weights, 3, func(a, b int) int { return cmp.Compare(b, a) })) // heaviest first
	// Output: [9 7 3]
}

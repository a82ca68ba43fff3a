package vectorindex

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkExactSearch measures one exact top-20 search over n normalized 384-dimension vectors:
// the whole cost of an entity vector search once the vectors are loaded; "half" is the same
// search through the half-precision copy (WithHalf).
func BenchmarkExactSearch(b *testing.B) {
	for _, n := range []int{20000, 200000} {
		rng := rand.New(rand.NewPCG(3, 4))
		set := &Set{dim: 384, ids: make([]string, n), vecs: make([]float32, 0, n*384)}
		for i := range n {
			set.ids[i] = fmt.Sprintf("e%07d", i)
			set.vecs = append(set.vecs, Normalized(randomVector(rng, 384))...)
		}
		q := Normalized(randomVector(rng, 384))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				set.Search(q, 20)
			}
		})
		b.Run(fmt.Sprintf("n=%d/half", n), func(b *testing.B) {
			if !hasDot4Half {
				b.Skip("no F16C")
			}
			half := *set
			half.half = halfOf(set.vecs)
			for b.Loop() {
				half.Search(q, 20)
			}
		})
	}
}

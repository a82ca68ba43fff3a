package layers

// SpillEdgesFrom makes b keep layer 0's relations in a temporary file from n of them on.
func SpillEdgesFrom(b *Builder, n int) { b.spillAt = n }

// HoldEmbeddingsUpTo makes b hold a layer's embeddings between the passes of its clustering
// when they take n bytes or fewer, and read them from the store in every pass otherwise.
func HoldEmbeddingsUpTo(b *Builder, n int) { b.holdAt = n }

// Threshold is threshold over the counts themselves.
func Threshold(counts []int, k float64) float64 {
	hist := map[int]int{}
	for _, c := range counts {
		hist[c]++
	}
	return threshold(hist, k)
}

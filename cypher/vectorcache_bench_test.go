package cypher

import (
	"math/rand"
	"strconv"
	"testing"
)

// BenchmarkResidentVectorsSearch: one exact search of hi mode's 200 candidates among the mix
// corpus's count of entity vectors (384 dimensions, as the hashing embedder's).
func BenchmarkResidentVectorsSearch(b *testing.B) {
	const n, dim = 22801, 384
	r := rand.New(rand.NewSource(1))
	v := &residentVectors{dim: dim, loaded: true}
	for i := 0; i < n; i++ {
		v.ids = append(v.ids, strconv.Itoa(i))
		v.norms = append(v.norms, 1)
		for j := 0; j < dim; j++ {
			v.vecs = append(v.vecs, r.Float32())
		}
	}
	q := make([]float32, dim)
	for j := range q {
		q[j] = r.Float32()
	}
	for b.Loop() {
		v.search(q, 200)
	}
}

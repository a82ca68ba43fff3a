package vectorindex

import "math/rand/v2"

// randomVector is a vector of dim standard normal components (a uniformly random direction).
func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

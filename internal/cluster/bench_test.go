package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchBlobs is 10,000 rows of 10-dimensional data from 8 rotated blobs, the size of one
// HiIndex layer after PCA.
func benchBlobs(b *testing.B) [][]float64 {
	b.Helper()
	x, _ := makeBlobs(blobSpec{n: 10000, d: 10, k: 8, sep: 20, aniso: true, seed: 1})
	return x
}

// BenchmarkSelect10k is HiRAG's full search (k up to 50, early stop at 1e-3) on 10k×10 rows.
func BenchmarkSelect10k(b *testing.B) {
	x := benchBlobs(b)
	b.ResetTimer()
	for b.Loop() {
		g, bics, err := Select(x, SelectOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.K()), "k")
		b.ReportMetric(float64(len(bics)), "fits")
	}
}

// BenchmarkSelect10kDiag is BenchmarkSelect10k with diagonal covariances.
func BenchmarkSelect10kDiag(b *testing.B) {
	x := benchBlobs(b)
	b.ResetTimer()
	for b.Loop() {
		g, bics, err := Select(x, SelectOptions{GMM: GMMOptions{Covariance: Diag}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.K()), "k")
		b.ReportMetric(float64(len(bics)), "fits")
	}
}

// BenchmarkFitGMM10k fits the true number of components.
func BenchmarkFitGMM10k(b *testing.B) {
	x := benchBlobs(b)
	for _, k := range []int{8, 50} {
		b.Run(fmt.Sprintf("k%d", k), func(b *testing.B) {
			for b.Loop() {
				g, err := FitGMM(x, k, GMMOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(g.Iterations), "iters")
			}
		})
	}
}

// BenchmarkEMIteration10k times one E-step and one M-step with 50 full components.
func BenchmarkEMIteration10k(b *testing.B) {
	x, n, d, err := flatten(benchBlobs(b))
	if err != nil {
		b.Fatal(err)
	}
	const k = 50
	g, err := fit(context.Background(), x, n, d, k, GMMOptions{MaxIter: 1})
	if err != nil {
		b.Fatal(err)
	}
	resp := make([]float64, n*k)
	s := newScratch(n, d, k)
	mass := make([]float64, k)
	ms := newMScratch(n, d, k, true)
	workers := workerCount(0)
	b.ResetTimer()
	for b.Loop() {
		g.estep(x, n, resp, nil, s, workers)
		g.mstep(x, n, resp, DefaultRegCovar, mass, ms, workers)
	}
}

// benchEmbeddings returns n rows of d values shaped like text embeddings: 64 random directions
// with standard deviations decaying from 1 by 5 % each, over isotropic noise of 0.05.
func benchEmbeddings(n, d int) [][]float32 {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	const t = 64
	dirs := make([]float64, t*d)
	for i := range dirs {
		dirs[i] = rng.NormFloat64() / math.Sqrt(float64(d))
	}
	rows := make([][]float32, n)
	v := make([]float64, d)
	for i := range rows {
		for a := range v {
			v[a] = 0.05 * rng.NormFloat64()
		}
		scale := 1.0
		for j := 0; j < t; j++ {
			z := rng.NormFloat64() * scale
			for a, u := range dirs[j*d : (j+1)*d] {
				v[a] += z * u
			}
			scale *= 0.95
		}
		r := make([]float32, d)
		for a, x := range v {
			r[a] = float32(x)
		}
		rows[i] = r
	}
	return rows
}

// BenchmarkPCA reduces 10,000 embeddings of typical sizes to 10 dimensions.
func BenchmarkPCA(b *testing.B) {
	for _, d := range []int{384, 1536} {
		rows := benchEmbeddings(10000, d)
		b.Run(fmt.Sprintf("10kx%d", d), func(b *testing.B) {
			for b.Loop() {
				if _, err := PCA(rows, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

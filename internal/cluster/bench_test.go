package cluster

import (
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
		b.Run(map[int]string{8: "k8", 50: "k50"}[k], func(b *testing.B) {
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
	g, err := fit(x, n, d, k, GMMOptions{MaxIter: 1})
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

// benchEmbeddings returns n unit-free rows of d values with a decaying spectrum, like text
// embeddings.
func benchEmbeddings(n, d int) [][]float32 {
	return randomRows(n, d, 0.99, uint64(rand.Int()))
}

// BenchmarkPCA reduces 10,000 embeddings of a typical size to 10 dimensions.
func BenchmarkPCA(b *testing.B) {
	for _, d := range []int{384, 1536} {
		rows := randomRows(10000, d, 0.995, 1)
		b.Run(map[int]string{384: "10kx384", 1536: "10kx1536"}[d], func(b *testing.B) {
			for b.Loop() {
				if _, err := PCA(rows, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

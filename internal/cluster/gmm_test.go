package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stratarag/strata/internal/testctx"
)

// TestScoresMatchSklearn builds the mixtures of the fixture with NewGMM and compares every
// per-row log-likelihood, the total and the BIC with scikit-learn's score_samples, score and bic
// for the same parameters.
func TestScoresMatchSklearn(t *testing.T) {
	f := loadFixture(t)
	x := f.Blobs.X
	n := float64(len(x))
	if len(f.Scores) == 0 {
		t.Fatal("fixture has no score cases")
	}
	for _, c := range f.Scores {
		t.Run(c.Name, func(t *testing.T) {
			g, err := NewGMM(c.Covariance, c.Weights, c.Means, c.Covariances)
			if err != nil {
				t.Fatal(err)
			}
			if got := g.NumParams(); got != c.NParameters {
				t.Errorf("NumParams = %d, sklearn %d", got, c.NParameters)
			}
			rows, err := g.logLikelihoods(x)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for i, v := range rows {
				worst = max(worst, relErr(v, c.ScoreSamples[i]))
			}
			if worst > 1e-9 {
				t.Errorf("score_samples: worst relative error %.3g", worst)
			}
			ll, err := g.LogLikelihood(x)
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(ll, c.Score*n); e > 1e-9 {
				t.Errorf("LogLikelihood = %.12g, sklearn score·n = %.12g (rel %.3g)", ll, c.Score*n, e)
			}
			bic, err := g.BIC(x)
			if err != nil {
				t.Fatal(err)
			}
			if e := relErr(bic, c.BIC); e > 1e-9 {
				t.Errorf("BIC = %.12g, sklearn %.12g (rel %.3g)", bic, c.BIC, e)
			}
		})
	}
}

// TestMStepMatchesSklearn runs one M-step from the fixture's soft responsibilities and compares
// weights, means and covariances with scikit-learn's _estimate_gaussian_parameters.
func TestMStepMatchesSklearn(t *testing.T) {
	f := loadFixture(t)
	x, n, d, err := flatten(f.Blobs.X)
	if err != nil {
		t.Fatal(err)
	}
	k := len(f.MStep.Resp[0])
	resp := make([]float64, 0, n*k)
	for _, r := range f.MStep.Resp {
		resp = append(resp, r...)
	}
	for _, c := range f.MStep.Cases {
		t.Run(c.Covariance, func(t *testing.T) {
			g := newGMM(k, d, c.Covariance == Full)
			mass := make([]float64, k)
			g.mstep(x, n, resp, 1e-6, mass, newMScratch(n, d, k, g.full), 3)
			g.export()
			check := func(what string, got, want []float64) {
				t.Helper()
				for i := range want {
					if e := relErr(got[i], want[i]); e > 1e-9 && math.Abs(got[i]-want[i]) > 1e-12 {
						t.Errorf("%s[%d] = %.15g, sklearn %.15g", what, i, got[i], want[i])
					}
				}
			}
			check("weights", g.Weights, c.Weights)
			for j := 0; j < k; j++ {
				check("means", g.Means[j], c.Means[j])
				check("covariances", g.Covariances[j], c.Covariances[j])
			}
		})
	}
}

// TestSelectMatchesSklearn runs Select on the fixture's blobs and compares the chosen number of
// components with the one scikit-learn's GaussianMixture chose in the same search, and the
// clusters with the true ones. A diagonal mixture on rotated blobs is misspecified: each blob
// needs several components and which k wins depends on EM's local optima, so that case is
// only reported.
func TestSelectMatchesSklearn(t *testing.T) {
	f := loadFixture(t)
	tests := []struct {
		name   string
		data   *blobFixture
		cov    string
		report bool
	}{
		{"rotated-full", &f.Blobs, Full, false},
		{"rotated-diag", &f.Blobs, Diag, true},
		{"axis-full", &f.BlobsAxis, Full, false},
		{"axis-diag", &f.BlobsAxis, Diag, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, ok := tt.data.Select[tt.cov]
			if !ok {
				t.Fatalf("fixture lacks %s", tt.cov)
			}
			g, bics, err := Select(tt.data.X, SelectOptions{GMM: GMMOptions{Covariance: tt.cov}})
			if err != nil {
				t.Fatal(err)
			}
			best := slices.Index(bics, slices.Min(bics)) + 1
			t.Logf("ours: k=%d (BIC %.6g) after %d fits; sklearn: k=%d (BIC %.6g) after %d fits",
				g.K(), bics[best-1], len(bics), ref.K, ref.BICs[ref.K-1], len(ref.BICs))
			if best != g.K() {
				t.Errorf("model has %d components, lowest BIC at k=%d", g.K(), best)
			}
			if tt.report {
				return
			}
			if g.K() != ref.K {
				t.Errorf("Select chose k=%d, sklearn k=%d", g.K(), ref.K)
			}
			// At the chosen k both reach the same optimum of well-separated data, up to EM's
			// stopping tolerance.
			if e := relErr(bics[ref.K-1], ref.BICs[ref.K-1]); e > 1e-4 {
				t.Errorf("BIC at k=%d: ours %.8g, sklearn %.8g (rel %.3g)", ref.K, bics[ref.K-1], ref.BICs[ref.K-1], e)
			}
			p, err := g.Probabilities(tt.data.X)
			if err != nil {
				t.Fatal(err)
			}
			if a := ari(argmax(p), tt.data.Labels); a != 1 {
				t.Errorf("ARI against true labels = %v, want 1", a)
			}
		})
	}
}

// TestSelectRecoversBlobs checks that Select finds the true number of generated blobs and
// assigns every row to its own blob.
func TestSelectRecoversBlobs(t *testing.T) {
	tests := []struct {
		name string
		spec blobSpec
		cov  string
	}{
		{"2d-3-full", blobSpec{n: 300, d: 2, k: 3, sep: 15, seed: 1}, Full},
		{"2d-3-diag", blobSpec{n: 300, d: 2, k: 3, sep: 15, seed: 1}, Diag},
		{"5d-4-aniso-full", blobSpec{n: 800, d: 5, k: 4, sep: 20, aniso: true, seed: 2}, Full},
		{"10d-6-full", blobSpec{n: 2000, d: 10, k: 6, sep: 20, seed: 3}, Full},
		{"10d-6-diag", blobSpec{n: 2000, d: 10, k: 6, sep: 20, seed: 3}, Diag},
		{"1d-2-full", blobSpec{n: 200, d: 1, k: 2, sep: 20, seed: 4}, Full},
		{"single-blob", blobSpec{n: 500, d: 3, k: 1, sep: 0, seed: 5}, Full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, labels := makeBlobs(tt.spec)
			g, bics, err := Select(x, SelectOptions{MaxComponents: 12, GMM: GMMOptions{Covariance: tt.cov, Seed: 3}})
			if err != nil {
				t.Fatal(err)
			}
			if g.K() != tt.spec.k {
				t.Fatalf("chose k=%d, want %d (BICs %.6g)", g.K(), tt.spec.k, bics)
			}
			p, err := g.Probabilities(x)
			if err != nil {
				t.Fatal(err)
			}
			if a := ari(argmax(p), labels); a != 1 {
				t.Errorf("ARI = %v, want 1", a)
			}
			for i, row := range p {
				s := 0.0
				for _, v := range row {
					if math.IsNaN(v) || v < 0 || v > 1 {
						t.Fatalf("row %d: probability %v", i, v)
					}
					s += v
				}
				if math.Abs(s-1) > 1e-12 {
					t.Fatalf("row %d: probabilities sum to %v", i, s)
				}
			}
		})
	}
}

// TestSelectStops checks the three ways the search ends.
func TestSelectStops(t *testing.T) {
	x, _ := makeBlobs(blobSpec{n: 400, d: 2, k: 3, sep: 15, seed: 9})
	tests := []struct {
		name  string
		x     [][]float64
		opt   SelectOptions
		tries func(int) bool
	}{
		{"max-components", x, SelectOptions{MaxComponents: 4, RelTol: -1}, func(n int) bool { return n == 4 }},
		{"rows", x[:3], SelectOptions{RelTol: -1}, func(n int) bool { return n == 3 }},
		{"rel-tol", x, SelectOptions{RelTol: 0.5}, func(n int) bool { return n == 2 }},
		{"default", x, SelectOptions{}, func(n int) bool { return n > 3 && n <= DefaultMaxComponents }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, bics, err := Select(tt.x, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.tries(len(bics)) {
				t.Errorf("tried %d values of k", len(bics))
			}
			if want := slices.Index(bics, slices.Min(bics)) + 1; g.K() != want {
				t.Errorf("returned k=%d, lowest BIC at k=%d", g.K(), want)
			}
			for k, b := range bics {
				if math.IsNaN(b) || math.IsInf(b, 0) {
					t.Errorf("BIC(k=%d) = %v", k+1, b)
				}
			}
		})
	}
}

// TestFitDeterministic checks that a fit depends on the seed only, never on the number of
// goroutines, and that different seeds still find the same well-separated optimum.
func TestFitDeterministic(t *testing.T) {
	x, _ := makeBlobs(blobSpec{n: 3000, d: 6, k: 5, sep: 10, aniso: true, seed: 11})
	fits := map[string]GMMOptions{
		"w1": {Seed: 4, Workers: 1},
		"w2": {Seed: 4, Workers: 2},
		"w7": {Seed: 4, Workers: 7},
	}
	var ref *GMM
	for _, name := range []string{"w1", "w2", "w7"} {
		g, err := FitGMM(x, 5, fits[name])
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = g
			continue
		}
		if !slices.Equal(g.Weights, ref.Weights) || g.Iterations != ref.Iterations {
			t.Errorf("%s: weights %v after %d iterations, w1 %v after %d", name, g.Weights, g.Iterations, ref.Weights, ref.Iterations)
		}
		for j := range g.Means {
			if !slices.Equal(g.Means[j], ref.Means[j]) || !slices.Equal(g.Covariances[j], ref.Covariances[j]) {
				t.Errorf("%s: component %d differs from w1", name, j)
			}
		}
	}
	b1, err := ref.BIC(x)
	if err != nil {
		t.Fatal(err)
	}
	other, err := FitGMM(x, 5, GMMOptions{Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	b2, err := other.BIC(x)
	if err != nil {
		t.Fatal(err)
	}
	if relErr(b1, b2) > 1e-4 {
		t.Errorf("seeds 4 and 99 reach BIC %.8g and %.8g", b1, b2)
	}
}

// TestFitDegenerate feeds data that break naive implementations: repeated rows, fewer distinct
// points than components, points on a line in 3-D, and a huge offset and scale.
func TestFitDegenerate(t *testing.T) {
	line := make([][]float64, 60)
	for i := range line {
		v := float64(i%20) * 0.5
		line[i] = []float64{v, 2 * v, -v}
	}
	huge := make([][]float64, 200)
	for i := range huge {
		huge[i] = []float64{1e9 + float64(i%10)*1e6, -1e9 + float64(i%7)*1e6}
	}
	same := make([][]float64, 10)
	for i := range same {
		same[i] = []float64{1, 2}
	}
	two := make([][]float64, 10)
	for i := range two {
		two[i] = []float64{float64(i % 2), 0}
	}
	tests := []struct {
		name string
		x    [][]float64
		k    int
		cov  string
	}{
		{"identical-full", same, 3, Full},
		{"identical-diag", same, 3, Diag},
		{"two-points-k4", two, 4, Full},
		{"line-full", line, 3, Full},
		{"line-diag", line, 3, Diag},
		{"huge-scale", huge, 4, Full},
		{"k-equals-n", line[:5], 5, Full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := FitGMM(tt.x, tt.k, GMMOptions{Covariance: tt.cov})
			if err != nil {
				t.Fatal(err)
			}
			if g.K() < 1 || g.K() > tt.k {
				t.Fatalf("K = %d", g.K())
			}
			sum := 0.0
			for j, w := range g.Weights {
				sum += w
				if !(w > 0) {
					t.Errorf("weight %d = %v", j, w)
				}
				for _, v := range append(slices.Clone(g.Means[j]), g.Covariances[j]...) {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("component %d has non-finite parameters", j)
					}
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("weights sum to %v", sum)
			}
			bic, err := g.BIC(tt.x)
			if err != nil || math.IsNaN(bic) {
				t.Errorf("BIC = %v, %v", bic, err)
			}
			p, err := g.Probabilities(tt.x)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range p {
				for _, v := range row {
					if math.IsNaN(v) {
						t.Fatal("NaN probability")
					}
				}
			}
			if _, _, err := Select(tt.x, SelectOptions{GMM: GMMOptions{Covariance: tt.cov}}); err != nil {
				t.Errorf("Select: %v", err)
			}
		})
	}
}

// TestProbabilities checks the posteriors of a fixed mixture against their closed form.
func TestProbabilities(t *testing.T) {
	// Two unit-variance components at ±2 with equal weights: a row at 0 is shared evenly, a row
	// at 1 has posterior 1/(1+e⁻⁴) ≈ 0.982 for the right component, a row at 0.5 about 0.881.
	g, err := NewGMM(Full, []float64{0.5, 0.5}, [][]float64{{-2}, {2}}, [][]float64{{1}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	x := [][]float64{{0}, {1}, {0.5}, {-1}}
	p, err := g.Probabilities(x)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.5, 1 / (1 + math.Exp(-4)), 1 / (1 + math.Exp(-2))} {
		if relErr(p[i][1], want) > 1e-12 {
			t.Errorf("P(right | %v) = %v, want %v", x[i][0], p[i][1], want)
		}
	}
}

// TestErrors checks that bad input gives errors, not panics.
func TestErrors(t *testing.T) {
	good := [][]float64{{0, 0}, {1, 1}, {2, 0}, {3, 1}}
	g, err := FitGMM(good, 2, GMMOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"fit-empty", func() error { _, err := FitGMM(nil, 1, GMMOptions{}); return err }, "no rows"},
		{"fit-no-columns", func() error { _, err := FitGMM([][]float64{{}}, 1, GMMOptions{}); return err }, "no columns"},
		{"fit-ragged", func() error { _, err := FitGMM([][]float64{{1, 2}, {3}}, 1, GMMOptions{}); return err }, "row 1 has 1 values"},
		{"fit-nan", func() error { _, err := FitGMM([][]float64{{1, math.NaN()}}, 1, GMMOptions{}); return err }, "NaN"},
		{"fit-inf", func() error { _, err := FitGMM([][]float64{{math.Inf(1)}}, 1, GMMOptions{}); return err }, "+Inf"},
		{"fit-k0", func() error { _, err := FitGMM(good, 0, GMMOptions{}); return err }, "0 components"},
		{"fit-k-over-n", func() error { _, err := FitGMM(good, 5, GMMOptions{}); return err }, "5 components for 4 rows"},
		{"fit-bad-covariance", func() error { _, err := FitGMM(good, 1, GMMOptions{Covariance: "tied"}); return err }, "tied"},
		{"fit-negative-reg", func() error { _, err := FitGMM(good, 1, GMMOptions{RegCovar: -1}); return err }, "RegCovar"},
		{"select-empty", func() error { _, _, err := Select(nil, SelectOptions{}); return err }, "no rows"},
		{"select-ragged", func() error { _, _, err := Select([][]float64{{1}, {1, 2}}, SelectOptions{}); return err }, "row 1"},
		{"select-bad-covariance", func() error { _, _, err := Select(good, SelectOptions{GMM: GMMOptions{Covariance: "x"}}); return err }, "covariance"},
		{"loglik-dims", func() error { _, err := g.LogLikelihood([][]float64{{1}}); return err }, "1 dimensions"},
		{"bic-empty", func() error { _, err := g.BIC(nil); return err }, "no rows"},
		{"probabilities-ragged", func() error { _, err := g.Probabilities([][]float64{{1, 2}, {1}}); return err }, "row 1"},
		{"new-no-components", func() error { _, err := NewGMM(Full, nil, nil, nil); return err }, "no components"},
		{"new-bad-type", func() error {
			_, err := NewGMM("spherical", []float64{1}, [][]float64{{0}}, [][]float64{{1}})
			return err
		}, "spherical"},
		{"new-weights-sum", func() error {
			_, err := NewGMM(Diag, []float64{0.5, 0.4}, [][]float64{{0}, {1}}, [][]float64{{1}, {1}})
			return err
		}, "sum to"},
		{"new-zero-weight", func() error {
			_, err := NewGMM(Diag, []float64{1, 0}, [][]float64{{0}, {1}}, [][]float64{{1}, {1}})
			return err
		}, "weight 1"},
		{"new-not-pd", func() error {
			_, err := NewGMM(Full, []float64{1}, [][]float64{{0, 0}}, [][]float64{{1, 2, 2, 1}})
			return err
		}, "positive definite"},
		{"new-asymmetric", func() error {
			_, err := NewGMM(Full, []float64{1}, [][]float64{{0, 0}}, [][]float64{{1, 0.5, 0, 1}})
			return err
		}, "symmetric"},
		{"new-diag-negative", func() error {
			_, err := NewGMM(Diag, []float64{1}, [][]float64{{0, 0}}, [][]float64{{1, -1}})
			return err
		}, "positive definite"},
		{"new-ragged-means", func() error {
			_, err := NewGMM(Diag, []float64{0.5, 0.5}, [][]float64{{0, 0}, {1}}, [][]float64{{1, 1}, {1}})
			return err
		}, "mean 1"},
		{"new-covariance-size", func() error {
			_, err := NewGMM(Full, []float64{1}, [][]float64{{0, 0}}, [][]float64{{1, 1}})
			return err
		}, "covariance 0 has 2 values, want 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil {
				t.Fatalf("no error, want one containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "cluster: ") {
				t.Errorf("error %q, want the cluster: prefix and %q", err, tt.want)
			}
		})
	}
	if _, err := FitGMM(nil, 1, GMMOptions{}); !errors.Is(err, ErrNoRows) {
		t.Errorf("FitGMM(nil) = %v, want ErrNoRows", err)
	}
}

// TestNewGMMRoundTrip checks that a fitted model rebuilt from its exported parameters scores
// the same.
func TestNewGMMRoundTrip(t *testing.T) {
	x, _ := makeBlobs(blobSpec{n: 500, d: 3, k: 3, sep: 10, aniso: true, seed: 21})
	for _, cov := range []string{Full, Diag} {
		g, err := FitGMM(x, 3, GMMOptions{Covariance: cov})
		if err != nil {
			t.Fatal(err)
		}
		h, err := NewGMM(g.Covariance, g.Weights, g.Means, g.Covariances)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := g.LogLikelihood(x)
		b, _ := h.LogLikelihood(x)
		if a != b {
			t.Errorf("%s: log-likelihood %v, rebuilt %v", cov, a, b)
		}
	}
}

// TestSparsity checks Sparsity on hand-computed cases.
func TestSparsity(t *testing.T) {
	tests := []struct {
		name     string
		clusters [][]int
		n        int
		want     float64
	}{
		{"no-items", nil, 0, 1},
		{"one-item", [][]int{{0}}, 1, 1},
		{"singletons", [][]int{{0}, {1}, {2}, {3}}, 4, 1},
		{"one-cluster", [][]int{{0, 1, 2, 3}}, 4, 0},
		{"two-pairs", [][]int{{0, 1}, {2, 3}}, 4, 1 - 4.0/12},
		{"overlap", [][]int{{0, 1, 2}, {2, 3}}, 4, 1 - 8.0/12},
		{"empty-clusters-ignored", [][]int{{}, {0, 1}, {}}, 5, 1 - 2.0/20},
		{"heavy-overlap-negative", [][]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}}, 3, 1 - 18.0/6},
		{"hirag-like", [][]int{{0, 1, 2, 3, 4}, {5, 6, 7}, {8, 9}}, 10, 1 - (20.0+6+2)/90},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sparsity(tt.clusters, tt.n); math.Abs(got-tt.want) > 1e-15 {
				t.Errorf("Sparsity = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDropEmpty checks that an EM step removes a component that no row belongs to, without
// NaNs, and that rows beyond the reach of every component get even, finite probabilities.
func TestDropEmpty(t *testing.T) {
	x := [][]float64{{-2.1}, {-1.9}, {-2}, {1.9}, {2.1}, {2}}
	g, err := NewGMM(Full, []float64{0.45, 0.1, 0.45}, [][]float64{{-2}, {1e6}, {2}}, [][]float64{{1}, {1e-6}, {1}})
	if err != nil {
		t.Fatal(err)
	}
	flat, n, d, err := flatten(x)
	if err != nil {
		t.Fatal(err)
	}
	resp := make([]float64, n*g.k)
	g.estep(flat, n, resp, nil, newScratch(n, d, g.k), 1)
	mass := make([]float64, g.k)
	g.mstep(flat, n, resp, DefaultRegCovar, mass, newMScratch(n, d, g.k, true), 1)
	if mass[1] != 0 {
		t.Fatalf("far component kept mass %v", mass[1])
	}
	if !g.dropEmpty(mass) {
		t.Fatal("dropEmpty removed nothing")
	}
	if err := g.factor(DefaultRegCovar, true); err != nil {
		t.Fatal(err)
	}
	g.export()
	if g.K() != 2 || math.Abs(g.Means[0][0]+2) > 0.01 || math.Abs(g.Means[1][0]-2) > 0.01 ||
		math.Abs(g.Weights[0]+g.Weights[1]-1) > 1e-15 || math.Abs(g.Weights[0]-0.5) > 1e-9 {
		t.Errorf("after the drop: K=%d, means %v, weights %v", g.K(), g.Means, g.Weights)
	}

	p, err := g.Probabilities([][]float64{{1e200}})
	if err != nil {
		t.Fatal(err)
	}
	if p[0][0] != 0.5 || p[0][1] != 0.5 {
		t.Errorf("probabilities of an unreachable row = %v, want [0.5 0.5]", p[0])
	}
	ll, err := g.LogLikelihood([][]float64{{1e200}})
	if err != nil || !math.IsInf(ll, -1) {
		t.Errorf("log-likelihood of an unreachable row = %v, %v; want -Inf", ll, err)
	}
}

// TestBlockwiseEMMatchesHeldResponsibilities: fit, which computes the responsibilities of a
// block of rows when the M-step reads them, gives bit for bit the mixture of EM over
// responsibilities held for all rows (estep, then mstep), and posteriors the values of
// Probabilities.
func TestBlockwiseEMMatchesHeldResponsibilities(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		cov  string
	}{{1500, 12, Full}, {1100, 30, Full}, {900, 8, Diag}} {
		t.Run(fmt.Sprintf("%d-%d-%s", tc.n, tc.k, tc.cov), func(t *testing.T) {
			rows := benchEmbeddings(tc.n, 32)
			px, err := PCA(rows, 6)
			if err != nil {
				t.Fatal(err)
			}
			x, n, d, err := flatten(px)
			if err != nil {
				t.Fatal(err)
			}
			opt, err := GMMOptions{Covariance: tc.cov, Seed: 9, MaxIter: 40}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			got, err := fit(t.Context(), x, n, d, tc.k, opt)
			if err != nil {
				t.Fatal(err)
			}

			// The reference: every responsibility held, as fit did before.
			rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x9e3779b97f4a7c15))
			labels := kmeans(x, n, d, tc.k, rng, opt.Workers)
			want := newGMM(tc.k, d, tc.cov == Full)
			resp := make([]float64, n*tc.k)
			for i, c := range labels {
				resp[i*tc.k+c] = 1
			}
			mass := make([]float64, tc.k)
			ms := newMScratch(n, d, tc.k, tc.cov == Full)
			s := newScratch(n, d, tc.k)
			want.mstep(x, n, resp, opt.RegCovar, mass, ms, opt.Workers)
			want.dropEmpty(mass)
			if err := want.factor(opt.RegCovar, true); err != nil {
				t.Fatal(err)
			}
			prev := math.Inf(-1)
			for it := 1; it <= opt.MaxIter; it++ {
				ll := want.estep(x, n, resp[:n*want.k], nil, s, opt.Workers) / float64(n)
				want.mstep(x, n, resp[:n*want.k], opt.RegCovar, mass, ms, opt.Workers)
				want.dropEmpty(mass)
				if err := want.factor(opt.RegCovar, true); err != nil {
					t.Fatal(err)
				}
				want.Iterations = it
				if math.Abs(ll-prev) < opt.Tol {
					want.Converged = true
					break
				}
				prev = ll
			}
			want.export()
			if got.Iterations != want.Iterations || got.Converged != want.Converged ||
				!slices.Equal(got.Weights, want.Weights) || !slices.Equal(got.mean, want.mean) || !slices.Equal(got.cov, want.cov) {
				t.Fatalf("blockwise fit differs: %d iterations (want %d), weights %v (want %v)", got.Iterations, want.Iterations, got.Weights, want.Weights)
			}

			probs, err := got.Probabilities(px)
			if err != nil {
				t.Fatal(err)
			}
			post := got.posteriors(x, n, 0.1)
			soft := make([][]softRow, got.K())
			for i, row := range probs {
				best := 0
				for c, p := range row {
					if p > row[best] {
						best = c
					}
				}
				if int(post.best[i]) != best || post.bestP[i] != row[best] {
					t.Fatalf("row %d: posteriors say %d (%v), Probabilities %d (%v)", i, post.best[i], post.bestP[i], best, row[best])
				}
				for c, p := range row {
					if c != best && p > 0.1 {
						soft[c] = append(soft[c], softRow{int32(i), p})
					}
				}
			}
			if !reflect.DeepEqual(post.soft, soft) {
				t.Errorf("soft rows differ from Probabilities")
			}
		})
	}
}

// posteriors is posteriorsFrom over the n rows of x (flat), with every soft row kept.
func (g *GMM) posteriors(x []float64, n int, threshold float64) posteriors {
	return g.posteriorsFrom(n, threshold, func(start, end int, dst []float64) {
		copy(dst, x[start*g.d:end*g.d])
	}, func(int) bool { return true })
}

// TestFitCancelled: a fit stops with the context's error at any of its checks (after k-means,
// then at every EM iteration) and returns no mixture; given enough checks, it runs to the end.
func TestFitCancelled(t *testing.T) {
	px, err := PCA(benchEmbeddings(600, 16), 4)
	if err != nil {
		t.Fatal(err)
	}
	x, n, d, err := flatten(px)
	if err != nil {
		t.Fatal(err)
	}
	opt, err := GMMOptions{Seed: 3, MaxIter: 20, Tol: -1}.withDefaults() // no convergence: all 20 iterations
	if err != nil {
		t.Fatal(err)
	}
	for _, checks := range []int{1, 2, 10, 21} {
		g, err := fit(testctx.Countdown(t.Context(), checks), x, n, d, 5, opt)
		if !errors.Is(err, context.Canceled) || g != nil {
			t.Errorf("cancelled at check %d: mixture %v, error %v; want none and context.Canceled", checks, g != nil, err)
		}
	}
	if g, err := fit(testctx.Countdown(t.Context(), 22), x, n, d, 5, opt); err != nil || g.Iterations != 20 {
		t.Errorf("with 22 checks: error %v, want a fit of 20 iterations", err)
	}
}

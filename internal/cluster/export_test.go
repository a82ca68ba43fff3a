package cluster

// Test entry points: scoring, fitting and EM steps over [][]float64 rows, which the tests check
// against scikit-learn; the code they reach is what Select and Bounded run.

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// NewGMM returns the mixture with the given parameters, ready for scoring: weights (positive,
// summing to 1), one mean of D values per component, and one covariance per component, a D×D
// symmetric positive definite matrix in row-major order for Full or D positive variances for
// Diag. The parameters are copied. Covariances are used as given, without regularisation.
func NewGMM(covariance string, weights []float64, means, covariances [][]float64) (*GMM, error) {
	k := len(weights)
	if k == 0 {
		return nil, errors.New("cluster: NewGMM: no components")
	}
	if covariance != Full && covariance != Diag {
		return nil, fmt.Errorf("cluster: NewGMM: unknown covariance type %q (want %q or %q)", covariance, Full, Diag)
	}
	if len(means) != k || len(covariances) != k {
		return nil, fmt.Errorf("cluster: NewGMM: %d weights, %d means and %d covariances", k, len(means), len(covariances))
	}
	d := len(means[0])
	if d == 0 {
		return nil, errors.New("cluster: NewGMM: means have no dimensions")
	}
	g := newGMM(k, d, covariance == Full)
	cs := g.covSize()
	sum := 0.0
	for j, w := range weights {
		if !(w > 0) || math.IsInf(w, 1) {
			return nil, fmt.Errorf("cluster: NewGMM: weight %d is %v, want a positive number", j, w)
		}
		sum += w
		if len(means[j]) != d {
			return nil, fmt.Errorf("cluster: NewGMM: mean %d has %d values, want %d", j, len(means[j]), d)
		}
		if len(covariances[j]) != cs {
			return nil, fmt.Errorf("cluster: NewGMM: covariance %d has %d values, want %d", j, len(covariances[j]), cs)
		}
		for _, v := range means[j] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("cluster: NewGMM: mean %d is not finite", j)
			}
		}
		c := covariances[j]
		if g.full {
			for a := 0; a < d; a++ {
				for b := 0; b < a; b++ {
					if math.Abs(c[a*d+b]-c[b*d+a]) > 1e-10*(math.Abs(c[a*d+b])+math.Abs(c[b*d+a])) {
						return nil, fmt.Errorf("cluster: NewGMM: covariance %d is not symmetric", j)
					}
				}
			}
		}
		copy(g.mean[j*d:], means[j])
		copy(g.cov[j*cs:], c)
	}
	if math.Abs(sum-1) > 1e-8 {
		return nil, fmt.Errorf("cluster: NewGMM: weights sum to %v, want 1", sum)
	}
	copy(g.Weights, weights)
	if err := g.factor(0, false); err != nil {
		return nil, fmt.Errorf("cluster: NewGMM: %w", err)
	}
	g.export()
	return g, nil
}

// mstep sets weights, means and covariances from the responsibilities resp (n×k) as
// scikit-learn does: nⱼ = Σᵢ rᵢⱼ + 10ε, μⱼ = Σᵢ rᵢⱼxᵢ / nⱼ, Σⱼ = Σᵢ rᵢⱼ(xᵢ−μⱼ)(xᵢ−μⱼ)ᵀ / nⱼ + reg·I,
// wⱼ = nⱼ / Σ nⱼ, and writes the raw mass Σᵢ rᵢⱼ of every component into mass. Each block of
// rows accumulates its own partial sums, reading responsibilities row by row, and the blocks are
// added in order, so the result does not depend on scheduling. Responsibilities that are exactly
// zero (far rows, whose densities underflow) are skipped.
func (g *GMM) mstep(x []float64, n int, resp []float64, reg float64, mass []float64, ms *mscratch, workers int) {
	k := g.k
	g.mstepFrom(x, n, func(b int, _ []float64) []float64 {
		return resp[b*blockRows*k : min(n, (b+1)*blockRows)*k]
	}, reg, mass, ms, workers)
}

// FitGMM fits a Gaussian mixture of k components to the rows of x by expectation-maximisation,
// started like scikit-learn's GaussianMixture from the clusters of k-means (k-means++ seeding
// from opt.Seed, then Lloyd iterations). Components that lose all their rows during EM are
// dropped, so the result may have fewer than k components. It is an error for x to be empty or
// ragged, to hold non-finite values, or for k to be less than 1 or more than the number of rows.
func FitGMM(x [][]float64, k int, opt GMMOptions) (*GMM, error) {
	flat, n, d, err := flatten(x)
	if err != nil {
		return nil, fmt.Errorf("cluster: FitGMM: %w", err)
	}
	g, err := fit(context.Background(), flat, n, d, k, opt)
	if err != nil {
		return nil, fmt.Errorf("cluster: FitGMM: %w", err)
	}
	return g, nil
}

// rowsFor validates and flattens rows to be scored by g.
func (g *GMM) rowsFor(x [][]float64) ([]float64, int, error) {
	flat, n, d, err := flatten(x)
	if err != nil {
		return nil, 0, err
	}
	if d != g.d {
		return nil, 0, fmt.Errorf("rows have %d dimensions, the model %d", d, g.d)
	}
	return flat, n, nil
}

// LogLikelihood returns the total log-likelihood Σᵢ log p(xᵢ) of the rows of x under the
// mixture (scikit-learn's score(x) times the number of rows).
func (g *GMM) LogLikelihood(x [][]float64) (float64, error) {
	flat, n, err := g.rowsFor(x)
	if err != nil {
		return 0, fmt.Errorf("cluster: LogLikelihood: %w", err)
	}
	return g.estep(flat, n, nil, nil, newScratch(n, g.d, g.k), workerCount(0)), nil
}

// logLikelihoods returns the log-likelihood of every row (scikit-learn's score_samples).
func (g *GMM) logLikelihoods(x [][]float64) ([]float64, error) {
	flat, n, err := g.rowsFor(x)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	g.estep(flat, n, nil, out, newScratch(n, g.d, g.k), workerCount(0))
	return out, nil
}

// BIC returns the Bayesian information criterion of the mixture on the rows of x,
// −2·LogLikelihood(x) + NumParams()·ln n; lower is better.
func (g *GMM) BIC(x [][]float64) (float64, error) {
	flat, n, err := g.rowsFor(x)
	if err != nil {
		return 0, fmt.Errorf("cluster: BIC: %w", err)
	}
	return g.bic(flat, n, newScratch(n, g.d, g.k), workerCount(0)), nil
}

// Probabilities returns, for every row of x, the posterior probability of each component
// (the responsibilities); every row sums to 1.
func (g *GMM) Probabilities(x [][]float64) ([][]float64, error) {
	flat, n, err := g.rowsFor(x)
	if err != nil {
		return nil, fmt.Errorf("cluster: Probabilities: %w", err)
	}
	resp := make([]float64, n*g.k)
	g.estep(flat, n, resp, nil, newScratch(n, g.d, g.k), workerCount(0))
	out := make([][]float64, n)
	for i := range out {
		out[i] = resp[i*g.k : (i+1)*g.k : (i+1)*g.k]
	}
	return out, nil
}

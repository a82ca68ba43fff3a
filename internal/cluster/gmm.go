package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// Covariance types accepted by GMMOptions.Covariance.
const (
	// Full gives every component its own unrestricted covariance matrix (scikit-learn's
	// default covariance_type).
	Full = "full"
	// Diag gives every component its own diagonal covariance matrix: fewer parameters, so the
	// BIC favours more components, and cheaper per row.
	Diag = "diag"
)

// Defaults used for zero fields of GMMOptions and SelectOptions. The mixture defaults are
// scikit-learn's GaussianMixture defaults; the selection defaults are HiRAG's.
const (
	DefaultMaxIter       = 100
	DefaultTol           = 1e-3
	DefaultRegCovar      = 1e-6
	DefaultMaxComponents = 50
	DefaultRelTol        = 1e-3
)

// minMass is the total responsibility below which a component counts as having lost all its
// rows. Such a component would keep a mean and covariance fitted to nothing (scikit-learn keeps
// it, at the origin with a covariance of reg_covar); it is dropped instead, so that it neither
// wastes work nor adds parameters to the BIC.
const minMass = 1e-8

// GMMOptions configures a fit. The zero value gives scikit-learn's defaults.
type GMMOptions struct {
	// Covariance is Full (the default when empty) or Diag.
	Covariance string
	// MaxIter bounds the EM iterations (DefaultMaxIter when <= 0).
	MaxIter int
	// Tol stops EM once the mean log-likelihood per row changes by less than Tol between
	// iterations (DefaultTol when 0; a negative Tol always runs MaxIter iterations).
	Tol float64
	// RegCovar is added to the diagonal of every covariance matrix so that components
	// collapsing onto a point or a subspace stay invertible (DefaultRegCovar when 0).
	RegCovar float64
	// Seed drives the k-means++ initialisation; equal seeds give equal models.
	Seed int64
	// Workers bounds the goroutines used (GOMAXPROCS when <= 0). Results do not depend on it.
	Workers int
}

func (o GMMOptions) withDefaults() (GMMOptions, error) {
	switch o.Covariance {
	case "":
		o.Covariance = Full
	case Full, Diag:
	default:
		return o, fmt.Errorf("unknown covariance type %q (want %q or %q)", o.Covariance, Full, Diag)
	}
	if o.MaxIter <= 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.Tol == 0 {
		o.Tol = DefaultTol
	}
	switch {
	case o.RegCovar == 0:
		o.RegCovar = DefaultRegCovar
	case !(o.RegCovar > 0) || math.IsInf(o.RegCovar, 1):
		return o, fmt.Errorf("RegCovar is %v, want a positive finite number", o.RegCovar)
	}
	o.Workers = workerCount(o.Workers)
	return o, nil
}

// GMM is a fitted Gaussian mixture. The exported fields describe the model and must be treated
// as read-only (they share storage with the precomputed factors used for scoring).
type GMM struct {
	// Covariance is Full or Diag.
	Covariance string
	// Weights are the mixing proportions, one per component, summing to 1.
	Weights []float64
	// Means holds one mean per component.
	Means [][]float64
	// Covariances holds one covariance per component: the D×D matrix in row-major order for
	// Full, the D variances for Diag. They include RegCovar, and for a component whose
	// covariance could not otherwise be factored, the extra diagonal jitter that was added.
	Covariances [][]float64
	// Iterations is the number of EM iterations of the fit.
	Iterations int
	// Converged reports whether EM stopped on Tol rather than on MaxIter.
	Converged bool

	k, d int
	full bool
	mean []float64 // k×d
	cov  []float64 // k×d×d (full) or k×d (diag)
	// prec holds, per component, L⁻¹ where Σ = L·Lᵀ (full, lower triangular d×d) or 1/σ per
	// dimension (diag), so that the squared Mahalanobis distance is ‖prec·(x−μ)‖².
	prec []float64
	// logNorm is log wₖ − (d/2)·log 2π + log det prec: the log of the weighted density at the
	// component's mean.
	logNorm []float64
}

// newGMM allocates a mixture of k components in d dimensions with every parameter zero.
func newGMM(k, d int, full bool) *GMM {
	cs := d
	if full {
		cs = d * d
	}
	g := &GMM{
		Covariance: Diag,
		k:          k,
		d:          d,
		full:       full,
		Weights:    make([]float64, k),
		mean:       make([]float64, k*d),
		cov:        make([]float64, k*cs),
		prec:       make([]float64, k*cs),
		logNorm:    make([]float64, k),
	}
	if full {
		g.Covariance = Full
	}
	return g
}

// covSize returns the number of values stored per component covariance.
func (g *GMM) covSize() int {
	if g.full {
		return g.d * g.d
	}
	return g.d
}

// export points the exported slices at the internal flat storage.
func (g *GMM) export() {
	cs := g.covSize()
	g.Weights = g.Weights[:g.k]
	g.Means = make([][]float64, g.k)
	g.Covariances = make([][]float64, g.k)
	for j := 0; j < g.k; j++ {
		g.Means[j] = g.mean[j*g.d : (j+1)*g.d : (j+1)*g.d]
		g.Covariances[j] = g.cov[j*cs : (j+1)*cs : (j+1)*cs]
	}
}

// factor computes prec and logNorm from the weights and covariances. A covariance that is not
// numerically positive definite is an error unless jitter is set, in which case ever larger
// multiples of reg (or of a tiny fraction of its mean variance, when that is larger) are added to
// its diagonal until it factors: with data of a large scale, reg_covar alone can vanish in the
// rounding of the diagonal.
func (g *GMM) factor(reg float64, jitter bool) error {
	d := g.d
	var l []float64
	if g.full {
		l = make([]float64, d*d)
	}
	halfLog2Pi := 0.5 * float64(d) * math.Log(2*math.Pi)
	cs := g.covSize()
	for j := 0; j < g.k; j++ {
		c := g.cov[j*cs : (j+1)*cs]
		p := g.prec[j*cs : (j+1)*cs]
		extra := 0.0
		for try := 0; ; try++ {
			ok := false
			if g.full {
				ok = cholesky(l, c, d)
			} else {
				ok = true
				for _, v := range c {
					if !(v > 0) || math.IsInf(v, 1) {
						ok = false
						break
					}
				}
			}
			if ok {
				break
			}
			if !jitter || try == 40 {
				return fmt.Errorf("covariance of component %d is not positive definite", j)
			}
			if extra == 0 {
				trace := 0.0
				for a := 0; a < d; a++ {
					if g.full {
						trace += math.Abs(c[a*d+a])
					} else {
						trace += math.Abs(c[a])
					}
				}
				extra = max(reg, 1e-12*trace/float64(d), math.SmallestNonzeroFloat64)
			} else {
				extra *= 10
			}
			for a := 0; a < d; a++ {
				if g.full {
					c[a*d+a] += extra
				} else {
					c[a] += extra
				}
			}
		}
		logDet := 0.0
		if g.full {
			invertLower(p, l, d)
			for a := 0; a < d; a++ {
				logDet += math.Log(p[a*d+a])
			}
		} else {
			for a, v := range c {
				p[a] = 1 / math.Sqrt(v)
				logDet += math.Log(p[a])
			}
		}
		g.logNorm[j] = math.Log(g.Weights[j]) - halfLog2Pi + logDet
	}
	return nil
}

// logProbs writes log(wⱼ·N(row | μⱼ, Σⱼ)) for every component j into out, using diff (d
// values) as scratch.
func (g *GMM) logProbs(row, out, diff []float64) {
	d := g.d
	row = row[:d]
	diff = diff[:d]
	if g.full {
		dd := d * d
		for j := range out[:g.k] {
			mu := g.mean[j*d : (j+1)*d]
			for a, v := range row {
				diff[a] = v - mu[a]
			}
			p := g.prec[j*dd : (j+1)*dd]
			q := 0.0
			for a := 0; a < d; a++ {
				pa := p[a*d : a*d+a+1]
				s := 0.0
				for b, v := range pa {
					s += v * diff[b]
				}
				q += s * s
			}
			out[j] = g.logNorm[j] - 0.5*q
		}
		return
	}
	for j := range out[:g.k] {
		mu := g.mean[j*d : (j+1)*d]
		p := g.prec[j*d : (j+1)*d]
		q := 0.0
		for a, v := range row {
			s := (v - mu[a]) * p[a]
			q += s * s
		}
		out[j] = g.logNorm[j] - 0.5*q
	}
}

// logProbs4 is logProbs for the four consecutive rows in x (4×d), writing 4×k values into out
// and using diff (4×d) as scratch. Each covariance entry is loaded once for four rows, and the
// four running sums are independent, so the processor overlaps them instead of waiting on one
// chain of dependent additions; this is about twice as fast as four calls to logProbs.
func (g *GMM) logProbs4(x, out, diff []float64) {
	d, k := g.d, g.k
	if !g.full {
		for r := 0; r < 4; r++ {
			g.logProbs(x[r*d:(r+1)*d], out[r*k:(r+1)*k], diff)
		}
		return
	}
	x0, x1, x2, x3 := x[:d], x[d:2*d], x[2*d:3*d], x[3*d:4*d]
	d0, d1, d2, d3 := diff[:d], diff[d:2*d], diff[2*d:3*d], diff[3*d:4*d]
	dd := d * d
	for j := 0; j < k; j++ {
		mu := g.mean[j*d : (j+1)*d]
		for a, m := range mu {
			d0[a] = x0[a] - m
			d1[a] = x1[a] - m
			d2[a] = x2[a] - m
			d3[a] = x3[a] - m
		}
		p := g.prec[j*dd : (j+1)*dd]
		var q0, q1, q2, q3 float64
		for a := 0; a < d; a++ {
			pa := p[a*d : a*d+a+1]
			e0, e1, e2, e3 := d0[:len(pa)], d1[:len(pa)], d2[:len(pa)], d3[:len(pa)]
			var s0, s1, s2, s3 float64
			for b, v := range pa {
				s0 += v * e0[b]
				s1 += v * e1[b]
				s2 += v * e2[b]
				s3 += v * e3[b]
			}
			q0 += s0 * s0
			q1 += s1 * s1
			q2 += s2 * s2
			q3 += s3 * s3
		}
		ln := g.logNorm[j]
		out[j] = ln - 0.5*q0
		out[k+j] = ln - 0.5*q1
		out[2*k+j] = ln - 0.5*q2
		out[3*k+j] = ln - 0.5*q3
	}
}

// scratch holds per-block buffers so that the E-step allocates nothing per row.
type scratch struct {
	diff []float64 // blocks×4×d
	lp   []float64 // blocks×4×k, used when responsibilities are not kept
	ll   []float64 // blocks: partial log-likelihoods
}

func newScratch(n, d, k int) *scratch {
	b := numBlocks(n)
	return &scratch{diff: make([]float64, b*4*d), lp: make([]float64, b*4*k), ll: make([]float64, b)}
}

// estep returns the total log-likelihood of the n rows of x and, when resp is not nil, writes
// the responsibilities (n×k, rows summing to 1) into it; when rowLL is not nil it receives the
// log-likelihood of every row. The normaliser of each row is a log-sum-exp around its largest
// term, so rows far from every component neither underflow to 0/0 nor overflow.
func (g *GMM) estep(x []float64, n int, resp, rowLL []float64, s *scratch, workers int) float64 {
	d, k := g.d, g.k
	parallel(numBlocks(n), workers, func(b int) {
		var out []float64
		if resp != nil {
			out = resp[b*blockRows*k : min(n, (b+1)*blockRows)*k]
		}
		s.ll[b] = g.estepBlock(x, n, b, out, rowLL, s.diff[b*4*d:(b+1)*4*d], s.lp[b*4*k:(b+1)*4*k])
	})
	total := 0.0
	for _, v := range s.ll[:numBlocks(n)] {
		total += v
	}
	return total
}

// estepBlock is estep for the rows of block b: it writes their responsibilities into out (the
// block's rows × k, or nil to keep none, using lp, 4×k values, instead) and their
// log-likelihoods into rowLL (indexed by row, or nil), and returns their total log-likelihood.
// diff (4×d values) is scratch.
func (g *GMM) estepBlock(x []float64, n, b int, out, rowLL, diff, lp []float64) float64 {
	d, k := g.d, g.k
	total := 0.0
	start, end := b*blockRows, min(n, (b+1)*blockRows)
	for i := start; i < end; i += 4 {
		rows := min(4, end-i)
		var p []float64
		if out != nil {
			p = out[(i-start)*k : (i-start+rows)*k]
		} else {
			p = lp[:rows*k]
		}
		if rows == 4 {
			g.logProbs4(x[i*d:(i+4)*d], p, diff)
		} else {
			for r := 0; r < rows; r++ {
				g.logProbs(x[(i+r)*d:(i+r+1)*d], p[r*k:(r+1)*k], diff)
			}
		}
		for r := 0; r < rows; r++ {
			norm := normalizeRow(p[r*k : (r+1)*k])
			if rowLL != nil {
				rowLL[i+r] = norm
			}
			total += norm
		}
	}
	return total
}

// normalizeRow turns the log-probabilities lp into probabilities summing to 1 and returns their
// log-sum-exp, computed around the largest term so that it neither underflows nor overflows.
func normalizeRow(lp []float64) float64 {
	m := math.Inf(-1)
	for _, v := range lp {
		m = max(m, v)
	}
	if math.IsInf(m, -1) {
		// Every density underflowed: the row is infinitely unlikely under all components.
		// Share it evenly rather than divide zero by zero.
		for j := range lp {
			lp[j] = 1 / float64(len(lp))
		}
		return m
	}
	sum := 0.0
	for j, v := range lp {
		e := math.Exp(v - m)
		lp[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range lp {
		lp[j] *= inv
	}
	return m + math.Log(sum)
}

// mscratch holds the per-block partial sums of the M-step.
type mscratch struct {
	sums []float64 // blocks×k×(1+d): mass, then Σ r·x
	// sq is blocks×k×t: Σ r·(x−μ)(x−μ)ᵀ as its lower triangle packed by rows
	// (t = d(d+1)/2), or Σ r·(x−μ)² per dimension (t = d).
	sq   []float64
	diff []float64 // blocks×d
	mu   []float64 // k×d: the new means, kept apart until the responsibilities are no longer needed
	// resp holds the responsibilities of one block of rows (blockRows×k) per goroutine, for a
	// blockResp that computes them.
	resp chan []float64
}

func newMScratch(n, d, k int, full bool) *mscratch {
	b := numBlocks(n)
	t := d
	if full {
		t = d * (d + 1) / 2
	}
	return &mscratch{sums: make([]float64, b*k*(1+d)), sq: make([]float64, b*k*t), diff: make([]float64, b*d), mu: make([]float64, k*d)}
}

// blockResp returns the responsibilities of the rows of block b (rows × k), computed into buf
// (blockRows×k values) or taken from where they are kept. It is called once per block in each
// of the M-step's two passes and must return the same values both times.
type blockResp func(b int, buf []float64) []float64

// respBuffers hands out the buffers blockResp computes into, one per goroutine of parallel.
func (ms *mscratch) respBuffers(workers, k int) chan []float64 {
	if ms.resp == nil || cap(ms.resp) < workers {
		ms.resp = make(chan []float64, workers)
		for range workers {
			ms.resp <- make([]float64, blockRows*k)
		}
	}
	return ms.resp
}

// mstepFrom sets weights, means and covariances from the responsibilities as scikit-learn does:
// nⱼ = Σᵢ rᵢⱼ + 10ε, μⱼ = Σᵢ rᵢⱼxᵢ / nⱼ, Σⱼ = Σᵢ rᵢⱼ(xᵢ−μⱼ)(xᵢ−μⱼ)ᵀ / nⱼ + reg·I, wⱼ = nⱼ / Σ nⱼ, and
// writes the raw mass Σᵢ rᵢⱼ of every component into mass. Each block of rows accumulates its
// own partial sums, reading responsibilities row by row, and the blocks are added in order, so
// the result does not depend on scheduling. Responsibilities that are exactly zero (far rows,
// whose densities underflow) are skipped. The responsibilities of each block of rows come from
// resp, so that they need not be held for all rows at once: they may be computed block by block, under the model
// as it was when mstepFrom was called (its means, precisions and norms change only at the end).
func (g *GMM) mstepFrom(x []float64, n int, resp blockResp, reg float64, mass []float64, ms *mscratch, workers int) {
	d, k := g.d, g.k
	t := d
	if g.full {
		t = d * (d + 1) / 2
	}
	blocks := numBlocks(n)
	w := 1 + d
	bufs := ms.respBuffers(min(workers, blocks), k)
	parallel(blocks, workers, func(b int) {
		buf := <-bufs
		defer func() { bufs <- buf }()
		rb := resp(b, buf)
		part := ms.sums[b*k*w : (b+1)*k*w]
		clear(part)
		for i := b * blockRows; i < min(n, (b+1)*blockRows); i++ {
			row := x[i*d : (i+1)*d]
			for j, r := range rb[(i-b*blockRows)*k : (i-b*blockRows+1)*k] {
				if r == 0 {
					continue
				}
				p := part[j*w : (j+1)*w]
				p[0] += r
				p = p[1 : 1+len(row)]
				for a, v := range row {
					p[a] += r * v
				}
			}
		}
	})
	const eps10 = 10 * 2.220446049250313e-16 // 10 × machine epsilon, as scikit-learn
	for j := 0; j < k; j++ {
		m := 0.0
		mu := ms.mu[j*d : (j+1)*d]
		clear(mu)
		for b := 0; b < blocks; b++ {
			p := ms.sums[(b*k+j)*w : (b*k+j+1)*w]
			m += p[0]
			for a, v := range p[1:] {
				mu[a] += v
			}
		}
		mass[j] = m
		nk := m + eps10
		for a := range mu {
			mu[a] /= nk
		}
		g.Weights[j] = nk
	}
	parallel(blocks, workers, func(b int) {
		buf := <-bufs
		defer func() { bufs <- buf }()
		rb := resp(b, buf)
		part := ms.sq[b*k*t : (b+1)*k*t]
		clear(part)
		diff := ms.diff[b*d : (b+1)*d]
		for i := b * blockRows; i < min(n, (b+1)*blockRows); i++ {
			row := x[i*d : (i+1)*d]
			for j, r := range rb[(i-b*blockRows)*k : (i-b*blockRows+1)*k] {
				if r == 0 {
					continue
				}
				mu := ms.mu[j*d : (j+1)*d]
				for a, v := range row {
					diff[a] = v - mu[a]
				}
				p := part[j*t : (j+1)*t]
				if g.full {
					off := 0
					for a := 0; a < d; a++ {
						ra := r * diff[a]
						pa := p[off : off+a+1]
						for c := range pa {
							pa[c] += ra * diff[c]
						}
						off += a + 1
					}
				} else {
					for a, v := range diff {
						p[a] += r * v * v
					}
				}
			}
		}
	})
	copy(g.mean[:k*d], ms.mu[:k*d])
	cs := g.covSize()
	for j := 0; j < k; j++ {
		c := g.cov[j*cs : (j+1)*cs]
		nk := g.Weights[j]
		if g.full {
			off := 0
			for a := 0; a < d; a++ {
				for e := 0; e <= a; e++ {
					v := 0.0
					for b := 0; b < blocks; b++ {
						v += ms.sq[(b*k+j)*t+off+e]
					}
					v /= nk
					c[a*d+e], c[e*d+a] = v, v
				}
				c[a*d+a] += reg
				off += a + 1
			}
			continue
		}
		for a := 0; a < d; a++ {
			v := 0.0
			for b := 0; b < blocks; b++ {
				v += ms.sq[(b*k+j)*t+a]
			}
			c[a] = v/nk + reg
		}
	}
	sum := 0.0
	for _, w := range g.Weights[:k] {
		sum += w
	}
	for j := range g.Weights[:k] {
		g.Weights[j] /= sum
	}
}

// dropEmpty removes the components whose mass fell below minMass, keeping the order of the
// others, renormalises the weights and reports whether anything was removed. At least one
// component always remains: the masses of all components add up to the number of rows.
func (g *GMM) dropEmpty(mass []float64) bool {
	d, cs := g.d, g.covSize()
	kept := 0
	for j := 0; j < g.k; j++ {
		if mass[j] < minMass && (kept > 0 || j < g.k-1) {
			continue
		}
		if kept != j {
			g.Weights[kept] = g.Weights[j]
			mass[kept] = mass[j]
			copy(g.mean[kept*d:(kept+1)*d], g.mean[j*d:(j+1)*d])
			copy(g.cov[kept*cs:(kept+1)*cs], g.cov[j*cs:(j+1)*cs])
		}
		kept++
	}
	if kept == g.k {
		return false
	}
	g.k = kept
	g.Weights = g.Weights[:kept]
	g.mean = g.mean[:kept*d]
	g.cov = g.cov[:kept*cs]
	g.prec = g.prec[:kept*cs]
	g.logNorm = g.logNorm[:kept]
	sum := 0.0
	for _, w := range g.Weights {
		sum += w
	}
	for j := range g.Weights {
		g.Weights[j] /= sum
	}
	return true
}

// fit fits a Gaussian mixture of k components to the n rows of d values in x by
// expectation-maximisation, started like scikit-learn's GaussianMixture from the clusters of
// k-means (k-means++ seeding from opt.Seed, then Lloyd iterations). Components that lose all
// their rows during EM are dropped, so the result may have fewer than k components. It stops with ctx's error when ctx is done,
// checked after k-means and at every EM iteration: a fit over 2^18 rows and 50 components takes
// a minute or more.
func fit(ctx context.Context, x []float64, n, d, k int, opt GMMOptions) (*GMM, error) {
	if k < 1 {
		return nil, fmt.Errorf("%d components, want at least 1", k)
	}
	if k > n {
		return nil, fmt.Errorf("%d components for %d rows, want at most one component per row", k, n)
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(opt.Seed), 0x9e3779b97f4a7c15))
	labels := kmeans(x, n, d, k, rng, opt.Workers)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	g := newGMM(k, d, opt.Covariance == Full)
	mass := make([]float64, k)
	ms := newMScratch(n, d, k, opt.Covariance == Full)
	s := newScratch(n, d, k)
	// The responsibilities are never held for all rows (n×k values, the largest thing a fit
	// over a big layer would hold): each M-step computes those of a block of rows when it reads
	// them, in each of its two passes, from the labels first, then by the E-step.
	g.mstepFrom(x, n, func(b int, buf []float64) []float64 {
		start, end := b*blockRows, min(n, (b+1)*blockRows)
		out := buf[:(end-start)*k]
		clear(out)
		for i, c := range labels[start:end] {
			out[i*k+c] = 1
		}
		return out
	}, opt.RegCovar, mass, ms, opt.Workers)
	g.dropEmpty(mass)
	if err := g.factor(opt.RegCovar, true); err != nil {
		return nil, err
	}
	estep := func(b int, buf []float64) []float64 {
		out := buf[:(min(n, (b+1)*blockRows)-b*blockRows)*g.k]
		s.ll[b] = g.estepBlock(x, n, b, out, nil, s.diff[b*4*d:(b+1)*4*d], nil)
		return out
	}
	prev := math.Inf(-1)
	for it := 1; it <= opt.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g.mstepFrom(x, n, estep, opt.RegCovar, mass, ms, opt.Workers)
		ll := 0.0 // the E-step's, summed in block order as estep does
		for _, v := range s.ll[:numBlocks(n)] {
			ll += v
		}
		ll /= float64(n)
		g.dropEmpty(mass)
		if err := g.factor(opt.RegCovar, true); err != nil {
			return nil, fmt.Errorf("EM iteration %d: %w", it, err)
		}
		g.Iterations = it
		if math.Abs(ll-prev) < opt.Tol {
			g.Converged = true
			break
		}
		prev = ll
	}
	g.export()
	return g, nil
}

// K returns the number of components.
func (g *GMM) K() int { return g.k }

// NumParams returns the number of free parameters of the mixture as scikit-learn counts them:
// K−1 weights, K·D mean values and K·D(D+1)/2 (Full) or K·D (Diag) covariance values.
func (g *GMM) NumParams() int {
	cov := g.k * g.d
	if g.full {
		cov = g.k * g.d * (g.d + 1) / 2
	}
	return cov + g.k*g.d + g.k - 1
}

func (g *GMM) bic(x []float64, n int, s *scratch, workers int) float64 {
	ll := g.estep(x, n, nil, nil, s, workers)
	return -2*ll + float64(g.NumParams())*math.Log(float64(n))
}

// posteriors is what Bounded keeps of the posterior probabilities of a fit's rows: each row's
// most probable component (the first of equals) with its probability, and for each component
// the rows whose probability of it exceeds a threshold, in row order, other than those it is
// the most probable component of. That is a few values per row where Probabilities holds k.
type posteriors struct {
	best  []int32
	bestP []float64
	soft  [][]softRow // by component
}

type softRow struct {
	i int32
	p float64
}

// posteriorsFrom computes the posteriors of n rows, with the values Probabilities gives, block
// by block: fill copies the rows [start, end) into dst (called concurrently). It keeps the soft
// rows of the components c for which soft(c) holds (none when soft is nil).
func (g *GMM) posteriorsFrom(n int, threshold float64, fill func(start, end int, dst []float64), soft func(c int) bool) posteriors {
	d, k := g.d, g.k
	post := posteriors{best: make([]int32, n), bestP: make([]float64, n), soft: make([][]softRow, k)}
	blocks := numBlocks(n)
	workers := workerCount(0)
	bufs := make(chan []float64, workers)
	for range workers {
		bufs <- make([]float64, blockRows*k+4*d+blockRows*d)
	}
	// The soft rows of each block, merged in block order afterwards.
	type entry struct {
		c int
		softRow
	}
	perBlock := make([][]entry, blocks)
	parallel(blocks, workers, func(b int) {
		buf := <-bufs
		defer func() { bufs <- buf }()
		start, end := b*blockRows, min(n, (b+1)*blockRows)
		out := buf[:(end-start)*k]
		x := buf[blockRows*k+4*d : blockRows*k+4*d+(end-start)*d]
		fill(start, end, x)
		g.estepBlock(x, end-start, 0, out, nil, buf[blockRows*k:blockRows*k+4*d], nil)
		for i := start; i < end; i++ {
			row := out[(i-start)*k : (i-start+1)*k]
			best := 0
			for c, p := range row {
				if p > row[best] {
					best = c
				}
			}
			post.best[i], post.bestP[i] = int32(best), row[best]
			for c, p := range row {
				if c != best && p > threshold && soft != nil && soft(c) {
					perBlock[b] = append(perBlock[b], entry{c, softRow{int32(i), p}})
				}
			}
		}
	})
	for _, es := range perBlock {
		for _, e := range es {
			post.soft[e.c] = append(post.soft[e.c], e.softRow)
		}
	}
	return post
}

package cluster

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// jacobiMax is the largest matrix decomposed completely by Jacobi rotations; larger ones get a
// subspace iteration for just the leading eigenvectors.
const jacobiMax = 64

// PCA centres rows and projects them onto their top k principal components, returning one row of
// k coordinates per input row; column j has the j-th largest variance. k is clamped to
// min(k, d, n−1) and to at least 1. The sign of every component is fixed so that its entry of
// largest magnitude is positive (the first such entry on ties), which makes the output
// deterministic rather than dependent on rounding inside the eigen-solver.
//
// The eigenvectors come from the smaller of the d×d scatter matrix and the n×n Gram matrix of the
// centred rows, so the cost is about n·d·min(n, d)/2 multiply-adds to form it plus a cheap
// eigen-decomposition: complete (Jacobi) up to 64×64, otherwise a subspace iteration with
// Rayleigh–Ritz for the leading k that stops when the captured variance no longer changes.
// It is an error for rows to be empty or ragged or to hold non-finite values.
func PCA(rows [][]float32, k int) ([][]float64, error) {
	n := len(rows)
	if n == 0 {
		return nil, fmt.Errorf("cluster: PCA: %w", ErrNoRows)
	}
	d := len(rows[0])
	mean, err := columnMeans(Rows(rows), n, d)
	if err != nil {
		return nil, err
	}
	k = max(1, min(k, d, n-1))
	axes, _ := principalAxes(Rows(rows), n, mean, k, workerCount(0))

	flat := make([]float64, n*k)
	out := make([][]float64, n)
	parallel(numBlocks(n), workerCount(0), func(b int) {
		c := make([]float64, d)
		for i := b * blockRows; i < min(n, (b+1)*blockRows); i++ {
			centre(c, rows[i], mean)
			o := flat[i*k : (i+1)*k : (i+1)*k]
			for j := range o {
				o[j] = dot(c, axes[j*d:(j+1)*d])
			}
			out[i] = o
		}
	})
	return out, nil
}

// RowSource yields the same rows in the same order every time it is called, calling fn once per
// row with its index (0, 1, …); it stops at, and returns, the first error of fn. The row is only
// read during the call: a source may reuse its memory. It lets PCAStream read rows that are not
// held in memory, a pass at a time.
type RowSource func(fn func(i int, row []float32) error) error

// Rows is the RowSource of rows held in memory.
func Rows(rows [][]float32) RowSource {
	return func(fn func(int, []float32) error) error {
		for i, r := range rows {
			if err := fn(i, r); err != nil {
				return err
			}
		}
		return nil
	}
}

// PCAStream is PCA over the n rows of d values that src yields, reading them in passes (three
// when d <= n: means, scatter, projection) instead of holding them, so that its memory is the
// output and a d×d matrix whatever n. Its result holds PCA's, bit for bit, and for more than
// 2^18 rows the same rounded to float32 (see Projection). With fewer rows than
// dimensions (the n×n Gram matrix is decomposed then) it keeps the centred rows, n×d values.
func PCAStream(n, d int, src RowSource, k int) (*Projection, error) {
	return pcaStream(n, d, src, k, exactRows)
}

// pcaStream is PCAStream holding more than exact rows in float32 (see Projection).
func pcaStream(n, d int, src RowSource, k, exact int) (*Projection, error) {
	if n == 0 {
		return nil, fmt.Errorf("cluster: PCA: %w", ErrNoRows)
	}
	mean, err := columnMeans(src, n, d)
	if err != nil {
		return nil, err
	}
	k = max(1, min(k, d, n-1))
	// principalAxes reads the rows without expecting errors: the first one is kept here.
	var srcErr error
	kept := func(fn func(int, []float32) error) error {
		err := src(fn)
		if err != nil && srcErr == nil {
			srcErr = err
		}
		return err
	}
	axes, _ := principalAxes(kept, n, mean, k, workerCount(0))
	if srcErr != nil {
		return nil, srcErr
	}
	out := newProjection(n, k, exact)
	c := make([]float64, d)
	o := make([]float64, k)
	err = src(func(i int, row []float32) error {
		if i >= n || len(row) != d {
			return fmt.Errorf("cluster: PCA: the rows changed between passes (row %d of %d values)", i, len(row))
		}
		centre(c, row, mean)
		for j := range o {
			o[j] = dot(c, axes[j*d:(j+1)*d])
		}
		out.set(i, o)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// columnMeans checks the n rows of src (d values each, all finite) and returns their mean.
func columnMeans(src RowSource, n, d int) ([]float64, error) {
	if d == 0 {
		return nil, errors.New("cluster: PCA: rows have no columns")
	}
	mean := make([]float64, d)
	seen := 0
	err := src(func(i int, r []float32) error {
		if len(r) != d {
			return fmt.Errorf("cluster: PCA: row %d has %d values, want %d like row 0", i, len(r), d)
		}
		for a, v := range r {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("cluster: PCA: row %d, column %d is %v", i, a, v)
			}
			mean[a] += f
		}
		seen++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != n {
		return nil, fmt.Errorf("cluster: PCA: %d rows, want %d", seen, n)
	}
	for a := range mean {
		mean[a] /= float64(n)
	}
	return mean, nil
}

// centre writes row − mean into c.
func centre(c []float64, row []float32, mean []float64) {
	row = row[:len(c)]
	for a, v := range row {
		c[a] = float64(v) - mean[a]
	}
}

// principalAxes returns the top k principal axes of rows around mean as the rows of a k×d
// matrix (orthonormal, signs fixed), and the variance along each. k must be in [1, d].
func principalAxes(rows RowSource, n int, mean []float64, k, workers int) (axes, variances []float64) {
	d := len(mean)
	axes = make([]float64, k*d)
	variances = make([]float64, k)
	var vals, vecs []float64
	filled := 0
	switch {
	case n < 2:
		// A single row has no variance; any orthonormal axes will do.
	case d <= n:
		vals, vecs = topEigen(scatter(rows, mean, workers), d, k, workers)
		copy(axes, vecs)
		filled = k
	default:
		// More dimensions than rows: decompose the n×n Gram matrix G = XcXcᵀ, whose
		// eigenvectors u give the axes Xcᵀu/‖Xcᵀu‖ with the same eigenvalues.
		xc := make([]float64, n*d)
		_ = rows(func(i int, r []float32) error {
			centre(xc[i*d:(i+1)*d], r, mean)
			return nil
		})
		var us []float64
		vals, us = topEigen(gram(xc, n, d, workers), n, k, workers)
		for j := 0; j < k && vals[j] > 1e-12*vals[0]; j++ {
			ax := axes[j*d : (j+1)*d]
			for i := 0; i < n; i++ {
				u := us[j*n+i]
				for a, v := range xc[i*d : (i+1)*d] {
					ax[a] += u * v
				}
			}
			if !normalize(ax) {
				break
			}
			filled = j + 1
		}
	}
	// Directions without variance (more components asked for than the rank of the data) are
	// completed with coordinate axes made orthogonal to the others: the data project to zero
	// on them, and the axes stay orthonormal.
	for j, e := filled, 0; j < k && e < d; e++ {
		ax := axes[j*d : (j+1)*d]
		clear(ax)
		ax[e] = 1
		for p := 0; p < j; p++ {
			prev := axes[p*d : (p+1)*d]
			s := dot(ax, prev)
			for a := range ax {
				ax[a] -= s * prev[a]
			}
		}
		if normalize(ax) {
			j++
		}
	}
	for j := 0; j < k; j++ {
		ax := axes[j*d : (j+1)*d]
		big := 0
		for a, v := range ax {
			if math.Abs(v) > math.Abs(ax[big]) {
				big = a
			}
		}
		if ax[big] < 0 {
			for a := range ax {
				ax[a] = -ax[a]
			}
		}
		if j < len(vals) && j < filled {
			variances[j] = max(0, vals[j]) / float64(n-1)
		}
	}
	return axes, variances
}

// normalize scales v to unit length and reports false when it has (numerically) none.
func normalize(v []float64) bool {
	s := math.Sqrt(dot(v, v))
	if !(s > 1e-150) {
		return false
	}
	for i := range v {
		v[i] /= s
	}
	return true
}

// scatterChunk is the number of rows whose contribution to the scatter matrix is added at a
// time. The chunk is stored transposed so that every entry of the matrix is a dot product of
// two contiguous vectors, and the matrix is streamed once per chunk rather than once per row.
const scatterChunk = 64

// scatter returns the d×d matrix Σᵢ (xᵢ−μ)(xᵢ−μ)ᵀ (symmetric, row-major). Rows of the lower
// triangle are split among workers in stripes of equal area; each entry is summed in the same
// order whatever the split.
func scatter(rows RowSource, mean []float64, workers int) []float64 {
	d := len(mean)
	m := make([]float64, d*d)
	ct := make([]float64, d*scatterChunk)
	buf := make([]float64, d)
	stripes := min(d, 4*workers)
	bounds := make([]int, stripes+1)
	for s := range bounds {
		bounds[s] = int(math.Round(float64(d) * math.Sqrt(float64(s)/float64(stripes))))
	}
	add := func() {
		parallel(stripes, workers, func(s int) {
			for a := bounds[s]; a < bounds[s+1]; a++ {
				ca := ct[a*scatterChunk : (a+1)*scatterChunk]
				ma := m[a*d : a*d+a+1]
				b := 0
				// Four entries at a time: independent sums the processor can overlap.
				for ; b+4 <= len(ma); b += 4 {
					c0 := ct[b*scatterChunk : (b+1)*scatterChunk]
					c1 := ct[(b+1)*scatterChunk : (b+2)*scatterChunk]
					c2 := ct[(b+2)*scatterChunk : (b+3)*scatterChunk]
					c3 := ct[(b+3)*scatterChunk : (b+4)*scatterChunk]
					var s0, s1, s2, s3 float64
					for r, v := range ca {
						s0 += v * c0[r]
						s1 += v * c1[r]
						s2 += v * c2[r]
						s3 += v * c3[r]
					}
					ma[b] += s0
					ma[b+1] += s1
					ma[b+2] += s2
					ma[b+3] += s3
				}
				for ; b < len(ma); b++ {
					ma[b] += dot(ca, ct[b*scatterChunk:(b+1)*scatterChunk])
				}
			}
		})
	}
	// Rows come one at a time into the transposed chunk; a full chunk is added, and so is the
	// last, partial one (its empty columns are zeros, which add nothing).
	r := 0
	_ = rows(func(_ int, row []float32) error {
		if r == 0 {
			clear(ct)
		}
		centre(buf, row, mean)
		for a, v := range buf {
			ct[a*scatterChunk+r] = v
		}
		if r++; r == scatterChunk {
			add()
			r = 0
		}
		return nil
	})
	if r > 0 {
		add()
	}
	for a := 0; a < d; a++ {
		for b := 0; b < a; b++ {
			m[b*d+a] = m[a*d+b]
		}
	}
	return m
}

// gram returns the n×n matrix of dot products of the rows of xc (n×d).
func gram(xc []float64, n, d, workers int) []float64 {
	g := make([]float64, n*n)
	parallel(n, workers, func(i int) {
		xi := xc[i*d : (i+1)*d]
		for j := 0; j <= i; j++ {
			g[i*n+j] = dot(xi, xc[j*d:(j+1)*d])
		}
	})
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			g[j*n+i] = g[i*n+j]
		}
	}
	return g
}

// topEigen returns the k largest eigenvalues of the symmetric positive semi-definite m×m matrix
// a (destroyed) in descending order, and their unit eigenvectors as the rows of a k×m matrix.
func topEigen(a []float64, m, k, workers int) (vals, vecs []float64) {
	l := min(m, 2*k+10)
	if m <= jacobiMax || 2*l >= m {
		all, v := symEigen(a, m)
		vecs = make([]float64, k*m)
		for j := 0; j < k; j++ {
			for i := 0; i < m; i++ {
				vecs[j*m+i] = v[i*m+j]
			}
		}
		return all[:k], vecs
	}
	return subspaceEigen(a, m, k, l, workers)
}

// subspaceEigen computes the k leading eigenpairs of the symmetric positive semi-definite m×m
// matrix a by orthogonal (subspace) iteration on l > k vectors with a Rayleigh–Ritz step every
// iteration. The extra vectors make the leading k converge at the rate of λₗ₊₁/λₖ rather than
// λₖ₊₁/λₖ. It stops when the sum of the k leading Ritz values changes by less than 1e-12 of
// itself, which puts the captured subspace within about 1e-6 radians of the true one, or after
// 500 iterations. The start is pseudo-random with a fixed seed, so results are deterministic.
func subspaceEigen(a []float64, m, k, l, workers int) (vals, vecs []float64) {
	rng := rand.New(rand.NewPCG(0x5ca1ab1e, 0xdecade))
	q := make([]float64, l*m) // rows are the basis vectors
	for i := range q {
		q[i] = rng.NormFloat64()
	}
	orthonormalize(q, l, m, rng)
	z := make([]float64, l*m)
	v := make([]float64, l*m)
	y := make([]float64, l*m)
	b := make([]float64, l*l)
	prev := math.Inf(-1)
	var theta []float64
	for it := 0; ; it++ {
		// z = A·q, one row of A against every basis vector.
		parallel(numBlocks(m), workers, func(blk int) {
			for r := blk * blockRows; r < min(m, (blk+1)*blockRows); r++ {
				ar := a[r*m : (r+1)*m]
				c := 0
				// Four basis vectors at a time: independent sums the processor can overlap.
				for ; c+4 <= l; c += 4 {
					q0, q1 := q[c*m:(c+1)*m], q[(c+1)*m:(c+2)*m]
					q2, q3 := q[(c+2)*m:(c+3)*m], q[(c+3)*m:(c+4)*m]
					var s0, s1, s2, s3 float64
					for i, v := range ar {
						s0 += v * q0[i]
						s1 += v * q1[i]
						s2 += v * q2[i]
						s3 += v * q3[i]
					}
					z[c*m+r], z[(c+1)*m+r], z[(c+2)*m+r], z[(c+3)*m+r] = s0, s1, s2, s3
				}
				for ; c < l; c++ {
					z[c*m+r] = dot(ar, q[c*m:(c+1)*m])
				}
			}
		})
		for c := 0; c < l; c++ {
			for e := 0; e <= c; e++ {
				s := 0.5 * (dot(q[c*m:(c+1)*m], z[e*m:(e+1)*m]) + dot(q[e*m:(e+1)*m], z[c*m:(c+1)*m]))
				b[c*l+e], b[e*l+c] = s, s
			}
		}
		var w []float64
		theta, w = symEigen(b, l)
		// Ritz vectors v = Wᵀq and their images y = Wᵀz = A·v.
		clear(v)
		clear(y)
		for j := 0; j < l; j++ {
			vj, yj := v[j*m:(j+1)*m], y[j*m:(j+1)*m]
			for c := 0; c < l; c++ {
				wc := w[c*l+j]
				qc, zc := q[c*m:(c+1)*m], z[c*m:(c+1)*m]
				for i := range vj {
					vj[i] += wc * qc[i]
					yj[i] += wc * zc[i]
				}
			}
		}
		captured := 0.0
		for _, t := range theta[:k] {
			captured += t
		}
		if math.Abs(captured-prev) <= 1e-12*math.Abs(captured) || it == 500 {
			break
		}
		prev = captured
		copy(q, y)
		orthonormalize(q, l, m, rng)
	}
	return theta[:k], v[:k*m]
}

// orthonormalize makes the l rows of q (each of length m) orthonormal by modified Gram–Schmidt,
// applied twice for accuracy. A row that has nothing left after removing the others (the
// matrix has lower rank than l) is replaced by a random vector and orthogonalised again.
func orthonormalize(q []float64, l, m int, rng *rand.Rand) {
	for c := 0; c < l; c++ {
		qc := q[c*m : (c+1)*m]
		for attempt := 0; ; attempt++ {
			before := math.Sqrt(dot(qc, qc))
			for pass := 0; pass < 2; pass++ {
				for e := 0; e < c; e++ {
					qe := q[e*m : (e+1)*m]
					s := dot(qc, qe)
					for i := range qc {
						qc[i] -= s * qe[i]
					}
				}
			}
			after := math.Sqrt(dot(qc, qc))
			if after > 1e-10*before && after > 1e-300 {
				for i := range qc {
					qc[i] /= after
				}
				break
			}
			for i := range qc {
				qc[i] = rng.NormFloat64()
			}
		}
	}
}

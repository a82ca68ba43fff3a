package cluster

import (
	"math"
	"sort"
)

// Small dense linear algebra on flat row-major slices. The matrices here are covariance
// matrices of at most a few dozen dimensions (the mixture) or the small projected matrices of a
// subspace iteration (PCA), so straightforward algorithms are both the simplest and fast enough.

// cholesky factors the symmetric matrix a (d×d, row-major; only its lower triangle is read) as
// L·Lᵀ and writes L into the lower triangle of l, zeroing the upper one. It reports false when a
// is not numerically positive definite: a pivot that is not positive, or so small relative to
// its diagonal entry that it is rounding noise, would give a meaningless factor.
func cholesky(l, a []float64, d int) bool {
	for j := 0; j < d; j++ {
		lj := l[j*d : j*d+j]
		s := a[j*d+j]
		for _, v := range lj {
			s -= v * v
		}
		if !(s > 1e-13*a[j*d+j]) || math.IsInf(s, 1) {
			return false
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for c := j + 1; c < d; c++ {
			l[j*d+c] = 0
		}
		for i := j + 1; i < d; i++ {
			li := l[i*d : i*d+j]
			s := a[i*d+j]
			for c, v := range li {
				s -= v * lj[c]
			}
			l[i*d+j] = s / ljj
		}
	}
	return true
}

// invertLower writes the inverse of the lower triangular d×d matrix l into inv (also lower
// triangular). The mixture keeps L⁻¹ rather than L so that the Mahalanobis distance of a row is
// a triangular matrix-vector product without divisions: ‖L⁻¹(x−μ)‖².
func invertLower(inv, l []float64, d int) {
	for i := range inv[:d*d] {
		inv[i] = 0
	}
	for j := 0; j < d; j++ {
		inv[j*d+j] = 1 / l[j*d+j]
		for i := j + 1; i < d; i++ {
			s := 0.0
			for c := j; c < i; c++ {
				s += l[i*d+c] * inv[c*d+j]
			}
			inv[i*d+j] = -s / l[i*d+i]
		}
	}
}

// symEigen returns the eigenvalues of the symmetric n×n matrix a (row-major, overwritten) in
// descending order and the matching unit eigenvectors as the columns of vecs (vecs[i*n+j] is
// entry i of vector j), by cyclic Jacobi rotations. Jacobi is slow for large n but accurate to
// working precision even for tiny eigenvalues and needs no tuning, which is what the small
// matrices of PCA need.
func symEigen(a []float64, n int) (vals, vecs []float64) {
	v := make([]float64, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off, total := 0.0, 0.0
		for p := 0; p < n; p++ {
			for q := 0; q < n; q++ {
				x := a[p*n+q] * a[p*n+q]
				total += x
				if p != q {
					off += x
				}
			}
		}
		if off <= 1e-30*total || off == 0 {
			break
		}
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if g := 100 * math.Abs(apq); apq == 0 ||
					(math.Abs(a[p*n+p])+g == math.Abs(a[p*n+p]) && math.Abs(a[q*n+q])+g == math.Abs(a[q*n+q])) {
					// Below the rounding of both diagonal entries: rotating would change nothing.
					a[p*n+q], a[q*n+p] = 0, 0
					continue
				}
				// Rotate in the (p, q) plane so that the new a[p][q] is zero, choosing the
				// smaller of the two angles for stability.
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				var t float64
				if math.IsInf(theta*theta, 1) {
					t = 1 / (2 * theta)
				} else {
					t = 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
					if theta < 0 {
						t = -t
					}
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for r := 0; r < n; r++ {
					arp, arq := a[r*n+p], a[r*n+q]
					a[r*n+p] = c*arp - s*arq
					a[r*n+q] = s*arp + c*arq
				}
				for r := 0; r < n; r++ {
					apr, aqr := a[p*n+r], a[q*n+r]
					a[p*n+r] = c*apr - s*aqr
					a[q*n+r] = s*apr + c*aqr
				}
				a[p*n+q], a[q*n+p] = 0, 0
				for r := 0; r < n; r++ {
					vrp, vrq := v[r*n+p], v[r*n+q]
					v[r*n+p] = c*vrp - s*vrq
					v[r*n+q] = s*vrp + c*vrq
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return a[order[i]*n+order[i]] > a[order[j]*n+order[j]] })
	vals = make([]float64, n)
	vecs = make([]float64, n*n)
	for j, o := range order {
		vals[j] = a[o*n+o]
		for i := 0; i < n; i++ {
			vecs[i*n+j] = v[i*n+o]
		}
	}
	return vals, vecs
}

// dot returns Σ a[i]·b[i] over len(a) entries; b must be at least as long.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

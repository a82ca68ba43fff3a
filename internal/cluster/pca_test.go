package cluster

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func f32(rows [][]float64) [][]float32 {
	out := make([][]float32, len(rows))
	for i, r := range rows {
		out[i] = make([]float32, len(r))
		for j, v := range r {
			out[i][j] = float32(v)
		}
	}
	return out
}

// TestPCAKnown checks PCA on cases small enough to work out by hand.
func TestPCAKnown(t *testing.T) {
	s2 := math.Sqrt2
	tests := []struct {
		name string
		rows [][]float64
		k    int
		want [][]float64
	}{
		{
			// Points on the diagonal: one axis (1,1)/√2; the second gets no variance.
			name: "diagonal-line",
			rows: [][]float64{{1, 1}, {2, 2}, {3, 3}},
			k:    5,
			want: [][]float64{{-s2, 0}, {0, 0}, {s2, 0}},
		},
		{
			// A 4×2 rectangle: x first (variance 16/3), then y; signs make the largest loading
			// positive, so the corner (2, 1) maps to (2, 1).
			name: "rectangle",
			rows: [][]float64{{2, 1}, {-2, 1}, {-2, -1}, {2, -1}},
			k:    2,
			want: [][]float64{{2, 1}, {-2, 1}, {-2, -1}, {2, -1}},
		},
		{
			// The same rectangle with its axes swapped and shifted: y now varies most.
			name: "rectangle-rotated-shifted",
			rows: [][]float64{{11, 12}, {11, 8}, {9, 8}, {9, 12}},
			k:    2,
			want: [][]float64{{2, 1}, {-2, 1}, {-2, -1}, {2, -1}},
		},
		{
			// k = 0 is clamped to 1.
			name: "clamp-k-up",
			rows: [][]float64{{0, 0, 3}, {0, 0, -3}},
			k:    0,
			want: [][]float64{{3}, {-3}},
		},
		{
			// n = 2 allows one component only.
			name: "clamp-k-to-n-minus-1",
			rows: [][]float64{{0, 0, 3}, {0, 0, -3}},
			k:    3,
			want: [][]float64{{3}, {-3}},
		},
		{
			name: "single-row",
			rows: [][]float64{{4, 5, 6}},
			k:    2,
			want: [][]float64{{0}},
		},
		{
			name: "constant-rows",
			rows: [][]float64{{1, 2}, {1, 2}, {1, 2}},
			k:    2,
			want: [][]float64{{0, 0}, {0, 0}, {0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PCA(f32(tt.rows), tt.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d rows, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if len(got[i]) != len(tt.want[i]) {
					t.Fatalf("row %d has %d columns, want %d", i, len(got[i]), len(tt.want[i]))
				}
				for j := range got[i] {
					if math.Abs(got[i][j]-tt.want[i][j]) > 1e-6 {
						t.Errorf("row %d = %v, want %v", i, got[i], tt.want[i])
						break
					}
				}
			}
		})
	}
}

// TestPCAMatchesSklearn compares with scikit-learn's PCA on the fixture (up to the sign of each
// component, which scikit-learn fixes differently) and the explained variances.
func TestPCAMatchesSklearn(t *testing.T) {
	f := loadFixture(t)
	p := f.PCA
	got, err := PCA(f32(p.X), p.K)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < p.K; j++ {
		sign := 1.0
		if got[0][j]*p.Projection[0][j] < 0 {
			sign = -1
		}
		variance := 0.0
		for i := range got {
			if math.Abs(sign*got[i][j]-p.Projection[i][j]) > 1e-9*(1+math.Abs(p.Projection[i][j])) {
				t.Fatalf("component %d, row %d: %v, sklearn %v", j, i, sign*got[i][j], p.Projection[i][j])
			}
			variance += got[i][j] * got[i][j]
		}
		variance /= float64(len(got) - 1)
		if relErr(variance, p.ExplainedVariance[j]) > 1e-9 {
			t.Errorf("variance of component %d = %v, sklearn %v", j, variance, p.ExplainedVariance[j])
		}
	}
}

// randomRows returns n rows of d values whose covariance has a decaying spectrum: dimension a of
// a random rotation has standard deviation scale·decay^a.
func randomRows(n, d int, decay float64, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	basis := make([]float64, d*d)
	for i := range basis {
		basis[i] = rng.NormFloat64()
	}
	orthonormalize(basis, d, d, rng)
	rows := make([][]float32, n)
	z := make([]float64, d)
	for i := range rows {
		for a := range z {
			z[a] = rng.NormFloat64() * 10 * math.Pow(decay, float64(a))
		}
		r := make([]float32, d)
		for b := 0; b < d; b++ {
			s := 5.0 // an offset, so centring matters
			for a := 0; a < d; a++ {
				s += z[a] * basis[a*d+b]
			}
			r[b] = float32(s)
		}
		rows[i] = r
	}
	return rows
}

// TestPCAProperties checks, on every solver path, that the projected columns are uncorrelated
// with decreasing variances, that the axes are orthonormal with the sign rule applied, and that
// the result is deterministic.
func TestPCAProperties(t *testing.T) {
	tests := []struct {
		name        string
		n, d, k     int
		decay       float64
		wantSolver  string
		compareFull bool
	}{
		{"scatter-jacobi", 500, 12, 4, 0.8, "jacobi", false},
		{"scatter-subspace", 400, 150, 6, 0.9, "subspace", true},
		{"gram-jacobi", 30, 200, 5, 0.8, "jacobi", false},
		{"gram-subspace", 120, 300, 5, 0.85, "subspace", true},
		{"all-components", 50, 8, 8, 0.7, "jacobi", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := randomRows(tt.n, tt.d, tt.decay, uint64(tt.n*tt.d))
			m := min(tt.n, tt.d)
			l := min(m, 2*tt.k+10)
			solver := "subspace"
			if m <= jacobiMax || 2*l >= m {
				solver = "jacobi"
			}
			if solver != tt.wantSolver {
				t.Fatalf("case uses the %s solver, meant to test %s", solver, tt.wantSolver)
			}
			p, err := PCA(rows, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			k := tt.k
			cov := make([]float64, k*k)
			for _, r := range p {
				for a := 0; a < k; a++ {
					for b := 0; b < k; b++ {
						cov[a*k+b] += r[a] * r[b]
					}
				}
			}
			for a := 0; a < k; a++ {
				if a > 0 && cov[a*k+a] > cov[(a-1)*k+a-1]*(1+1e-9) {
					t.Errorf("variance of column %d (%v) exceeds column %d (%v)", a, cov[a*k+a], a-1, cov[(a-1)*k+a-1])
				}
				for b := 0; b < a; b++ {
					if c := math.Abs(cov[a*k+b]) / math.Sqrt(cov[a*k+a]*cov[b*k+b]); c > 1e-6 {
						t.Errorf("columns %d and %d correlate: %v", a, b, c)
					}
				}
			}

			mean := make([]float64, tt.d)
			for _, r := range rows {
				for a, v := range r {
					mean[a] += float64(v) / float64(tt.n)
				}
			}
			axes, vars := principalAxes(Rows(rows), len(rows), mean, k, 3)
			for a := 0; a < k; a++ {
				for b := 0; b <= a; b++ {
					want := 0.0
					if a == b {
						want = 1
					}
					if got := dot(axes[a*tt.d:(a+1)*tt.d], axes[b*tt.d:(b+1)*tt.d]); math.Abs(got-want) > 1e-9 {
						t.Errorf("axes %d·%d = %v, want %v", a, b, got, want)
					}
				}
				big := 0.0
				for _, v := range axes[a*tt.d : (a+1)*tt.d] {
					if math.Abs(v) > math.Abs(big) {
						big = v
					}
				}
				if big < 0 {
					t.Errorf("axis %d: largest loading %v is negative", a, big)
				}
				if v := cov[a*k+a] / float64(tt.n-1); relErr(vars[a], v) > 1e-9 {
					t.Errorf("variance %d = %v, projected data %v", a, vars[a], v)
				}
			}

			if tt.compareFull {
				// The subspace iteration must agree with a complete Jacobi decomposition of the
				// scatter matrix.
				s := scatter(Rows(rows), mean, 1)
				vals, vecs := symEigen(s, tt.d)
				for a := 0; a < k; a++ {
					if relErr(vars[a], vals[a]/float64(tt.n-1)) > 1e-9 {
						t.Errorf("variance %d = %v, Jacobi %v", a, vars[a], vals[a]/float64(tt.n-1))
					}
					c := 0.0
					for i := 0; i < tt.d; i++ {
						c += axes[a*tt.d+i] * vecs[i*tt.d+a]
					}
					if math.Abs(math.Abs(c)-1) > 1e-8 {
						t.Errorf("axis %d: |cos| with Jacobi's = %v", a, math.Abs(c))
					}
				}
			}

			again, err := PCA(rows, tt.k)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p {
				for j := range p[i] {
					if p[i][j] != again[i][j] {
						t.Fatalf("second run differs at row %d", i)
					}
				}
			}
		})
	}
}

// TestPCAErrors checks that bad input gives errors, not panics.
func TestPCAErrors(t *testing.T) {
	nan := float32(math.NaN())
	tests := []struct {
		name string
		rows [][]float32
		want string
	}{
		{"empty", nil, "no rows"},
		{"no-columns", [][]float32{{}, {}}, "no columns"},
		{"ragged", [][]float32{{1, 2}, {1, 2}, {1}}, "row 2 has 1 values"},
		{"nan", [][]float32{{1, 2}, {nan, 2}}, "row 1, column 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := PCA(tt.rows, 2)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestLinalg checks the small dense kernels against hand-computed results.
func TestLinalg(t *testing.T) {
	a := []float64{4, 2, 2, 2, 5, 1, 2, 1, 6}
	l := make([]float64, 9)
	if !cholesky(l, a, 3) {
		t.Fatal("cholesky failed on a positive definite matrix")
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			s := 0.0
			for c := 0; c < 3; c++ {
				s += l[i*3+c] * l[j*3+c]
			}
			if math.Abs(s-a[i*3+j]) > 1e-12 {
				t.Errorf("(L·Lᵀ)[%d][%d] = %v, want %v", i, j, s, a[i*3+j])
			}
		}
	}
	inv := make([]float64, 9)
	invertLower(inv, l, 3)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			s := 0.0
			for c := 0; c < 3; c++ {
				s += inv[i*3+c] * l[c*3+j]
			}
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(s-want) > 1e-12 {
				t.Errorf("(L⁻¹·L)[%d][%d] = %v", i, j, s)
			}
		}
	}
	if cholesky(l, []float64{1, 2, 2, 1}, 2) {
		t.Error("cholesky accepted an indefinite matrix")
	}
	if cholesky(l, []float64{1, 1, 1, 1}, 2) {
		t.Error("cholesky accepted a singular matrix")
	}

	// Eigenvalues of [[2,1,0],[1,2,0],[0,0,5]] are 5, 3, 1.
	vals, vecs := symEigen([]float64{2, 1, 0, 1, 2, 0, 0, 0, 5}, 3)
	for i, want := range []float64{5, 3, 1} {
		if math.Abs(vals[i]-want) > 1e-12 {
			t.Errorf("eigenvalue %d = %v, want %v", i, vals[i], want)
		}
	}
	if c := math.Abs(vecs[0*3+1] + vecs[1*3+1]); math.Abs(c-math.Sqrt2) > 1e-12 {
		t.Errorf("eigenvector for 3 is not ±(1,1,0)/√2: %v", []float64{vecs[1], vecs[4], vecs[7]})
	}
}

// TestPCAStreamMatchesPCA: reading the rows in passes gives PCA's output bit for bit, with more
// rows than dimensions (scatter matrix, a partial last chunk) and fewer (Gram matrix); a source
// whose rows change between passes, or that fails, is an error.
func TestPCAStreamMatchesPCA(t *testing.T) {
	for _, tc := range []struct{ n, d, k int }{{1000, 24, 5}, {200, 24, 10}, {64, 8, 3}, {10, 40, 4}, {2, 3, 1}} {
		rows := randomRows(tc.n, tc.d, 0.8, uint64(tc.n*tc.d))
		want, err := PCA(rows, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		passes := 0
		src := func(fn func(int, []float32) error) error {
			passes++
			buf := make([]float32, tc.d) // reused, as a store-backed source would
			for i, r := range rows {
				copy(buf, r)
				if err := fn(i, buf); err != nil {
					return err
				}
			}
			return nil
		}
		got, err := PCAStream(tc.n, tc.d, src, tc.k)
		if err != nil {
			t.Fatalf("n=%d d=%d: %v", tc.n, tc.d, err)
		}
		if exact, err := NewProjection(want); err != nil || !reflect.DeepEqual(got, exact) {
			t.Errorf("n=%d d=%d k=%d: PCAStream differs from PCA (%v)", tc.n, tc.d, tc.k, err)
		}
		if passes != 3 {
			t.Errorf("n=%d d=%d: %d passes over the rows, want 3", tc.n, tc.d, passes)
		}
		// Held in float32 (a layer of more rows than exactRows), every coordinate is PCA's
		// rounded once.
		small, err := pcaStream(tc.n, tc.d, src, tc.k, tc.n-1)
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range want {
			for j, v := range row {
				if small.f64 != nil || small.at(i, j) != float64(float32(v)) {
					t.Fatalf("n=%d d=%d k=%d: row %d column %d held as %v, want %v rounded to float32", tc.n, tc.d, tc.k, i, j, small.at(i, j), v)
				}
			}
		}
	}
	rows := randomRows(100, 8, 0.8, 7)
	if _, err := PCAStream(101, 8, Rows(rows), 2); err == nil {
		t.Error("PCAStream with fewer rows than n: no error")
	}
	broken := errors.New("read failed")
	calls := 0
	failing := func(fn func(int, []float32) error) error {
		if calls++; calls == 2 {
			return broken
		}
		return Rows(rows)(fn)
	}
	if _, err := PCAStream(100, 8, failing, 2); !errors.Is(err, broken) {
		t.Errorf("PCAStream over a source failing in its second pass: %v, want %v", err, broken)
	}
}

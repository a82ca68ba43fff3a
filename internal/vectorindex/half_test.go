package vectorindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestToHalf: known roundings, including ties to even, the subnormal range and overflow.
func TestToHalf(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		want uint16
	}{
		{0, 0},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},                 // the largest half
		{65519, 0x7bff},                 // below the midpoint to infinity
		{65520, 0x7c00},                 // the midpoint rounds to even: infinity
		{1 + 0x1p-11, 0x3c00},           // tie between 1 and 1+2^-10: even is 1
		{1 + 3*0x1p-11, 0x3c02},         // tie between 1+2^-10 and 1+2^-9: even is the upper
		{1 + 0x1p-11 + 0x1p-20, 0x3c01}, // just above the tie
		{0x1p-14, 0x0400},               // the smallest normal
		{0x1p-24, 0x0001},               // the smallest subnormal
		{0x1p-25, 0},                    // tie between 0 and 2^-24: even is 0
		{0x1.8p-25, 0x0001},             // above it
		{3 * 0x1p-25, 0x0002},           // tie between 2^-24 and 2^-23: even is 2^-23
		{0x1.ffcp-15, 0x0400},           // rounds up out of the subnormals
		{float32(math.Inf(1)), 0x7c00},  //
		{float32(math.Inf(-1)), 0xfc00}, //
		{1e-30, 0},                      // far below the subnormals
		{float32(math.NaN()), 0x7e00},   //
	} {
		if got := toHalf(tc.f); got != tc.want {
			t.Errorf("toHalf(%g) = %#04x, want %#04x", tc.f, got, tc.want)
		}
	}
}

// TestToHalfIsNearest: for random floats across the half range, toHalf's result is at least as
// close as either neighbouring half, and fromHalf of every finite half rounds back to itself.
func TestToHalfIsNearest(t *testing.T) {
	for h := range uint16(0x7c00) {
		for _, sign := range []uint16{0, 0x8000} {
			if got := toHalf(fromHalf(h | sign)); got != h|sign {
				t.Fatalf("toHalf(fromHalf(%#04x)) = %#04x", h|sign, got)
			}
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200000 {
		f := float32(math.Ldexp(rng.Float64(), -rng.IntN(30)+15))
		h := toHalf(f)
		d := math.Abs(float64(fromHalf(h)) - float64(f))
		for _, n := range []uint16{h - 1, h + 1} {
			if n >= 0x7c00 || h == 0 && n == 0xffff {
				continue
			}
			if dn := math.Abs(float64(fromHalf(n)) - float64(f)); dn < d || dn == d && h&1 == 1 {
				t.Fatalf("toHalf(%g) = %#04x (%g), but %#04x (%g) is nearer or the even tie", f, h, fromHalf(h), n, fromHalf(n))
			}
		}
	}
}

// TestDot4HalfWithinSlack: the kernel (where the CPU has one) agrees with its Go twin up to the
// rounding of fused multiply-adds, and its estimates are within halfSlack of dot.
func TestDot4HalfWithinSlack(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, dim := range []int{8, 384, 1536} {
		for range 50 {
			q := Normalized(randomVector(rng, dim))
			var rows []float32
			for range 4 {
				rows = append(rows, Normalized(randomVector(rng, dim))...)
			}
			half := halfOf(rows)
			var kernel, twin [32]float32
			dot4HalfLanes(q, half, dim, &twin)
			if hasDot4Half {
				dot4Half(&q[0], &half[0], dim, &kernel)
			} else {
				kernel = twin
			}
			for r := range 4 {
				exact := Dot(q, rows[r*dim:(r+1)*dim])
				for name, lanes := range map[string]*[32]float32{"dot4Half": &kernel, "dot4HalfLanes": &twin} {
					if est := lanesDot(lanes[8*r : 8*r+8]); math.Abs(est-exact) > halfSlack(dim) {
						t.Fatalf("dim %d row %d: %s estimates %v, dot gives %v: more than %v apart", dim, r, name, est, exact, halfSlack(dim))
					}
				}
			}
		}
	}
}

// TestPrescanCrowdedTop: when hundreds of rows have cosines with the query a millionth apart,
// far closer than half precision resolves, the prescan still returns the exact scan's top k.
func TestPrescanCrowdedTop(t *testing.T) {
	if !hasDot4Half {
		t.Skip("no F16C: sets keep no half-precision copy here")
	}
	rng := rand.New(rand.NewPCG(17, 18))
	const dim, n = 384, 4000
	q := Normalized(randomVector(rng, dim))
	exact := &Set{dim: dim}
	for i := range n {
		// u: a unit vector orthogonal to q; the row is cos·q + sin·u, so its cosine is cos.
		u := randomVector(rng, dim)
		var along float64
		for j := range dim {
			along += float64(u[j]) * float64(q[j])
		}
		for j := range dim {
			u[j] -= float32(along) * q[j]
		}
		u = Normalized(u)
		cos := 0.5 + float64(i%400)*1e-6
		if i >= 400 {
			cos = rng.Float64() * 0.4
		}
		row := make([]float32, dim)
		for j := range dim {
			row[j] = float32(cos*float64(q[j]) + math.Sqrt(1-cos*cos)*float64(u[j]))
		}
		exact.ids = append(exact.ids, fmt.Sprintf("v%05d", i))
		exact.vecs = append(exact.vecs, Normalized(row)...)
	}
	prescanned := *exact
	prescanned.half = halfOf(exact.vecs)
	for _, k := range []int{1, 20, 100, 399} {
		if got, want := prescanned.Search(q, k), exact.Search(q, k); !reflect.DeepEqual(got, want) {
			t.Fatalf("k=%d: the prescan differs from the exact scan", k)
		}
	}
}

// TestPrescanMatchesSearch: a search through the half-precision copy returns exactly what the
// exact scan returns, also where many rows tie or differ by less than half precision can tell.
func TestPrescanMatchesSearch(t *testing.T) {
	if !hasDot4Half {
		t.Skip("no F16C: sets keep no half-precision copy here")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	const dim = 384
	for _, n := range []int{4, 7, 1001, 6003, 40000} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			exact := &Set{dim: dim}
			for i := range n {
				exact.ids = append(exact.ids, fmt.Sprintf("v%05d", (i*7919)%n))
				v := Normalized(randomVector(rng, dim))
				switch {
				case i%10 == 3 && i > 0: // equal scores: the ids decide
					v = exact.vecs[(i-1)*dim : i*dim]
				case i%10 == 5 && i > 0: // nearly equal: below what half precision resolves
					v = append([]float32(nil), exact.vecs[(i-1)*dim:i*dim]...)
					v[rng.IntN(dim)] += 1e-6
					v = Normalized(v)
				}
				exact.vecs = append(exact.vecs, v...)
			}
			prescanned := *exact
			prescanned.half = halfOf(exact.vecs)
			for range 5 {
				q := Normalized(randomVector(rng, dim))
				if n > 1 && rng.IntN(2) == 0 { // a query close to a stored row, as real ones often are
					j := rng.IntN(n)
					q = Normalized(exact.vecs[j*dim : (j+1)*dim])
				}
				for _, k := range []int{1, 20, 200} {
					if got, want := prescanned.Search(q, k), exact.Search(q, k); !reflect.DeepEqual(got, want) {
						t.Fatalf("k=%d: the prescan returns %v, the exact scan %v", k, got, want)
					}
				}
			}
		})
	}
}

package vectorindex

import (
	"container/heap"
	"math"

	"github.com/stratarag/strata/internal/graph"
)

// halfPrescanMACs is the size (vectors × dimensions) from which a resident store keeps a
// half-precision copy of a vector set. An exact scan of a large set is bound by memory bandwidth
// (a 10x mix store's 191 k × 384 entity vectors are 293 MB per search); the copy halves what a
// search reads, for 2 bytes per dimension more memory (its effect on served queries:
// docs/ARCHITECTURE.md); far smaller sets stay in the CPU's caches.
const halfPrescanMACs = 4 << 20

// WithHalf gives set a half-precision copy of its rows, which Search scans first, when it is
// large enough and the CPU can read it (hasDot4Half); it returns set. The copy costs 2 bytes per
// dimension and row: worth it for a set that answers many searches.
func (set *Set) WithHalf() *Set {
	if !hasDot4Half || set.dim%8 != 0 || len(set.ids)*set.dim < halfPrescanMACs {
		return set
	}
	set.half = halfOf(set.vecs)
	return set
}

// halfOf rounds every float of vecs to half precision.
func halfOf(vecs []float32) []uint16 {
	half := make([]uint16, len(vecs))
	for i, x := range vecs {
		half[i] = toHalf(x)
	}
	return half
}

// halfSlack bounds how far a cosine estimated from half-precision rows (dot4Half) can be from
// the cosine dot computes for the same unit vectors of dim dimensions. Rounding a component v to
// half precision moves it by at most 2^-11·|v|, or 2^-25 below the normal range, so the product
// with a unit query moves by at most 2^-11·Σ|q||v| + 2^-25·Σ|q| ≤ 2^-11 + 2^-25·dim; summing
// dim/8 products per lane in float32 adds at most about (dim/8)·2^-24 to each of the two
// computations. dim·2^-22 covers the last two terms with room to spare.
func halfSlack(dim int) float64 {
	return 0x1p-11 + float64(dim)*0x1p-22
}

// prescanRange is searchRange through the half-precision copy: it estimates every row's cosine
// from half, keeps the rows whose estimate is within 2·halfSlack of the k-th best estimate, and
// scores only those with dot. The k best rows by dot are among them: each of the k best
// estimates is at most halfSlack above its row's cosine, so the k-th best cosine is at least
// the k-th best estimate − halfSlack, and a row that reaches it has an estimate at least
// 2·halfSlack below the k-th best estimate. The result is searchRange's, bit for bit.
func (set *Set) prescanRange(q []float32, k, from, to int) []graph.Hit {
	dim := set.dim
	window := 2 * halfSlack(dim)
	estimates := make(floatHeap, 0, k) // the k best estimates, the worst on top
	floor := math.Inf(-1)              // estimates below it cannot reach the k best
	var rows []int
	var ests []float64
	note := func(i int, est float64) {
		switch {
		case len(estimates) < k:
			heap.Push(&estimates, est)
			if len(estimates) == k {
				floor = estimates[0] - window
			}
		case est > estimates[0]:
			estimates[0] = est
			heap.Fix(&estimates, 0)
			floor = estimates[0] - window
		}
		if est < floor {
			return
		}
		rows, ests = append(rows, i), append(ests, est)
		if len(rows) >= 4*k+1024 { // drop the rows the floor has passed since
			rows, ests = keepFrom(rows, ests, floor)
		}
	}
	i := from
	if k > 0 {
		var lanes [32]float32
		for ; i+4 <= to; i += 4 {
			dot4Half(&q[0], &set.half[i*dim], dim, &lanes)
			for r := range 4 {
				note(i+r, lanesDot(lanes[8*r:8*r+8]))
			}
		}
	}
	rows, _ = keepFrom(rows, ests, floor)
	for ; i < to; i++ { // the last rows of the range, fewer than four, are scored exactly
		rows = append(rows, i)
	}
	best := newBestHits(k, len(rows))
	for _, r := range rows {
		best.consider(set.ids[r], Dot(q, set.vecs[r*dim:(r+1)*dim]))
	}
	return best.sorted()
}

// keepFrom keeps the rows whose estimate is at least floor, in order.
func keepFrom(rows []int, ests []float64, floor float64) ([]int, []float64) {
	n := 0
	for j, est := range ests {
		if est >= floor {
			rows[n], ests[n] = rows[j], est
			n++
		}
	}
	return rows[:n], ests[:n]
}

// floatHeap is a min-heap of float64s.
type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// toHalf rounds f to the nearest IEEE 754 half-precision number (ties to even), as the F16C
// instruction VCVTPS2PH does in its default rounding mode. Values beyond the half range become
// infinities and NaNs stay NaNs; unit vectors have neither.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN: keep it quiet
		return sign | 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0: // below the normal range: a subnormal half, or zero
		return sign | uint16(shiftRoundEven(mant|0x800000, uint(14-exp)))
	}
	h := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent, which is the right rounding (up to infinity)
	}
	return sign | uint16(h)
}

// shiftRoundEven is m / 2^s rounded to the nearest integer, ties to even.
func shiftRoundEven(m uint32, s uint) uint32 {
	if s >= 32 {
		return 0
	}
	r, rem, half := m>>s, m&(1<<s-1), uint32(1)<<s>>1
	if rem > half || rem == half && r&1 == 1 {
		r++
	}
	return r
}

// fromHalf is the float32 value of the half-precision number h.
func fromHalf(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, mant := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * float32(math.Ldexp(mant, -24))
	case 31:
		if mant != 0 {
			return float32(math.NaN())
		}
		return sign * float32(math.Inf(1))
	}
	return sign * float32(math.Ldexp(1024+mant, exp-25))
}

// dot4HalfLanes is what dot4Half computes, in Go, but with a separate multiply and add where the
// kernel fuses them: an estimate's lane sums for the four rows of dim halves in rows.
func dot4HalfLanes(q []float32, rows []uint16, dim int, out *[32]float32) {
	for r := range 4 {
		var s [8]float32
		for i := 0; i+8 <= dim; i += 8 {
			for j := range 8 {
				s[j] += q[i+j] * fromHalf(rows[r*dim+i+j])
			}
		}
		copy(out[8*r:], s[:])
	}
}

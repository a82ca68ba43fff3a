//go:build !amd64

package vectorindex

import "unsafe"

// hasDot4 is false where there is no vector kernel: search uses dot alone.
const hasDot4 = false

// dot4AVX2 is dot4Lanes where there is no vector kernel.
func dot4AVX2(q, rows *float32, dim int, out *[32]float32) {
	dot4Lanes(unsafe.Slice(q, dim), unsafe.Slice(rows, 4*dim), dim, out)
}

// hasDot4Half is false where there is no vector kernel: a set keeps no half-precision copy.
const hasDot4Half = false

// dot4Half is dot4HalfLanes where there is no vector kernel (never called: hasDot4Half).
func dot4Half(q *float32, rows *uint16, dim int, out *[32]float32) {
	dot4HalfLanes(unsafe.Slice(q, dim), unsafe.Slice(rows, 4*dim), dim, out)
}

//go:build !amd64

package embedded

import "unsafe"

// hasDot4 is false where there is no vector kernel: search uses dot alone.
const hasDot4 = false

// dot4AVX2 is dot4Lanes where there is no vector kernel.
func dot4AVX2(q, rows *float32, dim int, out *[32]float32) {
	dot4Lanes(unsafe.Slice(q, dim), unsafe.Slice(rows, 4*dim), dim, out)
}

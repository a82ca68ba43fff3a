package vectorindex

import "golang.org/x/sys/cpu"

// hasDot4 reports whether dot4 may be used: it needs AVX2 (and the OS saving the YMM registers,
// which cpu.X86.HasAVX2 includes).
var hasDot4 = cpu.X86.HasAVX2

// dot4AVX2 computes, for the four rows of dim float32s that start at rows (one after the
// other), the eight lane sums dot keeps in s0..s7: out[8*r+j] is the float32 sum, in index
// order, of the products q[i]*rows[r][i] for i ≡ j (mod 8). Each product is rounded to float32
// before it is added (VMULPS then VADDPS, never a fused multiply-add), which is what dot's Go
// code does, so lanesDot of the lanes is bit for bit dot's result. dim must be a multiple of 8.
//
//go:noescape
func dot4AVX2(q, rows *float32, dim int, out *[32]float32)

// hasDot4Half reports whether dot4Half may be used: it needs F16C to widen halves and FMA.
var hasDot4Half = cpu.X86.HasAVX2 && cpu.X86.HasF16C && cpu.X86.HasFMA

// dot4Half is dot4AVX2 over rows of dim IEEE half-precision numbers, with fused multiply-adds:
// an estimate of the four rows' lane sums (vectorhalf.go bounds its error). dim must be a
// multiple of 8.
//
//go:noescape
func dot4Half(q *float32, rows *uint16, dim int, out *[32]float32)

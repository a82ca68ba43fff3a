#include "textflag.h"

// func dot4AVX2(q, rows *float32, dim int, out *[32]float32)
// Four rows at a time keep four independent accumulators in flight; one row alone would wait
// on the latency of each VADDPS.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), CX
	MOVQ out+24(FP), DX
	SHLQ $2, CX                 // bytes per row
	LEAQ (DI)(CX*1), R8         // row 1
	LEAQ (R8)(CX*1), R9         // row 2
	LEAQ (R9)(CX*1), R10        // row 3
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPS (SI)(AX*1), Y4
	VMULPS  (DI)(AX*1), Y4, Y5
	VADDPS  Y5, Y0, Y0
	VMULPS  (R8)(AX*1), Y4, Y6
	VADDPS  Y6, Y1, Y1
	VMULPS  (R9)(AX*1), Y4, Y7
	VADDPS  Y7, Y2, Y2
	VMULPS  (R10)(AX*1), Y4, Y8
	VADDPS  Y8, Y3, Y3
	ADDQ    $32, AX
	JMP     loop

done:
	VMOVUPS Y0, 0(DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VZEROUPPER
	RET

// func dot4Half(q *float32, rows *uint16, dim int, out *[32]float32)
// As dot4AVX2 over rows of IEEE half floats: VCVTPH2PS widens eight halves to eight float32s,
// and a fused multiply-add accumulates, since the result is an estimate anyway.
TEXT ·dot4Half(SB), NOSPLIT, $0-32
	MOVQ q+0(FP), SI
	MOVQ rows+8(FP), DI
	MOVQ dim+16(FP), CX
	MOVQ out+24(FP), DX
	SHLQ $1, CX                 // bytes per row of halves
	LEAQ (DI)(CX*1), R8         // row 1
	LEAQ (R8)(CX*1), R9         // row 2
	LEAQ (R9)(CX*1), R10        // row 3
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX                 // offset into the rows (bytes)
	XORQ BX, BX                 // offset into q (bytes)

hloop:
	CMPQ AX, CX
	JGE  hdone
	VMOVUPS     (SI)(BX*1), Y4
	VCVTPH2PS   (DI)(AX*1), Y5
	VFMADD231PS Y4, Y5, Y0
	VCVTPH2PS   (R8)(AX*1), Y6
	VFMADD231PS Y4, Y6, Y1
	VCVTPH2PS   (R9)(AX*1), Y7
	VFMADD231PS Y4, Y7, Y2
	VCVTPH2PS   (R10)(AX*1), Y8
	VFMADD231PS Y4, Y8, Y3
	ADDQ        $16, AX
	ADDQ        $32, BX
	JMP         hloop

hdone:
	VMOVUPS Y0, 0(DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VZEROUPPER
	RET

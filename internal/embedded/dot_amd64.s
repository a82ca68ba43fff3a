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

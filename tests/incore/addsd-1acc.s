# s += x[i] with one scalar accumulator, the add folding the load.
	.intel_syntax noprefix
.Lloop:
	vaddsd	xmm0, xmm0, qword ptr [rsi + 8*rcx]
	add	rcx, 1
	cmp	rcx, rdx
	jne	.Lloop

# tests/incore/lea-step.s with the index stepped by add: the same chain.
vmovq (%rdx,%rcx,4), %xmm5
vpaddd %xmm4, %xmm5, %xmm4
vpmaxsd %xmm1, %xmm4, %xmm4
vmovq %xmm4, (%rdx,%rcx,4)
addq $1, %rcx

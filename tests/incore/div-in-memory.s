# adi's p[i][j] = c / (a * p[i][j - 1] + b) as clang keeps it: through memory
# (InCore.AValueThroughMemoryComesBackAtTheForwardingLatency).
vmovsd (%rdi), %xmm9
vfmadd132sd %xmm0, %xmm1, %xmm9
vdivsd %xmm9, %xmm2, %xmm10
vmovsd %xmm10, 8(%rdi)
addq $8, %rdi

# A chain through the register operand of an add with a folded load
# (gauss_seidel's left neighbour): add, add with load, multiply, 3 cycles
# each on Zen 3 whatever the load's latency, 9 a trip (timed on a Zen 3 VM:
# 8.8-9.0, bench/incore/load_op_chain.c; llvm-mca-19 -mcpu=znver3: 13).
vaddsd %xmm2, %xmm1, %xmm1
vaddsd (%rdi), %xmm1, %xmm1
vmulsd %xmm0, %xmm1, %xmm1

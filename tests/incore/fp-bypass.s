# LCALS's TRIDIAG_ELIM chain, x = z * (y - x): a subtract, then a multiply
# with a folded load, feeding the next subtract. On the Zen 5 VM an add's
# result reaches another add in 2 cycles but anything else in 3: 3 + 3 = 6
# cycles a trip, as bench/incore/fp_bypass.c times (sub->mul 6.0; the
# compiled loop 5.74-5.95 cy/it), not the 2 + 3 that latency_cy alone gives.
vmovsd (%rdx,%rax,8), %xmm1
vsubsd %xmm0, %xmm1, %xmm0
vmulsd (%rcx,%rax,8), %xmm0, %xmm0
vmovsd %xmm0, (%rsi,%rax,8)

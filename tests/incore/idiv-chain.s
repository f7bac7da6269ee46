# bench/incore/int_divide.c's chain on the Zen 5 VM: cdq, idiv r10d, and:
# 1 + 10 + 1 = 12 cycles a link (timed 12.1; LLVM 19's znver5: 13 for the
# divide). r10d matches a 64-bit form ("*div r1[0-5]", forms match the start
# of the text) and then its 32-bit one; the last one's latency holds.
.intel_syntax noprefix
cdq
idiv r10d
and eax, 255

# The loop of fma-stores.s with multiplies for the FMAs: on Zen 3 they share
# no slot with the stores (timed 12.7-14.4 cy, bench/incore/fma_stores.c).
.intel_syntax noprefix
.text
loop:
  .irp k, 1,2,3,4,5,6,7,8,9,10,11,12
  vmulpd ymm\k, ymm\k, ymm13
  .endr
  .irp k, 1,2,3,4,5,6,7,8,9,10,11,12
  vmulpd ymm\k, ymm\k, ymm13
  .endr
  .irp k, 0,1,2,3,4,5,6,7
  vmovupd ymmword ptr [rsi + 32*\k], ymm\k
  .endr
  dec rcx
  jne loop

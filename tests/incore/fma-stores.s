# 24 FMAs on twelve accumulators and 8 stores of ymm registers a trip
# (bench/incore/fma_stores.c): on Zen 3 an FMA and an FP store share a slot,
# two FMAs or one store a cycle: 20 cycles (timed on a Zen 3 VM, 2026-11-26:
# 18.8-20.0). The FMA pipes alone take 12.
.intel_syntax noprefix
.text
loop:
  .irp k, 1,2,3,4,5,6,7,8,9,10,11,12
  vfmadd213pd ymm\k, ymm13, ymm14
  .endr
  .irp k, 1,2,3,4,5,6,7,8,9,10,11,12
  vfmadd213pd ymm\k, ymm13, ymm14
  .endr
  .irp k, 0,1,2,3,4,5,6,7
  vmovupd ymmword ptr [rsi + 32*\k], ymm\k
  .endr
  dec rcx
  jne loop

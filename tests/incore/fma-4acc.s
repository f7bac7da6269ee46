# Reduction with 4 independent accumulators (ymm0..ymm3).
.intel_syntax noprefix
.text
loop:
  vfmadd231pd ymm0, ymm14, ymm15
  vfmadd231pd ymm1, ymm14, ymm15
  vfmadd231pd ymm2, ymm14, ymm15
  vfmadd231pd ymm3, ymm14, ymm15
  add rax, 16
  cmp rax, rdx
  jne loop

# Reduction with 8 independent accumulators (ymm0..ymm7).
.intel_syntax noprefix
.text
loop:
  vfmadd231pd ymm0, ymm14, ymm15
  vfmadd231pd ymm1, ymm14, ymm15
  vfmadd231pd ymm2, ymm14, ymm15
  vfmadd231pd ymm3, ymm14, ymm15
  vfmadd231pd ymm4, ymm14, ymm15
  vfmadd231pd ymm5, ymm14, ymm15
  vfmadd231pd ymm6, ymm14, ymm15
  vfmadd231pd ymm7, ymm14, ymm15
  add rax, 32
  cmp rax, rdx
  jne loop

# The scalar remainder of c[j] += a * b[j]: a load, an FMA with a folded
# load and a store of xmm registers per iteration (clang-19 -O3, znver5).
.intel_syntax noprefix
.text
loop:
  vmovsd xmm1, qword ptr [rsi + 8*rax]
  vfmadd213sd xmm1, xmm0, qword ptr [rdi + 8*rax]
  vmovsd qword ptr [rdi + 8*rax], xmm1
  inc rax
  cmp rdx, rax
  jne loop

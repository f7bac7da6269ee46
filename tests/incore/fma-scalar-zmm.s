# Eight independent scalar FMAs and eight independent 512-bit FMAs, with a
# folded load on one of each: throughput-bound on the FMA pipes.
.intel_syntax noprefix
.text
loop:
  vfmadd231sd xmm0, xmm14, xmm15
  vfmadd231sd xmm1, xmm14, xmm15
  vfmadd231ss xmm2, xmm14, xmm15
  vfmadd213ss xmm3, xmm14, xmm15
  vfnmadd231sd xmm4, xmm14, xmm15
  vfmsub132sd xmm5, xmm14, xmm15
  vfmadd231sd xmm6, xmm14, xmm15
  vfmadd231sd xmm7, xmm14, qword ptr [rax]
  vfmadd231pd zmm16, zmm14, zmm15
  vfmadd231pd zmm17, zmm14, zmm15
  vfmadd231ps zmm18, zmm14, zmm15
  vfmadd213pd zmm19, zmm14, zmm15
  vfnmadd231pd zmm20, zmm14, zmm15
  vfmsub132pd zmm21, zmm14, zmm15
  vfmadd231pd zmm22, zmm14, zmm15
  vfmadd231pd zmm23, zmm14, zmmword ptr [rax + 64]
  add rax, 128
  cmp rax, rdx
  jne loop

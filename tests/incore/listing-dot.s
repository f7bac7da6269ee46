# A whole function as a compiler lists it: dot product with one ymm
# accumulator (the vector loop is fma-1acc.s), a scalar remainder loop and
# the horizontal reduction. `incore` costs the larger innermost loop only.
.intel_syntax noprefix
.text
dot:
  vxorpd xmm0, xmm0, xmm0
  xor eax, eax
  mov rcx, rdx
  and rcx, -4
  je .Lrem
.Lvec:
  vmovupd ymm1, ymmword ptr [rdi + 8*rax]
  vfmadd231pd ymm0, ymm1, ymmword ptr [rsi + 8*rax]
  add rax, 4
  cmp rax, rcx
  jne .Lvec
.Lrem:
  vextractf128 xmm1, ymm0, 1
  vaddpd xmm0, xmm0, xmm1
  vhaddpd xmm0, xmm0, xmm0
  cmp rax, rdx
  jae .Ldone
.Lscalar:
  vmovsd xmm1, qword ptr [rdi + 8*rax]
  vfmadd231sd xmm0, xmm1, qword ptr [rsi + 8*rax]
  inc rax
  cmp rax, rdx
  jb .Lscalar
.Ldone:
  vzeroupper
  ret

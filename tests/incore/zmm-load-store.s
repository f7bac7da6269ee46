# Two 64-byte loads and a 64-byte store per line of output (triad's body
# on zmm registers, clang-19 -O3 -march=znver4, two lines per trip).
.intel_syntax noprefix
.text
loop:
  vmovupd zmm1, zmmword ptr [rsi + rax]
  vfmadd213pd zmm1, zmm0, zmmword ptr [rdx + rax]
  vmovupd zmmword ptr [rdi + rax], zmm1
  vmovupd zmm2, zmmword ptr [rsi + rax + 64]
  vfmadd213pd zmm2, zmm0, zmmword ptr [rdx + rax + 64]
  vmovupd zmmword ptr [rdi + rax + 64], zmm2
  add rax, 128
  cmp rax, rcx
  jne loop

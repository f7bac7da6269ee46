# Four independent gathers, each beside 32 register moves that the renamer
# eliminates (bench/incore/gather_contention.c's "32 register moves" row).
.intel_syntax noprefix
.text
loop:
  kxnorw k1, k0, k0
  vxorpd xmm4, xmm4, xmm4
  vgatherdpd zmm4 {k1}, zmmword ptr [rdi + 8*ymm0]
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  kxnorw k1, k0, k0
  vxorpd xmm5, xmm5, xmm5
  vgatherdpd zmm5 {k1}, zmmword ptr [rdi + 8*ymm0]
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  kxnorw k1, k0, k0
  vxorpd xmm6, xmm6, xmm6
  vgatherdpd zmm6 {k1}, zmmword ptr [rdi + 8*ymm0]
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  kxnorw k1, k0, k0
  vxorpd xmm7, xmm7, xmm7
  vgatherdpd zmm7 {k1}, zmmword ptr [rdi + 8*ymm0]
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  vmovapd xmm9, xmm8
  vmovapd xmm11, xmm10
  mov r9, r8
  mov r11, r10
  dec r12
  jne loop

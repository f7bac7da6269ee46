# Four ymm loads and twelve integer loads per iteration, independent, in L1
# (bench/incore/load_mix.sh's "ymm 4 + int 12").
.intel_syntax noprefix
.text
loop:
  mov rax, qword ptr [rdx]
  mov r8, qword ptr [rdx + 8]
  mov r9, qword ptr [rdx + 16]
  vmovupd ymm8, ymmword ptr [rsi]
  mov r10, qword ptr [rdx + 24]
  mov r11, qword ptr [rdx + 32]
  mov rax, qword ptr [rdx + 40]
  vmovupd ymm9, ymmword ptr [rsi + 32]
  mov r8, qword ptr [rdx + 48]
  mov r9, qword ptr [rdx + 56]
  mov r10, qword ptr [rdx + 64]
  vmovupd ymm10, ymmword ptr [rsi + 64]
  mov r11, qword ptr [rdx + 72]
  mov rax, qword ptr [rdx + 80]
  mov r8, qword ptr [rdx + 88]
  vmovupd ymm11, ymmword ptr [rsi + 96]
  dec rcx
  jne loop

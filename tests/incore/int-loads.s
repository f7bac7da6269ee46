# Twelve integer loads per iteration, independent, in L1 (bench/incore/
# load_mix.sh's "int 12").
.intel_syntax noprefix
.text
loop:
  mov rax, qword ptr [rdx]
  mov r8, qword ptr [rdx + 8]
  mov r9, qword ptr [rdx + 16]
  mov r10, qword ptr [rdx + 24]
  mov r11, qword ptr [rdx + 32]
  mov rax, qword ptr [rdx + 40]
  mov r8, qword ptr [rdx + 48]
  mov r9, qword ptr [rdx + 56]
  mov r10, qword ptr [rdx + 64]
  mov r11, qword ptr [rdx + 72]
  mov rax, qword ptr [rdx + 80]
  mov r8, qword ptr [rdx + 88]
  dec rcx
  jne loop

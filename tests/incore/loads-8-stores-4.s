# Eight loads and four stores per iteration, all independent (each store's
# value is a register the loop does not write): the load/store pipes bind.
.intel_syntax noprefix
.text
loop:
  mov r8, qword ptr [rdi]
  mov r9, qword ptr [rdi + 64]
  mov r10, qword ptr [rdi + 128]
  mov r11, qword ptr [rdi + 192]
  mov rcx, qword ptr [rdi + 256]
  mov rax, qword ptr [rdi + 320]
  mov rbx, qword ptr [rdi + 384]
  mov rbp, qword ptr [rdi + 448]
  mov qword ptr [rsi], r12
  mov qword ptr [rsi + 8], r12
  mov qword ptr [rsi + 64], r12
  mov qword ptr [rsi + 72], r12
  add rdi, 512
  add rsi, 128
  cmp rdi, rdx
  jne loop

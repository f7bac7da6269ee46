# Five independent loads per iteration and nothing else of note.
.intel_syntax noprefix
.text
loop:
  mov r8, qword ptr [rdi]
  mov r9, qword ptr [rdi + 8]
  mov r10, qword ptr [rdi + 16]
  mov r11, qword ptr [rdi + 24]
  mov rcx, qword ptr [rdi + 32]
  add rdi, 40
  cmp rdi, rdx
  jne loop

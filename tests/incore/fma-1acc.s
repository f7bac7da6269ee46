# Dot-product reduction with one accumulator: every vfmadd231pd waits for the
# previous one (loop-carried through ymm0).
.intel_syntax noprefix
.text
loop:
  vmovupd ymm1, ymmword ptr [rdi + 8*rax]
  vfmadd231pd ymm0, ymm1, ymmword ptr [rsi + 8*rax]
  add rax, 4
  cmp rax, rdx
  jne loop

.intel_syntax noprefix
# An iteration's own chain (a load, then 60 dependent adds; nothing
# carried between iterations but the pointer and the counter) longer than
# the reorder buffer can overlap: BlockVerdict's window rule.
loop:
  vmovss xmm0, dword ptr [rdi]
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vaddss xmm0, xmm0, xmm1
  vaddss xmm0, xmm0, xmm2
  vaddss xmm0, xmm0, xmm3
  vaddss xmm0, xmm0, xmm4
  vmovss dword ptr [rsi], xmm0
  add rdi, 4
  add rsi, 4
  dec rcx
  jne loop

.intel_syntax noprefix
.text
loop:
  vaddsd xmm0, xmm1, qword ptr [rdi]
  vmovsd qword ptr [rdi], xmm0
  dec rcx
  jne loop

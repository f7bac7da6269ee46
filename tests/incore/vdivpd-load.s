# Packed double divisions, one with a folded load.
.intel_syntax noprefix
.text
loop:
  vdivpd ymm0, ymm14, ymmword ptr [rdi]
  vdivpd ymm1, ymm14, ymm15
  dec rcx
  jne loop

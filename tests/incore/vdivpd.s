# Independent packed double divisions: the divider is not pipelined.
.intel_syntax noprefix
.text
loop:
  vdivpd ymm0, ymm14, ymm15
  vdivpd ymm1, ymm14, ymm15
  dec rcx
  jne loop

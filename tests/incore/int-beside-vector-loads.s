# Six zmm loads and twelve integer loads per iteration, independent, in L1,
# at different page offsets (bench/incore/load_mix.sh's "zmm 6 + int 12").
.intel_syntax noprefix
.text
loop:
  vmovupd zmm0, zmmword ptr [rsi + 0]
  mov rax, qword ptr [rdx + 2048]
  mov r8, qword ptr [rdx + 2056]
  vmovupd zmm1, zmmword ptr [rsi + 64]
  mov r9, qword ptr [rdx + 2064]
  mov r10, qword ptr [rdx + 2072]
  vmovupd zmm2, zmmword ptr [rsi + 128]
  mov r11, qword ptr [rdx + 2080]
  mov rax, qword ptr [rdx + 2088]
  vmovupd zmm3, zmmword ptr [rsi + 192]
  mov r8, qword ptr [rdx + 2096]
  mov r9, qword ptr [rdx + 2104]
  vmovupd zmm4, zmmword ptr [rsi + 256]
  mov r10, qword ptr [rdx + 2112]
  mov r11, qword ptr [rdx + 2120]
  vmovupd zmm5, zmmword ptr [rsi + 320]
  mov rax, qword ptr [rdx + 2128]
  mov r8, qword ptr [rdx + 2136]
  dec rcx
  jne loop

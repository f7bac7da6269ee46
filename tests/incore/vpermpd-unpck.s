# Four lane-crossing permutes beside four in-lane unpacks, all independent:
# on Zen 3 the permutes run on the shuffle pipe FP1 only, the unpacks on FP1
# or FP2. Timed on a Zen 3 VM (2026-11-26): 5.3 cy per iteration.
.intel_syntax noprefix
.text
loop:
  vpermpd ymm2, ymm0, 96
  vpermpd ymm3, ymm0, 96
  vpermpd ymm4, ymm0, 96
  vpermpd ymm5, ymm0, 96
  vunpcklpd ymm6, ymm0, ymm1
  vunpcklpd ymm7, ymm0, ymm1
  vunpcklpd ymm8, ymm0, ymm1
  vunpcklpd ymm9, ymm0, ymm1
  dec rcx
  jne loop

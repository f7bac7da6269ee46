# A chain through a gather: the gathered values are the next gather's
# indices (bench/incore/gather_contention.c's latency chain).
.intel_syntax noprefix
.text
loop:
  kxnorw k1, k0, k0
  vgatherqpd zmm2 {k1}, zmmword ptr [rdi + 8*zmm1]
  vmovdqa64 zmm1, zmm2
  dec r10
  jne loop

/* Reciprocal throughput of scalar FP forms on this host: 12 independent
 * chains of one instruction (vfmadd231sd/ss, vfmadd231pd xmm, vmulsd,
 * vaddsd), 1.2 G instructions, best of 5; ns x the clock perfmodel measures
 * = cycles per instruction. Checks what LLVM's scheduling model charges
 * (LLVM 19's znver4: a scalar FMA a cycle on both FMA pipes; measured on a
 * Zen 4 guest: two per cycle, as multiply and add).
 * Build: clang-19 -O1 bench/incore/fp_throughput.c */
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
#define BODY(ins) \
  __asm__ volatile( \
    "mov $100000000, %%rcx\n1:\n" \
    ins " %%xmm1, %%xmm2, %%xmm3\n" ins " %%xmm1, %%xmm2, %%xmm4\n" ins " %%xmm1, %%xmm2, %%xmm5\n" ins " %%xmm1, %%xmm2, %%xmm6\n" \
    ins " %%xmm1, %%xmm2, %%xmm7\n" ins " %%xmm1, %%xmm2, %%xmm8\n" ins " %%xmm1, %%xmm2, %%xmm9\n" ins " %%xmm1, %%xmm2, %%xmm10\n" \
    ins " %%xmm1, %%xmm2, %%xmm11\n" ins " %%xmm1, %%xmm2, %%xmm12\n" ins " %%xmm1, %%xmm2, %%xmm13\n" ins " %%xmm1, %%xmm2, %%xmm14\n" \
    "dec %%rcx\njnz 1b\n" ::: "rcx","xmm3","xmm4","xmm5","xmm6","xmm7","xmm8","xmm9","xmm10","xmm11","xmm12","xmm13","xmm14")
int main(void){
  double best;
  const char *names[] = {"vfmadd231sd", "vfmadd231ss", "vfmadd231pd xmm", "vmulsd", "vaddsd"};
  for (int f = 0; f < 5; ++f) { best = 1e9;
    for (int r = 0; r < 5; ++r) { double t0 = now();
      switch (f) { case 0: BODY("vfmadd231sd"); break; case 1: BODY("vfmadd231ss"); break; case 2: BODY("vfmadd231pd"); break; case 3: BODY("vmulsd"); break; case 4: BODY("vaddsd"); break; }
      double t = (now() - t0) / 1.2e9 * 1e9; if (t < best) best = t; }
    printf("%-16s %.4f ns per instruction (12 independent chains)\n", names[f], best); }
}

/* Rows of M dependent scalar FMAs with a memory operand (a dot product's
 * chain, as in PolyBench's cholesky, 2mm, symm without -ffast-math), each row
 * started from a fresh load and stored at its end, so that consecutive rows
 * are independent: how far the core overlaps the next rows with this one.
 * Cycles per row at an add chain's clock, the best of 9 quiet rounds, for
 * M = 8 .. 256. A row alone takes 4 M cycles (the FMA latency); rows that
 * overlap fully take M / 2 (two FMA pipes).
 *   clang-19 -O2 bench/incore/fma_rows.c -o fma_rows && ./fma_rows
 * (x86-64 with FMA.) */
#include <stdio.h>

#include "host_clock.h"

static double Data[512] __attribute__((aligned(64)));
static double Out[8];

#define ROWS(NAME, M)                                                                        \
  __attribute__((noinline)) static void NAME(long N) {                                      \
    __asm__ volatile("1:\n\t"                                                                \
                     "vmovsd 4088(%1), %%xmm0\n\t"                                               \
                     ".set k, 0\n\t"                                                         \
                     ".rept " #M "\n\t"                                                      \
                     "vfnmadd231sd k*8(%1), %%xmm1, %%xmm0\n\t"                              \
                     ".set k, (k+1) %% 256\n\t"                                              \
                     ".endr\n\t"                                                             \
                     "vmovsd %%xmm0, (%2)\n\t"                                               \
                     "dec %0\n\t"                                                            \
                     "jnz 1b"                                                                \
                     : "+r"(N)                                                               \
                     : "r"(Data), "r"(Out)                                                   \
                     : "xmm0", "memory", "cc");                                              \
  }
ROWS(r8, 8) ROWS(r16, 16) ROWS(r32, 32) ROWS(r48, 48) ROWS(r64, 64) ROWS(r96, 96)
ROWS(r128, 128) ROWS(r192, 192) ROWS(r256, 256)

int main(void) {
  struct {
    void (*F)(long);
    int M;
  } T[] = {{r8, 8},    {r16, 16},   {r32, 32},   {r48, 48},  {r64, 64},
           {r96, 96},  {r128, 128}, {r192, 192}, {r256, 256}};
  for (int I = 0; I < 512; I++)
    Data[I] = 1e-3;
  __asm__ volatile("vxorpd %%xmm1, %%xmm1, %%xmm1" ::: "xmm1");
  printf("   M  cy/row  cy/FMA  (alone 4 M = 4 cy/FMA; full overlap 0.5 cy/FMA)\n");
  for (unsigned I = 0; I < sizeof T / sizeof T[0]; I++) {
    long N = 4000000 / T[I].M;
    double Best = 1e9;
    for (int R = 0; R < 9; R++) {
      double Spc = secondsPerCycle();
      double T0 = now();
      T[I].F(N);
      double Cy = (now() - T0) / Spc / N;
      Best = Cy < Best ? Cy : Best;
    }
    printf("%4d  %6.1f  %6.2f\n", T[I].M, Best, Best / T[I].M);
  }
  return 0;
}

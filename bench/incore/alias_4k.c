/* 4K aliasing in a stencil's body: the AVX-512 loop clang-19 -O3
 * -march=native makes of jacobi2d (examples/validate/kernels.c), run in L1
 * over three rows of a and one of b, with b placed at every 256 bytes of a
 * 4 KiB page relative to the rows (the rows at page offsets 128, 384, 640,
 * each 8 KiB + 256 B apart: rows of 1056 doubles).
 * A load whose address matches an older in-flight store in its low 12 bits
 * waits for that store; here the stores' data come at the end of a chain
 * (three adds and a multiply after the loads), so the loads that reach a
 * store's page offset a few trips after it stall. Prints cycles per trip
 * (16 doubles) for two alignments: "2 split": the row j loads two of four
 * across lines, the rest and the stores aligned (10 line reads a trip);
 * "8 split": every load and store across a line (16 line reads; the rows
 * and b 8-24 B further on than the offsets printed). Load slots
 * alone give 5 and 8 cy (two line reads a cycle, bench/RESULTS.md); the
 * best of 7 rounds at an add chain's clock (host_clock.h).
 *   clang-19 -O2 -mavx512f bench/incore/alias_4k.c -o alias_4k && ./alias_4k */
#include "host_clock.h"

#include <stdio.h>

static void body(const char *Rj, const char *Rm, const char *Rp, char *B, long Trips) {
  long I = 0;
  __asm__ volatile("vxorpd %%xmm0, %%xmm0, %%xmm0\n\t"
                   "1:\n\t"
                   "vmovupd -0x50(%0,%4,8), %%zmm1\n\t"
                   "vmovupd -0x10(%0,%4,8), %%zmm2\n\t"
                   "vaddpd -0x40(%0,%4,8), %%zmm1, %%zmm1\n\t"
                   "vaddpd (%0,%4,8), %%zmm2, %%zmm2\n\t"
                   "vaddpd -0x40(%1,%4,8), %%zmm1, %%zmm1\n\t"
                   "vaddpd (%1,%4,8), %%zmm2, %%zmm2\n\t"
                   "vaddpd -0x40(%2,%4,8), %%zmm1, %%zmm1\n\t"
                   "vaddpd (%2,%4,8), %%zmm2, %%zmm2\n\t"
                   "vmulpd %%zmm0, %%zmm1, %%zmm1\n\t"
                   "vmulpd %%zmm0, %%zmm2, %%zmm2\n\t"
                   "vmovupd %%zmm1, -0x40(%3,%4,8)\n\t"
                   "vmovupd %%zmm2, (%3,%4,8)\n\t"
                   "add $16, %4\n\t"
                   "cmp %5, %4\n\t"
                   "jne 1b\n\t"
                   : "+r"(Rj), "+r"(Rm), "+r"(Rp), "+r"(B), "+r"(I)
                   : "r"(Trips * 16)
                   : "memory", "xmm0", "xmm1", "xmm2");
}

/* Cycles per trip with the rows moved by OJ, OM, OP bytes and b at page
 * offset 128 + BK (+ OB). */
static double timeAt(char *P, long OJ, long OM, long OP, long OB, long BK) {
  const long Trips = 60, Reps = 1000000;
  const char *Rm = P + 128 + OM, *Rj = P + 128 + 8448 + OJ, *Rp = P + 128 + 2 * 8448 + OP;
  char *B = P + 32768 + 128 + BK + OB;
  double Best = 1e9, Spc = 1e9;
  for (int R = 0; R < 7; ++R) {
    double S = secondsPerCycle();
    if (S < Spc)
      Spc = S;
    double T0 = now();
    for (long K = 0; K < Reps; ++K)
      body(Rj, Rm, Rp, B, Trips);
    double T = now() - T0;
    if (T < Best)
      Best = T;
  }
  return Best / Spc / Reps / Trips;
}

int main(void) {
  char *P = aligned_alloc(4096, 1 << 16);
  if (!P)
    return 1;
  for (long I = 0; I < (1 << 16); ++I)
    P[I] = 0;
  printf("clock %.2f GHz (an add chain's)\n", clockGhz());
  printf("%-22s %10s %10s\n", "b's page offset", "2 split", "8 split");
  for (long BK = 0; BK < 4096; BK += 256)
    printf("%-22ld %10.2f %10.2f\n", (128 + BK) % 4096, timeAt(P, 0, 0, 0, 0, BK),
           timeAt(P, 8, 16, 24, 8, BK));
  return 0;
}

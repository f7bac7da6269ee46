/* How many loads and stores the L1 takes a cycle together, apart from their
 * bytes: 32-byte (ymm) and 8-byte (general register) accesses, all aligned
 * within a line, loads and stores 16 KiB apart and walking 16 KiB (nothing
 * forwarded, everything in L1). Prints cycles per trip for each mix: the
 * best of 7 rounds, each round timing every mix and a dependent add chain
 * (one add a cycle, host_clock.h) that gives the clock.
 * "float": 4-byte scalar vmovss (xmm).
 * With U load/store units shared by both, L loads with at most P a cycle and
 * S stores with at most Q a cycle take max((L + S) / U, L / P, S / Q).
 *   clang-19 -O2 -mavx2 bench/incore/lsu_ops.c -o lsu && ./lsu */
#include "host_clock.h"

#include <stdio.h>

#define LY(O) "vmovups " #O "(%0,%1), %%ymm1\n\t"
#define SY(O) "vmovups %%ymm2, " #O "+16384(%0,%1)\n\t"
#define LQ(O) "movq " #O "(%0,%1), %%rax\n\t"
#define LS(O) "vmovss " #O "(%0,%1), %%xmm1\n\t"
#define SS(O) "vmovss %%xmm2, " #O "+16384(%0,%1)\n\t"
#define SQ(O) "movq %%rdx, " #O "+16384(%0,%1)\n\t"
#define Y2(M, O) M(O) M(O + 64)
/* Two stores to each line (offsets 0 and 32). */
#define P2(M, O) M(O) M(O + 32)
#define P4(M, O) P2(M, O) P2(M, O + 64)
#define P8(M, O) P4(M, O) P4(M, O + 128)
#define Y4(M, O) Y2(M, O) Y2(M, O + 128)
#define Y8(M, O) Y4(M, O) Y4(M, O + 256)
#define Y12(M, O) Y8(M, O) Y4(M, O + 512)
#define TIME(CODE, SLOT)                                                                 \
  {                                                                                      \
    double T0 = now();                                                                   \
    for (long I = 0; I < N; ++I) {                                                       \
      long Off = (I * 1024) & 16383;                                                     \
      __asm__ volatile(CODE ::"r"(B), "r"(Off) : "memory", "rax", "xmm1");               \
    }                                                                                    \
    double T = now() - T0;                                                               \
    if (T < Best[SLOT])                                                                  \
      Best[SLOT] = T;                                                                    \
  }

int main(void) {
  char *B = aligned_alloc(4096, 40960);
  if (!B)
    return 1;
  for (int I = 0; I < 40960; ++I)
    B[I] = 0;
  const long N = 10000000;
  enum { Mixes = 22 };
  const char *Names[Mixes] = {"12 ymm loads",           "8 ymm loads, 4 ymm stores",
                              "6 ymm loads, 4 ymm stores", "4 ymm loads, 4 ymm stores",
                              "8 ymm stores",           "12 gpr loads",
                              "8 gpr loads, 4 gpr stores", "6 gpr loads, 4 gpr stores",
                              "4 gpr loads, 4 gpr stores", "8 gpr stores",
                              "8 ymm stores, 2 a line",   "8 gpr stores, 2 a line",
                              "8 gpr loads, 4 gpr st 2/l", "4 gpr loads, 4 gpr st 2/l",
                              "4 ymm loads, 4 ymm st 2/l", "8 gpr loads, 8 gpr st 2/l",
                              "12 gpr loads, 2 a line",   "12 ymm loads, 2 a line",
                              "12 float loads",           "8 float loads, 4 fl st 2/l",
                              "4 float loads, 4 fl st 2/l", "8 float stores, 2 a line"};
  const int Ops[Mixes] = {12, 12, 10, 8, 8, 12, 12, 10, 8, 8, 8, 8, 12, 8, 8, 16, 12, 12, 12, 12, 8, 8};
  double Best[Mixes + 1];
  for (int K = 0; K <= Mixes; ++K)
    Best[K] = 1e9;
  for (int R = 0; R < 7; ++R) {
    double Spc = secondsPerCycle();
    if (Spc < Best[Mixes])
      Best[Mixes] = Spc;
    TIME(Y12(LY, 0), 0)
    TIME(Y8(LY, 0) Y4(SY, 0), 1)
    TIME(Y4(LY, 0) Y2(LY, 512) Y4(SY, 0), 2)
    TIME(Y4(LY, 0) Y4(SY, 0), 3)
    TIME(Y8(SY, 0), 4)
    TIME(Y12(LQ, 0), 5)
    TIME(Y8(LQ, 0) Y4(SQ, 0), 6)
    TIME(Y4(LQ, 0) Y2(LQ, 512) Y4(SQ, 0), 7)
    TIME(Y4(LQ, 0) Y4(SQ, 0), 8)
    TIME(Y8(SQ, 0), 9)
    TIME(P8(SY, 0), 10)
    TIME(P8(SQ, 0), 11)
    TIME(Y8(LQ, 0) P4(SQ, 0), 12)
    TIME(Y4(LQ, 0) P4(SQ, 0), 13)
    TIME(Y4(LY, 0) P4(SY, 0), 14)
    TIME(Y8(LQ, 0) P8(SQ, 0), 15)
    TIME(P8(LQ, 0) P4(LQ, 256), 16)
    TIME(P8(LY, 0) P4(LY, 256), 17)
    TIME(Y12(LS, 0), 18)
    TIME(Y8(LS, 0) P4(SS, 0), 19)
    TIME(Y4(LS, 0) P4(SS, 0), 20)
    TIME(P8(SS, 0), 21)
  }
  double Cycle = Best[Mixes];
  printf("clock %.2f GHz (an add chain's)\n%-28s %10s %12s\n", 1e-9 / Cycle, "mix", "cy/trip",
         "accesses/cy");
  for (int K = 0; K < Mixes; ++K) {
    double Cy = Best[K] / Cycle / N;
    printf("%-28s %10.2f %12.2f\n", Names[K], Cy, Ops[K] / Cy);
  }
  return 0;
}

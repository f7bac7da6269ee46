/* What a dirty line the L1 writes back costs a loop that keeps the L1's
   load ports busy (caches.L1.writeback_port_cy). K 32-byte loads per line
   from a 4 KiB window that stays in the L1, beside a store stream of one
   line per K loads over a buffer that fits the L1 (16 KiB: no evictions)
   or does not (256 KiB: every stored line is write-allocated from the L2
   and written back dirty). Both run in each repetition, side by side, each
   against the add chain timed beside it; the difference of the medians is
   the cycles one evicted line takes from the ports. With loads alone (no
   store stream) lines filled from the L2 cost nothing beside the loads
   (the same loads over a 256 KiB window run as fast as over 4 KiB), so
   the cost belongs to the write-back.
   Build: clang-19 -O1 bench/incore/writeback_ports.c (x86-64, AVX). */
#include "host_clock.h"
#include <stdio.h>
#include <stdlib.h>

#define TWO " vmovapd (%0), %%ymm0\n vmovapd 32(%0), %%ymm1\n"
/* LINES lines stored from ST; the loads cycle through 4 KiB at LD. */
#define KERNEL(NAME, BODY)                                                                 \
  static void NAME(char *Ld, char *St, long Lines) {                                       \
    char *P;                                                                               \
    long O = 0;                                                                            \
    __asm__ volatile("1:\n lea (%4,%3), %0\n" BODY " vmovapd %%ymm0, (%2)\n"               \
                     " vmovapd %%ymm1, 32(%2)\n add $64, %3\n and $4095, %3\n"             \
                     " add $64, %2\n sub $1, %1\n jnz 1b"                                  \
                     : "=&r"(P), "+&r"(Lines), "+&r"(St), "+&r"(O)                         \
                     : "r"(Ld)                                                             \
                     : "xmm0", "xmm1", "memory");                                          \
  }
KERNEL(k8, TWO TWO TWO TWO)
KERNEL(k16, TWO TWO TWO TWO TWO TWO TWO TWO)

int main(void) {
  /* The store buffers 64 KiB away from the load window: no 4 KiB aliasing
     between a load and a recent store at the same page offset. */
  char *Mem = aligned_alloc(4096, 1 << 20);
  for (long I = 0; I < (1 << 20); ++I)
    Mem[I] = 1;
  char *Ld = Mem, *Small = Mem + (64 << 10) + 2048, *Large = Mem + (512 << 10) + 2048;
  void (*F[2])(char *, char *, long) = {k8, k16};
  int K[2] = {8, 16};
  enum { Reps = 61 };
  for (int J = 0; J < 2; ++J) {
    double In[Reps], Out[Reps];
    for (int R = 0; R < Reps; ++R)
      for (int Which = 0; Which < 2; ++Which) {
        long Lines = Which ? (256 << 10) / 64 : (16 << 10) / 64;
        long Times = 4000000 / Lines / K[J] + 1;
        double C0 = secondsPerCycle(), T = now();
        for (long Q = 0; Q < Times; ++Q)
          F[J](Ld, Which ? Large : Small, Lines);
        double S = (now() - T) / Times / Lines, C1 = secondsPerCycle();
        (Which ? Out : In)[R] = S / (C0 < C1 ? C0 : C1);
      }
    qsort(In, Reps, sizeof(double), compareDoubles);
    qsort(Out, Reps, sizeof(double), compareDoubles);
    printf("K=%2d loads per line: stores in L1 %.2f (q25 %.2f), written back %.2f (q25 %.2f) "
           "cy per line: %.2f (q25 %.2f) cy per line written back\n",
           K[J], In[Reps / 2], In[Reps / 4], Out[Reps / 2], Out[Reps / 4],
           Out[Reps / 2] - In[Reps / 2], Out[Reps / 4] - In[Reps / 4]);
  }
  return 0;
}

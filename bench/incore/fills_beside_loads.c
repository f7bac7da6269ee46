/* Do lines filled into the L1 take bandwidth its loads would use? Per line
   K x 64 bytes of 32-byte loads (results unused, 4 lines a trip) over a set
   in L1, in L2 and in L3: in L1 a line takes K cycles (two 32-byte loads a
   cycle); from the L2 a line fills in 2 (32 B/cy). If fills and loads
   shared the L1's 64 B a cycle, a line from the L2 would take K + 1; if
   they overlap, max(2, K). Zen 3 (2026-11-26): K = 1, 2, 3, 4 take 2.02,
   2.37, 3.48, 4.12 cy from the L2: they overlap, plus 0.1-0.5 cy.
   Cycles at the clock of a dependent add chain timed beside each of 61
   repetitions, lower quartile and median. Pass set sizes in KiB (default
   16 256 1536: a third is half of what a Zen 3 VM keeps of its L3).
   Build: clang-19 -O2 bench/incore/fills_beside_loads.c (x86-64, AVX). */
#include "host_clock.h"
#include <stdio.h>
#include <stdlib.h>

#define LINE(O, K)                                                                         \
  ".rept " #K "\n vmovupd " #O "(%0), %%ymm2\n vmovupd " #O "+32(%0), %%ymm3\n .endr\n"
#define KERN(K)                                                                            \
  static void loads##K(const double *A, long Trips) {                                      \
    __asm__ volatile("1:\n" LINE(0, K) LINE(64, K) LINE(128, K) LINE(192, K)                \
                     " add $256, %0\n dec %1\n jnz 1b"                                     \
                     : "+r"(A), "+r"(Trips)                                                \
                     :                                                                     \
                     : "xmm2", "xmm3", "memory");                                          \
  }
KERN(1)
KERN(2)
KERN(3)
KERN(4)
static void (*const Loads[4])(const double *, long) = {loads1, loads2, loads3, loads4};

int main(int Argc, char **Argv) {
  long Sets[8] = {16, 256, 1536};
  int NSets = 3;
  if (Argc > 1)
    for (NSets = 0; NSets < Argc - 1 && NSets < 8; NSets++)
      Sets[NSets] = atol(Argv[NSets + 1]);
  for (int S = 0; S < NSets; S++) {
    long Bytes = Sets[S] << 10, Lines = Bytes / 256 * 4;
    double *A = aligned_alloc(64, Bytes);
    for (long I = 0; I < Bytes / 8; I++)
      A[I] = 1;
    for (int K = 0; K < 4; K++) {
      enum { Reps = 61 };
      long Calls = 2000000 / Lines + 1;
      double X[Reps];
      for (int R = 0; R < Reps; R++) {
        double C0 = secondsPerCycle(), T = now();
        for (long C = 0; C < Calls; C++)
          Loads[K](A, Lines / 4);
        T = now() - T;
        double C1 = secondsPerCycle();
        X[R] = T / (0.5 * (C0 + C1)) / Calls / Lines;
      }
      qsort(X, Reps, sizeof(double), compareDoubles);
      printf("%5ld KiB, %d x 64 B of loads per line: cy per line, lower quartile %.2f median "
             "%.2f\n",
             Sets[S], K + 1, X[Reps / 4], X[Reps / 2]);
    }
    free(A);
  }
  return 0;
}

/* How far the out-of-order window reaches across dependence chains when each
   link of a chain also stores its FP result. Per j, a chain of n dependent
   FMAs over a row (t += a[k] * b[k * 190 + j], in L1/L2), first with t kept
   in a register (one waiting FMA per link), then with t in memory as code
   without `restrict` keeps it (s[j] += ...: the FMA and a store of its
   result per link). Short chains overlap with the next j's; long ones run at
   the FMA latency. If the store's data waits in the FP scheduler beside the
   FMA, the second kernel overlaps as if that scheduler were half as large.
   Prints cycles per link (medians of 9, at the clock of a dependent add
   chain) for each n; compare with `perfmodel analyze` of the same kernels.
   What core.queue_also_holds in the Zen 5 files is from.
   Build: clang-19 -O3 -march=native fp_store_window.c -o fp_store_window */
#include <stdio.h>
#include <stdlib.h>
#include "host_clock.h"

enum { M = 190, Stride = 190 };

__attribute__((noinline)) void inRegister(int n, double *restrict s, const double *restrict a,
                                          const double *restrict b) {
  for (int j = 0; j < M; j++) {
    double t = 0;
    for (int k = 0; k < n; k++)
      t += a[k] * b[k * Stride + j];
    s[j] = t;
  }
}

__attribute__((noinline)) void inMemory(int n, double *s, const double *a, const double *b) {
  for (int j = 0; j < M; j++) {
    s[j] = 0;
    for (int k = 0; k < n; k++)
      s[j] += 1.5 * a[k] * b[k * Stride + j];
  }
}

static double cyclesPerLink(int Kind, int n, double *s, double *a, double *b, double SecPerCy) {
  double T[9];
  for (int R = 0; R < 9; R++) {
    double T0 = now();
    for (int Q = 0; Q < 20; Q++) {
      Kind ? inMemory(n, s, a, b) : inRegister(n, s, a, b);
      __asm__ volatile("" ::: "memory");
    }
    T[R] = (now() - T0) / 20;
  }
  qsort(T, 9, sizeof(double), compareDoubles);
  return T[4] / SecPerCy / ((double)n * M);
}

int main(void) {
  static const int Lengths[] = {32, 64, 128, 210, 512};
  double SecPerCy = secondsPerCycle();
  double *s = malloc(8 * M), *a = malloc(8 * 512), *b = malloc(8 * (512 * Stride + M));
  for (int i = 0; i < 512; i++)
    a[i] = 1e-3;
  for (long i = 0; i < 512L * Stride + M; i++)
    b[i] = 1.0;
  printf("clock %.2f GHz\n| n | t in a register, cy/link | t in memory (a store a link), cy/link |\n"
         "|---:|---:|---:|\n", 1e-9 / SecPerCy);
  for (unsigned I = 0; I < sizeof Lengths / sizeof Lengths[0]; I++)
    printf("| %d | %.2f | %.2f |\n", Lengths[I], cyclesPerLink(0, Lengths[I], s, a, b, SecPerCy),
           cyclesPerLink(1, Lengths[I], s, a, b, SecPerCy));
  return 0;
}

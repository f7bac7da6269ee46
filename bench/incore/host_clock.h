/* Wall time and the core clock for the standalone bench harnesses in this
   directory: the clock is what a chain of dependent adds runs at (one a
   cycle), the best of 9 runs. Register adds (x += x), not add-immediates:
   Golden Cove and later fold those at rename, about six a cycle. */
#ifndef PERFMODEL_BENCH_HOST_CLOCK_H
#define PERFMODEL_BENCH_HOST_CLOCK_H
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

static double clockGhz(void) {
  double Best = 1e9;
  for (int R = 0; R < 9; R++) {
    uint64_t X = 0;
    double T0 = now();
    for (int I = 0; I < 2000000; I++)
      asm volatile(".rept 64\n\tadd %0, %0\n\t.endr" : "+r"(X));
    double S = now() - T0;
    if (S < Best)
      Best = S;
  }
  return 2000000.0 * 64 / Best / 1e9;
}

/* Seconds per cycle now: one dependent chain of 4e6 adds, for timings taken
   beside each repetition (a VM's clock moves within a run). */
static inline double secondsPerCycle(void) {
  long X = 0, N = 1000000;
  double T = now();
  __asm__ volatile("1: add %0, %0\n add %0, %0\n add %0, %0\n add %0, %0\n sub $1,%1\n jnz 1b"
                   : "+r"(X), "+r"(N));
  return (now() - T) / 4e6;
}

/* The best of 9 runs of F(N), in seconds. */
static inline double bestOf9(void (*F)(long), long N) {
  double Best = 1e9;
  for (int R = 0; R < 9; ++R) {
    double T = now();
    F(N);
    T = now() - T;
    if (T < Best)
      Best = T;
  }
  return Best;
}

/* Independent adds per cycle now: eight chains of adds, at SPC seconds a
   cycle. A neighbour's thread on the same core lowers it: the harnesses keep
   the samples beside which it stays near the best seen. */
static inline double addsPerCycle(double Spc) {
  long A = 0, B = 0, C = 0, D = 0, E = 0, F = 0, G = 0, H = 0, N = 200000;
  double T = now();
  __asm__ volatile("1: add %0, %0\n add %1, %1\n add %2, %2\n add %3, %3\n"
                   " add %4, %4\n add %5, %5\n add %6, %6\n add %7, %7\n dec %8\n jnz 1b"
                   : "+r"(A), "+r"(B), "+r"(C), "+r"(D), "+r"(E), "+r"(F), "+r"(G), "+r"(H),
                     "+r"(N));
  return 8 * 200000 / ((now() - T) / Spc);
}

/* qsort's comparison of doubles. */
static inline int compareDoubles(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

/* The median over 11 rounds of F's time over REF's, REF run just before and
   just after F in each round: F's cycles are this times REF's (a dependent
   chain of known length), whatever the clock does between rounds. */
static inline double medianTimeOver(void (*Ref)(void), void (*F)(void)) {
  double R[11];
  for (int I = 0; I < 11; I++) {
    double A = now();
    Ref();
    double B = now();
    F();
    double C = now();
    Ref();
    double D = now();
    R[I] = (C - B) / ((B - A + D - C) / 2);
  }
  qsort(R, 11, sizeof *R, compareDoubles);
  return R[5];
}
#endif

/* Wall time and the core clock for the standalone bench harnesses in this
   directory: the clock is what a chain of dependent adds runs at (one a
   cycle), the best of 9 runs. */
#ifndef PERFMODEL_BENCH_HOST_CLOCK_H
#define PERFMODEL_BENCH_HOST_CLOCK_H
#include <stdint.h>
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
      asm volatile(".rept 64\n\tadd $1, %0\n\t.endr" : "+r"(X));
    double S = now() - T0;
    if (S < Best)
      Best = S;
  }
  return 2000000.0 * 64 / Best / 1e9;
}
#endif

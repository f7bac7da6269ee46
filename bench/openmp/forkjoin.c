// What an OpenMP parallel loop costs beside its work: the time of a
// `#pragma omp parallel for schedule(static)` over one iteration per
// thread, per call (fork, static split, join), for 1 to N threads, medians
// of 9 timings of many calls. validate times each call of an OpenMP kernel
// whole, so at L3 sizes this is a part of what its multicore rows measure
// (bench/RESULTS.md, "Recorded timings replayed").
//
//   clang-19 -O2 -fopenmp bench/openmp/forkjoin.c -o forkjoin && ./forkjoin
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../incore/host_clock.h"

static volatile double Sink;

__attribute__((noinline)) static void region(int Threads) {
  double S = 0;
#pragma omp parallel for schedule(static) num_threads(Threads) reduction(+ : S)
  for (int I = 0; I < Threads; ++I)
    S += I;
  Sink = S;
}

int main(void) {
  int Max = omp_get_max_threads();
  double SecPerCy = secondsPerCycle();
  printf("clock %.2f GHz\n| threads | us per parallel loop | cycles |\n|---:|---:|---:|\n",
         1e-9 / SecPerCy);
  for (int T = 1; T <= Max; ++T) {
    double Med[9];
    for (int R = 0; R < 9; ++R) {
      const int Calls = 20000;
      double T0 = now();
      for (int C = 0; C < Calls; ++C)
        region(T);
      Med[R] = (now() - T0) / Calls;
    }
    qsort(Med, 9, sizeof(double), compareDoubles);
    printf("| %d | %.2f | %.0f |\n", T, Med[4] * 1e6, Med[4] / SecPerCy);
  }
  return 0;
}

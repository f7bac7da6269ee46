// Where a working set stops fitting the L2: a read of N KiB (an AVX-512 sum
// with enough accumulators that no add chain binds), cycles per line, for N
// from half the L2 to twice it, five fresh allocations per N (each gets
// other physical pages). A physically indexed L2 whose way is larger than a
// page (Zen 5: 1 MiB, 16 ways, 64 KiB a way, 16 page colours) holds a set
// of random pages unevenly: colours that get more pages than ways lose
// lines before the whole set reaches the L2's size, so the time per line
// should climb from the L2's figure to the L3's over a range, not at 1 MiB.
//   clang-19 -O3 -march=native -ffast-math l2edge.c -o l2edge && taskset -c 1 ./l2edge
#include <stdio.h>
#include <stdlib.h>
#include "../incore/host_clock.h"

__attribute__((noinline)) double sum(const double *A, long N) {
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  for (long I = 0; I < N; I += 4) {
    S0 += A[I];
    S1 += A[I + 1];
    S2 += A[I + 2];
    S3 += A[I + 3];
  }
  __asm__ volatile("" ::: "memory");
  return S0 + S1 + S2 + S3;
}

int main(void) {
  double Ghz = clockGhz(), Sink = 0;
  int KiB[] = {256, 512, 640, 768, 832, 896, 960, 1024, 1152, 1280, 1536, 2048};
  for (int K = 0; K < 12; K++) {
    long N = KiB[K] * 1024L / 8;
    printf("%5d KiB: cy/line", KiB[K]);
    for (int Trial = 0; Trial < 5; Trial++) {
      double *A = aligned_alloc(4096, N * 8);
      for (long I = 0; I < N; I++)
        A[I] = 1;
      long Reps = 40000000L / N + 3;
      double Best = 1e9;
      for (int R = 0; R < 5; R++) {
        double T = now();
        for (long Q = 0; Q < Reps; Q++)
          Sink += sum(A, N);
        T = now() - T;
        if (T < Best)
          Best = T;
      }
      printf(" %.2f", Best * Ghz * 1e9 / (Reps * (N / 8.0)));
      free(A);
    }
    printf("\n");
  }
  printf("clock %.2f GHz (sink %g)\n", Ghz, Sink);
}

// Streams from L2 by working-set size: one core's cycles per cache line of
// a[i] = b[i] + 1 (a read stream beside a write stream: two fills and a
// write-back per line) and of a[i] += 1 (one fill and one write-back), for
// working sets from just past L1 to past L2. The ECM model prices both by
// their line count alone, so any change of cy/CL with the size is a cost the
// model does not have (bench/RESULTS.md, "The cache model").
//
//   clang-19 -O3 -march=native bench/memory/l2streams.c -o l2streams
//   ./l2streams [KiB...]      (default 96 128 192 256 320 384 512 640 768)
#include <stdio.h>
#include <stdlib.h>

#include "../incore/host_clock.h"

__attribute__((noinline)) void twoStreams(long N, float *restrict A, const float *restrict B) {
  for (long I = 0; I < N; ++I)
    A[I] = B[I] + 1;
}
__attribute__((noinline)) void oneStream(long N, float *restrict A) {
  for (long I = 0; I < N; ++I)
    A[I] += 1;
}

// Median of 11 timings of REPS calls, in cycles per line of each array.
static double cyclesPerLine(int Kind, long N, float *A, float *B, double SecPerCy) {
  double T[11];
  long Reps = 300000000L / N + 1;
  for (int R = 0; R < 11; ++R) {
    double T0 = now();
    for (long Q = 0; Q < Reps; ++Q)
      Kind ? oneStream(N, A) : twoStreams(N, A, B);
    T[R] = (now() - T0) / Reps;
  }
  qsort(T, 11, sizeof(double), compareDoubles);
  return T[5] / SecPerCy / (N / 16.0);
}

int main(int Argc, char **Argv) {
  static const long Default[] = {96, 128, 192, 256, 320, 384, 512, 640, 768};
  int Count = Argc > 1 ? Argc - 1 : (int)(sizeof(Default) / sizeof(Default[0]));
  double SecPerCy = secondsPerCycle();
  printf("clock %.2f GHz\n| working set (KiB) | a[i] = b[i] + 1, cy/CL | a[i] += 1 over the same bytes, cy/CL |\n|---:|---:|---:|\n",
         1e-9 / SecPerCy);
  for (int K = 0; K < Count; ++K) {
    long KiB = Argc > 1 ? atol(Argv[K + 1]) : Default[K];
    long N = KiB * 1024 / 8; // floats per array: two arrays make the set
    float *A = aligned_alloc(4096, 8 * N + 4096), *B = aligned_alloc(4096, 4 * N + 4096);
    for (long I = 0; I < 2 * N; ++I)
      A[I] = 0;
    for (long I = 0; I < N; ++I)
      B[I] = I;
    double Two = cyclesPerLine(0, N, A, B, SecPerCy);
    double One = cyclesPerLine(1, 2 * N, A, B, SecPerCy) ; // per line of the one array
    printf("| %ld | %.2f | %.2f |\n", KiB, Two, One);
    free(A);
    free(B);
  }
  return 0;
}

// Streams from L2 by working-set size: one core's cycles per cache line of
// a[i] = b[i] + 1 (a read stream beside a write stream: two fills and a
// write-back per line), of a[i] += 1 (one fill and one write-back), of a
// sum over the set (one fill) and of a[i] = b[i] + 1 run downwards, for
// working sets from just past L1 to past L2; and the fill rate each implies
// (bytes brought in per cycle). Where the rates change with the set alike
// for the ascending kernels, the L2-L1 link's rate depends on the set
// (caches.L1.bytes_per_cycle_from_next_by_set); the descending kernel's
// rate over the ascending one's is caches.L1.descending_fill_share.
//
//   clang-19 -O3 -march=native -ffast-math bench/memory/l2streams.c -o l2streams
//   ./l2streams [KiB...]      (default 64 96 128 192 256 320 384 448 512 640 768)
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
__attribute__((noinline)) void twoStreamsDown(long N, float *restrict A,
                                              const float *restrict B) {
  for (long I = N - 1; I >= 0; --I)
    A[I] = B[I] + 1;
}
volatile float Sink;
// Eight partial sums: the adds' latency stays off the stream's time.
__attribute__((noinline)) float readStream(long N, const float *restrict B) {
  float S[128] = {0};
  for (long I = 0; I < N; I += 128)
    for (int J = 0; J < 128; ++J)
      S[J] += B[I + J];
  float T = 0;
  for (int J = 0; J < 128; ++J)
    T += S[J];
  return T;
}

// Median of 11 timings of REPS calls, in cycles per line of each array.
static double cyclesPerLine(int Kind, long N, float *A, float *B, double SecPerCy) {
  double T[11];
  long Reps = 300000000L / N + 1;
  for (int R = 0; R < 11; ++R) {
    double T0 = now();
    for (long Q = 0; Q < Reps; ++Q) {
      if (Kind == 2)
        Sink = readStream(N, B);
      else if (Kind == 1)
        oneStream(N, A);
      else if (Kind == 3)
        twoStreamsDown(N, A, B);
      else
        twoStreams(N, A, B);
      __asm__ volatile("" ::: "memory"); // each call reads the arrays again
    }
    T[R] = (now() - T0) / Reps;
  }
  qsort(T, 11, sizeof(double), compareDoubles);
  return T[5] / SecPerCy / (N / 16.0);
}

int main(int Argc, char **Argv) {
  static const long Default[] = {64, 96, 128, 192, 256, 320, 384, 448, 512, 640, 768};
  int Count = Argc > 1 ? Argc - 1 : (int)(sizeof(Default) / sizeof(Default[0]));
  double SecPerCy = secondsPerCycle();
  printf("clock %.2f GHz\n| working set (KiB) | a[i] = b[i] + 1, cy/CL (fill B/cy) | a[i] += 1 over "
         "the same bytes, cy/CL (fill B/cy) | sum over the same bytes, cy/CL (fill B/cy) | "
         "a[i] = b[i] + 1 downwards, cy/CL (fill B/cy) |\n"
         "|---:|---:|---:|---:|---:|\n",
         1e-9 / SecPerCy);
  for (int K = 0; K < Count; ++K) {
    long KiB = Argc > 1 ? atol(Argv[K + 1]) : Default[K];
    long N = KiB * 1024 / 8; // floats per array: two arrays make the set
    float *A = aligned_alloc(4096, 8 * N + 4096), *B = aligned_alloc(4096, 8 * N + 4096);
    for (long I = 0; I < 2 * N; ++I)
      A[I] = 0;
    for (long I = 0; I < N; ++I)
      B[I] = I;
    double Two = cyclesPerLine(0, N, A, B, SecPerCy);
    double Down = cyclesPerLine(3, N, A, B, SecPerCy);
    double One = cyclesPerLine(1, 2 * N, A, B, SecPerCy); // per line of the one array
    for (long I = 0; I < 2 * N; ++I)
      B[I] = I;
    double Read = cyclesPerLine(2, 2 * N, A, B, SecPerCy);
    // Fills: b's line and a's write-allocate; a's line; b's line.
    printf("| %ld | %.2f (%.1f) | %.2f (%.1f) | %.2f (%.1f) | %.2f (%.1f) |\n", KiB, Two,
           128 / Two, One, 64 / One, Read, 64 / Read, Down, 128 / Down);
    free(A);
    free(B);
  }
  return 0;
}

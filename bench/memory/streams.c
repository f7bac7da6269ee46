// One core's fills with 1 to 4 read streams, and 1 to 3 read streams beside
// a write stream (its write-allocate and write-back), over 256 MiB per
// array on 4 KiB pages: ns per line read, medians of 9, kernels interleaved
// so that the memory bus's moods reach all of them alike. Whether more
// streams fill faster (a per-stream prefetch limit) or not (one rate for
// the core's fills), and what a write stream costs beside them.
//
//   clang-19 -O3 -march=native -ffast-math bench/memory/streams.c -o streams
//   (-ffast-math: the read sums vectorise, so no add chain bounds them)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../incore/host_clock.h"

volatile double Sink;

__attribute__((noinline)) void reads(int K, double **A, long N) {
  double S = 0;
  if (K == 1)
    for (long I = 0; I < N; I++)
      S += A[0][I];
  else if (K == 2)
    for (long I = 0; I < N; I++)
      S += A[0][I] + A[1][I];
  else if (K == 3)
    for (long I = 0; I < N; I++)
      S += A[0][I] + A[1][I] + A[2][I];
  else
    for (long I = 0; I < N; I++)
      S += A[0][I] + A[1][I] + A[2][I] + A[3][I];
  Sink = S;
}
__attribute__((noinline)) void readsWrite(int K, double **A, double *restrict W, long N) {
  if (K == 1)
    for (long I = 0; I < N; I++)
      W[I] = A[0][I] * 1.01;
  else if (K == 2)
    for (long I = 0; I < N; I++)
      W[I] = A[0][I] + A[1][I];
  else
    for (long I = 0; I < N; I++)
      W[I] = A[0][I] + A[1][I] + A[2][I];
}

// Lines written where the loop read them first (no write-allocate of their
// own): an update of one array, and of one beside a read stream (daxpy's
// shape); and a stream written alone (its write-allocate and write-back).
__attribute__((noinline)) void updates(int K, double **A, double *restrict W, long N) {
  if (K == 0)
    for (long I = 0; I < N; I++)
      W[I] *= 1.01;
  else
    for (long I = 0; I < N; I++)
      W[I] += 1.01 * A[0][I];
}
__attribute__((noinline)) void writeOnly(double *restrict W, long N) {
  for (long I = 0; I < N; I++)
    W[I] = (double)I;
}

int main(void) {
  const long Bytes = 256L << 20; // read per call
  double *A[4];
  for (int J = 0; J < 4; J++) {
    A[J] = aligned_alloc(64, Bytes);
    for (long I = 0; I < Bytes / 8; I++)
      A[J][I] = 1;
  }
  double *W = aligned_alloc(64, Bytes);
  for (long I = 0; I < Bytes / 8; I++)
    W[I] = 0;
  enum { Reps = 9, Kinds = 10 };
  static double T[Kinds][Reps];
  for (int R = 0; R < Reps; R++) {
    for (int K = 1; K <= 4; K++) {
      long N = Bytes / 8 / K;
      double T0 = now();
      reads(K, A, N);
      T[K - 1][R] = (now() - T0) / (Bytes / 64) * 1e9;
    }
    for (int K = 1; K <= 3; K++) {
      long N = Bytes / 8 / (K + 1);
      double T0 = now();
      readsWrite(K, A, W, N);
      T[3 + K][R] = (now() - T0) / (N * 8.0 * K / 64) * 1e9;
    }
    for (int K = 0; K <= 1; K++) {
      long N = Bytes / 8 / (K + 1);
      double T0 = now();
      updates(K, A, W, N);
      T[7 + K][R] = (now() - T0) / (N * 8.0 * (K + 1) / 64) * 1e9;
    }
    double T0 = now();
    writeOnly(W, Bytes / 8);
    T[9][R] = (now() - T0) / (Bytes / 64) * 1e9;
  }
  const char *Names[Kinds] = {"1 read",          "2 reads",         "3 reads",
                              "4 reads",         "1 read + 1 write", "2 reads + 1 write",
                              "3 reads + 1 write", "1 update",        "1 read + 1 update",
                              "1 write"};
  for (int K = 0; K < Kinds; K++) {
    qsort(T[K], Reps, sizeof(double), compareDoubles);
    printf("%-18s ns per line read: %.2f (%.1f GB/s read)\n", Names[K], T[K][Reps / 2],
           64 / T[K][Reps / 2]);
  }
  return 0;
}

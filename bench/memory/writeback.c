// Fills and write-backs between the L1 and the next levels: load-only,
// store-only, update, scale and triad loops over a working set of a given
// size (all arrays together), in cycles per line of each stream.
//
//   writeback [KiB ...]   (default 256: half of a 512 KiB L2)
//
// A set as large as the level it is meant for spills into the next one (the
// L2 also holds the code, the stack and the L1's lines): size the sets at
// half the level, as validate and the probe do.
//
// A neighbour on the same physical core (a VM's sibling thread) slows a
// sample without telling it. Each sample is timed between two measurements
// of independent adds per cycle (eight chains against one dependent chain);
// only samples with at least 90 % of the rate a tenth of all measurements
// reach, on both sides, count.
// Cycles are wall time over the dependent chain's seconds per cycle beside
// each sample.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include "../incore/host_clock.h"

__attribute__((noinline)) void init(double *restrict A, long N, double C) {
  for (long I = 0; I < N; I++)
    A[I] = C;
}
__attribute__((noinline)) void update(double *restrict A, long N, double C) {
  for (long I = 0; I < N; I++)
    A[I] *= C;
}
__attribute__((noinline)) void scale(double *restrict A, const double *restrict B, long N,
                                     double C) {
  for (long I = 0; I < N; I++)
    A[I] = C * B[I];
}
__attribute__((noinline)) void triad(double *restrict A, const double *restrict B,
                                     const double *restrict C, long N, double S) {
  for (long I = 0; I < N; I++)
    A[I] = B[I] + S * C[I];
}
volatile double Sink;
// Eight independent sums of 32-byte loads: two loads a cycle past the add
// latency, so the fills bound it.
__attribute__((noinline, target("avx2"))) void load(const double *A, long N) {
  __m256d S[8];
  for (int K = 0; K < 8; K++)
    S[K] = _mm256_setzero_pd();
  for (long I = 0; I < N; I += 32)
    for (int K = 0; K < 8; K++)
      S[K] = _mm256_add_pd(S[K], _mm256_load_pd(A + I + 4 * K));
  for (int K = 1; K < 8; K++)
    S[0] = _mm256_add_pd(S[0], S[K]);
  Sink = _mm256_cvtsd_f64(S[0]);
}

enum { Kernels = 5, Samples = 151 };
static const char *Names[Kernels] = {"load (1 line in)", "init (1 in, 1 out)",
                                     "update (1 in, 1 out)", "scale (2 in, 1 out)",
                                     "triad (3 in, 1 out)"};
static const int Arrays[Kernels] = {1, 1, 1, 2, 3};

int main(int Argc, char **Argv) {
  enum { MaxSets = 8 };
  long Sets[MaxSets] = {256};
  int NSets = Argc > 1 ? (Argc - 1 < MaxSets ? Argc - 1 : MaxSets) : 1;
  for (int S = 0; S < NSets && Argc > 1; S++)
    Sets[S] = atol(Argv[S + 1]);
  static double Cy[MaxSets][Kernels][Samples], Rate[MaxSets][Kernels][Samples + 1];
  static double All[MaxSets * Kernels * (Samples + 1)];
  int NAll = 0;
  for (int S = 0; S < NSets; S++)
    for (int K = 0; K < Kernels; K++) {
      long N = (Sets[S] << 10) / 8 / Arrays[K] / 32 * 32;
      double *A = aligned_alloc(64, N * 8), *B = aligned_alloc(64, N * 8),
             *C = aligned_alloc(64, N * 8);
      for (long I = 0; I < N; I++)
        A[I] = B[I] = C[I] = 1;
      long Calls = 4000000 / N + 1;
      Rate[S][K][0] = addsPerCycle(secondsPerCycle());
      for (int R = 0; R < Samples; R++) {
        double C0 = secondsPerCycle(), T = now();
        for (long Q = 0; Q < Calls; Q++) {
          switch (K) {
          case 0: load(A, N); break;
          case 1: init(A, N, 1.0 + Q * 1e-9); break;
          case 2: update(A, N, 1.0000001); break;
          case 3: scale(A, B, N, 1.0000001); break;
          default: triad(A, B, C, N, 1.0000001); break;
          }
        }
        T = now() - T;
        double C1 = secondsPerCycle();
        Cy[S][K][R] = T / (0.5 * (C0 + C1)) / Calls / (N / 8.0);
        Rate[S][K][R + 1] = addsPerCycle(secondsPerCycle());
      }
      for (int R = 0; R <= Samples; R++)
        All[NAll++] = Rate[S][K][R];
      free(A);
      free(B);
      free(C);
    }
  // The reference: the rate a tenth of all measurements of the run reach (a
  // neighbour can be busy through a whole kernel's samples; the very largest
  // can be a clock chain timed while the clock moved).
  qsort(All, NAll, sizeof(double), compareDoubles);
  double Ref = All[NAll * 9 / 10];
  printf("reference: %.2f independent adds per cycle; quiet samples: 90 %% of it or more on "
         "both sides\n", Ref);
  for (int S = 0; S < NSets; S++)
    for (int K = 0; K < Kernels; K++) {
      double Quiet[Samples], *X = Cy[S][K], *Rt = Rate[S][K];
      int Q = 0;
      for (int R = 0; R < Samples; R++)
        if (Rt[R] >= 0.9 * Ref && Rt[R + 1] >= 0.9 * Ref)
          Quiet[Q++] = X[R];
      qsort(X, Samples, sizeof(double), compareDoubles);
      qsort(Quiet, Q, sizeof(double), compareDoubles);
      printf("%5ld KiB  %-22s cy per line: quiet median %6.2f (%3d of %d)   all: p10 %6.2f "
             "median %6.2f\n",
             Sets[S], Names[K], Q ? Quiet[Q / 2] : 0.0, Q, Samples, X[Samples / 10],
             X[Samples / 2]);
    }
}

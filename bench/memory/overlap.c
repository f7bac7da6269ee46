// How far a loop's in-core work and its cache transfers overlap: kernels
// that move the same lines (one read stream, one written: a fill, a
// write-allocate and a write-back per line) with more and more work in the
// L1 (k shifted loads of the read stream, most of them crossing a line),
// timed with their arrays in the L1, the L2 and the L3.
//
// Full overlap (the ECM's `full`) predicts max(T_L1, T_transfer) at each
// level, T_L1 being the kernel's time with its arrays in the L1; none
// predicts the sum. What a kernel whose L1 time binds takes beyond it, as a
// share of the transfer time (the copy's time at the level), is the share
// of that link's transfers that waits for the L1's loads and stores
// (ecm.tnol_serial_share).
//
//   clang-19 -O3 -march=native -ffast-math bench/memory/overlap.c -o overlap (AVX-512)
//   taskset -c 1 ./overlap [L2_KIB_PER_ARRAY L3_KIB_PER_ARRAY]
// (-ffast-math: the sums need no order; the store's array starts 2 KiB
// after the loads' in the page, which no later load reaches while the store
// waits: no 4K aliasing.)
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>

#include "../incore/host_clock.h"

#define KERNEL(Name, Expr)                                                                         \
  __attribute__((noinline)) void Name(long N, double *restrict B, const double *restrict A) {     \
    for (long I = 8; I < N - 8; ++I)                                                               \
      B[I] = Expr;                                                                                 \
  }
KERNEL(k1, A[I])
KERNEL(k2, A[I] + A[I + 1])
KERNEL(k3, A[I] + A[I + 1] + A[I - 1])
KERNEL(k4, A[I] + A[I + 1] + A[I - 1] + A[I + 2])
KERNEL(k6, A[I] + A[I + 1] + A[I - 1] + A[I + 2] + A[I - 2] + A[I + 3])
KERNEL(k8, A[I] + A[I + 1] + A[I - 1] + A[I + 2] + A[I - 2] + A[I + 3] + A[I - 3] + A[I + 4])
KERNEL(k12, A[I] + A[I + 1] + A[I - 1] + A[I + 2] + A[I - 2] + A[I + 3] + A[I - 3] + A[I + 4] +
                A[I - 4] + A[I + 5] + A[I - 5] + A[I + 6])
KERNEL(k16, A[I] + A[I + 1] + A[I - 1] + A[I + 2] + A[I - 2] + A[I + 3] + A[I - 3] + A[I + 4] +
                A[I - 4] + A[I + 5] + A[I - 5] + A[I + 6] + A[I - 6] + A[I + 7] + A[I - 7] +
                A[I + 8])

// The copy with 64 and 128 nops per line instead of loads: work that takes
// the core's slots and the reorder buffer but not the L1.
#define NOPS(Name, Count)                                                                          \
  __attribute__((noinline)) void Name(long N, double *restrict B, const double *restrict A) {     \
    for (long I = 8; I < N - 8; I += 8) {                                                          \
      __m512d X = _mm512_loadu_pd(A + I);                                                          \
      __asm__ volatile(".rept " #Count "\n\tnop\n\t.endr");                                       \
      _mm512_storeu_pd(B + I, X);                                                                  \
    }                                                                                              \
  }
NOPS(n64, 64)
NOPS(n128, 128)

typedef void (*Kernel)(long, double *restrict, const double *restrict);
static const Kernel Kernels[] = {k1, k2, k3, k4, k6, k8, k12, k16};
static const char *Names[] = {"k1", "k2", "k3", "k4", "k6", "k8", "k12", "k16"};
enum { NumKernels = 8, NumLevels = 4 };

/* Cycles per line of the store stream, the best of 7 timings of about 0.1 s. */
static double cyclesPerLine(Kernel F, long N, double *B, const double *A) {
  long Reps = (long)(2e7 / N) + 1;
  double Best = 1e9;
  for (int R = 0; R < 7; ++R) {
    double SecondsPerCycle = secondsPerCycle();
    double T = now();
    for (long Q = 0; Q < Reps; ++Q)
      F(N, B, A);
    T = now() - T;
    double Cy = T / SecondsPerCycle / Reps / (N - 16.0) * 8;
    if (Cy < Best)
      Best = Cy;
  }
  return Best;
}

int main(int Argc, char **Argv) {
  long KiB[NumLevels] = {16, Argc > 1 ? atol(Argv[1]) : 256, Argc > 2 ? atol(Argv[2]) : 2048,
                         Argc > 3 ? atol(Argv[3]) : 262144};
  const char *Level[NumLevels] = {"L1", "L2", "L3", "MEM"};
  double T[NumLevels][NumKernels], Nops[NumLevels][2];
  for (int L = 0; L < NumLevels; ++L) {
    long N = KiB[L] * 1024 / 8;
    double *A = aligned_alloc(4096, N * 8 + 8192);
    double *B = (double *)aligned_alloc(4096, N * 8 + 8192) + 256;
    for (long I = 0; I < N + 8; ++I)
      A[I] = B[I] = 1e-3 * I;
    for (int K = 0; K < NumKernels; ++K)
      T[L][K] = cyclesPerLine(Kernels[K], N, B, A);
    Nops[L][0] = cyclesPerLine(n64, N, B, A);
    Nops[L][1] = cyclesPerLine(n128, N, B, A);
    free(A);
    free(B - 256);
  }
  printf("cycles per line stored (8 iterations); in brackets, beyond the L1's time\n%-8s", "kernel");
  for (int L = 0; L < NumLevels; ++L)
    printf(" %14s", Level[L]);
  printf("\n%-8s", "KiB");
  for (int L = 0; L < NumLevels; ++L)
    printf(" %14ld", KiB[L] * 2);
  printf("\n");
  for (int K = 0; K < NumKernels; ++K) {
    printf("%-8s %14.2f", Names[K], T[0][K]);
    for (int L = 1; L < NumLevels; ++L)
      printf(" %6.2f (%+5.2f)", T[L][K], T[L][K] - T[0][K]);
    printf("\n");
  }
  for (int J = 0; J < 2; ++J) {
    printf("%-8s %14.2f", J ? "nop128" : "nop64", Nops[0][J]);
    for (int L = 1; L < NumLevels; ++L)
      printf(" %6.2f (%+5.2f)", Nops[L][J], Nops[L][J] - Nops[0][J]);
    printf("\n");
  }
  // Where a kernel's L1 time exceeds the copy's time at the level (its
  // transfers), full overlap predicts the L1 time. What it takes beyond
  // (the median over those kernels), less what the levels nearer the core
  // add, over the copy's time there: the share of that level's transfer
  // the L1's loads and stores do not overlap.
  double Before = 0;
  for (int L = 1; L < NumLevels; ++L) {
    double D[NumKernels];
    int Count = 0;
    for (int K = 1; K < NumKernels; ++K)
      if (T[0][K] >= T[L][0])
        D[Count++] = T[L][K] - T[0][K];
    if (!Count) {
      printf("%s: every kernel bound by its transfers (%.2f cy per line stored)\n", Level[L],
             T[L][0]);
      continue;
    }
    qsort(D, Count, sizeof(double), compareDoubles);
    double Median = Count % 2 ? D[Count / 2] : (D[Count / 2 - 1] + D[Count / 2]) / 2;
    printf("%s: %.2f cy per line stored beyond the L1's time (median of %d kernels whose L1 "
           "time exceeds the copy's %.2f): %.2f of the copy's time%s\n",
           Level[L], Median, Count, T[L][0], (Median - Before) / T[L][0],
           L > 1 ? ", less what the level before adds" : "");
    Before = Median;
  }
  return 0;
}

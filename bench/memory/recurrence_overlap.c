/* Whether a loop bound by a loop-carried chain hides its memory stream behind
 * the chain. Over arrays of 256 MiB (in memory) and of 2 KiB (in L1), cycles
 * per element at an add chain's clock, the median of 7:
 *   chain    the scalar sum s += a[i] (one FP add's latency an element) in L1;
 *   stream   the same elements summed into 16 independent ymm accumulators in
 *            memory: the stream's own time;
 *   both     the scalar sum in memory.
 * The overlap rule `full` predicts max(chain, stream); a loop whose chain
 * waits for each line's transfer takes chain + stream. The share of the
 * smaller one the loop adds beyond the larger:
 *   s = (both - max(chain, stream)) / min(chain, stream).
 * The same for a dot product (two streams, x[i] * y[i] into one chain of
 * FMAs), with the stream time per read stream (the two fill side by side):
 *   s2 = (both - max(chain, stream)) / min(chain, stream / 2).
 *   clang-19 -O2 -mavx2 -mfma bench/memory/recurrence_overlap.c -o rec && ./rec
 * (x86-64 with AVX2.) */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../incore/host_clock.h"

enum { Big = 32 << 20, Small = 256, Reps = 7 };

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

static double median(double *V) {
  qsort(V, Reps, sizeof *V, cmp);
  return V[Reps / 2];
}

volatile double Sink;

/* The loop-carried chain, kept as written (no reassociation at -O2), and
 * carried from call to call (independent calls would overlap in the
 * reorder buffer). */
__attribute__((noinline)) static double chainSum(const double *A, long N, double S) {
  for (long I = 0; I < N; ++I)
    S += A[I];
  return S;
}

__attribute__((noinline)) static double chainDot(const double *X, const double *Y, long N,
                                                 double S) {
  for (long I = 0; I < N; ++I)
    S = __builtin_fma(X[I], Y[I], S);
  return S;
}

/* 16 accumulators of 4: the stream binds, not the adds. */
__attribute__((noinline)) static double streamSum(const double *A, long N) {
  __m256d S[16];
  for (int K = 0; K < 16; ++K)
    S[K] = _mm256_setzero_pd();
  for (long I = 0; I + 64 <= N; I += 64)
    for (int K = 0; K < 16; ++K)
      S[K] = _mm256_add_pd(S[K], _mm256_loadu_pd(A + I + 4 * K));
  for (int K = 1; K < 16; ++K)
    S[0] = _mm256_add_pd(S[0], S[K]);
  double O[4];
  _mm256_storeu_pd(O, S[0]);
  return O[0] + O[1] + O[2] + O[3];
}

__attribute__((noinline)) static double streamDot(const double *X, const double *Y, long N) {
  __m256d S[8];
  for (int K = 0; K < 8; ++K)
    S[K] = _mm256_setzero_pd();
  for (long I = 0; I + 32 <= N; I += 32)
    for (int K = 0; K < 8; ++K)
      S[K] = _mm256_fmadd_pd(_mm256_loadu_pd(X + I + 4 * K), _mm256_loadu_pd(Y + I + 4 * K), S[K]);
  for (int K = 1; K < 8; ++K)
    S[0] = _mm256_add_pd(S[0], S[K]);
  double O[4];
  _mm256_storeu_pd(O, S[0]);
  return O[0] + O[1] + O[2] + O[3];
}

int main(void) {
  double *A = aligned_alloc(64, Big * sizeof(double));
  double *B = aligned_alloc(64, Big * sizeof(double));
  if (!A || !B)
    return 1;
  for (long I = 0; I < Big; ++I)
    A[I] = B[I] = 1.0 + (I & 7) * 1e-3;
  double Ghz = clockGhz();
  long SmallReps = Big / Small / 8; /* an eighth of the big set's elements */
  double Chain[Reps], Stream[Reps], Both[Reps], DChain[Reps], DStream[Reps], DBoth[Reps];
  for (int R = 0; R < Reps; ++R) {
    double T = now(), Carry = 0;
    for (long K = 0; K < SmallReps; ++K)
      Carry = chainSum(A, Small, Carry);
    Sink = Carry;
    Chain[R] = (now() - T) * Ghz * 1e9 / ((double)SmallReps * Small);
    T = now();
    Carry = 0;
    for (long K = 0; K < SmallReps; ++K)
      Carry = chainDot(A, B, Small, Carry);
    Sink = Carry;
    DChain[R] = (now() - T) * Ghz * 1e9 / ((double)SmallReps * Small);
    T = now();
    Sink = streamSum(A, Big);
    Stream[R] = (now() - T) * Ghz * 1e9 / Big;
    T = now();
    Sink = chainSum(A, Big, 0);
    Both[R] = (now() - T) * Ghz * 1e9 / Big;
    T = now();
    Sink = streamDot(A, B, Big);
    DStream[R] = (now() - T) * Ghz * 1e9 / Big;
    T = now();
    Sink = chainDot(A, B, Big, 0);
    DBoth[R] = (now() - T) * Ghz * 1e9 / Big;
  }
  double C = median(Chain), S = median(Stream), X = median(Both);
  double DC = median(DChain), DS = median(DStream), DX = median(DBoth);
  double Max = C > S ? C : S, Min = C < S ? C : S;
  double DMax = DC > DS ? DC : DS, DMin = DC < DS / 2 ? DC : DS / 2;
  printf("clock %.2f GHz (an add chain's); cycles per element, medians of %d\n", Ghz, Reps);
  printf("sum: chain %.2f  stream %.2f  both %.2f  max %.2f  sum %.2f  s = %.2f\n", C, S, X,
         Max, C + S, (X - Max) / Min);
  printf("dot: chain %.2f  stream %.2f  both %.2f  max %.2f  s2 = %.2f\n", DC, DS, DX, DMax,
         (DX - DMax) / DMin);
  return 0;
}

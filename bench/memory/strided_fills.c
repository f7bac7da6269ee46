// Lines the L1 takes from the L2 (and the L2 from the L3) for streams with
// a stride beyond a line: column walks such as LCALS's px[j][i] over rows of
// 25 doubles. Per iteration of j, K columns x[j*S + o] are read (one new line
// each) and a sequential y[j] is written (C: y[j] = sum of the columns) or
// the first column is updated in place (U: x0[j*S + o] += sum of the
// others), or one column is read into four sums (the least L1 work a line). Each pass moves o by an element, so the passes walk the same
// lines, which stay in the level the column's lines fit (n lines of each
// column: L1 for n = 128, L2 for 4096, L3 beyond). Cycles per iteration at
// the clock given, medians of 7, scalar code (-fno-vectorize: no gathers).
// The L3 row stays within the TLB: 16384 lines of 200 B a column are 800
// pages, 1600 for two (the 3072-entry L2 DTLB of Zen 4 and 5).
//   clang-19 -O2 -fno-vectorize -fno-slp-vectorize bench/memory/strided_fills.c -o sf
//   ./sf GHZ [STRIDE_BYTES]       (default 200: rows of 25 doubles)
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}
static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}
__attribute__((noinline)) void copyCols(int K, double *const *X, double *Y, long N, long S,
                                        long O) {
  if (K == 1)
    for (long J = 0; J < N; J++)
      Y[J] = X[0][J * S + O];
  else
    for (long J = 0; J < N; J++)
      Y[J] = X[0][J * S + O] + X[1][J * S + O];
}
__attribute__((noinline)) void updateCols(int K, double *const *X, long N, long S, long O) {
  if (K == 1)
    for (long J = 0; J < N; J++)
      X[0][J * S + O] += 1.0;
  else
    for (long J = 0; J < N; J++)
      X[0][J * S + O] += X[1][J * S + O];
}
// One column read into four sums: the least L1 work per line.
__attribute__((noinline)) double readCol(double *const *X, long N, long S, long O) {
  double A = 0, B = 0, C = 0, D = 0;
  long J = 0;
  for (; J + 3 < N; J += 4) {
    A += X[0][J * S + O];
    B += X[0][(J + 1) * S + O];
    C += X[0][(J + 2) * S + O];
    D += X[0][(J + 3) * S + O];
  }
  return A + B + C + D;
}
volatile double Sink;
int main(int argc, char **argv) {
  double GHz = argc > 1 ? atof(argv[1]) : 3.0;
  long StrideB = argc > 2 ? atol(argv[2]) : 200;
  long S = StrideB / 8;
  long Ns[] = {128, 4096, 16384};
  const char *Where[] = {"L1", "L2", "L3"};
  long NMax = Ns[2];
  double *X[2], *Y = calloc(NMax * S, sizeof(double));
  for (int A = 0; A < 2; A++) {
    X[A] = aligned_alloc(64, NMax * S * sizeof(double) + 64);
    for (long I = 0; I < NMax * S + 8; I++)
      X[A][I] = 1e-3 * (I % 7);
  }
  printf("stride %ld B; cycles per iteration (one new line per column and iteration)\n", StrideB);
  printf("level  lines/col  1 col copy  2 col copy  1 col update  update+1 col  1 col read\n");
  for (int L = 0; L < 3; L++) {
    long N = Ns[L];
    long Passes = (64L << 20) / N;
    double T[5][7];
    for (int Rep = 0; Rep < 7; Rep++) {
      // The kernels interleaved, each over the same lines.
      for (int Kn = 0; Kn < 5; Kn++) {
        double T0 = now();
        for (long P = 0; P < Passes; P++) {
          long O = P & 7;
          if (Kn < 2)
            copyCols(Kn + 1, X, Y, N, S, O);
          else if (Kn < 4)
            updateCols(Kn - 1, X, N, S, O);
          else
            Sink = readCol(X, N, S, O);
        }
        T[Kn][Rep] = (now() - T0) * GHz * 1e9 / ((double)Passes * N);
      }
    }
    printf("%-5s  %9ld", Where[L], N);
    for (int Kn = 0; Kn < 5; Kn++) {
      qsort(T[Kn], 7, sizeof(double), cmp);
      printf("  %10.2f", T[Kn][3]);
    }
    printf("\n");
  }
  Sink = Y[1];
  return 0;
}

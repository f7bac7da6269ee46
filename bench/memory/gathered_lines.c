// Do the prefetchers follow gathered lines? a[i] = 2 * b[i] over 256 MiB
// with i stepping a line (8 doubles) or two lines (16), vectorised by
// clang into gathers and scatters of one element per line, beside the same
// loops kept scalar and the dense loop: ns per line of b, median of 7.
// Where the gathers run at the scalar loop's rate, the prefetchers follow
// them (caches.L1.gathers_prefetched: true); where they wait a latency
// each, they do not (docs/machine-model.md).
//   clang-19 -O3 -march=native bench/memory/gathered_lines.c && taskset -c 0 ./a.out
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}
static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

__attribute__((noinline)) void gather1(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i += 8)
    a[i] = 2.0 * b[i];
}
__attribute__((noinline)) void gather2(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i += 16)
    a[i] = 2.0 * b[i];
}
__attribute__((noinline)) void scalar1(long n, double *restrict a, const double *restrict b) {
#pragma clang loop vectorize(disable)
  for (long i = 0; i < n; i += 8)
    a[i] = 2.0 * b[i];
}
__attribute__((noinline)) void scalar2(long n, double *restrict a, const double *restrict b) {
#pragma clang loop vectorize(disable)
  for (long i = 0; i < n; i += 16)
    a[i] = 2.0 * b[i];
}
__attribute__((noinline)) void dense(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i++)
    a[i] = 2.0 * b[i];
}

int main(void) {
  long n = 1L << 25; // 256 MiB per array
  double *a = aligned_alloc(4096, n * 8), *b = aligned_alloc(4096, n * 8);
  memset(a, 0, n * 8);
  for (long i = 0; i < n; i++)
    b[i] = 1;
  void (*F[])(long, double *, const double *) = {gather1, scalar1, gather2, scalar2, dense};
  const char *Name[] = {"gathered, a line apart", "scalar, a line apart",
                        "gathered, two lines apart", "scalar, two lines apart", "dense"};
  double Lines[] = {n / 8.0, n / 8.0, n / 16.0, n / 16.0, n / 8.0};
  for (int K = 0; K < 5; K++) {
    double R[7];
    for (int Rep = 0; Rep < 7; Rep++) {
      double T = now();
      F[K](n, a, b);
      R[Rep] = (now() - T) / Lines[K] * 1e9;
    }
    qsort(R, 7, sizeof(double), cmp);
    printf("%-26s %6.2f ns per line of b\n", Name[K], R[3]);
  }
  return 0;
}

/* Kernels replayed both by valgrind's cachegrind (compiled and run) and by
 * perfmodel's simulator (from this source), for bench/cache/run.sh.
 * Usage: kernels NAME SIZE [INDEXFILE]. Each kernel runs once after the
 * caches are scrubbed, so both simulators start without the kernel's data. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void triad(long n, double *restrict a, const double *restrict b,
                                     const double *restrict c, double s) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

__attribute__((noinline)) void stencil(long n, double (*restrict out)[n],
                                       const double (*restrict in)[n]) {
  for (long j = 1; j < n - 1; ++j)
    for (long i = 1; i < n - 1; ++i)
      out[j][i] = 0.25 * (in[j][i - 1] + in[j][i + 1] + in[j - 1][i] + in[j + 1][i]);
}

__attribute__((noinline)) void matmul(long n, const double *restrict A,
                                      const double *restrict B, double *restrict C) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      for (long k = 0; k < n; ++k)
        C[i * n + j] += A[i * n + k] * B[k * n + j];
}

__attribute__((noinline)) void gather(long n, const int *restrict idx,
                                      const double *restrict x, double *restrict y) {
  for (long i = 0; i < n; ++i)
    y[i] = x[idx[i]];
}

static void scrub(void) {
  static volatile char *junk;
  long bytes = 64L << 20;
  if (!junk)
    junk = malloc(bytes);
  for (long i = 0; i < bytes; i += 64)
    junk[i] = (char)i;
}

static double *alloc(long n) {
  double *p = malloc(sizeof(double) * (size_t)n);
  for (long i = 0; i < n; ++i)
    p[i] = (double)(i % 7);
  return p;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *k = argv[1];
  long n = atol(argv[2]);
  double r = 0;
  if (k[0] == 't') {
    double *a = alloc(n), *b = alloc(n), *c = alloc(n);
    scrub();
    triad(n, a, b, c, 3.0);
    r = a[n / 2];
  } else if (k[0] == 's') {
    double *a = alloc(n * n), *b = alloc(n * n);
    scrub();
    stencil(n, (double (*)[n])a, (const double (*)[n])b);
    r = a[n + 1];
  } else if (k[0] == 'm') {
    double *A = alloc(n * n), *B = alloc(n * n), *C = alloc(n * n);
    scrub();
    matmul(n, A, B, C);
    r = C[1];
  } else if (k[0] == 'g') {
    FILE *f = fopen(argv[3], "r");
    if (!f)
      return 3;
    int *idx = malloc(sizeof(int) * (size_t)n);
    long m = 0;
    for (long i = 0; i < n; ++i) {
      if (fscanf(f, "%d", &idx[i]) != 1)
        return 4;
      if (idx[i] + 1 > m)
        m = idx[i] + 1;
    }
    fclose(f);
    double *x = alloc(m), *y = alloc(n);
    scrub();
    gather(n, idx, x, y);
    r = y[0];
  }
  printf("%g\n", r);
  return 0;
}

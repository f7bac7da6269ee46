/* The same scale loop on arrays the source says nothing about (the
   allocator's 16 bytes are assumed) and on arrays promised 64-byte aligned;
   clang-19 -O3 -march=haswell: 4 ymm loads folded into vmulpd and 4 ymm
   stores per trip of 16 iterations. */
#include <stdlib.h>

void scale16(double *restrict a, const double *restrict b, long n) {
  for (long i = 0; i < n; ++i)
    a[i] = 3.0 * b[i];
}

void scale64(double *a0, const double *b0, long n) {
  double *restrict a = __builtin_assume_aligned(a0, 64);
  const double *restrict b = __builtin_assume_aligned(b0, 64);
  for (long i = 0; i < n; ++i)
    a[i] = 3.0 * b[i];
}

double sumAllocated(long n) {
  double *x = aligned_alloc(64, n * sizeof(double));
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += x[i];
  free(x);
  return s;
}

/* STREAM triad: 2 flops, 2 loads and 1 store of doubles per iteration. */
#include <stddef.h>

void triad(size_t n, double *restrict a, const double *restrict b,
           const double *restrict c, double s) {
  for (size_t i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

/* LCALS's PLANCKIAN: two divides beside a call to exp every iteration. */
#include <math.h>
void planck(long n, double *restrict w, double *restrict y, const double *restrict x,
            const double *restrict u, const double *restrict v) {
  for (long i = 0; i < n; ++i) {
    y[i] = u[i] / v[i];
    w[i] = x[i] / (exp(y[i]) - 1.0);
  }
}

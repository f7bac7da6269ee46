// A loop with an if/else clang keeps as branches (sqrt, which may set
// errno, in one arm): each iteration runs one arm, never both.
#include <math.h>
void arms(double *restrict q, const double *restrict d, const double *restrict e,
          const double *restrict c, double r, long n) {
  for (long i = 0; i < n; i++) {
    if (d[i] > 0.0)
      q[i] = 0.0;
    else
      q[i] = sqrt(e[i] / r) / c[i];
  }
}

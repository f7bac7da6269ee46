/* A loop that calls libm every iteration: the callee is not costed. */
#include <math.h>
void vexp(long n, double *restrict y, const double *restrict x) {
  for (long i = 0; i < n; ++i)
    y[i] = exp(x[i]);
}

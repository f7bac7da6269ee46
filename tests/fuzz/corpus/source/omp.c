/* OpenMP loops: a parallel 2D Jacobi sweep and a SIMD reduction. */
#include <omp.h>

void jacobi(int n, int m, double (*restrict out)[m], const double (*restrict in)[m]) {
#pragma omp parallel for
  for (int j = 1; j < n - 1; ++j)
    for (int i = 1; i < m - 1; ++i)
      out[j][i] = 0.25 * (in[j][i - 1] + in[j][i + 1] + in[j - 1][i] + in[j + 1][i]);
}

double sum(int n, const float *x) {
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int i = 0; i < n; ++i)
    s += x[i];
  return s;
}

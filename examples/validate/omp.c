/* The validation suite's kernels on all the host's cores (`perfmodel validate
 * --cores N -- -fopenmp`, bench/validate/run.sh): OpenMP loops whose
 * iterations the threads split evenly, one size parameter n, so that ECM's
 * saturation with cores is timed where the cores share the data's level (the
 * L3 and memory). */
void triad(long n, double *restrict a, const double *restrict b, const double *restrict c,
           double s) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}
void daxpy(long n, double *restrict y, const double *restrict x, double s) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    y[i] += s * x[i];
}
void scale(long n, double *restrict a, const double *restrict b, double s) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    a[i] = s * b[i];
}
double sum4(long n, const double *a) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (long i = 0; i < n; i += 4)
    s += (a[i] + a[i + 1]) + (a[i + 2] + a[i + 3]);
  return s;
}
void jacobi2d(long n, double *restrict b, const double *restrict a) {
#pragma omp parallel for schedule(static)
  for (long j = 1; j < n - 1; ++j)
    for (long i = 1; i < n - 1; ++i)
      b[j * n + i] = 0.25 * (a[j * n + i - 1] + a[j * n + i + 1] + a[(j - 1) * n + i] +
                             a[(j + 1) * n + i]);
}

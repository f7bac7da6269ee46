void scale(double *restrict a, const double *restrict b, long n) {
  for (long i = 0; i < n; ++i)
    a[i] = 3.0 * b[i];
}

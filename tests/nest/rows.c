/* A short reduction per row: each row is one chain of m dependent FMAs (the
   accumulator starts at zero in every row), so rows are independent and the
   out-of-order window overlaps as many of them as it holds. */
void rows(long n, long m, double *restrict c, const double *restrict a,
          const double *restrict b) {
  for (long i = 0; i < n; ++i) {
    double s = 0;
    for (long k = 0; k < m; ++k)
      s += a[i * m + k] * b[k];
    c[i] = s;
  }
}

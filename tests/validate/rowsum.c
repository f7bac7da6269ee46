/* s[i] is written once per row, outside the inner loop. */
void rowsum(long n, double *restrict s, const double *restrict A) {
  for (long i = 0; i < n; ++i) {
    double t = 0;
    for (long j = 0; j < n; ++j)
      t += A[i * n + j];
    s[i] = t;
  }
}

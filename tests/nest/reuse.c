/* One row reused by every iteration of the outer loop: it stays in a cache
   exactly when n doubles fit (with s's line beside it). */
void reuse(long n, long m, double *restrict s, const double *restrict a) {
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j)
      s[i] += a[j];
}

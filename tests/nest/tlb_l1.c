/* Column walks against the first-level data TLB (tests/cli: FirstLevelTlb*). */
void transpose(long n, double *restrict b, const double *restrict a) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      b[j * n + i] = a[i * n + j];
}
void matmul_ijk(long n, double *restrict c, const double *restrict a,
                const double *restrict b) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      for (long k = 0; k < n; ++k)
        c[i * n + j] += a[i * n + k] * b[k * n + j];
}

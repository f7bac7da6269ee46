// c += a * b by rows of n (ikj): at n = 26 the vector body (32 a trip) never
// runs and each row is 26 iterations of the scalar remainder loop.
void short_rows(long n, double *restrict c, const double *restrict a,
                const double *restrict b) {
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        c[i * n + j] += a[i * n + k] * b[k * n + j];
}

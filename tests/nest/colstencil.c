/* A stencil down the columns of u (adi's column sweep): three neighbours in
   one row of u share a line but where they straddle one. */
void colstencil(long n, double *restrict v, const double *restrict u) {
  for (long i = 1; i < n - 1; ++i)
    for (long j = 1; j < n - 1; ++j)
      v[i * n + j] = u[j * n + i - 1] + u[j * n + i] + u[j * n + i + 1];
}

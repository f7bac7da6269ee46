/* Two columns walked together, the next column in the next iteration of k:
   each line is reused by eight k when the two columns' lines stay. */
void columns(long m, long n, double *restrict q, const double *restrict a) {
  for (long k = 0; k < n; ++k)
    for (long i = 0; i < m; ++i)
      q[i * n + k] = a[i * n + k] * 0.5;
}

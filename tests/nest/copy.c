/* A copy loop: clang-19 -O3 replaces it with a call to memcpy. */
void copy(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i];
}

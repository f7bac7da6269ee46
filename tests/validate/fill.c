/* Loops clang-19 -O3 replaces with calls to memcpy and memset. */
void copy(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i];
}
void zero(long n, double *a) {
  for (long i = 0; i < n; ++i)
    a[i] = 0;
}

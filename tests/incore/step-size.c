/* A step given by a size (i += k): clang-19 -O3 versions the loop, a zmm
 * copy for k == 1 and a scalar one for any other k. */
void stepk(long n, long k, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i += k)
    a[i] = 2.0 * b[i];
}

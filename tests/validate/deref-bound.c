/* A loop bounded by a size read through a pointer (i < *n): validate passes
 * n as one element holding the size it varies, as it passes index data. */
void byptr(const long *n, double *restrict a) {
  for (long i = 0; i < *n; i++)
    a[i] = 1.0;
}

/* Integer arrays of plain data (a, b, c) and one that indexes (idx). */
void iaxpb(long n, int *restrict a, const int *restrict b, const int *restrict c) {
  for (long i = 0; i < n; ++i)
    a[i] = 3 * b[i] + c[i];
}
void hist(long n, double *restrict h, const int *restrict idx) {
  for (long i = 0; i < n; ++i)
    h[idx[i]] += 1;
}
void bytes_inc(long n, unsigned char *restrict a, const unsigned char *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + 1;
}

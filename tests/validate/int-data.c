/* Integer arrays of plain data (a, b, c) and one that indexes (idx). */
void iaxpb(long n, int *restrict a, const int *restrict b, const int *restrict c) {
  for (long i = 0; i < n; ++i)
    a[i] = 3 * b[i] + c[i];
}
void hist(long n, double *restrict h, const int *restrict idx) {
  for (long i = 0; i < n; ++i)
    h[idx[i]] += 1;
}

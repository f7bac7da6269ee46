/* An element the innermost loop does not move, beside a stream of the same
 * array (TSVC's s1113 and s113): a[n/2] stays in L1 while a[i] streams by.
 * In mix, the fixed element moves with the outer loop instead. */
void half(int t, int n, float *a, const float *b) {
  for (int r = 0; r < t; r++)
    for (int i = 0; i < n; i++)
      a[i] = a[n / 2] + b[i];
}
void mix(int m, int n, float *a, const float *b) {
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++)
      a[i] += a[j] * b[i];
}

/* Column sums as PolyBench's correlation/covariance compute them: the inner
   loop walks a column (a new line every iteration), the next column reuses
   those lines if the cache keeps one column's worth of them. */
void colsum(int m, int n, double data[n][m], double mean[m]) {
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++)
      mean[j] += data[i][j];
}

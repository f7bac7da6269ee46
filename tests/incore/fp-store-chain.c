// A chain of n dependent FMAs per j whose sum lives in memory, as code
// without `restrict` keeps it: each link stores its result (tests/unit/
// InCoreTest.cpp, InCore.FpStoreDataWaitsInTheFpQueueOnZen4AndZen5).
void chains(int n, int m, double *s, const double *a, const double *b) {
  for (int j = 0; j < m; j++) {
    s[j] = 0;
    for (int k = 0; k < n; k++)
      s[j] += 1.5 * a[k] * b[k * 190 + j];
  }
}

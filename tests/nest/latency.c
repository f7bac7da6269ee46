// Latency-bound loads (issue 18): a pointer chase, a gather through an index
// array and a sum at a stride beyond a cache line. tests/cli/CliTest.cpp
// derives their cycles at memory size by hand.
long chase(long n, const long *next) {
  long j = 0;
  for (long i = 0; i < n; ++i)
    j = next[j];
  return j;
}

double gather_sum(long n, const double *x, const int *idx) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += x[idx[i]];
  return s;
}

double stride72(long n, const double *a) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[9 * i];
  return s;
}

// Latency-bound loads (issue 18): a pointer chase, a gather through an index
// array, a sum at a stride beyond a cache line, one at two lines (only the
// stride prefetcher follows it) and a copy of one element per line (AVX-512
// gathers and scatters). tests/cli/CliTest.cpp derives their cycles at
// memory size by hand.
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

double stride128(long n, const double *a) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[16 * i];
  return s;
}

void strided_copy(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; ++i)
    a[8 * i] = 2.0 * b[8 * i];
}

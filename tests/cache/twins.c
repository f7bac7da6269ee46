/* Nests the simulator's replays must tell apart (tests/unit/CacheTest.cpp,
 * Simulator.CopiesOfANestShareAReplayAndNoOtherNestDoes): copy and copy2 are
 * one nest under two names; the others differ from it in one thing each. */
void copy(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i];
}
void copy2(long n, double *restrict x, const double *restrict y) {
  for (long i = 0; i < n; ++i)
    x[i] = y[i];
}
void copy_float(long n, float *restrict a, const float *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i];
}
void copy_step2(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i += 2)
    a[i] = b[i];
}
double sum(long n, const double *restrict b) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += b[i];
  return s;
}

/* Subscripts through a variable the nest sets from its counter (LCALS's
 * FIND_FIRST_MIN, a last-match index): each value it holds is one the
 * counter took, so x[m] reaches x[k]'s lines. A variable set to loaded data
 * (m = idx[k]) or to two different values is not followed. */
long first_min(long n, const double *restrict x) {
  long m = 0;
  for (long k = 1; k < n; k++)
    if (x[k] < x[m])
      m = k;
  return m;
}
long last_above(long n, const double *restrict x, const double *restrict y, double t) {
  long last = 0;
  double s = 0;
  for (long i = 0; i < n; i++) {
    if (y[i] > t)
      last = i + 1;
    s += x[last];
  }
  return (long)s;
}
long loaded(long n, const double *restrict x, const int *restrict idx) {
  long m = 0;
  double s = 0;
  for (long k = 0; k < n; k++) {
    if (idx[k] > 0)
      m = idx[k];
    s += x[m];
  }
  return (long)s;
}
long two_values(long n, const double *restrict x) {
  long m = 0;
  double s = 0;
  for (long k = 1; k < n; k++) {
    if (x[k] > 0)
      m = k;
    else
      m = k - 1;
    s += x[m];
  }
  return (long)s;
}

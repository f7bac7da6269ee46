/* One-level walks at strides of whole lines: a[16 * i] of doubles touches
 * every other line, all in the even sets of a cache; a[24 * i] every third,
 * over all the sets. */
double every_other(long n, const double *a) {
  double s = 0;
  for (long i = 0; i < n; i += 16)
    s += a[i];
  return s;
}
double every_third(long n, const double *a) {
  double s = 0;
  for (long i = 0; i < n; i += 24)
    s += a[i];
  return s;
}

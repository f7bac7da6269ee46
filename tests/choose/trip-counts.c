/* Variants with the same loop body (a floating-point recurrence, no memory
 * access, so the data level and the cycles per iteration are the same in
 * all) and different trip counts, for choose's hand-derived tests:
 *   twice_n     2 n iterations
 *   n_plus      n + 1000 iterations
 *   split       n + 1000 iterations in two loops (the sum over a
 *               function's loops)
 *   fixed       1000 iterations whatever n is
 * twice_n is faster while 2 n < n + 1000, i.e. n < 1000; at n = 1000 they tie
 * (the first given wins); above, n_plus is faster. */
double twice_n(long n, double s) {
  for (long i = 0; i < 2 * n; ++i)
    s = s * 1.0001 + 1.0;
  return s;
}

double n_plus(long n, double s) {
  for (long i = 0; i < n + 1000; ++i)
    s = s * 1.0001 + 1.0;
  return s;
}

double split(long n, double s) {
  for (long i = 0; i < n; ++i)
    s = s * 1.0001 + 1.0;
  for (long i = 0; i < 1000; ++i)
    s = s * 1.0001 + 1.0;
  return s;
}

double fixed(double s) {
  for (long i = 0; i < 1000; ++i)
    s = s * 1.0001 + 1.0;
  return s;
}

/* validate must fail cleanly: `scale` is declared but defined nowhere, so
 * the timing harness cannot be linked. */
extern double scale;

void scale_all(int n, double *a) {
  for (int i = 0; i < n; ++i)
    a[i] *= scale;
}

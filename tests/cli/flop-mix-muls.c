// Seven multiplies per element and one load and one store: on Haswell the
// two multiply pipes, not the FMA peak, bind (CliTest.FlopMixBoundIsComputeBound).
void muls(int n, double *x, const double *a) {
  for (int i = 0; i < n; i++)
    x[i] = a[i] * a[i] * a[i] * a[i] * a[i] * a[i] * a[i] * a[i];
}

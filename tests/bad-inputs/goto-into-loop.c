void f(double *a, int n) {
  int i = 0;
  goto inside;
  for (i = 0; i < n; ++i) {
  inside:
    a[i] = 0;
  }
}

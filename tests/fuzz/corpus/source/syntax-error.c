void f(double *a, int n) {
  for (int i = 0; i < n; ++i)
    a[i] = a[i] +;
}

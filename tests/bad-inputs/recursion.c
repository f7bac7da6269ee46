double g(double x, int d) { return d ? g(x * 0.5, d - 1) : x; }
void f(double *a, int n) { for (int i = 0; i < n; ++i) a[i] = g(a[i], 3); }

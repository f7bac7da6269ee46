void f(double *a, int n) { for (int i = 0; i < n; ++i) a[i] = 1.0; /* ÿþ */ }

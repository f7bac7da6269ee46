/* References in the enclosing loop's body, once per outer iteration. */
void rowsum(int n, int m, const double *a, double *s) {
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < m; j++)
      t += a[i * m + j];
    s[i] = t;
  }
}

/* The 16-tap convolution of issue 47: out[i] stored once per 16 (i, k). */
void conv16(int n, const float *in, const float *w, float *out) {
  for (int i = 0; i < n; i++) {
    float t = 0;
    for (int k = 0; k < 16; k++)
      t += in[i + k] * w[15 - k];
    out[i] = t;
  }
}

/* y[i] read before the row and written after it: y += A x, row by row. */
void matvec_acc(int n, int m, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double t = y[i];
    for (int j = 0; j < m; j++)
      t += A[i * m + j] * x[j];
    y[i] = t;
  }
}

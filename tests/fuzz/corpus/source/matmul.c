/* Dense matrix multiply on linearised row-major arrays, in two loop orders. */
void matmul_ijk(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        C[i * n + j] += A[i * n + k] * B[k * n + j];
}

void matmul_ikj(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double a = A[i * n + k];
      const double *Brow = &B[k * n];
      double *Crow = C + i * n;
      for (int j = 0; j < n; ++j)
        Crow[j] += a * Brow[j];
    }
}

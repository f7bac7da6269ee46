/* Triangular nests (PolyBench's lu/cholesky init_array, syrk's scaling):
   the inner loop's bounds depend on the outer counter, so one execution of
   the nest touches half of each array's bounding box. */
void lower(int n, double A[n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      A[i][j] = (double)(-j % n) / n + 1;
}

void upper_scale(int n, double C[n][n], double beta) {
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++)
      C[i][j] *= beta;
}

/* A 2D Jacobi stencil whose rows are short: at n = 49 the inner loop runs 47
   iterations, 5 trips of the 8-wide vector body and 7 of the scalar
   remainder in every row (clang-19 -O3 -march=haswell). */
void jacobi2d(long n, double *restrict b, const double *restrict a) {
  for (long j = 1; j < n - 1; ++j)
    for (long i = 1; i < n - 1; ++i)
      b[j * n + i] = 0.25 * (a[j * n + i - 1] + a[j * n + i + 1] + a[(j - 1) * n + i] +
                             a[(j + 1) * n + i]);
}

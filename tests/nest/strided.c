/* Every eighth element: clang-19 -O3 -march=znver5 reads b with a zmm
   gather and writes a with a zmm scatter, 8 source iterations per trip. */
void strided8(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i += 8)
    a[i] = 2.0 * b[i];
}

/* Two row sums kept in memory: tmp and y may alias each other (and a, x),
 * so clang-19 loads and stores both every iteration, at addresses whose
 * index register (i) the inner loop does not change ([reg + 8*reg]): two
 * chains through memory, as in PolyBench's gesummv. */
void rowdots(int n, double *tmp, double *y, const double *a, const double *b,
             const double *x) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      tmp[i] = a[i * n + j] * x[j] + tmp[i];
      y[i] = b[i * n + j] * x[j] + y[i];
    }
}

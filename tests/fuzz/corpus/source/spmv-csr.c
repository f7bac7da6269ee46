/* Sparse matrix-vector product in CSR format: y = A x. The load of x goes
 * through the column index array, so its address depends on loaded data. */
void spmv_csr(int nrows, const int *rowptr, const int *col, const double *val,
              const double *x, double *y) {
  for (int i = 0; i < nrows; ++i) {
    double sum = 0.0;
    for (int j = rowptr[i]; j < rowptr[i + 1]; ++j)
      sum += val[j] * x[col[j]];
    y[i] = sum;
  }
}

/* CSR SpMV: the rows' bounds are loaded from rowptr (--index rowptr=rows:8:n
   gives rows of 8). */
void spmv_csr(long n, double *restrict y, const double *restrict val, const int *restrict rowptr,
              const int *restrict col, const double *restrict x) {
  for (long i = 0; i < n; ++i)
    for (long k = rowptr[i]; k < rowptr[i + 1]; ++k)
      y[i] += val[k] * x[col[k]];
}

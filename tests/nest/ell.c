/* SpMV in ELLPACK form, 8 nonzeros per row: clang-19 -O3 -march=znver4
   unrolls the row's 8 iterations and vectorizes the loop over rows with
   gathers (val and col skip 8 elements a row, x is indirect). */
void spmv_ell(long n, double *restrict y, const double *restrict val, const int *restrict col,
              const double *restrict x) {
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < 8; ++k)
      y[i] += val[i * 8 + k] * x[col[i * 8 + k]];
}

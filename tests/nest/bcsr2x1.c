/* The 2x1 BCSR SpMV kernel perfmodel choose generates (blocks column-major). */
void bcsr_2x1(int nbrows, const int *restrict browptr, const int *restrict bcol,
    const double *restrict val, const double *restrict x, double *restrict y) {
  for (int I = 0; I < nbrows; ++I) {
    double y0 = 0.0;
    double y1 = 0.0;
    for (long k = browptr[I]; k < browptr[I + 1]; ++k) {
      const long j = (long)bcol[k] * 1;
      y0 += val[2 * k + 0] * x[j + 0];
      y1 += val[2 * k + 1] * x[j + 0];
    }
    y[2 * (long)I + 0] = y0;
    y[2 * (long)I + 1] = y1;
  }
}

// Rows through pointers (double **): za[j][k] with the row pointers za[j]
// loaded once per row, the shape of Livermore loop 23.
void hydro(double **restrict za, double **restrict zb, double **restrict zr,
           double **restrict zu, double **restrict zv, double **restrict zz, long n) {
  for (long j = 1; j < 6; j++)
    for (long k = 1; k < n; k++) {
      double qa = za[j + 1][k] * zr[j][k] + za[j - 1][k] * zb[j][k] +
                  za[j][k + 1] * zu[j][k] + za[j][k - 1] * zv[j][k] + zz[j][k];
      za[j][k] += 0.175 * (qa - za[j][k]);
    }
}

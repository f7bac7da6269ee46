/* gemm's update at a constant row length: clang-19 -O3 -march=znver5
 * versions the j loop on a run-time overlap check (c may alias b) and, for
 * the arrays apart, unrolls its zmm version fully into the k loop; the
 * scalar loop versions stay for the rest. */
void rowupdate(double *c, const double *b, double a, int nk) {
  for (int k = 0; k < nk; k++)
    for (int j = 0; j < 220; j++)
      c[j] += a * b[k * 220 + j];
}

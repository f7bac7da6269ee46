/* gramschmidt's k step at a constant column height: a reduction down
 * column k, then the column scaled by its norm. clang-19 -O3
 * -march=znver5 keeps the scaling loop as a scalar loop (for Q overlapping
 * A) and, beside it, unrolls its zmm version fully into the k loop: 25
 * gathers, divisions and scatters of 8 doubles. */
#include <math.h>
void colnorm(double A[200][240], double Q[200][240], double *R, int n) {
  for (int k = 0; k < n; k++) {
    double nrm = 0;
    for (int i = 0; i < 200; i++)
      nrm += A[i][k] * A[i][k];
    R[k] = sqrt(nrm);
    for (int i = 0; i < 200; i++)
      Q[i][k] = A[i][k] / R[k];
  }
}

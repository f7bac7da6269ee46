/* The three kernels of Figure 9.2 in Williams, "The Roofline Model"
 * (../shared/seeds/roofline-chapter-williams.txt), all in double precision.
 *
 * (a) vector magnitude: 1 mul + 1 add per element, 8 B read. The chapter
 *     counts it as N flops (1 per element) over 8N bytes, AI 0.125; counting
 *     the multiply and the add gives 2 flops per element.
 * (b) 2D 5-point stencil: 6 flops per point (4 adds, 2 muls); at DRAM 8 B
 *     read of A (the other four points hit in cache) + 16 B for C (write
 *     allocate + write back) = 24 B, AI 0.25.
 * (c) dense matrix-matrix multiply: 2 flops per inner iteration, 2 N^3 flops
 *     over 32 N^2 bytes when the matrices fit in cache, AI N/16.
 */
#include <math.h>

#ifndef N
#define N 2048
#endif

double magnitude(const double *A, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    sum += A[i] * A[i];
  return sqrt(sum);
}

void stencil(double C[N][N], const double A[N][N], double c0, double c1) {
  for (int j = 1; j < N - 1; j++)
    for (int i = 1; i < N - 1; i++)
      C[j][i] = c0 * A[j][i] +
                c1 * (A[j][i - 1] + A[j][i + 1] + A[j - 1][i] + A[j + 1][i]);
}

void dgemm(double C[N][N], const double A[N][N], const double B[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
}

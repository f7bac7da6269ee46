/* The validation suite of `perfmodel validate` (bench/validate/run.sh): one
 * loop nest per function, every size derived from n (2D arrays are n x n,
 * linearised), so one parameter places the working set in each level. */
#include <math.h>

/* Streaming. */
void copy(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i];
}
void scale(long n, double *restrict a, const double *restrict b, double s) {
  for (long i = 0; i < n; ++i)
    a[i] = s * b[i];
}
void add(long n, double *restrict a, const double *restrict b, const double *restrict c) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + c[i];
}
void triad(long n, double *restrict a, const double *restrict b, const double *restrict c,
           double s) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}
void daxpy(long n, double *restrict y, const double *restrict x, double s) {
  for (long i = 0; i < n; ++i)
    y[i] += s * x[i];
}
void striad_float(long n, float *restrict a, const float *restrict b, const float *restrict c,
                  float s) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

/* Reductions: 1, 2, 4 and 8 accumulators (no -ffast-math: the compiler
 * keeps the order, so the chains are the source's). */
double sum1(long n, const double *a) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i];
  return s;
}
double sum2(long n, const double *a) {
  double s0 = 0, s1 = 0;
  for (long i = 0; i < n; i += 2) {
    s0 += a[i];
    s1 += a[i + 1];
  }
  return s0 + s1;
}
double sum4(long n, const double *a) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (long i = 0; i < n; i += 4) {
    s0 += a[i];
    s1 += a[i + 1];
    s2 += a[i + 2];
    s3 += a[i + 3];
  }
  return s0 + s1 + s2 + s3;
}
double sum8(long n, const double *a) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (long i = 0; i < n; i += 8) {
    s0 += a[i];
    s1 += a[i + 1];
    s2 += a[i + 2];
    s3 += a[i + 3];
    s4 += a[i + 4];
    s5 += a[i + 5];
    s6 += a[i + 6];
    s7 += a[i + 7];
  }
  return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
}
double dot(long n, const double *a, const double *b) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}
float dot_float(long n, const float *a, const float *b) {
  float s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

/* Division and square root. */
void divide(long n, double *restrict a, const double *restrict b, const double *restrict c) {
  for (long i = 0; i < n; ++i)
    a[i] = b[i] / c[i];
}
void root(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; ++i)
    a[i] = sqrt(b[i]);
}

/* Stencils. */
void jacobi2d(long n, double *restrict b, const double *restrict a) {
  for (long j = 1; j < n - 1; ++j)
    for (long i = 1; i < n - 1; ++i)
      b[j * n + i] = 0.25 * (a[j * n + i - 1] + a[j * n + i + 1] + a[(j - 1) * n + i] +
                             a[(j + 1) * n + i]);
}
void jacobi3d(long n, double *restrict b, const double *restrict a) {
  for (long k = 1; k < n - 1; ++k)
    for (long j = 1; j < n - 1; ++j)
      for (long i = 1; i < n - 1; ++i)
        b[(k * n + j) * n + i] =
            (a[(k * n + j) * n + i - 1] + a[(k * n + j) * n + i + 1] +
             a[(k * n + j - 1) * n + i] + a[(k * n + j + 1) * n + i] +
             a[((k - 1) * n + j) * n + i] + a[((k + 1) * n + j) * n + i]) * (1.0 / 6);
}

/* Matrix multiplication orders and transposition. */
void matmul_ijk(long n, double *restrict c, const double *restrict a,
                const double *restrict b) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      for (long k = 0; k < n; ++k)
        c[i * n + j] += a[i * n + k] * b[k * n + j];
}
void matmul_ikj(long n, double *restrict c, const double *restrict a,
                const double *restrict b) {
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        c[i * n + j] += a[i * n + k] * b[k * n + j];
}
void transpose(long n, double *restrict b, const double *restrict a) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      b[j * n + i] = a[i * n + j];
}

/* Strided access, prefix sum, polynomial evaluation. */
void strided8(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i += 8)
    a[i] = 2.0 * b[i];
}
double sum_stride16(long n, const double *a) {
  double s = 0;
  for (long i = 0; i < n; i += 16)
    s += a[i];
  return s;
}
void prefix_sum(long n, double *restrict a) {
  for (long i = 1; i < n; ++i)
    a[i] += a[i - 1];
}
void horner(long n, double *restrict y, const double *restrict x) {
  for (long i = 0; i < n; ++i) {
    double v = x[i];
    y[i] = (((((0.1 * v + 0.2) * v + 0.3) * v + 0.4) * v + 0.5) * v + 0.6) * v + 0.7;
  }
}

/* Indirect: the index arrays' contents come from --index (bench/validate/
 * run.sh: idx=uniform:0:n:n, a random gather over n elements; col=
 * uniform:0:n:8*n, 8 random columns per row; rowptr=rows:8:n, CSR rows of
 * 8), in the simulator and in the timing harness alike. */
void gather(long n, double *restrict y, const double *restrict x, const int *restrict idx) {
  for (long i = 0; i < n; ++i)
    y[i] = x[idx[i]];
}
/* SpMV in ELLPACK form: 8 nonzeros per row. */
void spmv_ell(long n, double *restrict y, const double *restrict val, const int *restrict col,
              const double *restrict x) {
  for (long i = 0; i < n; ++i)
    for (long k = 0; k < 8; ++k)
      y[i] += val[i * 8 + k] * x[col[i * 8 + k]];
}
/* SpMV in CSR form: the rows' bounds are loaded from rowptr. */
void spmv_csr(long n, double *restrict y, const double *restrict val, const int *restrict rowptr,
              const int *restrict col, const double *restrict x) {
  for (long i = 0; i < n; ++i)
    for (long k = rowptr[i]; k < rowptr[i + 1]; ++k)
      y[i] += val[k] * x[col[k]];
}

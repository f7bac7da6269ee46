/* Branches on the loop counters and sizes (tests: Frontend.
   BranchesOnCountersTakeTheShareTheSizesGive, InCore.ArmsOfBranchesOn
   CountersRunAsOftenAsTheSizesSay). Hand-derived shares are in the tests. */

/* A 2x upscale with a bilinear blend: x = j / 2, y = i / 2 reach the last
   input row or column in the last two output rows and columns, where the
   blend's right or lower neighbour would be outside the image. Scalar, so
   that its branches stay (clang unswitches y + 1 < h out of the j loop). */
void upscale(int h, int w, const float *restrict in, float *restrict out) {
  for (int i = 0; i < 2 * h; i++)
    _Pragma("clang loop vectorize(disable)") for (int j = 0; j < 2 * w; j++) {
      int x = j / 2, y = i / 2;
      float fx = (j & 1) * 0.5f, fy = (i & 1) * 0.5f;
      float v;
      if (x + 1 < w && y + 1 < h) {
        v = in[y * w + x] * (1 - fx) * (1 - fy) + in[y * w + x + 1] * fx * (1 - fy) +
            in[(y + 1) * w + x] * (1 - fx) * fy + in[(y + 1) * w + x + 1] * fx * fy;
      } else if (x + 1 < w) {
        v = in[y * w + x] * (1 - fx) + in[y * w + x + 1] * fx;
      } else {
        v = in[y * w + x];
      }
      out[i * 2 * w + j] = v;
    }
}

/* Every third element. */
void thirds(int n, float *restrict a, const float *restrict b) {
  for (int i = 0; i < n; i++)
    if (i % 3 == 0)
      a[i] = b[i] * 2.0f;
}

/* Below the diagonal. */
void lower(int n, float *restrict a, const float *restrict b) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      int d = j - i;
      if (d < 0)
        a[i * n + j] += b[j * n + i];
    }
}

/* A branch on the data: no share from the counters. */
void positive(int n, float *restrict a, const float *restrict b) {
  for (int i = 0; i < n; i++) {
    float t = b[i];
    if (t > 0)
      a[i] = t;
  }
}

/* The first minimum's position: the update arm runs where a new minimum
   appears, H(n) / n of n iterations for data in random order. */
int argmin(int n, const float *x) {
  int m = 0;
  for (int k = 1; k < n; k++)
    if (x[k] < x[m])
      m = k;
  return m;
}

/* A 4x zoom of rows, scalar: x = j / 4 reads a quarter of an element an
   iteration; clang unrolls j by 4, one x a pass (`add r13, 4` over the
   input, 16 bytes of output a pass). */
void zoom(int n, int m, const int *restrict in, float *restrict out) {
  for (int i = 0; i < n; i++)
    _Pragma("clang loop vectorize(disable) interleave(disable)") for (int j = 0; j < m; j++) {
      int x = j / 4;
      float f = (j - 4 * x) / 4.0f;
      if (x + 1 < m / 4) {
        out[i * m + j] = in[i * (m / 4) + x] * (1 - f) + in[i * (m / 4) + x + 1] * f;
      } else {
        out[i * m + j] = in[i * (m / 4) + x];
      }
    }
}

/* The same on one line with the position kept in memory (volatile, as a
   benchmark's DoNotOptimize keeps it): the update is a block of the if's
   own line, taken in H(n) / n of the iterations. */
int argminVolatile(int n, const double *x) {
  volatile int m = 0;
  for (int k = 1; k < n; k++)
    if (x[k] < x[m]) m = k;
  return m;
}

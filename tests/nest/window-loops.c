/* Short fixed window loops that clang unrolls whole into the column loop
 * around them and vectorises across the columns (issue 45, llvm-test-suite's
 * ImageProcessing): a 5 x 5 box sum and a 3-row maximum whose rows outside
 * the image are skipped. A trip of the machine loop covers the whole window
 * for each of its columns. */
void box5(int n, int m, const int in[n][m], int out[n][m]) {
  for (int i = 2; i < n - 2; i++)
    for (int j = 2; j < m - 2; j++) {
      int s = 0;
      for (int k = -2; k <= 2; k++)
        for (int l = -2; l <= 2; l++)
          s += in[i + k][j + l];
      out[i][j] = s;
    }
}
void rowmax3(int n, int m, const int in[n][m], int out[n][m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      int v = 0;
      for (int k = -1; k <= 1; k++)
        if (i + k >= 0 && i + k < n)
          v = in[i + k][j] > v ? in[i + k][j] : v;
      out[i][j] = v;
    }
}
/* A 4 x 4 neighbourhood copied into a local array by two short loops, then
 * a long polynomial over it (a bicubic-like interpolation, four times
 * zoomed): the copy is a few lines of the machine loop over j, most of it
 * the polynomial's. */
#define CUBIC(p0, p1, p2, p3, t)                                                                   \
  ((p1) + 0.5 * (t) * ((p2) - (p0) + (t) * (2.0 * (p0) - 5.0 * (p1) + 4.0 * (p2) - (p3) +          \
                                            (t) * (3.0 * ((p1) - (p2)) + (p3) - (p0)))))
void cubic4(int n, const int in[n + 4][n + 4], int out[4 * n][4 * n]) {
  for (int i = 0; i < 4 * n; i++)
    for (int j = 0; j < 4 * n; j++) {
      double w[4][4];
      for (int l = 0; l < 4; l++)
        for (int k = 0; k < 4; k++)
          w[l][k] = in[i / 4 + l][j / 4 + k];
      double x = (double)(i % 4) / 4, y = (double)(j % 4) / 4;
      double r0 = CUBIC(w[0][0], w[0][1], w[0][2], w[0][3], y);
      double r1 = CUBIC(w[1][0], w[1][1], w[1][2], w[1][3], y);
      double r2 = CUBIC(w[2][0], w[2][1], w[2][2], w[2][3], y);
      double r3 = CUBIC(w[3][0], w[3][1], w[3][2], w[3][3], y);
      out[i][j] = CUBIC(r0, r1, r2, r3, x);
    }
}

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

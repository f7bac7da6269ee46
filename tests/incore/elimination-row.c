/* Gaussian elimination's update: a[i][k] is read beside a[i][j] for j from
 * k + 1, outside the written range: clang-19's run-time overlap check
 * passes and its vector copy runs. */
#define N 500
double a[N][N];
void eliminate(void) {
  for (int k = 0; k < N; k++)
    for (int i = k + 1; i < N; i++)
      for (int j = k + 1; j < N; j++)
        a[i][j] -= a[i][k] * a[k][j];
}

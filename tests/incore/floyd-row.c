/* PolyBench's floyd-warshall: path[i][k] is read beside path[i][j], which
 * the j loop writes. clang-19 -march=znver3 hoists path[i][k] out of a
 * vector copy guarded by a run-time overlap check, which fails for every k
 * in [0, n): its scalar copy (8 iterations a trip) runs. */
#define N 500
int path[N][N];
void floyd(void) {
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}

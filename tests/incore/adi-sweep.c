// A forward sweep (PolyBench's adi, the Thomas algorithm): p[i][j] and
// q[i][j] divide by a value computed from p[i][j-1]. Without restrict clang
// versions the j loop with a run-time overlap check, both copies unrolled
// by 3: where p, q and u do not overlap the copy keeps p[i][j-1] and
// q[i][j-1] in registers, the fallback reloads them from memory
// (tests/unit/InCoreTest.cpp, InCore.TheCopyThatKeepsStoresInRegistersRuns).
void sweep(double p[200][200], double q[200][200], double u[200][200], double a, double b,
           double c, double d, double f) {
  for (int i = 1; i < 199; i++) {
    p[i][0] = 0.0;
    q[i][0] = 1.0;
    for (int j = 1; j < 199; j++) {
      p[i][j] = -c / (a * p[i][j - 1] + b);
      q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1] -
                 a * q[i][j - 1]) / (a * p[i][j - 1] + b);
    }
  }
}

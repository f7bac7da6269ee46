/* Column walks over rows of 25 doubles (LCALS's MAT_X_MAT without its row
   pointers): p[j][i] and c[j][i] step 200 B, a new line each an iteration;
   rowwalk takes the same elements along the rows. */
void colwalk(long n, double (*restrict p)[25], const double (*restrict c)[25]) {
  for (long i = 0; i < 25; i++)
    for (long j = 0; j < n; j++)
      p[j][i] += c[j][i];
}
void rowwalk(long n, double (*restrict p)[25], const double (*restrict c)[25]) {
  for (long j = 0; j < n; j++)
    for (long i = 0; i < 25; i++)
      p[j][i] += c[j][i];
}

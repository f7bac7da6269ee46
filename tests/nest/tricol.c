/* A triangular column sweep (TSVC s1232's shape): column j from row j down. */
void tricol(int n, float *aa, const float *bb, const float *cc) {
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++)
      aa[i * n + j] = bb[i * n + j] + cc[i * n + j];
}

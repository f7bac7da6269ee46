/* The shapes of real code issue 45 lists, one function each, for
 * `perfmodel validate` (run.sh): file-scope arrays unrolled deep, a
 * gather of every 8th element, a bound N/2, a step given by a size, a call
 * to a function of the file, a gather whose working set only the declared
 * extents bound, and a column walk over power-of-two rows. */
#ifndef LEN /* validate sets the sizes with -D */
#define LEN 32000
#endif
#ifndef N
#define N 256
#endif
float a[LEN], b[LEN];
int ip[LEN];
float aa[N][N], bb[N][N];

void file_scope(void) {
  for (int i = 0; i < LEN; i++)
    a[i] = b[i] + 1;
}
void gather8(long n, double *restrict x, const double *restrict y) {
  for (long i = 0; i < n; i++)
    x[i] = 2.0 * y[8 * i];
}
void half_bound(void) {
  for (int i = 0; i < N / 2; i++)
    for (int j = 0; j < N; j++)
      aa[i][j] = bb[i][j] * 2.0f;
}
void step_k(long n, long k, double *restrict x, const double *restrict y) {
  for (long i = 0; i < n; i += k)
    x[i] = y[i] + 1.0;
}
__attribute__((noinline)) float sq1(float v) { return v * v + 1.0f; }
void same_file_call(long n, float *restrict x, const float *restrict y) {
  for (long i = 0; i < n; i++)
    x[i] = sq1(y[i]);
}
void declared_gather(void) {
  for (int i = 0; i < LEN; i++)
    a[i] = b[ip[i]];
}
void column_walk(void) {
  for (int i = 0; i < N; i++)
    for (int j = 1; j < N; j++)
      aa[j][i] = aa[j - 1][i] + bb[j][i];
}

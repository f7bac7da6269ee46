/* Column loads whose lines crowd a few L1 sets (bench/memory/conflicts.c):
 * rows of 256 floats (1 KiB: a column reaches 4 of Zen 5's 64 sets), read
 * down a column into four sums (rows j..j+3: four lines an iteration), and
 * two columns packed through a counter the front end cannot follow (the
 * loop's own layer conditions do not apply). Rows of 272 floats reach every
 * set. */
float p[256][256], q[256][256], r[256][272], flat[65536];
void sums(float *out) {
  for (int i = 0; i < 256; i++) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int j = 0; j < 256; j += 4) {
      s0 += p[j][i];
      s1 += p[j + 1][i];
      s2 += p[j + 2][i];
      s3 += p[j + 3][i];
    }
    out[i] = s0 + s1 + s2 + s3;
  }
}
void pack(void) {
  int k = -1;
  for (int i = 0; i < 256; i++)
    for (int j = 0; j < 256; j++)
      if (q[j][i] > 0.f) {
        k++;
        flat[k] = p[j][i];
      }
}
void padded(float *out) {
  for (int i = 0; i < 272; i++) {
    float s = 0;
    for (int j = 0; j < 256; j++)
      s += r[j][i];
    out[i] = s;
  }
}

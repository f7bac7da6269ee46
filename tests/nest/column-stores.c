/* Column walks whose stores crowd a few L1 sets (bench/memory/conflicts.c):
 * TSVC's s2111-like sweep over 256 x 256 floats (a row is 1 KiB: a column
 * reaches 4 of Zen 5's 64 sets) and over rows of 512 floats (2 sets), and
 * stores alone down rows of 64 floats (256 B: 16 sets) and of 256 (TSVC's
 * s2102: 4 sets, nothing read through them). */
float aa[256][256], bb[256][256], cc[256][64], dd[256][512], ee[256][512], ff[256][256];
void sweep(void) {
  for (int i = 0; i < 256; i++)
    for (int j = 1; j < 256; j++)
      aa[j][i] = aa[j - 1][i] + bb[j][i];
}
void fill16(void) {
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 256; j++)
      cc[j][i] = 1.0f;
}
void sweep2(void) {
  for (int i = 0; i < 512; i++)
    for (int j = 1; j < 256; j++)
      dd[j][i] = dd[j - 1][i] + ee[j][i];
}
void fill4(void) {
  for (int i = 0; i < 256; i++)
    for (int j = 0; j < 256; j++)
      ff[j][i] = 0.0f;
}

/* A column sum over rows of R floats, R known only at run time: clang-19
 * -O3 -march=znver5 unrolls the j loop 17 times (255 = 15 x 17); the loads
 * advance by registers (R * 4 bytes a row), only the counter by an
 * immediate (add r9, -17). */
void colsum(const float *bb, int R, float *out) {
  for (int i = 0; i < R; i++) {
    float s = 0;
    for (int j = 1; j < 256; j++)
      s += bb[j * R + i];
    out[i] = s;
  }
}

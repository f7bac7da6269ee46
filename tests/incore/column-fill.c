/* Column stores over rows of R floats, R known only at run time: clang-19
 * -O3 -march=znver5 versions the j loop on R == 1 (then a row is a
 * contiguous run: 12 zmm and 7 ymm stores, 248 floats, unrolled into the i
 * loop) beside a scalar loop of 8 stores a trip and its remainder. */
void colfill(float *aa, int R) {
  for (int i = 0; i < R; i++)
    for (int j = 1; j < 256; j++)
      aa[j * R + i] = (float)j;
}

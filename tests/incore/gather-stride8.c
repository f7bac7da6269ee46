/* A reference that skips elements beside a contiguous one: clang-19 -O3
 * -march=znver5 loads b[8 * i] with vgatherqpd zmm (8 elements each) and
 * stores a[i] with vmovupd zmm, four of each a trip, the store's index
 * advancing by 32 elements (256 bytes). */
void stride8(long n, double *restrict a, const double *restrict b) {
  for (long i = 0; i < n; i++)
    a[i] = 2.0 * b[8 * i];
}

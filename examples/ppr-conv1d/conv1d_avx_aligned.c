/* PPR paper, algorithm 3: the input is copied shifted, so that every vector
 * load is aligned (_mm256_load_ps). A 32-byte aligned load of in[i + k]
 * needs the copy shifted by k mod 8: eight copies, in_aligned + s*stride
 * holding in[s ...] (the paper describes four copies for 16-byte alignment
 * and counts the data as four times the original; 256-bit loads need 32).
 * One accumulator per 8 outputs, as in algorithm 2. */
#include <immintrin.h>

#define TAP(k)                                                                       \
  acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_load_ps(in_aligned + ((k) % 8) * stride + i + (k) / 8 * 8), \
                         acc0);                                                      \
  acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_load_ps(in_aligned + ((k) % 8) * stride + i + (k) / 8 * 8 + 8), \
                         acc1);

void conv1d_avx_aligned(long length, long stride, const float *restrict in_aligned,
                        const float *restrict kernel, float *restrict out) {
  for (long i = 0; i < length - 32; i += 16) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    TAP(0) TAP(1) TAP(2) TAP(3) TAP(4) TAP(5) TAP(6) TAP(7)
    TAP(8) TAP(9) TAP(10) TAP(11) TAP(12) TAP(13) TAP(14) TAP(15)
    _mm256_store_ps(out + i, acc0);
    _mm256_store_ps(out + i + 8, acc1);
  }
}

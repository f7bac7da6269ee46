/* PPR paper, algorithm 2: AVX2, 16 outputs per iteration in two 8-float
 * accumulators, each tap broadcast from the reversed kernel and multiplied
 * into inputs at every offset k = 0..15, so 30 of the 32 vector loads per
 * block start at addresses that are not multiples of 32 bytes
 * (_mm256_loadu_ps). The paper's pseudocode nests the taps in loops of
 * 4 x 4; written out here as the compiler unrolls them. */
#include <immintrin.h>

#define TAP(k)                                                                       \
  acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_loadu_ps(in + i + (k)), acc0);                       \
  acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_loadu_ps(in + i + (k) + 8), acc1);

void conv1d_avx_unaligned(long length, const float *restrict in,
                          const float *restrict kernel, float *restrict out) {
  for (long i = 0; i < length - 32; i += 16) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    TAP(0) TAP(1) TAP(2) TAP(3) TAP(4) TAP(5) TAP(6) TAP(7)
    TAP(8) TAP(9) TAP(10) TAP(11) TAP(12) TAP(13) TAP(14) TAP(15)
    _mm256_storeu_ps(out + i, acc0);
    _mm256_storeu_ps(out + i + 8, acc1);
  }
}

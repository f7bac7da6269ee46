/* PPR paper, algorithm 3: the input is copied shifted, so that every vector
 * load is aligned (_mm256_load_ps). A 32-byte aligned load of in[i + k]
 * needs the copy shifted by k mod 8: eight copies, in_aligned + s*stride
 * holding in[s ...] (the paper describes four copies for 16-byte alignment
 * and counts the data as four times the original; 256-bit loads need 32).
 * One accumulator per 8 outputs, as in algorithm 2. */
#include <immintrin.h>

/* Tap k reads the copy shifted by S = k mod 8 at block offset B = k - S. */
#define TAP(k, S, B)                                                                 \
  acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_load_ps(in_aligned + (S) * stride + i + (B)), acc0); \
  acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_load_ps(in_aligned + (S) * stride + i + (B) + 8), acc1);

void conv1d_avx_aligned(long length, long stride, const float *restrict in_aligned,
                        const float *restrict kernel, float *restrict out) {
  for (long i = 0; i < length - 32; i += 16) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    TAP(0, 0, 0) TAP(1, 1, 0) TAP(2, 2, 0) TAP(3, 3, 0)
    TAP(4, 4, 0) TAP(5, 5, 0) TAP(6, 6, 0) TAP(7, 7, 0)
    TAP(8, 0, 8) TAP(9, 1, 8) TAP(10, 2, 8) TAP(11, 3, 8)
    TAP(12, 4, 8) TAP(13, 5, 8) TAP(14, 6, 8) TAP(15, 7, 8)
    _mm256_store_ps(out + i, acc0);
    _mm256_store_ps(out + i + 8, acc1);
  }
}

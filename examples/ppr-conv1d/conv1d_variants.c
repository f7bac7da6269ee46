/* The PPR paper's 1D convolution (section 5) as four variants computing the
 * same outputs out[i] = sum_k in[i + k] * kernel[15 - k], i < length - 32
 * (the vector variants write 16 outputs per iteration and stop one block
 * early; the scalar variant is cut to the same range), single precision,
 * kernel length 16, for `perfmodel choose --variant`:
 *   conv1d_scalar         algorithm 1, the taps written out as clang unrolls
 *                         them, not vectorised (loop pragma)
 *   conv1d_sse            algorithm 2 with 128-bit unaligned loads
 *   conv1d_avx_unaligned  algorithm 2, _mm256_loadu_ps at every tap offset
 *   conv1d_avx_aligned    algorithm 3, eight shifted copies of the input so
 *                         every 256-bit load is aligned; the copies are
 *                         prepared once outside (in_aligned + s * stride holds
 *                         in[s ...], stride = length + 64), as in the paper.
 * Compile with -O3 -mavx2 -mfma (or -march=native). */
#include <immintrin.h>

#define SCALAR_TAP(k) in[i + (k)] * kernel[15 - (k)]

void conv1d_scalar(long length, const float *restrict in, const float *restrict kernel,
                   float *restrict out) {
#pragma clang loop vectorize(disable) interleave(disable)
  for (long i = 0; i < length - 32; ++i) {
    float tmp = 0;
    tmp += SCALAR_TAP(0); tmp += SCALAR_TAP(1); tmp += SCALAR_TAP(2); tmp += SCALAR_TAP(3);
    tmp += SCALAR_TAP(4); tmp += SCALAR_TAP(5); tmp += SCALAR_TAP(6); tmp += SCALAR_TAP(7);
    tmp += SCALAR_TAP(8); tmp += SCALAR_TAP(9); tmp += SCALAR_TAP(10); tmp += SCALAR_TAP(11);
    tmp += SCALAR_TAP(12); tmp += SCALAR_TAP(13); tmp += SCALAR_TAP(14); tmp += SCALAR_TAP(15);
    out[i] = tmp;
  }
}

#define SSE_TAP(k)                                                                   \
  {                                                                                  \
    __m128 w = _mm_broadcast_ss(kernel + 15 - (k));                                  \
    acc0 = _mm_add_ps(acc0, _mm_mul_ps(w, _mm_loadu_ps(in + i + (k))));             \
    acc1 = _mm_add_ps(acc1, _mm_mul_ps(w, _mm_loadu_ps(in + i + (k) + 4)));         \
    acc2 = _mm_add_ps(acc2, _mm_mul_ps(w, _mm_loadu_ps(in + i + (k) + 8)));         \
    acc3 = _mm_add_ps(acc3, _mm_mul_ps(w, _mm_loadu_ps(in + i + (k) + 12)));        \
  }

void conv1d_sse(long length, const float *restrict in, const float *restrict kernel,
                float *restrict out) {
  for (long i = 0; i < length - 32; i += 16) {
    __m128 acc0 = _mm_setzero_ps(), acc1 = _mm_setzero_ps();
    __m128 acc2 = _mm_setzero_ps(), acc3 = _mm_setzero_ps();
    SSE_TAP(0) SSE_TAP(1) SSE_TAP(2) SSE_TAP(3) SSE_TAP(4) SSE_TAP(5) SSE_TAP(6) SSE_TAP(7)
    SSE_TAP(8) SSE_TAP(9) SSE_TAP(10) SSE_TAP(11) SSE_TAP(12) SSE_TAP(13) SSE_TAP(14)
    SSE_TAP(15)
    _mm_storeu_ps(out + i, acc0);
    _mm_storeu_ps(out + i + 4, acc1);
    _mm_storeu_ps(out + i + 8, acc2);
    _mm_storeu_ps(out + i + 12, acc3);
  }
}

#define AVXU_TAP(k)                                                                  \
  acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_loadu_ps(in + i + (k)), acc0);                       \
  acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_loadu_ps(in + i + (k) + 8), acc1);

void conv1d_avx_unaligned(long length, const float *restrict in,
                          const float *restrict kernel, float *restrict out) {
  for (long i = 0; i < length - 32; i += 16) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    AVXU_TAP(0) AVXU_TAP(1) AVXU_TAP(2) AVXU_TAP(3) AVXU_TAP(4) AVXU_TAP(5)
    AVXU_TAP(6) AVXU_TAP(7) AVXU_TAP(8) AVXU_TAP(9) AVXU_TAP(10) AVXU_TAP(11)
    AVXU_TAP(12) AVXU_TAP(13) AVXU_TAP(14) AVXU_TAP(15)
    _mm256_storeu_ps(out + i, acc0);
    _mm256_storeu_ps(out + i + 8, acc1);
  }
}

/* Tap k reads the copy shifted by S = k mod 8 at block offset B = k - S. */
#define AVXA_TAP(k, S, B)                                                            \
  acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_load_ps(in_aligned + (S) * stride + i + (B)), acc0); \
  acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(kernel + 15 - (k)),                     \
                         _mm256_load_ps(in_aligned + (S) * stride + i + (B) + 8), acc1);

void conv1d_avx_aligned(long length, const float *restrict in_aligned,
                        const float *restrict kernel, float *restrict out) {
  const long stride = length + 64;
  for (long i = 0; i < length - 32; i += 16) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
    AVXA_TAP(0, 0, 0) AVXA_TAP(1, 1, 0) AVXA_TAP(2, 2, 0) AVXA_TAP(3, 3, 0)
    AVXA_TAP(4, 4, 0) AVXA_TAP(5, 5, 0) AVXA_TAP(6, 6, 0) AVXA_TAP(7, 7, 0)
    AVXA_TAP(8, 0, 8) AVXA_TAP(9, 1, 8) AVXA_TAP(10, 2, 8) AVXA_TAP(11, 3, 8)
    AVXA_TAP(12, 4, 8) AVXA_TAP(13, 5, 8) AVXA_TAP(14, 6, 8) AVXA_TAP(15, 7, 8)
    _mm256_store_ps(out + i, acc0);
    _mm256_store_ps(out + i + 8, acc1);
  }
}

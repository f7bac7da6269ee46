// Non-temporal stores bypass the caches (issue 18): scale_nt's stores are
// movnt, scale_st's ordinary; tests/cli/CliTest.cpp derives both by hand.
#include <immintrin.h>

__attribute__((target("avx"))) void scale_nt(long n, double *restrict a, const double *restrict b, double s) {
  __m256d S = _mm256_set1_pd(s);
  for (long i = 0; i < n; i += 4)
    _mm256_stream_pd(&a[i], _mm256_mul_pd(S, _mm256_load_pd(&b[i])));
}

__attribute__((target("avx"))) void scale_st(long n, double *restrict a, const double *restrict b, double s) {
  __m256d S = _mm256_set1_pd(s);
  for (long i = 0; i < n; i += 4)
    _mm256_store_pd(&a[i], _mm256_mul_pd(S, _mm256_load_pd(&b[i])));
}

// Lines from a cache beside a memory stream (memory.cache_line_cy): per line
// of a 128 MiB stream a (one 64-byte load, and in the "copy" rows one 64-byte
// store to a second 128 MiB array b), E more loads from E streams of
// STREAM_KIB each, read round and round (in L1 for 2 KiB, in L2 for 32-256
// KiB, L3 beyond). Cycles per line of a, at the clock given, best of 5, for
// E = 0..4. What E streams add over E = 0 is what their lines cost a loop
// whose other lines come from memory; ECM's full overlap would say nothing.
// Needs AVX-512F (Zen 4 and 5: the vectors clang-19 -march=native emits).
//   cc -O2 bench/memory/cachelines.c -o cachelines && ./cachelines GHZ [STREAM_KIB...]
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}
#define KERNEL(NAME, E, STORE)                                                              \
  __attribute__((target("avx512f"), noinline)) static double NAME(                        \
      long N, double *B, const double *A, const double *C, long M) {                      \
    __m512d Acc = _mm512_setzero_pd();                                                     \
    long J = 0;                                                                            \
    for (long I = 0; I < N; I += 8) {                                                      \
      __m512d V = _mm512_load_pd(A + I);                                                   \
      for (int K = 0; K < E; ++K)                                                          \
        V = _mm512_add_pd(V, _mm512_load_pd(C + K * M + J));                              \
      J = J + 8 == M ? 0 : J + 8;                                                          \
      if (STORE)                                                                           \
        _mm512_store_pd(B + I, V);                                                         \
      else                                                                                 \
        Acc = _mm512_add_pd(Acc, V);                                                       \
    }                                                                                      \
    return _mm512_reduce_add_pd(Acc);                                                      \
  }
KERNEL(copy0, 0, 1) KERNEL(copy1, 1, 1) KERNEL(copy2, 2, 1) KERNEL(copy3, 3, 1)
KERNEL(copy4, 4, 1) KERNEL(load0, 0, 0) KERNEL(load1, 1, 0) KERNEL(load2, 2, 0)
KERNEL(load3, 3, 0) KERNEL(load4, 4, 0)
typedef double (*Kernel)(long, double *, const double *, const double *, long);

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    fprintf(stderr, "usage: %s GHZ [STREAM_KIB...]\n", Argv[0]);
    return 2;
  }
  double Ghz = atof(Argv[1]);
  long N = 1L << 24;
  double *A = aligned_alloc(64, N * 8), *B = aligned_alloc(64, N * 8);
  for (long I = 0; I < N; ++I)
    A[I] = B[I] = 1;
  Kernel K[10] = {copy0, copy1, copy2, copy3, copy4, load0, load1, load2, load3, load4};
  long Default[] = {2, 32, 256, 2048};
  int Sizes = Argc > 2 ? Argc - 2 : 4;
  printf("stream KiB | copy E=0..4 (cy per line of a) | load E=0..4\n");
  for (int S = 0; S < Sizes; ++S) {
    long Kib = Argc > 2 ? atol(Argv[2 + S]) : Default[S];
    long M = Kib * 128; // doubles per cached stream
    double *C = aligned_alloc(64, 4 * M * 8 + 64);
    for (long I = 0; I < 4 * M; ++I)
      C[I] = 1;
    double Best[10];
    volatile double Sink = 0;
    for (int I = 0; I < 10; ++I)
      Best[I] = 1e30;
    for (int R = 0; R < 5; ++R)
      for (int I = 0; I < 10; ++I) {
        double T = now();
        Sink += K[I](N, B, A, C, M);
        T = now() - T;
        if (T < Best[I])
          Best[I] = T;
      }
    printf("%10ld |", Kib);
    for (int I = 0; I < 10; ++I)
      printf(" %5.1f%s", Best[I] / (N / 8.0) * 1e9 * Ghz, I == 4 ? " |" : "");
    printf("\n");
    free(C);
  }
  return 0;
}

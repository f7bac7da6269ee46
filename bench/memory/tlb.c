// Data-TLB misses in a throughput loop: one store (then one load) per page,
// N pages STRIDE pages apart, visited round-robin, each on a line of its own
// (a hash spreads them over the L1's sets; N <= 8192 lines stay in L2). Per
// access, cycles at the clock given. Below the TLB's reach the loop runs at
// its cache cost; beyond it every access also walks the page tables: the
// difference is what a miss costs such a loop (tlb.load_miss_cy,
// tlb.store_miss_cy), the knee the TLB's capacity for that stride (a TLB
// indexed by the page number's low bits keeps entries / stride pages).
//   cc -O2 -march=native bench/memory/tlb.c -o tlb && ./tlb GHZ [STRIDE_PAGES]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}
static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}
static inline long lineOf(long P) { return (long)(((unsigned long)P * 0x9E3779B97F4A7C15ull) >> 58); }
__attribute__((noinline)) void stores(double *B, long N, long Rounds, long Stride) {
  for (long R = 0; R < Rounds; ++R)
    for (long P = 0; P < N; ++P)
      B[P * Stride + (lineOf(P) << 3) + (R & 7)] = (double)R;
}
__attribute__((noinline)) double loads(const double *B, long N, long Rounds, long Stride) {
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  for (long R = 0; R < Rounds; ++R)
    for (long P = 0; P < N; P += 4) {
      S0 += B[P * Stride + (lineOf(P) << 3) + (R & 7)];
      S1 += B[(P + 1) * Stride + (lineOf(P + 1) << 3) + (R & 7)];
      S2 += B[(P + 2) * Stride + (lineOf(P + 2) << 3) + (R & 7)];
      S3 += B[(P + 3) * Stride + (lineOf(P + 3) << 3) + (R & 7)];
    }
  return S0 + S1 + S2 + S3;
}
volatile double Sink;
int main(int argc, char **argv) {
  double GHz = argc > 1 ? atof(argv[1]) : 3.0;
  long StridePages = argc > 2 ? atol(argv[2]) : 1;
  long Stride = StridePages * 512; // doubles
  long Ns[] = {64, 128, 256, 384, 512, 768, 1024, 1536, 2048, 2560, 3072, 4096, 8192};
  long Count = sizeof Ns / sizeof *Ns;
  size_t Bytes = (size_t)Ns[Count - 1] * Stride * 8;
  double *B = aligned_alloc(4096, Bytes);
  if (!B)
    return 1;
#ifdef MADV_NOHUGEPAGE
  madvise(B, Bytes, MADV_NOHUGEPAGE); // 4 KiB pages, as malloc gives by default
#endif
  memset(B, 0, Bytes);
  printf("stride %ld pages; pages, store cy/access, load cy/access (medians of 7)\n", StridePages);
  for (long K = 0; K < Count; ++K) {
    long N = Ns[K], Rounds = (40L << 20) / N;
    double TS[7], TL[7];
    for (int Rep = 0; Rep < 7; ++Rep) {
      double T0 = now();
      stores(B, N, Rounds, Stride);
      double T1 = now();
      Sink = loads(B, N, Rounds, Stride);
      double T2 = now();
      TS[Rep] = (T1 - T0) * GHz * 1e9 / (N * Rounds);
      TL[Rep] = (T2 - T1) * GHz * 1e9 / (N * Rounds);
    }
    qsort(TS, 7, sizeof *TS, cmp);
    qsort(TL, 7, sizeof *TL, cmp);
    printf("%6ld %7.2f %7.2f\n", N, TS[3], TL[3]);
  }
  return 0;
}

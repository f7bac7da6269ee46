// Misses in flight for irregular accesses: over sets of 32 MiB to 512 MiB
// (4 KiB pages, as malloc'ed arrays get), ns per access of one pointer chase
// (the latency), of 32, 64 and 128 chases at once, and of independent
// random loads (x[idx[i]] summed into four accumulators: a gather's misses).
// Latency / ns per independent load = the misses one core keeps in flight
// for such accesses; chases cap it at their count by construction.
//
// Sizes in MiB may be given (default 32 128 512): the single chase over each
// is the random line's latency by footprint (memory.latency_ns_by_footprint).
//
//   clang-19 -O2 -o mlp bench/memory/mlp.c && ./mlp [MIB...]
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "../incore/host_clock.h"

typedef struct {
  uint64_t Next;
  char Pad[56];
} Line;

__attribute__((noinline)) double gather(const double *X, const uint64_t *Idx, long N) {
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  for (long I = 0; I < N; I += 4) {
    S0 += X[Idx[I]];
    S1 += X[Idx[I + 1]];
    S2 += X[Idx[I + 2]];
    S3 += X[Idx[I + 3]];
  }
  return S0 + S1 + S2 + S3;
}

static uint64_t Rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) {
  Rng ^= Rng << 13, Rng ^= Rng >> 7, Rng ^= Rng << 17;
  return Rng;
}

int main(int argc, char **argv) {
  size_t Sizes[32] = {32 << 20, 128 << 20, 512 << 20};
  int Count = 3;
  if (argc > 1) {
    Count = 0;
    for (int I = 1; I < argc && Count < 32; I++)
      Sizes[Count++] = (size_t)atol(argv[I]) << 20;
  }
  for (int SI = 0; SI < Count; SI++) {
    size_t Lines = Sizes[SI] / 64;
    Line *L = aligned_alloc(4096, Lines * 64);
    madvise(L, Lines * 64, MADV_NOHUGEPAGE); // 4 KiB pages even where THP is always on
    uint32_t *Perm = malloc(Lines * 4);
    for (uint32_t I = 0; I < Lines; I++)
      Perm[I] = I;
    for (uint32_t I = Lines - 1; I > 0; I--) {
      uint32_t J = next() % (I + 1), T = Perm[I];
      Perm[I] = Perm[J];
      Perm[J] = T;
    }
    for (uint32_t I = 0; I < Lines; I++)
      L[Perm[I]].Next = Perm[(I + 1) % Lines];
    const int Chains[] = {1, 32, 64, 128};
    double Latency = 0;
    for (int CI = 0; CI < 4; CI++) {
      int K = Chains[CI];
      double R[7];
      uint64_t P[128];
      for (int Rep = 0; Rep < 7; Rep++) {
        for (int C = 0; C < K; C++)
          P[C] = Perm[(uint64_t)C * Lines / K];
        long Steps = 2000000 / K;
        double T0 = now();
        for (long S = 0; S < Steps; S++)
          for (int C = 0; C < K; C++)
            P[C] = L[P[C]].Next;
        R[Rep] = (now() - T0) / (Steps * (double)K) * 1e9;
        uint64_t X = 0;
        for (int C = 0; C < K; C++)
          X ^= P[C];
        if (X == 7)
          puts("");
      }
      qsort(R, 7, sizeof(double), compareDoubles);
      if (K == 1)
        Latency = R[3];
      printf("%4zu MiB  %3d chase(s): %7.2f ns per access (median of 7)\n", Sizes[SI] >> 20,
             K, R[3]);
    }
    long N = 2000000;
    uint64_t *Idx = malloc(N * 8);
    for (long I = 0; I < N; I++)
      Idx[I] = next() % Lines * 8;
    double R[7];
    for (int Rep = 0; Rep < 7; Rep++) {
      double T0 = now();
      volatile double S = gather((const double *)L, Idx, N);
      (void)S;
      R[Rep] = (now() - T0) / N * 1e9;
    }
    qsort(R, 7, sizeof(double), compareDoubles);
    printf("%4zu MiB  independent random loads: %7.2f ns per access (median of 7): %.1f misses "
           "in flight\n",
           Sizes[SI] >> 20, R[3], Latency / R[3]);
    free(L);
    free(Perm);
    free(Idx);
  }
  return 0;
}

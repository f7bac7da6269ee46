/* zmm loads and stores together in L1: whether the L1 takes its load ports'
 * and its store port's bytes in the same cycle, or less. Each trip issues L
 * independent 64-byte loads and S 64-byte stores, all 64-byte aligned, the
 * stores 16 KiB away from the loads and both walking 16 KiB (no store is
 * forwarded to a later load; everything stays in L1). Prints cycles per trip
 * for each mix: the best of 7 rounds, each round timing every mix and a
 * dependent add chain (one add a cycle) that gives the clock.
 * A port model with independent load and store ports predicts
 * max(L / loads per cycle, S / stores per cycle); a shared L1 data path of B
 * bytes a cycle adds 64 (L + S) / B.
 *   clang-19 -O2 -mavx512f bench/incore/l1_load_store_mix.c -o l1mix && ./l1mix
 * (x86-64 with AVX-512 only.) With -DYMM the accesses are 32-byte ymm ones
 * (what clang-19 emits for Intel cores, which prefer 256-bit vectors):
 *   clang-19 -O2 -mavx2 -DYMM bench/incore/l1_load_store_mix.c -o l1mix-ymm */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

#ifdef YMM
#define WIDTH 32
#define WS "32"
#define REG "ymm"
#else
#define WIDTH 64
#define WS "64"
#define REG "zmm"
#endif
/* The K-th access of a trip, WIDTH bytes each. */
#define LD(K) "vmovupd " #K "*" WS "(%0,%1), %%" REG "1\n\t"
#define ST(K) "vmovupd %%" REG "2, " #K "*" WS "+16384(%0,%1)\n\t"
#define L2 LD(0) LD(1)
#define L4 L2 LD(2) LD(3)
#define L6 L4 LD(4) LD(5)
#define L8 L6 LD(6) LD(7)
#define S2 ST(0) ST(1)
#define S4 S2 ST(2) ST(3)
/* One mix timed inline (a call per trip would add its own cycles). */
#define TIME(CODE, SLOT)                                                                 \
  {                                                                                      \
    double T0 = now();                                                                   \
    for (long I = 0; I < N; ++I) {                                                       \
      long Off = (I * 512) & 16383;                                                      \
      __asm__ volatile(CODE ::"r"(B), "r"(Off) : "memory", "xmm1");                      \
    }                                                                                    \
    double T = now() - T0;                                                               \
    if (T < Best[SLOT])                                                                  \
      Best[SLOT] = T;                                                                    \
  }

int main(void) {
  char *B = aligned_alloc(4096, 40960);
  if (!B)
    return 1;
  for (int I = 0; I < 40960; ++I)
    B[I] = 0;
  const long N = 20000000;
  const char *Names[] = {"8 loads",           "8 loads, 2 stores", "8 loads, 4 stores",
                         "6 loads, 4 stores", "4 loads, 4 stores", "2 loads, 4 stores",
                         "4 stores"};
  const int Accesses[] = {8, 10, 12, 10, 8, 6, 4};
  double Best[8];
  for (int K = 0; K < 8; ++K)
    Best[K] = 1e9;
  for (int R = 0; R < 7; ++R) {
    double T0 = now();
    long X = 0;
    for (long I = 0; I < N; ++I)
      __asm__ volatile(".rept 10\n\tadd %0, %0\n\t.endr" : "+r"(X));
    double T = now() - T0;
    if (T < Best[7])
      Best[7] = T;
    TIME(L8, 0)
    TIME(L8 S2, 1)
    TIME(L8 S4, 2)
    TIME(L6 S4, 3)
    TIME(L4 S4, 4)
    TIME(L2 S4, 5)
    TIME(S4, 6)
  }
  double Cycle = Best[7] / (N * 10.0);
  printf("clock %.2f GHz (an add chain's)\n%-20s %10s %12s\n", 1e-9 / Cycle, "mix", "cy/trip",
         "bytes/cy");
  for (int K = 0; K < 7; ++K) {
    double Cy = Best[K] / Cycle / N;
    printf("%-20s %10.2f %12.1f\n", Names[K], Cy, WIDTH * Accesses[K] / Cy);
  }
  return 0;
}

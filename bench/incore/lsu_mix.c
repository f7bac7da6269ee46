/* Vector and scalar-FP loads and stores a cycle, each trip's accesses to the
 * same lines (no line walk, nothing aliasing: stores 2 KiB past the loads'
 * page offset), against general-register loads and independent adds, on the
 * core's clock (host_clock.h). Prints cycles per trip and accesses a cycle.
 * With two FP load pipes and two store pipes, 8 FP loads take 4 cycles, 8
 * stores of 32 bytes (two a line) 4, and 6 + 6 of each 3; a combined limit
 * of three load/store pipes (LLVM 19's Zen 4 model, Zn4LSU) makes the mix 4.
 *   clang-19 -O2 -mavx2 bench/incore/lsu_mix.c -o lsu_mix && ./lsu_mix */
#include "host_clock.h"

#include <stdio.h>

#define LY(k) "vmovups " #k "*64(%0), %%ymm" #k "\n\t"
#define SY(k) "vmovups %%ymm15, " #k "*32(%1)\n\t"
#define LS(k) "vmovss " #k "*4+1024(%0), %%xmm" #k "\n\t"
#define SS(k) "vmovss %%xmm15, " #k "*4+1024(%1)\n\t"
#define LQ(k) "mov " #k "*64(%0), %%r" #k "\n\t"
#define CLOB "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", \
             "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "memory"
#define LOOP(Name, Body)                                                                   \
  static __attribute__((noinline)) void Name(char *P, char *Q, long N) {                   \
    for (long I = 0; I < N; I++)                                                           \
      __asm__ volatile(Body ::"r"(P), "r"(Q) : CLOB);                                      \
  }
LOOP(ymmLoads8, LY(0) LY(1) LY(2) LY(3) LY(4) LY(5) LY(6) LY(7))
LOOP(ymmStores8, SY(0) SY(1) SY(2) SY(3) SY(4) SY(5) SY(6) SY(7))
LOOP(ymmMix66, LY(0) SY(0) LY(1) SY(1) LY(2) SY(2) LY(3) SY(3) LY(4) SY(4) LY(5) SY(5))
LOOP(ymmMix84, LY(0) LY(1) SY(0) LY(2) LY(3) SY(1) LY(4) LY(5) SY(2) LY(6) LY(7) SY(3))
LOOP(floatMix66, LS(0) SS(0) LS(1) SS(1) LS(2) SS(2) LS(3) SS(3) LS(4) SS(4) LS(5) SS(5))
LOOP(floatLoads8, LS(0) LS(1) LS(2) LS(3) LS(4) LS(5) LS(6) LS(7))
LOOP(gprLoads8, LQ(8) LQ(9) LQ(10) LQ(11) LQ(12) LQ(13) LQ(14) LQ(15))
LOOP(adds8, "add %%r8, %%r8\n\tadd %%r9, %%r9\n\tadd %%r10, %%r10\n\tadd %%r11, %%r11\n\t"
            "add %%r12, %%r12\n\tadd %%r13, %%r13\n\tadd %%r14, %%r14\n\tadd %%r15, %%r15\n\t")

int main(void) {
  char *B = aligned_alloc(4096, 1 << 16);
  if (!B)
    return 1;
  for (int I = 0; I < 1 << 16; I++)
    B[I] = 1;
  char *P = B, *Q = B + 32768 + 2048;
  const long N = 20000000;
  struct {
    const char *Name;
    void (*F)(char *, char *, long);
    int Accesses;
  } T[] = {{"8 ymm loads", ymmLoads8, 8},          {"8 ymm stores (2 a line)", ymmStores8, 8},
           {"6 ymm loads, 6 ymm stores", ymmMix66, 12}, {"8 ymm loads, 4 ymm stores", ymmMix84, 12},
           {"6 float loads, 6 float stores", floatMix66, 12},
           {"8 float loads", floatLoads8, 8},       {"8 gpr loads", gprLoads8, 8},
           {"8 independent adds", adds8, 0}};
  double Ghz = clockGhz();
  printf("clock %.2f GHz (an add chain's)\n%-32s %8s %12s\n", Ghz, "mix", "cy/trip", "accesses/cy");
  for (unsigned K = 0; K < sizeof T / sizeof T[0]; K++) {
    double Best = 1e9;
    for (int R = 0; R < 7; R++) {
      double T0 = now();
      T[K].F(P, Q, N);
      double S = now() - T0;
      if (S < Best)
        Best = S;
    }
    double Cy = Best / N * Ghz * 1e9;
    printf("%-32s %8.2f %12.2f\n", T[K].Name, Cy, T[K].Accesses / Cy);
  }
  return 0;
}

/* Store-to-load forwarding from masked stores on this host: per 16 floats,
   a store (plain, or masked with k1) to b[i], then a load of b[i] in the
   same iteration, iterations otherwise independent; best of 7 runs, cycles
   at the clock of a dependent add chain measured beside each run. The load
   of a plain store is forwarded (about 2 cy per iteration); where a masked
   store does not forward, each reload waits for its store to commit, one
   after another. What core.masked_stores_forward and core.forward_fail_cy
   in the Zen 5 files are from. Build: clang-19 -O2 -march=native
   masked_forward.c (needs AVX-512 for the k-masked rows). */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include "host_clock.h"
#define N 1024
static float A[N] __attribute__((aligned(64))), B[N] __attribute__((aligned(64))), C[N] __attribute__((aligned(64)));
#define BODY(STORE, RELOAD) \
  "vmovaps (%0,%3), %%zmm0\n\t" \
  "vfmadd213ps (%1,%3), %%zmm0, %%zmm0\n\t" \
  STORE \
  RELOAD \
  "vmovaps %%zmm1, (%2,%3)\n\t"
#define PLAIN "vmovaps %%zmm0, (%1,%3)\n\t"
#define MASKED "vmovups %%zmm0, (%1,%3)%{%%k1%}\n\t"
#define LOAD "vmovaps (%1,%3), %%zmm1\n\t"
#define NOLOAD "vmulps %%zmm0, %%zmm0, %%zmm1\n\t"
#define KERNEL(NAME, TEXT) \
__attribute__((noinline, target("avx512f"))) void NAME(long Reps, unsigned M) { \
  asm volatile("kmovw %0, %%k1" :: "r"(M) : "k1"); \
  for (long r = 0; r < Reps; r++) \
    for (long i = 0; i < N * 4; i += 64) \
      asm volatile(TEXT :: "r"(A), "r"(B), "r"(C), "r"(i) : "xmm0", "xmm1", "memory"); \
}
KERNEL(plain_noload, BODY(PLAIN, NOLOAD))
KERNEL(plain_load, BODY(PLAIN, LOAD))
KERNEL(masked_noload, BODY(MASKED, NOLOAD))
KERNEL(masked_load, BODY(MASKED, LOAD))
/* Two pairs an iteration, on two arrays (B and C's second half). */
#define BODY2 BODY(MASKED, LOAD) "vmovaps 2048(%0,%3), %%zmm2\n\t vfmadd213ps 2048(%1,%3), %%zmm2, %%zmm2\n\t vmovups %%zmm2, 2048(%1,%3)%{%%k1%}\n\t vmovaps 2048(%1,%3), %%zmm3\n\t vmovaps %%zmm3, 2048(%2,%3)\n\t"
__attribute__((noinline, target("avx512f"))) void masked_two(long Reps, unsigned M) {
  asm volatile("kmovw %0, %%k1" :: "r"(M) : "k1");
  for (long r = 0; r < Reps; r++)
    for (long i = 0; i < N * 2; i += 64)
      asm volatile(BODY2 :: "r"(A), "r"(B), "r"(C), "r"(i) : "xmm0", "xmm1", "xmm2", "xmm3", "memory");
}
/* A masked store, then a load of another line: does a masked store block
   loads it does not cover? */
#define OTHER "vmovaps 2048(%1,%3), %%zmm1\n\t"
KERNEL(masked_other, BODY(MASKED, OTHER))
/* AVX2's vmaskmovps store (ymm, the mask a register), then a reload. */
#define YBODY(STORE, RELOAD) "vmovaps (%0,%3), %%ymm0\n\t vfmadd213ps (%1,%3), %%ymm0, %%ymm0\n\t" STORE RELOAD "vmovaps %%ymm1, (%2,%3)\n\t"
#define YMASKED "vmaskmovps %%ymm0, %%ymm4, (%1,%3)\n\t"
#define YPLAIN "vmovaps %%ymm0, (%1,%3)\n\t"
#define YLOAD "vmovaps (%1,%3), %%ymm1\n\t"
#define YKERNEL(NAME, TEXT) \
__attribute__((noinline, target("avx2,fma"))) void NAME(long Reps, unsigned M) { \
  asm volatile("vpcmpeqd %%ymm4, %%ymm4, %%ymm4" ::: "xmm4"); \
  for (long r = 0; r < Reps; r++) \
    for (long i = 0; i < N * 2; i += 32) \
      asm volatile(TEXT :: "r"(A), "r"(B), "r"(C), "r"(i) : "xmm0", "xmm1", "xmm4", "memory"); \
}
YKERNEL(ymask_load, YBODY(YMASKED, YLOAD))
YKERNEL(yplain_load, YBODY(YPLAIN, YLOAD))
typedef void (*Fn)(long, unsigned);
int main() {
  for (int i = 0; i < N; i++) A[i] = 1e-3f * i, B[i] = 1, C[i] = 0;
  long Reps = 20000;
  struct { const char *Name; Fn F; unsigned M; } K[] = {
    {"plain store, no reload", plain_noload, 0xffff}, {"plain store, reload", plain_load, 0xffff},
    {"masked store (all ones), no reload", masked_noload, 0xffff}, {"masked store (all ones), reload", masked_load, 0xffff},
    {"masked store (half), reload", masked_load, 0x00ff}, {"masked store (none), reload", masked_load, 0},
    {"two masked pairs an iteration (per pair)", masked_two, 0xffff},
    {"masked store, load of another line", masked_other, 0xffff},
    {"ymm plain store, reload (per 8 floats)", yplain_load, 0},
    {"ymm vmaskmovps store, reload (per 8 floats)", ymask_load, 0}};
  for (int k = 0; k < 10; k++) {
    double Best = 1e9;
    for (int t = 0; t < 7; t++) {
      double spc = secondsPerCycle();
      double T0 = now();
      K[k].F(Reps, K[k].M);
      double S = (now() - T0) / spc;
      if (S < Best) Best = S;
    }
    printf("%-44s %6.2f cy per iteration\n", K[k].Name, Best / (Reps * (N / 16.0)));
  }
}

/* A scalar remainder loop after a long AVX-512 FMA loop: what the pair costs
 * beside each alone. The vector loop is the machine body clang-19 -O3
 * -march=znver5 emits for examples/validate/kernels.c's horner (4 zmm loads,
 * 4 register copies, 24 dependent-by-fours FMAs, 4 zmm stores per 32
 * doubles); the scalar loop is its remainder (a load, a copy, 6 chained
 * vfmadd213sd, a store per element). V vector trips, then S scalar
 * iterations, per call, the data in L1; cycles per call at an add chain's
 * clock, the median of 9 rounds. Variants separate the two sides: the
 * scalar loop with integer work only, and the vector loop without its FMAs.
 *   clang-19 -O2 bench/incore/fma_backlog_remainder.c -o fbr && ./fbr
 * (x86-64 with AVX-512 only.) */
#include <stdio.h>
#include <stdlib.h>

#include "host_clock.h"

#define LD4                                                                                     \
  "vmovupd (%1,%0,8),%%zmm7\n\tvmovupd 64(%1,%0,8),%%zmm8\n\t"                                  \
  "vmovupd 128(%1,%0,8),%%zmm9\n\tvmovupd 192(%1,%0,8),%%zmm10\n\t"
#define CP4                                                                                     \
  "vmovapd %%zmm1,%%zmm11\n\tvmovapd %%zmm1,%%zmm12\n\t"                                        \
  "vmovapd %%zmm1,%%zmm13\n\tvmovapd %%zmm1,%%zmm14\n\t"
#define F(C)                                                                                    \
  "vfmadd213pd %%zmm" #C ",%%zmm7,%%zmm11\n\tvfmadd213pd %%zmm" #C ",%%zmm8,%%zmm12\n\t"       \
  "vfmadd213pd %%zmm" #C ",%%zmm9,%%zmm13\n\tvfmadd213pd %%zmm" #C ",%%zmm10,%%zmm14\n\t"
#define F24 F(0) F(2) F(3) F(4) F(5) F(6)
#define ST4                                                                                     \
  "vmovupd %%zmm11,(%2,%0,8)\n\tvmovupd %%zmm12,64(%2,%0,8)\n\t"                                \
  "vmovupd %%zmm13,128(%2,%0,8)\n\tvmovupd %%zmm14,192(%2,%0,8)\n\t"
#define SF(C) "vfmadd213sd %%xmm" #C ",%%xmm7,%%xmm8\n\t"
#define SCALAR_FP                                                                               \
  "vmovsd (%1,%0,8),%%xmm7\n\tvmovapd %%xmm1,%%xmm8\n\t" SF(0) SF(2) SF(3) SF(4) SF(5) SF(6)    \
  "vmovsd %%xmm8,(%2,%0,8)\n\t"
#define CLOBBERS                                                                                \
  "memory", "cc", "r8", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",   \
      "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14"
#define VLOOP(BODY)                                                                             \
  if (V)                                                                                        \
    __asm__ volatile("1:\n\t" BODY "add $32,%0\n\tcmp %3,%0\n\tjne 1b\n\t"                      \
                     : "+r"(I)                                                                  \
                     : "r"(X), "r"(Y), "r"(E)                                                   \
                     : CLOBBERS);
#define SLOOP(BODY)                                                                             \
  if (S)                                                                                        \
    __asm__ volatile("2:\n\t" BODY "inc %0\n\tcmp %3,%0\n\tjne 2b\n\t"                          \
                     : "+r"(I)                                                                  \
                     : "r"(X), "r"(Y), "r"(F)                                                   \
                     : CLOBBERS);

enum Kind { Horner, IntegerRemainder, VectorWithoutFmas };

static void call(enum Kind K, double *X, double *Y, long V, long S) {
  long I = 0, E = 32 * V, F = 32 * V + S;
  switch (K) {
  case Horner:
    VLOOP(LD4 CP4 F24 ST4) SLOOP(SCALAR_FP) break;
  case IntegerRemainder:
    VLOOP(LD4 CP4 F24 ST4) SLOOP("add $1,%%r8\n\t") break;
  case VectorWithoutFmas:
    VLOOP(LD4 CP4 ST4) SLOOP(SCALAR_FP) break;
  }
}

static int cmp(const void *A, const void *B) {
  double D = *(const double *)A - *(const double *)B;
  return (D > 0) - (D < 0);
}

int main(void) {
  double *X = aligned_alloc(64, 1 << 16), *Y = aligned_alloc(64, 1 << 16);
  if (!X || !Y)
    return 1;
  for (int I = 0; I < 8192; I++) {
    X[I] = 0.5 + I * 1e-6;
    Y[I] = 0;
  }
  __asm__ volatile("vbroadcastsd %0,%%zmm0\n\tvmovapd %%zmm0,%%zmm1\n\tvmovapd %%zmm0,%%zmm2\n\t"
                   "vmovapd %%zmm0,%%zmm3\n\tvmovapd %%zmm0,%%zmm4\n\tvmovapd %%zmm0,%%zmm5\n\t"
                   "vmovapd %%zmm0,%%zmm6" ::"m"(X[0])
                   : CLOBBERS);
  const char *Names[] = {"horner (FMA vector, FP scalar)", "FMA vector, integer scalar",
                         "vector without FMAs, FP scalar"};
  const long VS[][2] = {{0, 1}, {0, 31}, {3, 0}, {3, 31}, {15, 0}, {15, 31}, {63, 0}, {63, 1}, {63, 4}, {63, 31}};
  printf("clock %.2f GHz\n| loops | V trips | S iterations | cy/call |\n|---|---:|---:|---:|\n",
         clockGhz());
  for (int K = 0; K < 3; K++)
    for (int C = 0; C < 10; C++) {
      long V = VS[C][0], S = VS[C][1], Reps = 100000000 / (32 * V + S + 16);
      double Cy[9];
      for (int R = 0; R < 9; R++) {
        double Sec = secondsPerCycle(), T0 = now();
        for (long Rep = 0; Rep < Reps; Rep++)
          call((enum Kind)K, X, Y, V, S);
        Cy[R] = (now() - T0) / Sec / Reps;
      }
      qsort(Cy, 9, sizeof Cy[0], cmp);
      printf("| %s | %ld | %ld | %.1f |\n", Names[K], V, S, Cy[4]);
    }
  return 0;
}

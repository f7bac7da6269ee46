/* Gather and scatter throughput on this host: 8 independent gathers
   (scatters) per iteration, each to 4, 8 or 16 elements on different lines
   in L1, best of 9 runs, cycles at the clock of a dependent add chain
   measured first. AVX2's gathers on any AVX2 host (with the vpcmpeqd that
   refills the mask and the vxorpd that breaks the destination's chain, as
   compiled code has them), AVX-512's gathers and scatters where the host
   has AVX-512. What the Zen 3, 4 and 5 files' gather/scatter overrides are
   from. Build: clang-19 -O2 gather_scatter.c */
#include <immintrin.h>
#include <stdint.h>
#include "host_clock.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Each gather gets a zeroed destination and a fresh all-ones mask; W is
 * the destination's width. */
#define GATHERW(INSN, IDX, SCALE, W, k)                                                      \
  "vxorpd %%xmm" #k ", %%xmm" #k ", %%xmm" #k "\n\tkxnorw %%k0, %%k0, %%k1\n\t" INSN        \
  " (%0,%%" IDX "0," #SCALE "), %%" W #k "%{%%k1%}\n\t"
#define GATHER(INSN, IDX, SCALE, k) GATHERW(INSN, IDX, SCALE, "zmm", k)
#define QPDZ(k) GATHER("vgatherqpd", "zmm", 8, k)
#define DPDZ(k) GATHER("vgatherdpd", "ymm", 8, k)
#define DPSZ(k) GATHER("vgatherdps", "zmm", 4, k)
#define QPDY(k)                                                                              \
  "vxorpd %%xmm" #k ", %%xmm" #k ", %%xmm" #k "\n\tkxnorw %%k0, %%k0, %%k1\n\t"             \
  "vgatherqpd (%0,%%ymm0,8), %%ymm" #k "%{%%k1%}\n\t"
#define SQPDZ(k) "kxnorw %%k0, %%k0, %%k1\n\tvscatterqpd %%zmm1, 4096(%0,%%zmm0,8)%{%%k1%}\n\t"
#define SQPDY(k) "kxnorw %%k0, %%k0, %%k1\n\tvscatterqpd %%ymm1, 4096(%0,%%ymm0,8)%{%%k1%}\n\t"
#define SDPSZ(k) "kxnorw %%k0, %%k0, %%k1\n\tvscatterdps %%zmm1, 4096(%0,%%zmm0,4)%{%%k1%}\n\t"
/* 8 floats at 8 qword indices (TSVC's a[i] for odd i, clang's AVX-512 code). */
#define SQPSY(k) "kxnorw %%k0, %%k0, %%k1\n\tvscatterqps %%ymm1, 4096(%0,%%zmm0,8)%{%%k1%}\n\t"
#define QPSY(k)                                                                              \
  "vxorps %%xmm" #k ", %%xmm" #k ", %%xmm" #k "\n\tkxnorw %%k0, %%k0, %%k1\n\t"             \
  "vgatherqps (%0,%%zmm0,8), %%ymm" #k "%{%%k1%}\n\t"
/* EVEX xmm forms: 4 floats at qword indices (clang's TSVC s276 on
 * icelake-server), 4 at dword indices, 2 doubles at qword indices. */
#define GATHERX(INSN, IDX, SCALE, k) GATHERW(INSN, IDX, SCALE, "xmm", k)
#define QPSX(k) GATHERX("vgatherqps", "ymm", 8, k)
#define DPSX(k) GATHERX("vgatherdps", "xmm", 4, k)
#define QPDX(k) GATHERX("vgatherqpd", "xmm", 8, k)
#define R8(X) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9)
/* AVX2: the mask register is consumed, so each gather refills it. */
#define GATHER2(INSN, IDX, SCALE, W, k)                                                      \
  "vxorpd %%xmm" #k ", %%xmm" #k ", %%xmm" #k "\n\tvpcmpeqd %%ymm1, %%ymm1, %%ymm1\n\t" INSN \
  " %%" W "1, (%0,%%" IDX "0," #SCALE "), %%" W #k "\n\t"
#define DPDY(k) GATHER2("vgatherdpd", "xmm", 8, "ymm", k)
#define QPDY2(k) GATHER2("vgatherqpd", "ymm", 8, "ymm", k)
#define DPSY(k) GATHER2("vgatherdps", "ymm", 4, "ymm", k)
#define DPDX(k) GATHER2("vgatherdpd", "xmm", 8, "xmm", k)
#define KERNEL2(NAME, BODY)                                                                  \
  __attribute__((target("avx2"))) static void NAME(char *B, uint64_t N, __m256i I) {       \
    for (uint64_t K = 0; K < N; K++)                                                        \
      asm volatile(BODY ::"r"(B), "v"(I)                                                    \
                   : "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",       \
                     "xmm9", "memory");                                                     \
  }
KERNEL2(dpdy, R8(DPDY))
KERNEL2(qpdy2, R8(QPDY2))
KERNEL2(dpsy, R8(DPSY))
KERNEL2(dpdx, R8(DPDX))
#define KERNEL(NAME, BODY)                                                                   \
  __attribute__((target("avx512f"))) static void NAME(char *B, uint64_t N, __m512i I) {    \
    for (uint64_t K = 0; K < N; K++)                                                        \
      asm volatile(BODY ::"r"(B), "v"(I)                                                    \
                   : "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",       \
                     "xmm9", "k1", "memory");                                               \
  }
KERNEL(qpdz, R8(QPDZ))
KERNEL(qpdy, R8(QPDY))
KERNEL(dpdz, R8(DPDZ))
KERNEL(dpsz, R8(DPSZ))
KERNEL(sqpdz, R8(SQPDZ))
KERNEL(sqpdy, R8(SQPDY))
KERNEL(sdpsz, R8(SDPSZ))
KERNEL(sqpsy, R8(SQPSY))
KERNEL(qpsy, R8(QPSY))
KERNEL(qpsx, R8(QPSX))
KERNEL(dpsx, R8(DPSX))
KERNEL(qpdx, R8(QPDX))

static double best(void (*Run)(void)) {
  double Best = 1e9;
  for (int R = 0; R < 9; R++) {
    double T0 = now();
    Run();
    double S = now() - T0;
    if (S < Best)
      Best = S;
  }
  return Best;
}

static char *B;
static __m256i I2;
static void (*Run2)(char *, uint64_t, __m256i);
static void run2(void) { Run2(B, 200000, I2); }

__attribute__((target("avx2"))) static void avx2(double Ghz) {
  /* Element indices 64 bytes apart: one line each. */
  __m256i Q = _mm256_set_epi64x(24, 16, 8, 0);
  __m256i D = _mm256_set_epi32(56, 48, 40, 32, 24, 16, 8, 0);
  __m256i D16 = _mm256_set_epi32(112, 96, 80, 64, 48, 32, 16, 0);
  struct {
    const char *Name;
    void (*Run)(char *, uint64_t, __m256i);
    __m256i Index;
  } T[] = {{"vgatherdpd ymm (AVX2)", dpdy, D},
           {"vgatherqpd ymm (AVX2)", qpdy2, Q},
           {"vgatherdps ymm (AVX2)", dpsy, D16},
           {"vgatherdpd xmm (AVX2)", dpdx, D}};
  for (unsigned K = 0; K < sizeof T / sizeof T[0]; K++) {
    Run2 = T[K].Run, I2 = T[K].Index;
    printf("| %s | %.2f |\n", T[K].Name, best(run2) * Ghz * 1e9 / (200000.0 * 8));
  }
}

__attribute__((target("avx512f"))) int main(void) {
  double Ghz = clockGhz();
  B = aligned_alloc(4096, 16384);
  for (int I = 0; I < 16384; I++)
    B[I] = 0;
  printf("clock %.2f GHz\n| instruction | cy each |\n|---|---:|\n", Ghz);
  if (__builtin_cpu_supports("avx2"))
    avx2(Ghz);
  if (!__builtin_cpu_supports("avx512f")) {
    printf("(no AVX-512 on this host)\n");
    return 0;
  }
  /* Element indices 64 bytes apart: one line each. */
  __m512i Q = _mm512_set_epi64(56, 48, 40, 32, 24, 16, 8, 0);
  __m512i D8 = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 56, 48, 40, 32, 24, 16, 8, 0);
  __m512i D16 = _mm512_set_epi32(240, 224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64,
                                 48, 32, 16, 0);
  struct {
    const char *Name;
    void (*Run)(char *, uint64_t, __m512i);
    __m512i Index;
  } T[] = {{"vgatherqpd zmm", qpdz, Q},     {"vgatherqpd ymm", qpdy, Q},
           {"vgatherdpd zmm", dpdz, D8},    {"vgatherdps zmm", dpsz, D16},
           {"vscatterqpd zmm", sqpdz, Q},   {"vscatterqpd ymm", sqpdy, Q},
           {"vscatterdps zmm", sdpsz, D16}, {"vscatterqps ymm", sqpsy, Q},
           {"vgatherqps ymm", qpsy, Q},     {"vgatherqps xmm", qpsx, Q},
           {"vgatherdps xmm", dpsx, D16},   {"vgatherqpd xmm", qpdx, Q}};
  for (unsigned K = 0; K < sizeof T / sizeof T[0]; K++) {
    double Best = 1e9;
    for (int R = 0; R < 9; R++) {
      double T0 = now();
      T[K].Run(B, 200000, T[K].Index);
      double S = now() - T0;
      if (S < Best)
        Best = S;
    }
    printf("| %s | %.2f |\n", T[K].Name, Best * Ghz * 1e9 / (200000.0 * 8));
  }
  return 0;
}

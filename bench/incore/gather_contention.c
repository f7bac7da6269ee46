/* What one AVX-512 gather or scatter occupies besides its own throughput
   (AMD Zen 4 and later; any AVX-512 host). Method of uops.info's port
   measurements: per gather (scatter), K filler instructions that saturate one
   resource; the instruction's share of that resource is (T(instruction + K
   fillers) - T(K fillers alone)) x the resource's rate. Also the latency from
   index to result: a chain whose gathered values are the next gather's
   indices (table T[k] = k, eight lanes on eight L1 lines).
   Four instructions per iteration, each with a fresh all-ones mask, indices
   in a fixed register (eight elements on eight L1 lines), best of 7 runs,
   cycles at the clock of a dependent add chain measured first.
   Build: clang-19 -O2 -mavx512f -mavx512vl gather_contention.c */
#include <stdint.h>
#include "host_clock.h"
#include <stdio.h>
#include <time.h>

static double Buf[8192] __attribute__((aligned(64)));
static double Out[8192] __attribute__((aligned(64)));
static int64_t QIdx[8] __attribute__((aligned(64)));
static int32_t DIdx[8] __attribute__((aligned(64)));
static int64_t Table[1024] __attribute__((aligned(64)));

#define PRE "vmovdqu (%1), %%ymm0\n\tvmovdqu64 (%4), %%zmm1\n\t"
#define DPDZ(d)                                                                            \
  "kxnorw %%k0, %%k0, %%k1\n\tvxorpd %%xmm" #d ", %%xmm" #d ", %%xmm" #d                   \
  "\n\tvgatherdpd (%0,%%ymm0,8), %%zmm" #d "%{%%k1%}\n\t"
#define QPDZ(d)                                                                            \
  "kxnorw %%k0, %%k0, %%k1\n\tvxorpd %%xmm" #d ", %%xmm" #d ", %%xmm" #d                   \
  "\n\tvgatherqpd (%0,%%zmm1,8), %%zmm" #d "%{%%k1%}\n\t"
#define SQPDZ(d) "kxnorw %%k0, %%k0, %%k1\n\tvscatterqpd %%zmm2, (%3,%%zmm1,8)%{%%k1%}\n\t"
/* Eight floats at qword indices (clang's AVX-512 code for TSVC's strided
   float loops). */
#define QPSY(d)                                                                            \
  "kxnorw %%k0, %%k0, %%k1\n\tvxorps %%xmm" #d ", %%xmm" #d ", %%xmm" #d                   \
  "\n\tvgatherqps (%0,%%zmm1,8), %%ymm" #d "%{%%k1%}\n\t"
#define SQPSY(d) "kxnorw %%k0, %%k0, %%k1\n\tvscatterqps %%ymm2, (%3,%%zmm1,8)%{%%k1%}\n\t"
#define NONE(d) ""
/* Fillers per instruction: eliminated register moves (dispatch only), integer
   adds (the four ALUs), vector-to-integer moves (Zen 4's FP45 pipes), ymm
   stores (the FP store-data path), ymm loads (the load pipes). */
#define MV "vmovapd %%xmm8, %%xmm9\n\tvmovapd %%xmm10, %%xmm11\n\tmov %%r8, %%r9\n\tmov %%r10, %%r11\n\t"
#define IA "add %%r8, %%r8\n\tadd %%r9, %%r9\n\tadd %%r10, %%r10\n\tadd %%r11, %%r11\n\t"
#define F2I "vmovq %%xmm8, %%r12\n\tvmovq %%xmm9, %%r13\n\tvmovq %%xmm10, %%r14\n\tvmovq %%xmm11, %%r15\n\t"
#define YS "vmovupd %%ymm8, 4096(%3)\n\tvmovupd %%ymm8, 4160(%3)\n\tvmovupd %%ymm8, 4224(%3)\n\tvmovupd %%ymm8, 4288(%3)\n\t"
#define YL "vmovupd 4096(%3), %%ymm12\n\tvmovupd 4160(%3), %%ymm13\n\tvmovupd 4224(%3), %%ymm14\n\tvmovupd 4288(%3), %%ymm15\n\t"
#define X8(F) F F F F F F F F
#define X2(F) F F
#define CLOB                                                                               \
  : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", \
    "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "r8", "r9", "r10", "r11", "r12", "r13",      \
    "r14", "r15", "k1", "memory"
#define B4(G, F) G(4) F G(5) F G(6) F G(7) F
#define LOOP(Name, Body)                                                                   \
  static void Name(long N) {                                                               \
    asm volatile(PRE ::"r"(Buf), "r"(DIdx), "r"(0L), "r"(Out), "r"(QIdx) CLOB);            \
    for (long I = 0; I < N; I++)                                                           \
      asm volatile(Body ::"r"(Buf), "r"(DIdx), "r"(0L), "r"(Out), "r"(QIdx) CLOB);         \
  }
#define SET(G, P)                                                                          \
  LOOP(P##0, B4(G, "")) LOOP(P##Mv, B4(G, X8(MV))) LOOP(P##Ia, B4(G, X8(IA)))              \
  LOOP(P##F2i, B4(G, X2(F2I))) LOOP(P##Ys, B4(G, YS)) LOOP(P##Yl, B4(G, X8(YL)))
SET(NONE, n) SET(DPDZ, d) SET(QPDZ, q) SET(SQPDZ, s) SET(QPSY, qs) SET(SQPSY, ss)

/* Latency chains: gathered values (bit patterns of small integers) are the
   next gather's indices; vpmovqd narrows them for the dword-index form and
   is timed alone in a chain of its own. */
#define CHAIN(NAME, INIT, IDX, STEP, TABLE)                                                \
  static void NAME(long N) {                                                               \
    asm volatile(INIT ::"r"(IDX) : "xmm1");                                                \
    for (long I = 0; I < N; I++)                                                           \
      asm volatile(STEP ::"r"(TABLE) : "xmm1", "xmm2", "k1", "memory");                    \
  }
CHAIN(chainQ, "vmovdqu64 (%0), %%zmm1", QIdx,
      "kxnorw %%k0, %%k0, %%k1\n\tvgatherqpd (%0,%%zmm1,8), %%zmm2%{%%k1%}\n\t"
      "vmovdqa64 %%zmm2, %%zmm1",
      Table)
CHAIN(chainD, "vmovdqu (%0), %%ymm1", DIdx,
      "kxnorw %%k0, %%k0, %%k1\n\tvgatherdpd (%0,%%ymm1,8), %%zmm2%{%%k1%}\n\t"
      "vpmovqd %%zmm2, %%ymm1",
      Table)
/* The float form: the gathered floats (bit patterns of small integers in
   the table's low dwords) widened back to qword indices by vpmovzxdq, timed
   alone below with its narrowing partner. */
static int32_t Table32[2048] __attribute__((aligned(64)));
CHAIN(chainQs, "vmovdqu64 (%0), %%zmm1", QIdx,
      "kxnorw %%k0, %%k0, %%k1\n\tvgatherqps (%0,%%zmm1,4), %%ymm2%{%%k1%}\n\t"
      "vpmovzxdq %%ymm2, %%zmm1",
      Table32)
static void chainMov(long N) {
  asm volatile("vmovdqu64 (%0), %%zmm2" ::"r"(Table) : "xmm2");
  for (long I = 0; I < N; I++)
    asm volatile("vpmovqd %%zmm2, %%ymm1\n\tvpmovzxdq %%ymm1, %%zmm2" ::: "xmm1", "xmm2");
}

typedef void (*Fn)(long);
static double cycles(Fn F, double Ghz, double PerCall) {
  long N = 500000;
  double Best = 1e9;
  for (int R = 0; R < 7; R++) {
    double T0 = now();
    F(N);
    double T = now() - T0;
    if (T < Best)
      Best = T;
  }
  return Best / (PerCall * N) * 1e9 * Ghz;
}

int main(void) {
  for (int I = 0; I < 8; I++)
    QIdx[I] = DIdx[I] = I * 8;
  for (int I = 0; I < 1024; I++)
    Table[I] = I;
  for (int I = 0; I < 2048; I++)
    Table32[I] = I;
  double Ghz = clockGhz();
  printf("clock %.2f GHz; cycles per instruction (per filler group alone)\n", Ghz);
  const char *Fill[] = {"alone", "32 register moves", "32 integer adds", "8 vmovq xmm->r64",
                        "4 ymm stores", "32 ymm loads"};
  Fn N[] = {n0, nMv, nIa, nF2i, nYs, nYl}, D[] = {d0, dMv, dIa, dF2i, dYs, dYl},
     Q[] = {q0, qMv, qIa, qF2i, qYs, qYl}, S[] = {s0, sMv, sIa, sF2i, sYs, sYl},
     QS[] = {qs0, qsMv, qsIa, qsF2i, qsYs, qsYl}, SS[] = {ss0, ssMv, ssIa, ssF2i, ssYs, ssYl};
  printf("%-20s %8s %11s %11s %12s %11s %12s\n", "beside each", "fillers", "vgatherdpd",
         "vgatherqpd", "vscatterqpd", "vgatherqps", "vscatterqps");
  for (int K = 0; K < 6; K++)
    printf("%-20s %8.2f %11.2f %11.2f %12.2f %11.2f %12.2f\n", Fill[K], cycles(N[K], Ghz, 4),
           cycles(D[K], Ghz, 4), cycles(Q[K], Ghz, 4), cycles(S[K], Ghz, 4),
           cycles(QS[K], Ghz, 4), cycles(SS[K], Ghz, 4));
  double Narrow = cycles(chainMov, Ghz, 2);
  printf("latency, index to result: vgatherqpd zmm %.1f cy (+ an eliminated move), "
         "vgatherdpd zmm %.1f cy (chain %.1f less vpmovqd %.1f)\n",
         cycles(chainQ, Ghz, 1), cycles(chainD, Ghz, 1) - Narrow, cycles(chainD, Ghz, 1), Narrow);
  printf("latency, index to result: vgatherqps ymm %.1f cy (chain %.1f less vpmovzxdq, half "
         "of the narrowing pair: %.1f)\n",
         cycles(chainQs, Ghz, 1) - Narrow / 2, cycles(chainQs, Ghz, 1), Narrow / 2);
  return 0;
}

/* Rows of M dependent scalar FMAs with a memory operand (a dot product's
 * chain, as in PolyBench's cholesky, 2mm, symm without -ffast-math), each row
 * started from a fresh load and stored at its end, so that consecutive rows
 * are independent: how far the core overlaps the next rows with this one.
 * Cycles per row at an add chain's clock, the best of 9 quiet rounds, for
 * M = 8 .. 256. A row alone takes 4 M cycles (the FMA latency); rows that
 * overlap fully take M / 2 (two FMA pipes). The same rows again with a store
 * of the chain's value after each link (code that keeps a sum in memory),
 * with a store of a ready value, and with an independent multiply: a store
 * whose data waits in the FP scheduler beside its FMA halves the links of
 * the next row that overlap (core.queue_also_holds).
 *   clang-19 -O2 bench/incore/fma_rows.c -o fma_rows && ./fma_rows
 * (x86-64 with FMA.) */
#include <stdio.h>

#include "host_clock.h"

static double Data[512] __attribute__((aligned(64)));
static double Out[8];

#define ROWS(NAME, M, EXTRA)                                                                 \
  __attribute__((noinline)) static void NAME(long N) {                                      \
    __asm__ volatile("1:\n\t"                                                                \
                     "vmovsd 4088(%1), %%xmm0\n\t"                                           \
                     ".set k, 0\n\t"                                                         \
                     ".rept " #M "\n\t"                                                      \
                     "vfnmadd231sd k*8(%1), %%xmm1, %%xmm0\n\t" EXTRA                        \
                     ".set k, (k+1) %% 256\n\t"                                              \
                     ".endr\n\t"                                                             \
                     "vmovsd %%xmm0, (%2)\n\t"                                               \
                     "dec %0\n\t"                                                            \
                     "jnz 1b"                                                                \
                     : "+r"(N)                                                               \
                     : "r"(Data), "r"(Out)                                                   \
                     : "xmm0", "xmm3", "memory", "cc");                                      \
  }
/* Beside each link: nothing; a store of the chain's value (its data waits
   for the link, as a sum kept in memory); a store of a ready value; an
   independent multiply. */
#define KINDS(M)                                                                             \
  ROWS(r##M, M, "") ROWS(s##M, M, "vmovsd %%xmm0, (%2)\n\t")                                 \
  ROWS(i##M, M, "vmovsd %%xmm1, 8(%2)\n\t") ROWS(m##M, M, "vmulsd k*8(%1), %%xmm1, %%xmm3\n\t")
KINDS(8) KINDS(16) KINDS(32) KINDS(48) KINDS(64) KINDS(96) KINDS(128) KINDS(192) KINDS(256)

typedef void (*Kernel)(long);

/* Cycles a row, the best of 9 quiet rounds. */
static double cyclesPerRow(Kernel F, int M) {
  long N = 4000000 / M;
  double Best = 1e9;
  for (int R = 0; R < 9; R++) {
    double Spc = secondsPerCycle();
    double T0 = now();
    F(N);
    double Cy = (now() - T0) / Spc / N;
    Best = Cy < Best ? Cy : Best;
  }
  return Best;
}

int main(void) {
#define ROW(M) {M, {r##M, s##M, i##M, m##M}}
  struct {
    int M;
    Kernel F[4];
  } T[] = {ROW(8), ROW(16), ROW(32), ROW(48), ROW(64), ROW(96), ROW(128), ROW(192), ROW(256)};
  for (int I = 0; I < 512; I++)
    Data[I] = 1e-3;
  __asm__ volatile("vxorpd %%xmm1, %%xmm1, %%xmm1" ::: "xmm1");
  printf("cy/row (alone 4 M; full overlap M / 2) and, for M >= 96, the links of the next row\n"
         "that overlap, M - cy/4 (the window in links)\n");
  printf("   M  alone  w      +chain store  w      +ready store  w      +vmulsd  w\n");
  for (unsigned I = 0; I < sizeof T / sizeof T[0]; I++) {
    printf("%4d", T[I].M);
    for (int K = 0; K < 4; K++) {
      double C = cyclesPerRow(T[I].F[K], T[I].M);
      if (T[I].M >= 96)
        printf("  %6.1f %4.0f    ", C, T[I].M - C / 4);
      else
        printf("  %6.1f    -    ", C);
    }
    printf("\n");
  }
  return 0;
}

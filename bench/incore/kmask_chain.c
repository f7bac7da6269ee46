/* Latency of a mask register written from a general one on this host:
   dependent chains in assembly, 16 links a trip, best of 9 runs, cycles at
   the clock of a dependent add chain timed beside them. The first chain is
   the select clang makes of `if (x > max) max = x` with AVX-512 (TSVC
   s318): vucomiss -> setb -> kmovd k1, r32 -> vmovss {k1}; the second a
   round trip kmovd k1, r32 -> kmovd r32, k1; the third the first without
   the mask (vmovd xmm, r32 instead). What the kmovd override in the Zen 5
   files is from. Build: clang-19 -O2 kmask_chain.c (needs AVX-512). */
#include "host_clock.h"
#include <stdio.h>

__attribute__((target("avx512f"))) static void select_chain(long N) {
  asm volatile("vxorps %%xmm0, %%xmm0, %%xmm0\n\tvxorps %%xmm1, %%xmm1, %%xmm1\n"
               "1:\n\t.rept 16\n\tvucomiss %%xmm1, %%xmm0\n\tsetb %%r8b\n\t"
               "kmovd %%r8d, %%k1\n\tvmovss %%xmm1, %%xmm0, %%xmm0%{%%k1%}\n\t.endr\n\t"
               "dec %0\n\tjnz 1b"
               : "+r"(N)::"r8", "k1", "xmm0", "xmm1", "cc");
}

__attribute__((target("avx512f"))) static void mask_round_trip(long N) {
  asm volatile("xor %%r8d, %%r8d\n"
               "1:\n\t.rept 16\n\tkmovd %%r8d, %%k1\n\tkmovd %%k1, %%r8d\n\t.endr\n\t"
               "dec %0\n\tjnz 1b"
               : "+r"(N)::"r8", "k1");
}

__attribute__((target("avx512f"))) static void flags_to_vector(long N) {
  asm volatile("vxorps %%xmm0, %%xmm0, %%xmm0\n\tvxorps %%xmm1, %%xmm1, %%xmm1\n"
               "1:\n\t.rept 16\n\tvucomiss %%xmm1, %%xmm0\n\tsetb %%r8b\n\t"
               "vmovd %%r8d, %%xmm0\n\t.endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N)::"r8", "xmm0", "xmm1", "cc");
}

int main(void) {
  const long N = 2000000;
  double Cycle = 1e-9 / clockGhz(); /* seconds a cycle */
  printf("clock %.2f GHz\n", 1 / Cycle / 1e9);
  printf("vucomiss -> setb -> kmovd k, r32 -> vmovss {k}: %.2f cy a link\n",
         bestOf9(select_chain, N) / (16.0 * N) / Cycle);
  printf("kmovd k, r32 -> kmovd r32, k: %.2f cy\n", bestOf9(mask_round_trip, N) / (16.0 * N) / Cycle);
  printf("vucomiss -> setb -> vmovd xmm, r32: %.2f cy\n",
         bestOf9(flags_to_vector, N) / (16.0 * N) / Cycle);
  return 0;
}

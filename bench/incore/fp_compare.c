/* Throughput of the scalar FP compare that sets flags (vucomisd) on this
   host, alone and beside multiplies: independent instructions in assembly,
   best of 9 runs, cycles at the clock of a dependent add chain timed
   beside them. std::complex products compile to a NaN check per part
   (vucomisd x, x; jp) beside their multiplies; LLVM 19's Zen 4/5 models
   put vucomisd on the multiply pipes FP0 and FP1 as 2 uops, a cycle of
   each. Printed: compares a cycle alone; cycles for 8 vmulsd with and
   without 4 vucomisd beside them (if they shared FP0/FP1 as LLVM says,
   4 -> 8); the same beside adds. Build: clang-19 -O2 fp_compare.c */
#include "host_clock.h"
#include <stdio.h>

static void compares(long N) {
  asm volatile("vxorpd %%xmm0, %%xmm0, %%xmm0\n\tvxorpd %%xmm1, %%xmm1, %%xmm1\n"
               "vxorpd %%xmm2, %%xmm2, %%xmm2\n\tvxorpd %%xmm3, %%xmm3, %%xmm3\n"
               "1:\n\t.rept 4\n\tvucomisd %%xmm0, %%xmm0\n\tvucomisd %%xmm1, %%xmm1\n\t"
               "vucomisd %%xmm2, %%xmm2\n\tvucomisd %%xmm3, %%xmm3\n\t.endr\n\t"
               "dec %0\n\tjnz 1b"
               : "+r"(N)::"xmm0", "xmm1", "xmm2", "xmm3", "cc");
}

/* Eight independent OPs (xmm0..7 = xmm9 OP xmm8), and four compares of
   registers they do not write. */
#define EIGHT(OP)                                                                             \
  OP " %%xmm8, %%xmm9, %%xmm0\n\t" OP " %%xmm8, %%xmm9, %%xmm1\n\t"                         \
  OP " %%xmm8, %%xmm9, %%xmm2\n\t" OP " %%xmm8, %%xmm9, %%xmm3\n\t"                         \
  OP " %%xmm8, %%xmm9, %%xmm4\n\t" OP " %%xmm8, %%xmm9, %%xmm5\n\t"                         \
  OP " %%xmm8, %%xmm9, %%xmm6\n\t" OP " %%xmm8, %%xmm9, %%xmm7\n\t"
#define COMPARES                                                                              \
  "vucomisd %%xmm10, %%xmm10\n\tvucomisd %%xmm11, %%xmm11\n\t"                              \
  "vucomisd %%xmm8, %%xmm8\n\tvucomisd %%xmm9, %%xmm9\n\t"

/* NAME(N): N trips of BODY four times over, from zeroed registers. */
#define KERNEL(NAME, BODY)                                                                    \
  static void NAME(long N) {                                                                  \
    asm volatile("vxorpd %%xmm8, %%xmm8, %%xmm8\n\tvxorpd %%xmm9, %%xmm9, %%xmm9\n"          \
                 "vxorpd %%xmm10, %%xmm10, %%xmm10\n\tvxorpd %%xmm11, %%xmm11, %%xmm11\n"    \
                 "1:\n\t.rept 4\n\t" BODY ".endr\n\tdec %0\n\tjnz 1b"                       \
                 : "+r"(N)::"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",  \
                   "xmm8", "xmm9", "xmm10", "xmm11", "cc");                                     \
  }

KERNEL(muls, EIGHT("vmulsd"))
KERNEL(muls_and_compares, EIGHT("vmulsd") COMPARES)
KERNEL(adds, EIGHT("vaddsd"))
KERNEL(adds_and_compares, EIGHT("vaddsd") COMPARES)

int main(void) {
  const long N = 2000000;
  double Cycle = 1e-9 / clockGhz(); /* seconds a cycle */
  printf("clock %.2f GHz\n", 1 / Cycle / 1e9);
  printf("vucomisd alone: %.2f a cycle\n", 16.0 * N * Cycle / bestOf9(compares, N));
  printf("8 vmulsd: %.2f cy\n", bestOf9(muls, N) / (4.0 * N) / Cycle);
  printf("8 vmulsd + 4 vucomisd: %.2f cy\n", bestOf9(muls_and_compares, N) / (4.0 * N) / Cycle);
  printf("8 vaddsd: %.2f cy\n", bestOf9(adds, N) / (4.0 * N) / Cycle);
  printf("8 vaddsd + 4 vucomisd: %.2f cy\n", bestOf9(adds_and_compares, N) / (4.0 * N) / Cycle);
  return 0;
}

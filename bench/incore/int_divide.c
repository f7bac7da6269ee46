// Integer division on the core: four independent `idiv`/`div` a loop
// (throughput) and a chain through the dividend (latency: and, cdq/cqo,
// idiv), in assembly, cycles against a GPR add chain timed before and after
// each, medians of 11. Small quotients (200 / 64, image-sized data) and
// large ones (1000003 / 7) gave the same on the Zen 5 VM.
//   clang-19 -O2 bench/incore/int_divide.c -o int_divide && ./int_divide
#include <stdio.h>

#include "host_clock.h"

#define N 2000000L
#define LOOP(name, setup, body)                                                                    \
  __attribute__((noinline)) static void name(void) {                                               \
    __asm__ volatile(setup "mov %0,%%rcx\n1:\n" body "dec %%rcx\njnz 1b" ::"r"(N)                 \
                     : "rax", "rcx", "rdx", "r9");                                                 \
  }
LOOP(ref, "xor %%rax,%%rax\n", "add %%rax, %%rax\nadd %%rax, %%rax\nadd %%rax, %%rax\nadd %%rax, %%rax\n")
#define FOUR(x) x x x x
LOOP(idiv32, "mov $64,%%r9d\n", FOUR("mov $200,%%eax\ncdq\nidiv %%r9d\n"))
LOOP(div32, "mov $64,%%r9d\n", FOUR("mov $200,%%eax\nxor %%edx,%%edx\ndiv %%r9d\n"))
LOOP(idiv64, "mov $64,%%r9\n", FOUR("mov $200,%%rax\ncqo\nidiv %%r9\n"))
LOOP(div64, "mov $64,%%r9\n", FOUR("mov $200,%%rax\nxor %%edx,%%edx\ndiv %%r9\n"))
LOOP(idiv32big, "mov $7,%%r9d\n", FOUR("mov $1000003,%%eax\ncdq\nidiv %%r9d\n"))
LOOP(lat32, "mov $64,%%r9d\nmov $200,%%eax\n", FOUR("cdq\nidiv %%r9d\nand $255,%%eax\n"))
LOOP(lat64, "mov $64,%%r9\nmov $200,%%rax\n", FOUR("cqo\nidiv %%r9\nand $255,%%rax\n"))
static double cycles(void (*F)(void)) { // per loop, against 4 dependent adds
  return 4 * medianTimeOver(ref, F);
}
int main(void) {
  printf("idiv r32 throughput %.2f cy, div r32 %.2f, idiv r64 %.2f, div r64 %.2f, "
         "idiv r32 (1000003 / 7) %.2f\n",
         cycles(idiv32) / 4, cycles(div32) / 4, cycles(idiv64) / 4, cycles(div64) / 4,
         cycles(idiv32big) / 4);
  printf("chain cdq + idiv + and: r32 %.2f cy, r64 %.2f cy a link (idiv's latency: less 2)\n",
         cycles(lat32) / 4, cycles(lat64) / 4);
  return 0;
}

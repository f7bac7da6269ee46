// Scalar conversions between integers and floats on the core: eight
// independent conversions a loop (throughput), in assembly, cycles against
// a GPR add chain timed before and after each, medians of 11. The int ->
// float forms merge into a register that nothing writes (no chain through
// the destination's upper lanes); the memory form reads one cached int.
//   clang-19 -O2 bench/incore/fp_convert.c -o fp_convert && ./fp_convert
#include <stdio.h>

#include "host_clock.h"

#define N 2000000L
static int Cell[16];
#define LOOP(name, setup, body)                                                                    \
  __attribute__((noinline)) static void name(void) {                                               \
    __asm__ volatile(setup "mov %0,%%rcx\n1:\n" body "dec %%rcx\njnz 1b" ::"r"(N), "r"(Cell)       \
                     : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2",       \
                       "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "memory");          \
  }
#define FOUR(x) x x x x
#define EIGHT(x) FOUR(x) FOUR(x)
LOOP(ref, "xor %%rax,%%rax\n", FOUR("add %%rax, %%rax\n"))
// vcvtsi2ss xmm, xmm9, r32: four destinations, eight a loop.
LOOP(si2ss, "mov $3,%%eax\nvxorps %%xmm9,%%xmm9,%%xmm9\n",
     "vcvtsi2ss %%eax,%%xmm9,%%xmm0\nvcvtsi2ss %%eax,%%xmm9,%%xmm1\n"
     "vcvtsi2ss %%eax,%%xmm9,%%xmm2\nvcvtsi2ss %%eax,%%xmm9,%%xmm3\n"
     "vcvtsi2ss %%eax,%%xmm9,%%xmm4\nvcvtsi2ss %%eax,%%xmm9,%%xmm5\n"
     "vcvtsi2ss %%eax,%%xmm9,%%xmm6\nvcvtsi2ss %%eax,%%xmm9,%%xmm7\n")
LOOP(si2ssm, "vxorps %%xmm9,%%xmm9,%%xmm9\n",
     "vcvtsi2ssl (%1),%%xmm9,%%xmm0\nvcvtsi2ssl 4(%1),%%xmm9,%%xmm1\n"
     "vcvtsi2ssl 8(%1),%%xmm9,%%xmm2\nvcvtsi2ssl 12(%1),%%xmm9,%%xmm3\n"
     "vcvtsi2ssl (%1),%%xmm9,%%xmm4\nvcvtsi2ssl 4(%1),%%xmm9,%%xmm5\n"
     "vcvtsi2ssl 8(%1),%%xmm9,%%xmm6\nvcvtsi2ssl 12(%1),%%xmm9,%%xmm7\n")
// vcvttss2si r32, xmm: eight a loop into four registers.
LOOP(tss2si, "vxorps %%xmm9,%%xmm9,%%xmm9\n",
     FOUR("vcvttss2si %%xmm9,%%eax\nvcvttss2si %%xmm9,%%edx\n"))
LOOP(tss2si4, "vxorps %%xmm9,%%xmm9,%%xmm9\n",
     FOUR("vcvttss2si %%xmm9,%%eax\nvcvttss2si %%xmm9,%%edx\n")
         FOUR("vcvttss2si %%xmm9,%%r8d\nvcvttss2si %%xmm9,%%r9d\n"))
LOOP(tsd2si, "vxorpd %%xmm9,%%xmm9,%%xmm9\n",
     FOUR("vcvttsd2si %%xmm9,%%eax\nvcvttsd2si %%xmm9,%%edx\n"))
LOOP(tss2si64, "vxorps %%xmm9,%%xmm9,%%xmm9\n",
     FOUR("vcvttss2si %%xmm9,%%rax\nvcvttss2si %%xmm9,%%rdx\n"))
LOOP(ss2si, "vxorps %%xmm9,%%xmm9,%%xmm9\n", FOUR("vcvtss2si %%xmm9,%%eax\nvcvtss2si %%xmm9,%%edx\n"))
LOOP(si2sd, "mov $3,%%eax\nvxorpd %%xmm9,%%xmm9,%%xmm9\n",
     "vcvtsi2sd %%eax,%%xmm9,%%xmm0\nvcvtsi2sd %%eax,%%xmm9,%%xmm1\n"
     "vcvtsi2sd %%eax,%%xmm9,%%xmm2\nvcvtsi2sd %%eax,%%xmm9,%%xmm3\n"
     "vcvtsi2sd %%eax,%%xmm9,%%xmm4\nvcvtsi2sd %%eax,%%xmm9,%%xmm5\n"
     "vcvtsi2sd %%eax,%%xmm9,%%xmm6\nvcvtsi2sd %%eax,%%xmm9,%%xmm7\n")
LOOP(si2sdm, "vxorpd %%xmm9,%%xmm9,%%xmm9\n",
     "vcvtsi2sdl (%1),%%xmm9,%%xmm0\nvcvtsi2sdl 4(%1),%%xmm9,%%xmm1\n"
     "vcvtsi2sdl 8(%1),%%xmm9,%%xmm2\nvcvtsi2sdl 12(%1),%%xmm9,%%xmm3\n"
     "vcvtsi2sdl (%1),%%xmm9,%%xmm4\nvcvtsi2sdl 4(%1),%%xmm9,%%xmm5\n"
     "vcvtsi2sdl 8(%1),%%xmm9,%%xmm6\nvcvtsi2sdl 12(%1),%%xmm9,%%xmm7\n")
LOOP(si2ss64, "mov $3,%%eax\nvxorps %%xmm9,%%xmm9,%%xmm9\n",
     "vcvtsi2ss %%rax,%%xmm9,%%xmm0\nvcvtsi2ss %%rax,%%xmm9,%%xmm1\n"
     "vcvtsi2ss %%rax,%%xmm9,%%xmm2\nvcvtsi2ss %%rax,%%xmm9,%%xmm3\n"
     "vcvtsi2ss %%rax,%%xmm9,%%xmm4\nvcvtsi2ss %%rax,%%xmm9,%%xmm5\n"
     "vcvtsi2ss %%rax,%%xmm9,%%xmm6\nvcvtsi2ss %%rax,%%xmm9,%%xmm7\n")
// int -> float with the int moved in first (what clang emits without the
// merge form): vmovd then vcvtdq2ps.
LOOP(movdcvt, "mov $3,%%eax\n",
     FOUR("vmovd %%eax,%%xmm0\nvcvtdq2ps %%xmm0,%%xmm0\nvmovd %%eax,%%xmm1\nvcvtdq2ps %%xmm1,%%xmm1\n"))
LOOP(dq2ps, "vxorps %%xmm9,%%xmm9,%%xmm9\n",
     "vcvtdq2ps %%xmm9,%%xmm0\nvcvtdq2ps %%xmm9,%%xmm1\nvcvtdq2ps %%xmm9,%%xmm2\n"
     "vcvtdq2ps %%xmm9,%%xmm3\nvcvtdq2ps %%xmm9,%%xmm4\nvcvtdq2ps %%xmm9,%%xmm5\n"
     "vcvtdq2ps %%xmm9,%%xmm6\nvcvtdq2ps %%xmm9,%%xmm7\n")
// A chain: int -> float -> int -> float ... (eax and xmm0 alternate).
LOOP(chain, "mov $3,%%eax\nvxorps %%xmm9,%%xmm9,%%xmm9\n",
     FOUR("vcvtsi2ss %%eax,%%xmm9,%%xmm0\nvcvttss2si %%xmm0,%%eax\n"))
static double perOp(void (*F)(void), int Ops) { // per conversion, against 4 dependent adds
  return 4 * medianTimeOver(ref, F) / Ops;
}
int main(void) {
  printf("throughput, cy per conversion: vcvtsi2ss r32 %.2f, vcvtsi2ss m32 %.2f, "
         "vcvttss2si r32 %.2f (16 a loop: %.2f), vcvtdq2ps xmm %.2f\n",
         perOp(si2ss, 8), perOp(si2ssm, 8), perOp(tss2si, 8), perOp(tss2si4, 16),
         perOp(dq2ps, 8));
  printf("throughput: vcvttsd2si r32 %.2f, vcvttss2si r64 %.2f, vcvtss2si r32 %.2f, "
         "vcvtsi2sd r32 %.2f, vcvtsi2sd m32 %.2f, vcvtsi2ss r64 %.2f, vmovd + vcvtdq2ps %.2f\n",
         perOp(tsd2si, 8), perOp(tss2si64, 8), perOp(ss2si, 8), perOp(si2sd, 8), perOp(si2sdm, 8),
         perOp(si2ss64, 8), perOp(movdcvt, 8));
  printf("chain vcvtsi2ss + vcvttss2si: %.2f cy a pair\n", perOp(chain, 4));
  return 0;
}

/* Store-to-load forwarding latency on this host: a value kept in memory
   and updated every link (what benchmark::DoNotOptimize(q += z[k] * x[k])
   compiles to: vfmadd213sd xmm1, xmm0, [rsp + 8]; vmovsd [rsp + 8], xmm1),
   dependent chains in assembly, 16 links a trip, best of 9 runs, cycles at
   the clock of a dependent add chain timed beside them. Printed per link:
   an integer through memory (mov load, add 1, mov store), a double
   (vaddsd with a memory operand, vmovsd store), the same with vfmadd, each
   with the stack pointer and with another register as the base, a plain
   load before the add, and a longer chain (adi's: vfmadd, vdivsd) through
   memory and in registers. The forwarding latency is the link less the
   operations' latency; a short chain's link shows the least round trip. Build: clang-19 -O2 store_forward.c */
#include "host_clock.h"
#include <stdio.h>

static double Slot[8];
static double Row[1 << 16];

static void int_rsp(long N) {
  asm volatile("movq $0, -16(%%rsp)\n1:\n\t.rept 16\n\tmov -16(%%rsp), %%rax\n\tadd $1, %%rax\n\t"
               "mov %%rax, -16(%%rsp)\n\t.endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N)::"rax", "cc", "memory");
}
static void int_reg(long N) {
  asm volatile("movq $0, (%1)\n1:\n\t.rept 16\n\tmov (%1), %%rax\n\tadd $1, %%rax\n\t"
               "mov %%rax, (%1)\n\t.endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N) : "r"(Slot) : "rax", "cc", "memory");
}
static void add_rsp(long N) {
  asm volatile("vxorpd %%xmm1, %%xmm1, %%xmm1\n\tvmovsd %%xmm1, -16(%%rsp)\n1:\n\t.rept 16\n\t"
               "vaddsd -16(%%rsp), %%xmm1, %%xmm0\n\tvmovsd %%xmm0, -16(%%rsp)\n\t.endr\n\t"
               "dec %0\n\tjnz 1b"
               : "+r"(N)::"xmm0", "xmm1", "cc", "memory");
}
static void add_reg(long N) {
  asm volatile("vxorpd %%xmm1, %%xmm1, %%xmm1\n\tvmovsd %%xmm1, (%1)\n1:\n\t.rept 16\n\t"
               "vaddsd (%1), %%xmm1, %%xmm0\n\tvmovsd %%xmm0, (%1)\n\t.endr\n\t"
               "dec %0\n\tjnz 1b"
               : "+r"(N) : "r"(Slot) : "xmm0", "xmm1", "cc", "memory");
}
static void movadd_rsp(long N) {
  asm volatile("vxorpd %%xmm1, %%xmm1, %%xmm1\n\tvmovsd %%xmm1, -16(%%rsp)\n1:\n\t.rept 16\n\t"
               "vmovsd -16(%%rsp), %%xmm2\n\tvaddsd %%xmm2, %%xmm1, %%xmm0\n\t"
               "vmovsd %%xmm0, -16(%%rsp)\n\t.endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N)::"xmm0", "xmm1", "xmm2", "cc", "memory");
}
static void movadd_reg(long N) {
  asm volatile("vxorpd %%xmm1, %%xmm1, %%xmm1\n\tvmovsd %%xmm1, (%1)\n1:\n\t.rept 16\n\t"
               "vmovsd (%1), %%xmm2\n\tvaddsd %%xmm2, %%xmm1, %%xmm0\n\t"
               "vmovsd %%xmm0, (%1)\n\t.endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N) : "r"(Slot) : "xmm0", "xmm1", "xmm2", "cc", "memory");
}
static void movadd_walk(long N) {
  /* as adi's p[i][j] = f(p[i][j - 1]): each link stores the next element */
  for (long K = 0; K < N; K += 4096 / 16) {
    long M = 4096 / 16;
    double *P = Row;
    asm volatile("vxorpd %%xmm1, %%xmm1, %%xmm1\n\tvmovsd %%xmm1, (%1)\n1:\n\t.rept 16\n\t"
                 "vmovsd (%1), %%xmm2\n\tvaddsd %%xmm2, %%xmm1, %%xmm0\n\t"
                 "vmovsd %%xmm0, 8(%1)\n\tadd $8, %1\n\t.endr\n\tdec %0\n\tjnz 1b"
                 : "+r"(M), "+r"(P) : : "xmm0", "xmm1", "xmm2", "cc", "memory");
  }
}
static const double One = 1.0;
/* adi's p[i][j] = c / (a * p[i][j - 1] + b) with a = b = c = 1: vmovsd load
   -> vfmadd -> vdivsd -> vmovsd store of the next element, and the same
   chain kept in a register. */
static void div_walk(long N) {
  for (long K = 0; K < N; K += 4096 / 16) {
    long M = 4096 / 16;
    double *P = Row;
    asm volatile("vmovsd %2, %%xmm0\n\tvmovsd %%xmm0, (%1)\n1:\n\t.rept 16\n\t"
                 "vmovsd (%1), %%xmm9\n\tvfmadd132sd %%xmm0, %%xmm0, %%xmm9\n\t"
                 "vdivsd %%xmm9, %%xmm0, %%xmm10\n\tvmovsd %%xmm10, 8(%1)\n\tadd $8, %1\n\t"
                 ".endr\n\tdec %0\n\tjnz 1b"
                 : "+r"(M), "+r"(P) : "m"(One) : "xmm0", "xmm9", "xmm10", "cc", "memory");
  }
}
static void div_reg(long N) {
  asm volatile("vmovsd %1, %%xmm0\n\tvmovapd %%xmm0, %%xmm10\n1:\n\t.rept 16\n\t"
               "vfmadd132sd %%xmm0, %%xmm0, %%xmm10\n\tvdivsd %%xmm10, %%xmm0, %%xmm10\n\t"
               ".endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N) : "m"(One) : "xmm0", "xmm10", "cc");
}
static void fma_rsp(long N) {
  asm volatile("vxorpd %%xmm1, %%xmm1, %%xmm1\n\tvmovsd %%xmm1, -16(%%rsp)\n1:\n\t.rept 16\n\t"
               "vmovapd %%xmm1, %%xmm0\n\tvfmadd213sd -16(%%rsp), %%xmm1, %%xmm0\n\t"
               "vmovsd %%xmm0, -16(%%rsp)\n\t.endr\n\tdec %0\n\tjnz 1b"
               : "+r"(N)::"xmm0", "xmm1", "cc", "memory");
}

int main(void) {
  const long N = 1000000;
  double Cycle = 1e-9 / clockGhz(); /* seconds a cycle */
  printf("clock %.2f GHz\n", 1 / Cycle / 1e9);
  printf("int through [rsp]: %.2f cy a link\n", bestOf9(int_rsp, N) / (16.0 * N) / Cycle);
  printf("int through [reg]: %.2f cy\n", bestOf9(int_reg, N) / (16.0 * N) / Cycle);
  printf("vaddsd through [rsp]: %.2f cy\n", bestOf9(add_rsp, N) / (16.0 * N) / Cycle);
  printf("vaddsd through [reg]: %.2f cy\n", bestOf9(add_reg, N) / (16.0 * N) / Cycle);
  printf("vfmadd213sd through [rsp]: %.2f cy\n", bestOf9(fma_rsp, N) / (16.0 * N) / Cycle);
  printf("vmovsd load, vaddsd, vmovsd store through [rsp]: %.2f cy\n",
         bestOf9(movadd_rsp, N) / (16.0 * N) / Cycle);
  printf("the same through [reg]: %.2f cy\n", bestOf9(movadd_reg, N) / (16.0 * N) / Cycle);
  printf("the same, each link the next element: %.2f cy\n", bestOf9(movadd_walk, N) / (16.0 * N) / Cycle);
  printf("vmovsd load -> vfmadd -> vdivsd -> vmovsd store: %.2f cy; the same in registers %.2f\n",
         bestOf9(div_walk, N) / (16.0 * N) / Cycle, bestOf9(div_reg, N) / (16.0 * N) / Cycle);
  return 0;
}

// Line-split ymm stores on their data path: matmul_ikj's machine body (4 ymm
// loads of b, 4 FMAs with c from memory, 4 ymm stores to c; clang-19 -O3
// -march=znver3) and a plain copy (4 loads, 4 stores) over a row of 96
// doubles in L1, both arrays OFF bytes past a 64-byte boundary: at 16 (the
// allocator's alignment) half of the 32-byte stores and loads cross a line.
// Cycles per trip at an add chain's clock, median and best of 7.
//   cc -O2 -mavx2 -mfma bench/incore/split_stores.c -o split_stores && ./split_stores
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static double ghz(void){ long x=0; double t0=now(); for(long i=0;i<50000000;i++){__asm__ volatile(".rept 8\n add %0, %0\n .endr":"+r"(x));} return 0.4/(now()-t0); }
static void body(double *c, const double *b, long trips, int stores, int fma) {
  for (long r = 0; r < trips; r += 6) {
    long j = 12; // r11 runs 12, 28, ... so [x + 8*r11 - 96] starts at x
    long end = 12 + 16 * 6;
    if (stores && fma)
    __asm__ volatile("vbroadcastsd %4, %%ymm1\n1:\n"
      "vmovupd -96(%1,%0,8), %%ymm2\n vmovupd -64(%1,%0,8), %%ymm3\n vmovupd -32(%1,%0,8), %%ymm4\n vmovupd (%1,%0,8), %%ymm5\n"
      "vfmadd213pd -96(%2,%0,8), %%ymm1, %%ymm2\n vfmadd213pd -64(%2,%0,8), %%ymm1, %%ymm3\n vfmadd213pd -32(%2,%0,8), %%ymm1, %%ymm4\n vfmadd213pd (%2,%0,8), %%ymm1, %%ymm5\n"
      "vmovupd %%ymm2, -96(%2,%0,8)\n vmovupd %%ymm3, -64(%2,%0,8)\n vmovupd %%ymm4, -32(%2,%0,8)\n vmovupd %%ymm5, (%2,%0,8)\n"
      "add $16, %0\n cmp %3, %0\n jne 1b\n"
      : "+r"(j) : "r"(b), "r"(c), "r"(end), "m"(b[0]) : "xmm1","xmm2","xmm3","xmm4","xmm5","memory");
    else if (stores)
    __asm__ volatile("1:\n"
      "vmovupd -96(%1,%0,8), %%ymm2\n vmovupd -64(%1,%0,8), %%ymm3\n vmovupd -32(%1,%0,8), %%ymm4\n vmovupd (%1,%0,8), %%ymm5\n"
      "vmovupd %%ymm2, -96(%2,%0,8)\n vmovupd %%ymm3, -64(%2,%0,8)\n vmovupd %%ymm4, -32(%2,%0,8)\n vmovupd %%ymm5, (%2,%0,8)\n"
      "add $16, %0\n cmp %3, %0\n jne 1b\n"
      : "+r"(j) : "r"(b), "r"(c), "r"(end) : "xmm2","xmm3","xmm4","xmm5","memory");
  }
}
int main(int argc, char **argv) {
  char *buf = aligned_alloc(64, 1 << 16);
  for (int i = 0; i < 1 << 16; ++i) buf[i] = 0;
  double g = ghz();
  for (int mode = 0; mode < 2; ++mode)
  for (int off = 0; off <= 32; off += 16) {
    double *c = (double *)(buf + 4096 + off), *b = (double *)(buf + 16384 + off);
    for (int i = 0; i < 96; ++i) { c[i] = 1; b[i] = 1e-9; }
    long trips = 30000000; double best = 1e9, t[7];
    for (int r = 0; r < 7; ++r) { double t0 = now(); body(c, b, trips, 1, mode == 0); t[r] = now() - t0; }
    for (int a=1;a<7;a++) for(int k=a;k>0&&t[k]<t[k-1];k--){double x=t[k];t[k]=t[k-1];t[k-1]=x;}
    printf("%s off %2d: %.2f cy per trip of 4 ymm (median), min %.2f\n", mode==0?"fma+store":"copy     ", off, t[3]*g*1e9/trips, t[0]*g*1e9/trips);
  }
  printf("%.2f GHz\n", g);
}

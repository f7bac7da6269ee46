// FP result latencies by consumer: dependent chains of two operation kinds
// (add->mul, mul->add, add->max, ...) in assembly, each loop a cycle of
// four operations, timed against a 4-add GPR chain run before and after it
// (cycles = time ratio x 4), the median of 11 rounds. On the Zen 5 VM an FP
// add or subtract reaches another add in 2 cycles and any other consumer
// (multiply, FMA, max, logic, shuffle, divide) in 3: mul,add,add,mul is 11
// (3 + 2 + 3 + 3), not 10 or 12 (machine file: bypass_group,
// latency_cy_outside).
//   clang-19 -O2 -march=native bench/incore/fp_bypass.c -o fp_bypass && ./fp_bypass
#include <stdio.h>

#include "host_clock.h"
#define N 4000000L
#define DEF(fn, body) __attribute__((noinline)) void fn(void){ __asm__ volatile("vxorpd %%xmm0,%%xmm0,%%xmm0\n vxorpd %%xmm1,%%xmm1,%%xmm1\n vxorpd %%xmm3,%%xmm3,%%xmm3\n xor %%rax,%%rax\n mov %0, %%rcx\n 1:\n" body "\n dec %%rcx\n jnz 1b" :: "r"(N): "rax","rcx","xmm0","xmm1","xmm2","xmm3","memory"); }
DEF(ref, "add %%rax, %%rax\n add %%rax, %%rax\n add %%rax, %%rax\n add %%rax, %%rax")
DEF(aa, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(mm, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0")
DEF(ff, "vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0")
DEF(am, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0")
DEF(sm, "vsubsd %%xmm0,%%xmm1,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vsubsd %%xmm0,%%xmm1,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0")
DEF(af, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0")
DEF(fa, "vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(ax, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0")
DEF(xx, "vmaxsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0")
DEF(an, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0")
DEF(nn, "vandpd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0")
DEF(ma, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(azm, "vaddpd %%zmm1,%%zmm0,%%zmm0\n vmulpd %%zmm1,%%zmm0,%%zmm0\n vaddpd %%zmm1,%%zmm0,%%zmm0\n vmulpd %%zmm1,%%zmm0,%%zmm0")
DEF(aaz, "vaddpd %%zmm1,%%zmm0,%%zmm0\n vaddpd %%zmm1,%%zmm0,%%zmm0\n vaddpd %%zmm1,%%zmm0,%%zmm0\n vaddpd %%zmm1,%%zmm0,%%zmm0")
DEF(ast, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vmovsd %%xmm0,-64(%%rsp)\n vmovsd -64(%%rsp),%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(ab, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vblendvpd %%xmm1,%%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vblendvpd %%xmm1,%%xmm1,%%xmm0,%%xmm0")
DEF(ac, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vcvtsd2ss %%xmm0,%%xmm0,%%xmm2\n vcvtss2sd %%xmm2,%%xmm2,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(mf, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0")
DEF(fm, "vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0")
DEF(xa, "vmaxsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(na, "vandpd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(mx, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0")
DEF(xn, "vmaxsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0")
DEF(mn, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0\n vandpd %%xmm1,%%xmm0,%%xmm0")
DEF(dd, "vdivsd %%xmm1,%%xmm0,%%xmm0\n vdivsd %%xmm1,%%xmm0,%%xmm0\n vdivsd %%xmm1,%%xmm0,%%xmm0\n vdivsd %%xmm1,%%xmm0,%%xmm0")
DEF(ad, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vdivsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vdivsd %%xmm1,%%xmm0,%%xmm0")
DEF(apm, "vaddps %%ymm1,%%ymm0,%%ymm0\n vmulps %%ymm1,%%ymm0,%%ymm0\n vaddps %%ymm1,%%ymm0,%%ymm0\n vmulps %%ymm1,%%ymm0,%%ymm0")
DEF(ash, "vaddpd %%ymm1,%%ymm0,%%ymm0\n vpermilpd $5,%%ymm0,%%ymm0\n vaddpd %%ymm1,%%ymm0,%%ymm0\n vpermilpd $5,%%ymm0,%%ymm0")
DEF(shsh, "vpermilpd $5,%%ymm0,%%ymm0\n vpermilpd $5,%%ymm0,%%ymm0\n vpermilpd $5,%%ymm0,%%ymm0\n vpermilpd $5,%%ymm0,%%ymm0")
DEF(maam, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vmulsd %%xmm1,%%xmm0,%%xmm0")
DEF(mxxa, "vmulsd %%xmm1,%%xmm0,%%xmm0\n vmaxsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
DEF(aaaf, "vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vfmadd231sd %%xmm1,%%xmm1,%%xmm0")
DEF(sa, "vsubsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0\n vsubsd %%xmm1,%%xmm0,%%xmm0\n vaddsd %%xmm1,%%xmm0,%%xmm0")
typedef void (*F)(void);
int main(void) {
  struct {
    const char *Name;
    F Loop;
    double Pairs; // chains of two kinds a loop of four operations
  } T[] = {{"add->add (4 adds)", aa, 2}, {"sub->add", sa, 2}, {"mul->mul", mm, 2},
           {"fma->fma", ff, 2}, {"add->mul", am, 2}, {"sub->mul (tridiag)", sm, 2},
           {"add->fma acc", af, 2}, {"fma->add", fa, 2}, {"add->max", ax, 2},
           {"max->max", xx, 2}, {"add->and", an, 2}, {"and->and", nn, 2}, {"mul->add", ma, 2},
           {"addpd zmm->mulpd", azm, 2}, {"addpd zmm->addpd", aaz, 2},
           {"add->store->load->add (x2 adds)", ast, 1}, {"add->blendv", ab, 2},
           {"add->cvt->cvt->add", ac, 1}, {"mul->fma", mf, 2}, {"fma->mul", fm, 2},
           {"max->add", xa, 2}, {"and->add", na, 2}, {"mul->max", mx, 2}, {"max->and", xn, 2},
           {"mul->and", mn, 2}, {"div->div", dd, 2}, {"add->div", ad, 2},
           {"addps ymm->mulps", apm, 2}, {"addpd ymm->permil", ash, 2},
           {"permil->permil", shsh, 2}, {"mul,add,add,mul (loop)", maam, 1},
           {"mul,max,add,add (loop)", mxxa, 1}, {"add,add,add,fma (loop)", aaaf, 1}};
  for (unsigned I = 0; I < sizeof T / sizeof *T; I++) {
    double Cycles = 4 * medianTimeOver(ref, T[I].Loop); // ref: 4 dependent adds a loop
    printf("%-34s %.2f cy per pair (loop of 4 ops: %.2f)\n", T[I].Name, Cycles / T[I].Pairs,
           Cycles);
  }
  return 0;
}

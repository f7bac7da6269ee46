/* A dependent add, add-with-folded-load, multiply chain (gauss_seidel's
   left neighbour) against the same chain with the load's value in a
   register: the register operand of a load-op instruction waits only for the
   operation's latency, not the load's (tests/incore/load-op-chain.s). Cycles
   per add, add, mul at the clock of a dependent add chain, best of 21.
   Build: clang-19 -O1 bench/incore/load_op_chain.c (x86-64). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double ghz(){ double best=1e9; for(int r=0;r<5;r++){ long x=0,n=2000000; double t=now();
 __asm__ volatile("1: add %0, %0\n add %0, %0\n add %0, %0\n add %0, %0\n sub $1,%1\n jnz 1b" : "+r"(x), "+r"(n)); double d=now()-t; if(d<best)best=d;} return 8e6/best/1e9;}
int main(){ double *b=aligned_alloc(64,4096); for(int i=0;i<512;i++)b[i]=1e-300;
 for(int kind=0;kind<2;kind++){ double best=1e9,g=ghz();
 for(int r=0;r<21;r++){ long n=1000000; double t=now();
  if(kind==0) __asm__ volatile("vxorpd %%xmm1,%%xmm1,%%xmm1\n vxorpd %%xmm2,%%xmm2,%%xmm2\n vxorpd %%xmm0,%%xmm0,%%xmm0\n1:\n vaddsd %%xmm2,%%xmm1,%%xmm1\n vaddsd (%1),%%xmm1,%%xmm1\n vmulsd %%xmm0,%%xmm1,%%xmm1\n vaddsd %%xmm2,%%xmm1,%%xmm1\n vaddsd 8(%1),%%xmm1,%%xmm1\n vmulsd %%xmm0,%%xmm1,%%xmm1\n sub $1,%0\n jnz 1b":"+r"(n):"r"(b):"xmm0","xmm1","xmm2");
  else __asm__ volatile("vxorpd %%xmm1,%%xmm1,%%xmm1\n vxorpd %%xmm2,%%xmm2,%%xmm2\n vxorpd %%xmm0,%%xmm0,%%xmm0\n vmovsd (%1),%%xmm3\n1:\n vaddsd %%xmm2,%%xmm1,%%xmm1\n vaddsd %%xmm3,%%xmm1,%%xmm1\n vmulsd %%xmm0,%%xmm1,%%xmm1\n vaddsd %%xmm2,%%xmm1,%%xmm1\n vaddsd %%xmm3,%%xmm1,%%xmm1\n vmulsd %%xmm0,%%xmm1,%%xmm1\n sub $1,%0\n jnz 1b":"+r"(n):"r"(b):"xmm0","xmm1","xmm2","xmm3");
  double d=now()-t; if(d<best)best=d;}
 printf("%s: %.2f cy per add,add,mul (clock %.2f)\n", kind?"register":"load-op", best*g*1e9/2e6, g);} }

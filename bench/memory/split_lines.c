// bench/memory/split_lines.c: a = b + c at a working set given in elements,
// its arrays 64-B aligned (off 0) or shifted (off 8: every zmm access splits
// two lines). clang-19 -O3 -march=native; ./split_lines N OFF -> median cy/it.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
__attribute__((noinline)) void add(long n,double*restrict a,const double*restrict b,const double*restrict c){for(long i=0;i<n;i++)a[i]=b[i]+c[i];}
__attribute__((noinline)) void chain(long k){for(long i=0;i<k;i++)__asm__ volatile("add %%rax, %%rax\n\tadd %%rax, %%rax\n\tadd %%rax, %%rax\n\tadd %%rax, %%rax":::"rax");}
int main(int argc,char**argv){
  long n=atol(argv[1]); int off=atoi(argv[2]);
  char*p=aligned_alloc(4096,3*(n*8+4096)+4096);
  double*a=(double*)(p+off),*b=(double*)(p+n*8+4096+off),*c=(double*)(p+2*(n*8+4096)+off);
  for(long i=0;i<n;i++){a[i]=0;b[i]=i;c[i]=2*i;}
  // clock: 4 dependent adds per iteration = 4 cy
  double t0=now(); chain(100000000); double hz=4e8/(now()-t0);
  double best[31]; int reps=(int)(2e8/n);
  for(int s=0;s<31;s++){double t=now();for(int r=0;r<reps;r++){add(n,a,b,c);__asm__ volatile(""::"r"(a):"memory");}best[s]=(now()-t)*hz/reps/n;}
  for(int i=0;i<31;i++)for(int j=i+1;j<31;j++)if(best[j]<best[i]){double x=best[i];best[i]=best[j];best[j]=x;}
  printf("n=%ld off=%d  %.2f GHz  cy/it median %.3f min %.3f  cy/CL %.2f\n",n,off,hz/1e9,best[15],best[0],8*best[15]);
}

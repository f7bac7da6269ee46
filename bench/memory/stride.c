// A sum at constant strides of 64 B to 4 KiB over a 1 GiB array: ns per
// access. Streamed strides run at bandwidth; beyond the prefetchers' reach
// each access waits latency / misses in flight (caches.L1.prefetch_max_stride).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
__attribute__((noinline)) double sums(const double *x, long n, long s){double a=0,b=0,c=0,d=0; long i=0; for(;i+3<n;i+=4){a+=x[i*s];b+=x[(i+1)*s];c+=x[(i+2)*s];d+=x[(i+3)*s];} return a+b+c+d;}
int main(){ size_t bytes=(size_t)1<<30; double*x=aligned_alloc(4096,bytes); for(size_t i=0;i<bytes/8;i++)x[i]=1;
 long strides[]={8,9,16,32,64,128,256,512};
 for(int k=0;k<8;k++){ long s=strides[k]; long n=bytes/8/s; if(n>4000000)n=4000000; double best=1e9;
  for(int r=0;r<5;r++){double t0=now(); volatile double v=sums(x,n,s); double t=now()-t0; if(t<best)best=t;}
  printf("stride %4ld B: %.2f ns per access\n", s*8, best/n*1e9);} }

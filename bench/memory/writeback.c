// Write-backs: store-only, scale and update loops with the data in L2 and
// L3, cycles per line at the clock given as the argument. A store-only loop
// moves a line in (write-allocate) and a line out; if both cost one line's
// time the link is full duplex (caches.*.bytes_per_cycle_to_next).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
__attribute__((noinline)) void init(double*restrict a,long n,double c){for(long i=0;i<n;i++)a[i]=c;}
__attribute__((noinline)) void scale(double*restrict a,const double*restrict b,long n,double c){for(long i=0;i<n;i++)a[i]=c*b[i];}
__attribute__((noinline)) void update(double*restrict a,long n,double c){for(long i=0;i<n;i++)a[i]*=c;}
int main(int argc,char**argv){ double ghz=atof(argv[1]);
 long sizes[]={512<<10, 8<<20}; const char*nm[]={"L2","L3"};
 for(int s=0;s<2;s++){ long n=sizes[s]/8/2; double*a=aligned_alloc(64,n*8),*b=aligned_alloc(64,n*8); for(long i=0;i<n;i++){a[i]=1;b[i]=2;}
  long reps=(200000000/n); double r[4][7];
  for(int k=0;k<7;k++){ double t0=now(); for(long q=0;q<reps;q++) init(a,n,1.0+q*1e-9); r[0][k]=(now()-t0)/reps/n;
   t0=now(); for(long q=0;q<reps;q++) scale(a,b,n,1.0000001); r[2][k]=(now()-t0)/reps/n;
   t0=now(); for(long q=0;q<reps;q++) update(a,n,1.0000001); r[3][k]=(now()-t0)/reps/n; }
  const char* kn[]={"init (1 line in, 1 out)","","scale (2 in, 1 out)","update (1 in, 1 out)"};
  for(int k=0;k<4;k++){ if(k==1) continue;qsort(r[k],7,8,cmp); printf("%s %-24s %.3f cy/it = %.2f cy/CL\n",nm[s],kn[k],r[k][3]*1e9*ghz,r[k][3]*1e9*ghz*8);}
 }}

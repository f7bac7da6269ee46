// Pointer chases (a random cyclic permutation of 64-byte lines, 4 KiB pages)
// over 16 KiB to 512 MiB: ns per access for 1, 16 and 32 chases at once.
// One chase: the latency of the level the data fits; many: latency / misses
// in flight (the source of memory.latency_ns, caches.L1.misses_in_flight,
// caches.L3.latency_cy in machine-models/dev-vm-zen5.yml).
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
#include <string.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
typedef struct { uint64_t next; char pad[56]; } line_t;
int main(){
  size_t sizes[]={16<<10, 256<<10, 768<<10, 4<<20, 16<<20, 24<<20, 64<<20, 512<<20};
  for(int si=0;si<8;si++){
    size_t lines=sizes[si]/64; line_t*L=aligned_alloc(4096,lines*64); uint32_t*perm=malloc(lines*4);
    for(uint32_t i=0;i<lines;i++)perm[i]=i; srand(2);
    for(uint32_t i=lines-1;i>0;i--){uint32_t j=((uint64_t)rand()*RAND_MAX+rand())%(i+1);uint32_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
    for(uint32_t i=0;i<lines;i++) L[perm[i]].next=perm[(i+1)%lines];
    int ks[]={1,16,32}; 
    for(int ki=0;ki<3;ki++){int k=ks[ki]; double r[5]; uint64_t p[32];
      for(int rep=0;rep<5;rep++){ for(int c=0;c<k;c++)p[c]=perm[(uint64_t)c*lines/k];
        long steps=(sizes[si]>=(64<<20)?2000000:4000000)/k; double t0=now();
        for(long s=0;s<steps;s++) for(int c=0;c<k;c++) p[c]=L[p[c]].next;
        r[rep]=(now()-t0)/(steps*(double)k)*1e9; uint64_t x=0; for(int c=0;c<k;c++)x^=p[c]; if(x==7)puts("");}
      qsort(r,5,8,cmp); printf("%6zu KiB chases %2d: %7.2f ns per access\n",sizes[si]>>10,k,r[2]);}
    free(L);free(perm);
  }
}

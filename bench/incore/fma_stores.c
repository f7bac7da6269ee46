/* What an FP store costs beside FMAs. Each trip runs FP operations on
   twelve independent accumulators (two per accumulator: a chain of two a
   trip, far below the pipes' throughput bound) and, in some loops, stores
   of FP or integer registers to an L1-resident line pair. On a port model
   where FMAs take the two FMA pipes and stores the store-data pipe, 24 FMAs
   take 12 cycles with or without 8 stores; on AMD Zen 3 the stores add about
   a cycle each beside FMAs (not beside multiplies or adds of the same
   pipes, nor integer stores): an FMA and an FP store share a slot.
   Cycles per trip at the clock of a dependent add chain timed beside each
   repetition; lower quartile and median of 101 (a neighbour on the core
   slows some). Build: clang-19 -O1 bench/incore/fma_stores.c (x86-64,
   AVX2 and FMA). */
#include "host_clock.h"
#include <stdio.h>
#include <stdlib.h>

/* Twelve accumulators: ymm1-ymm12, set to In[0] (1.0: x * 1 + 0 stays
   1.0, no denormals); ymm13 (In[0]) and ymm14 (0) loop-invariant. */
#define ACC "1,2,3,4,5,6,7,8,9,10,11,12"
#define FMA ".irp k," ACC "\n vfmadd213pd %%ymm14, %%ymm13, %%ymm\\k\n .endr\n"
#define FMAX ".irp k," ACC "\n vfmadd213pd %%xmm14, %%xmm13, %%xmm\\k\n .endr\n"
#define FMASD ".irp k," ACC "\n vfmadd213sd %%xmm14, %%xmm13, %%xmm\\k\n .endr\n"
#define FMAMEM ".irp k," ACC "\n vfmadd213pd (%2), %%ymm13, %%ymm\\k\n .endr\n"
#define MUL ".irp k," ACC "\n vmulpd %%ymm13, %%ymm\\k, %%ymm\\k\n .endr\n"
#define ADD ".irp k," ACC "\n vaddpd %%ymm13, %%ymm\\k, %%ymm\\k\n .endr\n"
#define ST4 ".irp k,0,1,2,3\n vmovupd %%ymm\\k, 32*\\k(%1)\n .endr\n"
#define ST8 ".irp k,0,1,2,3,4,5,6,7\n vmovupd %%ymm\\k, 32*\\k(%1)\n .endr\n"
#define ST8SD ".irp k,0,1,2,3,4,5,6,7\n vmovsd %%xmm\\k, 8*\\k(%1)\n .endr\n"
#define ST8GPR ".irp k,0,1,2,3,4,5,6,7\n mov %0, 8*\\k(%1)\n .endr\n"
#define LOOP(NAME, BODY)                                                                   \
  static void NAME(long N, double *Out, const double *In) {                                \
    __asm__ volatile("vbroadcastsd (%2), %%ymm13\n vxorpd %%ymm14, %%ymm14, %%ymm14\n"     \
                     ".irp k," ACC "\n vbroadcastsd (%2), %%ymm\\k\n .endr\n"                 \
                     "1:\n" BODY " dec %0\n jnz 1b"                                       \
                     : "+r"(N)                                                              \
                     : "r"(Out), "r"(In)                                                    \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",     \
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "memory"); \
  }
LOOP(fma24, FMA FMA)
LOOP(fma24St4, FMA FMA ST4)
LOOP(fma24St8, FMA FMA ST8)
LOOP(fma24St8Sd, FMASD FMASD ST8SD)
LOOP(fma24XmmSt8, FMAX FMAX ST8)
LOOP(fma24MemSt8, FMAMEM FMAMEM ST8)
LOOP(fma24St8Gpr, FMA FMA ST8GPR)
LOOP(fma12St8, FMA ST8)
LOOP(fma12Add12St8, FMA ADD ST8)
LOOP(mul24St8, MUL MUL ST8)
LOOP(add24St8, ADD ADD ST8)
LOOP(st8, ST8)

typedef void (*Fn)(long, double *, const double *);
static double *Out, *In;

static void run(const char *Name, Fn F, double Bound, double Plain) {
  enum { Reps = 101, Trips = 20000 };
  double S[Reps];
  for (int R = 0; R < Reps; R++) {
    double C0 = secondsPerCycle(), T = now();
    F(Trips, Out, In);
    T = now() - T;
    double C1 = secondsPerCycle();
    S[R] = T / (0.5 * (C0 + C1)) / Trips;
  }
  qsort(S, Reps, sizeof(double), compareDoubles);
  printf("%-16s cy/trip: lower quartile %6.2f median %6.2f   (FMAs sharing a slot with FP "
         "stores: %4.1f; pipes alone: %4.1f)\n",
         Name, S[Reps / 4], S[Reps / 2], Bound, Plain);
}

static const struct {
  const char *Name;
  Fn F;
  double Bound, Plain; /* cycles a trip: FMAs and FP stores in one slot; pipes alone */
} Loops[] = {
    {"24 FMA", fma24, 12, 12},
    {"+ 4 stores", fma24St4, 16, 12},
    {"+ 8 stores", fma24St8, 20, 12},
    {"sd: + 8 vmovsd", fma24St8Sd, 20, 12},
    {"xmm: + 8 stores", fma24XmmSt8, 20, 12},
    {"FMA (mem) + 8", fma24MemSt8, 20, 12},
    {"+ 8 int stores", fma24St8Gpr, 12, 12},
    {"12 FMA + 8", fma12St8, 14, 8},
    {"12 FMA 12 add + 8", fma12Add12St8, 14, 8},
    {"24 mul + 8", mul24St8, 12, 12},
    {"24 add + 8", add24St8, 12, 12},
    {"8 stores", st8, 8, 8},
};

int main(void) {
  Out = aligned_alloc(64, 512);
  In = aligned_alloc(64, 512);
  for (int I = 0; I < 64; I++)
    Out[I] = In[I] = 1.0;
  for (int Round = 0; Round < 2; Round++)
    for (unsigned L = 0; L < sizeof Loops / sizeof Loops[0]; L++)
      run(Loops[L].Name, Loops[L].F, Loops[L].Bound, Loops[L].Plain);
  return 0;
}

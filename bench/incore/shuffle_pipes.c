/* Which pipe a shuffle form runs on, by blocking: 8 independent operations
   of a form alone, and 4 of it beside 4 vperm2f128 (one shuffle pipe on
   AMD's Zen cores, Intel's port 5). If the form shares vperm2f128's pipe
   the mix takes the sum of the two (8 cycles at one each); on another pipe,
   the larger (4). vmulpd is the control (the FMA pipes). Cycles per trip of
   8 at the clock of a dependent add chain timed beside each repetition,
   median and lower quartile of 41 (a neighbour on the core slows some).
   Build: clang-19 -O1 bench/incore/shuffle_pipes.c (x86-64, AVX2). */
#include "host_clock.h"
#include <stdio.h>
#include <stdlib.h>

#define P2F " vperm2f128 $0x31, %%ymm1, %%ymm0, %%ymm\\k\n"
#define LOOP(NAME, FIRST, SECOND)                                                          \
  static void NAME(long N) {                                                               \
    static const double In[2] = {1.5, 2.5};                                                \
    __asm__ volatile("vbroadcastsd (%1), %%ymm0\n vbroadcastsd 8(%1), %%ymm1\n"            \
                     "1:\n .irp k,2,3,4,5\n" FIRST " .endr\n"                              \
                     " .irp k,6,7,8,9\n" SECOND " .endr\n dec %0\n jnz 1b"                 \
                     : "+r"(N)                                                              \
                     : "r"(In)                                                              \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",     \
                       "xmm8", "xmm9", "memory");                                           \
  }
#define EXT " vextractf128 $1, %%ymm0, %%xmm\\k\n"
#define INS " vinsertf128 $1, %%xmm1, %%ymm0, %%ymm\\k\n"
#define PPD " vpermpd $0x60, %%ymm0, %%ymm\\k\n"
#define UNP " vunpcklpd %%ymm1, %%ymm0, %%ymm\\k\n"
#define MUL " vmulpd %%ymm1, %%ymm0, %%ymm\\k\n"
LOOP(p2fAlone, P2F, P2F)
LOOP(extAlone, EXT, EXT)
LOOP(extP2f, EXT, P2F)
LOOP(insAlone, INS, INS)
LOOP(insP2f, INS, P2F)
LOOP(ppdP2f, PPD, P2F)
LOOP(unpP2f, UNP, P2F)
LOOP(mulP2f, MUL, P2F)

int main(void) {
  struct {
    const char *Name;
    void (*F)(long);
  } T[] = {{"8 vperm2f128", p2fAlone},          {"8 vextractf128", extAlone},
           {"4 vextractf128 + 4 vperm2f128", extP2f}, {"8 vinsertf128", insAlone},
           {"4 vinsertf128 + 4 vperm2f128", insP2f},  {"4 vpermpd + 4 vperm2f128", ppdP2f},
           {"4 vunpcklpd + 4 vperm2f128", unpP2f},    {"4 vmulpd + 4 vperm2f128", mulP2f}};
  enum { Reps = 41, Trips = 200000 };
  for (unsigned K = 0; K < sizeof T / sizeof T[0]; ++K) {
    double V[Reps];
    for (int R = 0; R < Reps; ++R) {
      double C0 = secondsPerCycle(), S = now();
      T[K].F(Trips);
      double D = (now() - S) / Trips, C1 = secondsPerCycle();
      V[R] = D / (C0 < C1 ? C0 : C1);
    }
    qsort(V, Reps, sizeof(double), compareDoubles);
    printf("%-32s %.2f cy per trip (lower quartile %.2f)\n", T[K].Name, V[Reps / 2], V[Reps / 4]);
  }
  return 0;
}

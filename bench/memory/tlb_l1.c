// The first-level data TLB in a throughput loop: one load (store) per page,
// P pages 4160 bytes apart (a page and a line: the lines spread over all of
// the L1's 64 sets and stay in L1), visited round-robin, with K more loads
// of the same line beside each access. Below the first level's reach the
// loop runs at its port cost; beyond it (and within the last level, 2048+
// entries) every access finds its page in the second level: the difference
// per access is tlb.l1_load_miss_cy (tlb.l1_store_miss_cy), the knee the
// first level's entries (tlb.l1_entries). K > 0 shows whether the misses add
// to the pipes' other work or hide beside it. Cycles per access at the clock
// of a dependent add chain timed before each table.
//   cc -O2 bench/memory/tlb_l1.c -o tlb_l1 && ./tlb_l1
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}
static double ghz(void) {
  long X = 0;
  double T0 = now();
  for (long I = 0; I < 50000000; ++I)
    __asm__ volatile(".rept 8\n add $1, %0\n .endr" : "+r"(X));
  return 0.4 / (now() - T0);
}
#define STEP "4160"
#define LOAD(O) "mov " O "(%0), %%rax\n"
#define STORE(O) "mov %%rax, " O "(%0)\n"
#define EXTRA1(O) "mov 8+" O "(%0), %%rbx\n"
#define EXTRA2(O) EXTRA1(O) "mov 16+" O "(%0), %%rdx\n"
#define EXTRA4(O) EXTRA2(O) "mov 24+" O "(%0), %%rbx\n mov 32+" O "(%0), %%rdx\n"
#define EMPTY(O)
// Four accesses (and their extra loads) per trip, one pointer.
#define LOOP(NAME, ACCESS, EXTRA)                                                                \
  static void NAME(char *B, long Trips) {                                                        \
    __asm__ volatile("1:\n" ACCESS("0") EXTRA("0") ACCESS("4160") EXTRA("4160") ACCESS("8320")   \
                         EXTRA("8320") ACCESS("12480") EXTRA("12480")                            \
                     "add $16640, %0\n dec %1\n jnz 1b\n"                                        \
                     : "+r"(B), "+r"(Trips)::"rax", "rbx", "rdx", "memory");                    \
  }
LOOP(load0, LOAD, EMPTY)
LOOP(load1, LOAD, EXTRA1)
LOOP(load2, LOAD, EXTRA2)
LOOP(load4, LOAD, EXTRA4)
LOOP(store0, STORE, EMPTY)
LOOP(store1, STORE, EXTRA1)
LOOP(store2, STORE, EXTRA2)
LOOP(store4, STORE, EXTRA4)

int main(void) {
  char *B = aligned_alloc(4096, 520L * 4160 + 4096);
  for (long I = 0; I < 520L * 4160; I += 64)
    B[I] = 1;
  struct {
    const char *Name;
    void (*Run)(char *, long);
  } Loops[] = {{"load  K=0", load0},   {"load  K=1", load1},   {"load  K=2", load2},
               {"load  K=4", load4},   {"store K=0", store0}, {"store K=1", store1},
               {"store K=2", store2}, {"store K=4", store4}};
  static const int Pages[] = {16, 32, 48, 64, 72, 80, 88, 96, 128, 256, 512};
  enum { NP = sizeof Pages / sizeof *Pages };
  printf("cycles per access, median of 9 (GHz from a dependent add chain)\n%-10s", "pages");
  for (int I = 0; I < NP; ++I)
    printf(" %6d", Pages[I]);
  printf("   GHz\n");
  for (unsigned L = 0; L < sizeof Loops / sizeof *Loops; ++L) {
    double G = ghz();
    printf("%-10s", Loops[L].Name);
    for (int I = 0; I < NP; ++I) {
      long Rounds = 100000000L / Pages[I];
      double T[9];
      for (int R = 0; R < 9; ++R) {
        double T0 = now();
        for (long K = 0; K < Rounds; ++K)
          Loops[L].Run(B, Pages[I] / 4);
        T[R] = now() - T0;
      }
      for (int A = 1; A < 9; ++A) // insertion sort: the median
        for (int C = A; C > 0 && T[C] < T[C - 1]; --C) {
          double X = T[C];
          T[C] = T[C - 1];
          T[C - 1] = X;
        }
      printf(" %6.2f", T[4] * G * 1e9 / (Rounds * (double)Pages[I]));
    }
    printf("  %.2f\n", G);
  }
  return 0;
}

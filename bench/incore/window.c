/* How many loads, stores and other instructions the out-of-order window
 * holds until they retire (Henry Wong's structure-size test): two independent
 * pointer chases that miss to memory, separated by N filler instructions.
 * While the fillers between the two misses fit the structure they occupy,
 * the two misses overlap (one memory latency per iteration); beyond, they
 * do not (two). Fillers: independent ALU ops (the reorder buffer or the
 * integer register file), L1-hit loads (the load queue, held to
 * retirement), stores to one line (the store queue).
 * Prints, per filler kind and N, the time per iteration relative to a
 * 16-filler run timed just before (the VM's memory latency drifts), and the
 * last N before the ratio stays above 1.5. The structure holds the fillers
 * between the misses and, for loads, the two miss loads as well: loads
 * N + 2, stores N. Refine with a finer SIZES list around the step.
 * Build: clang-19 -O2 -masm=intel window.c -o window (x86-64 only). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define DEF(KIND, INS, N)                                                          \
  static void KIND##_##N(void **a, void **b, long it, char *buf) {                 \
    __asm__ volatile("L%=:\n mov %0, [%0]\n .rept " #N "\n " INS "\n .endr\n"    \
                     " mov %1, [%1]\n .rept " #N "\n " INS "\n .endr\n"            \
                     " dec %2\n jnz L%=\n"                                          \
                     : "+r"(a), "+r"(b), "+r"(it)                                  \
                     : "b"(buf)                                                    \
                     : "r8", "r9", "memory");                                      \
  }
#define SIZES(X, K, I) X(K, I, 16) X(K, I, 24) X(K, I, 32) X(K, I, 40) X(K, I, 48) X(K, I, 56) X(K, I, 64) X(K, I, 72) X(K, I, 80) X(K, I, 88) X(K, I, 96) X(K, I, 104) X(K, I, 112) X(K, I, 120) X(K, I, 128) X(K, I, 136) X(K, I, 144) X(K, I, 152) X(K, I, 160) X(K, I, 168) X(K, I, 176) X(K, I, 184) X(K, I, 192) X(K, I, 200) X(K, I, 208) X(K, I, 216) X(K, I, 224) X(K, I, 232) X(K, I, 240) X(K, I, 248) X(K, I, 256) X(K, I, 264) X(K, I, 272) X(K, I, 280) X(K, I, 288) X(K, I, 296) X(K, I, 304) X(K, I, 312) X(K, I, 320) X(K, I, 328) X(K, I, 336) X(K, I, 344) X(K, I, 352) X(K, I, 360) X(K, I, 368) X(K, I, 376) X(K, I, 384) X(K, I, 392) X(K, I, 400) X(K, I, 408) X(K, I, 416)
SIZES(DEF, alu, "lea r8, [r9 + 1]")
SIZES(DEF, load, "mov r9, qword ptr [rbx]")
SIZES(DEF, store, "mov qword ptr [rbx + 64], r10")

typedef void (*Fn)(void **, void **, long, char *);
#define REF(K, I, N) K##_##N,
#define NUM(K, I, N) N,
static const Fn Alu[] = {SIZES(REF, alu, 0)};
static const Fn Load[] = {SIZES(REF, load, 0)};
static const Fn Store[] = {SIZES(REF, store, 0)};
static const int Sizes[] = {SIZES(NUM, 0, 0)};
enum { NS = sizeof Sizes / sizeof Sizes[0] };

static void **Arr;
static size_t Len;

static double timeIt(Fn f, char *buf) {
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    long it = 4000;
    double t0 = now();
    f(&Arr[rand() % Len], &Arr[rand() % Len], it, buf);
    double t = (now() - t0) / it;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  Len = (size_t)1 << 25; /* 256 MiB of pointers: every step misses to memory */
  Arr = malloc(Len * sizeof(void *));
  size_t *perm = malloc(Len * sizeof(size_t));
  for (size_t i = 0; i < Len; ++i) perm[i] = i;
  srand(1);
  for (size_t i = Len - 1; i > 0; --i) {
    size_t j = (((size_t)rand() << 31) ^ (size_t)rand()) % (i + 1), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (size_t i = 0; i < Len; ++i) Arr[perm[i]] = &Arr[perm[(i + 1) % Len]];
  free(perm);
  static char buf[4096] __attribute__((aligned(64)));
  const char *names[] = {"alu", "load", "store"};
  const Fn *tabs[] = {Alu, Load, Store};
  for (int k = 0; k < 3; ++k) {
    double ratio[NS];
    printf("%s fillers: N, ns per iteration, ratio to 16 fillers\n", names[k]);
    for (int s = 0; s < NS; ++s) {
      double ref = timeIt(tabs[k][0], buf), t = timeIt(tabs[k][s], buf);
      ratio[s] = t / ref;
      printf("  %3d %7.1f %5.2f\n", Sizes[s], 1e9 * t, ratio[s]);
    }
    int at = -1;
    for (int s = 0; s + 2 < NS && at < 0; ++s)
      if (ratio[s] > 1.5 && ratio[s + 1] > 1.5 && ratio[s + 2] > 1.5) at = s;
    if (at > 0)
      printf("%s: the misses overlap with %d fillers between them, not with %d\n", names[k],
             Sizes[at - 1], Sizes[at]);
    else
      printf("%s: the misses overlap up to %d fillers\n", names[k], Sizes[NS - 1]);
    fflush(stdout);
  }
  return 0;
}

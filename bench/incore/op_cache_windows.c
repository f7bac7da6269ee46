// Cycles per iteration of a small loop by where it sits against 64-byte
// lines: K 8-byte nops (no execution port; dispatch takes 6 a cycle) and a
// 5-byte dec/jnz, the loop's first byte at offset O of a 64-byte line.
// Whether a loop that spans two (three) lines costs two (three) cycles an
// iteration whatever its ops (the op cache delivering from one 64-byte
// window a cycle), and how many ops a cycle come from within one window.
// Samples are kept where an add chain beside them shows the core unshared
// (eight independent adds at 90 % or more of the best rate seen).
//
//   clang-19 -O2 bench/incore/op_cache_windows.c -o op_cache_windows
//   taskset -c 1 ./op_cache_windows
#include <stdio.h>

#include "host_clock.h"

#define LOOP(NAME, PAD, K)                                                                   \
  __attribute__((noinline)) static void NAME(long N) {                                      \
    __asm__ volatile(".p2align 6\n\t"                                                        \
                     "jmp 2f\n\t"                                                            \
                     ".p2align 6\n\t"                                                        \
                     ".fill " #PAD ", 1, 0x90\n"                                             \
                     "2:\n\t"                                                                \
                     ".rept " #K "\n\t"                                                      \
                     "nopl 0x12345678(%%rax,%%rax,1)\n\t"                                           \
                     ".endr\n\t"                                                             \
                     "dec %0\n\t"                                                            \
                     "jnz 2b"                                                                \
                     : "+r"(N)                                                               \
                     :                                                                       \
                     : "cc");                                                                \
  }
// K nops (8 bytes each: a 32-bit displacement): 8 K + 5 bytes, K + 1 ops
// (dec and jnz fuse).
#define FOUR(K)                                                                              \
  LOOP(k##K##o0, 0, K) LOOP(k##K##o16, 16, K) LOOP(k##K##o32, 32, K) LOOP(k##K##o48, 48, K)
FOUR(2) FOUR(4) FOUR(6) FOUR(8) FOUR(10) FOUR(14)

typedef void (*Fn)(long);

int main(void) {
  struct {
    Fn F;
    int K, Pad;
  } T[] = {
#define ROW(K) {k##K##o0, K, 0}, {k##K##o16, K, 16}, {k##K##o32, K, 32}, {k##K##o48, K, 48},
      ROW(2) ROW(4) ROW(6) ROW(8) ROW(10) ROW(14)};
  const long N = 1000000;
  enum { Reps = 31 };
  double Ref = 0;
  for (int R = 0; R < 50; R++) {
    double A = addsPerCycle(secondsPerCycle());
    Ref = A > Ref ? A : Ref;
  }
  printf("reference: %.2f independent adds a cycle\n", Ref);
  printf("nops  bytes  offset  lines  cy/it (best quiet sample of %d)\n", Reps);
  for (unsigned I = 0; I < sizeof T / sizeof T[0]; I++) {
    double Best = 1e9;
    int Quiet = 0;
    for (int R = 0; R < Reps; R++) {
      double Spc = secondsPerCycle();
      double Q0 = addsPerCycle(Spc);
      double T0 = now();
      T[I].F(N);
      double Cy = (now() - T0) / Spc / N;
      double Q1 = addsPerCycle(Spc);
      if (Q0 < 0.9 * Ref || Q1 < 0.9 * Ref)
        continue;
      ++Quiet;
      Best = Cy < Best ? Cy : Best;
    }
    int Bytes = T[I].K * 8 + 5;
    int Lines = (T[I].Pad + Bytes + 63) / 64;
    printf("%4d  %5d  %6d  %5d  %.2f (%d quiet)\n", T[I].K, Bytes, T[I].Pad, Lines, Best, Quiet);
  }
  return 0;
}

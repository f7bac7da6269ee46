// Loops that call a function of the same file the compiler does not inline:
// cycles per iteration for an empty callee, a one-FMA callee, callees with
// more independent work, and two calls an iteration. A call and its return
// cost about the same whatever the callee does beside them, until the
// callee's own work exceeds it (core.call_return_cy; perfmodel splices the
// callee's instructions into the loop it costs).
//   clang-19 -O3 -march=native calls.c -o calls && ./calls
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "host_clock.h"
__attribute__((noinline)) void empty(void) { __asm__ volatile(""); }
__attribute__((noinline)) float fma1(float x) { return x * x + 1.0f; }
__attribute__((noinline)) float six(float x) {
  float a = x * 1.1f, b = x * 1.2f, c = x * 1.3f, d = x * 1.4f, e = x * 1.5f, f = x * 1.6f;
  return a + b + c + d + e + f;
}
__attribute__((noinline)) float many(float x) { // 32 multiplies, 31 adds: ~16 cy of FP pipes
  float s = 0;
#pragma clang loop unroll(full)
  for (int k = 0; k < 32; k++)
    s += x * (1.0f + k * 0.01f);
  return s;
}
__attribute__((noinline)) void l_empty(int n) { for (int i = 0; i < n; i++) empty(); }
__attribute__((noinline)) void l_fma1(float *a, const float *b, int n) { for (int i = 0; i < n; i++) a[i] = fma1(b[i]); }
__attribute__((noinline)) void l_six(float *a, const float *b, int n) { for (int i = 0; i < n; i++) a[i] = six(b[i]); }
__attribute__((noinline)) void l_many(float *a, const float *b, int n) { for (int i = 0; i < n; i++) a[i] = many(b[i]); }
__attribute__((noinline)) void l_two(float *a, const float *b, int n) { for (int i = 0; i < n; i++) a[i] = fma1(b[i]) + fma1(a[i]); }
int main(void) {
  int n = 2000;
  float *a = malloc(n * 4), *b = malloc(n * 4);
  for (int i = 0; i < n; i++) a[i] = b[i] = 1;
  double ghz = clockGhz();
  long reps = 50000;
#define T(name, call)                                                                  \
  {                                                                                    \
    double best = 1e9;                                                                 \
    for (int r = 0; r < 7; r++) {                                                      \
      double t0 = now();                                                               \
      for (long k = 0; k < reps; k++) call;                                            \
      double t = now() - t0;                                                           \
      if (t < best) best = t;                                                          \
    }                                                                                  \
    printf("%-6s %.2f cy/it\n", name, best / ((double)n * reps) * 1e9 * ghz);         \
  }
  T("empty", l_empty(n));
  T("fma1", l_fma1(a, b, n));
  T("six", l_six(a, b, n));
  T("many", l_many(a, b, n));
  T("two", l_two(a, b, n));
  printf("clock %.2f GHz (a dependent add chain)\n", ghz);
}

// Column walks whose lines crowd a few L1 sets (issue 45 #8): 256 rows of R
// floats, each column a walk of 256 lines R * 4 bytes apart, which map to
// 64 / (R / 16) of the L1's 64 sets (R >= 64). Cycles per (i, j) of
//   col:   aa[j][i] = aa[j-1][i] + bb[j][i]   (TSVC's s2111-like sweep)
//   store: aa[j][i] = j
//   load:  s += bb[j][i]
// With the data in L2 every access misses L1; the lines cost far more than
// the L2's bandwidth once they crowd the sets (stores most: they wait for
// their line at commit).
//   clang-19 -O3 -march=native conflicts.c -o conflicts && ./conflicts
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../incore/host_clock.h"
#define ROWS 256
__attribute__((noinline)) void col(float *aa, const float *bb, int R) {
  for (int i = 0; i < R; i++)
    for (int j = 1; j < ROWS; j++)
      aa[j * R + i] = aa[(j - 1) * R + i] + bb[j * R + i];
}
__attribute__((noinline)) void store(float *aa, int R) {
  for (int i = 0; i < R; i++)
    for (int j = 1; j < ROWS; j++)
      aa[j * R + i] = (float)j;
}
__attribute__((noinline)) void load(const float *bb, int R, float *out) {
  for (int i = 0; i < R; i++) {
    float s = 0;
    for (int j = 1; j < ROWS; j++)
      s += bb[j * R + i];
    out[i] = s;
  }
}
int main(void) {
  double ghz = clockGhz();
  for (int R = 64; R <= 1024; R *= 2) {
    float *aa = aligned_alloc(4096, ROWS * R * 4), *bb = aligned_alloc(4096, ROWS * R * 4);
    float *out = malloc(R * 4);
    for (int k = 0; k < ROWS * R; k++) aa[k] = bb[k] = 1;
    long its = (long)R * (ROWS - 1), reps = 20000000 / its + 1;
    double best[3] = {1e9, 1e9, 1e9};
    for (int r = 0; r < 7; r++) {
      for (int k = 0; k < 3; k++) {
        double t = now();
        for (long q = 0; q < reps; q++) {
          if (k == 0) col(aa, bb, R);
          if (k == 1) store(aa, R);
          if (k == 2) load(bb, R, out);
          __asm__ volatile("" ::: "memory");
        }
        t = now() - t;
        if (t < best[k]) best[k] = t;
      }
    }
    double f = 1e9 * ghz / (its * (double)reps);
    printf("R=%4d (%2d sets): col %.2f  store %.2f  load %.2f cy per (i, j)\n", R,
           64 / (R / 16), best[0] * f, best[1] * f, best[2] * f);
    free(aa), free(bb), free(out);
  }
  printf("clock %.2f GHz (a dependent add chain)\n", ghz);
}

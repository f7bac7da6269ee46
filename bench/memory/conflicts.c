// Column walks whose lines crowd a few L1 sets (issue 45 #8): 256 rows of R
// floats, each column a walk of 256 lines R * 4 bytes apart, which map to
// 64 / (R / 16) of the L1's 64 sets (R >= 64). Cycles per (i, j) of
//   col:   aa[j][i] = aa[j-1][i] + bb[j][i]   (TSVC's s2111-like sweep)
//   store: aa[j][i] = j
//   load:  s += bb[j][i]
//   loads: the same with four sums (rows j, j+1, j+2, j+3), so no add chain
//          binds: the refills' own rate (caches.L1.conflict_miss_cy_by_sets)
// and, for comparison, each with rows of R + 16 floats (a line longer: the
// column reaches every set).
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
__attribute__((noinline)) void loads(const float *bb, int R, float *out) {
  for (int i = 0; i < R; i++) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int j = 0; j < ROWS; j += 4) {
      s0 += bb[j * R + i];
      s1 += bb[(j + 1) * R + i];
      s2 += bb[(j + 2) * R + i];
      s3 += bb[(j + 3) * R + i];
    }
    out[i] = s0 + s1 + s2 + s3;
  }
}
int main(void) {
  double ghz = clockGhz();
  for (int P = 0; P < 10; P++) {
    int R = (64 << (P / 2)) + (P % 2) * 16; // 64, 80, 128, 144, ... 1040
    float *aa = aligned_alloc(4096, ROWS * R * 4), *bb = aligned_alloc(4096, ROWS * R * 4);
    float *out = malloc(R * 4);
    for (int k = 0; k < ROWS * R; k++) aa[k] = bb[k] = 1;
    long its = (long)R * (ROWS - 1), reps = 20000000 / its + 1;
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    for (int r = 0; r < 7; r++) {
      for (int k = 0; k < 4; k++) {
        double t = now();
        for (long q = 0; q < reps; q++) {
          if (k == 0) col(aa, bb, R);
          if (k == 1) store(aa, R);
          if (k == 2) load(bb, R, out);
          if (k == 3) loads(bb, R, out);
          __asm__ volatile("" ::: "memory");
        }
        t = now() - t;
        if (t < best[k]) best[k] = t;
      }
    }
    double f = 1e9 * ghz / (its * (double)reps);
    int Lines = R * 4 / 64;
    if (P % 2)
      printf("R=%4d (all sets): ", R);
    else
      printf("R=%4d (%2d sets): ", R, 64 / Lines);
    printf("col %.2f  store %.2f  load %.2f  loads %.2f cy per (i, j)\n", best[0] * f,
           best[1] * f, best[2] * f, best[3] * f * ROWS / (ROWS - 1));
    free(aa), free(bb), free(out);
  }
  printf("clock %.2f GHz (a dependent add chain)\n", ghz);
}

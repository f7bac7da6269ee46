/* Times search.c's loop run to its bound: cycles per iteration at the clock
 * of a dependent add chain, best of 7, for the sizes given. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../incore/host_clock.h"
int search(const float *a, int n, float t);
int main(int argc, char **argv) {
  double ghz = clockGhz();
  for (int k = 1; k < argc; k++) {
    int n = atoi(argv[k]);
    float *a = aligned_alloc(64, (size_t)n * 4 + 64);
    for (int i = 0; i < n; i++) a[i] = 1.0f + (i % 7) * 1e-3f;
    long reps = 200000000 / n + 1;
    double best = 1e9;
    volatile int sink = 0;
    for (int r = 0; r < 7; r++) {
      double t = now();
      for (long q = 0; q < reps; q++) sink += search(a, n, 1e30f);
      t = now() - t;
      if (t < best) best = t;
    }
    printf("search n=%d: %.3f cy/it\n", n, best / ((double)n * reps) * 1e9 * ghz);
    free(a);
  }
  printf("clock %.2f GHz\n", ghz);
}

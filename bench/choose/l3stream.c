/* The L3 capacity one core's read streams find on this host: the sum of a
 * long array repeated, at sizes from 1 to 96 MiB; prints the largest size
 * whose bandwidth is at least halfway between the cache's plateau (best of
 * the sizes up to 8 MiB) and memory's (the 96 MiB set), interpolated, in
 * KiB. On a VM the L3 a core keeps can be far below what CPUID reports
 * (its neighbours share it); choose's bench predicts with this size when
 * run with L3=stream. Progress on stderr. Build: clang-19 -O3 -march=native. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  static const int mib[] = {1, 2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 64, 96};
  enum { N = sizeof mib / sizeof mib[0] };
  size_t max = (size_t)mib[N - 1] << 20;
  long *a = aligned_alloc(4096, max);
  for (size_t i = 0; i < max / sizeof(long); ++i)
    a[i] = (long)i;
  double gbs[N];
  volatile long sink = 0;
  for (int k = 0; k < N; ++k) {
    size_t bytes = (size_t)mib[k] << 20, n = bytes / sizeof(long);
    int reps = (int)((512u << 20) / bytes);
    if (reps < 3)
      reps = 3;
    double best = 1e30;
    for (int r = 0; r < 5; ++r) {
      long s = 0;
      double t0 = now();
      for (int q = 0; q < reps; ++q)
        for (size_t i = 0; i < n; ++i)
          s += a[i];
      double t = (now() - t0) / reps;
      sink += s;
      if (t < best)
        best = t;
    }
    gbs[k] = bytes / best / 1e9;
    fprintf(stderr, "%3d MiB %6.1f GB/s\n", mib[k], gbs[k]);
  }
  double plateau = 0;
  for (int k = 0; k < N && mib[k] <= 8; ++k)
    if (gbs[k] > plateau)
      plateau = gbs[k];
  double mem = gbs[N - 1], half = (plateau + mem) / 2, kept = mib[0];
  for (int k = 1; k < N; ++k) {
    if (gbs[k] >= half) {
      kept = mib[k];
      continue;
    }
    kept = mib[k - 1] + (mib[k] - mib[k - 1]) * (gbs[k - 1] - half) / (gbs[k - 1] - gbs[k]);
    break;
  }
  printf("%.0f\n", kept * 1024);
  return 0;
}

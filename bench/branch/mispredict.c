/* Branch misprediction on this host: its cost, and how long a repeated
 * random pattern the predictor learns. A loop adds the odd bytes of an
 * array of N random bytes (a branch per byte, taken half the time at
 * random), repeated over the same bytes. A short array's pattern is learned
 * (no mispredictions after the first pass); a 16 MiB one is not (one in two
 * mispredicted). Both run the same instructions, so
 *   misprediction = 2 x (time per byte, 16 MiB - time per byte, 8 KiB).
 * The sweep over N gives the fraction mispredicted, (t(N) - t(8K)) /
 * (t(16M) - t(8K)) x 1/2 per branch, and the pattern length learned half
 * (mispredicted fraction of 1/4): core.branch_pattern_capacity is half that
 * length (a pattern of twice the capacity is half learned). Times to cycles
 * with the clock perfmodel measures (probe --quick). Medians of 5.
 * Build: clang-19 -O1 bench/branch/mispredict.c (the asm keeps the branch a
 * branch). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static long sum_odd(const uint8_t *v, long n) {
  long s = 0;
  for (long i = 0; i < n; ++i) {
    if (v[i] & 1) {
      s += v[i];
      __asm__ volatile("" : "+r"(s));
    }
  }
  return s;
}

/* Median time per byte over 5 runs of about 2^25 bytes each. */
static double per_byte_ns(const uint8_t *v, long n) {
  enum { RUNS = 5 };
  long reps = (1L << 25) / n;
  if (reps < 2)
    reps = 2;
  double t[RUNS];
  volatile long sink = sum_odd(v, n); /* the first pass teaches the predictor */
  for (int r = 0; r < RUNS; ++r) {
    double t0 = now();
    for (long k = 0; k < reps; ++k)
      sink += sum_odd(v, n);
    t[r] = (now() - t0) / ((double)reps * n) * 1e9;
  }
  qsort(t, RUNS, sizeof t[0], cmpd);
  return t[RUNS / 2];
}

int main(void) {
  const long big = 1L << 24;
  uint8_t *v = malloc(big);
  srand(1);
  for (long i = 0; i < big; ++i)
    v[i] = (uint8_t)(rand() >> 7);
  double learned = per_byte_ns(v, 8192), random = per_byte_ns(v, big);
  double miss = 2 * (random - learned);
  printf("learned (8 KiB) %.3f ns/byte, unlearned (16 MiB) %.3f ns/byte: "
         "misprediction %.3f ns\n", learned, random, miss);
  printf("pattern length  ns/byte  mispredicted per branch\n");
  double prev_n = 0, prev_f = 0, half = 0;
  for (long n = 8192; n <= (1L << 20); n += n / 2) {
    double t = per_byte_ns(v, n), f = (t - learned) / (random - learned) / 2;
    printf("%14ld  %7.3f  %.3f\n", n, t, f);
    if (!half && f >= 0.25 && prev_n)
      half = prev_n + (n - prev_n) * (0.25 - prev_f) / (f - prev_f);
    prev_n = n;
    prev_f = f;
  }
  printf("half learned at %.0f branches: capacity %.0f\n", half, half / 2);
  return 0;
}

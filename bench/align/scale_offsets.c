/* Times one compiled scale loop on arrays placed 0, 16, 32 and 48 bytes
   past a 4 KiB boundary (L1-resident, medians of 7 runs of ~0.2 s each);
   prints cycles per iteration at the clock given. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void scale(double *restrict a, const double *restrict b, long n);

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: scale_offsets N CLOCK_GHZ\n");
    return 2;
  }
  long n = atol(argv[1]);
  double ghz = atof(argv[2]);
  char *A = aligned_alloc(4096, (n * 8 + 4096 + 4095) / 4096 * 4096);
  char *B = aligned_alloc(4096, (n * 8 + 4096 + 4095) / 4096 * 4096);
  void (*volatile f)(double *, const double *, long) = scale;
  for (int off = 0; off <= 48; off += 16) {
    double *a = (double *)(A + off), *b = (double *)(B + off);
    for (long i = 0; i < n; i++) {
      a[i] = 0;
      b[i] = (double)i;
    }
    long reps = 200000000 / n;
    double t[7];
    for (int r = 0; r < 7; r++) {
      double t0 = now();
      for (long k = 0; k < reps; k++)
        f(a, b, n);
      t[r] = now() - t0;
    }
    qsort(t, 7, sizeof t[0], cmp);
    printf("| %d | %.4f |\n", off, t[3] * ghz * 1e9 / (reps * (double)n));
  }
  return 0;
}

// Times the kernels of tests/nest/latency.c on this host: nanoseconds per
// iteration, median of 5 runs after one warm-up run.
//   time_latency chase N M      N steps through a random cycle of M longs
//   time_latency gather N M     N sums of x[idx[i]], idx uniform in [0, M)
//   time_latency stride72 N     N sums of a[9 i]
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long chase(long n, const long *next);
double gather_sum(long n, const double *x, const int *idx);
double stride72(long n, const double *a);

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return (double)T.tv_sec + 1e-9 * (double)T.tv_nsec;
}
static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}
static unsigned long long Rng = 88172645463325252ULL;
static unsigned long long next64(void) {
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return Rng;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *K = argv[1];
  long N = atol(argv[2]), M = argc > 3 ? atol(argv[3]) : 0;
  volatile double Sink = 0;
  double T[6];
  if (!strcmp(K, "chase")) {
    long *Next = aligned_alloc(64, (M * 8 + 63) / 64 * 64), *Perm = malloc(M * 8);
    for (long I = 0; I < M; ++I)
      Perm[I] = I;
    for (long I = M - 1; I > 0; --I) {
      long J = (long)(next64() % (unsigned long long)(I + 1)), X = Perm[I];
      Perm[I] = Perm[J];
      Perm[J] = X;
    }
    for (long I = 0; I < M; ++I)
      Next[Perm[I]] = Perm[(I + 1) % M];
    for (int R = 0; R < 6; ++R) {
      double T0 = now();
      Sink += (double)chase(N, Next);
      T[R] = now() - T0;
    }
  } else if (!strcmp(K, "gather")) {
    double *X = aligned_alloc(64, (M * 8 + 63) / 64 * 64);
    int *Idx = aligned_alloc(64, (N * 4 + 63) / 64 * 64);
    for (long I = 0; I < M; ++I)
      X[I] = 1.0;
    for (long I = 0; I < N; ++I)
      Idx[I] = (int)(next64() % (unsigned long long)M);
    for (int R = 0; R < 6; ++R) {
      double T0 = now();
      Sink += gather_sum(N, X, Idx);
      T[R] = now() - T0;
    }
  } else if (!strcmp(K, "stride72")) {
    double *A = aligned_alloc(64, (9 * N * 8 + 63) / 64 * 64);
    for (long I = 0; I < 9 * N; ++I)
      A[I] = 1.0;
    for (int R = 0; R < 6; ++R) {
      double T0 = now();
      Sink += stride72(N, A);
      T[R] = now() - T0;
    }
  } else {
    return 2;
  }
  qsort(T + 1, 5, sizeof(double), cmp);
  printf("%.4f %.4f %.4f\n", T[3] / N * 1e9, T[1] / N * 1e9, T[5] / N * 1e9);
  return 0;
}

/* FP loads and stores on this host: loops of 12 independent accesses per
   iteration, in L1, best of 15 runs; cycles per access (per group of two
   loads and a store for the mixes) at the clock given. What the Zen 4 and
   Zen 5 files' FP load and store overrides were measured with. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

#define KERNEL(NAME, TARGET, BODY)                                                          \
  __attribute__((target(TARGET))) static void NAME(char *B, uint64_t N) {                  \
    for (uint64_t I = 0; I < N; I++)                                                        \
      asm volatile(BODY ::"r"(B) : "xmm0", "xmm1", "xmm2", "memory");                      \
  }
#define R12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define LDX(k) "vmovsd " #k "*8(%0), %%xmm1\n\t"
#define STX(k) "vmovsd %%xmm0, " #k "*8+512(%0)\n\t"
#define LDY(k) "vmovupd " #k "*32(%0), %%ymm1\n\t"
#define STY(k) "vmovupd %%ymm0, " #k "*32(%0)\n\t"
#define LDZ(k) "vmovupd " #k "*64(%0), %%zmm1\n\t"
#define STZ(k) "vmovupd %%zmm0, " #k "*64(%0)\n\t"
#define MIXX(k) "vmovsd " #k "*8(%0), %%xmm1\n\tvaddsd " #k "*8+256(%0), %%xmm0, %%xmm2\n\t" \
                "vmovsd %%xmm2, " #k "*8+512(%0)\n\t"
#define MIXY(k) "vmovupd " #k "*32(%0), %%ymm1\n\tvaddpd " #k "*32+1024(%0), %%ymm0, "      \
                "%%ymm2\n\tvmovupd %%ymm2, " #k "*32+2048(%0)\n\t"
#define MIXZ(k) "vmovupd " #k "*64(%0), %%zmm1\n\tvaddpd " #k "*64+1024(%0), %%zmm0, "      \
                "%%zmm2\n\tvmovupd %%zmm2, " #k "*64+2048(%0)\n\t"
KERNEL(ldx, "avx", R12(LDX))
KERNEL(stx, "avx", R12(STX))
KERNEL(ldy, "avx", R12(LDY))
KERNEL(sty, "avx", R12(STY))
KERNEL(ldz, "avx512f", R12(LDZ))
KERNEL(stz, "avx512f", R12(STZ))
KERNEL(mixx, "avx", R12(MIXX))
KERNEL(mixy, "avx", R12(MIXY))
KERNEL(mixz, "avx512f", R12(MIXZ))

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fp_memory CLOCK_GHZ\n");
    return 2;
  }
  double Ghz = atof(argv[1]);
  char *B = aligned_alloc(4096, 8192);
  for (int I = 0; I < 8192; I++)
    B[I] = 0;
  struct {
    const char *Name;
    void (*Run)(char *, uint64_t);
    int Zmm;
  } T[] = {{"xmm load (vmovsd)", ldx, 0},   {"xmm store (vmovsd)", stx, 0},
           {"ymm load", ldy, 0},            {"ymm store", sty, 0},
           {"zmm load", ldz, 1},            {"zmm store", stz, 1},
           {"xmm 2 loads + store", mixx, 0}, {"ymm 2 loads + store", mixy, 0},
           {"zmm 2 loads + store", mixz, 1}};
  int Avx512 = __builtin_cpu_supports("avx512f");
  printf("| access | cy each |\n|---|---:|\n");
  for (unsigned K = 0; K < sizeof T / sizeof T[0]; K++) {
    if (T[K].Zmm && !Avx512)
      continue;
    double Best = 1e9;
    for (int R = 0; R < 15; R++) {
      double T0 = now();
      T[K].Run(B, 1000000);
      double S = now() - T0;
      if (S < Best)
        Best = S;
    }
    printf("| %s | %.3f |\n", T[K].Name, Best * Ghz * 1e9 / (1000000.0 * 12));
  }
  return 0;
}

//===- Kernels.cpp - Micro-kernels of the probe ---------------------------===//
//
// Written with intrinsics and per-function target attributes so that one
// binary runs on any x86-64 and picks the widest ISA the CPU has. Chains are
// independent and numerous enough (12) to cover FMA latency x pipes on
// current cores; the values stay finite and normal.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace perfmodel::probe {

volatile double Sink;

double sumChainKernel(const double *A, size_t N) {
  double S = 0;
  for (size_t I = 0; I < N; ++I)
    S += A[I];
  Sink = S;
  return 8.0 * double(N);
}

uint64_t lineCycle(char *Buf, uint32_t *Order, uint64_t Lines) {
  for (uint64_t I = 0; I < Lines; ++I)
    Order[I] = uint32_t(I);
  uint64_t Rng = 0x9e3779b97f4a7c15ULL;
  for (uint64_t I = Lines - 1; I > 0; --I)
    std::swap(Order[I], Order[nextRandom(Rng) % (I + 1)]);
  for (uint64_t I = 0; I < Lines; ++I)
    *reinterpret_cast<uint64_t *>(Buf + uint64_t(Order[I]) * 64) =
        uint64_t(Order[(I + 1) % Lines]) * 64;
  return Rng;
}

void randomCycle(void **Ring, size_t Len, uint64_t Seed) {
  std::vector<uint32_t> Order(Len);
  std::iota(Order.begin(), Order.end(), 0u);
  std::mt19937_64 Rng(Seed);
  std::shuffle(Order.begin(), Order.end(), Rng);
  for (size_t I = 0; I < Len; ++I)
    Ring[Order[I]] = &Ring[Order[(I + 1) % Len]];
}


#if defined(__x86_64__)

// Register operands, not immediates: Golden Cove and later cores fold a
// chain of add-immediates at rename (about six a cycle), which would read
// as a clock six times too fast.
void addChain(uint64_t N) {
  uint64_t X = 0, One = 1;
  for (uint64_t I = 0; I < N; ++I)
    asm volatile(".rept 64\n\tadd %1, %0\n\t.endr" : "+r"(X) : "r"(One));
  Sink = double(X);
}

void independentAdds(uint64_t N) {
  // Eight chains: the ALUs bind them, not the adds' latency.
  uint64_t A = 0, B = 0, C = 0, D = 0, E = 0, F = 0, G = 0, H = 0, One = 1;
  for (uint64_t I = 0; I < N; ++I)
    asm volatile(".rept 4\n\tadd %8, %0\n\tadd %8, %1\n\tadd %8, %2\n\tadd %8, %3\n\t"
                 "add %8, %4\n\tadd %8, %5\n\tadd %8, %6\n\tadd %8, %7\n\t.endr"
                 : "+r"(A), "+r"(B), "+r"(C), "+r"(D), "+r"(E), "+r"(F), "+r"(G), "+r"(H)
                 : "r"(One));
  Sink = double(A + B + C + D + E + F + G + H);
}

void independentFpAdds(uint64_t N) {
  __m128d A = _mm_setzero_pd(), B = A, C = A, D = A, E = A, F = A, G = A, H = A;
  const __m128d One = _mm_set1_pd(1);
  for (uint64_t I = 0; I < N; ++I)
    asm volatile("addpd %8, %0\n\taddpd %8, %1\n\taddpd %8, %2\n\taddpd %8, %3\n\t"
                 "addpd %8, %4\n\taddpd %8, %5\n\taddpd %8, %6\n\taddpd %8, %7"
                 : "+x"(A), "+x"(B), "+x"(C), "+x"(D), "+x"(E), "+x"(F), "+x"(G), "+x"(H)
                 : "x"(One));
  __m128d S = _mm_add_pd(_mm_add_pd(_mm_add_pd(A, B), _mm_add_pd(C, D)),
                         _mm_add_pd(_mm_add_pd(E, F), _mm_add_pd(G, H)));
  Sink = _mm_cvtsd_f64(S);
}

// One kernel per (ISA, FMA, precision): 12 accumulators, each iteration one
// operation per accumulator. Without FMA, half multiply and half add.
#define PM_PEAK(NAME, TARGET, VEC, SET1, FMA, MUL, ADD, LANES, STORE)                    \
  __attribute__((target(TARGET))) static double NAME(uint64_t N, bool UseFma) {            \
    VEC A0 = SET1(1.0), A1 = SET1(1.1), A2 = SET1(1.2), A3 = SET1(1.3), A4 = SET1(1.4),     \
        A5 = SET1(1.5), A6 = SET1(1.6), A7 = SET1(1.7), A8 = SET1(1.8), A9 = SET1(1.9),     \
        A10 = SET1(2.0), A11 = SET1(2.1);                                                   \
    volatile double XV = 0.9999999, YV = 1e-7;                                              \
    VEC X = SET1(XV), Y = SET1(YV);                                                         \
    if (UseFma) {                                                                           \
      for (uint64_t I = 0; I < N; ++I) {                                                    \
        A0 = FMA(A0, X, Y); A1 = FMA(A1, X, Y); A2 = FMA(A2, X, Y); A3 = FMA(A3, X, Y);     \
        A4 = FMA(A4, X, Y); A5 = FMA(A5, X, Y); A6 = FMA(A6, X, Y); A7 = FMA(A7, X, Y);     \
        A8 = FMA(A8, X, Y); A9 = FMA(A9, X, Y); A10 = FMA(A10, X, Y); A11 = FMA(A11, X, Y); \
        asm volatile("" ::: "memory");                                                      \
      }                                                                                     \
    } else {                                                                                \
      for (uint64_t I = 0; I < N; ++I) {                                                    \
        A0 = MUL(A0, X); A1 = ADD(A1, Y); A2 = MUL(A2, X); A3 = ADD(A3, Y);                 \
        A4 = MUL(A4, X); A5 = ADD(A5, Y); A6 = MUL(A6, X); A7 = ADD(A7, Y);                 \
        A8 = MUL(A8, X); A9 = ADD(A9, Y); A10 = MUL(A10, X); A11 = ADD(A11, Y);             \
        asm volatile("" ::: "memory");                                                      \
      }                                                                                     \
    }                                                                                       \
    VEC S = ADD(ADD(ADD(A0, A1), ADD(A2, A3)), ADD(ADD(A4, A5), ADD(A6, A7)));             \
    S = ADD(S, ADD(ADD(A8, A9), ADD(A10, A11)));                                            \
    STORE;                                                                                  \
    return double(N) * 12 * (LANES) * (UseFma ? 2 : 1);                                     \
  }

PM_PEAK(scalarD, "fma", __m128d, _mm_set1_pd, _mm_fmadd_sd, _mm_mul_sd, _mm_add_sd, 1,
        Sink = _mm_cvtsd_f64(S))
PM_PEAK(scalarS, "fma", __m128, _mm_set1_ps, _mm_fmadd_ss, _mm_mul_ss, _mm_add_ss, 1,
        Sink = _mm_cvtss_f32(S))
PM_PEAK(sseD, "fma", __m128d, _mm_set1_pd, _mm_fmadd_pd, _mm_mul_pd, _mm_add_pd, 2,
        Sink = _mm_cvtsd_f64(S))
PM_PEAK(sseS, "fma", __m128, _mm_set1_ps, _mm_fmadd_ps, _mm_mul_ps, _mm_add_ps, 4,
        Sink = _mm_cvtss_f32(S))
PM_PEAK(avxD, "avx2,fma", __m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_mul_pd,
        _mm256_add_pd, 4, Sink = _mm256_cvtsd_f64(S))
PM_PEAK(avxS, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_mul_ps,
        _mm256_add_ps, 8, Sink = _mm256_cvtss_f32(S))
PM_PEAK(avx512D, "avx512f", __m512d, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_mul_pd,
        _mm512_add_pd, 8, Sink = _mm512_reduce_add_pd(S))
PM_PEAK(avx512S, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_mul_ps,
        _mm512_add_ps, 16, Sink = _mm512_reduce_add_ps(S))

// Scalar and SSE without FMA must not need the FMA extension: plain SSE2.
#define PM_PEAK_NOFMA(NAME, VEC, SET1, MUL, ADD, LANES, STORE)                              \
  static double NAME(uint64_t N) {                                                          \
    VEC A0 = SET1(1.0), A1 = SET1(1.1), A2 = SET1(1.2), A3 = SET1(1.3), A4 = SET1(1.4),     \
        A5 = SET1(1.5), A6 = SET1(1.6), A7 = SET1(1.7), A8 = SET1(1.8), A9 = SET1(1.9),     \
        A10 = SET1(2.0), A11 = SET1(2.1);                                                   \
    volatile double XV = 0.9999999, YV = 1e-7;                                              \
    VEC X = SET1(XV), Y = SET1(YV);                                                         \
    for (uint64_t I = 0; I < N; ++I) {                                                      \
      A0 = MUL(A0, X); A1 = ADD(A1, Y); A2 = MUL(A2, X); A3 = ADD(A3, Y);                   \
      A4 = MUL(A4, X); A5 = ADD(A5, Y); A6 = MUL(A6, X); A7 = ADD(A7, Y);                   \
      A8 = MUL(A8, X); A9 = ADD(A9, Y); A10 = MUL(A10, X); A11 = ADD(A11, Y);               \
      asm volatile("" ::: "memory");                                                        \
    }                                                                                       \
    VEC S = ADD(ADD(ADD(A0, A1), ADD(A2, A3)), ADD(ADD(A4, A5), ADD(A6, A7)));             \
    S = ADD(S, ADD(ADD(A8, A9), ADD(A10, A11)));                                            \
    STORE;                                                                                  \
    return double(N) * 12 * (LANES);                                                        \
  }
PM_PEAK_NOFMA(scalarDNoFma, __m128d, _mm_set1_pd, _mm_mul_sd, _mm_add_sd, 1,
              Sink = _mm_cvtsd_f64(S))
PM_PEAK_NOFMA(scalarSNoFma, __m128, _mm_set1_ps, _mm_mul_ss, _mm_add_ss, 1,
              Sink = _mm_cvtss_f32(S))
PM_PEAK_NOFMA(sseDNoFma, __m128d, _mm_set1_pd, _mm_mul_pd, _mm_add_pd, 2,
              Sink = _mm_cvtsd_f64(S))
PM_PEAK_NOFMA(sseSNoFma, __m128, _mm_set1_ps, _mm_mul_ps, _mm_add_ps, 4,
              Sink = _mm_cvtss_f32(S))

// Eight independent operations per iteration; the empty asm makes the
// inputs unknown and the results used, so each one is executed every time.
#define PM_DIV(NAME, TARGET, VEC, SET1, EXPR, REG)                                           \
  __attribute__((target(TARGET))) static double NAME(uint64_t N) {                          \
    volatile double V = 1.2345;                                                             \
    VEC X0 = SET1(V), X1 = SET1(V + 1), X2 = SET1(V + 2), X3 = SET1(V + 3),                \
        X4 = SET1(V + 4), X5 = SET1(V + 5), X6 = SET1(V + 6), X7 = SET1(V + 7);            \
    VEC D = SET1(V * 0.7);                                                                  \
    for (uint64_t I = 0; I < N; ++I) {                                                      \
      asm volatile("" : "+" REG(X0), "+" REG(X1), "+" REG(X2), "+" REG(X3), "+" REG(X4),    \
                   "+" REG(X5), "+" REG(X6), "+" REG(X7), "+" REG(D));                      \
      VEC R0 = EXPR(X0), R1 = EXPR(X1), R2 = EXPR(X2), R3 = EXPR(X3);                       \
      VEC R4 = EXPR(X4), R5 = EXPR(X5), R6 = EXPR(X6), R7 = EXPR(X7);                       \
      asm volatile("" ::REG(R0), REG(R1), REG(R2), REG(R3), REG(R4), REG(R5), REG(R6),      \
                   REG(R7));                                                                \
    }                                                                                       \
    return double(N) * 8;                                                                   \
  }

#define PM_DIVSD(X) _mm_div_sd(X, D)
#define PM_DIVPD(X) _mm_div_pd(X, D)
#define PM_DIVPD256(X) _mm256_div_pd(X, D)
#define PM_DIVPD512(X) _mm512_div_pd(X, D)
#define PM_SQRTSD(X) _mm_sqrt_sd(X, X)
#define PM_SQRTPD(X) _mm_sqrt_pd(X)
#define PM_SQRTPD256(X) _mm256_sqrt_pd(X)
#define PM_SQRTPD512(X) _mm512_sqrt_pd(X)

// Assembly that writes ymm or zmm registers names them (not their xmm
// halves) among its clobbers: clang then ends the kernel with vzeroupper,
// as compiled code does. Upper halves left dirty slow the SSE code that
// runs after the kernel: glibc's exp took 35 cycles a call instead of 11
// on the Zen 5 VM, and core.call_cy carried it.
//
// 8 independent operations a trip on ymm0 and ymm1 (1.5 and 2.5 in every
// lane: no denormals), into ymm2-ymm9: in asm, as compiled code of 17 live
// vectors spills and a shuffle takes a cycle or less.
#define PM_SHUF(NAME, INSN)                                                                 \
  __attribute__((target("avx2"))) static double NAME(uint64_t N) {                          \
    static const double In[2] = {1.5, 2.5};                                                \
    uint64_t K = N;                                                                         \
    asm volatile("vbroadcastsd (%1), %%ymm0\n\tvbroadcastsd 8(%1), %%ymm1\n"                  \
                 "1:\n\t.irp k,2,3,4,5,6,7,8,9\n\t" INSN "\n\t.endr\n\t"                       \
                 "dec %0\n\tjnz 1b"                                                          \
                 : "+r"(K)                                                                  \
                 : "r"(In)                                                                  \
                 : "ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8",  \
                   "ymm9", "memory");                                                       \
    return double(N) * 8;                                                                   \
  }

// One dependent chain through X, 16 links per iteration, in assembly so the
// compiler can neither reassociate nor reorder it.
__attribute__((target("avx,fma"))) double latencyKernel(Chain K, uint64_t N) {
  __m128d X = _mm_set_sd(1.25), Y = _mm_set_sd(1.0000001), Z = _mm_set_sd(1.7);
  if (K == Chain::Add || K == Chain::Fma)
    Y = _mm_set_sd(1e-12);
  for (uint64_t I = 0; I < N; ++I) {
    switch (K) {
    case Chain::Add:
      asm volatile(".rept 16\n\tvaddsd %1, %0, %0\n\t.endr" : "+x"(X) : "x"(Y));
      break;
    case Chain::Mul:
      asm volatile(".rept 16\n\tvmulsd %1, %0, %0\n\t.endr" : "+x"(X) : "x"(Y));
      break;
    case Chain::Fma:
      asm volatile(".rept 16\n\tvfmadd231sd %1, %2, %0\n\t.endr" : "+x"(X) : "x"(Y), "x"(Z));
      break;
    case Chain::Div:
      asm volatile(".rept 16\n\tvdivsd %1, %0, %0\n\t.endr" : "+x"(X) : "x"(Y));
      break;
    case Chain::SqrtAdd:
      asm volatile(".rept 16\n\tvsqrtsd %0, %0, %0\n\tvaddsd %1, %0, %0\n\t.endr"
                   : "+x"(X)
                   : "x"(Z));
      break;
    }
  }
  Sink = _mm_cvtsd_f64(X);
  return double(N) * 16;
}

double peakKernel(Isa I, bool Fma, bool Single, uint64_t N) {
  switch (I) {
  case Isa::Scalar:
    if (!Fma)
      return Single ? scalarSNoFma(N) : scalarDNoFma(N);
    return Single ? scalarS(N, true) : scalarD(N, true);
  case Isa::Sse:
    if (!Fma)
      return Single ? sseSNoFma(N) : sseDNoFma(N);
    return Single ? sseS(N, true) : sseD(N, true);
  case Isa::Avx2:
    return Single ? avxS(N, Fma) : avxD(N, Fma);
  case Isa::Avx512:
    return Single ? avx512S(N, Fma) : avx512D(N, Fma);
  }
  return 0;
}

// Eight independent sums: enough to keep two to four loads per cycle in
// flight past the add latency.
__attribute__((target("avx2"))) static double loadAvx(const double *A, size_t N) {
  __m256d S[8];
  for (__m256d &X : S)
    X = _mm256_setzero_pd();
  for (size_t I = 0; I < N; I += 32)
    for (unsigned K = 0; K < 8; ++K)
      S[K] = _mm256_add_pd(S[K], _mm256_load_pd(A + I + 4 * K));
  for (unsigned K = 1; K < 8; ++K)
    S[0] = _mm256_add_pd(S[0], S[K]);
  Sink = _mm256_cvtsd_f64(S[0]);
  return 8.0 * N;
}

static double loadSse(const double *A, size_t N) {
  __m128d S[8];
  for (__m128d &X : S)
    X = _mm_setzero_pd();
  for (size_t I = 0; I < N; I += 16)
    for (unsigned K = 0; K < 8; ++K)
      S[K] = _mm_add_pd(S[K], _mm_load_pd(A + I + 2 * K));
  for (unsigned K = 1; K < 8; ++K)
    S[0] = _mm_add_pd(S[0], S[K]);
  Sink = _mm_cvtsd_f64(S[0]);
  return 8.0 * N;
}

__attribute__((target("avx2"))) static double copyAvx(double *D, const double *S, size_t N) {
  for (size_t I = 0; I < N; I += 8) {
    _mm256_store_pd(D + I, _mm256_load_pd(S + I));
    _mm256_store_pd(D + I + 4, _mm256_load_pd(S + I + 4));
  }
  return 24.0 * N;
}

static double copySse(double *D, const double *S, size_t N) {
  for (size_t I = 0; I < N; I += 4) {
    _mm_store_pd(D + I, _mm_load_pd(S + I));
    _mm_store_pd(D + I + 2, _mm_load_pd(S + I + 2));
  }
  return 24.0 * N;
}

__attribute__((target("avx2,fma"))) static double triadAvx(double *A, const double *B,
                                                           const double *C, size_t N) {
  __m256d S = _mm256_set1_pd(Sink + 1.5);
  for (size_t I = 0; I < N; I += 8) {
    _mm256_store_pd(A + I, _mm256_fmadd_pd(S, _mm256_load_pd(C + I), _mm256_load_pd(B + I)));
    _mm256_store_pd(A + I + 4, _mm256_fmadd_pd(S, _mm256_load_pd(C + I + 4),
                                               _mm256_load_pd(B + I + 4)));
  }
  return 32.0 * N;
}

static double triadSse(double *A, const double *B, const double *C, size_t N) {
  __m128d S = _mm_set1_pd(Sink + 1.5);
  for (size_t I = 0; I < N; I += 2)
    _mm_store_pd(A + I, _mm_add_pd(_mm_load_pd(B + I), _mm_mul_pd(S, _mm_load_pd(C + I))));
  return 32.0 * N;
}

// The same kernels on zmm registers: a line per access.
__attribute__((target("avx512f"))) static double loadAvx512(const double *A, size_t N) {
  __m512d S[8];
  for (__m512d &X : S)
    X = _mm512_setzero_pd();
  for (size_t I = 0; I < N; I += 64)
    for (unsigned K = 0; K < 8; ++K)
      S[K] = _mm512_add_pd(S[K], _mm512_load_pd(A + I + 8 * K));
  for (unsigned K = 1; K < 8; ++K)
    S[0] = _mm512_add_pd(S[0], S[K]);
  Sink = _mm512_reduce_add_pd(S[0]);
  return 8.0 * N;
}

__attribute__((target("avx512f"))) static double copyAvx512(double *D, const double *S,
                                                           size_t N) {
  for (size_t I = 0; I < N; I += 16) {
    _mm512_store_pd(D + I, _mm512_load_pd(S + I));
    _mm512_store_pd(D + I + 8, _mm512_load_pd(S + I + 8));
  }
  return 24.0 * N;
}

__attribute__((target("avx512f"))) static double triadAvx512(double *A, const double *B,
                                                            const double *C, size_t N) {
  __m512d S = _mm512_set1_pd(Sink + 1.5);
  for (size_t I = 0; I < N; I += 16) {
    _mm512_store_pd(A + I, _mm512_fmadd_pd(S, _mm512_load_pd(C + I), _mm512_load_pd(B + I)));
    _mm512_store_pd(A + I + 8, _mm512_fmadd_pd(S, _mm512_load_pd(C + I + 8),
                                               _mm512_load_pd(B + I + 8)));
  }
  return 32.0 * N;
}

// Copy plus two streams of CACHED (2 x M doubles, M a multiple of 16) read
// round and round: d[i] = s[i] + c[j] + c[M + j]. Returns the copy's bytes
// alone (24N): the cached streams' lines never leave the caches.
static double copyCachedSse(double *D, const double *S, size_t N, const double *C, size_t M) {
  size_t J = 0;
  for (size_t I = 0; I < N; I += 2) {
    _mm_store_pd(D + I, _mm_add_pd(_mm_load_pd(S + I),
                                   _mm_add_pd(_mm_load_pd(C + J), _mm_load_pd(C + M + J))));
    J = J + 2 == M ? 0 : J + 2;
  }
  return 24.0 * N;
}

__attribute__((target("avx2"))) static double copyCachedAvx(double *D, const double *S, size_t N,
                                                            const double *C, size_t M) {
  size_t J = 0;
  for (size_t I = 0; I < N; I += 8) {
    for (unsigned K = 0; K < 8; K += 4)
      _mm256_store_pd(D + I + K,
                      _mm256_add_pd(_mm256_load_pd(S + I + K),
                                    _mm256_add_pd(_mm256_load_pd(C + J + K),
                                                  _mm256_load_pd(C + M + J + K))));
    J = J + 8 == M ? 0 : J + 8;
  }
  return 24.0 * N;
}

__attribute__((target("avx512f"))) static double copyCachedAvx512(double *D, const double *S,
                                                                 size_t N, const double *C,
                                                                 size_t M) {
  size_t J = 0;
  for (size_t I = 0; I < N; I += 8) {
    _mm512_store_pd(D + I, _mm512_add_pd(_mm512_load_pd(S + I),
                                         _mm512_add_pd(_mm512_load_pd(C + J),
                                                       _mm512_load_pd(C + M + J))));
    J = J + 8 == M ? 0 : J + 8;
  }
  return 24.0 * N;
}

/// The load kernels run downwards: the same blocks from the last to the
/// first, each block's vectors from its top.
#define PERFMODEL_LOAD_DOWN(NAME, TARGET, V, LANES, ZERO, LOAD, ADD, FIRST)                       \
  TARGET static double NAME(const double *A, size_t N) {                                         \
    V S[8];                                                                                      \
    for (V & X : S)                                                                              \
      X = ZERO();                                                                                \
    for (size_t I = N; I >= 8 * LANES; I -= 8 * LANES)                                           \
      for (unsigned K = 8; K-- > 0;)                                                             \
        S[K] = ADD(S[K], LOAD(A + I - 8 * LANES + LANES * K));                                   \
    for (unsigned K = 1; K < 8; ++K)                                                             \
      S[0] = ADD(S[0], S[K]);                                                                    \
    Sink = FIRST(S[0]);                                                                          \
    return 8.0 * N;                                                                              \
  }
PERFMODEL_LOAD_DOWN(loadDownAvx512, __attribute__((target("avx512f"))), __m512d, 8,
                    _mm512_setzero_pd, _mm512_load_pd, _mm512_add_pd, _mm512_reduce_add_pd)
PERFMODEL_LOAD_DOWN(loadDownAvx, __attribute__((target("avx2"))), __m256d, 4, _mm256_setzero_pd,
                    _mm256_load_pd, _mm256_add_pd, _mm256_cvtsd_f64)
PERFMODEL_LOAD_DOWN(loadDownSse, , __m128d, 2, _mm_setzero_pd, _mm_load_pd, _mm_add_pd,
                    _mm_cvtsd_f64)
#undef PERFMODEL_LOAD_DOWN

double loadKernel(const double *A, size_t N, unsigned Bits) {
  return Bits >= 512 ? loadAvx512(A, N) : Bits >= 256 ? loadAvx(A, N) : loadSse(A, N);
}
double loadDownKernel(const double *A, size_t N, unsigned Bits) {
  return Bits >= 512 ? loadDownAvx512(A, N) : Bits >= 256 ? loadDownAvx(A, N) : loadDownSse(A, N);
}
double stridedLoadKernel(const double *A, size_t Lines, size_t Stride, size_t Offset) {
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  const double *P = A + Offset;
  size_t J = 0;
  for (; J + 3 < Lines; J += 4) {
    S0 += P[J * Stride];
    S1 += P[(J + 1) * Stride];
    S2 += P[(J + 2) * Stride];
    S3 += P[(J + 3) * Stride];
  }
  Sink = S0 + S1 + S2 + S3;
  return 64.0 * double(J);
}
double copyKernel(double *D, const double *S, size_t N, unsigned Bits) {
  return Bits >= 512 ? copyAvx512(D, S, N) : Bits >= 256 ? copyAvx(D, S, N) : copySse(D, S, N);
}
double copyCachedKernel(double *D, const double *S, size_t N, const double *C, size_t M,
                        unsigned Bits) {
  return Bits >= 512   ? copyCachedAvx512(D, S, N, C, M)
         : Bits >= 256 ? copyCachedAvx(D, S, N, C, M)
                       : copyCachedSse(D, S, N, C, M);
}
double triadKernel(double *A, const double *B, const double *C, size_t N, unsigned Bits) {
  return Bits >= 512   ? triadAvx512(A, B, C, N)
         : Bits >= 256 ? triadAvx(A, B, C, N)
                       : triadSse(A, B, C, N);
}

// The offset is part of the address, so each (kind, offset) is a loop of its
// own; the accesses are independent (loads write a register nothing reads,
// stores store one register). A contiguous stream, as vectorised loops
// make: stores to one line commit together, which a sparse pattern (one
// access per line) would not show.
#define PM_LINE(NAME, OFF, INSN)                                                            \
  __attribute__((target("avx"))) static void NAME(char *B, uint64_t N) {                 \
    for (uint64_t I = 0; I < N; ++I)                                                        \
      asm volatile(".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t" INSN "\n\t.endr"      \
                   :                                                                        \
                   : "r"(B + (OFF))                                                         \
                   : "ymm0", "memory");                                                     \
  }
PM_LINE(loadInLine, 0, "vmovupd \\k*32(%0), %%ymm0")
PM_LINE(loadSplit, 16, "vmovupd \\k*32(%0), %%ymm0")
PM_LINE(storeInLine, 0, "vmovupd %%ymm0, \\k*32(%0)")
PM_LINE(storeSplit, 16, "vmovupd %%ymm0, \\k*32(%0)")

// 24 FMAs on twelve accumulators (ymm1-ymm12, two a trip: a chain of two,
// far below the pipes' bound), with or without 8 stores of ymm registers to
// BUF's first 256 bytes. Accumulators stay 1.5: x * 1 + 0.
#define PM_FMA_ST(NAME, STORES)                                                             \
  __attribute__((target("avx2,fma"))) static void NAME(char *B, uint64_t N) {              \
    static const double In[2] = {1.5, 1.0};                                                \
    uint64_t K = N;                                                                         \
    asm volatile("vbroadcastsd 8(%2), %%ymm13\n\tvxorpd %%ymm14, %%ymm14, %%ymm14\n\t"       \
                 ".irp k,1,2,3,4,5,6,7,8,9,10,11,12\n\tvbroadcastsd (%2), %%ymm\\k\n\t.endr\n" \
                 "1:\n\t.rept 2\n\t.irp k,1,2,3,4,5,6,7,8,9,10,11,12\n\t"                      \
                 "vfmadd213pd %%ymm14, %%ymm13, %%ymm\\k\n\t.endr\n\t.endr\n\t" STORES           \
                 "dec %0\n\tjnz 1b"                                                         \
                 : "+r"(K)                                                                  \
                 : "r"(B), "r"(In)                                                          \
                 : "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9",  \
                   "ymm10", "ymm11", "ymm12", "ymm13", "ymm14", "memory");                  \
  }
PM_FMA_ST(fmaAlone, "")
PM_FMA_ST(fmaStores, ".irp k,1,2,3,4,5,6,7,8\n\tvmovupd %%ymm\\k, 32*\\k(%1)\n\t.endr\n\t")

double fmaStoreKernel(char *Buf, bool Stores, uint64_t N) {
  (Stores ? fmaStores : fmaAlone)(Buf, N);
  return double(N);
}

double lineAccessKernel(char *Buf, bool Store, unsigned Offset, uint64_t N) {
  if (Offset != 0 && Offset != 16)
    return 0;
  (Store ? (Offset ? storeSplit : storeInLine) : (Offset ? loadSplit : loadInLine))(Buf, N);
  return double(N) * 16;
}

// Port throughput: 16 independent accesses of one width per iteration over
// consecutive, naturally aligned addresses in L1 (loads write a register
// nothing reads; stores store one register).
#define PM_PORT(NAME, TARGET, INSN, CLOBBER)                                              \
  __attribute__((target(TARGET))) static void NAME(char *B, uint64_t N) {                \
    for (uint64_t I = 0; I < N; ++I)                                                       \
      asm volatile(".irp k,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n\t" INSN "\n\t.endr"     \
                   :                                                                       \
                   : "r"(B)                                                                \
                   : CLOBBER, "memory");                                                   \
  }
PM_PORT(load8, "sse2", "movq \\k*8(%0), %%rax", "rax")
PM_PORT(load16, "avx", "vmovupd \\k*16(%0), %%xmm0", "xmm0")
PM_PORT(load32, "avx", "vmovupd \\k*32(%0), %%ymm0", "ymm0")
PM_PORT(load64, "avx512f", "vmovupd \\k*64(%0), %%zmm0", "zmm0")
PM_PORT(store8, "sse2", "movq %%rax, \\k*8(%0)", "rax")
PM_PORT(store16, "avx", "vmovupd %%xmm0, \\k*16(%0)", "xmm0")
PM_PORT(store32, "avx", "vmovupd %%ymm0, \\k*32(%0)", "ymm0")
PM_PORT(store64, "avx512f", "vmovupd %%zmm0, \\k*64(%0)", "zmm0")

// Loads of both kinds, a group per iteration: 8 vector parts of 32 bytes
// (8 ymm, or 4 zmm as clang-19 emits for an AVX-512 host) and 8 integer
// loads, independent, in one page of L1 (integer loads after the vector
// ones' 256 bytes; loads of two pages at one page offset would meet in one
// L1 set).
#define PM_MIX(NAME, TARGET, VREG, BODY)                                                     \
  __attribute__((target(TARGET))) static void NAME(char *B, uint64_t N) {                  \
    for (uint64_t I = 0; I < N; ++I)                                                         \
      asm volatile(".irp k,0,1,2,3\n\t" BODY "\n\t.endr"                                     \
                   :                                                                         \
                   : "r"(B)                                                                  \
                   : "rax", "rdx", VREG, "memory");                                          \
  }
PM_MIX(loadMix, "avx", "ymm0",
       "vmovupd \\k*64(%0), %%ymm0\n\tmovq 256+\\k*16(%0), %%rax\n\t"
       "vmovupd 32+\\k*64(%0), %%ymm0\n\tmovq 264+\\k*16(%0), %%rdx")
PM_MIX(loadMixZmm, "avx512f", "zmm0",
       "vmovupd \\k*64(%0), %%zmm0\n\tmovq 256+\\k*16(%0), %%rax\n\t"
       "movq 264+\\k*16(%0), %%rdx")

double mixedLoadKernel(char *Buf, bool Zmm, uint64_t N) {
  (Zmm ? loadMixZmm : loadMix)(Buf, N);
  return double(N);
}

double portKernel(char *Buf, bool Store, unsigned Width, uint64_t N) {
  void (*K)(char *, uint64_t) = nullptr;
  switch (Width) {
  case 8: K = Store ? store8 : load8; break;
  case 16: K = Store ? store16 : load16; break;
  case 32: K = Store ? store32 : load32; break;
  case 64: K = Store ? store64 : load64; break;
  default: return 0;
  }
  K(Buf, N);
  return double(N) * 16;
}

// update: a[i] = s * a[i] with s = 1 (read from Sink, so not folded), which
// leaves the data as it was however many passes time it. A factor below one
// drives an L1-sized array to subnormals within a second of passes, and an
// Intel core takes a microcode assist of about 150 cycles for each such
// product (Ice Lake-SP: 246 cycles a line in L1), which no transfer explains.
static double updateSse(double *A, size_t N) {
  __m128d S = _mm_set1_pd(Sink * 0 + 1.0);
  for (size_t I = 0; I < N; I += 4) {
    _mm_store_pd(A + I, _mm_mul_pd(S, _mm_load_pd(A + I)));
    _mm_store_pd(A + I + 2, _mm_mul_pd(S, _mm_load_pd(A + I + 2)));
  }
  return 16.0 * N;
}

__attribute__((target("avx2"))) static double updateAvx(double *A, size_t N) {
  __m256d S = _mm256_set1_pd(Sink * 0 + 1.0);
  for (size_t I = 0; I < N; I += 8) {
    _mm256_store_pd(A + I, _mm256_mul_pd(S, _mm256_load_pd(A + I)));
    _mm256_store_pd(A + I + 4, _mm256_mul_pd(S, _mm256_load_pd(A + I + 4)));
  }
  return 16.0 * N;
}

__attribute__((target("avx512f"))) static double updateAvx512(double *A, size_t N) {
  __m512d S = _mm512_set1_pd(Sink * 0 + 1.0);
  for (size_t I = 0; I < N; I += 16) {
    _mm512_store_pd(A + I, _mm512_mul_pd(S, _mm512_load_pd(A + I)));
    _mm512_store_pd(A + I + 8, _mm512_mul_pd(S, _mm512_load_pd(A + I + 8)));
  }
  return 16.0 * N;
}

double updateKernel(double *A, size_t N, unsigned Bits) {
  return Bits >= 512 ? updateAvx512(A, N) : Bits >= 256 ? updateAvx(A, N) : updateSse(A, N);
}

double branchKernel(const uint8_t *V, size_t Bytes, uint64_t Passes) {
  long S = 0;
  for (uint64_t P = 0; P < Passes; ++P)
    for (size_t I = 0; I < Bytes; ++I)
      if (V[I] & 1) {
        S += V[I];
        __asm__ volatile("" : "+r"(S));
      }
  Sink = double(S);
  return double(Passes) * double(Bytes);
}

double strideKernel(const double *A, size_t N, size_t S) {
  double S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  uint64_t Loads = 0;
#pragma clang loop vectorize(disable) interleave(disable)
  for (size_t I = 0; I + 3 * S < N; I += 4 * S) {
    S0 += A[I];
    S1 += A[I + S];
    S2 += A[I + 2 * S];
    S3 += A[I + 3 * S];
    Loads += 4;
  }
  Sink = S0 + S1 + S2 + S3;
  return double(Loads);
}

double tlbKernel(double *B, uint64_t Pages, uint64_t Rounds, uint64_t Stride, bool Store) {
  // One access per page, round-robin; each page's line picked by a hash so
  // the lines spread over the L1's sets (page offsets alone would crowd one).
  auto Line = [](uint64_t P) { return (P * 0x9E3779B97F4A7C15ull) >> 58; };
  double S0 = 0, S1 = 0;
  for (uint64_t R = 0; R < Rounds; ++R) {
    uint64_t Off = R & 7;
    if (Store) {
      for (uint64_t P = 0; P < Pages; ++P)
        B[P * Stride + (Line(P) << 3) + Off] = double(R);
      __asm__ volatile("" ::: "memory");
    } else {
      for (uint64_t P = 0; P + 1 < Pages; P += 2) {
        S0 += B[P * Stride + (Line(P) << 3) + Off];
        S1 += B[(P + 1) * Stride + (Line(P + 1) << 3) + Off];
      }
    }
  }
  Sink = S0 + S1;
  return double(Rounds) * double(Pages);
}

double tlbL1Kernel(double *B, uint64_t Pages, uint64_t Rounds, bool Store) {
  // A page and a line apart: every page its own line, the lines over all of
  // the L1's sets; constant offsets from one pointer keep the integer work
  // (which a sibling thread shares) far below the accesses'.
  constexpr size_t Step = 4096 + 64;
  char *Base = reinterpret_cast<char *>(B);
  auto At = [](char *P, size_t K) { return reinterpret_cast<uint64_t *>(P + K * Step); };
  uint64_t S0 = 0, S1 = 0, S2 = 0, S3 = 0;
  Pages &= ~uint64_t(3);
  for (uint64_t R = 0; R < Rounds; ++R) {
    char *P = Base;
    for (uint64_t I = 0; I < Pages; I += 4, P += 4 * Step) {
      if (Store) {
        *At(P, 0) = R;
        *At(P, 1) = R;
        *At(P, 2) = R;
        *At(P, 3) = R;
      } else {
        S0 += *At(P, 0);
        S1 += *At(P, 1);
        S2 += *At(P, 2);
        S3 += *At(P, 3);
        __asm__ volatile("" : "+r"(S0), "+r"(S1), "+r"(S2), "+r"(S3)); // no gathers
      }
    }
    __asm__ volatile("" ::: "memory");
  }
  Sink = double(S0 + S1 + S2 + S3);
  return double(Rounds) * double(Pages);
}

namespace {

/// One iteration: miss A, N fillers, miss B, N fillers (see windowKernel).
#define PM_WINDOW(FILLER, CLOBBER)                                                          \
  asm volatile("1:\n\tmov (%0), %0\n\t.rept %c4\n\t" FILLER "\n\t.endr\n\t"                 \
               "mov (%1), %1\n\t.rept %c4\n\t" FILLER "\n\t.endr\n\tdec %2\n\tjnz 1b"      \
               : "+r"(A), "+r"(B), "+r"(Iters)                                              \
               : "r"(Buf), "i"(N)                                                           \
               : CLOBBER, "memory")
template <unsigned N, bool Store>
void windowAsm(void **A, void **B, uint64_t Iters, char *Buf) {
  if constexpr (Store)
    PM_WINDOW("mov %%r10, 64(%3)", "r10"); // stores to one line
  else
    PM_WINDOW("mov (%3), %%r9", "r9"); // L1-hit loads
}
#undef PM_WINDOW

using WindowFn = void (*)(void **, void **, uint64_t, char *);

template <unsigned... N>
std::vector<WindowFn> windowTable(bool Store, std::integer_sequence<unsigned, N...>) {
  return Store ? std::vector<WindowFn>{&windowAsm<WindowFirst + WindowStride * N, true>...}
               : std::vector<WindowFn>{&windowAsm<WindowFirst + WindowStride * N, false>...};
}

} // namespace

const std::vector<unsigned> &windowFillers() {
  static const std::vector<unsigned> F = [] {
    std::vector<unsigned> V;
    for (unsigned I = 0; I < WindowSizes; ++I)
      V.push_back(WindowFirst + WindowStride * I);
    return V;
  }();
  return F;
}

double windowKernel(bool Store, unsigned Fillers, void **A, void **B, uint64_t Iters, char *Buf) {
  static const std::vector<WindowFn> Loads =
      windowTable(false, std::make_integer_sequence<unsigned, WindowSizes>());
  static const std::vector<WindowFn> Stores =
      windowTable(true, std::make_integer_sequence<unsigned, WindowSizes>());
  unsigned I = (Fillers - WindowFirst) / WindowStride;
  if (Fillers < WindowFirst || (Fillers - WindowFirst) % WindowStride || I >= WindowSizes ||
      !Iters)
    return 0;
  (Store ? Stores : Loads)[I](A, B, Iters, Buf);
  return double(Iters);
}

#else // not x86-64: the probe reports that it cannot measure

void addChain(uint64_t) {}
void independentAdds(uint64_t) {}
void independentFpAdds(uint64_t) {}
double peakKernel(Isa, bool, bool, uint64_t) { return 0; }
#define PM_DIV(NAME, ...)                                                                   \
  static double NAME(uint64_t) { return 0; }
#define PM_SHUF(NAME, ...)                                                                  \
  static double NAME(uint64_t) { return 0; }
double latencyKernel(Chain, uint64_t) { return 0; }
double loadKernel(const double *, size_t, unsigned) { return 0; }
double loadDownKernel(const double *, size_t, unsigned) { return 0; }
double stridedLoadKernel(const double *, size_t, size_t, size_t) { return 0; }
double copyKernel(double *, const double *, size_t, unsigned) { return 0; }
double copyCachedKernel(double *, const double *, size_t, const double *, size_t, unsigned) {
  return 0;
}
double triadKernel(double *, const double *, const double *, size_t, unsigned) { return 0; }
double lineAccessKernel(char *, bool, unsigned, uint64_t) { return 0; }
double fmaStoreKernel(char *, bool, uint64_t) { return 0; }
double portKernel(char *, bool, unsigned, uint64_t) { return 0; }
double mixedLoadKernel(char *, bool, uint64_t) { return 0; }
double updateKernel(double *, size_t, unsigned) { return 0; }
double branchKernel(const uint8_t *, size_t, uint64_t) { return 0; }
double tlbKernel(double *, uint64_t, uint64_t, uint64_t, bool) { return 0; }
double tlbL1Kernel(double *, uint64_t, uint64_t, bool) { return 0; }
double strideKernel(const double *, size_t, size_t) { return 0; }
const std::vector<unsigned> &windowFillers() {
  static const std::vector<unsigned> None;
  return None;
}
double windowKernel(bool, unsigned, void **, void **, uint64_t, char *) { return 0; }

#endif

PM_DIV(divSd, "avx", __m128d, _mm_set1_pd, PM_DIVSD, "x")
PM_DIV(divPd128, "avx", __m128d, _mm_set1_pd, PM_DIVPD, "x")
PM_DIV(divPd256, "avx", __m256d, _mm256_set1_pd, PM_DIVPD256, "x")
PM_DIV(divPd512, "avx512f", __m512d, _mm512_set1_pd, PM_DIVPD512, "v")
PM_DIV(sqrtSd, "avx", __m128d, _mm_set1_pd, PM_SQRTSD, "x")
PM_DIV(sqrtPd128, "avx", __m128d, _mm_set1_pd, PM_SQRTPD, "x")
PM_DIV(sqrtPd256, "avx", __m256d, _mm256_set1_pd, PM_SQRTPD256, "x")
PM_DIV(sqrtPd512, "avx512f", __m512d, _mm512_set1_pd, PM_SQRTPD512, "v")
PM_SHUF(vpermpd, "vpermpd $0x60, %%ymm0, %%ymm\\k")
PM_SHUF(vperm2f128, "vperm2f128 $0x31, %%ymm1, %%ymm0, %%ymm\\k")
PM_SHUF(vunpcklpd, "vunpcklpd %%ymm1, %%ymm0, %%ymm\\k")
PM_SHUF(vshufpd, "vshufpd $5, %%ymm1, %%ymm0, %%ymm\\k")
PM_SHUF(vblendpd, "vblendpd $10, %%ymm1, %%ymm0, %%ymm\\k")
PM_SHUF(vextractf128, "vextractf128 $1, %%ymm0, %%xmm\\k")
PM_SHUF(vinsertf128, "vinsertf128 $1, %%xmm1, %%ymm0, %%ymm\\k")
PM_SHUF(vbroadcastsd, "vbroadcastsd %%xmm0, %%ymm\\k")
PM_SHUF(vpermps, "vpermps %%ymm1, %%ymm0, %%ymm\\k")

const std::vector<ThroughputKernel> &dividerKernels() {
  // Register forms as llvm-mc-19 encodes them (xmm0, xmm1, xmm2 operands).
  static const std::vector<ThroughputKernel> Kernels = {
      {"vdivsd", {0xc5, 0xf3, 0x5e, 0xc2}, divSd},
      {"vdivpd xmm", {0xc5, 0xf1, 0x5e, 0xc2}, divPd128},
      {"vdivpd ymm", {0xc5, 0xf5, 0x5e, 0xc2}, divPd256},
      {"vdivpd zmm", {0x62, 0xf1, 0xf5, 0x48, 0x5e, 0xc2}, divPd512},
      {"vsqrtsd", {0xc5, 0xf3, 0x51, 0xc2}, sqrtSd},
      {"vsqrtpd xmm", {0xc5, 0xf9, 0x51, 0xc1}, sqrtPd128},
      {"vsqrtpd ymm", {0xc5, 0xfd, 0x51, 0xc1}, sqrtPd256},
      {"vsqrtpd zmm", {0x62, 0xf1, 0xfd, 0x48, 0x51, 0xc1}, sqrtPd512}};
  return Kernels;
}

const std::vector<ThroughputKernel> &shuffleKernels() {
  // Register forms as llvm-mc-19 encodes them; the globs name register
  // operands only where a memory form would match the plain prefix (a load
  // or store form runs on other resources).
  static const std::vector<ThroughputKernel> Kernels = {
      {"vpermpd ymm", {0xc4, 0xe3, 0xfd, 0x01, 0xc1, 0x60}, vpermpd},
      {"vperm2f128 ymm", {0xc4, 0xe3, 0x75, 0x06, 0xc2, 0x31}, vperm2f128},
      {"vunpcklpd ymm", {0xc5, 0xf5, 0x14, 0xc2}, vunpcklpd},
      {"vshufpd ymm", {0xc5, 0xf5, 0xc6, 0xc2, 0x05}, vshufpd},
      {"vblendpd ymm", {0xc4, 0xe3, 0x75, 0x0d, 0xc2, 0x0a}, vblendpd},
      {"\"vextractf128 xmm[0-9]\"", {0xc4, 0xe3, 0x7d, 0x19, 0xc8, 0x01}, vextractf128},
      {"\"vinsertf128 ymm*, ymm*, xmm[0-9]\"", {0xc4, 0xe3, 0x75, 0x18, 0xc2, 0x01}, vinsertf128},
      {"\"vbroadcastsd ymm*, xmm[0-9]\"", {0xc4, 0xe2, 0x7d, 0x19, 0xc1}, vbroadcastsd},
      {"vpermps ymm", {0xc4, 0xe2, 0x6d, 0x16, 0xc1}, vpermps}};
  return Kernels;
}

double chaseKernel(const char *Base, const uint64_t *Starts, unsigned Chains, uint64_t Steps) {
  uint64_t P[32];
  Chains = Chains < 1 ? 1 : Chains > 32 ? 32 : Chains;
  for (unsigned C = 0; C < Chains; ++C)
    P[C] = Starts[C];
  for (uint64_t S = 0; S < Steps; ++S)
    for (unsigned C = 0; C < Chains; ++C)
      P[C] = *reinterpret_cast<const uint64_t *>(Base + P[C]);
  uint64_t X = 0;
  for (unsigned C = 0; C < Chains; ++C)
    X ^= P[C];
  Sink = double(X);
  return double(Steps) * Chains;
}

double randomLineLoadsKernel(const char *Base, const uint32_t *Lines, size_t N) {
  uint64_t S0 = 0, S1 = 0, S2 = 0, S3 = 0;
#pragma clang loop vectorize(disable) interleave(disable)
  for (size_t I = 0; I + 3 < N; I += 4) {
    S0 += *reinterpret_cast<const uint64_t *>(Base + uint64_t(Lines[I]) * 64);
    S1 += *reinterpret_cast<const uint64_t *>(Base + uint64_t(Lines[I + 1]) * 64);
    S2 += *reinterpret_cast<const uint64_t *>(Base + uint64_t(Lines[I + 2]) * 64);
    S3 += *reinterpret_cast<const uint64_t *>(Base + uint64_t(Lines[I + 3]) * 64);
  }
  Sink = double(S0 + S1 + S2 + S3);
  return double(N / 4 * 4);
}

} // namespace perfmodel::probe

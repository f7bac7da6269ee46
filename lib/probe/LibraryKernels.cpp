//===- LibraryKernels.cpp - The probe's library-call kernels --------------===//
//
// y[i] = f(x[i]) over 1024 elements in L1 for glibc's libm functions and
// their 256-bit libmvec versions (what clang-19 calls with -fveclib=libmvec):
// the cycles a call takes beside the loop, for core.call_cy.
//
//===----------------------------------------------------------------------===//
#include "Kernels.h"

#include <cmath>
#include <string_view>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace perfmodel::probe {

extern volatile double Sink;

#if defined(__x86_64__)
// glibc's libmvec: the 256-bit (AVX2) versions clang-19 calls with
// -fveclib=libmvec on x86-64 (_ZGV, d = AVX2, N = unmasked, 4/8 lanes).
#define PM_AVX2 __attribute__((target("avx2")))
extern "C" {
PM_AVX2 __m256d _ZGVdN4v_exp(__m256d);
PM_AVX2 __m256d _ZGVdN4v_log(__m256d);
PM_AVX2 __m256d _ZGVdN4v_sin(__m256d);
PM_AVX2 __m256d _ZGVdN4v_cos(__m256d);
PM_AVX2 __m256d _ZGVdN4vv_pow(__m256d, __m256d);
PM_AVX2 __m256 _ZGVdN8v_expf(__m256);
PM_AVX2 __m256 _ZGVdN8v_logf(__m256);
}

namespace {
constexpr size_t CallElems = 1024;

double scalarCalls(double (*F)(double), uint64_t Calls) {
  alignas(64) static double X[CallElems], Y[CallElems];
  for (size_t I = 0; I < CallElems; ++I)
    X[I] = 0.5 + 1.5 * double(I) / CallElems;
  uint64_t Done = 0;
  while (Done < Calls) {
    for (size_t I = 0; I < CallElems; ++I) {
      double V = X[I];
      if (F)
        V = F(V);
      else // the loop alone, one element at a time as with a call
        asm volatile("" : "+x"(V));
      Y[I] = V;
    }
    asm volatile("" ::"r"(Y) : "memory");
    Done += CallElems;
  }
  Sink = Y[7];
  return double(Done);
}

double scalarCallsF(float (*F)(float), uint64_t Calls) {
  alignas(64) static float X[CallElems], Y[CallElems];
  for (size_t I = 0; I < CallElems; ++I)
    X[I] = 0.5f + 1.5f * float(I) / CallElems;
  uint64_t Done = 0;
  while (Done < Calls) {
    for (size_t I = 0; I < CallElems; ++I)
      Y[I] = F(X[I]);
    asm volatile("" ::"r"(Y) : "memory");
    Done += CallElems;
  }
  Sink = Y[7];
  return double(Done);
}

__attribute__((target("avx2"))) double vectorCalls(__m256d (*F)(__m256d), uint64_t Calls) {
  alignas(64) static double X[CallElems], Y[CallElems];
  for (size_t I = 0; I < CallElems; ++I)
    X[I] = 0.5 + 1.5 * double(I) / CallElems;
  uint64_t Done = 0;
  while (Done < Calls) {
    for (size_t I = 0; I < CallElems; I += 4)
      _mm256_store_pd(Y + I, F(_mm256_load_pd(X + I)));
    asm volatile("" ::"r"(Y) : "memory");
    Done += CallElems / 4;
  }
  Sink = Y[7];
  return double(Done) * 4;
}

__attribute__((target("avx2"))) double vectorPow(uint64_t Calls) {
  alignas(64) static double X[CallElems], Y[CallElems];
  for (size_t I = 0; I < CallElems; ++I)
    X[I] = 0.5 + 1.5 * double(I) / CallElems;
  uint64_t Done = 0;
  __m256d E = _mm256_set1_pd(1.7);
  while (Done < Calls) {
    for (size_t I = 0; I < CallElems; I += 4)
      _mm256_store_pd(Y + I, _ZGVdN4vv_pow(_mm256_load_pd(X + I), E));
    asm volatile("" ::"r"(Y) : "memory");
    Done += CallElems / 4;
  }
  Sink = Y[7];
  return double(Done) * 4;
}

__attribute__((target("avx2"))) double vectorCallsF(__m256 (*F)(__m256), uint64_t Calls) {
  alignas(64) static float X[CallElems], Y[CallElems];
  for (size_t I = 0; I < CallElems; ++I)
    X[I] = 0.5f + 1.5f * float(I) / CallElems;
  uint64_t Done = 0;
  while (Done < Calls) {
    for (size_t I = 0; I < CallElems; I += 8)
      _mm256_store_ps(Y + I, F(_mm256_load_ps(X + I)));
    asm volatile("" ::"r"(Y) : "memory");
    Done += CallElems / 8;
  }
  Sink = Y[7];
  return double(Done) * 8;
}

double powAt17(double X) { return std::pow(X, 1.7); }
} // namespace

const std::vector<LibraryCall> &libraryCalls() {
  static const std::vector<LibraryCall> Calls = {
      {"exp", 1, false},          {"log", 1, false},          {"sin", 1, false},
      {"cos", 1, false},          {"pow", 1, false},          {"expf", 1, false},
      {"logf", 1, false},         {"sinf", 1, false},         {"cosf", 1, false},
      {"_ZGVdN4v_exp", 4, true},  {"_ZGVdN4v_log", 4, true},
      {"_ZGVdN4v_sin", 4, true},  {"_ZGVdN4v_cos", 4, true},  {"_ZGVdN4vv_pow", 4, true},
      {"_ZGVdN8v_expf", 8, true}, {"_ZGVdN8v_logf", 8, true}};
  return Calls;
}

double libraryCallKernel(const char *Symbol, uint64_t Calls) {
  if (!Symbol)
    return scalarCalls(nullptr, Calls);
  std::string_view S(Symbol);
  double (*const Scalar[])(double) = {::exp, ::log, ::sin, ::cos, powAt17};
  const char *ScalarNames[] = {"exp", "log", "sin", "cos", "pow"};
  for (size_t I = 0; I < 5; ++I)
    if (S == ScalarNames[I])
      return scalarCalls(Scalar[I], Calls);
  if (S == "expf")
    return scalarCallsF(::expf, Calls);
  if (S == "logf")
    return scalarCallsF(::logf, Calls);
  if (S == "sinf")
    return scalarCallsF(::sinf, Calls);
  if (S == "cosf")
    return scalarCallsF(::cosf, Calls);
  if (S == "_ZGVdN4v_exp")
    return vectorCalls(_ZGVdN4v_exp, Calls / 4);
  if (S == "_ZGVdN4v_log")
    return vectorCalls(_ZGVdN4v_log, Calls / 4);
  if (S == "_ZGVdN4v_sin")
    return vectorCalls(_ZGVdN4v_sin, Calls / 4);
  if (S == "_ZGVdN4v_cos")
    return vectorCalls(_ZGVdN4v_cos, Calls / 4);
  if (S == "_ZGVdN4vv_pow")
    return vectorPow(Calls / 4);
  if (S == "_ZGVdN8v_expf")
    return vectorCallsF(_ZGVdN8v_expf, Calls / 8);
  if (S == "_ZGVdN8v_logf")
    return vectorCallsF(_ZGVdN8v_logf, Calls / 8);
  return 0;
}
#else
const std::vector<LibraryCall> &libraryCalls() {
  static const std::vector<LibraryCall> None;
  return None;
}
double libraryCallKernel(const char *, uint64_t) { return 0; }
#endif

} // namespace perfmodel::probe

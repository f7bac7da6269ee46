//===- Kernels.h - Micro-kernels of the probe (private) -------------------===//
#ifndef PERFMODEL_PROBE_KERNELS_H
#define PERFMODEL_PROBE_KERNELS_H

#include <cstddef>
#include <cstdint>

namespace perfmodel::probe {

/// N x 64 dependent integer adds (1 cycle each on every x86 core).
void addChain(uint64_t N);

/// Floating-point throughput kernels: N iterations of independent chains.
/// Each returns the flops executed; the result is stored to a sink so the
/// work cannot be removed.
enum class Isa { Scalar, Sse, Avx2, Avx512 };
double peakKernel(Isa I, bool Fma, bool Single, uint64_t N);

/// Divider throughput: N x 8 independent double-precision divisions or
/// square roots of FORM ("vdivsd", "vdivpd xmm", "vdivpd ymm", "vdivpd zmm",
/// "vsqrtsd", "vsqrtpd xmm", ...), inputs kept opaque so none is hoisted.
/// Returns the instructions executed (0 for an unknown form).
double dividerKernel(const char *Form, uint64_t N);
/// The forms dividerKernel knows; the zmm ones need AVX-512F.
extern const char *const DividerForms[8];

/// Latency: N x 16 dependent scalar double operations of KIND ("add", "mul",
/// "fma", "div", "sqrt+add": each square root followed by an add, so the
/// value stays away from exact results). Returns the operations chained
/// (pairs for sqrt+add), 0 for an unknown kind.
double latencyKernel(const char *Kind, uint64_t N);

/// Streaming kernels over doubles (AVX2 when USEAVX, else SSE2); N elements
/// each, a multiple of 32. Return the bytes they move, write-allocates
/// included (load: 8N, copy: 24N, triad: 32N).
double loadKernel(const double *A, size_t N, bool UseAvx);
double copyKernel(double *Dst, const double *Src, size_t N, bool UseAvx);
double triadKernel(double *A, const double *B, const double *C, size_t N, bool UseAvx);

} // namespace perfmodel::probe

#endif

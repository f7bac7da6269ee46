//===- Kernels.h - Micro-kernels of the probe (private) -------------------===//
//
// The probe's micro-kernels: add chains for the clock, FP peaks per ISA,
// latency chains, divider and shuffle throughputs, L1 ports, line splits,
// streams per level, branches, TLB walks, the load/store window, pointer
// chases and library calls. Each returns the work done.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PROBE_KERNELS_H
#define PERFMODEL_PROBE_KERNELS_H

#include "perfmodel/Probe.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace perfmodel::probe {

/// N x 64 dependent integer adds (1 cycle each on every x86 core).
void addChain(uint64_t N);
/// N x 32 adds in four independent chains: throughput-bound on the integer
/// ALUs, so slowed by a neighbour on the same physical core (0 off x86).
void independentAdds(uint64_t N);
/// N x 8 SSE2 FP adds in eight independent chains (past the add latency):
/// throughput-bound on the FP adders, so slowed by a neighbour's FP work,
/// which leaves the integer adds alone (0 off x86).
void independentFpAdds(uint64_t N);

/// Floating-point throughput kernels: N iterations of independent chains.
/// Each returns the flops executed; the result is stored to a sink so the
/// work cannot be removed.
using Isa = VectorIsa;
double peakKernel(Isa I, bool Fma, bool Single, uint64_t N);

/// An instruction form the probe times alone: its name as
/// instruction_overrides match it ("vdivpd zmm"), one encoding (register
/// operands) and the kernel that runs N x 8 independent operations of it,
/// inputs kept opaque so none is hoisted; it returns the operations (0 off
/// x86-64).
struct ThroughputKernel {
  const char *Form;
  std::vector<uint8_t> Encoding;
  double (*Run)(uint64_t N);
  /// EVEX-encoded (62h): needs AVX-512F.
  bool evex() const { return !Encoding.empty() && Encoding.front() == 0x62; }
};
/// Dividers: the zmm forms need AVX-512F, the others AVX.
const std::vector<ThroughputKernel> &dividerKernels();
/// 256-bit shuffles, permutes, blends and lane moves (AVX2): the units
/// LLVM's models of some cores get least right (its znver3 charges vpermpd
/// one cycle of the shuffle pipe; a Zen 3 takes 1.27).
const std::vector<ThroughputKernel> &shuffleKernels();

/// The dependent chains of the latency kernel; SqrtAdd: each square root
/// followed by an add, so the value stays away from exact results.
enum class Chain { Add, Mul, Fma, Div, SqrtAdd };
/// Latency: N x 16 dependent scalar double operations of KIND. Returns the
/// operations chained (pairs for SqrtAdd).
double latencyKernel(Chain Kind, uint64_t N);

/// Streaming kernels over doubles in vectors of BITS (512: AVX-512F, 256:
/// AVX2, else SSE2); N elements each, a multiple of 64. Return the bytes
/// they move, write-allocates included (load: 8N, copy: 24N, triad: 32N).
double loadKernel(const double *A, size_t N, unsigned Bits);
/// The load kernel from the top of A down.
double loadDownKernel(const double *A, size_t N, unsigned Bits);
/// A column read: LINES doubles STRIDE doubles apart (beyond a line) into
/// four sums, scalar, from element OFFSET on. Returns the bytes of the
/// lines it brings (64 a load).
double stridedLoadKernel(const double *A, size_t Lines, size_t Stride, size_t Offset);
double copyKernel(double *Dst, const double *Src, size_t N, unsigned Bits);
double triadKernel(double *A, const double *B, const double *C, size_t N, unsigned Bits);

/// s += A[i] over N doubles: one loop-carried chain of scalar adds (no
/// reassociation without -ffast-math). Returns the 8N bytes it reads.
double sumChainKernel(const double *A, size_t N);

/// Copy that also reads two streams of CACHED round and round (2 x M
/// doubles, M a multiple of 16, small enough to stay in a cache):
/// dst[i] = src[i] + cached[j] + cached[M + j]. Returns the copy's 24N
/// bytes: what the cached streams add is time, not traffic beyond them.
double copyCachedKernel(double *Dst, const double *Src, size_t N, const double *Cached,
                        size_t M, unsigned Bits);

/// Sum of A[0], A[S], A[2S], ... (four scalar chains, never vectorised: a
/// gather would be another kernel) over N doubles: one load per line S x 8
/// bytes apart. Returns the loads made, one line each when S >= 8.
double strideKernel(const double *A, size_t N, size_t S);

/// Update a[i] = s * a[i] in vectors of BITS over N doubles, a multiple of
/// 64: returns 16N bytes (a load and a store per element, no
/// write-allocate: the line is already there).
double updateKernel(double *A, size_t N, unsigned Bits);

/// Load and store ports: N x 16 independent accesses of WIDTH bytes (8:
/// general register, 16/32: xmm/ymm, 64: zmm, which needs AVX-512F) to
/// consecutive aligned addresses of BUF (1 KiB, 64-byte aligned, in L1).
/// Returns the accesses made (0 for another width or off x86-64).
double portKernel(char *Buf, bool Store, unsigned Width, uint64_t N);

/// Independent loads in L1 of both kinds, N groups of 8 ymm and 8 integer
/// loads, or with ZMM of 4 zmm and 8 integer loads: 8 vector parts of 32
/// bytes and 8 integer loads either way. Returns the groups (0 off x86-64).
double mixedLoadKernel(char *Buf, bool Zmm, uint64_t N);

/// Line splits: N x 16 independent 32-byte loads (or stores) of a
/// contiguous stream in BUF (576 bytes, 64-byte aligned, in L1) from byte
/// OFFSET: 0 keeps every access inside a line, 16 makes every other one
/// cross into the next. Returns the accesses made (0 off x86-64).
double lineAccessKernel(char *Buf, bool Store, unsigned Offset, uint64_t N);

/// FMAs beside FP stores: N trips of 24 vfmadd213pd ymm on twelve
/// accumulators and, with STORES, 8 vmovupd stores of ymm registers to BUF
/// (288 bytes, in L1). Returns the trips (0 off x86-64).
double fmaStoreKernel(char *Buf, bool Stores, uint64_t N);

/// A branch per byte: PASSES passes over the BYTES bytes of V adding the odd
/// ones (an asm barrier keeps the branch a branch). Random bytes make the
/// branch taken half the time at random. Returns the bytes visited.
double branchKernel(const uint8_t *V, size_t Bytes, uint64_t Passes);
/// One load or store per page over PAGES pages STRIDE doubles apart,
/// ROUNDS times round-robin: accesses made.
double tlbKernel(double *B, uint64_t Pages, uint64_t Rounds, uint64_t Stride, bool Store);
/// The first-level TLB: one load (into four integer sums, so the loads and
/// not an add chain bound the loop) or store per page over PAGES pages,
/// 4160 bytes apart (the lines spread evenly over an L1 indexed by the page
/// offset), ROUNDS times round-robin: accesses made.
double tlbL1Kernel(double *B, uint64_t Pages, uint64_t Rounds, bool Store);

/// Pointer chases: CHAINS interleaved walks (at most 32) through BASE, where
/// the 8 bytes at each visited offset hold the byte offset of the next
/// visit, STEPS steps each from the offsets in STARTS. Returns the accesses
/// made. Each load's address is the previous load's value: one chain
/// measures the load-to-use latency, many the misses the core overlaps.
double chaseKernel(const char *Base, const uint64_t *Starts, unsigned Chains, uint64_t Steps);
/// Independent loads of the first word of the lines LINES (line numbers)
/// from BASE, into four integer sums (a chase buffer's words as doubles
/// would be denormals, slow on some cores): loads made.
double randomLineLoadsKernel(const char *Base, const uint32_t *Lines, size_t N);

/// A library function the probe times per call: its symbol (exp, or glibc's
/// vector version _ZGVdN4v_exp) and the elements a call computes.
struct LibraryCall {
  const char *Symbol;
  unsigned Lanes;
  bool Avx2; ///< needs AVX2 (libmvec's 256-bit versions)
};
const std::vector<LibraryCall> &libraryCalls();
/// y[i] = f(x[i]) over 1024 doubles (floats for the float functions) in L1,
/// arguments in [0.5, 2], about N elements through SYMBOL; with SYMBOL null
/// the same loop copying one element at a time (the loop's own cost).
/// Returns the elements done (0 off x86-64).
double libraryCallKernel(const char *Symbol, uint64_t N);

/// Henry Wong's window test: ITERS iterations of two independent pointer
/// chases (A, B: cycles through memory-sized sets), each step followed by
/// FILLERS independent L1-hit loads (or stores to one line of BUF) that must
/// stay in the window between the two misses. FILLERS is one of
/// windowFillers(). Returns the iterations made (0 off x86-64).
double windowKernel(bool Store, unsigned Fillers, void **A, void **B, uint64_t Iters, char *Buf);
/// The filler counts windowKernel has code for: 16 to 256 in steps of 8.
const std::vector<unsigned> &windowFillers();
constexpr unsigned WindowFirst = 16, WindowStride = 8, WindowSizes = 31;

/// RING (LEN pointers) made one cycle through all of them in an order
/// shuffled from SEED: what windowKernel's chases run through. Built here,
/// beside the kernels, so that the sanitizer build leaves its 33 million
/// random writes unchecked as it does the chases.
void randomCycle(void **Ring, size_t Len, uint64_t Seed);
/// The LINES 64-byte lines of BUF made one cycle in a shuffled order, each
/// line's first word the offset of the next (chaseKernel's chases); ORDER
/// (LINES entries) gets the order, the result the generator's state after
/// it. Beside the kernels for the same reason.
uint64_t lineCycle(char *Buf, uint32_t *Order, uint64_t Lines);

/// The next value of a xorshift64 generator (the probe's random orders:
/// repeatable, no library state).
inline uint64_t nextRandom(uint64_t &State) {
  State ^= State << 13;
  State ^= State >> 7;
  State ^= State << 17;
  return State;
}

} // namespace perfmodel::probe

#endif

//===- Probe.h - Measure the host: CPUID and micro-benchmarks ---*- C++ -*-===//
//
// `perfmodel probe`: identifies the CPU from CPUID (cache geometry from leaf
// 4 on Intel, 0x8000001D or the legacy 0x80000005/6 on AMD), estimates the
// clock from a dependent add chain, and runs ERT-style kernels for peak
// flop/s and per-level bandwidth. The result is plain data; writing it as a
// machine model is the report's business (writeProbedMachine).
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PROBE_H
#define PERFMODEL_PROBE_H

#include "perfmodel/MachineModel.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace perfmodel {

struct MachineModel;

struct CpuidRegs {
  uint32_t Eax = 0, Ebx = 0, Ecx = 0, Edx = 0;
};
/// CPUID(leaf, subleaf); a recorded table in tests, the instruction on a host.
using CpuidFn = std::function<CpuidRegs(uint32_t Leaf, uint32_t Subleaf)>;
/// The host's CPUID instruction (x86-64), all zeros elsewhere.
CpuidFn hostCpuid();

/// One data or unified cache level as CPUID describes it.
struct ProbedCache {
  unsigned Level = 0;
  uint64_t SizeBytes = 0;
  unsigned Ways = 0;        ///< 0: CPUID does not say
  unsigned LineBytes = 0;
  unsigned SharedByThreads = 0; ///< 0: CPUID does not say
  std::optional<bool> Inclusive;
  std::string From; ///< the CPUID leaf that gave it, e.g. "leaf 4"
};

struct CpuIdentity {
  std::string Vendor, Brand;
  unsigned Family = 0, Model = 0;
  bool Sse2 = false, Avx = false, Avx2 = false, Fma = false, Avx512f = false;
  std::vector<ProbedCache> Caches; ///< data/unified levels, L1 first
  unsigned simdBits() const { return Avx512f ? 512 : Avx ? 256 : Sse2 ? 128 : 64; }
};

/// Decodes vendor, family/model, brand, SIMD features and the data caches.
CpuIdentity identifyCpu(const CpuidFn &Cpuid);

/// A timed quantity: the median of the repetitions and their spread.
struct Measured {
  double Median = 0, Min = 0, Max = 0;
  unsigned Reps = 0;
  /// The middle half of the repetitions within 5 % of the median.
  bool Settled = true;
  /// (max - min) / median: how noisy the repetitions were.
  double spread() const { return Median > 0 ? (Max - Min) / Median : 0; }
};

/// The median of V (the mean of the middle two for an even count; 0 when
/// empty).
double median(std::vector<double> V);

struct BandwidthPoint {
  std::string Level;     ///< where the working set lives: "L1", "L2", "L3", "MEM"
  uint64_t WorkingSet = 0; ///< bytes per thread
  unsigned Threads = 1;
  /// Triad counts 4 streams (write-allocate), copy 3, update (a = s x a) 2.
  Measured LoadGBs, CopyGBs, UpdateGBs, TriadGBs;
  /// One thread: the same kernels in bytes per cycle, each repetition at the
  /// clock timed beside it and only those that had the core to themselves
  /// (0 when not measured so: several threads). The ECM fit uses these.
  Measured LoadBytesPerCy, CopyBytesPerCy, UpdateBytesPerCy, TriadBytesPerCy;
  /// Several threads: each kernel's rate over the triad's of the same round
  /// (the kernels take turns), whose median holds where the host's memory
  /// moves between rounds.
  Measured LoadPerTriad, CopyPerTriad, UpdatePerTriad;
  /// One core in memory only: the copy with two more read streams that stay
  /// in the L2 (CachedBytes each), at the copy's bytes, timed beside a plain
  /// copy (CopyBesideGBs). Their difference is what lines from a cache cost
  /// a loop whose other lines stream from memory.
  Measured CopyCachedGBs, CopyBesideGBs;
  /// One core in memory only: a scalar sum (one loop-carried chain of adds)
  /// over the buffer, timed beside the load kernel over the same buffer:
  /// whether a chain-bound loop hides its stream (ecm.recurrence_serial_share).
  Measured SumChainGBs, SumBesideGBs;
  uint64_t CachedBytes = 0;
  /// One thread: the C library's memcpy (source and destination of half the
  /// working set each) and memset (the whole working set), bytes written per
  /// second / 1e9 and per cycle (each repetition at the clock timed beside
  /// it), over the repetitions that had the core to themselves: what copy
  /// and fill loops the compiler replaces run.
  Measured MemcpyGBs, MemsetGBs, MemcpyBytesPerCy, MemsetBytesPerCy;
  /// One thread in memory: repetitions taken beside a quiet memory bus (a
  /// 1 MiB read before and after each at 90 % or more of the second highest
  /// such read) and on an unshared core, of all taken, over the one-core
  /// kernels above; 0 of 0 where no read was made.
  unsigned BusQuiet = 0, BusTotal = 0;
};

/// Independent loads or stores of one width in L1: accesses per cycle.
struct PortPoint {
  unsigned WidthBytes = 0; ///< 8 (general register), 16, 32, 64
  Measured LoadsPerCycle, StoresPerCycle;
};

/// The four streaming kernels of one level in cycles per line of each
/// stream (8 doubles), the inputs of the ECM overlap fit.
struct LevelTimes {
  std::string Level;
  double Load = 0, Copy = 0, Update = 0, Triad = 0;
};

/// Which ECM rule the timings follow and the transfer time of each link
/// under it. With the kernels' lines per link (load 1, copy 3 with the
/// write-allocate, update 2, triad 4) and the in-core time taken as each
/// kernel's time in L1: `none` predicts L1 time + lines x (t_1 + ... + t_k)
/// in level k, `full` max(L1 time, lines x t_1, ..., lines x t_k). Each
/// rule's t_k is fitted level by level, minimising the mean relative error
/// of the four kernels; the rule with the smaller residual wins. Memory's
/// link has two times, a line filled and a line written back (fills: load 1,
/// copy 2, update 1, triad 3; write-backs: 0, 1, 1, 1): a core's fills wait
/// in its miss queues for the latency, its write-backs do not.
struct OverlapFit {
  std::optional<OverlapRule> Rule; ///< nullopt when fewer than two levels
  double ResidualNone = 0, ResidualFull = 0; ///< mean relative error, levels beyond L1
  /// Fitted cycles per line on each link of the winning rule, the link into
  /// L1 first (Times[1].Level's link), the last from Times.back().Level.
  std::vector<double> CyclesPerLine;
  /// Memory's link is fitted with two times: a line filled (CyclesPerLine's
  /// last) and a line written back (this; 0 when no level is MEM).
  double MemWritebackCyclesPerLine = 0;
  /// Per link: write-backs on a path of their own (bytes_per_cycle_to_next),
  /// the link's time the slower direction's; else they share the fills' path.
  std::vector<bool> Duplex;
  /// Per link: cycles per line written back on a path of its own (Duplex),
  /// else the fills' time.
  std::vector<double> WritebackCyclesPerLine;
  /// The winning rule's times of the four kernels, levels beyond L1.
  std::vector<LevelTimes> Predicted;
  /// The two rules fitted within two points and the preferred one was kept.
  bool Preferred = false;
};
/// PREFER, when given (the base model's rule), is kept where the two rules
/// explain the kernels within two points of mean error: on a noisy host
/// the better of two close fits flips from run to run.
OverlapFit fitEcmOverlap(const std::vector<LevelTimes> &Times,
                         std::optional<OverlapRule> Prefer = std::nullopt);

/// The vector extensions the probe's kernels are written for.
enum class VectorIsa { Scalar, Sse, Avx2, Avx512 };
/// "scalar", "sse", "avx2", "avx512".
inline const char *vectorIsaName(VectorIsa I) {
  return I == VectorIsa::Scalar ? "scalar"
         : I == VectorIsa::Sse  ? "sse"
         : I == VectorIsa::Avx2 ? "avx2"
                                : "avx512";
}

/// Today's date in UTC, YYYY-MM-DD: what probes and recordings are dated.
std::string todayUtc();

struct PeakPoint {
  VectorIsa Isa = VectorIsa::Scalar;
  bool Fma = false;  ///< FMA kernel, else separate adds and multiplies
  Measured DoubleFlopsPerCycle, SingleFlopsPerCycle;
};

/// Throughput of one instruction form timed alone ("vdivpd zmm").
struct DividerPoint {
  std::string Form;
  Measured CyclesPerInstr; ///< reciprocal throughput, 8 independent operations
};

/// The divider forms the probe measures, each with one encoding (register
/// operands) for finding the resource a scheduling model charges it to.
const std::vector<std::pair<std::string, std::vector<uint8_t>>> &dividerForms();
/// The same for the 256-bit shuffle forms it measures.
const std::vector<std::pair<std::string, std::vector<uint8_t>>> &shuffleForms();

struct ProbeOptions {
  bool Quick = false;    ///< fewer repetitions and smaller memory sets (tests)
  unsigned Threads = 0;  ///< 0: every online CPU
  std::function<void(unsigned Done, unsigned Total, const std::string &What)> Progress;
};

/// The running clock from a dependent integer add chain (one cycle per add
/// on every x86-64 core): REPS timings of at least MINSECONDS each after
/// warming up, up to 3 x REPS while they scatter (settled()). EXACTLY: REPS
/// timings of about MINSECONDS each (a command's quick look at the clock:
/// their median, whatever the scatter). Median 0 where it cannot run (not
/// x86-64).
Measured measureClock(double MinSeconds = 0.002, unsigned Reps = 5, bool Exactly = false);

/// The vector width clang-19 -O3 -march=CPU vectorises loops with on a core
/// with C's features: 512 where it has AVX-512F and LLVM's tuning for CPU
/// does not prefer 256-bit vectors (znver4: 512, skylake-avx512: 256), else
/// 256 with AVX2, else 128. CPU empty: this host's.
unsigned compilerVectorBits(const CpuIdentity &C, const std::string &Cpu = "");

struct ProbeResult {
  CpuIdentity Cpu;
  std::string Date;        ///< YYYY-MM-DD of the measurement
  unsigned OnlineCpus = 1;
  /// Vector width of the streaming kernels: the one clang-19 -O3
  /// -march=native vectorises with here (512 on AVX-512 cores whose tuning
  /// does not prefer 256-bit vectors), as memory runs at different speeds
  /// for 32- and 64-byte accesses on some cores.
  unsigned StreamBits = 0;
  Measured ClockGHz;
  std::vector<PeakPoint> Peaks;
  std::vector<DividerPoint> Dividers;
  /// 256-bit shuffles, permutes and lane moves, 8 independent operations
  /// each (written where they differ from LLVM's model).
  std::vector<DividerPoint> Shuffles;
  /// Cycles a trip of 24 independent-enough FMAs (twelve accumulators)
  /// takes alone and beside 8 stores of ymm registers, in L1: more than
  /// either alone means the two share a slot LLVM's model may not know.
  Measured FmaAloneCy, FmaStoresCy;
  /// Cycles a call of a C library function takes beside a loop that calls
  /// it once per element (per vector for libmvec's versions), less the same
  /// loop without the call: (symbol, cycles per call).
  std::vector<std::pair<std::string, Measured>> CallCycles;
  /// Scalar double latencies in cycles: "add", "mul", "fma", "div", "sqrt".
  std::map<std::string, Measured> Latencies;
  std::vector<BandwidthPoint> Bandwidth;
  std::vector<PortPoint> Ports;
  /// Time of a 32-byte load (store) that crosses a cache line over one that
  /// does not, in L1, throughput-bound: the port slots a split costs.
  Measured LineSplitLoad, LineSplitStore;
  /// Cycles per group of 8 ymm (MixedLoadsZmm: 4 zmm) and 8 integer loads
  /// together, in L1: 8 vector parts of 32 bytes and 8 integer loads.
  Measured MixedLoadCy;
  bool MixedLoadsZmm = false;
  /// One pointer chase (random lines) per level ("L1" ... "MEM"): ns per
  /// access, the load-to-use latency of the level the chase fits.
  std::map<std::string, Measured> ChaseNs;
  /// 32 interleaved chases in memory: ns per access, the latency over the
  /// misses one core keeps in flight (at most 32 by construction).
  Measured ParallelChaseNs;
  /// Independent loads of random lines over the same set (x[idx[i]]): ns
  /// per access, a gather's misses; the misses in flight are the latency
  /// over the faster of this and the chases.
  Measured RandomLoadNs;
  /// A scalar load stream of one load per two lines (128 B apart, four
  /// chains) over the memory-sized set: ns per line. Only the L1's stride
  /// prefetcher follows it, so its lines come a miss buffer's worth per
  /// latency of an open page: x the misses in flight, that latency.
  Measured StrideNsPerLine;
  /// Chases over growing sets from beyond the L2 to the L3 CPUID reports
  /// (bytes, ns per access; the slowest of two sweeps per size): where the
  /// latency leaves the L3's is the capacity this host keeps for one core.
  std::vector<std::pair<uint64_t, double>> L3Sweep;
  /// The load kernel on one core over sets between twice the L1 and half
  /// the L2 (bytes, bytes per cycle at the clock beside each repetition):
  /// whether the L1's fills from L2 run at one rate whatever the set.
  std::vector<std::pair<uint64_t, Measured>> FillSweep;
  /// The load kernel run downwards over the first set of the sweep (bytes,
  /// bytes per cycle): whether descending streams fill at the same rate.
  std::pair<uint64_t, Measured> FillDownwards;
  /// A column read at a stride of 200 B (rows of 25 doubles) into four
  /// sums, a line per load: over half the L2's worth of lines (filled from
  /// the L2) and twice the L2's (from the L3; 1600 pages for a 1 MiB L2,
  /// within a 3072-entry TLB). Bytes of lines per cycle; where the
  /// L1's, or the L2's, strided fills run slower than its streams.
  Measured StridedFromL2, StridedFromL3;
  /// A branch on random bytes: cycles one misprediction costs (the loop over
  /// 16 MiB, unlearnable, against the same loop over 8 KiB, learned), and
  /// the mispredicted share per branch of a repeated pattern of each length
  /// (bytes = branches); capacity = half the length learned half.
  Measured MispredictCycles;
  std::vector<std::pair<uint64_t, double>> BranchSweep;
  /// Data-TLB misses in a loop of independent accesses, one per 4 KiB page
  /// (lines in L2): cycles a load and a store lose when their pages, 8 apart,
  /// exceed any TLB's reach (2048 pages against 64), and the cycles per store
  /// over pages 1 apart for each count (the knee: the TLB's entries).
  Measured TlbLoadMissCy, TlbStoreMissCy;
  std::vector<std::pair<uint64_t, double>> TlbSweep;
  double TlbHitStoreCy = 0; ///< the sweep's reference: 64 pages
  /// The first-level TLB, pages 1 apart and lines in L1: cycles a load and a
  /// store lose over 256 pages (past every first level, within every last
  /// level) against 16, and the cycles per load for each page count (the
  /// knee: its entries; the reference TlbL1HitLoadCy at 16 pages).
  Measured TlbL1LoadMissCy, TlbL1StoreMissCy;
  std::vector<std::pair<uint64_t, double>> TlbL1Sweep;
  double TlbL1HitLoadCy = 0;
  /// Henry Wong's window test: two pointer chases missing to memory with N
  /// L1-hit loads (stores to one line) between them; per N, the time per
  /// iteration over that with 16. Where it steps up, the load (store) queue
  /// no longer holds the fillers until they retire.
  std::vector<std::pair<unsigned, double>> LoadWindow, StoreWindow;
  std::vector<std::string> Notes;
  /// Wall seconds each step took, in order (what a probe's time goes to).
  std::vector<std::pair<std::string, double>> StepSeconds;
};

/// The last filler count of a window sweep (fillers, time over the first
/// point's) before the time stays at 1.5 or more for three points: the
/// fillers the structure still holds. 0 when it never steps up or steps at
/// the first point.
unsigned windowStep(const std::vector<std::pair<unsigned, double>> &Sweep);

/// The predictor's capacity from a sweep of (pattern length, mispredicted
/// share per branch): half the length where the share reaches 1/4 (half the
/// random branches' 1/2), interpolated; 0 when it never does.
double branchPatternCapacity(const std::vector<std::pair<uint64_t, double>> &Sweep);

/// The TLB's entries from a sweep of (pages, cy per store) over pages 1
/// apart: where the cost passes the hit's by a quarter of a miss's extra
/// (HIT, MISS: cy per store), interpolated; 0 when it never does.
double tlbEntries(const std::vector<std::pair<uint64_t, double>> &Sweep, double Hit,
                  double Miss);

/// The L3 capacity a sweep shows: the largest set whose chase, and every
/// smaller one's, stays below the geometric mean of the L3's latency L3NS
/// and memory's MEMNS; 0 when the sweep is empty or its first set is
/// already beyond.
uint64_t effectiveL3Bytes(const std::vector<std::pair<uint64_t, double>> &Sweep, double L3Ns,
                          double MemNs);

/// Whether a kept L3 capacity is a share of the FULL size rather than the
/// sweep's own error: below three quarters of it.
inline bool keptL3IsAShare(uint64_t Kept, uint64_t Full) {
  return Kept && double(Kept) < 0.75 * double(Full);
}

/// BYTES rounded down to whole sets of WAYS lines of LINE bytes (the
/// simulator's geometry), at least one set when BYTES is not 0.
inline uint64_t wholeSets(uint64_t Bytes, unsigned Ways, unsigned Line) {
  uint64_t Set = uint64_t(Ways ? Ways : 1) * (Line ? Line : 1);
  return Bytes ? (Bytes < Set ? Set : Bytes / Set * Set) : 0;
}

/// The L3 capacity streams find: the largest set whose load stream, and
/// every smaller one's, takes at most a quarter of the way from the L3's
/// time per line (the least of the first two sets) to memory's MEMNS; 0 when
/// the sweep is empty or memory is less than 1.3 x the L3's time.
uint64_t keptL3FromStreams(const std::vector<std::pair<uint64_t, double>> &Sweep, double MemNs);

/// The L3 capacity this host keeps for one core now (a VM's share of a
/// shared L3, or what busy neighbours leave): load streams over sets from
/// 1.5 x L2 up to L3 (steps of 1.25, 4 KiB pages) against one over 4 x L3
/// (keptL3FromStreams). 0 when it cannot be measured (no L3, memory not to
/// be had, memory no slower than the L3). Half a second or less.
uint64_t measureKeptL3(uint64_t L2Bytes, uint64_t L3Bytes, double MinSeconds = 0.002,
                       unsigned Reps = 3);

/// measureKeptL3's sweep: the capacity kept and the load stream's ns per
/// line in the L3 (the least of its first two sets; 0 when not measured),
/// made with loads LOADBITS wide.
struct L3Streams {
  uint64_t KeptBytes = 0;
  double L3NsPerLine = 0;
  unsigned LoadBits = 0;
};
L3Streams measureL3Streams(uint64_t L2Bytes, uint64_t L3Bytes, double MinSeconds = 0.002,
                           unsigned Reps = 3);
/// Little's law on the chases: the misses in flight that make 32 chases
/// take PARALLELNS per access when one takes LATENCYNS (0 when unknown).
double missesInFlight(double LatencyNs, double ParallelNs);

/// The time per access of the faster of 32 chases at once (CHASESNS) and
/// independent random loads (RANDOMNS) over the same lines, the one known
/// where only one is (0: neither): what a gather's misses take, or the
/// chases where their loop lets more misses overlap.
double parallelMissNs(double ChasesNs, double RandomNs);

/// One core's memory as this host gives it now (several seconds), for a
/// model of the host that states none: one pointer chase over BYTES of
/// random lines on 4 KiB pages (latency), 32 at once and independent random
/// loads over the same bytes (the misses one core keeps in flight:
/// parallelMissNs), and a load stream over BYTES in the vectors the
/// compiler uses here (what one core's fills draw). Zeros where it cannot
/// run.
struct HostMemory {
  double LatencyNs = 0, InFlight = 0, FillGBs = 0;
  /// With streams (measureHostMemory's STREAMS, several seconds more): one
  /// core's fills and write-backs apart, fitted as the probe fits them (time
  /// per line = fills x a + write-backs x b over the load, update, copy and
  /// triad kernels, each over BYTES beside a quiet core and memory bus);
  /// WritebackGBs 0 where the write-backs cost nothing seen.
  double FitFillGBs = 0, WritebackGBs = 0;
  /// THREADS cores' triad (write-allocate counted) together: what the
  /// socket gives this host now (0 with one thread), the fastest
  /// repetition's (a neighbour's stream only ever slows one).
  double AllCoresGBs = 0;
  /// The same for the load (fills only), update and copy kernels: a socket's
  /// reads and writes need not share one rate.
  double AllCoresLoadGBs = 0, AllCoresUpdateGBs = 0, AllCoresCopyGBs = 0;
  unsigned Threads = 1;
};
HostMemory measureHostMemory(uint64_t Bytes = uint64_t(128) << 20, bool Streams = false,
                             unsigned Threads = 1);

/// Least squares of time per line = fills x a + write-backs x b over
/// (fills, write-backs, ns per line) points: {a, b}, b clamped at 0;
/// {0, 0} with fewer than two independent points.
std::pair<double, double> fitFillsWritebacks(
    const std::vector<std::tuple<double, double, double>> &Points);

/// Runs the whole probe on this machine.
ProbeResult runProbe(const ProbeOptions &O);

/// A library model the probe writes its figures over.
struct ProbeBase {
  std::string Name; ///< as `base:` names it (the library file's stem)
  const MachineModel *Model = nullptr;
};

/// The kernels' times per level in cycles per line of each stream (one core,
/// at the measured clock), L1 first, memory last: the overlap fit's input.
std::vector<LevelTimes> levelTimes(const ProbeResult &R);

/// Per instruction form, the cycles LLVM's model charges each resource.
using FormPorts = std::map<std::string, std::map<std::string, double>>;

/// The scalar FMA form the probe's peak kernel measures, and its encoding
/// (vfmadd231sd xmm0, xmm1, xmm2).
inline constexpr const char *ScalarFmaForm = "vfmadd231sd";
inline const std::vector<uint8_t> ScalarFmaEncoding = {0xc4, 0xe2, 0xf1, 0xb9, 0xc2};

/// The probe's FMAs beside FP stores: the store (vmovupd [rdi], ymm0) and
/// the FMA (vfmadd213pd ymm0, ymm1, ymm2) as llvm-mc-19 encodes them. In
/// LLVMCOSTS FpStoreForm names only the resource that binds the store alone
/// (its cycles per unit: the store-data unit), FmaYmmForm every resource.
inline constexpr const char *FpStoreForm = "vmovupd (store)";
inline const std::vector<uint8_t> FpStoreEncoding = {0xc5, 0xfd, 0x11, 0x07};
inline constexpr const char *FmaYmmForm = "vfmadd213pd ymm";
inline const std::vector<uint8_t> FmaYmmEncoding = {0xc4, 0xe2, 0xf5, 0xa8, 0xc2};

/// Writes R as a machine model (docs/machine-model.md) with every measured
/// number sourced "measured by perfmodel probe on DATE" and the rest from
/// CPUID, LLVM, or marked as assumed. ISSUEWIDTH comes from LLVM's
/// scheduling model of CPU (0: unknown, then 4 is assumed and said so).
/// LLVMCOSTS gives, per measured form (divider forms, ScalarFmaForm), the
/// cycles LLVM's model of CPU charges the lone instruction on each resource:
/// a measured reciprocal throughput becomes an instruction_override on those
/// resources, scaled to it.
///
/// With BASE (the library model of this CPU), the file names it as `base:`
/// and carries only what was measured, each figure with its spread and
/// kernel; the base's cache geometry, socket, theoretical bandwidth and
/// widths stay as the base states them.
void writeProbedMachine(llvm::raw_ostream &OS, const ProbeResult &R, const std::string &Triple,
                        const std::string &Cpu, unsigned IssueWidth,
                        const FormPorts &LlvmCosts = {},
                        const ProbeBase *Base = nullptr);

} // namespace perfmodel

#endif

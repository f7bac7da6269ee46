//===- MachineModel.h - Validated machine description ----------*- C++ -*-===//
//
// The machine model is plain data loaded from a YAML file (see
// docs/machine-model.md). Every later stage reads it; nothing writes it back.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_MACHINEMODEL_H
#define PERFMODEL_MACHINEMODEL_H

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

/// A user-fixable problem in a machine file or a --set override.
struct MachineDiag {
  enum class Kind { Error, Warning } Severity = Kind::Error;
  std::string File;  ///< file path, or "--set" for command-line overrides
  unsigned Line = 0; ///< 1-based, 0 when unknown
  unsigned Column = 0;
  std::string Key; ///< dotted key path, e.g. "caches.L2.size"
  std::string Message;
  /// "file:line:col: error: caches.L2.size: message"
  std::string str() const;
};

struct InstructionOverride {
  std::string Form;                  ///< e.g. "vdivpd ymm"
  std::optional<double> LatencyCy;   ///< result latency in cycles
  std::optional<double> Uops;        ///< micro-ops issued
  std::map<std::string, double> Ports; ///< port name -> cycles occupied
  /// Forms sharing a bypass group forward results among themselves at
  /// LatencyCy; a consumer outside the group waits LatencyOutsideCy (Zen 5:
  /// an FP add reaches another add in 2 cycles, anything else in 3).
  std::string BypassGroup;
  std::optional<double> LatencyOutsideCy;
};

/// One floating-point pipe: the vector operations it can start each cycle.
struct FpUnit {
  bool Add = false, Mul = false, Fma = false;
};

/// An Intel core's legacy decode pipeline and the quirks around it
/// (core.front_end; machine-models/cores/intel-front-ends.yml by LLVM CPU):
/// what straight-line code meets on its way to the renamer (predecoder,
/// instruction queue, decoders, microcode sequencer), where a loop's uops
/// come from (loop stream detector or uop cache), and the x86 rules that
/// differ by core. No defaults: every number comes from the data.
struct FrontEndModel {
  unsigned PredecodeWidth = 0;    ///< instructions predecoded a cycle
  unsigned PredecodeBlock = 0;    ///< bytes of the aligned predecode window
  unsigned LcpPenalty = 0;        ///< cycles a length-changing prefix stalls
  unsigned Decoders = 0;          ///< the first complex, the rest simple
  unsigned IqSize = 0;            ///< instruction queue entries
  unsigned PredecodeDecodeDelay = 0; ///< cycles from predecode to decode
  unsigned IssueWidth = 0;        ///< fused uops renamed a cycle
  /// A load whose address is a register (loaded by a plain load) plus a
  /// displacement below this many bytes returns a cycle early; 0: never.
  unsigned FastChaseBelow = 0;
  double StoreForward = 0;        ///< cycles from a store's data to a load
  double LockedCycles = 0;        ///< a locked read-modify-write's barrier
  /// The loop stream detector holds loops of up to LsdUops fused uops (0:
  /// none) and unrolls one of n uops LsdUnroll[n] times (1 where absent;
  /// index 0 unused); other loops run from the uop cache, DsbWidth a cycle.
  unsigned LsdUops = 0, DsbWidth = 0;
  std::vector<unsigned> LsdUnroll;
  /// A loop within one uop-cache window of this many bytes takes whole
  /// cycles (a taken branch ends a cycle's delivery).
  unsigned DsbWindowBytes = 0;
  bool FusibleInLastDecoder = false; ///< a fusible instruction may take the last decoder
  bool UnlaminateAllIndexed = false; ///< every indexed micro-fused uop un-laminates
  bool MoveElimination = false;      ///< register moves renamed away
};

struct CoreModel {
  unsigned IssueWidth = 0;   ///< micro-ops issued per cycle
  /// Micro-ops the out-of-order window holds (reorder buffer / retire
  /// queue); 0 when the file does not say.
  unsigned ReorderBuffer = 0;
  /// Cycles a mispredicted conditional branch costs the loop around it
  /// (refetch after the branch resolves); 0 when the file does not say.
  double BranchMispredictCycles = 0;
  /// Outcomes of a repeated random branch pattern the predictor learns (a
  /// pattern twice as long is half learned); 0 when the file does not say.
  double BranchPatternCapacity = 0;
  unsigned SimdBits = 0;     ///< widest vector register
  /// Width of one floating-point pipe when narrower than the registers
  /// (Zen 4 runs 512-bit operations on 256-bit pipes); 0 = SimdBits.
  unsigned FpPipeBits = 0;
  unsigned FmaUnits = 0;     ///< 0 means no FMA
  double PeakFlopsPerCycleDouble = 0;
  double PeakFlopsPerCycleSingle = 0;
  unsigned LoadsPerCycle = 0;
  double LoadBytesPerCycle = 0;  ///< L1 -> registers, all load ports together
  /// Of the LoadsPerCycle load slots a cycle, those each 32 bytes of a vector
  /// or FP load take where integer and vector loads share the load pipes
  /// (Zen 4: 1.5 of 3, so two vector parts a cycle and an integer load
  /// beside them waits); 0 when the file does not say (no such bound).
  double VectorLoadSlots = 0;
  unsigned StoresPerCycle = 0;
  double StoreBytesPerCycle = 0; ///< registers -> L1
  /// Bytes the L1 moves a cycle for loads and stores together, where that is
  /// less than the two apart (the Zen 5 VM: 150 of 128 + 64); 0: unstated.
  double L1BytesPerCycle = 0;
  /// Load/store port slots of a vector access whose address is not known
  /// to be a multiple of its width (the PPR paper's Haswell: 2).
  double UnalignedVectorCost = 1;
  /// Load/store port slots of an access that crosses a cache line (two
  /// accesses on most cores); 0 when the file does not say (splits free).
  double LineSplitLoadCost = 0, LineSplitStoreCost = 0;
  /// Entries of the scheduler queues, by the name of LLVM's buffered
  /// resource (Zn4FP, HWPortAny); a queue not named keeps LLVM's size.
  std::map<std::string, unsigned> SchedulerQueues;
  /// Per scheduler queue, further resources of LLVM's model whose operations
  /// wait in it too (AMD's FP store data, which LLVM keeps out of Zn4FP).
  std::map<std::string, std::vector<std::string>> QueueAlsoHolds;
  /// Units of LLVM's ports that replace its counts, by the port's name: a
  /// core LLVM models with another core's numbers, or a hypothetical one.
  std::map<std::string, unsigned> PortUnits;
  /// Loads (stores) in flight between issue and retirement: the load
  /// (store) queue as a window test measures it; 0 when the file does not
  /// say (then no limit beyond the reorder buffer).
  unsigned LoadQueue = 0, StoreQueue = 0;
  /// Floating-point pipes; empty when the file does not say (then every FMA
  /// unit is assumed to do add, mul and FMA).
  std::vector<FpUnit> FpUnits;
  std::vector<InstructionOverride> Overrides;
  /// Cycles a call of a library function takes beside the loop that makes
  /// it (exp, _ZGVdN4v_exp): the callee's instructions, which the compiled
  /// loop does not contain. By symbol name; measured by `perfmodel probe`.
  std::map<std::string, double> CallCycles;
  /// Cycles one call and its return take, one pair after the other, whatever
  /// the callee does beside them (the branch unit and return-address stack);
  /// 0 when the file does not say. Measured by bench/incore/calls.c.
  double CallReturnCycles = 0;
  /// Bytes of the aligned line of code the front end delivers from in one
  /// cycle (AMD's op cache: one 64-byte line a cycle, and a taken branch
  /// ends the cycle), so that a loop's iteration takes at least a cycle per
  /// line its code touches (core.fetch_line_bytes; 0: no such bound).
  /// Measured by bench/incore/op_cache_windows.c.
  unsigned FetchLineBytes = 0;
  /// Microseconds an OpenMP parallel loop (omp parallel for) costs beside
  /// its iterations, by the threads it runs on: starting them, the static
  /// split and the join (core.parallel_loop_us); measured by
  /// bench/openmp/forkjoin.c. Empty when the file does not say.
  std::map<unsigned, double> ParallelLoopUs;
  /// Whether a load gets the bytes of a masked store (AVX-512's {k},
  /// vmaskmov) by store-to-load forwarding (core.masked_stores_forward);
  /// false: it waits for the store to commit, as when forwarding fails.
  bool MaskedStoresForward = true;
  /// Cycles from when a store can commit until a load it does not forward
  /// to has its data (core.forward_fail_cy); 0: the in-core model's 15.
  double ForwardFailCycles = 0;
  /// Cycles from a store's data to a load it forwards to, for stores of
  /// general registers (core.store_forward_cy) and of vector registers
  /// (core.store_forward_vector_cy; unstated: the former); unset: the
  /// in-core model's 5. Zen 5 renames memory for the former (0).
  std::optional<double> StoreForwardCycles, StoreForwardVectorCycles;
  /// The fewest cycles from a load to the next load of a value the loop
  /// stores back from a vector register (core.vector_memory_round_trip_cy;
  /// 0: no such bound): Zen 5 takes 12 for any op between.
  double VectorMemoryRoundTrip = 0;
  /// Bytes written per cycle by the C library's memcpy (memset) with its
  /// source and destination in a cache level, by level name ("L1", "L2",
  /// ...): the code a copy (fill) loop runs when the compiler replaces it
  /// with the call. Measured by `perfmodel probe`; memory: MemoryModel.
  std::map<std::string, double> MemcpyBytesPerCycle, MemsetBytesPerCycle;
  /// The legacy decode pipeline of an Intel core (core.front_end over the
  /// library's entry for the LLVM CPU); nullopt for other cores.
  std::optional<FrontEndModel> FrontEnd;

  unsigned pipeBits() const { return FpPipeBits ? FpPipeBits : SimdBits; }
  /// Elements of ElemBytes one pipe operation processes: the SIMD factor of
  /// the compute ceilings.
  unsigned lanes(unsigned ElemBytes) const {
    return ElemBytes ? std::max(1u, pipeBits() / (8 * ElemBytes)) : 1;
  }
  /// The floating-point pipes: the file's, or when it does not say, every
  /// FMA unit running everything (without FMA, as many add+mul pipes as the
  /// peak implies).
  std::vector<FpUnit> fpPipes() const;
  /// Operations on the busiest pipe when ADD, MUL and FMA operations (one
  /// per pipe and cycle) are spread optimally over fpPipes(): the largest
  /// (operations of a set of kinds) / (pipes running one of them), Hall's
  /// condition. nullopt when no pipe runs a kind that is needed.
  std::optional<double> fpMixCycles(double Add, double Mul, double Fma) const;
};

/// The name the models, reports and machine files give memory beside the
/// cache levels' own names.
inline constexpr const char *MemoryLevelName = "MEM";
inline bool isMemoryLevel(const std::string &Level) { return Level == MemoryLevelName; }

enum class CachePolicy { Inclusive, NonInclusive, Victim };
enum class PrefetchKind { None, NextLine, Stream };

/// The spelling of the machine-file values (policy: inclusive, ...).
inline const char *cachePolicyName(CachePolicy P) {
  return P == CachePolicy::Inclusive      ? "inclusive"
         : P == CachePolicy::NonInclusive ? "non-inclusive"
                                          : "victim";
}
inline const char *prefetchName(PrefetchKind P) {
  return P == PrefetchKind::None ? "none" : P == PrefetchKind::NextLine ? "next-line" : "stream";
}

struct CacheLevel {
  std::string Name;       ///< "L1", "L2", ...
  uint64_t SizeBytes = 0; ///< per instance (per core unless SharedBy > 1)
  unsigned Ways = 0;
  unsigned LineBytes = 0;
  double LatencyCy = 0;
  /// Sustained bytes per cycle from the next level out into this one. For the
  /// last level the link to memory comes from MemoryModel instead.
  std::optional<double> BytesPerCycleFromNext;
  /// Sustained bytes per cycle of write-backs from this level to the next
  /// on a path of their own (AMD's L1-L2 and L2-L3 run both ways at once):
  /// a link then takes max(in / from_next, out / to_next). Unset: evictions
  /// share the from_next path (Intel's ECM rule: in + out).
  std::optional<double> BytesPerCycleToNext;
  /// BytesPerCycleFromNext by the working set one instance of the next level
  /// holds, where the set fits in it; sorted by set. Measured: a stream from
  /// a set small beside the next level can fill slower than one from a set
  /// near its size. Between entries the rate goes linearly in log2 of the
  /// set, beyond them it is the nearest entry's. Empty: one rate for all.
  std::vector<std::pair<uint64_t, double>> FromNextBySet;
  /// Bytes per cycle from the next level of streams that run downwards,
  /// where the set fits in it (measured: the prefetchers may follow them
  /// less well than upward ones). Unset: as upward streams.
  std::optional<double> FromNextDescending;
  /// Bytes per cycle from the next level of streams whose stride is beyond
  /// a line and within the prefetchers' reach (a column walk over short
  /// rows: a new line every iteration, not a run of them). Measured: such
  /// lines fill slower than a sequential stream's. Unset: as sequential.
  std::optional<double> FromNextStrided;
  unsigned SharedBy = 1;
  CachePolicy Policy = CachePolicy::Inclusive;
  PrefetchKind Prefetch = PrefetchKind::None;
  bool WriteAllocate = true;
  /// Line misses this level can have outstanding towards the next (fill
  /// buffers, miss address buffers, the L2's miss queue): with the memory
  /// latency, Little's law bounds what one core draws.
  std::optional<unsigned> MissesInFlight;
  /// Cycles per line of a load stream whose lines all miss here because its
  /// stride crowds them into few of the sets (a column over power-of-two
  /// rows), refilled from the next level: by the sets the stream reaches,
  /// sorted. Measured: such refills overlap less the fewer the sets. Between
  /// entries linear in log2 of the sets, below the first the first's; beyond
  /// the last none applies. Empty: the refills cost what the link's
  /// bandwidth says.
  std::vector<std::pair<unsigned, double>> ConflictMissCyBySets;
  /// ConflictMissCyBySets at SETS sets; nullopt where none applies.
  std::optional<double> conflictMissCycles(unsigned Sets) const;
  /// Cycles per store of a column that loses its line in the few sets its
  /// stride reaches before it commits (a column walk over power-of-two
  /// rows): each waits for its line again, one after the other, longer the
  /// fewer the sets. By sets reached, read as ConflictMissCyBySets; empty:
  /// each waits the next level's latency.
  std::vector<std::pair<unsigned, double>> ConflictStoreCyBySets;
  /// The same for a column stored where nothing else reads through its
  /// sets (aa[j][i] = x): a core may keep more of its lines then (the Zen 4
  /// VM's 4.7 cy at 4 sets against 16 beside a read column). Empty: as
  /// ConflictStoreCyBySets.
  std::vector<std::pair<unsigned, double>> ConflictStoreAloneCyBySets;
  /// ConflictStoreCyBySets (ConflictStoreAloneCyBySets where ALONE and it
  /// is given) at SETS sets; nullopt where none applies.
  std::optional<double> conflictStoreCycles(unsigned Sets, bool Alone = false) const;
  /// Largest constant stride (bytes) this level's stride prefetcher follows;
  /// accesses with larger strides, beyond a line, wait their latency.
  unsigned PrefetchMaxStride = 0;
  /// Whether the prefetchers follow a stream of gathered or scattered
  /// elements a line apart as they follow loads of it (Ice Lake-SP: at the
  /// dense stream's rate); if not (Zen 4 and 5), each line waits
  /// memory.stride_latency_ns.
  bool GathersPrefetched = false;

  uint64_t sets() const { return SizeBytes / (uint64_t(Ways) * LineBytes); }
};

/// The data TLB's last level: a cache of page translations. A miss walks
/// the page tables; in a loop whose accesses are independent the walks
/// overlap, and what each costs the loop was measured (`*_miss_cy`).
struct TlbModel {
  unsigned Entries = 0;
  unsigned Ways = 0;
  uint64_t PageBytes = 4096; ///< the pages the data lives in
  double LoadMissCy = 0;     ///< cycles a loop loses per load that misses
  double StoreMissCy = 0;    ///< and per store
  /// The first-level data TLB in front of it (0 entries: not given). A miss
  /// there that the last level holds takes no walk but holds the load/store
  /// pipes: cycles added to a port-bound loop per such load and store.
  unsigned L1Entries = 0;
  unsigned L1Ways = 0;
  double L1LoadMissCy = 0;
  double L1StoreMissCy = 0;
};

struct MemoryModel {
  double BandwidthGBs = 0;              ///< theoretical peak, 1e9 B/s
  std::optional<double> SustainedGBs;   ///< measured (STREAM-like), if known
  /// The sockets' sustained rates of the other all-core kernels, if known:
  /// SustainedGBs is the triad's, whose traffic is 3/4 fills (write-allocate
  /// counted); these are the load's (all fills), the update's (a = s x a:
  /// half) and the copy's (2/3). A socket's reads and writes need not share
  /// one rate: two Zen 4 VM cores read 31 GB/s in a load-only stream where
  /// their triad moved 36 and a fill 51 (bench/RESULTS.md, 2026-12-07).
  std::optional<double> SustainedLoadGBs, SustainedUpdateGBs, SustainedCopyGBs;
  /// What one core alone sustains (measured), if known: a core cannot pull
  /// the whole socket's bandwidth.
  std::optional<double> OneCoreGBs;
  /// What one core's write-backs (dirty lines evicted to memory) draw, if
  /// measured. Evictions leave through write buffers, not the miss queues
  /// that bound a core's fills, so they have a rate of their own; a DRAM
  /// channel is half-duplex, so their time adds to the fills'. With it the
  /// one-core figure above is the fills' alone; without it write-backs draw
  /// that figure like fills.
  std::optional<double> OneCoreWritebackGBs;
  /// Cycles each line the L1 takes from a cache (not from memory) adds to a
  /// loop whose other lines stream from memory, if measured: on Zen 4 those
  /// refills do not overlap the memory stream (the probe: a copy in memory
  /// with two L2-resident read streams beside it).
  std::optional<double> CacheLineCy;
  std::optional<double> LatencyNs;
  /// What a miss of a stream that the L1's stride prefetcher follows and the
  /// L2's stream prefetcher does not (a stride of two lines or more, a
  /// gather's or scatter's elements on lines of their own) waits, if
  /// measured: pages open and translations cached, so below LatencyNs (a
  /// random line's). Such streams move a line per L1 miss buffer per this
  /// latency, whatever the bandwidth (docs/models.md).
  std::optional<double> StrideLatencyNs;
  std::optional<unsigned> Channels;
  /// GB/s one core's C-library memcpy (bytes written) and memset draw with
  /// their data in memory (glibc streams large ones past the caches).
  std::optional<double> MemcpyOneCoreGBs, MemsetOneCoreGBs;
  /// Little's law when no one-core figure was measured: the misses one core
  /// keeps in flight x line / latency (set by the loader from the caches'
  /// misses_in_flight and latency_ns).
  std::optional<double> LittleGBs;
  std::string LittleBasis; ///< "16 misses in flight (caches.L2) x 64 B / 90 ns"

  /// The bandwidth models should use: sustained when known.
  double effectiveGBs() const { return SustainedGBs ? *SustainedGBs : BandwidthGBs; }
  /// The sockets' rate for traffic of which FILLS is the share that fills
  /// (0-1): the measured kernel whose share is nearest (kerncraft's rule for
  /// its benchmark kernels), else effectiveGBs(). NAME, if given, receives
  /// the key it came from.
  double socketGBs(double Fills, std::string *Name = nullptr) const;
  /// What one core alone draws: measured, else Little's law, else nothing
  /// (a core is then taken to draw the socket's bandwidth).
  std::optional<double> oneCoreGBs() const {
    if (OneCoreGBs)
      return OneCoreGBs;
    if (LittleGBs)
      return std::min(*LittleGBs, effectiveGBs());
    return std::nullopt;
  }
  /// Where oneCoreGBs() comes from, in words ("" when it has no value).
  std::string oneCoreSource() const {
    if (OneCoreGBs)
      return "memory.sustained_one_core_gbs";
    if (LittleGBs)
      return "Little's law: " + LittleBasis +
             (*LittleGBs > effectiveGBs() ? ", capped by the socket's bandwidth" : "");
    return "";
  }
  /// Bandwidth for CORES cores over SOCKETS sockets: the sockets' figure,
  /// or less when the cores cannot draw it (CORES x one core's).
  double gbsFor(unsigned Cores, unsigned Sockets) const {
    double All = effectiveGBs() * std::max(1u, Sockets);
    std::optional<double> One = oneCoreGBs();
    return One ? std::min(All, *One * std::max(1u, Cores)) : All;
  }
  /// Seconds x 1e9 (ns) to move IN bytes from memory and OUT bytes of
  /// write-backs to it with CORES cores over SOCKETS sockets: each core's
  /// fills at its one-core rate plus its write-backs at theirs (when the file
  /// gives one), never faster than the sockets move both.
  double transferNs(double In, double Out, unsigned Cores, unsigned Sockets) const {
    double All = socketGBs(In + Out > 0 ? In / (In + Out) : 1) * std::max(1u, Sockets);
    if (!OneCoreWritebackGBs || !oneCoreGBs()) {
      std::optional<double> One = oneCoreGBs();
      double GBs = One ? std::min(All, *One * std::max(1u, Cores)) : All;
      return GBs > 0 ? (In + Out) / GBs : 0;
    }
    double N = std::max(1u, Cores);
    double PerCores = In / (*oneCoreGBs() * N) + Out / (*OneCoreWritebackGBs * N);
    return All > 0 ? std::max(PerCores, (In + Out) / All) : PerCores;
  }
};

/// The all-core kernels beside the triad (MemoryModel::SustainedGBs, 3/4 of
/// its traffic fills) whose sustained rates a file, a host measurement or a
/// recording may state, in the order socketGBs weighs them.
struct SustainedKernel {
  const char *Key;  ///< under memory.: "sustained_load_gbs"
  const char *Name; ///< "load"
  double Fills;     ///< the share of its traffic that fills
  std::optional<double> MemoryModel::*Field;
};
const std::vector<SustainedKernel> &sustainedKernels();

struct CpuidMatch {
  std::string Vendor; ///< "GenuineIntel", "AuthenticAMD"
  unsigned Family = 0;
  std::vector<unsigned> Models;
  /// LLVM feature names the host must also have: a guest can report another
  /// core's model number (a Granite Rapids VM reports Rocket Lake's 0xa7).
  std::vector<std::string> Features;
};

struct SourceRef {
  std::string Id;
  std::string Cite;                ///< where the numbers come from
  std::vector<std::string> Covers; ///< key-path patterns, '*' matches one segment
};

/// ECM's overlap rule (ecm.overlap): Intel's "none" serialises T_nOL and every
/// transfer; "full" overlaps everything (the AMD cores measured here).
enum class OverlapRule { None, Full };
/// The rule as the machine file and the reports spell it.
inline const char *overlapRuleName(OverlapRule R) { return R == OverlapRule::Full ? "full" : "none"; }

/// What picks a cache link's fill rate where the file states it by working
/// set or by direction: the loop's working set on its cores, and the share
/// of its stream bytes that run downwards.
struct LinkUse {
  std::optional<double> WorkingSet;
  unsigned Cores = 1;
  double Descending = 0;
  /// Per link (index of its inner level): the share of the bytes it brings
  /// in that strided streams bring (a line per iteration each).
  std::vector<double> Strided = {};
};

struct MachineModel {
  std::string Name;
  std::string File; ///< where it was loaded from
  std::vector<std::string> Aliases;
  std::string Triple;
  std::string Cpu; ///< LLVM CPU name, also used for -march/-mcpu
  double ClockGHz = 0;     ///< the clock the models use (base, all-core or AVX)
  std::optional<double> BaseClockGHz; ///< nominal base clock, when ClockGHz differs
  unsigned CoresPerSocket = 0;
  unsigned Sockets = 1;
  CoreModel Core;
  std::vector<CacheLevel> Caches; ///< from the core outwards
  MemoryModel Memory;
  std::optional<TlbModel> Tlb;
  OverlapRule EcmOverlap = OverlapRule::None; ///< ecm.overlap
  /// ecm.tnol_serial_share, used under full overlap: by the level a link
  /// fills from (L2, L3, MEM), the share of its transfers that waits for
  /// the L1's loads and stores (T_nOL) instead of overlapping them.
  std::map<std::string, double> EcmTnolSerialShare;
  /// ecm.recurrence_serial_share, by the level the data are in (L2, L3,
  /// MEM): the share of the smaller of a loop-carried chain's time and the
  /// data's that a loop bound by the chain adds to the larger, its chain
  /// waiting for the lines instead of overlapping their transfer.
  std::map<std::string, double> EcmRecurrenceSerialShare;
  std::optional<CpuidMatch> Cpuid;
  std::vector<SourceRef> Sources;
  std::vector<std::string> Overrides; ///< the --set strings applied, in order
  /// The files of the `base:` chain, nearest first (empty: no base).
  std::vector<std::string> Bases;

  /// The largest stride any level's prefetcher follows (0: only unit strides
  /// and strides within a line are prefetched).
  unsigned prefetchStrideReach() const {
    unsigned R = 0;
    for (const CacheLevel &C : Caches)
      R = std::max(R, C.PrefetchMaxStride);
    return R;
  }
  /// Whether a constant stride of BYTES per iteration escapes the prefetchers.
  bool unprefetchedStride(uint64_t Bytes) const {
    unsigned Line = Caches.empty() ? 64 : Caches.front().LineBytes;
    return Bytes > Line && Bytes > prefetchStrideReach();
  }
  /// Whether a constant stride of BYTES skips lines (two or more apart) but
  /// stays within the stride prefetcher's reach: followed by the L1's stride
  /// prefetcher alone, not by a stream prefetcher of consecutive lines.
  bool sparseStride(uint64_t Bytes) const {
    unsigned Line = Caches.empty() ? 64 : Caches.front().LineBytes;
    return Bytes >= 2 * uint64_t(Line) && !unprefetchedStride(Bytes);
  }
  /// Sockets that CORES cores occupy, filling one socket before the next
  /// (at least one): the memory bandwidth they share.
  unsigned socketsFor(unsigned Cores) const {
    unsigned PerSocket = std::max(CoresPerSocket, 1u);
    return std::max(1u, std::min(Sockets, (Cores + PerSocket - 1) / PerSocket));
  }
  /// Peak flop/s per cycle for the given element size (4 = single, else double).
  double peakFlopsPerCycle(unsigned ElementBytes) const {
    return ElementBytes == 4 ? Core.PeakFlopsPerCycleSingle
                             : Core.PeakFlopsPerCycleDouble;
  }
  const CacheLevel *cache(const std::string &LevelName) const;
  /// Level L's name from the core outwards: a cache's, MEM beyond them.
  std::string levelName(size_t L) const {
    return L < Caches.size() ? Caches[L].Name : MemoryLevelName;
  }
  /// The share of link I's transfers (into cache I from the next level)
  /// that T_nOL does not overlap: 1 under `none`, else the file's
  /// ecm.tnol_serial_share for the level it fills from (0 if unstated).
  double tnolSerialShare(size_t I) const {
    if (EcmOverlap == OverlapRule::None)
      return 1;
    auto It = EcmTnolSerialShare.find(levelName(I + 1));
    return It == EcmTnolSerialShare.end() ? 0 : It->second;
  }
  /// ecm.tnol_serial_share as the reports print it ("L2 0.42, L3 0.29"),
  /// empty where none applies.
  std::string tnolSerialShareText() const;
  /// The last of three or more cache levels when the cores share it (the L3
  /// of every library file): the one a VM keeps a share of; null otherwise.
  const CacheLevel *sharedLastLevel() const {
    return Caches.size() >= 3 && Caches.back().SharedBy > 1 ? &Caches.back() : nullptr;
  }
  /// Bytes per cycle from cache level I+1 into level I (0: not given) for a
  /// loop used as U says: the level's FromNextBySet at the set one instance
  /// of I+1 holds, where it fits there, else BytesPerCycleFromNext; there,
  /// its descending share of the bytes at FromNextDescending; the strided
  /// share of the link's bytes at FromNextStrided.
  double fromNextBytesPerCycle(size_t I, const LinkUse &U = {}) const;
  /// Cycles per byte written of the C library's FUNCTION ("memcpy",
  /// "memset") with its data in LEVEL ("L1", ..., "MEM") at ClockGHz, when
  /// the file states the rate.
  std::optional<double> libraryCyclesPerByte(const std::string &Function,
                                             const std::string &Level) const;
};

struct MachineLoadResult {
  std::optional<MachineModel> Model; ///< set only when there are no errors
  std::vector<MachineDiag> Diags;    ///< errors and warnings, in file order
  bool ok() const { return Model.has_value(); }
};

/// Loads and validates FILE, applying "path=value" overrides (--set) first.
MachineLoadResult loadMachineModel(const std::string &File,
                                   const std::vector<std::string> &Sets = {});
/// Same, from text already in memory; FileName is used in diagnostics only.
MachineLoadResult parseMachineModel(const std::string &Text,
                                    const std::string &FileName,
                                    const std::vector<std::string> &Sets = {});

/// Parses "32KiB", "1.5MiB", "64B". Binary units only; a bare number is an
/// error because it is ambiguous. Returns an error message on failure.
std::optional<uint64_t> parseByteSize(const std::string &Text, std::string &Error);
/// Formats bytes with the largest binary unit that divides them exactly.
std::string formatByteSize(uint64_t Bytes);

/// True when LLVM 19 knows CPU for TRIPLE; otherwise fills Error.
bool checkLLVMCpu(const std::string &Triple, const std::string &Cpu, std::string &Error);

/// The scheduler queues (buffered resources) of LLVM 19's model of CPU and
/// their entries; empty when it has none or does not know the CPU.
std::map<std::string, unsigned> llvmSchedulerQueues(const std::string &Triple,
                                                    const std::string &Cpu);
/// The names of every resource (units and groups) of LLVM 19's model of CPU.
std::vector<std::string> llvmResourceNames(const std::string &Triple, const std::string &Cpu);
/// The ports (resources that are not groups) of LLVM 19's model of CPU and
/// their units; empty when it has none or does not know the CPU.
std::map<std::string, unsigned> llvmPorts(const std::string &Triple, const std::string &Cpu);

} // namespace perfmodel

#endif

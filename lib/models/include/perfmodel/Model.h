//===- Model.h - What every performance model reads and answers -*- C++ -*-===//
//
// The models (Roofline, ECM, PPR; one file each) share one input, the results
// of the earlier stages for one loop, and one summary: a prediction per
// memory level (where the data lives) with its bottleneck. Each model also
// returns its own detail (ECM contributions, Roofline links) for the views.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_MODEL_H
#define PERFMODEL_MODEL_H

#include "perfmodel/InCore.h"
#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Traffic.h"

#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

struct LatencyBound;

struct ModelInput {
  const LoopKernel *Loop = nullptr;
  const MachineModel *Machine = nullptr;
  const TrafficResult *Traffic = nullptr; ///< beyond L1; null: naive count
  /// Traffic's ConflictLoadCyPerIt, also where no traffic result is.
  double ConflictLoadCyPerIt = 0;
  const InCoreResult *InCore = nullptr;   ///< null or !Ok: estimated from counts
  unsigned Cores = 1;                     ///< cores running the loop
  std::optional<double> WorkingSetBytes;  ///< at the bound sizes
  /// The loop's latency bound, computed once for all models (runModels,
  /// which reports its notes once); null: each model computes its own.
  const LatencyBound *Latency = nullptr;
  /// Data-TLB misses beyond touching each page once (null or !Ok: none
  /// counted). Their cycles add to every level's time: a walk and the line
  /// it translates hold one access's queue entry one after the other.
  const TlbMisses *Tlb = nullptr;
  /// Cycles per source iteration that an OpenMP parallel loop's start, split
  /// and join add at the loop's sizes (core.parallel_loop_us over the
  /// iterations of one execution of that loop); 0: none. The threads pay it
  /// together, so it adds to every level's time whatever the cores.
  double ParallelLoopCyPerIt = 0;
};

/// Cycles per source iteration the TLB misses of In cost (0 without them),
/// and the phrase that names them in notes and bottlenecks.
double tlbCyclesPerIt(const ModelInput &In);
std::string tlbWhat(const ModelInput &In);
/// The in-core cost at the loop's sizes: misses of the first-level TLB that
/// the last level holds (TLB.L1*) hold the load/store pipes, so they add to
/// the machine loop's port cycles (and to T_nOL); a recurrence or the front
/// end hides them within its slack. Nullopt when there are none; else the
/// result, with NOTE saying what was added.
std::optional<InCoreResult> inCoreWithL1TlbMisses(const InCoreResult &C, const TlbMisses &TLB,
                                                  const MachineModel &M, std::string &Note);

/// Lines per iteration the L1 takes from a cache rather than from memory
/// when the loop's data streams from memory (the L1's fills less memory's,
/// by TRAFFIC), and the cycles they add there at memory.cache_line_cy (0
/// without the key or the traffic per link): in full beside a stream of a
/// line or more per CL (ITERSPERCL iterations) from memory, in proportion
/// below that, none when nothing comes from memory.
double cacheLinesPerIt(const MachineModel &M, const TrafficResult *Traffic);
double cacheLineCyclesPerIt(const MachineModel &M, const TrafficResult *Traffic,
                            double ItersPerCL);
/// The note that says so: "<LINK> includes <CYCLES> <UNIT> for <LINES> lines
/// per <PER> ..." (LINES per UNIT's iterations, SCALE of them).
std::string cacheLineNote(const MachineModel &M, const TrafficResult *Traffic,
                          const std::string &Link, double Cycles, double Scale,
                          const std::string &Unit, const std::string &Per);

/// What kind of limit a level's prediction is: what the advice follows
/// (the words, with the figures, are in LevelPrediction::Bottleneck).
enum class BoundKind {
  Compute,         ///< the flop peak or mix, the compute instructions
  InCore,          ///< the in-core model's bound (T_OL)
  LoadsStores,     ///< loads and stores into registers (T_nOL, S_DAG(L,S))
  Transfers,       ///< a link's bandwidth, data transfers, regular transfers
  Irregular,       ///< irregular transfers (cache misses)
  Latency,         ///< misses that wait a level's latency
  StridedStream,   ///< only streams the stride prefetcher follows wait memory's latency
  SetConflict,     ///< a column's lines crowd a few of the L1's sets and are refilled
  PointerChase,    ///< chained loads each wait a level's latency
  Chain,           ///< a loop-carried dependence chain
  Tlb,             ///< address translation
  MemorySaturated, ///< the cores saturate the memory bandwidth
  LibraryCall,     ///< a C library call's measured rate
};

/// What to change when the data level is bound by a mechanism every model
/// words alike (TLB misses, streams only the stride prefetcher follows,
/// lines crowding a few L1 sets); empty for the other kinds.
std::string mechanismAdvice(BoundKind K);

/// The prediction for data residing in one level.
struct LevelPrediction {
  std::string Level;      ///< "L1", "L2", ..., "MEM"
  double CyclesPerIt = 0; ///< per source iteration (all cores together)
  double GFlops = 0;      ///< 0 for loops without floating-point work
  std::string Bottleneck; ///< what limits it, in words
  BoundKind Kind = BoundKind::Compute;
};

/// The performance models.
enum class ModelKind { Roofline, Ecm, Ppr };
/// "Roofline", "ECM", "PPR".
const char *modelKindName(ModelKind K);

struct Prediction {
  ModelKind Kind = ModelKind::Roofline;
  std::string name() const { return modelKindName(Kind); }
  bool Ok = false;
  std::string Reason; ///< why not, when !Ok
  std::vector<LevelPrediction> Levels; ///< L1 first, memory last
  std::string DataLevel; ///< where the working set lives ("" if unknown)
  std::string Advice;    ///< the next optimization, for the data level
  /// The prediction at the data level, or memory when it is unknown.
  const LevelPrediction *atDataLevel() const;
};

/// Bytes the instances of cache C hold for CORES cores running one loop: a
/// private cache per core, a shared one per group of the cores that share
/// it (each core's slice of the iterations stays in its own).
double levelCapacity(const CacheLevel &C, unsigned Cores);
/// The share of WS bytes on CORES cores that cache C keeps when the data's
/// pages lie at random physical addresses: a cache whose way spans K pages
/// has K page colours, each holding `ways` pages; a colour that gets more of
/// the set's pages than that loses them all to a sweep (LRU), one that gets
/// fewer keeps them. Pages per colour are binomial. 1 or 0 where a way is a
/// page or less, or the cache is shared (as bytes fit or not).
double keptShare(const CacheLevel &C, double WS, uint64_t PageBytes, unsigned Cores = 1);
/// Where WS bytes live on CORES cores. The first level that keeps all but
/// a percent of them (keptShare, with the pages the file's TLB states;
/// without a TLB, the first whose bytes hold them) and the level before it, which keeps a
/// share of their lines (none below a percent): Level is the one
/// serving most of the lines, Other the other one, OtherShare its share.
struct Residence {
  size_t Level = 0;       ///< index into the caches; caches.size() for memory
  size_t Other = 0;       ///< the level serving the rest of the lines
  double OtherShare = 0;  ///< the lines Other serves (0: none)
};
Residence residence(const MachineModel &M, std::optional<double> WS, unsigned Cores = 1);
/// Level of the memory hierarchy that holds most of WS bytes on CORES
/// cores (residence's), or "MEM".
std::string residentLevel(const MachineModel &M, std::optional<double> WS, unsigned Cores = 1);
/// P's data-level row mixed with R.Other's row by R.OtherShare (the lines
/// each level serves come at its rate), with a note in NOTES.
void mixKeptLines(Prediction &P, const Residence &R, std::vector<std::string> &Notes);

/// Source iterations that consume one cache line of the leading stream
/// (ECM's unit of work): from the in-core model when it ran, else from the
/// widest unit-stride access of the innermost loop.
double iterationsPerLine(const ModelInput &In);
/// The same from the loop's accesses alone (the widest unit-stride one).
double iterationsPerLine(const LoopKernel &K, const MachineModel &M);

/// Bytes per iteration on link I beyond L1 (0: L1-L2, last: LLC-MEM), loads
/// plus evictions, from the traffic model or else the naive count. With
/// INWARD only the lines brought towards the core (misses, write-allocates),
/// not the write-backs.
double linkBytesPerIt(const ModelInput &In, size_t I, bool Inward = false);
/// Sustained bytes per cycle of link I (one core; memory: the socket's, or
/// with ONECORE what one core alone draws when the machine says); a cache's
/// as the loop uses it (U) where the file states rates by set or direction.
double linkBytesPerCycle(const MachineModel &M, size_t I, bool OneCore = false,
                         const LinkUse &U = {});
/// How IN's loop uses the cache links: its working set and cores, and the
/// share of its streams' bytes that run downwards.
LinkUse linkUseOf(const ModelInput &In);
/// Cycles per iteration on link I (one core): the bytes over its bandwidth;
/// where the inner level writes back on a path of its own
/// (bytes_per_cycle_to_next), the slower of the two directions.
double linkCyclesPerIt(const ModelInput &In, size_t I, bool OneCore = false);
/// The same from the byte counts: IN towards the core, OUT written back.
double linkCycles(const MachineModel &M, size_t I, double In, double Out, unsigned Cores = 1,
                  bool OneCore = false, const LinkUse &U = {});
/// "L1L2", "L2L3", "L3Mem": ECM's names of the links.
std::string ecmLinkName(const MachineModel &M, size_t I);

/// What latency bounds with the data in each level (L1, ..., MEM), in cycles
/// per source iteration (0: nothing latency-bound there). Two mechanisms:
/// - a pointer chase: a load on the loop-carried chain whose address the
///   chain computes waits the latency of the level its line lives in (the
///   in-core chain charged the L1's);
/// - irregular misses (the simulator's: indirect, strides beyond a line):
///   no prefetcher covers them, so each waits its level's latency and only
///   the misses in flight overlap: min(the L1's misses_in_flight, the misses
///   of the iterations the reorder buffer holds).
struct LatencyBound {
  std::vector<double> CyPerIt;    ///< per level
  std::vector<std::string> What;  ///< per level, the mechanism in words
  std::vector<BoundKind> Kind;    ///< per level: Latency, StridedStream, PointerChase or SetConflict
  double InFlight = 0;            ///< irregular misses overlapped (0: none)
  std::vector<std::string> Notes; ///< what could not be modelled
  double at(size_t Level) const { return Level < CyPerIt.size() ? CyPerIt[Level] : 0; }
};
LatencyBound latencyBound(const ModelInput &In);
/// In.Latency when the caller computed it, else latencyBound(In) with its
/// notes appended to NOTES (a model run on its own reports them itself).
LatencyBound latencyFor(const ModelInput &In, std::vector<std::string> &Notes);

/// Latency in cycles of level I (0 = L1 ... caches, Caches.size() = memory),
/// 0 when the machine file does not give it.
double levelLatencyCycles(const MachineModel &M, size_t I);

/// Cycles per iteration of the source's math calls (K.MathCalls) that the
/// machine file costs (core.call_cy), and their names for a note: what the
/// models charge for calls when the compiled loop was not analysed.
double sourceCallCycles(const LoopKernel &K, const MachineModel &M, std::string *Names = nullptr);
/// The in-core cycles per source iteration; when the model did not run, the
/// source's costed math calls (0 without).
double inCoreCyclesPerIt(const ModelInput &In);

/// Where the compiler replaced the loop with the C library's memcpy or memset
/// (In.InCore->LibraryCall) and the machine file states that function's
/// measured rate at a level, P's prediction with the data there is the bytes
/// the loop writes at that rate: the code that runs is the library's, not the
/// loop the bounds cost. Returns the note that says so ("" when P is not Ok
/// or no level of it has a rate).
std::string libraryCallLevels(const ModelInput &In, Prediction &P);
/// Bytes the loop writes per source iteration (its stores' elements).
double writtenBytesPerIt(const LoopKernel &K);

/// Compact number formatting used by every text view and note: up to SIG
/// significant digits, no trailing zeros, no exponent for ordinary magnitudes.
std::string formatNumber(double V, int Sig = 3);
/// Cycle counts in the models' own words: three significant digits.
std::string formatCycles(double V);

/// Element size of the loop's floating-point work (4 single, else 8).
unsigned flopElementBytes(const LoopKernel &K);

} // namespace perfmodel

#endif

//===- Traffic.h - Cache-line traffic between memory levels ----*- C++ -*-===//
//
// Two producers of the same result: layer conditions (analytic, from the
// accesses' reuse distances and each level's capacity) and the cache
// simulator replaying the loop nest's address stream. Traffic is given per
// source iteration of the innermost loop, for each link between a level and
// the next one out (L1-L2, L2-L3, ..., LLC-MEM).
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_TRAFFIC_H
#define PERFMODEL_TRAFFIC_H

#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

struct LinkTraffic {
  std::string Inner; ///< "L1"
  std::string Outer; ///< "L2", or "MEM" for the last level
  double LoadBytesPerIt = 0;  ///< lines brought into Inner, in bytes
  double EvictBytesPerIt = 0; ///< dirty lines written back from Inner
  /// Of LoadBytesPerIt, the lines of streams whose innermost stride is
  /// beyond a line and within the prefetchers' reach (a line per iteration
  /// each, not a run of lines): the fill rate of such lines is their own.
  double StridedLoadBytesPerIt = 0;
  double totalBytesPerIt() const { return LoadBytesPerIt + EvictBytesPerIt; }
};

struct LayerCondition {
  std::string Level;
  std::string Text;    ///< "4 rows ... (32*N - 16 B) <= 256 KiB"
  bool Holds = false;  ///< at the bound sizes
  std::string Param;   ///< the single size parameter the condition limits
  std::optional<int64_t> Limit; ///< it holds for Param <= Limit
};

/// Where a loop's traffic beyond L1 comes from.
enum class TrafficSource { LayerConditions, Simulator, Naive };
/// In the reports' words: "layer conditions", "simulator", "naive".
inline const char *trafficSourceName(TrafficSource S) {
  return S == TrafficSource::LayerConditions ? "layer conditions"
         : S == TrafficSource::Simulator     ? "simulator"
                                             : "naive";
}

struct TrafficResult {
  TrafficSource Method = TrafficSource::LayerConditions;
  bool Ok = false;
  std::string Reason; ///< why not, when !Ok
  /// Layer conditions only: a condition that holds for part of a loop's
  /// range and fails for the rest (a triangular nest's footprint crossing a
  /// cache's capacity), in words; layerConditionsAtEdge reports it.
  std::string Edge;
  std::vector<LinkTraffic> Links;
  std::vector<LayerCondition> Conditions;
  /// Simulator only: demand misses per iteration of each level (PPR's
  /// L1_miss, L2_miss, L3_miss) and how much of the nest was replayed.
  std::vector<double> MissesPerIt;
  /// The misses per iteration of each level caused by irregular accesses
  /// (indirect, or an innermost stride beyond a line that no prefetcher
  /// follows): PPR's eq. (3) and the latency bound. The simulator counts
  /// them; the layer conditions give the strided streams' lines.
  std::vector<double> IrregularMissesPerIt;
  uint64_t SimulatedIterations = 0;
  uint64_t TotalIterations = 0;
  /// The iterations the per-iteration figures are averaged over: those
  /// simulated (measured), or the whole nest where the rest was taken at the
  /// rate it had settled to.
  uint64_t RatedIterations = 0;
  /// The enclosing loops' references at L1, per innermost iteration (an
  /// element per iteration of their level): what the Roofline's L1 bytes
  /// add to the innermost loop's own.
  double OuterLoadBytesPerIt = 0, OuterStoreBytesPerIt = 0;
  /// Layer conditions only: stores per iteration whose line the L1 loses
  /// before they commit (a column walk whose lines in flight, a store
  /// queue's worth per stream, overfill the few sets its stride reaches):
  /// each waits for its line again, one after the other.
  double ThrashedStoresPerIt = 0;
  /// Their wait per iteration, in cycles: each at the figure measured for
  /// the sets it reaches (caches.L1.conflict_store_cy_by_sets) or else the
  /// next level's latency; ThrashedStoresMeasured says whether any figure
  /// came from the table, ThrashedStoresAlone whether from the one for a
  /// column no read goes through (conflict_store_alone_cy_by_sets).
  double ThrashedStoreCyPerIt = 0;
  bool ThrashedStoresMeasured = false;
  bool ThrashedStoresAlone = false;
  /// Cycles per iteration of load streams whose lines all miss in the L1's
  /// few sets their stride reaches, refilled one after another from L2
  /// (caches.L1.conflict_miss_cy_by_sets); 0 where none or no figure.
  double ConflictLoadCyPerIt = 0;
  std::vector<std::string> Notes;
};

/// Index data for arrays whose contents decide addresses or bounds.
struct IndexData {
  std::map<std::string, std::vector<int64_t>> Arrays; ///< name -> values
  std::map<std::string, std::string> Origin;          ///< name -> description
  std::map<std::string, int64_t> Sizes; ///< parameters the data implies (nrows)
  /// name -> the lowest and highest value (also without Arrays' values)
  std::map<std::string, std::pair<int64_t, int64_t>> Ranges;
  std::map<std::string, std::string> Specs; ///< name -> its --index spec
};

/// Parses --index NAME=SPEC. SPEC: a Matrix Market file (`m.mtx`, the array
/// gets CSR row pointers when used in loop bounds, column indices otherwise),
/// `uniform:LO:HI[:COUNT[:SEED]]`, `banded:WIDTH[:COUNT[:SEED]]` (element k
/// in [k-WIDTH, k+WIDTH]), `rows:K:ROWS` (CSR row pointers, K entries a
/// row), or a text file of integers. The numbers of
/// uniform and banded may name a size parameter (`uniform:0:n:n`), taken at
/// its current value. Without GENERATE, uniform and banded give their
/// Ranges only (no values drawn).
bool loadIndexSpec(const std::string &Spec, const KernelIR &IR, IndexData &Out,
                   std::string &Error, bool Generate = true);

/// DATA's generated specs (uniform, banded, rows) drawn again at IR's
/// current sizes (validate's sizes); what files hold is kept, not re-read.
bool reloadIndexData(IndexData &Data, const KernelIR &IR, std::string &Error,
                     bool Generate = true);

/// Matrix Market coordinate text to 0-based CSR (rows sorted, symmetric
/// expanded). FILE names it in messages.
bool parseMatrixMarket(llvm::StringRef Text, const std::string &File,
                       std::vector<int64_t> &RowPtr, std::vector<int64_t> &Col,
                       int64_t &Rows, int64_t &Cols, std::string &Error);

/// Matrix Market coordinate file to 0-based CSR (rows sorted, symmetric expanded).
bool readMatrixMarket(const std::string &File, std::vector<int64_t> &RowPtr,
                      std::vector<int64_t> &Col, int64_t &Rows, int64_t &Cols,
                      std::string &Error);

/// Bytes the whole nest touches at the bound sizes (per array, the span from
/// the lowest to the highest byte referenced); nullopt for unknown bounds,
/// and for indirect accesses unless INDEX gives the range of the values
/// their subscripts load.
std::optional<double> workingSetBytes(const LoopKernel &K, const KernelIR &IR,
                                      const IndexData *Index = nullptr);

struct LayerConditionOptions {
  double SafetyFactor = 1.0; ///< fraction of each cache usable for reuse
  /// Arrays start at the same set of caches whose sets span a page or less
  /// (page-aligned heap arrays), rather than independently placed.
  bool AlignedBases = false;
};

TrafficResult layerConditionTraffic(const LoopKernel &K, const KernelIR &IR,
                                    const MachineModel &M,
                                    const LayerConditionOptions &O = {});

/// TrafficResult::ConflictLoadCyPerIt of K's column loads (affine reads a
/// line or more apart an iteration) from the layer conditions of those loads
/// alone: where the loop's own conditions do not apply (an indirect store
/// beside them, an array read at two strides). 0 when none.
double conflictLoadCycles(const LoopKernel &K, const KernelIR &IR, const MachineModel &M);

/// Whether BASE, the layer conditions of K on M, sit at a capacity edge:
/// with every cache a way smaller or larger (its sets kept), or with the
/// arrays on page boundaries rather than placed independently, some link
/// moves by more than 5 % and more than 1 % of the loop's L1 bytes; or a
/// triangular nest's footprint crosses a capacity within its range. There the
/// answer turns on replacement details the conditions approximate (which
/// lines LRU keeps in the sets given one line too many), and `auto` lets the
/// simulator decide. Returns what moved, or "" when the conditions hold
/// their ground.
std::string layerConditionsAtEdge(const TrafficResult &Base, const LoopKernel &K,
                                  const KernelIR &IR, const MachineModel &M);

/// Data-TLB misses per source iteration beyond touching each page once
/// (which every streaming bandwidth already contains): the layer conditions
/// with the machine's TLB as a cache of pages. Ok is false when the machine
/// gives no `tlb` or the layer conditions do not apply (Reason says which).
struct TlbMisses {
  bool Ok = false;
  std::string Reason;
  double LoadsPerIt = 0, StoresPerIt = 0;
  double CyclesPerIt = 0; ///< x the machine's measured cost of each
  /// Misses of the first-level TLB that the last level holds (tlb.l1_*):
  /// no walk, but cycles of the load/store pipes (L1CyclesPerIt).
  double L1LoadsPerIt = 0, L1StoresPerIt = 0;
  double L1CyclesPerIt = 0;
};
TlbMisses tlbMisses(const LoopKernel &K, const KernelIR &IR, const MachineModel &M);

struct SimOptions {
  uint64_t MaxAccesses = 40'000'000; ///< replay budget (slice larger nests)
  bool Prefetch = false;             ///< the machine's prefetchers
  /// The nest runs again and again (an SpMV in a solver, a timed loop): a
  /// nest that ends before the caches are warm is replayed a second time and
  /// that replay is measured, with its dirty lines left in the caches.
  bool Repeated = false;
  /// A whole replay of a rectangular nest stops once its traffic per
  /// iteration has settled and takes the rest at that rate (false: to the end).
  bool Settle = true;
  const IndexData *Index = nullptr;
};

TrafficResult simulateTraffic(const LoopKernel &K, const KernelIR &IR,
                              const MachineModel &M, const SimOptions &O = {});

} // namespace perfmodel

#endif

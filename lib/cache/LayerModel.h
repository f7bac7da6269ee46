//===- LayerModel.h - One nest's layer conditions (internal) ---*- C++ -*-===//
//
// The streams of a nest (accesses to an array grouped by how they move,
// sorted along their direction of travel) and LayerModel, which finds them
// and their footprints once (LayerConditions.cpp) and then, level by level,
// the conditions that hold and the traffic across each link
// (LayerLevels.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_CACHE_LAYERMODEL_H
#define PERFMODEL_CACHE_LAYERMODEL_H

#include "NestGeometry.h"
#include "perfmodel/Traffic.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfmodel::layers {


struct Member {
  const Access *A = nullptr;
  int64_t Offset = 0;  ///< byte offset constant (at the bound sizes)
  Poly OffsetSym;      ///< the same, symbolic in the parameters
  double Gap = std::numeric_limits<double>::infinity(); ///< iterations to the one ahead
  Poly GapBytesSym;    ///< symbolic gap in bytes (finite gaps only)
};

struct Group {
  std::string Array;
  int64_t Advance = 0;     ///< bytes per iteration along the innermost loop
  std::vector<int64_t> LoopAdvance; ///< bytes per iteration of each loop, outermost first
  double StreamBytes = 0;  ///< bytes per iteration the stream moves
  std::vector<Member> Members; ///< leading first

  /// Bytes from the lowest to the highest offset of the members (of those
  /// in ONLY, when given; 0 when none).
  int64_t span(const std::vector<const Access *> *Only = nullptr) const {
    int64_t Lo = std::numeric_limits<int64_t>::max(), Hi = std::numeric_limits<int64_t>::min();
    for (const Member &Mb : Members)
      if (!Only || std::find(Only->begin(), Only->end(), Mb.A) != Only->end()) {
        Lo = std::min(Lo, Mb.Offset);
        Hi = std::max(Hi, Mb.Offset);
      }
    return Hi > Lo ? Hi - Lo : 0;
  }
};

/// Lines of one region (an access's lines between two reuses) and the
/// number of sets they map to (all of them, or fewer for a column whose
/// stride of whole lines shares a factor with the set count).
struct Region {
  double Lines = 0;
  double Sets = 0;
  bool Stays = true; ///< reused by the next pass too (else it moves on)
};

/// Per region, the share of its lines LRU loses before they are reused in a
/// cyclic sweep: those in sets given more lines than WAYS by all regions
/// together (each spread evenly over its sets, its remainder at random,
/// regions placed independently), plus one per line there of a region that
/// moves on (up to its own lines less one).
std::vector<double> lostShares(const std::vector<Region> &Regions, double Sets,
                               unsigned Ways, bool Aligned = false);

/// BYTES as the notes print sizes: whole KiB/MiB as the machine files
/// write them, else three digits.
std::string sizeText(double Bytes);

/// Largest value of PARAM (1 .. 2^40) for which Req(PARAM) <= Cap, given the
/// other bindings; nullopt when it never or always holds in that range.
std::optional<int64_t> solveLimit(const Poly &Req, const std::string &Param,
                                  std::map<std::string, int64_t> B, double Cap);

/// One nest's layer conditions: its streams (groups of accesses to an
/// array moving together) and their footprints found once, then per cache
/// level the conditions and the traffic across its link to the next.
class LayerModel {
public:
  LayerModel(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
             const LayerConditionOptions &O, TrafficResult &R)
      : K(K), IR(IR), M(M), O(O), R(R), B(IR.bindings()), G(K, IR),
        Line(M.Caches[0].LineBytes), Depth(K.Nest.size()) {}

  /// The steps, in order; a false one leaves the reason in R.
  bool groupAccesses();
  void orderGroups();
  bool footprints();
  void level(size_t Index);
  void finish();

private:
  // The nest.
  double requirement(double T) const;
  Poly requirementSym(const Member &TM) const;
  bool dense(const Group &Gr) const;
  double trips(size_t D) const { return G.trips(K.Nest[D]); }
  int64_t outerAdvance(const Group &Gr) const;
  double linesInside(const Group &Gr, size_t D,
                     const std::function<double(size_t)> &TripsOf) const;
  std::optional<double> footAt(size_t D, bool AtFirst) const;
  bool reused(size_t D) const;
  // The level.
  uint64_t setsReached(uint64_t Adv) const;
  uint64_t strideSets(const Group &Gr) const {
    return setsReached(uint64_t(std::abs(Gr.Advance)));
  }
  double innerLines(const Group &Gr) const;
  bool wholeSetFits();
  void thresholdConditions();
  void stridedReuse();
  void windowReuse();
  void outerReuse();
  void streams();

  const LoopKernel &K;
  const KernelIR &IR;
  const MachineModel &M;
  const LayerConditionOptions &O;
  TrafficResult &R;
  const std::map<std::string, int64_t> &B;
  const NestGeometry G;
  const unsigned Line;
  const size_t Depth;
  std::set<std::string> Counters;
  std::vector<Group> Groups;
  std::vector<double> Thresholds;
  /// All streams contiguous and at one common speed: requirements are
  /// exact polynomials in the parameters.
  bool Symbolic = true;
  int64_t CommonAdv = 0;
  bool Rectangular = true; ///< no bound depends on a counter
  /// Per array (all its streams), the lines one execution of the nest
  /// touches: counted, or the byte range where that is exact (a box of a
  /// nest whose bounds do not depend on its counters, swept without skipping
  /// a line); nullopt where neither is known. And whether it is read, written.
  struct ArrayUse {
    std::optional<double> Lines;
    bool Reads = false, Writes = false;
  };
  std::map<std::string, ArrayUse> Arrays;
  /// Footprint of one execution of the nest, for the "everything fits" case.
  double Footprint = 0, ReadFoot = 0, WriteFoot = 0;
  /// Arrays of a one-level nest that every stream walks at one stride of
  /// whole lines (a[16 * i]: every other line): their lines stay in the sets
  /// that stride reaches, so a cache holds them in that share of its sets.
  /// Bytes and stride.
  std::map<std::string, std::pair<double, int64_t>> LineStrided;
  double Iterations = 0;
  std::map<std::pair<std::vector<const Access *>, size_t>, std::optional<double>> Touched; ///< per chain and repeating loops

  // The level being worked on.
  size_t LevelIndex = 0;
  const CacheLevel *Cache = nullptr;
  double Cap = 0;
  uint64_t Sets = 0;
  /// Arrays on pages of their own start in the same set of a cache whose
  /// sets span a page or less (Haswell's L1: 64 x 64 B).
  bool Aligned = false;
  LinkTraffic L;
  double T = 0; ///< the largest threshold whose requirement fits
  /// Per stream: the bytes that cross per iteration; of them, the bytes of
  /// lines a column takes afresh (not slid into from the previous outer
  /// iteration: where its members straddle a line these are two lines, not
  /// one); and the share reloaded across outer loops.
  std::vector<double> Moved, Fresh, Reload;
  double Trip = 0;     ///< the innermost loop's trips
  double OuterReq = 0; ///< one inner loop's lines of every stream, in bytes
};

} // namespace perfmodel::layers

#endif

//===- NestGeometry.h - Ranges of a loop nest's counters (internal) -------===//
//
// Shared by the layer conditions and the simulator: a nest's counters with
// their ranges at the bound sizes, the bytes an access spans, the outer
// loops' own references, and the start of every TrafficResult.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_NESTGEOMETRY_H
#define PERFMODEL_NESTGEOMETRY_H

#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Traffic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfmodel {

/// Value ranges of the counters of a nest at the bound sizes. Bounds may
/// depend linearly on outer counters (triangular nests); ranges then cover
/// every outer value.
class NestGeometry {
public:
  NestGeometry(const LoopKernel &K, const KernelIR &IR);
  bool ok() const { return Reason.empty(); }
  const std::string &reason() const { return Reason; }
  std::set<std::string> counters() const;
  /// Inclusive range of a counter.
  std::pair<int64_t, int64_t> range(const std::string &Counter) const {
    return Ranges.at(Counter);
  }
  /// Iterations of level L over its counter's whole range (the bounding
  /// box's side for a triangular nest).
  double trips(const LoopLevel &L) const {
    auto [Lo, Hi] = range(L.Var);
    int64_t St = L.Step < 0 ? -L.Step : L.Step;
    return St ? std::max(0.0, std::floor(double(Hi - Lo) / double(St)) + 1) : 0.0;
  }
  /// Points of K's loops 0..LAST together (their bounding box).
  double points(const LoopKernel &K, size_t Last) const {
    double P = 1;
    for (size_t D = 0; D <= Last && D < K.Nest.size(); ++D)
      P *= trips(K.Nest[D]);
    return P;
  }
  /// Smallest and largest byte offset an affine access reaches.
  std::optional<std::pair<int64_t, int64_t>> byteRange(const Access &A) const;
  /// Iterations of the innermost body over the whole nest: counted by
  /// walking the outer loops when they have at most 2^16 points, else
  /// triangular nests evaluated at the middle of the outer ranges.
  double totalIterations() const { return Iterations; }
  /// Points of the outer loops' bounding box (every loop but the innermost).
  double outerBoxPoints() const { return OuterBox; }

private:
  /// Min and max of a polynomial linear in counters over their ranges.
  std::optional<std::pair<int64_t, int64_t>> extremes(const Poly &P) const;

  const std::map<std::string, int64_t> &Bindings; ///< the IR's (KernelIR::bindings)
  std::map<std::string, std::pair<int64_t, int64_t>> Ranges;
  double Iterations = 0;
  double OuterBox = 1;
  std::string Reason;
};

/// Bytes of the distinct cache lines MEMBERS (accesses to one array) touch
/// over one execution of the nest, counted by walking the outer loops with
/// their exact bounds (a triangular nest touches half its bounding box).
/// nullopt when an access is not affine, an inner stride skips lines, or the
/// outer loops have more than 2^17 points per access: then the byte range is
/// the estimate. With FIXED > 0 the FIXED outermost loops run one iteration
/// (at their lower bounds): the lines of one pass of the loops inside them.
std::optional<double> touchedBytes(const NestGeometry &G, const LoopKernel &K,
                                   const KernelIR &IR,
                                   const std::vector<const Access *> &Members,
                                   unsigned LineBytes, size_t Fixed = 0);

/// Whether A, one of K's OuterAccesses, is K's own: in the body of a loop
/// of K's nest that holds no other inner loop.
inline bool ownOuterReference(const Access &A, const LoopKernel &K) {
  return !A.SharedOuter && A.OuterLevel >= 0 && size_t(A.OuterLevel) + 1 < K.Nest.size();
}

/// Adds to R (K's layer-condition traffic, G its geometry) the references of
/// K's enclosing loops' bodies at their own rate (OuterAccesses.cpp), with a
/// note naming them; ALIGNEDBASES: the arrays start on page boundaries
/// (their same elements share a set).
void addOuterTraffic(const LoopKernel &K, const NestGeometry &G, const KernelIR &IR,
                     const MachineModel &M, TrafficResult &R, bool AlignedBases = false);

/// Sets R's OuterLoadBytesPerIt and OuterStoreBytesPerIt: K's enclosing
/// loops' references, an element per iteration of their level.
void outerL1Bytes(const LoopKernel &K, const NestGeometry &G, TrafficResult &R);

/// A TrafficResult for METHOD, with Reason set when the loop or the machine
/// gives nothing to compute traffic for.
inline TrafficResult startTraffic(TrafficSource Method, const LoopKernel &K,
                                  const MachineModel &M) {
  TrafficResult R;
  R.Method = Method;
  if (!K.Modelled)
    R.Reason = "loop not modelled";
  else if (M.Caches.empty())
    R.Reason = "the machine model has no caches";
  return R;
}

} // namespace perfmodel

#endif

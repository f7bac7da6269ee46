//===- Fit.cpp - The ECM overlap rule fitted to per-level timings ---------===//
//
// The bandwidth of a level measured with a load kernel is the whole
// hierarchy's rate: under the non-overlapping rule it already contains the
// in-core time and the transfers of the closer links, under full overlap it
// is the slowest of them. Writing it as a link bandwidth without saying
// which rule produced it makes ECM add what the measurement overlapped.
// So the probe fits both rules to four kernels with different lines per
// link and keeps the one that explains them.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Probe.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace perfmodel;

namespace {

// Lines each kernel moves per line of its streams (load, copy, update,
// triad): fills (write-allocates included) and write-backs.
constexpr std::array<double, 4> Fills = {1, 2, 1, 3};
constexpr std::array<double, 4> Writebacks = {0, 1, 1, 1};

std::array<double, 4> kernels(const LevelTimes &T) { return {T.Load, T.Copy, T.Update, T.Triad}; }

/// A link's cycles per line filled and per line written back. Write-backs
/// share the fills' path (their times add) or have one of their own
/// (DUPLEX: the slower direction decides; each direction at its own rate,
/// as AMD's L1-L2 paths, 32 B a cycle each way, where an in-place update
/// can wait on its write-backs while a copy waits on its two fills).
struct LinkTime {
  double Fill = 0, Writeback = 0;
  bool Duplex = false;
  double cycles(size_t K) const {
    return Duplex ? std::max(Fills[K] * Fill, Writebacks[K] * Writeback)
                  : Fills[K] * Fill + Writebacks[K] * Writeback;
  }
};

struct RuleFit {
  std::vector<LinkTime> T; // per link
  double Residual = 0;     // mean relative error over the levels beyond L1
  std::vector<LevelTimes> Predicted;
};

/// Time of kernel K in the level reached through LINKS under rule FULL.
double predict(bool Full, double Core, size_t K, const std::vector<LinkTime> &Links) {
  double P = Core;
  for (const LinkTime &T : Links)
    P = Full ? std::max(P, T.cycles(K)) : P + T.cycles(K);
  return P;
}

/// The candidate times of the link into a level: the relative-error sum is
/// piecewise linear in them, so its minimum lies where as many kernels as
/// there are unknowns are matched exactly. A cache link: one time for every
/// line on a shared path, or fills and write-backs on paths of their own
/// (AMD's L1-L2 and L2-L3 run both ways at once), each direction's time
/// matched by one kernel; memory: fills and write-backs apart and added (two
/// kernels matched), as a DRAM channel turns between them while a core's
/// fills wait in its miss queues.
std::vector<LinkTime> candidates(bool Full, bool Memory, const std::array<double, 4> &Core,
                                 const std::array<double, 4> &Meas,
                                 const std::vector<LinkTime> &Before) {
  std::array<double, 4> Own; // what this link must take for each kernel
  for (size_t K = 0; K < 4; ++K)
    Own[K] = Full ? Meas[K] : Meas[K] - predict(false, Core[K], K, Before);
  std::vector<LinkTime> C;
  for (size_t J = 0; J < 4; ++J) {
    if (Meas[J] <= 0)
      continue;
    double T = std::max(Own[J] / (Fills[J] + Writebacks[J]), 1e-3);
    C.push_back({T, T});
    if (!Memory) {
      double F = std::max(Own[J] / Fills[J], 1e-3);
      C.push_back({F, F, true});
      for (size_t K = 0; K < 4; ++K)
        if (K != J && Meas[K] > 0 && Writebacks[K] > 0)
          C.push_back({F, std::max(Own[K] / Writebacks[K], 1e-3), true});
      continue;
    }
    for (size_t K = J + 1; K < 4; ++K) {
      double Det = Fills[J] * Writebacks[K] - Fills[K] * Writebacks[J];
      if (Meas[K] <= 0 || Det == 0)
        continue;
      double F = (Own[J] * Writebacks[K] - Own[K] * Writebacks[J]) / Det;
      double W = (Fills[J] * Own[K] - Fills[K] * Own[J]) / Det;
      C.push_back({std::max(F, 1e-3), std::max(W, 1e-3)});
    }
  }
  return C;
}

RuleFit fitRule(bool Full, const std::vector<LevelTimes> &Times) {
  RuleFit F;
  std::array<double, 4> Core = kernels(Times.front());
  double ErrorSum = 0;
  unsigned Count = 0;
  for (size_t L = 1; L < Times.size(); ++L) {
    std::array<double, 4> Meas = kernels(Times[L]);
    LinkTime Best;
    double BestErr = INFINITY;
    for (const LinkTime &T : candidates(Full, isMemoryLevel(Times[L].Level), Core, Meas, F.T)) {
      std::vector<LinkTime> Links = F.T;
      Links.push_back(T);
      double Err = 0;
      for (size_t J = 0; J < 4; ++J)
        if (Meas[J] > 0)
          Err += std::fabs(predict(Full, Core[J], J, Links) - Meas[J]) / Meas[J];
      if (Err < BestErr - 1e-12)
        BestErr = Err, Best = T;
    }
    F.T.push_back(Best);
    std::array<double, 4> P;
    for (size_t J = 0; J < 4; ++J) {
      P[J] = predict(Full, Core[J], J, F.T);
      if (Meas[J] > 0) {
        ErrorSum += std::fabs(P[J] - Meas[J]) / Meas[J];
        ++Count;
      }
    }
    F.Predicted.push_back({Times[L].Level, P[0], P[1], P[2], P[3]});
  }
  F.Residual = Count ? ErrorSum / Count : 0;
  return F;
}

} // namespace

OverlapFit perfmodel::fitEcmOverlap(const std::vector<LevelTimes> &Times,
                                    std::optional<OverlapRule> Prefer) {
  OverlapFit Out;
  if (Times.size() < 2)
    return Out;
  RuleFit None = fitRule(false, Times), Full = fitRule(true, Times);
  Out.ResidualNone = None.Residual;
  Out.ResidualFull = Full.Residual;
  // Ties go to `none`, the rule that assumes less overlap; close fits to
  // the rule preferred.
  bool PickFull = Full.Residual < None.Residual;
  if (Prefer && std::fabs(Full.Residual - None.Residual) < 0.02) {
    PickFull = *Prefer == OverlapRule::Full;
    Out.Preferred = true;
  }
  Out.Rule = PickFull ? OverlapRule::Full : OverlapRule::None;
  for (const LinkTime &T : (PickFull ? Full : None).T) {
    Out.CyclesPerLine.push_back(T.Fill);
    Out.Duplex.push_back(T.Duplex);
    Out.WritebackCyclesPerLine.push_back(T.Writeback);
  }
  if (isMemoryLevel(Times.back().Level) && !Out.CyclesPerLine.empty())
    Out.MemWritebackCyclesPerLine = (PickFull ? Full : None).T.back().Writeback;
  Out.Predicted = PickFull ? Full.Predicted : None.Predicted;
  return Out;
}

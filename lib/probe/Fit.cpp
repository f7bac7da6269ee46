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

constexpr std::array<double, 4> LinesPerLink = {1, 3, 2, 4}; // load, copy, update, triad

std::array<double, 4> kernels(const LevelTimes &T) { return {T.Load, T.Copy, T.Update, T.Triad}; }

struct RuleFit {
  std::vector<double> T; // cycles per line per link
  double Residual = 0;   // mean relative error over the levels beyond L1
  std::vector<LevelTimes> Predicted;
};

/// Time of kernel K in the level reached through the first LINKS.size()
/// links under RULE.
double predict(bool Full, double Core, double Lines, const std::vector<double> &Links) {
  double P = Core;
  for (double T : Links)
    P = Full ? std::max(P, Lines * T) : P + Lines * T;
  return P;
}

RuleFit fitRule(bool Full, const std::vector<LevelTimes> &Times) {
  RuleFit F;
  std::array<double, 4> Core = kernels(Times.front());
  double ErrorSum = 0;
  unsigned Count = 0;
  for (size_t L = 1; L < Times.size(); ++L) {
    std::array<double, 4> Meas = kernels(Times[L]);
    // The relative-error sum is piecewise linear in this link's time, so its
    // minimum lies where one kernel is matched exactly: try each.
    double BestT = 0, BestErr = INFINITY;
    for (size_t K = 0; K < 4; ++K) {
      if (Meas[K] <= 0)
        continue;
      double Before = predict(Full, Core[K], LinesPerLink[K], F.T);
      double T = Full ? Meas[K] / LinesPerLink[K] : (Meas[K] - Before) / LinesPerLink[K];
      T = std::max(T, 1e-3);
      std::vector<double> Links = F.T;
      Links.push_back(T);
      double Err = 0;
      for (size_t J = 0; J < 4; ++J)
        if (Meas[J] > 0)
          Err += std::fabs(predict(Full, Core[J], LinesPerLink[J], Links) - Meas[J]) / Meas[J];
      if (Err < BestErr)
        BestErr = Err, BestT = T;
    }
    F.T.push_back(BestT);
    std::array<double, 4> P;
    for (size_t J = 0; J < 4; ++J) {
      P[J] = predict(Full, Core[J], LinesPerLink[J], F.T);
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

OverlapFit perfmodel::fitEcmOverlap(const std::vector<LevelTimes> &Times) {
  OverlapFit Out;
  if (Times.size() < 2)
    return Out;
  RuleFit None = fitRule(false, Times), Full = fitRule(true, Times);
  Out.ResidualNone = None.Residual;
  Out.ResidualFull = Full.Residual;
  // Ties go to `none`, the rule that assumes less overlap.
  bool PickFull = Full.Residual < None.Residual;
  Out.Rule = PickFull ? "full" : "none";
  Out.CyclesPerLine = PickFull ? Full.T : None.T;
  Out.Predicted = PickFull ? Full.Predicted : None.Predicted;
  return Out;
}

//===- Analysis.cpp - The headline rule and what its advice promises ------===//
//
// The rule fixed in advance that picks the headline among the models that
// ran (ECM, else PPR, else the Roofline), and what following its advice can
// save at most.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Analysis.h"

#include <algorithm>

using namespace perfmodel;

std::vector<const Prediction *> LoopReport::predictions() const {
  std::vector<const Prediction *> P;
  if (Roofline)
    P.push_back(&Roofline->Summary);
  if (Ecm)
    P.push_back(&Ecm->Summary);
  if (Ppr)
    P.push_back(&Ppr->Summary);
  return P;
}

const Prediction *LoopReport::headline() const {
  // Additive models (in-core plus every transfer) predict; the Roofline is
  // an optimistic bound, so it heads only when nothing else ran.
  if (Ecm && Ecm->Summary.Ok)
    return &Ecm->Summary;
  if (Ppr && Ppr->Summary.Ok)
    return &Ppr->Summary;
  if (Roofline && Roofline->Summary.Ok)
    return &Roofline->Summary;
  return nullptr;
}

const LevelPrediction *LoopReport::headlineLevel() const {
  const Prediction *P = headline();
  return P ? P->atDataLevel() : nullptr;
}

double LoopReport::promisedGainCyclesPerIt() const {
  const Prediction *P = headline();
  const LevelPrediction *At = P ? P->atDataLevel() : nullptr;
  if (!At || P->Levels.empty())
    return 0;
  // Transfers bind when the same model is faster with the data in L1:
  // blocking or fusing can save at most the difference.
  double InL1 = P->Levels.front().CyclesPerIt;
  if (At->CyclesPerIt > InL1 * 1.0001)
    return At->CyclesPerIt - InL1;
  // The core binds: lifting its binding bound leaves the next one.
  if (!InCore || !InCore->Ok || InCore->Cycles <= 0)
    return 0;
  const InCoreResult &IC = *InCore;
  std::vector<double> Bounds = {IC.PortBound, IC.FrontEndBound, IC.RecurrenceBound};
  std::sort(Bounds.rbegin(), Bounds.rend());
  double PerIt = IC.SourceItersPerIter > 0 ? IC.SourceItersPerIter : 1;
  double Next = Bounds[1] / PerIt, Now = Bounds[0] / PerIt;
  // Scale to the headline's own in-core figure (it may add load/store time).
  return std::max(0.0, (Now - Next) * std::min(1.0, At->CyclesPerIt / std::max(Now, 1e-12)));
}

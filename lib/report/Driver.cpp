//===- Driver.cpp - Running the models on one loop's stage results --------===//
#include "perfmodel/Report.h"

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

void perfmodel::runModels(LoopReport &LR, const KernelIR &IR, const MachineModel &M,
                          const ModelSelection &S, const IndexData *Index) {
  const LoopKernel &K = *LR.Loop;
  if (!K.Modelled)
    return;
  ModelInput In;
  In.Loop = &K;
  In.Machine = &M;
  In.Cores = S.Cores;
  // The simulator sees conflicts and reuse across outer loops; the layer
  // conditions are the fallback, the naive count the last resort.
  if (LR.Simulated && LR.Simulated->Ok)
    In.Traffic = &*LR.Simulated;
  else if (LR.Conditions && LR.Conditions->Ok)
    In.Traffic = &*LR.Conditions;
  // Also when it failed: the models check Ok, and PPR names the reason.
  if (LR.InCore)
    In.InCore = &*LR.InCore;
  LR.WorkingSetBytes = workingSetBytes(K, IR, Index);
  LR.Iterations = nestIterations(K, IR, Index ? &Index->Arrays : nullptr);
  In.WorkingSetBytes = LR.WorkingSetBytes;
  if (M.Tlb) {
    LR.Tlb = tlbMisses(K, IR, M);
    In.Tlb = &*LR.Tlb;
  }
  // The Roofline table is the report's backbone (bytes, intensities): always.
  // The latency bound once for every model; its notes once, with the
  // Roofline (the report's backbone, always run).
  LatencyBound Latency = latencyBound(In);
  In.Latency = &Latency;
  LR.Roofline = roofline(In);
  LR.Roofline->Notes.insert(LR.Roofline->Notes.end(), Latency.Notes.begin(),
                            Latency.Notes.end());
  if (S.Ecm)
    LR.Ecm = ecm(In);
  if (S.Ppr)
    LR.Ppr = ppr(In);
}

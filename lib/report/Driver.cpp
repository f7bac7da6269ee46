//===- Driver.cpp - Running the models on one loop's stage results --------===//
#include "perfmodel/Report.h"
#include "perfmodel/StageTimes.h"

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
  StageScope Timed(Stage::Models);
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
  std::optional<InCoreResult> CoreAtSizes;
  std::string CoreAtSizesNote;
  if (M.Tlb) {
    LR.Tlb = tlbMisses(K, IR, M);
    In.Tlb = &*LR.Tlb;
    if (LR.InCore)
      CoreAtSizes = inCoreWithL1TlbMisses(*LR.InCore, *LR.Tlb, M, CoreAtSizesNote);
    if (CoreAtSizes)
      In.InCore = &*CoreAtSizes;
  }
  // The Roofline table is the report's backbone (bytes, intensities): always.
  // The latency bound once for every model; its notes once, with the
  // Roofline (the report's backbone, always run).
  LatencyBound Latency = latencyBound(In);
  In.Latency = &Latency;
  LR.Roofline = roofline(In);
  LR.Roofline->Notes.insert(LR.Roofline->Notes.end(), Latency.Notes.begin(),
                            Latency.Notes.end());
  if (CoreAtSizes)
    LR.Roofline->Notes.push_back(CoreAtSizesNote);
  if (S.Ecm)
    LR.Ecm = ecm(In);
  if (S.Ppr)
    LR.Ppr = ppr(In);
  if (LR.InCore && !LR.InCore->LibraryCall.empty())
    predictLibraryCall(LR, M);
}

void perfmodel::predictLibraryCall(LoopReport &LR, const MachineModel &M) {
  // The loop runs the C library's memcpy or memset, not the loop the models
  // cost: at every level where the machine file states that function's
  // measured rate, the Roofline and ECM predict the bytes the loop writes
  // at it. Levels without a rate keep the models' own figures.
  const std::string &Fn = LR.InCore->LibraryCall;
  double Written = 0;
  for (const Access &A : LR.Loop->Accesses)
    Written += A.Write ? A.ElementBytes : 0;
  if (Written <= 0)
    return;
  // The levels the file states a rate for, in the models' order.
  std::vector<std::string> Used;
  for (const CacheLevel &C : M.Caches)
    if (M.libraryCyclesPerByte(Fn, C.Name))
      Used.push_back(C.Name);
  if (M.libraryCyclesPerByte(Fn, "MEM"))
    Used.push_back("MEM");
  bool Changed = false;
  for (Prediction *P : {LR.Roofline ? &LR.Roofline->Summary : nullptr,
                        LR.Ecm ? &LR.Ecm->Summary : nullptr}) {
    if (!P || !P->Ok)
      continue;
    for (LevelPrediction &L : P->Levels) {
      std::optional<double> CyPerByte = M.libraryCyclesPerByte(Fn, L.Level);
      if (!CyPerByte)
        continue;
      Changed = true;
      L.CyclesPerIt = Written * *CyPerByte;
      L.GFlops = 0;
      L.Bottleneck = "the C library's " + Fn + " (" + formatNumber(1 / *CyPerByte) +
                     " B/cy with its data in " + L.Level + ", measured)";
      L.Kind = BoundKind::LibraryCall;
    }
  }
  // ECM's table and its { ... ] ... } line say the same per cache line.
  if (LR.Ecm && LR.Ecm->Summary.Ok)
    for (size_t I = 0; I < LR.Ecm->Levels.size() && I < LR.Ecm->Predictions.size(); ++I)
      if (std::optional<double> CyPerByte = M.libraryCyclesPerByte(Fn, LR.Ecm->Levels[I]))
        LR.Ecm->Predictions[I] = Written * *CyPerByte * LR.Ecm->ItersPerCL;
  if (!Changed || !LR.Roofline)
    return;
  std::string Levels, Key = Fn == "memset" ? "memset" : "memcpy";
  for (const std::string &L : Used)
    Levels += (Levels.empty() ? "" : ", ") + L;
  std::string Note = "the compiler replaced the loop with " + Fn + ": the predictions with the "
                     "data in " + Levels + " are the C library's measured rate (" +
                     formatNumber(Written) + " B written per iteration; core." + Key +
                     "_bytes_per_cy, memory." + Key + "_one_core_gbs), not the loop's bounds "
                     "in the tables";
  LR.Roofline->Notes.push_back(Note);
  if (LR.Ecm)
    LR.Ecm->Notes.push_back(Note);
}

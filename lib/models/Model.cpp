//===- Model.cpp - Shared helpers of the performance models ----------------===//
#include "perfmodel/Model.h"
#include "perfmodel/Roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace perfmodel;

const LevelPrediction *Prediction::atDataLevel() const {
  for (const LevelPrediction &L : Levels)
    if (L.Level == DataLevel)
      return &L;
  return Levels.empty() ? nullptr : &Levels.back();
}

std::string perfmodel::residentLevel(const MachineModel &M, std::optional<double> WS) {
  if (!WS)
    return "MEM";
  for (const CacheLevel &C : M.Caches)
    if (*WS <= double(C.SizeBytes))
      return C.Name;
  return "MEM";
}

unsigned perfmodel::flopElementBytes(const LoopKernel &K) {
  return K.Double.total() == 0 && K.Single.total() > 0 ? 4 : 8;
}

double perfmodel::inCoreCyclesPerIt(const ModelInput &In) {
  const InCoreResult *IC = In.InCore;
  if (!IC || !IC->Ok || IC->SourceItersPerIter <= 0)
    return 0;
  return IC->Cycles / IC->SourceItersPerIter;
}

double perfmodel::iterationsPerLine(const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  double Line = M.Caches.empty() ? 64 : M.Caches.front().LineBytes;
  if (In.InCore && In.InCore->Ok && In.InCore->BytesPerSourceIt > 0)
    return Line / In.InCore->BytesPerSourceIt;
  // The widest access that advances one element per iteration.
  const LoopKernel &K = *In.Loop;
  const std::string &Var = K.innermost().Var;
  double Bytes = 0;
  for (const Access &A : K.Accesses) {
    if (!A.Linear || A.Indirect)
      continue;
    if (A.Linear->degreeIn(Var) != 1)
      continue;
    Poly C = A.Linear->coefficientOf(Var);
    if (!C.isConstant())
      continue;
    int64_t Coef = C.constantTerm() * K.innermost().Step;
    if (Coef == 1 || Coef == -1)
      Bytes = std::max(Bytes, double(A.StrideBytes));
  }
  return Line / (Bytes > 0 ? Bytes : 8);
}

double perfmodel::linkBytesPerIt(const ModelInput &In, size_t I, bool Inward) {
  const MachineModel &M = *In.Machine;
  if (In.Traffic && In.Traffic->Ok && In.Traffic->Links.size() == M.Caches.size() &&
      I < In.Traffic->Links.size())
    return Inward ? In.Traffic->Links[I].LoadBytesPerIt
                  : In.Traffic->Links[I].totalBytesPerIt();
  NaiveTraffic T = naiveTraffic(*In.Loop, M);
  return Inward ? T.LoadBytes + T.WriteAllocateBytes : T.beyondL1Bytes();
}

double perfmodel::linkBytesPerCycle(const MachineModel &M, size_t I, bool OneCore) {
  if (I + 1 < M.Caches.size())
    return M.Caches[I].BytesPerCycleFromNext.value_or(0);
  double GBs = OneCore ? M.Memory.gbsFor(1, 1) : M.Memory.effectiveGBs();
  return M.ClockGHz > 0 ? GBs / M.ClockGHz : 0;
}

std::string perfmodel::ecmLinkName(const MachineModel &M, size_t I) {
  std::string Outer = I + 1 < M.Caches.size() ? M.Caches[I + 1].Name : "Mem";
  return M.Caches[I].Name + Outer;
}

std::string perfmodel::formatCycles(double V) {
  char Buf[32];
  if (std::fabs(V) >= 100)
    std::snprintf(Buf, sizeof Buf, "%.0f", V);
  else
    std::snprintf(Buf, sizeof Buf, "%.3g", V);
  return Buf;
}

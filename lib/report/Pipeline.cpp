//===- Pipeline.cpp - In-core, traffic and models for every loop ----------===//
#include "perfmodel/Pipeline.h"

#include <algorithm>

using namespace perfmodel;

std::optional<TrafficMethod> perfmodel::trafficMethodNamed(const std::string &Name) {
  static const std::pair<const char *, TrafficMethod> Names[] = {
      {"auto", TrafficMethod::Auto}, {"lc", TrafficMethod::LayerConditions},
      {"sim", TrafficMethod::Simulator}, {"both", TrafficMethod::Both}, {"none", TrafficMethod::None}};
  for (const auto &[N, P] : Names)
    if (Name == N)
      return P;
  return std::nullopt;
}

std::optional<InCoreBasis> perfmodel::inCoreBasisNamed(const std::string &Name) {
  static const std::pair<const char *, InCoreBasis> Names[] = {
      {"compiled", InCoreBasis::Compiled},
      {"steady", InCoreBasis::Steady},
      {"source", InCoreBasis::Source}};
  for (const auto &[N, B] : Names)
    if (Name == N)
      return B;
  return std::nullopt;
}

InCoreOptions perfmodel::inCoreOptionsFor(const MachineModel &M, const PipelineOptions &O) {
  InCoreOptions IO = inCoreOptionsFor(M);
  IO.Splits.AssumedAlign = O.AssumeAlign;
  return IO;
}

bool perfmodel::allStoresNonTemporal(const InCoreResult &IC) {
  unsigned Stores = 0, NonTemporal = 0;
  for (const InstrCost &I : IC.Instrs) {
    if (!I.MayStore)
      continue;
    ++Stores;
    NonTemporal += I.NonTemporal;
  }
  return Stores > 0 && NonTemporal == Stores;
}

void perfmodel::modelLoops(AnalysisReport &R, const KernelIR &IR, const MachineModel &M,
                           const PipelineOptions &O, const std::vector<InCoreResult> *Known) {
  R.IR = &IR;
  R.Machine = &M;
  R.Models = O.Models;
  if (!M.Memory.SustainedGBs)
    R.Notes.push_back("memory: the machine model has no sustained bandwidth; the "
                      "theoretical " + formatNumber(M.Memory.BandwidthGBs) +
                      " GB/s bounds the memory level" +
                      (M.Memory.oneCoreGBs() ? " of the socket (one core alone: " +
                                                   formatNumber(*M.Memory.oneCoreGBs()) +
                                                   " GB/s, " + M.Memory.oneCoreSource() + ")"
                                             : std::string()));
  // auto: the analytic layer conditions, and the simulator only where they
  // do not apply (indirect or non-uniform accesses) or are not decisive;
  // replaying every loop of a large file would cost far more than compiling
  // it.
  bool Auto = O.Cache == TrafficMethod::Auto;
  bool RunLC = Auto || O.Cache == TrafficMethod::LayerConditions || O.Cache == TrafficMethod::Both;
  bool RunSim = O.Cache == TrafficMethod::Simulator || O.Cache == TrafficMethod::Both;
  auto Selected = [&](const LoopKernel &K) { return K.Modelled && (!O.Select || O.Select(K)); };
  std::vector<InCoreResult> InCore;
  if (Known)
    InCore = *Known;
  else if (O.InCore && std::any_of(IR.Loops.begin(), IR.Loops.end(), Selected))
    InCore = analyzeKernelLoops(IR, O.CompileArgs, inCoreOptionsFor(M, O));
  for (size_t LI = 0; LI < IR.Loops.size(); ++LI) {
    const LoopKernel &K = IR.Loops[LI];
    if (O.Select && !O.Select(K))
      continue;
    LoopReport LR;
    LR.Loop = &K;
    if (K.Modelled && O.Basis == InCoreBasis::Source)
      LR.InCore = sourceInCore(K, M, LI < InCore.size() ? &InCore[LI] : nullptr);
    else if (LI < InCore.size() && K.Modelled) {
      LR.InCore = InCore[LI];
      InCoreOptions IO = inCoreOptionsFor(M, O);
      splitsAtSizes(*LR.InCore, K, IR.bindings(), IO);
      if (O.Basis == InCoreBasis::Compiled) {
        executeNest(*LR.InCore, K, IR.bindings(), IO);
        // Inner bounds loaded from memory (CSR rows): the mean row of the
        // index data (--index), as executed.
        if (!LR.InCore->Executed.Ok && K.Nest.size() >= 2 && O.Sim.Index &&
            !O.Sim.Index->Arrays.empty()) {
          LoopKernel Outer = K;
          Outer.Nest.pop_back();
          auto All = nestIterations(K, IR, &O.Sim.Index->Arrays);
          auto Rows = nestIterations(Outer, IR, &O.Sim.Index->Arrays);
          if (All && Rows && *Rows > 0 && *All > 0)
            executeNestTrips(*LR.InCore, *All / *Rows, IO);
        }
      }
    }
    if (K.Modelled) {
      // Non-temporal stores (movnt*: _mm*_stream_*, or the compiler's)
      // bypass the caches: when every store of the loop is one, no line is
      // write-allocated anywhere.
      const MachineModel *MT = &M;
      MachineModel NoAllocate;
      if (LR.InCore && LR.InCore->Ok && allStoresNonTemporal(*LR.InCore)) {
        NoAllocate = M;
        for (CacheLevel &C : NoAllocate.Caches)
          C.WriteAllocate = false;
        MT = &NoAllocate;
        LR.InCore->Notes.push_back("every store is non-temporal (movnt): no write-allocate "
                                   "traffic in any level");
      }
      if (RunLC)
        LR.Conditions = layerConditionTraffic(K, IR, *MT);
      // Not decisive (a way more or less, the arrays' placement or a
      // triangular range moves a link): the conditions' set model guesses
      // what LRU keeps, and auto simulates there too.
      std::string Edge;
      if (RunLC && LR.Conditions->Ok && (Auto || O.EdgeNotes))
        Edge = layerConditionsAtEdge(*LR.Conditions, K, IR, *MT);
      if (RunSim || (Auto && (!LR.Conditions->Ok || !Edge.empty())))
        LR.Simulated = simulateTraffic(K, IR, *MT, O.Sim);
      if (!Edge.empty())
        LR.Conditions->Notes.push_back(
            "the layer conditions are not decisive here (" + Edge + "): " +
            (Auto ? "the simulator decides the traffic" : "--cache auto lets the simulator decide"));
      runModels(LR, IR, *MT, R.Models, O.Sim.Index);
    }
    R.Loops.push_back(std::move(LR));
  }
}

double perfmodel::promisedGainCyclesPerIt(const LoopReport &LR) {
  const Prediction *P = LR.headline();
  const LevelPrediction *At = P ? P->atDataLevel() : nullptr;
  if (!At || P->Levels.empty())
    return 0;
  // Transfers bind when the same model is faster with the data in L1:
  // blocking or fusing can save at most the difference.
  double InL1 = P->Levels.front().CyclesPerIt;
  if (At->CyclesPerIt > InL1 * 1.0001)
    return At->CyclesPerIt - InL1;
  // The core binds: lifting its binding bound leaves the next one.
  if (!LR.InCore || !LR.InCore->Ok || LR.InCore->Cycles <= 0)
    return 0;
  const InCoreResult &IC = *LR.InCore;
  std::vector<double> Bounds = {IC.PortBound, IC.FrontEndBound, IC.RecurrenceBound};
  std::sort(Bounds.rbegin(), Bounds.rend());
  double PerIt = IC.SourceItersPerIter > 0 ? IC.SourceItersPerIter : 1;
  double Next = Bounds[1] / PerIt, Now = Bounds[0] / PerIt;
  // Scale to the headline's own in-core figure (it may add load/store time).
  return std::max(0.0, (Now - Next) * std::min(1.0, At->CyclesPerIt / std::max(Now, 1e-12)));
}

//===- Pipeline.cpp - The stages of every loop, in order ------------------===//
//
// modelLoops lists the stages once: the compiled in-core result at the bound
// sizes, the machine the loop's stores see, the traffic beyond L1, then the
// models. Each stage returns a new value; nothing rewrites a result after it
// is made.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Pipeline.h"
#include "perfmodel/StageTimes.h"

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
  IO.FunctionAddresses = O.FunctionAddresses;
  IO.DeferBodySchedule = true; // inCoreAtSizes runs it where it is wanted
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

namespace {

/// In-core stage: the compiled loop's result at the bound sizes: its line
/// splits for the arrays' alignment at these sizes and, for the compiled
/// basis, the nest as it executes (remainder loops and the outer loop's code;
/// inner bounds loaded from memory, CSR rows, take the index data's mean row).
InCoreResult inCoreAtSizes(InCoreResult IC, const LoopKernel &K, const KernelIR &IR,
                           const MachineModel &M, const PipelineOptions &O) {
  InCoreOptions IO = inCoreOptionsFor(M, O);
  splitsAtSizes(IC, K, IR.bindings(), IO);
  if (O.Basis == InCoreBasis::Compiled) {
    executeNest(IC, K, IR.bindings(), IO);
    if (!IC.Executed.Ok && K.Nest.size() >= 2 && O.Sim.Index && !O.Sim.Index->Arrays.empty()) {
      LoopKernel Outer = K;
      Outer.Nest.pop_back();
      auto All = nestIterations(K, IR, &O.Sim.Index->Arrays);
      auto Rows = nestIterations(Outer, IR, &O.Sim.Index->Arrays);
      if (All && Rows && *Rows > 0 && *All > 0)
        executeNestTrips(IC, *All / *Rows, IO);
    }
  }
  // The body's own list schedule, a check beside its bounds, except where
  // a long row is priced from its parts and nothing schedules it.
  if (!(IC.Executed.Ok && IC.Executed.RowWindows > 0))
    scheduleBody(IC);
  chargeDataBranches(IC, O.BranchMissRate, M.Core.BranchMispredictCycles,
                     M.Core.BranchPatternCapacity);
  if (IC.Ok && allStoresNonTemporal(IC))
    IC.Notes.push_back("every store is non-temporal (movnt): no write-allocate traffic in any "
                       "level");
  return IC;
}

/// The machine the loop's stores see: where every store is non-temporal
/// (movnt*: _mm*_stream_*, or the compiler's), they bypass the caches and no
/// level write-allocates; nullopt when the machine is M as it is.
std::optional<MachineModel> machineForStores(const MachineModel &M, const InCoreResult *IC) {
  if (!IC || !IC->Ok || !allStoresNonTemporal(*IC))
    return std::nullopt;
  MachineModel NoAllocate = M;
  for (CacheLevel &C : NoAllocate.Caches)
    C.WriteAllocate = false;
  return NoAllocate;
}

struct Traffic {
  std::optional<TrafficResult> Conditions, Simulated;
  /// Column loads crowding the L1's sets (the conditions' figure, else
  /// those loads' own conditions).
  double ConflictLoadCyPerIt = 0;
};

/// Traffic stage. auto: the analytic layer conditions, and the simulator
/// only where they do not apply (indirect or non-uniform accesses) or are not
/// decisive (a way more or less, the arrays' placement or a triangular range
/// moves a link: their set model guesses what LRU keeps); replaying every
/// loop of a large file would cost far more than compiling it.
Traffic trafficOf(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                  const PipelineOptions &O) {
  Traffic T;
  bool Auto = O.Cache == TrafficMethod::Auto;
  bool RunLC = Auto || O.Cache == TrafficMethod::LayerConditions || O.Cache == TrafficMethod::Both;
  bool RunSim = O.Cache == TrafficMethod::Simulator || O.Cache == TrafficMethod::Both;
  if (RunLC)
    T.Conditions = layerConditionTraffic(K, IR, M);
  std::string Edge;
  if (RunLC && T.Conditions->Ok && (Auto || O.EdgeNotes))
    Edge = layerConditionsAtEdge(*T.Conditions, K, IR, M);
  if (RunSim || (Auto && (!T.Conditions->Ok || !Edge.empty())))
    T.Simulated = simulateTraffic(K, IR, M, O.Sim);
  // Stores that wait at commit for lines their sets lose, and loads whose
  // lines crowd a few sets, are the set model of the conditions, whichever
  // counts the traffic.
  if (T.Simulated && T.Simulated->Ok && T.Conditions && T.Conditions->Ok) {
    T.Simulated->ThrashedStoresPerIt = T.Conditions->ThrashedStoresPerIt;
    T.Simulated->ThrashedStoreCyPerIt = T.Conditions->ThrashedStoreCyPerIt;
    T.Simulated->ThrashedStoresMeasured = T.Conditions->ThrashedStoresMeasured;
    T.Simulated->ThrashedStoresAlone = T.Conditions->ThrashedStoresAlone;
    // Which streams are strided is the accesses' shape: the simulated lines
    // take the conditions' strided share per link.
    const auto &LC = T.Conditions->Links;
    auto &Sim = T.Simulated->Links;
    for (size_t I = 0; I < Sim.size() && I < LC.size(); ++I)
      Sim[I].StridedLoadBytesPerIt =
          LC[I].LoadBytesPerIt > 0
              ? Sim[I].LoadBytesPerIt * LC[I].StridedLoadBytesPerIt / LC[I].LoadBytesPerIt
              : 0;
  }
  if (!T.Conditions || !T.Conditions->Ok)
    T.ConflictLoadCyPerIt = conflictLoadCycles(K, IR, M);
  else
    T.ConflictLoadCyPerIt = T.Conditions->ConflictLoadCyPerIt;
  if (!Edge.empty())
    T.Conditions->Notes.push_back(
        "the layer conditions are not decisive here (" + Edge + "): " +
        (Auto ? "the simulator decides the traffic" : "--cache auto lets the simulator decide"));
  return T;
}

/// Cycles per source iteration of K that the start, split and join of its
/// OpenMP parallel loop add on THREADS threads (0 without one, or where the
/// machine or the sizes do not say), with the note that says so.
double parallelLoopCycles(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                          unsigned Threads, std::optional<double> Iterations,
                          std::string &Note) {
  auto Level = std::find_if(K.Nest.begin(), K.Nest.end(),
                            [](const LoopLevel &L) { return L.ForksThreads; });
  if (Level == K.Nest.end())
    return 0;
  std::string Where = "the OpenMP parallel loop at line " + std::to_string(Level->Loc.Line);
  const std::map<unsigned, double> &Us = M.Core.ParallelLoopUs;
  if (Us.empty()) {
    Note = Where + " starts and joins its threads at each execution; the machine model "
                   "does not say what that costs (core.parallel_loop_us): not counted";
    return 0;
  }
  // Executions of the parallel loop: the iterations of the levels around it.
  LoopKernel Outer = K;
  Outer.Nest.resize(size_t(Level - K.Nest.begin()));
  std::optional<double> Executions = Outer.Nest.empty() ? 1.0 : nestIterations(Outer, IR);
  if (!Iterations || !Executions || *Executions <= 0 || *Iterations <= 0) {
    Note = Where + ": its iterations per execution are not known at these sizes; its start "
                   "and join are not counted";
    return 0;
  }
  // The threads measured, else the nearest fewer, else the fewest.
  Threads = std::max(Threads, 1u);
  auto At = Us.upper_bound(Threads);
  if (At != Us.begin())
    --At;
  double PerExecution = *Iterations / *Executions;
  double Cy = At->second * 1e3 * M.ClockGHz / PerExecution;
  Note = Where + " starts, splits and joins " + std::to_string(Threads) +
         " thread(s) at each execution: " + formatNumber(At->second) + " us (core.parallel_loop_us" +
         (At->first == Threads ? "" : ", as measured on " + std::to_string(At->first)) +
         ") over its " + formatNumber(PerExecution) + " iterations, " + formatCycles(Cy) +
         " cy/it added to every level";
  return Cy;
}

/// What the models predict from the stage results.
struct ModelResults {
  std::optional<RooflineResult> Roofline;
  std::optional<EcmResult> Ecm;
  std::optional<PprResult> Ppr;
  std::optional<TlbMisses> Tlb;
  std::optional<double> WorkingSetBytes, Iterations;
};

/// Model stage: the selected models on the loop's in-core result and traffic
/// (the simulator's, else the layer conditions', else the naive count), with
/// the TLB's misses where the machine gives a TLB.
ModelResults modelsOf(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                      const ModelSelection &S, const IndexData *Index,
                      const std::optional<InCoreResult> &IC, const Traffic &T) {
  StageScope Timed(Stage::Models);
  ModelResults Out;
  ModelInput In;
  In.Loop = &K;
  In.Machine = &M;
  In.Cores = S.Cores;
  if (T.Simulated && T.Simulated->Ok)
    In.Traffic = &*T.Simulated;
  else if (T.Conditions && T.Conditions->Ok)
    In.Traffic = &*T.Conditions;
  // Also when it failed: the models check Ok, and PPR names the reason.
  In.ConflictLoadCyPerIt = T.ConflictLoadCyPerIt;
  if (IC)
    In.InCore = &*IC;
  Out.WorkingSetBytes = workingSetBytes(K, IR, Index);
  Out.Iterations = nestIterations(K, IR, Index ? &Index->Arrays : nullptr);
  In.WorkingSetBytes = Out.WorkingSetBytes;
  std::optional<InCoreResult> CoreAtSizes;
  std::string CoreAtSizesNote;
  if (M.Tlb) {
    Out.Tlb = tlbMisses(K, IR, M);
    In.Tlb = &*Out.Tlb;
    if (IC)
      CoreAtSizes = inCoreWithL1TlbMisses(*IC, *Out.Tlb, M, CoreAtSizesNote);
    if (CoreAtSizes)
      In.InCore = &*CoreAtSizes;
  }
  // The latency bound once for every model; its notes once, with the
  // Roofline (the report's backbone, always run).
  LatencyBound Latency = latencyBound(In);
  In.Latency = &Latency;
  std::string ParallelNote;
  In.ParallelLoopCyPerIt = parallelLoopCycles(K, IR, M, S.Cores, Out.Iterations, ParallelNote);
  Out.Roofline = roofline(In);
  if (!ParallelNote.empty())
    Out.Roofline->Notes.push_back(ParallelNote);
  Out.Roofline->Notes.insert(Out.Roofline->Notes.end(), Latency.Notes.begin(),
                             Latency.Notes.end());
  if (CoreAtSizes)
    Out.Roofline->Notes.push_back(CoreAtSizesNote);
  if (S.Ecm)
    Out.Ecm = ecm(In);
  if (S.Ppr)
    Out.Ppr = ppr(In);
  // A working set at the edge of a level's capacity is partly kept there.
  Residence Res = residence(M, Out.WorkingSetBytes, S.Cores);
  mixKeptLines(Out.Roofline->Summary, Res, Out.Roofline->Notes);
  if (Out.Ecm)
    mixKeptLines(Out.Ecm->Summary, Res, Out.Ecm->Notes);
  if (Out.Ppr)
    mixKeptLines(Out.Ppr->Summary, Res, Out.Ppr->Notes);
  return Out;
}

} // namespace

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
  auto Selected = [&](const LoopKernel &K) { return K.Modelled && (!O.Select || O.Select(K)); };
  // One compile for every loop of the file (the machine code does not
  // depend on -D sizes, so a caller may pass it in).
  std::vector<InCoreResult> Compiled;
  if (Known)
    Compiled = *Known;
  else if (O.InCore && std::any_of(IR.Loops.begin(), IR.Loops.end(), Selected))
    Compiled = analyzeKernelLoops(IR, O.CompileArgs, inCoreOptionsFor(M, O));
  for (size_t LI = 0; LI < IR.Loops.size(); ++LI) {
    const LoopKernel &K = IR.Loops[LI];
    if (O.Select && !O.Select(K))
      continue;
    LoopReport LR;
    LR.Loop = &K;
    if (!K.Modelled) {
      R.Loops.push_back(std::move(LR));
      continue;
    }
    const InCoreResult *Code = LI < Compiled.size() ? &Compiled[LI] : nullptr;
    if (O.Basis == InCoreBasis::Source)
      LR.InCore = sourceInCore(K, M, Code);
    else if (Code)
      LR.InCore = inCoreAtSizes(*Code, K, IR, M, O);
    std::optional<MachineModel> NoAllocate = machineForStores(M, LR.InCore ? &*LR.InCore : nullptr);
    const MachineModel &MT = NoAllocate ? *NoAllocate : M;
    Traffic T = trafficOf(K, IR, MT, O);
    ModelResults MR = modelsOf(K, IR, MT, R.Models, O.Sim.Index, LR.InCore, T);
    LR.Conditions = std::move(T.Conditions);
    LR.Simulated = std::move(T.Simulated);
    LR.Roofline = std::move(MR.Roofline);
    LR.Ecm = std::move(MR.Ecm);
    LR.Ppr = std::move(MR.Ppr);
    LR.Tlb = std::move(MR.Tlb);
    LR.WorkingSetBytes = MR.WorkingSetBytes;
    LR.Iterations = MR.Iterations;
    R.Loops.push_back(std::move(LR));
  }
}

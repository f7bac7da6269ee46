//===- Ppr.cpp - Probability-process-RAM model ------------------------------===//
#include "perfmodel/Ppr.h"

#include <algorithm>
#include <cmath>

using namespace perfmodel;

namespace {

/// What to change when the data-level prediction is bound by KIND.
std::string pprAdvice(BoundKind K, const std::string &DataLevel, const InCoreResult &IC) {
  if (std::string A = mechanismAdvice(K); !A.empty())
    return A;
  if (K == BoundKind::PointerChase || K == BoundKind::Latency)
    return "latency-bound: the misses wait the " + DataLevel +
           " latency; improve the locality of the indices or overlap more of them";
  if (K == BoundKind::Chain)
    return IC.Advice.empty() ? "latency-bound: break the dependence chain "
                               "(more independent accumulators)"
                             : IC.Advice;
  if (K == BoundKind::Compute)
    return "compute-bound: vectorize (wider SIMD) and use FMA";
  if (K == BoundKind::LoadsStores)
    return "load/store-bound: fewer or wider loads (aligned vector loads, "
           "register reuse of neighbouring elements)";
  if (K == BoundKind::Irregular)
    return "irregular transfers dominate: improve the reuse of the indirect "
           "data (reordering, blocking such as BCSR)";
  return "regular transfers from " + DataLevel +
         " dominate: block so the data stays in a closer level";
}

} // namespace

PprResult perfmodel::ppr(const ModelInput &In) {
  PprResult R;
  const MachineModel &M = *In.Machine;
  const LoopKernel &K = *In.Loop;
  R.Summary.Kind = ModelKind::Ppr;
  if (!In.InCore || !In.InCore->Ok || In.InCore->SourceItersPerIter <= 0) {
    // Say why the schedule is missing: not run (--no-incore), or not had.
    R.Reason = R.Summary.Reason =
        !In.InCore ? "PPR needs the in-core schedule of the machine loop (run without --no-incore)"
        : !In.InCore->Ok && !In.InCore->Reason.empty()
            ? "PPR needs the in-core schedule of the machine loop: " + In.InCore->Reason
            : "PPR needs the in-core schedule of the machine loop, and it has none";
    return R;
  }
  if (M.Caches.empty()) {
    R.Reason = R.Summary.Reason = "the machine model has no caches";
    return R;
  }
  const InCoreResult &IC = *In.InCore;
  double PerIt = 1 / IC.SourceItersPerIter;
  R.A = IC.Classes.Add * PerIt;
  R.M = IC.Classes.Mul * PerIt;
  R.Fma = IC.Classes.Fma * PerIt;
  R.L = IC.Classes.Load * PerIt;
  R.S = IC.Classes.Store * PerIt;
  // Eq. (1): the two instruction groups on their own ports. A loop-carried
  // chain delays the compute group (the DAG schedule waits for it).
  R.ComputeCy = IC.TOL / IC.SourceItersPerIter;
  R.LoadStoreCy = IC.TnOL / IC.SourceItersPerIter;
  // Which bound the compute group has is the body's own chain against its
  // ports; a scheduled nest's RecurrenceBound is only what the window could
  // not overlap across executions (often 0), not the body's chain.
  bool Executed = IC.Executed.Ok;
  double BodyChain = Executed && IC.Executed.SteadyRecurrence > 0
                         ? IC.Executed.SteadyRecurrence
                         : IC.RecurrenceBound;
  bool ChainBound = BodyChain / IC.SourceItersPerIter > R.ComputeCy;
  double Chain = (Executed ? IC.RecurrenceBound : BodyChain) / IC.SourceItersPerIter;
  if (ChainBound)
    R.Notes.push_back("S_DAG(A, M, I_FMA) is bound by the loop-carried chain of " +
                      formatCycles(BodyChain) + " cy per machine iteration" +
                      (Executed ? " (the nest as executed overlaps it with the next "
                                  "executions' as far as the window holds them)"
                                : ""));
  R.ComputeCy = std::max(R.ComputeCy, Chain);
  // The nest as executed (remainder loops, outer code, chains the window
  // cannot overlap) is the schedule of the compute group.
  double Nest = Executed ? IC.Cycles / IC.SourceItersPerIter : 0;
  if (Nest > R.ComputeCy * (1 + 1e-9)) {
    R.ComputeCy = Nest;
    R.Notes.push_back("S_DAG is the nest as executed: " + formatCycles(Nest) +
                      " cy per iteration with the remainder loops and the outer loop's code");
  }

  // Eq. (3): the simulator's misses of irregular accesses, at the bound sizes.
  unsigned Line = M.Caches.front().LineBytes;
  const TrafficResult *T = In.Traffic;
  bool HaveIrregular = T && T->Ok && T->IrregularMissesPerIt.size() == M.Caches.size();
  std::vector<double> IrregularBytes(M.Caches.size(), 0);
  const LinkUse Use = linkUseOf(In);
  if (HaveIrregular)
    for (size_t I = 0; I < M.Caches.size(); ++I) {
      IrregularBytes[I] = T->IrregularMissesPerIt[I] * Line;
      double BPC = linkBytesPerCycle(M, I, /*OneCore=*/true, Use);
      if (BPC > 0)
        R.IrregularCy += IrregularBytes[I] / BPC;
    }
  bool Indirect = std::any_of(K.Accesses.begin(), K.Accesses.end(),
                              [](const Access &A) { return A.Indirect; });
  if (Indirect && !HaveIrregular)
    R.Notes.push_back("indirect accesses need the cache simulator for eq. (3) "
                      "(--cache sim with --index); their transfers are missing");

  // Eq. (2) per level: the regular data that level supplies, at the smallest
  // bandwidth on its way to L1 (prefetching hides the latency). Like the
  // paper's simulator (eq. 3 counts misses), PPR moves the lines brought
  // towards the core, write-allocates included; write-backs of dirty lines
  // are not in its equations (ECM counts them).
  R.Levels.push_back(M.Caches[0].Name);
  R.RegularBytes.push_back(0);
  R.RegularCy.push_back(0);
  double MinBPC = 0;
  for (size_t I = 0; I < M.Caches.size(); ++I) {
    double BPC = linkBytesPerCycle(M, I, /*OneCore=*/true, Use); // one core
    MinBPC = I == 0 ? BPC : std::min(MinBPC, BPC);
    double Bytes = std::max(0.0, linkBytesPerIt(In, I, /*Inward=*/true) - IrregularBytes[I]);
    R.Levels.push_back(M.levelName(I + 1));
    R.RegularBytes.push_back(Bytes);
    R.RegularCy.push_back(MinBPC > 0 ? Bytes / MinBPC : 0);
  }

  double WriteBack = linkBytesPerIt(In, 0) - linkBytesPerIt(In, 0, /*Inward=*/true);
  if (WriteBack > 1e-9)
    R.Notes.push_back("PPR moves the lines brought in (eq. 2-3); the " +
                      formatCycles(WriteBack) +
                      " B/it written back from L1 are not in it (ECM and the Roofline "
                      "count them)");

  // Irregular misses wait their level's latency when fewer can be in flight
  // than the bandwidth term assumes; a pointer chase waits it per step.
  LatencyBound LB = latencyFor(In, R.Notes);

  // Eq. (4).
  Prediction &P = R.Summary;
  P.Ok = R.Ok = true;
  P.DataLevel = residentLevel(M, In.WorkingSetBytes, In.Cores);
  double Flops = K.flops();
  // Address translation beyond each page's first touch waits with the
  // transfers it precedes.
  double Tlb = tlbCyclesPerIt(In);
  if (Tlb > 0)
    R.Notes.push_back(tlbWhat(In) + ": " + formatCycles(Tlb) +
                      " cy/it added to the memory side of eq. (4)");
  for (size_t L = 0; L < R.Levels.size(); ++L) {
    double Memory = R.LoadStoreCy + R.RegularCy[L] + R.IrregularCy + Tlb;
    // A parallel loop's start and join on the cores asked for; PPR's time is
    // one core's, and one core's loop pays them only where it runs alone.
    double Cy = std::max({R.ComputeCy, Memory, LB.at(L)}) +
                (In.Cores <= 1 ? In.ParallelLoopCyPerIt : 0);
    R.TotalCy.push_back(Cy);
    std::string B;
    BoundKind Kind;
    if (Tlb > std::max({R.ComputeCy, Memory - Tlb, LB.at(L)})) {
      B = "address translation (TLB misses)";
      Kind = BoundKind::Tlb;
    } else if (LB.at(L) > std::max(R.ComputeCy, Memory)) {
      B = LB.What[L];
      Kind = L < LB.Kind.size() ? LB.Kind[L] : BoundKind::Latency;
    } else if (R.ComputeCy >= Memory) {
      B = ChainBound ? "loop-carried dependence chain" : "compute instructions (S_DAG(A,M,FMA))";
      Kind = ChainBound ? BoundKind::Chain : BoundKind::Compute;
    } else if (R.LoadStoreCy >= R.RegularCy[L] + R.IrregularCy) {
      B = "load/store instructions (S_DAG(L,S))";
      Kind = BoundKind::LoadsStores;
    } else if (R.IrregularCy >= R.RegularCy[L]) {
      B = "irregular transfers (cache misses)";
      Kind = BoundKind::Irregular;
    } else {
      B = "regular transfers from " + R.Levels[L];
      Kind = BoundKind::Transfers;
    }
    P.Levels.push_back(
        {R.Levels[L], Cy, Flops && Cy > 0 ? Flops / Cy * M.ClockGHz : 0, B, Kind});
  }
  if (const LevelPrediction *At = P.atDataLevel())
    P.Advice = pprAdvice(At->Kind, P.DataLevel, IC);
  if (In.Cores > 1)
    R.Notes.push_back("PPR is a single-core model: the prediction is for one core");
  return R;
}

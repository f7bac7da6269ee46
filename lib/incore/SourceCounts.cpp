//===- SourceCounts.cpp - In-core cost of the source as written -----------===//
//
// The PPR paper counts its kernels' instructions from the algorithm: one
// instruction per operation, one load per reference, loop invariants in
// registers, an unaligned vector load at twice the port time. This file does
// the same from the KernelIR and schedules the counts on the machine file's
// floating-point pipes and load/store ports. It is a second opinion next to
// the compiled machine loop: the difference between the two is what the
// compiler added (spills, reloads) or removed (merged loads).
//
//===----------------------------------------------------------------------===//
#include "perfmodel/InCore.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

using namespace perfmodel;

namespace {

std::string fmt(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", std::round(V * 1000) / 1000);
  return Buf;
}

/// Whether every iteration's address of A is a multiple of its width: the
/// base's declared alignment and the offset's coefficients (loop counters
/// replaced by Lower + Step * n, any other symbol taken as any integer).
bool provablyAligned(const Access &A, const LoopKernel &K) {
  if (A.AlignedByContract)
    return true;
  unsigned W = A.ElementBytes;
  if (!A.Linear || A.Indirect || A.BaseAlignBytes < W || W == 0)
    return false;
  Poly Off = *A.Linear;
  for (const LoopLevel &L : K.Nest) {
    if (!Off.mentions(L.Var))
      continue;
    if (Off.degreeIn(L.Var) > 1)
      return false;
    Poly Value = L.Lower + Poly::constant(L.Step) * Poly::symbol(L.Var + "#n");
    Poly Coef = Off.coefficientOf(L.Var);
    Off = (Off - Coef * Poly::symbol(L.Var)) + Coef * Value;
  }
  int64_t G = A.FieldOffset;
  for (const auto &[Mono, C] : Off.terms())
    G = std::gcd(G, C * int64_t(A.StrideBytes));
  return G % int64_t(W) == 0;
}

struct FpDemand {
  const char *Name;
  double Ops = 0; ///< pipe operations per iteration
  bool (*Can)(const FpUnit &);
};

/// The counts of one loop as written, scheduled step by step: the FP
/// operations on the pipes, the references on the load/store ports, the
/// front end, the verdict.
class SourceCounter {
public:
  SourceCounter(const LoopKernel &K, const MachineModel &M, const InCoreResult *Compiled)
      : K(K), M(M), C(M.Core), Compiled(Compiled) {
    R.Basis = InCoreBasis::Source;
    R.Cpu = M.Cpu;
  }

  InCoreResult run() {
    if (!K.Modelled)
      return fail(K.Reason);
    for (const FlopCounts *F : {&K.Single, &K.Double})
      if (F->Div || F->Sqrt || F->Other)
        return fail("divisions, square roots and math calls have no throughput in the "
                    "machine file; use the compiled code (--incore compiled)");
    if (!C.LoadsPerCycle || !C.StoresPerCycle || C.LoadBytesPerCycle <= 0 ||
        C.StoreBytesPerCycle <= 0)
      return fail("the machine file lacks load/store ports");
    Units = C.fpPipes(); // the file's, or assumed as the Roofline does
    if (std::string Why = countFpOps(); !Why.empty())
      return fail(Why);
    namePorts();
    if (std::string Why = spreadFpOps(); !Why.empty())
      return fail(Why);
    countReferences();
    verdict();
    R.Ok = true;
    return R;
  }

private:
  const LoopKernel &K;
  const MachineModel &M;
  const CoreModel &C;
  const InCoreResult *Compiled;
  InCoreResult R;
  std::vector<FpUnit> Units;
  FpDemand Add{"add", 0, [](const FpUnit &U) { return U.Add; }};
  FpDemand Mul{"mul", 0, [](const FpUnit &U) { return U.Mul; }};
  FpDemand Fma{"FMA", 0, [](const FpUnit &U) { return U.Fma; }};
  struct OpRow {
    std::string What;
    double PipeOps;
    const FpDemand *Kind;
  };
  std::vector<OpRow> OpRows;
  unsigned FpOps = 0, Loads = 0, Stores = 0, Unaligned = 0, Hoisted = 0;
  double LoadSlots = 0, StoreSlots = 0;

  InCoreResult fail(std::string Why) {
    R.Reason = "source counts: " + std::move(Why);
    return R;
  }

  /// Floating-point operations in pipe operations: FMA where the source's
  /// multiply feeds an add and the machine has FMA, a vector wider than one
  /// pipe taking several (Zen 4's 512-bit operations on 256-bit pipes).
  std::string countFpOps() {
    bool HasFma = std::any_of(Units.begin(), Units.end(), [](const FpUnit &U) { return U.Fma; });
    for (auto [Ops, Bytes, Type] :
         {std::tuple<const OpsByLanes *, unsigned, const char *>{&K.SingleOps, 4, "float"},
          {&K.DoubleOps, 8, "double"}})
      for (const auto &[Lanes, F] : *Ops) {
        unsigned Bits = Lanes * Bytes * 8;
        if (C.SimdBits && Bits > C.SimdBits)
          return std::to_string(Bits) + "-bit operations exceed the machine's " +
                 std::to_string(C.SimdBits) + "-bit registers";
        double Pipes = std::max(1.0, std::ceil(double(Bits) / std::max(1u, C.pipeBits())));
        unsigned Fused = HasFma ? std::min({F.FmaContractible, F.Add, F.Mul}) : 0;
        std::string Width = Lanes == 1 ? std::string("scalar ") + Type
                                       : std::to_string(Lanes) + " x " + Type;
        for (auto [D, N] : {std::pair<FpDemand *, unsigned>{&Fma, Fused},
                            {&Add, F.Add - Fused},
                            {&Mul, F.Mul - Fused}})
          if (N) {
            D->Ops += N * Pipes;
            FpOps += N;
            OpRows.push_back(
                {std::to_string(N) + " " + D->Name + " (" + Width + ")", N * Pipes, D});
          }
        R.Classes.Fma += Fused;
        R.Classes.Add += F.Add - Fused;
        R.Classes.Mul += F.Mul - Fused;
      }
    return "";
  }

  void namePorts() {
    for (size_t I = 0; I < Units.size(); ++I)
      R.Ports.push_back("FP" + std::to_string(I));
    for (unsigned I = 0; I < C.LoadsPerCycle; ++I)
      R.Ports.push_back("LD" + std::to_string(I));
    for (unsigned I = 0; I < C.StoresPerCycle; ++I)
      R.Ports.push_back("ST" + std::to_string(I));
    R.PortUnits.assign(R.Ports.size(), 1);
    R.PortLoad.assign(R.Ports.size(), 0);
  }

  unsigned capable(const FpDemand *D) const {
    unsigned N = 0;
    for (const FpUnit &U : Units)
      N += D->Can(U);
    return N;
  }

  /// The table's per-pipe shares: the most constrained class first, each to
  /// the least loaded capable pipe (water filling), the same spread for
  /// nested capabilities such as Haswell's add-on-one-pipe. (The bound is the
  /// machine's optimal spread, Hall's condition, as the Roofline's ceiling.)
  std::string spreadFpOps() {
    std::vector<FpDemand *> Classes = {&Add, &Mul, &Fma};
    std::stable_sort(Classes.begin(), Classes.end(), [&](const FpDemand *A, const FpDemand *B) {
      return capable(A) < capable(B);
    });
    std::map<const FpDemand *, std::vector<double>> Share;
    for (FpDemand *D : Classes) {
      std::vector<double> &S = Share[D];
      S.assign(Units.size(), 0);
      if (D->Ops <= 0)
        continue;
      if (!capable(D))
        return std::string("no pipe of the machine file runs ") + D->Name;
      double Left = D->Ops;
      while (Left > 1e-12) { // raise the lowest capable pipes together
        double Low = INFINITY, Next = INFINITY;
        for (size_t U = 0; U < Units.size(); ++U)
          if (D->Can(Units[U]))
            Low = std::min(Low, R.PortLoad[U]);
        unsigned AtLow = 0;
        for (size_t U = 0; U < Units.size(); ++U)
          if (D->Can(Units[U])) {
            if (R.PortLoad[U] <= Low + 1e-12)
              ++AtLow;
            else
              Next = std::min(Next, R.PortLoad[U]);
          }
        double Step = std::min(Left / AtLow, Next - Low);
        for (size_t U = 0; U < Units.size(); ++U)
          if (D->Can(Units[U]) && R.PortLoad[U] <= Low + 1e-12) {
            R.PortLoad[U] += Step;
            S[U] += Step;
          }
        Left -= Step * AtLow;
      }
    }
    for (const OpRow &Row : OpRows) {
      InstrCost IC;
      IC.Text = Row.What;
      const FpDemand *D = Row.Kind;
      IC.PortCycles.assign(R.Ports.size(), 0);
      for (size_t U = 0; U < Units.size(); ++U)
        IC.PortCycles[U] = Share[D][U] * Row.PipeOps / D->Ops;
      IC.Uops = unsigned(std::lround(Row.PipeOps));
      R.Instrs.push_back(std::move(IC));
    }
    return "";
  }

  /// Loads and stores: one per reference as written, none for a reference
  /// that does not move with the innermost loop (a register holds it), port
  /// slots by width and alignment; and ECM's unit of work.
  void countReferences() {
    const std::string &Var = K.innermost().Var;
    double LoadSlotBytes = C.LoadBytesPerCycle / C.LoadsPerCycle;
    double StoreSlotBytes = C.StoreBytesPerCycle / C.StoresPerCycle;
    size_t LdBase = Units.size(), StBase = Units.size() + C.LoadsPerCycle;
    for (const Access &A : K.Accesses) {
      bool Invariant = A.Linear && !A.Linear->mentions(Var) && !A.Indirect;
      if (Invariant) {
        Hoisted += A.Occurrences;
        continue;
      }
      unsigned Reads = A.Read ? A.ReadRefs : 0, Writes = A.Write ? A.WriteRefs : 0;
      bool Vector = A.ElementBytes > A.StrideBytes;
      bool Misaligned = Vector && !provablyAligned(A, K);
      double Cost = Misaligned ? C.UnalignedVectorCost : 1.0;
      for (auto [N, IsLoad] : {std::pair<unsigned, bool>{Reads, true}, {Writes, false}}) {
        if (!N)
          continue;
        double Slots = N * Cost * std::max(1.0, std::ceil(A.ElementBytes /
                                                          (IsLoad ? LoadSlotBytes : StoreSlotBytes)));
        (IsLoad ? LoadSlots : StoreSlots) += Slots;
        (IsLoad ? Loads : Stores) += N;
        Unaligned += Misaligned && Cost > 1 ? N : 0;
        InstrCost IC;
        IC.Text = std::to_string(N) + (IsLoad ? " load" : " store") + (N > 1 ? "s " : " ") +
                  std::to_string(A.ElementBytes) + " B " + A.Text +
                  (Misaligned && Cost > 1 ? " (not known aligned: " + fmt(Cost) + " slots)" : "");
        IC.Line = A.Loc.Line;
        IC.Uops = N;
        IC.MayLoad = IsLoad;
        IC.MayStore = !IsLoad;
        IC.PortCycles.assign(R.Ports.size(), 0);
        unsigned Ports = IsLoad ? C.LoadsPerCycle : C.StoresPerCycle;
        for (unsigned P = 0; P < Ports; ++P)
          IC.PortCycles[(IsLoad ? LdBase : StBase) + P] = Slots / Ports;
        R.Instrs.push_back(std::move(IC));
      }
    }
    for (unsigned P = 0; P < C.LoadsPerCycle; ++P)
      R.PortLoad[LdBase + P] = LoadSlots / C.LoadsPerCycle;
    for (unsigned P = 0; P < C.StoresPerCycle; ++P)
      R.PortLoad[StBase + P] = StoreSlots / C.StoresPerCycle;
    R.Classes.Load = Loads;
    // ECM's unit of work: the widest stream that advances one element per
    // counter step (the loop's step may cover several elements).
    for (const Access &A : K.Accesses)
      if (A.Linear && !A.Indirect && A.Linear->degreeIn(Var) == 1) {
        Poly Coef = A.Linear->coefficientOf(Var);
        if (Coef.isConstant() && std::llabs(Coef.constantTerm()) == 1)
          R.BytesPerSourceIt = std::max(R.BytesPerSourceIt,
                                        double(std::llabs(K.innermost().Step) * A.StrideBytes));
      }
    R.Classes.Store = Stores;
  }

  /// The bounds (pipes, ports, front end, the compiled loop's recurrence),
  /// the binding one with its advice, and the notes.
  void verdict() {
    R.TOL = C.fpMixCycles(Add.Ops, Mul.Ops, Fma.Ops).value_or(0);
    R.TnOL = std::max(LoadSlots / C.LoadsPerCycle, StoreSlots / C.StoresPerCycle);
    R.PortBound = std::max(R.TOL, R.TnOL);
    R.PortBottleneck = R.TOL >= R.TnOL ? "the floating-point pipes" : "the load/store ports";
    // Front end: x86 folds a load into the operation that uses it; the loop
    // counter and its compare-and-branch are two more.
    bool Folds = llvm::StringRef(M.Triple).starts_with("x86_64") ||
                 llvm::StringRef(M.Triple).starts_with("i686");
    R.Uops = FpOps + (Folds ? std::max(0u, Loads > FpOps ? Loads - FpOps : 0u) : Loads) +
             Stores + 2;
    R.FrontEndBound = C.IssueWidth ? double(R.Uops) / C.IssueWidth : 0;
    if (Compiled && Compiled->Ok && Compiled->SourceItersPerIter > 0) {
      R.RecurrenceBound = Compiled->RecurrenceBound / Compiled->SourceItersPerIter;
      R.Notes.push_back("the loop-carried recurrence is the compiled loop's");
    }
    R.Cycles = std::max({R.PortBound, R.FrontEndBound, R.RecurrenceBound});
    R.ScheduledCycles = R.Cycles;
    R.MachineLoop = "source as written (" + K.Loc.str() + ")";
    if (R.Cycles == R.RecurrenceBound && R.RecurrenceBound > R.PortBound) {
      R.Bottleneck = InCoreBound::Recurrence;
      R.Advice = Compiled ? Compiled->Advice : "loop-carried dependence chain";
    } else if (R.Cycles == R.PortBound) {
      R.Bottleneck = InCoreBound::Ports;
      R.Advice = "port-bound on " + R.PortBottleneck + " (" + fmt(R.PortBound) +
                 " cy per iteration)";
      if (R.TnOL > R.TOL && Unaligned)
        R.Advice += ": " + std::to_string(Unaligned) +
                    " vector accesses are not known to be aligned (" +
                    fmt(C.UnalignedVectorCost) +
                    " slots each instead of 1): align the data (aligned copies, padded rows) "
                    "and say so (aligned loads, alignas)";
    } else {
      R.Bottleneck = InCoreBound::FrontEnd;
      R.Advice = "issue-bound: " + std::to_string(R.Uops) + " uops at " +
                 std::to_string(C.IssueWidth) + " per cycle";
    }
    R.Notes.push_back("counted from the source as written: " + std::to_string(Loads) +
                      " loads, " + std::to_string(Stores) + " stores and " +
                      std::to_string(FpOps) + " floating-point operations per iteration; " +
                      std::to_string(Hoisted) + " loop-invariant references kept in registers");
    if (Compiled && Compiled->Ok && Compiled->SourceItersPerIter > 0) {
      double CL = Compiled->Classes.Load / Compiled->SourceItersPerIter;
      if (std::fabs(CL - Loads) > 0.01)
        R.Notes.push_back("the compiled loop issues " + fmt(CL) + " loads per iteration where "
                          "the source writes " + std::to_string(Loads) +
                          (CL > Loads ? " (register spills and reloads)"
                                      : " (the compiler merged loads of the same address)"));
    }
  }
};

} // namespace

InCoreResult perfmodel::sourceInCore(const LoopKernel &K, const MachineModel &M,
                                     const InCoreResult *Compiled) {
  return SourceCounter(K, M, Compiled).run();
}

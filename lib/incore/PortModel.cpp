//===- PortModel.cpp - Ports, their bound and the L1 data path ------------===//
//
// What the execution ports and the L1's data path allow a block: LLVM's
// resource demands per instruction as sets of leaf ports, the optimal
// fractional assignment's bound and a balanced assignment for the port table,
// and the bytes-per-cycle and shared-load-pipe bounds a port count misses.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "MemoryDeps.h"

#include "llvm/MC/MCSubtargetInfo.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

using namespace llvm;
using namespace perfmodel;
using namespace perfmodel::block;

namespace {

/// Optimal min-max load: the largest (demand inside S) / (units of S) over
/// unions S of demand sets is exactly the best fractional assignment's
/// makespan (max-flow / min-cut).
double optimalBound(const std::vector<std::pair<std::vector<unsigned>, double>> &Demands,
                    const std::vector<unsigned> &Units) {
  // Demands summed per port set: the ratio only needs the sums (a nest
  // trace has thousands of demands on a dozen sets).
  std::vector<std::vector<unsigned>> Masks;
  std::vector<double> MaskCycles;
  for (const auto &D : Demands) {
    auto It = std::find(Masks.begin(), Masks.end(), D.first);
    if (It == Masks.end()) {
      Masks.push_back(D.first);
      MaskCycles.push_back(D.second);
    } else {
      MaskCycles[It - Masks.begin()] += D.second;
    }
  }
  // (cycles of the demands inside S) / (units of S)
  auto Ratio = [&](const std::vector<unsigned> &S) {
    double Sum = 0, Cap = 0;
    for (size_t M = 0; M < Masks.size(); ++M)
      if (subset(Masks[M], S))
        Sum += MaskCycles[M];
    for (unsigned P : S)
      Cap += Units[P];
    return Sum / Cap;
  };
  double Best = 0;
  if (Masks.size() > 20) { // never seen in practice; fall back to single sets
    for (const auto &M : Masks)
      Best = std::max(Best, Ratio(M));
    return Best;
  }
  // Port sets as bit sets, and every union of them once, grown set by set
  // (the unions with a set are it alone and it joined to each union before
  // it): many selections give the same union, and a table of all 2^sets
  // selections cost megabytes of fresh pages per block.
  if (Units.size() <= 64) {
    std::vector<uint64_t> Bits(Masks.size(), 0);
    for (size_t M = 0; M < Masks.size(); ++M)
      for (unsigned P : Masks[M])
        Bits[M] |= uint64_t(1) << P;
    std::vector<uint64_t> Unions;
    std::unordered_set<uint64_t> Seen;
    for (uint64_t B : Bits) {
      size_t Before = Unions.size();
      if (Seen.insert(B).second)
        Unions.push_back(B);
      for (size_t K = 0; K < Before; ++K)
        if (uint64_t U = Unions[K] | B; Seen.insert(U).second)
          Unions.push_back(U);
    }
    for (uint64_t S : Unions) {
      double Sum = 0, Cap = 0;
      for (size_t M = 0; M < Masks.size(); ++M)
        if ((Bits[M] & ~S) == 0)
          Sum += MaskCycles[M];
      for (uint64_t Rest = S; Rest; Rest &= Rest - 1)
        Cap += Units[__builtin_ctzll(Rest)];
      Best = std::max(Best, Sum / Cap);
    }
    return Best;
  }
  for (uint64_t Sel = 1; Sel < (uint64_t(1) << Masks.size()); ++Sel) {
    std::vector<unsigned> S;
    for (size_t I = 0; I < Masks.size(); ++I)
      if (Sel >> I & 1)
        S.insert(S.end(), Masks[I].begin(), Masks[I].end());
    std::sort(S.begin(), S.end());
    S.erase(std::unique(S.begin(), S.end()), S.end());
    Best = std::max(Best, Ratio(S));
  }
  return Best;
}

/// A balanced assignment: minimises the sum over ports of load^2 / units by
/// block coordinate descent, re-pouring each demand into its ports so the
/// least-loaded fill first. Its makespan is the optimum (the bound above);
/// unlike a bare max-flow it also spreads the flexible uops evenly, which is
/// what the port table should show. Returns per demand the cycles per port.
std::vector<std::vector<double>>
assign(const std::vector<std::pair<std::vector<unsigned>, double>> &Demands,
       const std::vector<unsigned> &Units) {
  size_t ND = Demands.size(), NP = Units.size();
  std::vector<std::vector<double>> Out(ND, std::vector<double>(NP, 0));
  std::vector<double> Load(NP, 0);
  for (size_t D = 0; D < ND; ++D) { // start with even splits
    double Cap = 0;
    for (unsigned P : Demands[D].first)
      Cap += Units[P];
    for (unsigned P : Demands[D].first) {
      Out[D][P] = Demands[D].second * Units[P] / Cap;
      Load[P] += Out[D][P];
    }
  }
  std::vector<unsigned> Order; // reused: a block's demands run 200 rounds
  for (unsigned Round = 0; Round < 200; ++Round) {
    double Moved = 0;
    for (size_t D = 0; D < ND; ++D) {
      const std::vector<unsigned> &Mask = Demands[D].first;
      if (Mask.size() < 2)
        continue;
      for (unsigned P : Mask)
        Load[P] -= Out[D][P];
      // Water level L with sum over ports of max(0, L*units - load) = cycles.
      Order.assign(Mask.begin(), Mask.end());
      std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
        return Load[A] / Units[A] < Load[B] / Units[B];
      });
      double Level = 0, Need = Demands[D].second;
      double SumLoad = 0, SumUnits = 0;
      size_t Used = 0;
      for (; Used < Order.size(); ++Used) {
        SumLoad += Load[Order[Used]];
        SumUnits += Units[Order[Used]];
        Level = (Need + SumLoad) / SumUnits;
        if (Used + 1 == Order.size() ||
            Level <= Load[Order[Used + 1]] / Units[Order[Used + 1]])
          break;
      }
      for (unsigned P : Mask) {
        double New = std::max(0.0, Level * Units[P] - Load[P]);
        bool Filled = std::find(Order.begin(), Order.begin() + Used + 1, P) !=
                      Order.begin() + Used + 1;
        if (!Filled)
          New = 0;
        Moved += std::fabs(New - Out[D][P]);
        Out[D][P] = New;
        Load[P] += New;
      }
    }
    if (Moved < 1e-12)
      break;
  }
  return Out;
}

} // namespace

namespace perfmodel::block {

PortMap::PortMap(const MCSchedModel &SM, const std::map<std::string, unsigned> &Given) {
  std::map<unsigned, unsigned> PortOf;
  for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I) {
    const MCProcResourceDesc *D = SM.getProcResource(I);
    if (D->SubUnitsIdxBegin)
      continue;
    PortOf[I] = Names.size();
    Names.push_back(D->Name);
    auto It = Given.find(D->Name);
    Units.push_back(std::max(1u, It != Given.end() ? It->second : D->NumUnits));
  }
  std::function<void(unsigned, std::vector<unsigned> &)> Collect =
      [&](unsigned Idx, std::vector<unsigned> &Out) {
        const MCProcResourceDesc *D = SM.getProcResource(Idx);
        if (!D->SubUnitsIdxBegin) {
          Out.push_back(PortOf[Idx]);
          return;
        }
        for (unsigned U = 0; U < D->NumUnits; ++U)
          Collect(D->SubUnitsIdxBegin[U], Out);
      };
  for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I) {
    std::vector<unsigned> L;
    Collect(I, L);
    std::sort(L.begin(), L.end());
    L.erase(std::unique(L.begin(), L.end()), L.end());
    Leaves[I] = L;
  }
}

bool subset(const std::vector<unsigned> &A, const std::vector<unsigned> &B) {
  return std::includes(B.begin(), B.end(), A.begin(), A.end());
}

/// Resource demands of one scheduling class: cycles per leaf set, where a
/// group's cycles exclude those already charged to a smaller set inside it.
std::vector<std::pair<std::vector<unsigned>, double>>
demandsOf(const MCSubtargetInfo &STI, const MCSchedClassDesc *SC, const PortMap &PM) {
  std::vector<std::pair<std::vector<unsigned>, double>> W;
  for (const MCWriteProcResEntry *E = STI.getWriteProcResBegin(SC),
                                 *End = STI.getWriteProcResEnd(SC);
       E != End; ++E) {
    double Cycles = double(E->ReleaseAtCycle) - double(E->AcquireAtCycle);
    auto It = PM.Leaves.find(E->ProcResourceIdx);
    if (Cycles <= 0 || It == PM.Leaves.end() || It->second.empty())
      continue;
    W.push_back({It->second, Cycles});
  }
  // TableGen lists every group containing a used resource with the same
  // cycles, so several groups with the same ports (Zen 4's FPFMul01,
  // FPVAdd01, FPAES01, ... for one FMA) describe one demand, not several.
  std::stable_sort(W.begin(), W.end(), [](const auto &A, const auto &B) {
    return A.first.size() < B.first.size() ||
           (A.first.size() == B.first.size() && A.first < B.first);
  });
  for (size_t I = 0; I + 1 < W.size();)
    if (W[I].first == W[I + 1].first) {
      W[I].second = std::max(W[I].second, W[I + 1].second);
      W.erase(W.begin() + I + 1);
    } else {
      ++I;
    }
  for (size_t I = 0; I < W.size(); ++I)
    for (size_t J = I + 1; J < W.size(); ++J)
      if (W[J].first.size() > W[I].first.size() && subset(W[I].first, W[J].first))
        W[J].second = std::max(0.0, W[J].second - W[I].second);
  W.erase(std::remove_if(W.begin(), W.end(), [](const auto &D) { return D.second <= 0; }),
          W.end());
  return W;
}

/// The fraction of instruction C's executions that cross a cache line (its
/// width's share from the loop's streams; 0 when splits are free). Only
/// vector moves and arithmetic on the loop's streams: gathers, constants
/// (rip-relative) and stack slots are aligned or of their own kind.
double splitShare(const LineSplits &LS, const InstrCost &C) {
  if (!C.MayLoad && !C.MayStore)
    return 0;
  if (C.GatherScatter || C.FixedPlace)
    return 0;
  double Cost = C.MayStore ? LS.StoreCost : LS.LoadCost;
  return Cost > 1 ? LS.fractionOf(C.vectorBytes(), C.PackedElement, C.MayStore) : 0;
}

/// The ports of a plain load, store and register add, and a plain load's
/// latency (what Block says they are for).
void Block::plainPorts() {
  LoadPort.assign(PM.Names.size(), false);
  StorePort.assign(PM.Names.size(), false);
  // The scheduling class of opcode NAME, where the target has it and it
  // does not depend on the operands.
  auto ClassOf = [&](StringRef Name) -> const MCSchedClassDesc * {
    std::optional<unsigned> Op = TB.opcode(Name);
    const MCSchedClassDesc *SC =
        Op ? SM.getSchedClassDesc(TB.MII->get(*Op).getSchedClass()) : nullptr;
    return SC && SC->isValid() && !SC->isVariant() ? SC : nullptr;
  };
  // A load folded into a vector operation: what vaddsd's memory form takes
  // beyond its register form.
  if (const MCSchedClassDesc *M = ClassOf("VADDSDrm"), *R = ClassOf("VADDSDrr"); M && R) {
    int Folded = MCSchedModel::computeInstrLatency(*TB.STI, *M) -
                 MCSchedModel::computeInstrLatency(*TB.STI, *R);
    if (Folded > 0)
      VectorLoadLatency = Folded;
  }
  for (StringRef Name : {"MOV64rm", "LDRXui", "MOV64mr", "STRXui", "ADD64rr"}) {
    bool Load = Name == "MOV64rm" || Name == "LDRXui";
    bool Alu = Name == "ADD64rr";
    const MCSchedClassDesc *SC = ClassOf(Name);
    if (!SC)
      continue;
    for (const auto &D : demandsOf(*TB.STI, SC, PM)) {
      if (Alu)
        AluPorts = D.first;
      else
        for (unsigned P : D.first)
          (Load ? LoadPort : StorePort)[P] = true;
    }
    if (Load)
      LoadLatency = std::max(0, MCSchedModel::computeInstrLatency(*TB.STI, *SC));
  }
}

/// The port bound (the optimal assignment's makespan), the balanced
/// assignment per instruction and port, the busiest ports, and ECM's split.
void Block::portBound() {
  R.PortBound = optimalBound(AllDemands, PM.Units);
  R.PortLoad.assign(PM.Names.size(), 0);
  if (FiguresOnly) {
    // The ports' loads alone: the balanced assignment's loads are unique
    // (a strictly convex sum of squares), so demands on one port set pour
    // together; a nest's trace has thousands on a dozen sets.
    std::vector<Demand> Sets;
    for (const Demand &D : AllDemands) {
      auto It = llvm::find_if(Sets, [&](const Demand &S) { return S.first == D.first; });
      if (It == Sets.end())
        Sets.push_back(D);
      else
        It->second += D.second;
    }
    auto Share = assign(Sets, PM.Units);
    for (size_t D = 0; D < Sets.size(); ++D)
      for (size_t P = 0; P < PM.Names.size(); ++P)
        R.PortLoad[P] += Share[D][P];
  } else {
    auto Share = assign(AllDemands, PM.Units);
    for (InstrCost &C : R.Instrs)
      C.PortCycles.assign(PM.Names.size(), 0);
    for (size_t D = 0; D < AllDemands.size(); ++D)
      for (size_t P = 0; P < PM.Names.size(); ++P) {
        R.PortLoad[P] += Share[D][P];
        R.Instrs[DemandOwner[D]].PortCycles[P] += Share[D][P];
      }
  }
  double Busiest = 0;
  for (size_t P = 0; P < PM.Names.size(); ++P)
    Busiest = std::max(Busiest, R.PortLoad[P] / PM.Units[P]);
  for (size_t P = 0; P < PM.Names.size(); ++P)
    if (Busiest > 0 && R.PortLoad[P] / PM.Units[P] >= Busiest * (1 - 1e-6))
      R.PortBottleneck += (R.PortBottleneck.empty() ? "" : ", ") + PM.Names[P];

  // ECM split: ports a plain load or store uses carry data transfers.
  std::vector<bool> MemPort(PM.Names.size(), false);
  for (size_t P = 0; P < MemPort.size(); ++P)
    MemPort[P] = LoadPort[P] || StorePort[P];
  for (size_t P = 0; P < PM.Names.size(); ++P)
    (MemPort[P] ? R.TnOL : R.TOL) =
        std::max(MemPort[P] ? R.TnOL : R.TOL, R.PortLoad[P] / PM.Units[P]);
}

/// The L1's data path, two bounds a port count does not see. Its bytes per
/// cycle: scheduling models count accesses per port, not their width
/// (LLVM's Zen 4 takes two 64-byte stores a cycle; its store path moves
/// 32 B); a split access moves its bytes COST times (a 32-byte stream with
/// every other access split: 0.98 cy per access on Zen 4, aligned 0.5,
/// (1 + 2.95) / 2 x 0.5). And integer and vector loads on shared pipes
/// (Zen 4: integer loads three a cycle, vector loads two 32-byte parts a
/// cycle, each part taking 1.5 of the three slots): their times add, so the
/// outer loop's reloads and address loads take cycles from a vector body's
/// loads; a split part takes the split cost.
void Block::l1DataPath() {
  if (X86) {
    double Loaded = 0, Stored = 0, IntLoads = 0, VectorParts = 0;
    for (const InstrCost &C : R.Instrs) {
      if (!C.MayLoad && !C.MayStore)
        continue;
      double Bytes = C.AccessBytes, Split = splitShare(LS, C);
      auto Grown = [&](double Cost) { return Split > 0 ? 1 + Split * (Cost - 1) : 1.0; };
      double B = Bytes * Grown(C.MayStore ? LS.StoreCost : LS.LoadCost);
      Loaded += C.MayLoad ? B : 0;
      Stored += C.MayStore ? B : 0;
      if (!C.MayLoad || C.GatherScatter)
        continue;
      if (!C.VectorData)
        ++IntLoads;
      else
        VectorParts += std::max(1.0, std::ceil(Bytes / 32.0)) * Grown(LS.LoadCost);
    }
    double LoadCy = O.LoadBytesPerCycle > 0 ? Loaded / O.LoadBytesPerCycle : 0;
    double StoreCy = O.StoreBytesPerCycle > 0 ? Stored / O.StoreBytesPerCycle : 0;
    // Loads and stores together: less than the two apart on some cores.
    double BothCy = O.L1BytesPerCycle > 0 ? (Loaded + Stored) / O.L1BytesPerCycle : 0;
    double BytesCy = std::max({LoadCy, StoreCy, BothCy});
    double MixCy = O.VectorLoadSlots > 0 && O.LoadSlotsPerCycle > 0 && IntLoads > 0 &&
                           VectorParts > 0
                       ? (IntLoads + VectorParts * O.VectorLoadSlots) / O.LoadSlotsPerCycle
                       : 0;
    double Bound = std::max(BytesCy, MixCy);
    if (Bound > R.PortBound + 1e-9) {
      char Buf[200];
      if (MixCy > BytesCy + 1e-9)
        snprintf(Buf, sizeof(Buf),
                 "load pipes (%g integer loads and %g 32-byte vector load parts per "
                 "iteration, %g slots each, %g slots a cycle)",
                 IntLoads, VectorParts, O.VectorLoadSlots, O.LoadSlotsPerCycle);
      else if (BothCy > std::max(LoadCy, StoreCy) + 1e-9)
        snprintf(Buf, sizeof(Buf), "L1 load and store bytes (%g B per iteration at %g B/cy)",
                 Loaded + Stored, O.L1BytesPerCycle);
      else
        snprintf(Buf, sizeof(Buf), "L1 %s bytes (%g B per iteration at %g B/cy)",
                 StoreCy >= LoadCy ? "store" : "load", StoreCy >= LoadCy ? Stored : Loaded,
                 StoreCy >= LoadCy ? O.StoreBytesPerCycle : O.LoadBytesPerCycle);
      R.PortBound = Bound;
      R.PortBottleneck = Buf;
      R.PortKind = MixCy > BytesCy + 1e-9 ? InCoreResult::PortLimit::LoadPipes
                                          : InCoreResult::PortLimit::L1Bytes;
      R.Notes.push_back(std::string("the ") + Buf + " bind before the ports do");
    }
    R.TnOL = std::max(R.TnOL, Bound);
  }
}

} // namespace perfmodel::block

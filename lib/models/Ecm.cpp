//===- Ecm.cpp - Execution-Cache-Memory model ------------------------------===//
//
// The Execution-Cache-Memory model: in-core parts (T_OL, T_nOL), the
// transfer time of each link per cache line, their composition by the
// machine's overlap rule per level, the multicore saturation, and the
// prediction with its bottleneck and advice.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Ecm.h"
#include "perfmodel/Roofline.h"

#include <algorithm>
#include <cmath>

using namespace perfmodel;


std::string EcmResult::contributions() const {
  std::string S = "{ " + formatCycles(TOL) + " || " + formatCycles(TnOL);
  for (double T : Transfers)
    S += " | " + formatCycles(T);
  return S + " } cy/CL";
}

std::string EcmResult::predictions() const {
  std::string S = "{ ";
  for (size_t I = 0; I < Predictions.size(); ++I)
    S += (I ? " ] " : "") + formatCycles(Predictions[I]);
  return S + " } cy/CL";
}

namespace {

double gflops(const EcmResult &R, const MachineModel &M, double CyPerCL) {
  return CyPerCL > 0 && R.FlopsPerCL > 0 ? R.FlopsPerCL / CyPerCL * M.ClockGHz : 0;
}

/// In-core contributions: the in-core model's split of port cycles, else
/// the flop mix and the L1 port bandwidths.
void inCoreParts(EcmResult &R, const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  const LoopKernel &K = *In.Loop;
  if (In.InCore && In.InCore->Ok && In.InCore->SourceItersPerIter > 0) {
    double PerIt = R.ItersPerCL / In.InCore->SourceItersPerIter;
    R.TOL = In.InCore->TOL * PerIt;
    R.TnOL = In.InCore->TnOL * PerIt;
    // A recurrence or the front end can be slower than both port groups (by
    // more than the rounding of a nest's schedule against its port sums).
    double Core = In.InCore->Cycles * PerIt;
    if (Core > std::max(R.TOL, R.TnOL) * (1 + 1e-4)) {
      R.Notes.push_back("T_OL raised from " + formatCycles(R.TOL) + " to " + formatCycles(Core) +
                        " cy/CL: the in-core bound (" + inCoreBoundName(In.InCore->Bottleneck) +
                        ") exceeds the port cycles");
      R.TOL = Core;
    }
  } else {
    R.InCoreEstimated = true;
    unsigned Elem = flopElementBytes(K);
    const FlopCounts &F = Elem == 4 ? K.Single : K.Double;
    R.TOL = flopMixCycles(F, M.Core, M.Core.lanes(Elem), true) * R.ItersPerCL;
    NaiveTraffic T = naiveTraffic(K, M);
    R.TnOL = l1PortCycles(T, M.Core) * R.ItersPerCL;
    R.Notes.push_back("T_OL and T_nOL estimated from the flop mix and the L1 port "
                      "bandwidths (the in-core model did not run)");
    // Math calls the compiled loop makes (scalar, without -fveclib): their
    // cycles from the machine file, beside the arithmetic.
    std::string Names;
    if (double Calls = sourceCallCycles(K, M, &Names); Calls > 0) {
      R.TOL += Calls * R.ItersPerCL;
      R.Notes.push_back("T_OL includes " + formatCycles(Calls) + " cy per iteration of calls to " +
                        Names + " (core.call_cy)");
    }
  }
}

/// One core's transfers per link; false, with the reason, where a link has
/// no bandwidth.
bool linkTransfers(EcmResult &R, const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  // One core's transfers: the memory link at what one core draws (measured,
  // else Little's law); the socket's bandwidth only sets the saturation.
  const LinkUse Use = linkUseOf(In);
  for (size_t I = 0; I < M.Caches.size(); ++I) {
    double BPC = linkBytesPerCycle(M, I, /*OneCore=*/true, Use);
    R.Links.push_back(ecmLinkName(M, I));
    if (BPC <= 0) {
      R.Reason = R.Summary.Reason =
          "no bandwidth for link " + R.Links.back() +
          (I + 1 < M.Caches.size() ? " (caches." + M.Caches[I].Name +
                                         ".bytes_per_cycle_from_next)"
                                   : " (memory)");
      return false;
    }
    R.Transfers.push_back(linkCyclesPerIt(In, I, /*OneCore=*/true) * R.ItersPerCL);
    R.SerialShares.push_back(M.tnolSerialShare(I));
  }
  // Under full overlap, lines the L1 refills from a cache while the rest
  // streams from memory still wait beside the memory stream (measured on
  // Zen 4: memory.cache_line_cy); `none` adds their transfers already.
  if (double Stall = M.EcmOverlap == OverlapRule::Full
                         ? cacheLineCyclesPerIt(M, In.Traffic, R.ItersPerCL) * R.ItersPerCL
                         : 0;
      Stall > 0) {
    R.Transfers.back() += Stall;
    R.Notes.push_back(cacheLineNote(M, In.Traffic, "T_" + R.Links.back(), Stall,
                                    R.ItersPerCL, "cy/CL", "CL"));
  }
  return true;
}

/// The widest of T_nOL (if WITHNOL) and the transfers up to level L.
double widestCycles(const EcmResult &R, size_t L, bool WithNol = true) {
  double W = WithNol ? R.TnOL : 0;
  for (size_t I = 0; I < L; ++I)
    W = std::max(W, R.Transfers[I]);
  return W;
}

/// T_nOL plus what it waits for of the transfers up to level L: all of
/// each under `none`; under `full`, each link's share of the time the two
/// overlap (a loop with little L1 work cannot wait long for its lines).
double serialCycles(const EcmResult &R, size_t L) {
  double S = R.TnOL;
  for (size_t I = 0; I < L; ++I)
    S += R.SerialShares[I] * (R.Overlap == OverlapRule::None
                                  ? R.Transfers[I]
                                  : std::min(R.Transfers[I], R.TnOL));
  return S;
}

/// The loads', stores' and transfers' time with data in level L (0: the
/// L1): `none` serialises them all, `full` takes the widest, raised to
/// T_nOL plus the shares of the transfers it waits for.
double dataCycles(const EcmResult &R, size_t L) {
  return R.Overlap == OverlapRule::None ? serialCycles(R, L)
                                        : std::max(widestCycles(R, L), serialCycles(R, L));
}

/// A loop bound by a loop-carried chain whose chain waits for its lines in
/// some levels (ecm.recurrence_serial_share, by the data's level): there the
/// smaller of the chain's time and the data's adds its share to the larger.
/// The probe's rates are of streams that no chain holds back.
/// The share with data in level L (0 where none applies).
double recurrenceShare(const EcmResult &R, const ModelInput &In, size_t L) {
  const MachineModel &M = *In.Machine;
  if (L == 0 || L >= R.Levels.size() || !In.InCore || !In.InCore->Ok ||
      In.InCore->Bottleneck != InCoreBound::Recurrence)
    return 0;
  auto It = M.EcmRecurrenceSerialShare.find(R.Levels[L]);
  return It == M.EcmRecurrenceSerialShare.end() ? 0 : It->second;
}

/// The cycles per CL the chain's waits add with data in level L.
double recurrenceAdded(const EcmResult &R, const ModelInput &In, size_t L) {
  double S = recurrenceShare(R, In, L);
  return S > 0 ? S * std::min(R.TOL, dataCycles(R, L)) : 0;
}

void recurrenceWaits(EcmResult &R, const ModelInput &In) {
  std::string Raised;
  for (size_t L = 1; L < R.Predictions.size(); ++L) {
    double Added = recurrenceAdded(R, In, L);
    if (Added <= 0)
      continue;
    R.Predictions[L] = std::max(R.TOL, dataCycles(R, L)) + Added;
    Raised += (Raised.empty() ? "" : ", ") + R.Levels[L] + " +" + formatCycles(Added) +
              " cy/CL (" + formatCycles(100 * recurrenceShare(R, In, L)) + " %)";
  }
  if (!Raised.empty())
    R.Notes.push_back("the loop-carried chain (T_OL " + formatCycles(R.TOL) +
                      " cy/CL) waits for its lines: data in " + Raised +
                      " of the smaller of the chain's and the transfers' time "
                      "(ecm.recurrence_serial_share)");
}

/// The prediction per level under the machine's overlap rule, raised to
/// what latency-bound loads need; the TLB's cycles, added at every level.
double combine(EcmResult &R, const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  // Overlap rule: Intel's "none" serialises T_nOL and every transfer (they
  // all need the L1 ports or the same buses), "full" overlaps everything but
  // the shares of the transfers the machine file says T_nOL waits for.
  R.Levels.push_back(M.Caches[0].Name);
  R.Predictions.push_back(std::max(R.TOL, R.TnOL));
  std::string Raised;
  for (size_t I = 0; I < R.Transfers.size(); ++I) {
    R.Levels.push_back(M.levelName(I + 1));
    R.Predictions.push_back(std::max(R.TOL, dataCycles(R, I + 1)));
    if (serialCycles(R, I + 1) > widestCycles(R, I + 1) && R.Overlap == OverlapRule::Full)
      Raised += (Raised.empty() ? "" : ", ") + R.Levels.back();
  }
  if (!Raised.empty()) {
    std::string Shares;
    for (size_t I = 0; I < R.Transfers.size(); ++I)
      if (double S = R.SerialShares[I]; S > 0)
        Shares += (Shares.empty() ? "" : ", ") + formatCycles(100 * S) + " % of T_" + R.Links[I];
    R.Notes.push_back("data in " + Raised + ": T_nOL " + formatCycles(R.TnOL) +
                      " cy/CL waits for " + Shares +
                      " where they overlap it (ecm.tnol_serial_share): the L1's loads and "
                      "stores do not hide that much of the transfers");
  }

  recurrenceWaits(R, In);

  // Latency-bound loads: no overlap rule hides a chain of misses or more
  // misses than can be in flight.
  LatencyBound LB = latencyFor(In, R.Notes);
  for (size_t L = 0; L < R.Predictions.size(); ++L) {
    R.Latency.push_back(LB.at(L) * R.ItersPerCL);
    R.LatencyWhat.push_back(L < LB.What.size() ? LB.What[L] : "");
    R.LatencyKind.push_back(L < LB.Kind.size() ? LB.Kind[L] : BoundKind::Latency);
    R.Predictions[L] = std::max(R.Predictions[L], R.Latency.back());
  }

  // Address translation: TLB misses beyond each page's first add at every
  // level (a walk and the line it translates are one access's wait).
  double Tlb = tlbCyclesPerIt(In) * R.ItersPerCL;
  if (Tlb > 0) {
    for (double &P : R.Predictions)
      P += Tlb;
    R.Notes.push_back(tlbWhat(In) + ": " + formatCycles(Tlb) + " cy/CL added at every level");
  }
  return Tlb;
}

/// Multicore scaling: each core adds its share until the memory link is
/// full. The socket's memory transfer per CL.
double multicore(EcmResult &R, const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  double TEcmMem = R.Predictions.back();
  // The socket's rate for this loop's mix of fills and write-backs.
  size_t Last = M.Caches.size() - 1;
  double Bytes = linkBytesPerIt(In, Last), Fills = linkBytesPerIt(In, Last, /*Inward=*/true);
  std::string Kernel;
  double SocketGBs = M.Memory.socketGBs(Bytes > 0 ? Fills / Bytes : 1, &Kernel);
  double SocketBPC = M.ClockGHz > 0 ? SocketGBs / M.ClockGHz : 0;
  double TMem = SocketBPC > 0 ? Bytes * R.ItersPerCL / SocketBPC : R.Transfers.back();
  if (TMem < R.Transfers.back() * (1 - 1e-9))
    R.Notes.push_back("T_" + R.Links.back() + " " + formatCycles(R.Transfers.back()) +
                      " cy/CL at one core's " + formatCycles(M.Memory.gbsFor(1, 1)) +
                      " GB/s (" + M.Memory.oneCoreSource() + ")" +
                      (M.Memory.OneCoreWritebackGBs
                           ? " for fills and " + formatCycles(*M.Memory.OneCoreWritebackGBs) +
                                 " GB/s for write-backs (memory.one_core_writeback_gbs)"
                           : "") +
                      "; the socket's " + formatCycles(SocketGBs) + " GB/s (" + Kernel +
                      ", " + formatCycles(TMem) + " cy/CL) sets the saturation");
  auto GF = [&](double CyPerCL) { return gflops(R, M, CyPerCL); };
  if (TMem > 0) {
    R.SaturationCores = unsigned(std::ceil(TEcmMem / TMem - 1e-9));
    R.SaturatedGFlops = GF(TMem);
    for (unsigned N = 1; N <= std::max(M.CoresPerSocket, 1u); ++N)
      R.ScalingGFlops.push_back(std::min(N * GF(TEcmMem), R.SaturatedGFlops));
    if (M.CoresPerSocket && R.SaturationCores > M.CoresPerSocket)
      R.Notes.push_back("the memory bandwidth does not saturate with " +
                        std::to_string(M.CoresPerSocket) + " cores (n_s = " +
                        std::to_string(R.SaturationCores) + ")");
  }
  return TMem;
}

/// The summary per level, for the cores asked for, with its bottleneck and
/// advice.
void summarize(EcmResult &R, const ModelInput &In, double Tlb, double TMem) {
  const MachineModel &M = *In.Machine;
  const LoopKernel &K = *In.Loop;
  auto GF = [&](double CyPerCL) { return gflops(R, M, CyPerCL); };
  Prediction &P = R.Summary;
  P.Ok = R.Ok = true;
  P.DataLevel = residentLevel(M, In.WorkingSetBytes, In.Cores);
  unsigned Cores = std::max(In.Cores, 1u);
  for (size_t L = 0; L < R.Levels.size(); ++L) {
    double T = R.Predictions[L];
    bool Mem = L + 1 == R.Levels.size();
    double CyPerIt = T / R.ItersPerCL / Cores;
    // Only the memory link is shared, by the cores of a socket.
    if (Mem && Cores > 1) {
      CyPerIt = std::max(CyPerIt, TMem / R.ItersPerCL / M.socketsFor(Cores));
    }
    CyPerIt += In.ParallelLoopCyPerIt;
    std::string B;
    // Under full overlap T_nOL counts here only where it waits for a share
    // of the transfers (else it is the loads' own work, beside T_OL).
    double Data = L == 0 || M.EcmOverlap == OverlapRule::None ? dataCycles(R, L)
                                                                : widestCycles(R, L, false);
    std::string Largest = "T_nOL";
    double LargestT = R.TnOL;
    for (size_t I = 0; I < L; ++I) {
      if (R.Transfers[I] > LargestT) {
        LargestT = R.Transfers[I];
        Largest = "T_" + R.Links[I];
      }
    }
    bool Waits = L > 0 && M.EcmOverlap == OverlapRule::Full &&
                 serialCycles(R, L) > std::max(Data, R.TnOL);
    if (Waits)
      Data = serialCycles(R, L);
    BoundKind Kind;
    if (Tlb > std::max({R.TOL, Data, R.Latency[L]})) {
      B = "address translation (" + formatCycles(Tlb) + " cy/CL of TLB misses)";
      Kind = BoundKind::Tlb;
    } else if (R.Latency[L] > std::max(R.TOL, Data)) {
      B = R.LatencyWhat[L] + " (" + formatCycles(R.Latency[L]) + " cy/CL)";
      Kind = R.LatencyKind[L];
    } else if (double Added = recurrenceAdded(R, In, L); Added > 0) {
      B = "the loop-carried chain and the transfers it waits for (" +
          formatCycles(std::max(R.TOL, Data)) + " + " + formatCycles(Added) +
          " cy/CL, ecm.recurrence_serial_share)";
      Kind = R.TOL >= Data ? BoundKind::InCore : BoundKind::Transfers;
    } else if (R.TOL >= Data) {
      B = "in-core work (T_OL " + formatCycles(R.TOL) + " cy/CL)";
      Kind = BoundKind::InCore;
    } else if (L == 0) {
      B = "loads/stores into registers (T_nOL " + formatCycles(R.TnOL) + " cy/CL)";
      Kind = BoundKind::LoadsStores;
    } else if (Waits) {
      B = "loads/stores into registers and the share of the transfers they wait for (T_nOL " +
          formatCycles(R.TnOL) + " + " + formatCycles(Data - R.TnOL) + " = " +
          formatCycles(Data) + " cy/CL, ecm.tnol_serial_share)";
      Kind = BoundKind::Transfers;
    } else {
      B = "data transfers (" + formatCycles(Data) + " cy/CL, largest " + Largest + " " +
          formatCycles(LargestT) + ")";
      Kind = BoundKind::Transfers;
    }
    if (Mem && Cores >= R.SaturationCores && R.SaturationCores > 1) {
      B = "memory bandwidth (saturated at " + std::to_string(R.SaturationCores) + " cores)";
      Kind = BoundKind::MemorySaturated;
    }
    P.Levels.push_back(
        {R.Levels[L], CyPerIt, K.flops() ? GF(CyPerIt * R.ItersPerCL) : 0, B, Kind});
  }
  if (const LevelPrediction *At = P.atDataLevel()) {
    if (std::string A = mechanismAdvice(At->Kind); !A.empty())
      P.Advice = A;
    else if (At->Kind == BoundKind::PointerChase)
      P.Advice = "each iteration waits for the previous one's load from " + P.DataLevel +
                 ": shrink the chased data to a nearer level, or chase several lists at once";
    else if (At->Kind == BoundKind::Latency)
      P.Advice = "misses no prefetcher predicts wait the " + P.DataLevel +
                 " latency: sort or block the indices for locality, or prefetch them "
                 "in software";
    else if (At->Kind == BoundKind::InCore)
      P.Advice = "the core limits even with data in " + P.DataLevel +
                 ": cut T_OL (see the in-core bottleneck)";
    else if (P.DataLevel == R.Levels.front())
      P.Advice = "loads and stores limit with data in " + P.DataLevel +
                 ": fewer of them per CL (wider SIMD, register reuse)";
    else if (isMemoryLevel(P.DataLevel))
      P.Advice = "transfers dominate; " + std::to_string(R.SaturationCores) +
                 " core(s) saturate memory: reduce the lines per CL (blocking, "
                 "streaming stores avoid the write-allocate)";
    else
      P.Advice = "transfers dominate with data in " + P.DataLevel +
                 ": fewer lines per CL (reuse in registers or L1, blocking)";
  }
}

} // namespace

EcmResult perfmodel::ecm(const ModelInput &In) {
  EcmResult R;
  const MachineModel &M = *In.Machine;
  const LoopKernel &K = *In.Loop;
  R.Summary.Kind = ModelKind::Ecm;
  R.Overlap = M.EcmOverlap;
  if (M.Caches.empty()) {
    R.Reason = R.Summary.Reason = "the machine model has no caches";
    return R;
  }
  R.ItersPerCL = iterationsPerLine(In);
  R.FlopsPerCL = K.flops() * R.ItersPerCL;
  inCoreParts(R, In);
  if (!linkTransfers(R, In))
    return R;
  double Tlb = combine(R, In);
  double TMem = multicore(R, In);
  summarize(R, In, Tlb, TMem);
  // A library call's measured rate replaces the bounds; the table's
  // { ... ] ... } line says the same per cache line.
  if (std::string Note = libraryCallLevels(In, R.Summary); !Note.empty()) {
    double Written = writtenBytesPerIt(K);
    for (size_t I = 0; I < R.Levels.size() && I < R.Predictions.size(); ++I)
      if (std::optional<double> CyPerByte = M.libraryCyclesPerByte(In.InCore->LibraryCall, R.Levels[I]))
        R.Predictions[I] = Written * *CyPerByte * R.ItersPerCL;
    R.Notes.push_back(Note);
  }
  return R;
}

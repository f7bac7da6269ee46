//===- Roofline.cpp - Naive traffic and the hierarchical Roofline --------===//
//
// The hierarchical Roofline: naive traffic where nothing better is known,
// each level's bound (compute peak, flop mix, in-core, link bandwidth,
// latency, TLB) and the compute ceilings, with the advice of what binds.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace perfmodel;

NaiveTraffic perfmodel::naiveTraffic(const LoopKernel &K, const MachineModel &M) {
  NaiveTraffic T;
  bool WriteAllocate = M.Caches.empty() || M.Caches.front().WriteAllocate;
  for (const Access &A : K.Accesses) {
    if (A.Read)
      T.LoadBytes += A.ElementBytes;
    if (A.Write) {
      T.StoreBytes += A.ElementBytes;
      // A store to data the loop also reads finds its line already present.
      if (!A.Read && WriteAllocate)
        T.WriteAllocateBytes += A.ElementBytes;
    }
  }
  return T;
}

double perfmodel::l1PortCycles(const NaiveTraffic &T, const CoreModel &C) {
  return std::max(C.LoadBytesPerCycle > 0 ? T.LoadBytes / C.LoadBytesPerCycle : 0,
                  C.StoreBytesPerCycle > 0 ? T.StoreBytes / C.StoreBytesPerCycle : 0);
}

const RooflineLink &RooflineResult::atDataLevel() const {
  for (const RooflineLink &L : Levels)
    if (L.Level == Summary.DataLevel)
      return L;
  return Levels.back();
}

double perfmodel::flopMixCycles(const FlopCounts &F, const CoreModel &C, unsigned Lanes,
                                bool UseFma) {
  std::vector<FpUnit> Units = C.fpPipes();
  bool HasFma = std::any_of(Units.begin(), Units.end(), [](const FpUnit &U) { return U.Fma; });
  double Fma = UseFma && HasFma ? std::min({F.FmaContractible, F.Add, F.Mul}) : 0;
  std::optional<double> Busiest = C.fpMixCycles(F.Add - Fma, F.Mul - Fma, Fma);
  if (!Busiest)
    return 0; // the machine cannot run this mix: no statement
  return *Busiest / std::max(Lanes, 1u);
}

RooflineResult perfmodel::roofline(const ModelInput &In) {
  RooflineResult R = roofline(*In.Loop, *In.Machine, In.Traffic, inCoreCyclesPerIt(In),
                              In.Cores, linkUseOf(In));
  Prediction &P = R.Summary;
  P.Kind = ModelKind::Roofline;
  P.Ok = !R.Levels.empty();
  if (!P.Ok)
    P.Reason = "the machine model has no caches";
  P.DataLevel = residentLevel(*In.Machine, In.WorkingSetBytes, In.Cores);
  // The latency ceiling: loads that wait a level's latency (a chase, more
  // irregular misses than can be in flight) bound below every bandwidth roof.
  LatencyBound LB = latencyFor(In, R.Notes);
  for (size_t I = 0; I < R.Levels.size(); ++I) {
    RooflineLink &L = R.Levels[I];
    double Cy = LB.at(I) / std::max(In.Cores, 1u);
    if (Cy > L.BoundCyclesPerIt) {
      L.BoundCyclesPerIt = Cy;
      L.BoundGFlops = R.FlopsPerIt / Cy * In.Machine->ClockGHz;
      L.Binds = RooflineLink::Limit::Latency;
      L.Binding = "latency";
      L.LatencyWhat = LB.What[I];
      L.LatencyKind = I < LB.Kind.size() ? LB.Kind[I] : BoundKind::Latency;
    }
  }
  // Address translation beyond each page's first touch: no roof hides it
  // (a walk and the line it translates are one access's wait), so it adds.
  if (double Tlb = tlbCyclesPerIt(In) / std::max(In.Cores, 1u); Tlb > 0) {
    R.Notes.push_back(tlbWhat(In) + ": " + formatCycles(Tlb) +
                      " cy/it added to every level's bound");
    for (RooflineLink &L : R.Levels) {
      if (Tlb > L.BoundCyclesPerIt) {
        L.Binds = RooflineLink::Limit::Latency;
        L.Binding = "latency";
        L.LatencyWhat = "address translation (TLB misses)";
        L.LatencyKind = BoundKind::Tlb;
      }
      L.BoundCyclesPerIt += Tlb;
      L.BoundGFlops = R.FlopsPerIt / L.BoundCyclesPerIt * In.Machine->ClockGHz;
    }
  }
  // An OpenMP parallel loop's start and join: wall time beside every roof.
  if (double Fork = In.ParallelLoopCyPerIt; Fork > 0)
    for (RooflineLink &L : R.Levels) {
      L.BoundCyclesPerIt += Fork;
      L.BoundGFlops = R.FlopsPerIt / L.BoundCyclesPerIt * In.Machine->ClockGHz;
    }
  for (const RooflineLink &L : R.Levels) {
    using Limit = RooflineLink::Limit;
    std::string B = L.Binds == Limit::ComputePeak ? "compute peak"
                    : L.Binds == Limit::FlopMix   ? "flop mix on the FP pipes"
                    : L.Binds == Limit::InCore    ? "in-core execution"
                    : L.Binds == Limit::Latency   ? L.LatencyWhat
                                                  : "bandwidth of " + L.Binding;
    BoundKind Kind = L.Binds == Limit::ComputePeak || L.Binds == Limit::FlopMix ? BoundKind::Compute
                     : L.Binds == Limit::InCore                                ? BoundKind::InCore
                     : L.Binds == Limit::Latency                               ? L.LatencyKind
                                                                               : BoundKind::Transfers;
    P.Levels.push_back({L.Level, L.BoundCyclesPerIt, R.FlopsPerIt ? L.BoundGFlops : 0, B, Kind});
  }
  if (const LevelPrediction *At = P.atDataLevel()) {
    if (std::string A = mechanismAdvice(At->Kind); !A.empty())
      P.Advice = A;
    else if (At->Kind == BoundKind::Transfers)
      P.Advice = "bandwidth-bound (" + At->Bottleneck +
                 "): raise the arithmetic intensity (fewer bytes per flop: "
                 "blocking, fusing loops, smaller data types)";
    else if (At->Kind == BoundKind::PointerChase || At->Kind == BoundKind::Latency)
      P.Advice = "latency-bound with data in " + P.DataLevel +
                 ": more bandwidth would not help; fewer dependent or unpredictable "
                 "misses would (locality of the indices, several chains at once)";
    else if (At->Kind == BoundKind::InCore)
      P.Advice = "core-bound with data in " + P.DataLevel +
                 ": see the in-core bottleneck; more bandwidth would not help";
    else
      P.Advice = "compute-bound: only more flop/cycle (SIMD, FMA) or fewer flops help";
  }
  if (std::string Note = libraryCallLevels(In, P); !Note.empty())
    R.Notes.push_back(Note);
  return R;
}

RooflineResult perfmodel::roofline(const LoopKernel &K, const MachineModel &M,
                                   const TrafficResult *Traffic, double InCore,
                                   unsigned Cores, const LinkUse &U) {
  RooflineResult R;
  Cores = std::max(Cores, 1u);
  R.Cores = Cores;
  bool UseTraffic = Traffic && Traffic->Ok && Traffic->Links.size() == M.Caches.size();
  R.TrafficModel = UseTraffic ? Traffic->Method : TrafficSource::Naive;
  R.FlopsPerIt = K.flops();
  R.Traffic = naiveTraffic(K, M);
  if (UseTraffic) {
    // The enclosing loops' references (y[i] = sum once a row) at L1.
    R.Traffic.LoadBytes += Traffic->OuterLoadBytesPerIt;
    R.Traffic.StoreBytes += Traffic->OuterStoreBytesPerIt;
  }
  unsigned ElemBytes = flopElementBytes(K);
  if (K.Double.total() > 0) {
    R.Precision = "double";
    if (K.Single.total() > 0)
      R.Notes.push_back("mixed precision: the double-precision peak is used");
  } else if (K.Single.total() > 0) {
    R.Precision = "single";
  } else {
    R.Precision = "none";
  }
  // Cores run disjoint iterations: per-iteration cycles of the machine are a
  // core's cycles divided by the cores; every cache link is per core, memory
  // bandwidth per socket.
  unsigned Sockets = M.socketsFor(Cores);
  if (M.CoresPerSocket && Cores > M.CoresPerSocket * M.Sockets)
    R.Notes.push_back("more cores (" + std::to_string(Cores) + ") than the machine has (" +
                      std::to_string(M.CoresPerSocket * M.Sockets) + ")");
  double PeakPerCy = M.peakFlopsPerCycle(ElemBytes);
  R.PeakGFlops = PeakPerCy * M.ClockGHz * Cores;
  R.PeakCyclesPerIt = PeakPerCy > 0 ? R.FlopsPerIt / (PeakPerCy * Cores) : 0;
  R.InCoreCyclesPerIt = InCore / Cores;
  R.InCoreGFlops = InCore > 0 ? R.FlopsPerIt / R.InCoreCyclesPerIt * M.ClockGHz : 0;
  double MemGBs = M.Memory.gbsFor(Cores, Sockets);
  R.RidgeIntensity = MemGBs > 0 ? R.PeakGFlops / MemGBs : 0;
  if (R.FlopsPerIt == 0)
    R.Notes.push_back("no floating-point work: bounds are given as cycles per iteration");

  // Horizontal roofs: the machine's, then this loop's flop mix on the pipes.
  const FlopCounts &F = ElemBytes == 4 ? K.Single : K.Double;
  unsigned Lanes = M.Core.lanes(ElemBytes);
  auto GF = [&](double Cy) { return Cy > 0 ? R.FlopsPerIt / Cy * M.ClockGHz : 0; };
  R.Ceilings.push_back({"peak", R.PeakGFlops});
  if (M.Core.FmaUnits > 0)
    R.Ceilings.push_back({"no FMA", R.PeakGFlops / 2});
  if (Lanes > 1)
    R.Ceilings.push_back({"no SIMD", R.PeakGFlops / Lanes});
  if (R.FlopsPerIt > 0) {
    R.MixCyclesPerIt = flopMixCycles(F, M.Core, Lanes, true) / Cores;
    // Only the mix's own flops count: divisions and calls are not on these pipes.
    double MixFlops = double(F.Add + F.Mul);
    auto MixGF = [&](double Cy) { return Cy > 0 ? MixFlops / Cy * M.ClockGHz : 0; };
    if (R.MixCyclesPerIt > 0) {
      R.Ceilings.push_back({"loop mix, SIMD", MixGF(R.MixCyclesPerIt)});
      R.Ceilings.push_back(
          {"loop mix, scalar", MixGF(flopMixCycles(F, M.Core, 1, true) / Cores)});
      if (F.FmaContractible && M.Core.FmaUnits)
        R.Ceilings.push_back(
            {"loop mix, no FMA", MixGF(flopMixCycles(F, M.Core, Lanes, false) / Cores)});
    }
    if (F.Div + F.Sqrt + F.Other > 0)
      R.Notes.push_back("divisions, square roots and calls are not in the flop-mix "
                        "ceilings; the in-core model costs them");
    if (MixFlops < R.FlopsPerIt)
      R.MixCyclesPerIt = 0; // not a bound on the whole loop
  }
  if (InCore > 0)
    R.Ceilings.push_back({"in-core model", GF(R.InCoreCyclesPerIt)});

  auto AddLevel = [&](const std::string &Level, const std::string &Link, double Bytes,
                      double Cycles) {
    RooflineLink L;
    L.Level = Level;
    L.Link = Link;
    L.BytesPerIt = Bytes;
    L.CyclesPerIt = Cycles;
    L.BandwidthGBs = Cycles > 0 ? Bytes / Cycles * M.ClockGHz : 0;
    L.Intensity = Bytes > 0 ? R.FlopsPerIt / Bytes : std::numeric_limits<double>::infinity();
    L.RoofGFlops = Cycles > 0 ? R.FlopsPerIt / Cycles * M.ClockGHz
                              : std::numeric_limits<double>::infinity();
    // Data in this level crosses this link and every link closer to the core.
    double Worst = R.PeakCyclesPerIt;
    std::string Binding = "compute peak";
    L.Binds = RooflineLink::Limit::ComputePeak;
    if (R.MixCyclesPerIt > Worst * (1 + 1e-9)) {
      Worst = R.MixCyclesPerIt;
      Binding = "flop mix";
      L.Binds = RooflineLink::Limit::FlopMix;
    }
    if (R.InCoreCyclesPerIt > 0 && R.InCoreCyclesPerIt >= Worst * (1 - 1e-9)) {
      Worst = std::max(Worst, R.InCoreCyclesPerIt);
      Binding = "in-core";
      L.Binds = RooflineLink::Limit::InCore;
    }
    for (const RooflineLink &Inner : R.Levels)
      if (Inner.CyclesPerIt > Worst) {
        Worst = Inner.CyclesPerIt;
        Binding = Inner.Link;
        L.Binds = RooflineLink::Limit::Link;
      }
    if (Cycles > Worst) {
      Worst = Cycles;
      Binding = Link;
      L.Binds = RooflineLink::Limit::Link;
    }
    L.BoundCyclesPerIt = Worst;
    L.BoundGFlops = Worst > 0 ? R.FlopsPerIt / Worst * M.ClockGHz : R.PeakGFlops;
    L.Binding = Binding;
    R.Levels.push_back(L);
  };

  const NaiveTraffic &T = R.Traffic;
  double L1Cycles = l1PortCycles(T, M.Core);
  if (M.Caches.empty())
    return R;
  AddLevel(M.Caches[0].Name, M.Caches[0].Name + "-reg", T.l1Bytes(), L1Cycles / Cores);
  // Link I carries the data between cache I-1 and the level beyond it.
  auto LinkBytes = [&](size_t I) {
    return UseTraffic ? Traffic->Links[I - 1].totalBytesPerIt() : T.beyondL1Bytes();
  };
  auto InBytes = [&](size_t I) {
    return UseTraffic ? Traffic->Links[I - 1].LoadBytesPerIt
                      : T.LoadBytes + T.WriteAllocateBytes;
  };
  for (size_t I = 1; I < M.Caches.size(); ++I) {
    double Bytes = LinkBytes(I), In = InBytes(I);
    AddLevel(M.Caches[I].Name, M.Caches[I].Name + "-" + M.Caches[I - 1].Name, Bytes,
             linkCycles(M, I - 1, In, Bytes - In, Cores, /*OneCore=*/false, U));
  }
  // Fills and write-backs each at the cores' rates (MemGBs when the file has
  // no write-back rate of its own), within the sockets' bandwidth.
  double MemBytes = LinkBytes(M.Caches.size());
  double MemIn = InBytes(M.Caches.size());
  // Lines the L1 refills from a cache while the rest streams from memory
  // wait beside the memory stream (memory.cache_line_cy), each core its own.
  double Stall = UseTraffic && M.Memory.CacheLineCy
                     ? cacheLineCyclesPerIt(M, Traffic, iterationsPerLine(K, M)) / Cores
                     : 0;
  AddLevel("MEM", "MEM-" + M.Caches.back().Name, MemBytes,
           M.Memory.transferNs(MemIn, MemBytes - MemIn, Cores, Sockets) * M.ClockGHz + Stall);
  if (Stall > 0)
    R.Notes.push_back(cacheLineNote(M, Traffic, "MEM-" + M.Caches.back().Name, Stall, 1,
                                    "cy/it", "iteration"));
  return R;
}

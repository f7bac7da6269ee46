//===- Roofline.cpp - Naive traffic and the hierarchical Roofline --------===//
#include "perfmodel/Roofline.h"

#include <algorithm>
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

RooflineResult perfmodel::roofline(const LoopKernel &K, const MachineModel &M,
                                   const TrafficResult *Traffic, double InCore) {
  RooflineResult R;
  bool UseTraffic = Traffic && Traffic->Ok && Traffic->Links.size() == M.Caches.size();
  R.TrafficModel = UseTraffic ? Traffic->Method : "naive";
  R.FlopsPerIt = K.flops();
  R.Traffic = naiveTraffic(K, M);
  unsigned ElemBytes = 8;
  if (K.Double.total() > 0) {
    R.Precision = "double";
    if (K.Single.total() > 0)
      R.Notes.push_back("mixed precision: the double-precision peak is used");
  } else if (K.Single.total() > 0) {
    R.Precision = "single";
    ElemBytes = 4;
  } else {
    R.Precision = "none";
  }
  double PeakPerCy = M.peakFlopsPerCycle(ElemBytes);
  R.PeakGFlops = PeakPerCy * M.ClockGHz;
  R.PeakCyclesPerIt = PeakPerCy > 0 ? R.FlopsPerIt / PeakPerCy : 0;
  R.InCoreCyclesPerIt = InCore;
  R.InCoreGFlops = InCore > 0 ? R.FlopsPerIt / InCore * M.ClockGHz : 0;
  double MemGBs = M.Memory.effectiveGBs();
  R.RidgeIntensity = MemGBs > 0 ? R.PeakGFlops / MemGBs : 0;
  if (R.FlopsPerIt == 0)
    R.Notes.push_back("no floating-point work: bounds are given as cycles per iteration");

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
    if (R.InCoreCyclesPerIt > Worst) {
      Worst = R.InCoreCyclesPerIt;
      Binding = "in-core";
    }
    for (const RooflineLink &Inner : R.Levels)
      if (Inner.CyclesPerIt > Worst) {
        Worst = Inner.CyclesPerIt;
        Binding = Inner.Link;
      }
    if (Cycles > Worst) {
      Worst = Cycles;
      Binding = Link;
    }
    L.BoundCyclesPerIt = Worst;
    L.BoundGFlops = Worst > 0 ? R.FlopsPerIt / Worst * M.ClockGHz : R.PeakGFlops;
    L.Binding = Binding;
    R.Levels.push_back(L);
  };

  const NaiveTraffic &T = R.Traffic;
  // Registers <-> L1: loads and stores use separate ports, so they overlap.
  double L1Cycles = std::max(
      M.Core.LoadBytesPerCycle > 0 ? T.LoadBytes / M.Core.LoadBytesPerCycle : 0,
      M.Core.StoreBytesPerCycle > 0 ? T.StoreBytes / M.Core.StoreBytesPerCycle : 0);
  if (M.Caches.empty())
    return R;
  AddLevel(M.Caches[0].Name, M.Caches[0].Name + "-reg", T.l1Bytes(), L1Cycles);
  // Link I carries the data between cache I-1 and the level beyond it.
  auto LinkBytes = [&](size_t I) {
    return UseTraffic ? Traffic->Links[I - 1].totalBytesPerIt() : T.beyondL1Bytes();
  };
  for (size_t I = 1; I < M.Caches.size(); ++I) {
    const CacheLevel &Inner = M.Caches[I - 1];
    double BPC = Inner.BytesPerCycleFromNext.value_or(0);
    double Bytes = LinkBytes(I);
    AddLevel(M.Caches[I].Name, M.Caches[I].Name + "-" + Inner.Name, Bytes,
             BPC > 0 ? Bytes / BPC : 0);
  }
  double MemBPC = MemGBs / M.ClockGHz;
  double MemBytes = LinkBytes(M.Caches.size());
  AddLevel("MEM", "MEM-" + M.Caches.back().Name, MemBytes,
           MemBPC > 0 ? MemBytes / MemBPC : 0);
  return R;
}

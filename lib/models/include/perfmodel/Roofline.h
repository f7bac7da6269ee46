//===- Roofline.h - Naive traffic and the hierarchical Roofline -*- C++ -*-===//
//
// Registers <-> L1 traffic is every reference once. Beyond L1 the traffic of
// each link comes from the cache model; without one, every reference is
// assumed to cross every level once (no reuse in caches), plus the
// write-allocate fill of stores. The Roofline bound for data in level X is the smallest of the
// compute peak and AI x bandwidth of each link between X and the registers.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_ROOFLINE_H
#define PERFMODEL_ROOFLINE_H

#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Model.h"
#include "perfmodel/Traffic.h"

#include <string>
#include <vector>

namespace perfmodel {

struct NaiveTraffic {
  double LoadBytes = 0;          ///< per source iteration, every read once
  double StoreBytes = 0;         ///< every written reference once
  double WriteAllocateBytes = 0; ///< stored lines read first (not read by the loop)
  double l1Bytes() const { return LoadBytes + StoreBytes; }
  double beyondL1Bytes() const { return LoadBytes + StoreBytes + WriteAllocateBytes; }
};

NaiveTraffic naiveTraffic(const LoopKernel &K, const MachineModel &M);

/// Cycles per iteration the L1 ports need for T's loads and stores; loads and
/// stores use separate ports, so they overlap.
double l1PortCycles(const NaiveTraffic &T, const CoreModel &C);

/// One link of the memory hierarchy, as the data of one level reaches the core.
struct RooflineLink {
  std::string Level;    ///< where the data lives: "L1", "L2", ..., "MEM"
  std::string Link;     ///< "L1-reg", "L2-L1", ..., "MEM-L3"
  double BytesPerIt = 0;
  double Intensity = 0;     ///< flop per byte over this link
  double BandwidthGBs = 0;  ///< sustained rate of the link for this traffic mix
  double CyclesPerIt = 0;   ///< time the link needs per iteration
  double RoofGFlops = 0;    ///< Intensity x Bandwidth
  double BoundGFlops = 0;   ///< data in Level: min(peak, every roof up to here)
  /// What binds data in this level: the flop peak, the loop's flop mix on
  /// the FP pipes, the in-core model, a latency, or a link's bandwidth.
  enum class Limit { ComputePeak, FlopMix, InCore, Latency, Link } Binds = Limit::ComputePeak;
  std::string Binding;      ///< Binds in words: "compute peak", ..., or the link that binds
  double BoundCyclesPerIt = 0; ///< the same bound as cycles per iteration
  std::string LatencyWhat;     ///< Binding "latency": the mechanism in words
  BoundKind LatencyKind = BoundKind::Latency; ///< Binding "latency": its kind
};

/// A horizontal roof: attainable GFLOP/s for some restriction of the code.
struct ComputeCeiling {
  std::string Name; ///< "peak", "no FMA", "no SIMD", "loop mix, SIMD", ...
  double GFlops = 0;
};

/// Cycles per iteration for the adds, multiplies and FMAs of F on the
/// floating-point pipes of C, LANES elements per operation, FMA contraction
/// when USEFMA. 0 when the mix has none of these operations.
double flopMixCycles(const FlopCounts &F, const CoreModel &C, unsigned Lanes, bool UseFma);

struct RooflineResult {
  TrafficSource TrafficModel = TrafficSource::Naive; ///< where the traffic beyond L1 comes from
  double FlopsPerIt = 0;
  std::string Precision;   ///< "double", "single", "none"
  double PeakGFlops = 0;
  double PeakCyclesPerIt = 0; ///< flops / peak flops per cycle
  double InCoreCyclesPerIt = 0; ///< in-core model, data in L1 (0: not run)
  double InCoreGFlops = 0;      ///< the in-core ceiling
  double RidgeIntensity = 0;  ///< peak / memory bandwidth
  unsigned Cores = 1;         ///< peaks and bandwidths are for this many cores
  double MixCyclesPerIt = 0;  ///< the loop's flop mix on the FP pipes (SIMD)
  std::vector<ComputeCeiling> Ceilings; ///< peak first
  Prediction Summary;
  /// The level the working set lives in (Summary.DataLevel), else memory.
  const RooflineLink &atDataLevel() const;
  NaiveTraffic Traffic;
  std::vector<RooflineLink> Levels; ///< L1 first, memory last
  std::vector<std::string> Notes;
};

/// Roofline with the traffic beyond L1 taken from TRAFFIC when it is given and
/// valid (one link per cache level), else from the naive count.
/// INCORE, when positive, is the in-core model's cycles per source iteration
/// with data in L1; it replaces the compute peak as the compute roof.
/// U picks a link's rate where the file states it by set or direction.
RooflineResult roofline(const LoopKernel &K, const MachineModel &M,
                        const TrafficResult *Traffic = nullptr, double InCore = 0,
                        unsigned Cores = 1, const LinkUse &U = {});
/// The model behind the common interface.
RooflineResult roofline(const ModelInput &In);
inline RooflineResult naiveRoofline(const LoopKernel &K, const MachineModel &M) {
  return roofline(K, M, nullptr);
}

} // namespace perfmodel

#endif

//===- Ecm.h - Execution-Cache-Memory model ---------------------*- C++ -*-===//
//
// Single-core ECM in cycles per cache line of work (CL): in-core T_OL (work
// that overlaps with data transfers) and T_nOL (loads/stores into registers),
// plus one transfer time per link of the hierarchy; the machine's overlap rule
// combines them into a prediction for data in each level. Multicore: linear
// scaling until the memory link saturates.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_ECM_H
#define PERFMODEL_ECM_H

#include "perfmodel/Model.h"

#include <string>
#include <vector>

namespace perfmodel {

struct EcmResult {
  bool Ok = false;
  std::string Reason;
  double ItersPerCL = 0;   ///< source iterations per cache line of work
  double FlopsPerCL = 0;
  double TOL = 0, TnOL = 0; ///< cy/CL
  bool InCoreEstimated = false; ///< T_OL/T_nOL from counts, not the in-core model
  OverlapRule Overlap = OverlapRule::None; ///< the machine's rule
  std::vector<std::string> Links;   ///< "L1L2", "L2L3", "L3Mem"
  std::vector<double> Transfers;    ///< cy/CL per link
  /// Per link, the share of its transfers T_nOL waits for (1 under `none`,
  /// ecm.tnol_serial_share under `full`).
  std::vector<double> SerialShares;
  std::vector<std::string> Levels;  ///< "L1", ..., "MEM"
  std::vector<double> Predictions;  ///< cy/CL with data in each level
  /// Latency bound per level (pointer chase, irregular misses / misses in
  /// flight), cy/CL, 0 where none; a prediction is never below it.
  std::vector<double> Latency;
  std::vector<std::string> LatencyWhat; ///< per level, in words
  std::vector<BoundKind> LatencyKind;   ///< per level
  /// Multicore with data in memory: P(n) = min(n P_ECM, P_sat).
  unsigned SaturationCores = 0; ///< n_s = ceil(T_ECM(Mem) / T_L3Mem)
  double SaturatedGFlops = 0;   ///< P_sat, one socket
  std::vector<double> ScalingGFlops; ///< P(n) for n = 1 .. cores per socket
  Prediction Summary;
  std::vector<std::string> Notes;

  /// "{ 1 || 2 | 4 | 8 | 16.2 } cy/CL"
  std::string contributions() const;
  /// "{ 2 ] 6 ] 14 ] 30.2 } cy/CL"
  std::string predictions() const;
};

EcmResult ecm(const ModelInput &In);

} // namespace perfmodel

#endif

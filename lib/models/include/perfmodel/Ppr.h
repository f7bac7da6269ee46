//===- Ppr.h - Probability-process-RAM model (Xie, Tan, Sun) ----*- C++ -*-===//
//
// PPR's equations (1)-(4), single core, per source iteration:
//   T_process   = max(S_DAG(A, M, I_FMA), S_DAG(L, S))            (1)
//   T_regular   = regular bytes / min bandwidth from their level   (2)
//   T_irregular = sum over levels of misses x CL / bandwidth       (3)
//   Perf        = flops x f / max(S_DAG(A,M,I_FMA),
//                                 S_DAG(L,S) + T_regular + T_irregular)  (4)
// S_DAG of the compute and the load/store instruction groups come from the
// in-core schedule (their port cycles); irregular misses from the simulator.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PPR_H
#define PERFMODEL_PPR_H

#include "perfmodel/Model.h"

#include <string>
#include <vector>

namespace perfmodel {

struct PprResult {
  bool Ok = false;
  std::string Reason;
  /// Instructions per source iteration: adds, multiplies, FMAs, loads, stores.
  double A = 0, M = 0, Fma = 0, L = 0, S = 0;
  double ComputeCy = 0;   ///< S_DAG(A, M, I_FMA) per iteration
  double LoadStoreCy = 0; ///< S_DAG(L, S) per iteration
  std::vector<std::string> Levels;   ///< "L1", ..., "MEM"
  std::vector<double> RegularBytes;  ///< per iteration, data from that level
  std::vector<double> RegularCy;     ///< eq. (2) per level
  double IrregularCy = 0;            ///< eq. (3), at the bound sizes
  std::vector<double> TotalCy;       ///< the denominator of eq. (4) per level
  Prediction Summary;
  std::vector<std::string> Notes;
};

PprResult ppr(const ModelInput &In);

} // namespace perfmodel

#endif

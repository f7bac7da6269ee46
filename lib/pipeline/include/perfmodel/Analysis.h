//===- Analysis.h - What the pipeline found for each loop ------*- C++ -*-===//
//
// The pipeline's results, the one structure every view reads: per loop the
// stage results (in-core, traffic, TLB) and each model's prediction, with
// the rule that picks the headline; per run the machine, the models asked
// for and run-level notes.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_ANALYSIS_H
#define PERFMODEL_ANALYSIS_H

#include "perfmodel/Ecm.h"
#include "perfmodel/InCore.h"
#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Ppr.h"
#include "perfmodel/Roofline.h"

#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

struct LoopReport {
  const LoopKernel *Loop = nullptr;
  std::optional<RooflineResult> Roofline;  ///< for modelled loops
  std::optional<TrafficResult> Conditions; ///< layer conditions, if run
  std::optional<TrafficResult> Simulated;  ///< cache simulator, if run
  std::optional<InCoreResult> InCore;      ///< in-core model, if run
  std::optional<TlbMisses> Tlb;            ///< when the machine gives a TLB
  std::optional<double> WorkingSetBytes;   ///< at the bound sizes
  std::optional<double> Iterations;        ///< of the whole nest, at the bound sizes
  std::optional<EcmResult> Ecm;
  std::optional<PprResult> Ppr;
  /// The summaries of the models that ran, in the order Roofline, ECM, PPR.
  std::vector<const Prediction *> predictions() const;
  /// The one prediction to believe, by a rule fixed in advance (docs/models.md):
  /// ECM, else PPR, else the Roofline, the first that ran and succeeded.
  const Prediction *headline() const;
  /// The headline at the data level (null when no model succeeded).
  const LevelPrediction *headlineLevel() const;
  /// What following the bottleneck's advice can save at most, per source
  /// iteration: data in L1 instead of its level when transfers bind, else the
  /// in-core time down to the next in-core bound. 0 when nothing is promised.
  double promisedGainCyclesPerIt() const;
};

/// Which models to run and for how many cores.
struct ModelSelection {
  bool Roofline = true, Ecm = true, Ppr = true;
  unsigned Cores = 1;
};

struct AnalysisReport {
  const KernelIR *IR = nullptr;
  const MachineModel *Machine = nullptr;
  std::vector<LoopReport> Loops;
  std::vector<std::string> Notes; ///< run-level notes (machine choice, ...)
  ModelSelection Models;          ///< what was asked for
};

} // namespace perfmodel

#endif

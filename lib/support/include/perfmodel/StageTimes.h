//===- StageTimes.h - Where an analysis spends its time --------*- C++ -*-===//
//
// Exclusive wall time per pipeline stage, for `analyze --stage-times` and the
// speed benches: a scope charges the time until the next scope opens or it
// closes to its stage, so nested stages are not counted twice and the stages
// add up to the whole run. Off unless enabled; then a scope costs two clock
// reads.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_STAGETIMES_H
#define PERFMODEL_STAGETIMES_H

#include "llvm/Support/raw_ostream.h"

namespace perfmodel {

enum class Stage {
  Setup,           ///< options, machine model, what no other stage takes
  FrontEnd,        ///< Clang's parse and the loop analysis
  Compile,         ///< clang-19 compiling the file for the in-core model
  ObjectCode,      ///< reading the object, matching machine loops to source loops
  InCore,          ///< port, front-end and recurrence analysis of a block
  Nest,            ///< replaying the compiled nest at the bound sizes
  LayerConditions, ///< analytic traffic
  Simulator,       ///< the cache simulator
  Models,          ///< Roofline, ECM, PPR
  Report,          ///< rendering the report (text, JSON, charts)
  NumStages
};

/// Starts counting (and the Setup stage's clock).
void enableStageTimes();
/// A table of the stages, their seconds and shares, to OS.
void printStageTimes(llvm::raw_ostream &OS);

/// Charges the time from here to its end (less the scopes opened inside) to
/// its stage.
class StageScope {
public:
  explicit StageScope(Stage S);
  ~StageScope();
  StageScope(const StageScope &) = delete;
  StageScope &operator=(const StageScope &) = delete;

private:
  bool Active;
};

} // namespace perfmodel

#endif

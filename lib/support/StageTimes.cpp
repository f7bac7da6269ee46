//===- StageTimes.cpp - Exclusive wall time per pipeline stage ------------===//
//
// Wall time per pipeline stage, exclusive of nested stages (--stage-times):
// a scope timer per stage and the table printed at the end.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/StageTimes.h"

#include "llvm/Support/Format.h"

#include <array>
#include <chrono>
#include <vector>

using namespace perfmodel;

namespace {
using Clock = std::chrono::steady_clock;

struct Counter {
  bool Enabled = false;
  std::array<double, size_t(Stage::NumStages)> Seconds{};
  std::vector<Stage> Open{Stage::Setup};
  Clock::time_point Since;

  /// Charges the time since the last switch to the innermost open stage.
  void charge() {
    Clock::time_point Now = Clock::now();
    Seconds[size_t(Open.back())] += std::chrono::duration<double>(Now - Since).count();
    Since = Now;
  }
};

Counter &counter() {
  static Counter C;
  return C;
}

const char *stageName(Stage S) {
  switch (S) {
  case Stage::Setup: return "setup";
  case Stage::FrontEnd: return "front end (parse, loops)";
  case Stage::Compile: return "compile (clang-19)";
  case Stage::ObjectCode: return "object code, loop matching";
  case Stage::InCore: return "in-core blocks";
  case Stage::Nest: return "nest replay";
  case Stage::LayerConditions: return "layer conditions";
  case Stage::Simulator: return "cache simulator";
  case Stage::Models: return "models";
  case Stage::Report: return "report";
  case Stage::NumStages: break;
  }
  return "?";
}
} // namespace

void perfmodel::enableStageTimes() {
  Counter &C = counter();
  C.Enabled = true;
  C.Since = Clock::now();
}

void perfmodel::printStageTimes(llvm::raw_ostream &OS) {
  Counter &C = counter();
  if (!C.Enabled)
    return;
  C.charge();
  double Total = 0;
  for (double S : C.Seconds)
    Total += S;
  OS << "perfmodel: time per stage (wall, exclusive)\n";
  for (size_t I = 0; I < C.Seconds.size(); ++I)
    OS << llvm::format("  %-30s %8.3f s %5.1f %%\n", stageName(Stage(I)), C.Seconds[I],
                       Total > 0 ? 100 * C.Seconds[I] / Total : 0.0);
  OS << llvm::format("  %-30s %8.3f s\n", static_cast<const char *>("total"), Total);
}

StageScope::StageScope(Stage S) : Active(counter().Enabled) {
  if (!Active)
    return;
  Counter &C = counter();
  C.charge();
  C.Open.push_back(S);
}

StageScope::~StageScope() {
  if (!Active)
    return;
  Counter &C = counter();
  C.charge();
  if (C.Open.size() > 1)
    C.Open.pop_back();
}

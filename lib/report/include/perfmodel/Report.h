//===- Report.h - Text and JSON views of an analysis -----------*- C++ -*-===//
//
// Views only read the results; they compute nothing a model should.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_REPORT_H
#define PERFMODEL_REPORT_H

#include "perfmodel/InCore.h"
#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Roofline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

/// Version of the JSON output; see docs/json-schema.md.
constexpr int JsonSchemaVersion = 1;

struct LoopReport {
  const LoopKernel *Loop = nullptr;
  std::optional<RooflineResult> Roofline;  ///< for modelled loops
  std::optional<TrafficResult> Conditions; ///< layer conditions, if run
  std::optional<TrafficResult> Simulated;  ///< cache simulator, if run
  std::optional<InCoreResult> InCore;      ///< in-core model, if run
};

struct AnalysisReport {
  const KernelIR *IR = nullptr;
  const MachineModel *Machine = nullptr;
  std::vector<LoopReport> Loops;
  std::vector<std::string> Notes; ///< run-level notes (machine choice, ...)
};

void printText(llvm::raw_ostream &OS, const AnalysisReport &R);
void printJSON(llvm::raw_ostream &OS, const AnalysisReport &R);
void printMachineText(llvm::raw_ostream &OS, const MachineModel &M);
/// The in-core section: bounds, port pressure per instruction, critical chain.
/// LINEBYTES > 0 adds cycles per cache line of work.
void printInCoreText(llvm::raw_ostream &OS, const InCoreResult &R, unsigned Indent,
                     unsigned LineBytes = 0);
llvm::json::Object inCoreJSON(const InCoreResult &R);

/// Trip count of one loop level under BINDINGS, when it does not depend on
/// an enclosing counter or loaded data.
std::optional<int64_t> tripCount(const LoopLevel &L,
                                 const std::map<std::string, int64_t> &Bindings);

/// Compact number formatting used by every text view: up to SIG significant
/// digits, no trailing zeros, no exponent for ordinary magnitudes.
std::string formatNumber(double V, int Sig = 3);

} // namespace perfmodel

#endif

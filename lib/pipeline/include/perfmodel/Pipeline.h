//===- Pipeline.h - The per-loop pipeline every entry point runs -*- C++ -*-===//
//
// In-core model at the bound sizes, then traffic beyond L1 (layer conditions
// or the simulator, by the cache policy), then the performance models: the
// stages run in that order in modelLoops, which the command line (each
// subcommand, the project mode) and the Clang plugin all call, so a change of
// policy lands everywhere. Views read the AnalysisReport it fills.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PIPELINE_H
#define PERFMODEL_PIPELINE_H

#include "perfmodel/Analysis.h"
#include "perfmodel/Traffic.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

/// Traffic beyond L1: auto (layer conditions, the simulator where they do
/// not apply or are not decisive), lc, sim, both (simulator preferred),
/// none (naive count).
enum class TrafficMethod { Auto, LayerConditions, Simulator, Both, None };

/// The policy or basis a command line names ("auto", "lc", ...; "compiled",
/// "steady", "source"), nullopt for another word.
std::optional<TrafficMethod> trafficMethodNamed(const std::string &Name);
std::optional<InCoreBasis> inCoreBasisNamed(const std::string &Name);

struct PipelineOptions {
  ModelSelection Models;
  TrafficMethod Cache = TrafficMethod::Auto;
  /// Compile the kernel for the in-core model (with CompileArgs).
  bool InCore = true;
  InCoreBasis Basis = InCoreBasis::Compiled;
  std::vector<std::string> CompileArgs;
  /// Alignment in bytes of arrays whose alignment the source does not give
  /// (x86-64 glibc's malloc: 16); decides which vector accesses split lines.
  unsigned AssumeAlign = 16;
  /// The share of a branch on the data's outcomes the predictor misses (0:
  /// predicted; 0.5: outcomes at random): the data is not the model's to know.
  double BranchMissRate = 0;
  /// Where the functions of a linked program (a timing harness) start, by
  /// symbol: their loops' code lines are then known, not placed at the
  /// likeliest of the places the object leaves open.
  std::map<std::string, uint64_t> FunctionAddresses;
  SimOptions Sim;
  /// Loops to report (null: all); the in-core compile runs only for these.
  std::function<bool(const LoopKernel &)> Select;
  /// Outside `auto`, whether to test if the layer conditions are decisive
  /// (a note in the report; it reruns them with a way more and less).
  bool EdgeNotes = true;
};


/// The in-core options of machine M under the pipeline's options.
InCoreOptions inCoreOptionsFor(const MachineModel &M, const PipelineOptions &O);

/// Whether the loop's machine code stores only with non-temporal stores
/// (movnt*), which bypass the caches and allocate no line.
bool allStoresNonTemporal(const InCoreResult &IC);

/// Runs the pipeline on every loop of IR on machine M and appends the loops
/// to R (with run-level notes). KNOWN, when given, is the in-core result per
/// loop from an earlier call (the machine code does not depend on -D sizes).
void modelLoops(AnalysisReport &R, const KernelIR &IR, const MachineModel &M,
                const PipelineOptions &O, const std::vector<InCoreResult> *Known = nullptr);

} // namespace perfmodel

#endif

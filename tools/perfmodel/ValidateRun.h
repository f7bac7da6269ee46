//===- ValidateRun.h - One run of perfmodel validate (internal) -*- C++ -*-===//
//
// The validate command's run: the file, its machines and the L3 this host
// keeps (ValidateRun.cpp), each loop timed at one size per level beside its
// predictions (ValidateTiming.cpp), and the helpers both share.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_TOOL_VALIDATERUN_H
#define PERFMODEL_TOOL_VALIDATERUN_H

#include "Common.h"
#include "Recording.h"

#include "perfmodel/InCore.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Report.h"
#include "perfmodel/Validate.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

#include <map>
#include <optional>

namespace perfmodel::tool {

std::set<std::string> sizeParams(const LoopKernel &K, const KernelIR &IR);
double probeOpsPerCycle(const std::vector<uint8_t> &Loop, const InCoreOptions &O);
double probeAddsPerCycle(const InCoreOptions &O);
double probeFpAddsPerCycle(const InCoreOptions &O);
RecordedRun recordedRun(const AnalyzeArgs &A, const std::vector<std::string> &Cmd,
                        const MachineModel &M, const Inputs &In, uint64_t KeptL3);
RecordedRow recordedRow(const LoopKernel &K, const std::string &Level, const KernelIR &IR,
                        const LoopReport &LR, double Iters, double GHz, double Cy,
                        const Timing &T);

struct ValidateArgs {
  std::string Size;     ///< the parameter varied per level
  std::vector<std::string> Levels;
  unsigned Reps = 5;
  /// Harness processes per size: each gets its own physical pages, which
  /// move memory-bound timings on a VM; the median of their medians.
  unsigned Processes = 1;
  double MaxCallSeconds = 2; ///< sizes whose one call is predicted slower are skipped
  /// Further machine models predicted against the same timings (B, C, ...).
  std::vector<std::string> AlsoMachines;
  /// Predict with the model's L3 where this host keeps less of it.
  bool ModelL3 = false;
  /// --record FILE: the timed rows kept for later replays.
  std::string Record;
};

/// A further machine predicted beside the first on the same measurements.
struct AlsoMachine {
  std::string Label; ///< "B", "C", ...
  MachineModel M;
  InCoreOptions IO;
  std::vector<InCoreResult> InCore;
  bool HostClock = false; ///< a model of this host at its measured clock
};

/// One run of validate: the file, its machines and the L3 this host keeps
/// (setUp), then each loop timed at one size per level beside its
/// predictions (validateLoop, timeLevel), then what the harness runs showed
/// of the core, the FP pipes, the caches and the memory bus (finish).
class ValidateRun {
public:
  ValidateRun(AnalyzeArgs A, const ValidateArgs &V) : A(std::move(A)), V(V) {}
  int run(const CompileCommand &CC);

private:
  /// What one loop's rows share: its harness and how its size is set.
  struct Loop {
    const LoopKernel *K = nullptr;
    IndexData LoopIndex;
    std::set<std::string> IndexArrays, SizeHolders;
    Harness H;
    std::string Size;
    bool CompiledIn = false; ///< the size is a macro or a global: -D per size
    llvm::SmallString<128> Exe;
    std::string Err;
    std::vector<std::vector<std::string>> Rows;
    std::vector<std::string> Head, Models;
  };
  enum class Next { Level, StopLoop };

  int setUp(const CompileCommand &CC);
  int loadAlsoMachines();
  int keepL3();
  void validateLoop(size_t LI);
  bool prepareLoop(Loop &Lp);
  bool build(Loop &Lp, std::vector<std::string> F);
  std::vector<std::pair<std::string, double>> targets() const;
  void sizeTo(Loop &Lp, double Target);
  Next timeLevel(Loop &Lp, const std::string &Lv, double Target);
  std::optional<Timing> timeHarness(Loop &Lp, std::vector<std::string> Args, double CallSeconds,
                                    bool MemRow);
  int finish();
  void skip(const std::string &Why);

  double addsReference() const {
    return std::max(ModelReference, References.empty() ? 0 : median(References));
  }
  double fpReference() const {
    return FpReferences.empty() ? 0.0 : std::max(ModelFpReference, median(FpReferences));
  }
  double cacheReference() const {
    return CacheReferences.empty() ? 0.0 : median(CacheReferences);
  }

  AnalyzeArgs A;
  const ValidateArgs &V;
  Inputs In;
  std::vector<std::string> Cmd; ///< the file's own compile command
  MachineModel *M = nullptr;
  KernelIR *IR = nullptr;
  bool HostClock = false;
  std::vector<std::string> Notes;
  unsigned Cores = 1;
  InCoreOptions IO;
  /// What an unshared core retires of the harness's probe (see Timing), by
  /// the host's port model: the bar a sample's probe must reach to count.
  /// The harness runs' own references where they reach higher (a model that
  /// gives the core too few ALUs would otherwise pass contended samples).
  double ModelReference = 0, ModelFpReference = 0;
  std::vector<InCoreResult> InCore;
  std::vector<std::string> Flags;
  std::vector<AlsoMachine> Also;
  llvm::raw_ostream &OS = llvm::outs();
  double L3Target = 0;
  uint64_t KeptL3 = 0; ///< what the predictions' L3 was made (0: the model's)
  RecordedRun Rec;
  std::map<std::string, unsigned> LoopsPerFunction;
  /// Adds per cycle of an unshared core: each harness process's own
  /// reference (see Timing), the run's the median of them. GB/s of the
  /// memory probe on a quiet bus (memory-sized rows only), FP adds and the
  /// L2 read: the median of the processes' own references, as for the adds.
  std::vector<double> References, MemReferences, FpReferences, CacheReferences;
  unsigned Validated = 0, Id = 0;
  std::string LastError;
  std::unique_ptr<ProgressBar> Bar;
  size_t Step = 0;
};

int runValidate(AnalyzeArgs A, const ValidateArgs &V, const CompileCommand &CC);

} // namespace perfmodel::tool

#endif

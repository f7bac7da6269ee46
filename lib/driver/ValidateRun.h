//===- ValidateRun.h - One run of perfmodel validate (internal) -*- C++ -*-===//
//
// The validate command's run: the file, its machines and the L3 this host
// keeps (ValidateRun.cpp), each loop timed at one size per level beside its
// predictions (ValidateTiming.cpp), and the helpers both share.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_DRIVER_VALIDATERUN_H
#define PERFMODEL_DRIVER_VALIDATERUN_H

#include "perfmodel/Driver.h"
#include "perfmodel/Recording.h"

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

namespace perfmodel::driver {

std::set<std::string> sizeParams(const LoopKernel &K, const KernelIR &IR);
double probeOpsPerCycle(const std::vector<uint8_t> &Loop, const InCoreOptions &O);
double probeAddsPerCycle(const InCoreOptions &O);
double probeFpAddsPerCycle(const InCoreOptions &O);
RecordedRun recordedRun(const AnalyzeArgs &A, const std::vector<std::string> &Cmd,
                        const MachineModel &M, const Inputs &In, uint64_t KeptL3);
RecordedRow recordedRow(const LoopKernel &K, const std::string &Level, const KernelIR &IR,
                        const LoopReport &LR, double Iters, double GHz, double Cy,
                        const Timing &T);


/// The part of ALL (--index data) for the arrays FUNCTION takes: a suite's
/// kernels draw only their own index arrays at each of their sizes.
IndexData indexDataOf(const IndexData &All, const KernelIR &IR, const std::string &Function);

/// validate's prediction of loop K at the sizes bound in IR, as the harness
/// times it: calls repeated on warm caches, this loop alone. SIZEDCMD, when
/// not empty, is the compile command with a compiled-in size (-DN=...): the
/// machine code is that size's, else UNSIZED's.
void predictTimedLoop(AnalysisReport &Out, const AnalyzeArgs &A, const KernelIR &IR,
                      const LoopKernel &K, const IndexData &Index,
                      const std::vector<std::string> &Cmd,
                      const std::vector<std::string> &SizedCmd, const MachineModel &M,
                      const InCoreOptions &IO, const std::vector<InCoreResult> &Unsized,
                      const std::map<std::string, uint64_t> &CodeAt = {});

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
    std::vector<std::string> Notes; ///< under its table: what a row measured
  };
  enum class Next { Level, StopLoop };

  int setUp(const CompileCommand &CC);
  int loadAlsoMachines();
  int keepL3();
  void useL3FillsNow(const L3Streams &Stream);
  void validateLoop(size_t LI);
  bool prepareLoop(Loop &Lp);
  bool build(Loop &Lp, std::vector<std::string> F);
  void defineSize(std::vector<std::string> &F, const std::string &Size) const;
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
  /// The memory figures measured on the host in place of the model's.
  std::map<std::string, double> MemoryMeasured;
  /// The L2's fills from the L3 (and write-backs) measured likewise.
  std::map<std::string, double> L3Measured;
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

} // namespace perfmodel::driver

#endif

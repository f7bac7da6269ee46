//===- Recording.h - validate's timed rows, kept for later replays -*- C++ -*-===//
//
// `validate --record` keeps each timed row with what a later prediction of it
// needs (the source, flags, sizes, machine, and what was measured on the
// host: clock, one core's memory, the L3 kept); `validate --replay` predicts
// the rows again, off the host, so that a change is checked on every host
// kind the project has met, not only the one at hand.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_TOOL_RECORDING_H
#define PERFMODEL_TOOL_RECORDING_H

#include "Common.h"

#include "perfmodel/InCore.h"
#include "perfmodel/Report.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel::tool {

/// One timed size of one loop.
struct RecordedRow {
  std::string Function;
  unsigned Line = 0, Column = 0;
  std::string Level;                     ///< L1, L2, L3, MEM: where the size was aimed
  std::map<std::string, int64_t> Sizes;  ///< every bound parameter
  std::vector<std::string> Defines;      ///< a size compiled in (-DN=...)
  double Iterations = 0;                 ///< of the nest, per call
  double ClockGHz = 0;                   ///< the row's clock (the predictions are at it)
  double MedianCy = 0, MinCy = 0, MaxCy = 0; ///< cycles per iteration
  unsigned Quiet = 0, Samples = 0;
  /// Cycles per iteration each model predicted when it was recorded, and
  /// the headline's model ("" where none).
  std::map<std::string, double> Predicted;
  std::string Headline;
};

/// One `validate` run of one source file on one host.
struct RecordedRun {
  std::string File;   ///< as it was given
  std::string Source; ///< its text (replayed as it was timed)
  std::vector<std::string> Flags; ///< compile flags, -march=native resolved
  std::vector<std::string> Index; ///< --index specs
  std::string Machine;            ///< -m as given, or the model CPUID picked
  std::vector<std::string> Sets;  ///< --set
  std::string Cache = "auto";
  std::string InCoreBasis = "compiled";
  bool NoInCore = false;
  /// The model's clock at the start (measured on the host's own model).
  double ClockGHz = 0;
  /// What the host measured where its model states nothing (--set keys).
  std::map<std::string, double> Measured;
  uint64_t KeptL3 = 0;   ///< the L3 bytes the predictions used, 0: the model's
  unsigned Cores = 1;    ///< OpenMP threads the kernel ran on, one a core (--cores)
  std::vector<RecordedRow> Rows;
};

/// The host a recording was made on.
struct RecordedHost {
  std::string Vendor, Brand;
  unsigned Family = 0, Model = 0, Stepping = 0;
  std::string Kind; ///< the library model matching its CPUID ("" when none)
  std::string Cpu;  ///< LLVM's name of the host CPU (what -march=native is)
  unsigned Threads = 0;
  std::string Date;
};

struct Recording {
  RecordedHost Host;
  std::vector<RecordedRun> Runs;
};

/// This host, as a recording names it.
RecordedHost thisHost();
/// FLAGS with -march/-mcpu/-mtune=native replaced by CPU.
std::vector<std::string> resolveNativeFlags(std::vector<std::string> Flags,
                                            const std::string &Cpu);

llvm::json::Value toJson(const Recording &R);
/// False with ERR (naming FILE and what is wrong) when V is not a recording.
bool fromJson(const llvm::json::Value &V, Recording &R, const std::string &File,
              std::string &Err);
/// Adds RUN to the recording in PATH (created when missing; an existing one
/// must be of this host's kind) and writes it; false with ERR.
/// The JSON in PATH; nullopt with ERR naming the file and what is wrong.
std::optional<llvm::json::Value> readJsonFile(const std::string &Path, std::string &Err);
/// The recording in PATH, checked; false with ERR.
bool readRecording(const std::string &Path, Recording &R, std::string &Err);
/// "0x1a": a CPUID family or model as the reports write it.
std::string hex(unsigned X);
bool appendRecording(const std::string &Path, const RecordedHost &Host, RecordedRun Run,
                     std::string &Err);

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
                      const InCoreOptions &IO, const std::vector<InCoreResult> &Unsized);

/// validate --replay FILES: predicts every recorded row again and prints
/// each model's and the headline's error per host and level (text, json or
/// svg), against BASELINE (an earlier --format json) when given; exit 1 when
/// a headline MAPE rises more than MAXRISE points above it.
struct ReplayArgs {
  std::vector<std::string> Files;
  std::string Baseline;
  std::optional<double> MaxRise;
  ReportFormat Format = ReportFormat::Text;
  std::string Output;
  unsigned Worst = 8;
  /// -m: predict with this machine model instead of the recorded one (a
  /// probed model against the library's, on the same timings).
  std::string Machine;
};
int runReplay(const ReplayArgs &R);

} // namespace perfmodel::tool

#endif

//===- Recording.h - validate's timed rows, kept for later replays -*- C++ -*-===//
//
// `validate --record` keeps each timed row with what a later prediction of it
// needs (the source, flags, sizes, machine, and what was measured on the
// host: clock, one core's memory, the L3 kept); `validate --replay` predicts
// the rows again, off the host, so that a change is checked on every host
// kind the project has met, not only the one at hand.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_RECORDING_H
#define PERFMODEL_RECORDING_H

#include "perfmodel/Session.h"

#include "perfmodel/InCore.h"
#include "perfmodel/Report.h"

#include "llvm/Support/JSON.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel::driver {

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
  /// Where the harness's code of the loop's function starts within a 4 KiB
  /// page, by symbol (the lines a short loop's code spans decide its
  /// speed); empty in recordings made before it was kept.
  std::map<std::string, uint64_t> CodeAt;
  /// A memory row's memory figures measured beside it (the run's Measured
  /// keys it replaces); empty in other rows and in older recordings.
  std::map<std::string, double> Measured;
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
  /// --model as given (empty: all): the models predicted, and so the
  /// headline's.
  std::vector<std::string> Models;
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

} // namespace perfmodel::driver

#endif

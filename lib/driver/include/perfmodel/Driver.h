//===- Driver.h - The runs of perfmodel beyond one analysis ----*- C++ -*-===//
//
// What the command line starts besides analyze's report: validate (each loop
// timed on this host beside its predictions, --record), the replay of
// recorded timings, and project mode (every file of a compilation database).
// The command line only fills these structs; the work is here.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_DRIVER_H
#define PERFMODEL_DRIVER_H

#include "perfmodel/Session.h"

#include <optional>
#include <string>
#include <vector>

namespace perfmodel::driver {

/// validate FILE: each analysed loop timed at one size per level.
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
int runValidate(AnalyzeArgs A, const ValidateArgs &V, const CompileCommand &CC);

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
  /// --set: overrides applied after the recorded figures (a what-if on
  /// the recorded timings).
  std::vector<std::string> Sets;
};
int runReplay(const ReplayArgs &R);

/// Project mode of analyze (-p BUILD_DIR without a file): every translation
/// unit of the compilation database. SELF is this executable.
struct ProjectArgs {
  std::vector<std::string> Globs; ///< --files
  unsigned Jobs = 0;              ///< -j (0: the cores)
  unsigned FileTimeLimit = 300;   ///< seconds per file
  std::string Self;
};
int runProject(const AnalyzeArgs &A, const ProjectArgs &P, const CompileCommand &CC);

} // namespace perfmodel::driver

#endif

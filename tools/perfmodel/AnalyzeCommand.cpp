//===- AnalyzeCommand.cpp - perfmodel analyze -----------------------------===//
//
// One file (or standard input with `-`), or with -p BUILD_DIR and no file
// every translation unit of the compilation database (ProjectCommand.cpp).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/Report.h"
#include "perfmodel/StageTimes.h"

#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

/// Names the source NAME in everything the report prints (standard input
/// was kept in a temporary file for Clang).
void renameSource(KernelIR &IR, const std::string &From, const std::string &To) {
  if (IR.File == From)
    IR.File = To;
  forEachLocation(IR, [&](SourceLoc &L) {
    if (L.File == From)
      L.File = To;
  });
}

struct AnalyzeState {
  AnalyzeArgs A;
  ProjectArgs P;
  std::string JsonCopy; ///< hidden: also write the JSON report here (project mode)
  bool StageTimes = false;
};

int analyzeFile(AnalyzeArgs A, const CompileCommand &CC, const std::string &JsonCopy) {
  // A bad -o fails before the work, not after it.
  if (int RC = checkOutput(A.Output))
    return RC;
  if (A.File == "-") {
    A.File = stdinToSourceFile(CC);
    if (A.File.empty())
      return ExitFailed;
    A.Shown = "<stdin>";
  }
  Inputs In;
  if (int RC = loadInputs(A, CC, In))
    return RC;
  AnalysisReport R;
  R.Notes = In.Notes;
  modelLoops(R, In.FR->IR, *In.Machine, pipelineOptions(A, In.FR->CompileArgs, In.Index));
  if (!A.Shown.empty())
    renameSource(In.FR->IR, A.File, A.Shown);

  // Printed straight into the output's stream: a file's report of
  // megabytes built in a string first took fresh pages as it grew.
  auto Render = [&](ReportFormat Format) {
    return [&R, Format](llvm::raw_ostream &OS) {
      StageScope Timed(Stage::Report);
      printReport(OS, R, Format);
    };
  };
  if (!JsonCopy.empty())
    if (int RC = emitReport(JsonCopy, Render(ReportFormat::Json)))
      return RC;
  return emitReport(A.Output, Render(A.Format));
}

} // namespace

Command perfmodel::tool::addAnalyze(CLI::App &App, const CompileCommand &CC) {
  auto S = std::make_shared<AnalyzeState>();
  CLI::App *C = App.add_subcommand(
      "analyze", "Model every loop of a C/C++ file (or of a whole project with -p "
                 "BUILD_DIR): flops, bytes, traffic, Roofline, ECM and PPR predictions");
  AnalyzeArgs &A = S->A;
  addSourceOptions(C, A, /*FileRequired=*/false);
  addMachineOptions(C, A);
  addKeptL3Option(C, A);
  addHostMemoryOption(C, A);
  addModelOptions(C, A);
  addFormatOption(C, A.Format,
                  {ReportFormat::Text, ReportFormat::Brief, ReportFormat::Json, ReportFormat::Sarif,
                   ReportFormat::Svg, ReportFormat::Html},
                  "text, brief (a line per loop, file:line:col: note: ...), json, sarif "
                  "(SARIF 2.1.0), svg (Roofline chart) or html (chart and tables)");
  C->add_option("-o,--output", A.Output, "write the report to this file");
  C->add_option("--files", S->P.Globs,
                "project mode: analyse only the database's files matching this glob "
                "(repeatable; matched against the path as the database gives it)")
      ->allow_extra_args(false);
  C->add_option("-j,--jobs", S->P.Jobs, "project mode: files analysed at once (default: the cores)")
      ->check(CLI::Range(1u, 256u));
  C->add_option("--file-time-limit", S->P.FileTimeLimit,
                "project mode: seconds one file may take before it is reported as timed "
                "out (default 300; --time-limit does not bound a project run)")
      ->check(CLI::Range(1u, 86400u));
  C->add_flag("--stage-times", S->StageTimes,
              "print the time each stage took (front end, compile, in-core, nest replay, "
              "layer conditions, simulator, models) to standard error");
  C->add_option("--json-copy", S->JsonCopy, "also write the JSON report to this file")
      ->group("");
  C->add_option("--host-clock-ghz", S->A.HostClockGHz,
                "the host clock measured by the project run")
      ->group("");
  C->footer("Compile flags for the file may follow a bare `--`, e.g. "
            "perfmodel analyze k.c -- -O3 -Iinclude. With -p BUILD_DIR and no file, every "
            "translation unit of BUILD_DIR/compile_commands.json is analysed.");
  Command Cmd;
  Cmd.App = C;
  Cmd.TakesCompileCommand = true;
  Cmd.Run = [S, &CC]() -> int {
    std::string Err;
    if (!parseModels(S->A, Err))
      return error(Err, ExitUsage);
    if (S->A.File.empty()) {
      if (S->A.CompileCommandsDir.empty())
        return error("analyze needs a source file, - for standard input, or -p BUILD_DIR "
                     "for every file of a compilation database",
                     ExitUsage);
      return runProject(S->A, S->P, CC);
    }
    if (!S->P.Globs.empty())
      return error("--files selects files of a project (-p BUILD_DIR without a file)",
                   ExitUsage);
    if (S->StageTimes)
      enableStageTimes();
    int RC = analyzeFile(S->A, CC, S->JsonCopy);
    printStageTimes(llvm::errs());
    return RC;
  };
  Cmd.BoundsItsParts = [S] { return S->A.File.empty() && !S->A.CompileCommandsDir.empty(); };
  return Cmd;
}

//===- ValidateCommand.cpp - perfmodel validate ---------------------------===//
//
// The command line of validate: its options, --replay and --record. The run
// itself, the replay and the recordings are in lib/driver (Driver.h).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "llvm/ADT/StringRef.h"

#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

Command perfmodel::tool::addValidate(CLI::App &App, const CompileCommand &CC) {
  struct State {
    AnalyzeArgs A;
    ValidateArgs V;
    ReplayArgs R;
    std::string Levels = "L1,L2,L3,MEM";
  };
  auto S = std::make_shared<State>();
  CLI::App *C = App.add_subcommand(
      "validate", "Time the analysed loops on this host at one size per memory level and "
                  "print measured beside predicted cycles per iteration");
  addSourceOptions(C, S->A, /*FileRequired=*/false);
  addMachineOptions(C, S->A);
  addModelOptions(C, S->A);
  C->add_option("--record", S->V.Record,
                "keep every timed row in this file (JSON; a recording of this host's kind "
                "gains the run) with what predicting it again needs: the source, flags, sizes, "
                "machine and the figures measured here");
  CLI::Option *Replay = C->add_option(
      "--replay", S->R.Files,
      "predict the rows of these recordings again (off their hosts, with this build and "
      "today's machine files) and print each model's error per host and level");
  Replay->excludes("file")->expected(1, -1);
  C->add_option("--baseline", S->R.Baseline,
                "with --replay: an earlier replay's --format json output to compare with")
      ->needs(Replay);
  C->add_option("--max-rise", S->R.MaxRise,
                "with --baseline: exit 1 when a recording's headline MAPE at a level rises "
                "more than this many points above the baseline's, or a row it predicted is "
                "predicted no more")
      ->needs("--baseline");
  C->add_option("--worst", S->R.Worst, "with --replay: the worst rows listed per recording")
      ->needs(Replay);
  addFormatOption(C, S->R.Format, {ReportFormat::Text, ReportFormat::Json, ReportFormat::Svg},
                  "with --replay: text, json (a baseline) or svg")
      ->needs(Replay);
  C->add_option("-o,--output", S->R.Output, "with --replay: write the report there")
      ->needs(Replay);
  C->add_option("--size", S->V.Size, "the size parameter to vary per level");
  CLI::Option *LevelsOpt = C->add_option(
      "--levels", S->Levels, "levels to measure (default L1,L2,L3,MEM; with --cores N: L3,MEM)");
  C->add_option("--max-call", S->V.MaxCallSeconds,
                "skip sizes where one call is predicted to take longer (seconds)")
      ->check(CLI::PositiveNumber);
  C->add_option("--reps", S->V.Reps, "timed repetitions per size (median)")
      ->check(CLI::Range(1u, 101u));
  C->add_option("--processes", S->V.Processes,
                "harness processes per size, the median of their medians (default 1): each "
                "process gets other physical pages, which move memory-bound timings on a VM; "
                "the spread column then covers all of them")
      ->check(CLI::Range(1u, 9u));
  addKeptL3Option(C, S->A);
  C->add_flag("--model-l3", S->V.ModelL3,
              "predict with the model's L3 where this host keeps less of it now (default: the "
              "share it keeps, as --kept-l3 does elsewhere; the L3 rows are sized from that "
              "share either way)")
      ->excludes("--kept-l3");
  C->add_option("--also-machine", S->V.AlsoMachines,
                "a further machine model predicted against the same timings (columns "
                "B:..., C:...; repeatable), e.g. a probed model beside the library's");
  Command Cmd(C, [S, &CC, LevelsOpt]() -> int {
        if (!S->R.Files.empty()) {
          S->R.Machine = S->A.Machine;
          S->R.Sets = S->A.Sets;
          return runReplay(S->R);
        }
        if (S->A.File.empty())
          return error("validate: a source file to time, or --replay RECORDING...", ExitUsage);
        std::string Err;
        if (!parseModels(S->A, Err))
          return error(Err, ExitUsage);
        // On several cores the small sizes time the parallel region's fork
        // and join (a microsecond or more a call), which no model has: the
        // levels the cores share unless asked.
        if (S->A.Models.Cores > 1 && !LevelsOpt->count())
          S->Levels = "L3,MEM";
        llvm::SmallVector<llvm::StringRef, 4> Parts;
        llvm::StringRef(S->Levels).split(Parts, ',', -1, false);
        for (llvm::StringRef P : Parts)
          S->V.Levels.push_back(P.trim().upper());
        return runValidate(S->A, S->V, CC);
      },
      true);
  // A suite's timed runs take minutes; each harness run has its own timeout
  // (from --max-call and --reps), so --time-limit does not stop the whole.
  Cmd.BoundsItsParts = [] { return true; };
  return Cmd;
}

//===- Common.h - What the perfmodel subcommands share ---------*- C++ -*-===//
//
// The command line's own part: the option groups (machine, source, models,
// the kept L3, --format) defined once, and the registry of subcommands, each
// in its own file with an add* function that returns its driver. What the
// commands do is in the libraries (lib/driver for validate, replay, project).
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_TOOL_COMMON_H
#define PERFMODEL_TOOL_COMMON_H

#include "perfmodel/Driver.h"
#include "perfmodel/Report.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

namespace perfmodel::tool {

using namespace perfmodel::driver;

/// The option groups, each defined once.
void addMachineOptions(CLI::App *C, AnalyzeArgs &A);
void addSourceOptions(CLI::App *C, AnalyzeArgs &A, bool FileRequired = true);
void addModelOptions(CLI::App *C, AnalyzeArgs &A);
void addKeptL3Option(CLI::App *C, AnalyzeArgs &A);
/// --host-memory (analyze).
void addHostMemoryOption(CLI::App *C, AnalyzeArgs &A);
/// --format, one of ALLOWED by name, into OUT (HELP describes them).
CLI::Option *addFormatOption(CLI::App *C, ReportFormat &Out,
                             std::initializer_list<ReportFormat> Allowed, const std::string &Help);

/// A registered subcommand: its CLI11 node and what runs when it is chosen.
struct Command {
  Command() = default;
  Command(CLI::App *App, std::function<int()> Run, bool TakesCompileCommand = false)
      : App(App), Run(std::move(Run)), TakesCompileCommand(TakesCompileCommand) {}
  CLI::App *App = nullptr;
  std::function<int()> Run;
  bool TakesCompileCommand = false; ///< accepts `-- FLAGS`
  /// True when this run bounds its own parts' time (project mode: each
  /// file by --file-time-limit), so --time-limit does not stop the whole.
  std::function<bool()> BoundsItsParts;
};

Command addAnalyze(CLI::App &App, const CompileCommand &CC);
Command addCompare(CLI::App &App, const CompileCommand &CC);
Command addSweep(CLI::App &App, const CompileCommand &CC);
Command addValidate(CLI::App &App, const CompileCommand &CC);
Command addInCore(CLI::App &App);
Command addProbe(CLI::App &App);
std::vector<Command> addMachine(CLI::App &App);
std::vector<Command> addChoose(CLI::App &App, const CompileCommand &CC);

} // namespace perfmodel::tool

#endif

//===- perfmodel - static performance model for loop kernels --------------===//
//
// Dispatches to the subcommands (one file each, named for its command:
// AnalyzeCommand.cpp, ProjectCommand.cpp for analyze -p, CompareCommand.cpp,
// SweepCommand.cpp, ValidateCommand.cpp with ReplayCommand.cpp,
// InCoreCommand.cpp, ProbeCommand.cpp, MachineCommand.cpp,
// ChooseCommand.cpp); what they share is Common.h.
//
// Exit codes: 0 success, 1 the input could not be analysed (bad source, bad
// machine file), 2 the command line is wrong.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "perfmodel/InCore.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace perfmodel::tool;

/// jemalloc's options, read at its first allocation (ignored by the C
/// library's malloc): its arenas on transparent huge pages where the kernel
/// offers them on request, so a fresh heap faults in per 2 MiB instead of per
/// 4 KiB page (about half an analysis's page faults, bench/RESULTS.md).
extern "C" const char *malloc_conf;
const char *malloc_conf = "thp:always,metadata_thp:always";

namespace {

/// A watchdog for the whole command: past LIMIT seconds it says so and exits
/// with status 1 instead of running away (0 disables it).
void startTimeLimit(unsigned Seconds) {
  if (!Seconds)
    return;
  std::thread([Seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(Seconds));
    llvm::errs() << "perfmodel: error: the analysis exceeded its time limit of " << Seconds
                 << " s (raise it with --time-limit SECONDS, or lower --sim-accesses)\n";
    llvm::errs().flush();
    std::_Exit(ExitFailed);
  }).detach();
}

} // namespace

int main(int argc, char **argv) {
  perfmodel::compileInProcess(true);
  // Everything after a bare `--` is the compile command for the analysed file.
  CompileCommand CC;
  std::vector<const char *> Args;
  for (int I = 0; I < argc; ++I) {
    if (!CC.Given && I > 0 && llvm::StringRef(argv[I]) == "--") {
      CC.Given = true;
      continue;
    }
    if (CC.Given)
      CC.Args.push_back(argv[I]);
    else
      Args.push_back(argv[I]);
  }

  CLI::App App{"perfmodel: static performance model for loop kernels "
               "(Roofline, ECM, PPR) on LLVM/Clang 19"};
  App.require_subcommand(1);
  App.set_version_flag("--version", "perfmodel 0.1.0 (LLVM 19)");
  unsigned TimeLimit = 600;
  App.add_option("--time-limit", TimeLimit,
                 "seconds a command may run before it stops with an error (0: none)")
      ->check(CLI::Range(0u, 86400u));

  std::vector<Command> Commands = {addAnalyze(App, CC), addCompare(App, CC),
                                   addSweep(App, CC),   addValidate(App, CC),
                                   addInCore(App),      addProbe(App)};
  for (Command &C : addMachine(App))
    Commands.push_back(std::move(C));
  for (Command &C : addChoose(App, CC))
    Commands.push_back(std::move(C));

  std::string Names;
  bool Known = false;
  for (const CLI::App *Sub : App.get_subcommands([](CLI::App *) { return true; })) {
    Names += (Names.empty() ? "" : ", ") + Sub->get_name();
    Known |= Args.size() > 1 && Sub->get_name() == Args[1];
  }
  if (Args.size() > 1 && Args[1][0] != '-' && !Known)
    return error(std::string("unknown command '") + Args[1] + "' (commands: " + Names +
                     "; see perfmodel --help)",
                 ExitUsage);
  try {
    App.parse(int(Args.size()), Args.data());
  } catch (const CLI::ParseError &E) {
    int RC = App.exit(E);
    return RC == 0 ? ExitOk : ExitUsage;
  }
  for (const Command &C : Commands) {
    if (!C.App->parsed())
      continue;
    if (CC.Given && !C.TakesCompileCommand)
      return error("`-- compile flags` are only accepted by analyze, compare, sweep and "
                   "validate",
                   ExitUsage);
    if (!C.BoundsItsParts || !C.BoundsItsParts())
      startTimeLimit(TimeLimit);
    return C.Run();
  }
  return ExitUsage;
}

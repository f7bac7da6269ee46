//===- MachineCommand.cpp - perfmodel machine list|show|diff|check --------===//
//
// `perfmodel machine list|show|diff|check`: the library's models, one
// model's figures, two models field by field, and the checks of a file (or of
// the Intel front-end table) with file:line diagnostics.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

int runMachineShow(const std::string &Name, const std::vector<std::string> &Sets) {
  std::vector<std::string> Notes;
  std::optional<MachineModel> M = loadMachine(Name, Sets, Notes, /*HostClock=*/false);
  if (!M)
    return ExitFailed;
  printMachineText(llvm::outs(), *M);
  return ExitOk;
}

/// `machine list`: every model on the search path, one row each. A file
/// that does not load is named with its first error instead.
int runMachineList(ReportFormat Format) {
  std::vector<MachineModel> Ms;
  int RC = ExitOk;
  for (const std::string &File : listMachineFiles()) {
    MachineLoadResult R = loadMachineModel(File);
    if (!R.ok()) {
      printDiags(R.Diags, /*Warnings=*/false);
      RC = ExitFailed;
      continue;
    }
    Ms.push_back(std::move(*R.Model));
  }
  if (Ms.empty())
    return error("no machine models found (searched PERFMODEL_MACHINE_PATH, the "
                 "installed and the source tree's machine-models)");
  printMachineList(llvm::outs(), Ms, Format == ReportFormat::Markdown);
  return RC;
}

int runMachineDiff(const std::vector<std::string> &Names,
                   const std::vector<std::string> &SetsA,
                   const std::vector<std::string> &SetsB) {
  std::vector<std::string> Notes;
  std::optional<MachineModel> A = loadMachine(Names[0], SetsA, Notes, /*HostClock=*/false);
  std::optional<MachineModel> B = A ? loadMachine(Names[1], SetsB, Notes, /*HostClock=*/false) : std::nullopt;
  if (!A || !B)
    return ExitFailed;
  printMachineDiff(llvm::outs(), *A, *B);
  return ExitOk;
}

int runMachineCheck(const std::vector<std::string> &Files,
                    const std::vector<std::string> &Sets) {
  int RC = ExitOk;
  for (const std::string &Name : Files) {
    // The library's table of Intel front ends is checked as such.
    std::string File = Name == "front-ends" ? frontEndTableFile() : resolveMachine(Name);
    if (!File.empty() && isFrontEndTable(File)) {
      std::vector<MachineDiag> Diags = checkFrontEndTable(File);
      printDiags(Diags, /*Warnings=*/true);
      bool Failed = llvm::any_of(
          Diags, [](const MachineDiag &D) { return D.Severity == MachineDiag::Kind::Error; });
      if (Failed)
        RC = ExitFailed;
      else
        llvm::outs() << File << ": ok (front ends of Intel cores)"
                     << (Diags.empty() ? "" : ", " + std::to_string(Diags.size()) + " warning(s)")
                     << "\n";
      continue;
    }
    if (File.empty()) {
      llvm::errs() << Name << ": error: no such file or machine model\n";
      RC = ExitFailed;
      continue;
    }
    MachineLoadResult R = loadMachineModel(File, Sets);
    unsigned Warnings = 0;
    for (const MachineDiag &D : R.Diags)
      Warnings += D.Severity == MachineDiag::Kind::Warning;
    printDiags(R.Diags, /*Warnings=*/true);
    if (!R.ok()) {
      RC = ExitFailed;
      continue;
    }
    llvm::outs() << File << ": ok (" << R.Model->Name << ")";
    if (Warnings)
      llvm::outs() << ", " << Warnings << " warning(s)";
    llvm::outs() << "\n";
  }
  return RC;
}

} // namespace

std::vector<Command> perfmodel::tool::addMachine(CLI::App &App) {
  struct State {
    std::string ShowName;
    ReportFormat ListFormat = ReportFormat::Text;
    std::vector<std::string> Sets, CheckFiles, DiffNames, DiffSetsA, DiffSetsB;
  };
  auto S = std::make_shared<State>();
  CLI::App *Machine = App.add_subcommand("machine", "Inspect machine models");
  Machine->require_subcommand(1);
  CLI::App *Show = Machine->add_subcommand("show", "Print a machine model");
  Show->add_option("machine", S->ShowName, "file or name")->required();
  Show->add_option("--set", S->Sets, "override a value")->allow_extra_args(false);
  CLI::App *Check = Machine->add_subcommand("check", "Validate machine model files");
  Check->add_option("files", S->CheckFiles, "files or names")->required();
  Check->add_option("--set", S->Sets, "override a value")->allow_extra_args(false);
  CLI::App *List = Machine->add_subcommand("list", "List the known machine models");
  addFormatOption(List, S->ListFormat, {ReportFormat::Text, ReportFormat::Markdown},
                  "text or markdown (the table of docs/machine-models.md)");
  CLI::App *Diff = Machine->add_subcommand(
      "diff", "Compare two machine models field by field (--set-a/--set-b derive "
              "hypothetical ones)");
  Diff->add_option("machines", S->DiffNames, "two files or names")->required()->expected(2);
  Diff->add_option("--set-a", S->DiffSetsA, "override a value of the first")
      ->allow_extra_args(false);
  Diff->add_option("--set-b", S->DiffSetsB, "override a value of the second")
      ->allow_extra_args(false);
  return {{Show, [S] { return runMachineShow(S->ShowName, S->Sets); }, false},
          {Check, [S] { return runMachineCheck(S->CheckFiles, S->Sets); }, false},
          {List, [S] { return runMachineList(S->ListFormat); }, false},
          {Diff, [S] { return runMachineDiff(S->DiffNames, S->DiffSetsA, S->DiffSetsB); }, false}};
}

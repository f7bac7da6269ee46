//===- CompareCommand.cpp - perfmodel compare -----------------------------===//
//
// `perfmodel compare`: one file's loops on two or more machine models (real
// or hypothetical, --set-a/--set-b), side by side per loop, with what moved
// the bottleneck.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/Report.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

/// The kind of a bottleneck without its figures: "data transfers (30 cy/CL)"
/// and "data transfers (22 cy/CL)" are the same kind.
std::string category(const std::string &Bottleneck) {
  return Bottleneck.substr(0, Bottleneck.find(" ("));
}

/// One machine of `compare`: a name and the --set lines that follow it.
struct ComparedMachine {
  std::string Name;
  std::vector<std::string> Sets;
};

/// `perfmodel compare`: the same loops on several machines, per model the
/// prediction where the working set lives, the ratio to the first machine and
/// how the bottleneck changes.
int runCompare(const AnalyzeArgs &A, const std::vector<ComparedMachine> &Machines,
               const CompileCommand &CC) {
  if (Machines.size() < 2)
    return error("compare needs at least two machines (-m A -m B; --set after an -m "
                 "changes that machine only)",
                 ExitUsage);
  std::vector<MachineModel> Ms;
  std::vector<std::string> Notes;
  for (const ComparedMachine &CM : Machines) {
    std::optional<MachineModel> M = loadMachine(CM.Name, CM.Sets, Notes);
    if (!M)
      return ExitFailed;
    Ms.push_back(std::move(*M));
  }
  IndexData Index;
  int RC;
  std::optional<FrontendResult> FR = prepareSource(A, CC, Index, RC);
  if (!FR)
    return RC;
  std::vector<AnalysisReport> Rs(Ms.size());
  for (size_t I = 0; I < Ms.size(); ++I)
    modelLoops(Rs[I], FR->IR, Ms[I], pipelineOptions(A, FR->CompileArgs, Index));

  llvm::raw_ostream &OS = llvm::outs();
  OS << "perfmodel compare " << A.File << "\n";
  for (size_t I = 0; I < Ms.size(); ++I) {
    OS << "  [" << char('A' + I) << "] " << Ms[I].Name << " ("
       << llvm::sys::path::filename(Ms[I].File) << "), " << formatNumber(Ms[I].ClockGHz)
       << " GHz";
    for (const std::string &S : Ms[I].Overrides)
      OS << ", --set " << S;
    OS << "\n";
  }
  if (A.Models.Cores > 1)
    OS << "  cores: " << A.Models.Cores << "\n";
  for (size_t I = 0; I < Notes.size(); ++I)
    if (!Notes[I].empty() && std::find(Notes.begin(), Notes.begin() + I, Notes[I]) ==
                                 Notes.begin() + I)
      OS << "  note: " << Notes[I] << "\n";
  unsigned Id = 0;
  for (size_t LI = 0; LI < FR->IR.Loops.size(); ++LI) {
    const LoopKernel &K = FR->IR.Loops[LI];
    OS << "\n[" << ++Id << "] " << K.Loc.str() << "  in " << K.Function << "\n";
    if (!K.Modelled) {
      OS << "    not modelled: " << K.Reason << "\n";
      continue;
    }
    const LoopReport &Base = Rs[0].Loops[LI];
    if (Base.WorkingSetBytes)
      OS << "    working set " << formatBytes(*Base.WorkingSetBytes) << "\n";
    bool NoFlops = K.flops() == 0;
    std::vector<std::string> Head = {"model"};
    for (size_t I = 0; I < Ms.size(); ++I) {
      std::string L(1, char('A' + I));
      Head.push_back(L + " data in");
      Head.push_back(L + (NoFlops ? " cy/it" : " GFLOP/s"));
      if (I)
        Head.push_back(L + "/A");
    }
    Head.push_back("bottleneck");
    std::vector<std::vector<std::string>> Rows = {Head};
    std::vector<std::string> Changes;
    std::vector<const Prediction *> BaseP = Base.predictions();
    for (size_t P = 0; P < BaseP.size(); ++P) {
      std::vector<std::string> Row = {BaseP[P]->name()};
      const LevelPrediction *B0 = BaseP[P]->Ok ? BaseP[P]->atDataLevel() : nullptr;
      std::string Bottlenecks;
      for (size_t I = 0; I < Ms.size(); ++I) {
        std::vector<const Prediction *> Ps = Rs[I].Loops[LI].predictions();
        const Prediction *Pr = P < Ps.size() ? Ps[P] : nullptr;
        const LevelPrediction *At = Pr && Pr->Ok ? Pr->atDataLevel() : nullptr;
        if (!At) {
          if (Pr && !Pr->Ok)
            Changes.push_back(Pr->name() + " on " + std::string(1, char('A' + I)) +
                              ": not modelled: " + Pr->Reason);
          Row.insert(Row.end(), {"-", "-"});
          if (I)
            Row.push_back("-");
          continue;
        }
        Row.push_back(At->Level);
        Row.push_back(NoFlops ? formatNumber(At->CyclesPerIt) : formatNumber(At->GFlops));
        // Speed-up of this machine over A: ratio of the times per iteration
        // (cycles at each machine's own clock), so it also works without
        // floating-point work.
        if (I)
          Row.push_back(B0 && At->CyclesPerIt > 0
                            ? formatNumber(B0->CyclesPerIt / Ms[0].ClockGHz /
                                           (At->CyclesPerIt / Ms[I].ClockGHz)) +
                                  "x"
                            : "-");
        if (I == 0)
          Bottlenecks = At->Bottleneck;
        else if (B0 && category(At->Bottleneck) != category(B0->Bottleneck))
          Changes.push_back(Pr->name() + ": " + std::string(1, char('A' + I)) + " moves the "
                            "bottleneck from " + B0->Bottleneck + " to " + At->Bottleneck);
      }
      Row.push_back(Bottlenecks.empty() ? "-" : "A: " + Bottlenecks);
      Rows.push_back(Row);
    }
    std::vector<bool> Right(Head.size(), false);
    for (size_t C = 1; C + 1 < Head.size(); ++C)
      Right[C] = Head[C].find("data in") == std::string::npos;
    printTextTable(OS, Rows, 4, Right);
    for (const std::string &C : Changes)
      OS << "    " << C << "\n";
  }
  return ExitOk;
}

} // namespace

Command perfmodel::tool::addCompare(CLI::App &App, const CompileCommand &CC) {
  struct State {
    AnalyzeArgs A;
    std::vector<std::string> Machines, Sets;
    CLI::Option *M = nullptr, *Set = nullptr;
  };
  auto S = std::make_shared<State>();
  CLI::App *C = App.add_subcommand(
      "compare", "The same loops on several machines, side by side (-m A -m B "
                 "[--set ...]; a --set after an -m changes that machine only)");
  addSourceOptions(C, S->A);
  S->M = C->add_option("-m,--machine", S->Machines, "machine model: file or name (repeat)")
             ->allow_extra_args(false);
  S->Set = C->add_option("--set", S->Sets, "override a value of the preceding -m")
               ->allow_extra_args(false);
  addModelOptions(C, S->A);
  return {C, [S, C, &CC]() -> int {
            std::string Err;
            if (!parseModels(S->A, Err))
              return error(Err, ExitUsage);
            // Walk the options in command-line order to bind each --set to its -m.
            std::vector<ComparedMachine> Machines;
            std::vector<std::string> Common;
            size_t MI = 0, SI = 0;
            for (CLI::Option *O : C->parse_order()) {
              if (O == S->M && MI < S->Machines.size()) {
                Machines.push_back({S->Machines[MI++], Common});
              } else if (O == S->Set && SI < S->Sets.size()) {
                if (Machines.empty())
                  Common.push_back(S->Sets[SI++]);
                else
                  Machines.back().Sets.push_back(S->Sets[SI++]);
              }
            }
            return runCompare(S->A, Machines, CC);
          },
          true};
}

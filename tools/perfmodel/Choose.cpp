//===- Choose.cpp - perfmodel choose bcsr | choose FILE --variant ... -----===//
//
// The PPR paper's feedback stage as a command: predict every candidate and
// name the fastest before any of them runs.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/Choose.h"
#include "perfmodel/Report.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

/// The machine options, --format, -o and the simulator's come from
/// AnalyzeArgs (the shared option groups); the rest is choose's own.
struct BcsrArgs {
  AnalyzeArgs A;
  std::string Matrix, MaxBlock = "8x8", Model, EmitKernels;
};

int runChooseBcsr(const BcsrArgs &B, const CompileCommand &CC) {
  const AnalyzeArgs &A = B.A;
  unsigned MaxR = 0, MaxC = 0;
  // Without an 'x' the column part is empty and does not parse.
  auto [RS, CS] = llvm::StringRef(B.MaxBlock).split('x');
  if (RS.getAsInteger(10, MaxR) || CS.getAsInteger(10, MaxC) || MaxR < 1 || MaxC < 1 ||
      MaxR > 16 || MaxC > 16)
    return error("--max-block " + B.MaxBlock + ": expected RxC with 1 <= R, C <= 16, e.g. 8x8",
                 ExitUsage);
  std::string Model;
  if (!B.Model.empty()) {
    std::string L = llvm::StringRef(B.Model).lower();
    Model = L == "ecm" ? "ECM" : L == "ppr" ? "PPR" : L == "roofline" ? "Roofline" : "";
    if (Model.empty())
      return error("--model " + B.Model + ": expected ecm, ppr or roofline", ExitUsage);
  }
  std::vector<std::pair<unsigned, unsigned>> Shapes = bcsrShapes(MaxR, MaxC);
  if (!B.EmitKernels.empty()) {
    // The kernels exactly as modelled, for a harness that times them.
    std::error_code EC;
    llvm::raw_fd_ostream OS(B.EmitKernels, EC);
    if (EC)
      return error(B.EmitKernels + ": cannot write: " + EC.message());
    OS << bcsrKernelSource(Shapes);
    if (B.Matrix.empty())
      return ExitOk;
  }
  if (B.Matrix.empty())
    return error("choose bcsr needs a Matrix Market file", ExitUsage);
  std::vector<std::string> Notes;
  std::optional<MachineModel> M = loadMachine(A.Machine, A.Sets, Notes);
  if (!M)
    return ExitFailed;
  CsrPattern P;
  std::string Err;
  if (!readMatrixMarket(B.Matrix, P.RowPtr, P.Col, P.Rows, P.Cols, Err))
    return error(Err);
  ChooseOptions O;
  O.MaxR = MaxR;
  O.MaxC = MaxC;
  O.Model = Model;
  O.Sim.MaxAccesses = A.SimAccesses;
  O.Sim.Prefetch = A.Prefetch;
  O.CompileArgs = CC.Given ? CC.Args : std::vector<std::string>{"-O3"};
  ProgressBar Bar(Shapes.size() + 1);
  O.Progress = [&](size_t Done, size_t Total, const std::string &What) {
    Bar.setTotal(Total);
    Bar.update(Done, What);
  };
  BcsrChoice Ch;
  bool Ok = chooseBcsr(P, B.Matrix, *M, O, Ch, Err);
  Bar.clear();
  if (!Ok)
    return error(Err);
  for (const std::string &N : Notes)
    Ch.Notes.insert(Ch.Notes.begin(), N);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == "json")
    printBcsrChoiceJSON(OS, Ch, *M);
  else
    printBcsrChoice(OS, Ch, *M);
  OS.flush();
  return emitReport(A.Output, Text);
}

} // namespace

std::vector<Command> perfmodel::tool::addChoose(CLI::App &App, const CompileCommand &CC) {
  auto B = std::make_shared<BcsrArgs>();
  CLI::App *Choose = App.add_subcommand(
      "choose", "Choose the fastest variant before running any: BCSR block sizes for a "
                "sparse matrix (choose bcsr), or functions computing the same thing");
  Choose->require_subcommand(1);
  CLI::App *Bcsr = Choose->add_subcommand(
      "bcsr", "Predict SpMV with every r x c block size of a Matrix Market matrix and "
              "rank them (the PPR paper's block choice)");
  Bcsr->add_option("matrix", B->Matrix, "Matrix Market file (coordinate format)");
  addMachineOptions(Bcsr, B->A);
  Bcsr->add_option("--max-block", B->MaxBlock, "largest block, RxC (default 8x8)");
  Bcsr->add_option("--model", B->Model,
                   "rank by ecm, ppr or roofline (default: the headline rule, ECM first)");
  Bcsr->add_option("--format", B->A.Format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  Bcsr->add_option("-o,--output", B->A.Output, "write the report to this file");
  Bcsr->add_option("--sim-accesses", B->A.SimAccesses,
                   "replay budget of the cache simulator per candidate")
      ->check(CLI::Range(uint64_t(1000), uint64_t(1) << 40));
  Bcsr->add_flag("--prefetch", B->A.Prefetch, "simulate the machine's prefetchers");
  Bcsr->add_option("--emit-kernels", B->EmitKernels,
                   "write the C source of the modelled kernels to this file (a timing "
                   "harness compiles the same code)");
  Bcsr->footer("Flags for compiling the kernels may follow a bare `--` (default -O3; the "
               "machine's CPU is targeted as in analyze).");
  std::vector<Command> Cmds;
  Cmds.push_back({Bcsr, [B, &CC] { return runChooseBcsr(*B, CC); }, true});
  return Cmds;
}

//===- ChooseCommand.cpp - perfmodel choose bcsr | choose FILE --variant -===//
//
// The PPR paper's feedback stage as a command: predict every candidate and
// name the fastest before any of them runs.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/Choose.h"
#include "perfmodel/InCore.h"
#include "perfmodel/Report.h"
#include "perfmodel/Validate.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <set>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

/// The machine options, --format, -o and the simulator's come from
/// AnalyzeArgs (the shared option groups); the rest is choose's own.
struct BcsrArgs {
  AnalyzeArgs A;
  std::string Matrix, MaxBlock = "8x8", Model, EmitKernels, Explain;
};

/// Parses "RxC" with 1 <= R, C <= 16.
bool parseBlock(llvm::StringRef S, unsigned &R, unsigned &C) {
  // Without an 'x' the column part is empty and does not parse.
  auto [RS, CS] = S.split('x');
  return !RS.getAsInteger(10, R) && !CS.getAsInteger(10, C) && R >= 1 && C >= 1 && R <= 16 &&
         C <= 16;
}

int runChooseBcsr(const BcsrArgs &B, const CompileCommand &CC) {
  const AnalyzeArgs &A = B.A;
  if (int RC = checkOutput(A.Output))
    return RC;
  unsigned MaxR = 0, MaxC = 0, ER = 0, EC = 0;
  if (!parseBlock(B.MaxBlock, MaxR, MaxC))
    return error("--max-block " + B.MaxBlock + ": expected RxC with 1 <= R, C <= 16, e.g. 8x8",
                 ExitUsage);
  if (!B.Explain.empty() && (!parseBlock(B.Explain, ER, EC) || ER > MaxR || EC > MaxC))
    return error("--explain " + B.Explain + ": expected a block RxC within --max-block " +
                     B.MaxBlock,
                 ExitUsage);
  std::optional<ModelKind> Model;
  if (!B.Model.empty()) {
    std::string L = llvm::StringRef(B.Model).lower();
    for (ModelKind K : {ModelKind::Ecm, ModelKind::Ppr, ModelKind::Roofline})
      if (L == llvm::StringRef(modelKindName(K)).lower())
        Model = K;
    if (!Model)
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
  std::string Err;
  if (A.KeptL3 && !useKeptL3(*M, A, Notes, Err))
    return error(Err, ExitUsage);
  CsrPattern P;
  if (!readMatrixMarket(B.Matrix, P.RowPtr, P.Col, P.Rows, P.Cols, Err))
    return error(Err);
  ChooseOptions O;
  O.MaxR = MaxR;
  O.MaxC = MaxC;
  O.Model = Model;
  O.Explain = {ER, EC};
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
  if (A.Format == ReportFormat::Json)
    printBcsrChoiceJSON(OS, Ch, *M);
  else
    printBcsrChoice(OS, Ch, *M);
  if (!Ch.Explanation.empty() && A.Format != ReportFormat::Json)
    OS << "\n--- " << B.Explain << " as analyze reports it (simulated on its block structure) ---\n"
       << Ch.Explanation;
  OS.flush();
  return emitReport(A.Output, Text);
}


/// choose FILE --variant ...: the options of analyze plus choose's own.
struct VariantArgs {
  AnalyzeArgs A;
  std::vector<std::string> Variants;
  bool Measure = false;
  unsigned Reps = 5;
  double MaxCallSeconds = 2;
};

/// One analysed source file and what the variants in it share.
struct VariantFile {
  std::string Path;
  IndexData Index;
  std::optional<FrontendResult> FR;
  std::vector<InCoreResult> InCore;
};

/// Built harnesses by source and flags; removed at the end of the run.
struct HarnessCache : std::map<std::string, std::string> {
  ~HarnessCache() {
    for (const auto &[Key, Exe] : *this)
      llvm::sys::fs::remove(Exe);
  }
};

/// Times VARIANT's function at the sizes bound in its IR with the harness
/// of `perfmodel validate`; nullopt with WHY when it cannot.
std::optional<double> measureVariant(const VariantInput &V, const VariantFile &F,
                                     const MachineModel &M, const VariantArgs &VA,
                                     double PredictedSeconds, HarnessCache &Built,
                                     std::string &Why) {
  const KernelIR &IR = *V.IR;
  const LoopKernel *First = nullptr;
  std::vector<std::string> Args;
  for (const LoopKernel &K : IR.Loops) {
    if (K.Function != V.Function)
      continue;
    // Arrays big enough for every loop of the function: the largest extent.
    auto KArgs = harnessArgs(IR, K, Why);
    if (!KArgs)
      return std::nullopt;
    if (!First) {
      First = &K;
      Args = *KArgs;
      continue;
    }
    for (size_t I = 0; I < Args.size() && I < KArgs->size(); ++I) {
      double X, Y;
      if (!llvm::StringRef(Args[I]).getAsDouble(X) &&
          !llvm::StringRef((*KArgs)[I]).getAsDouble(Y) && Y > X)
        Args[I] = (*KArgs)[I];
    }
  }
  if (!First) {
    Why = "no loops";
    return std::nullopt;
  }
  if (PredictedSeconds > VA.MaxCallSeconds) {
    Why = "one call is predicted at " + formatSeconds(PredictedSeconds) + " (above --max-call)";
    return std::nullopt;
  }
  Harness H = makeHarness(IR, *First, VA.Reps, 0.005);
  if (!H.Ok) {
    Why = H.Why;
    return std::nullopt;
  }
  std::vector<std::string> Flags = harnessFlags(M, F.FR->CompileArgs, F.Path);
  // Sizes that are not arguments of the function (macros) are compiled in.
  const FunctionInfo &FI = IR.Functions.at(V.Function);
  for (const auto &[Name, P] : IR.Parameters)
    if (P.Value && std::none_of(FI.Params.begin(), FI.Params.end(),
                                [&, &Name = Name](const FunctionParam &FP) {
                                  return FP.Name == Name;
                                }))
      Flags.push_back("-D" + Name + "=" + std::to_string(*P.Value));
  // A harness is built once per source and flags, then run at every size.
  std::string Key = H.Source;
  for (const std::string &Fl : Flags)
    Key += "\n" + Fl;
  auto It = Built.find(Key);
  if (It == Built.end()) {
    llvm::SmallString<128> Exe;
    if (llvm::sys::fs::createTemporaryFile("perfmodel-choose", "exe", Exe)) {
      Why = "cannot create a temporary file";
      return std::nullopt;
    }
    if (!buildHarness(H.Source, IR.Cxx, Flags, std::string(Exe), Why)) {
      llvm::sys::fs::remove(Exe);
      return std::nullopt;
    }
    It = Built.emplace(Key, std::string(Exe)).first;
  }
  auto T = runHarness(It->second, Args, Why,
                      unsigned(std::max(60.0, 40 * PredictedSeconds * VA.Reps)));
  if (!T)
    return std::nullopt;
  return T->Median;
}

/// --measure: each variant timed at each point (harnesses built once),
/// the measured winners and crossovers beside the predicted ones.
void timeVariants(std::vector<VariantInput> &Vs, const std::vector<VariantFile *> &VFiles,
                  const MachineModel &M, const VariantArgs &VA, const std::string &Param,
                  VariantChoice &Ch, ProgressBar &Bar) {
  std::set<std::string> Failed;
  HarnessCache Built;
  for (size_t PI = 0; PI < Ch.Points.size(); ++PI) {
    VariantPoint &P = Ch.Points[PI];
    if (!Param.empty())
      bindVariants(Vs, Param, P.Value);
    bool All = true;
    for (size_t I = 0; I < Vs.size(); ++I) {
      Bar.update(PI, "timing " + Vs[I].Name);
      std::string Why;
      P.Variants[I].Measured = measureVariant(Vs[I], *VFiles[I], M, VA,
                                              P.Variants[I].Ok ? P.Variants[I].Seconds : 0,
                                              Built, Why);
      if (!P.Variants[I].Measured) {
        All = false;
        if (Failed.insert(Vs[I].Name + ": " + Why).second)
          Ch.Notes.push_back("not timed: " + Vs[I].Name +
                             (Param.empty() ? "" : " at " + Param + "=" +
                                                         std::to_string(P.Value)) +
                             ": " + Why);
      }
    }
    P.MeasuredWinner = All ? fastestVariant(P.Variants, true) : -1;
  }
  Ch.MeasuredCrossovers = winnerChanges(Ch.Points, true);
}

int runChooseVariants(const VariantArgs &VA, const CompileCommand &CC) {
  auto Start = std::chrono::steady_clock::now();
  AnalyzeArgs A = VA.A;
  if (int RC = checkOutput(A.Output))
    return RC;
  if (A.File == "-") {
    A.File = stdinToSourceFile(CC);
    if (A.File.empty())
      return ExitFailed;
    A.Shown = "<stdin>";
  }
  std::string Err;
  if (!parseModels(A, Err))
    return error(Err, ExitUsage);
  if (VA.Variants.size() < 2)
    return error("choose " + A.File + " needs two or more --variant FUNCTION (or "
                 "FILE:FUNCTION) to compare, e.g. --variant f_scalar --variant f_avx",
                 ExitUsage);
  std::optional<SweepSpec> Spec;
  std::vector<std::string> Fixed;
  if (!splitSizeRange(A.Defines, Spec, Fixed, Err))
    return error(Err, ExitUsage);
  // Bind the first value so that the front end accepts the name.
  A.Defines = Fixed;
  if (Spec)
    A.Defines.push_back(Spec->Name + "=" + std::to_string(Spec->Values.front()));
  std::vector<std::string> Notes;
  std::optional<MachineModel> M = loadMachine(A.Machine, A.Sets, Notes);
  if (!M)
    return ExitFailed;
  if (VA.Measure)
    if (int RC = checkRunsOnHost(*M, "--measure runs the variants", Notes))
      return RC;
  // One front-end run and one in-core compile per file named.
  std::list<VariantFile> Files;
  auto FileFor = [&](const std::string &Path) -> VariantFile * {
    for (VariantFile &F : Files)
      if (F.Path == Path)
        return &F;
    VariantFile &F = Files.emplace_back();
    F.Path = Path;
    AnalyzeArgs FA = A;
    FA.File = Path;
    if (Path != A.File)
      FA.Shown.clear();
    int RC;
    F.FR = prepareSource(FA, CC, F.Index, RC);
    if (!F.FR)
      return nullptr;
    if (!A.NoInCore)
      F.InCore = analyzeKernelLoops(F.FR->IR, F.FR->CompileArgs,
                                    inCoreOptionsFor(*M, pipelineOptions(A, {}, F.Index)));
    return &F;
  };
  std::vector<VariantInput> Vs;
  std::vector<VariantFile *> VFiles;
  for (const std::string &Spec : VA.Variants) {
    // FILE:FUNCTION, FUNCTION (in the file named first) or FILE (its one
    // function with loops).
    std::string Path = A.File, Fn = Spec;
    size_t Colon = Spec.rfind(':');
    if (Colon != std::string::npos) {
      Path = Spec.substr(0, Colon);
      Fn = Spec.substr(Colon + 1);
    } else if (llvm::sys::fs::is_regular_file(Spec)) {
      Path = Spec;
      Fn.clear();
    }
    VariantFile *F = FileFor(Path);
    if (!F)
      return ExitFailed;
    KernelIR &IR = F->FR->IR;
    if (Fn.empty()) {
      std::set<std::string> Fns;
      for (const LoopKernel &K : IR.Loops)
        Fns.insert(K.Function);
      if (Fns.size() != 1)
        return error("--variant " + Spec + ": the file has " + std::to_string(Fns.size()) +
                         " functions with loops; name one as " + Spec + ":FUNCTION",
                     ExitUsage);
      Fn = *Fns.begin();
    }
    VariantInput V;
    V.Name = Spec;
    V.Function = Fn;
    V.IR = &IR;
    V.InCore = A.NoInCore ? nullptr : &F->InCore;
    V.Pipeline = pipelineOptions(A, F->FR->CompileArgs, F->Index);
    Vs.push_back(std::move(V));
    VFiles.push_back(F);
  }
  VariantOptions O;
  if (Spec) {
    O.Param = Spec->Name;
    O.Values = Spec->Values;
  }
  ProgressBar Bar(O.Values.size() + 1);
  O.Progress = [&](size_t Done, size_t Total, const std::string &What) {
    Bar.setTotal(Total);
    Bar.update(Done, What);
  };
  VariantChoice Ch;
  bool Ok = chooseVariants(Vs, *M, O, Ch, Err);
  if (!Ok) {
    Bar.clear();
    return error(Err);
  }
  Ch.File = A.Shown.empty() ? A.File : A.Shown;
  // The cost of the choice: front end, compiles and predictions, not timing.
  Ch.AnalysisSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  if (A.Models.Roofline + A.Models.Ecm + A.Models.Ppr == 1)
    Ch.Model = A.Models.Ecm ? ModelKind::Ecm : A.Models.Ppr ? ModelKind::Ppr : ModelKind::Roofline;
  if (VA.Measure)
    timeVariants(Vs, VFiles, *M, VA, O.Param, Ch, Bar);
  Bar.clear();
  for (auto It = Notes.rbegin(); It != Notes.rend(); ++It)
    Ch.Notes.insert(Ch.Notes.begin(), *It);
  for (const VariantFile &F : Files)
    for (const std::string &N : F.FR->IR.Notes)
      Ch.Notes.push_back((F.Path == A.File ? Ch.File : F.Path) + ": " + N);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == ReportFormat::Json)
    printVariantChoiceJSON(OS, Ch, *M);
  else
    printVariantChoice(OS, Ch, *M);
  OS.flush();
  return emitReport(A.Output, Text);
}

} // namespace

std::vector<Command> perfmodel::tool::addChoose(CLI::App &App, const CompileCommand &CC) {
  auto B = std::make_shared<BcsrArgs>();
  CLI::App *Choose = App.add_subcommand(
      "choose", "Choose the fastest variant before running any: BCSR block sizes for a "
                "sparse matrix (choose bcsr), or functions computing the same thing");
  // choose FILE --variant ... runs on the parent; choose bcsr is its own.
  auto V = std::make_shared<VariantArgs>();
  Choose->require_subcommand(0, 1);
  addSourceOptions(Choose, V->A, /*FileRequired=*/false);
  addMachineOptions(Choose, V->A);
  addModelOptions(Choose, V->A);
  Choose->add_option("--variant", V->Variants,
                     "a variant: FUNCTION in FILE, OTHER.c:FUNCTION, or OTHER.c (its one "
                     "function with loops); two or more")
      ->allow_extra_args(false);
  Choose->add_flag("--measure", V->Measure,
                   "also time every variant at every size on this host (the harness of "
                   "validate) and print measured beside predicted");
  Choose->add_option("--reps", V->Reps, "timed repetitions per size with --measure (median)")
      ->check(CLI::Range(1u, 101u));
  Choose->add_option("--max-call", V->MaxCallSeconds,
                     "with --measure, skip sizes where one call is predicted to take longer "
                     "(seconds)")
      ->check(CLI::PositiveNumber);
  addFormatOption(Choose, V->A.Format, {ReportFormat::Text, ReportFormat::Json}, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  Choose->add_option("-o,--output", V->A.Output, "write the report to this file");
  Choose->footer("choose FILE --variant f --variant g [-D N=START:STOP:xFACTOR] [-- flags]: "
                 "the variants ranked by predicted time per call at each size, and the "
                 "sizes where the fastest changes.");
  CLI::App *Bcsr = Choose->add_subcommand(
      "bcsr", "Predict SpMV with every r x c block size of a Matrix Market matrix and "
              "rank them (the PPR paper's block choice)");
  Bcsr->add_option("matrix", B->Matrix, "Matrix Market file (coordinate format)");
  addMachineOptions(Bcsr, B->A);
  addKeptL3Option(Bcsr, B->A);
  Bcsr->add_option("--max-block", B->MaxBlock, "largest block, RxC (default 8x8)");
  Bcsr->add_option("--model", B->Model,
                   "rank by ecm, ppr or roofline (default: the headline rule, ECM first)");
  addFormatOption(Bcsr, B->A.Format, {ReportFormat::Text, ReportFormat::Json}, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  Bcsr->add_option("-o,--output", B->A.Output, "write the report to this file");
  Bcsr->add_option("--sim-accesses", B->A.SimAccesses,
                   "replay budget of the cache simulator per candidate")
      ->check(CLI::Range(uint64_t(1000), uint64_t(1) << 40));
  Bcsr->add_flag("--prefetch", B->A.Prefetch, "simulate the machine's prefetchers");
  Bcsr->add_option("--explain", B->Explain,
                   "also print the full analyze report of block RxC (simulated even where "
                   "its bound prunes it; JSON: field explanation)");
  Bcsr->add_option("--emit-kernels", B->EmitKernels,
                   "write the C source of the modelled kernels to this file (a timing "
                   "harness compiles the same code)");
  Bcsr->footer("Flags for compiling the kernels may follow a bare `--` (default -O3; the "
               "machine's CPU is targeted as in analyze).");
  std::vector<Command> Cmds;
  // The subcommand first: a parsed `choose bcsr` has its parent parsed too.
  Cmds.push_back({Bcsr, [B, &CC] { return runChooseBcsr(*B, CC); }, true});
  Cmds.push_back({Choose,
                  [V, &CC]() -> int {
                    if (V->A.File.empty())
                      return error("choose needs a source file and --variant functions, or "
                                   "the bcsr subcommand (see perfmodel choose --help)",
                                   ExitUsage);
                    return runChooseVariants(*V, CC);
                  },
                  true});
  return Cmds;
}

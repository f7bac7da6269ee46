//===- Plugin.cpp - perfmodel remarks during ordinary builds --------------===//
//
//   clang-19 -fplugin=perfmodel-plugin.so -Rpass-analysis=perfmodel -c k.c
//
// Runs after code generation on the AST Clang already built, so the object
// file is exactly what the build would produce without the plugin. It never
// turns a good build into a failed one: everything it says is a remark, and
// any internal problem becomes one remark.
//
// Options (-fplugin-arg-perfmodel-NAME=VALUE):
//   machine=FILE|NAME   machine model (default: the library model of the
//                       -march/-mcpu/-mtune target, else the host's, else
//                       Haswell-EP; the remark says which)
//   yaml=FILE           also write LLVM optimization records (opt-viewer)
//   D=NAME=VALUE        bind a size parameter (repeatable)
//   incore=1            also compile the file once more for the in-core model
//   cache=lc|auto|sim|both|none  traffic model beyond L1 (default lc: the
//                       simulator's replay would cost more than the build)
//   stage-times=1       print the time each stage took to standard error
//   fault=internal      fault injection for tests
//
//===----------------------------------------------------------------------===//
#include "perfmodel/FrontendAST.h"
#include "perfmodel/InCore.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Pipeline.h"
#include "perfmodel/Report.h"
#include "perfmodel/Roofline.h"
#include "perfmodel/StageTimes.h"
#include "perfmodel/Traffic.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Basic/TargetOptions.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

#include <stdexcept>

using namespace clang;
using namespace perfmodel;

namespace {

struct PluginOptions {
  std::string Machine;
  std::string Yaml;
  std::map<std::string, int64_t> Defines;
  bool InCore = false;
  TrafficMethod Cache = TrafficMethod::LayerConditions;
  bool FaultInternal = false;
  bool StageTimes = false;
  ModelSelection Models{true, true, false, 1}; ///< PPR needs the in-core model
  std::vector<std::string> Problems; ///< option errors, reported as remarks
};

/// One analysis remark, as printed and as written to the YAML record.
struct Remark {
  SourceLoc Loc;
  std::string Function;
  std::string Name; ///< "LoopModel" or "NotModelled"
  std::vector<std::pair<std::string, std::string>> Args; ///< key, value
  std::string text() const {
    std::string S = "perfmodel: ";
    for (const auto &[K, V] : Args)
      S += V;
    return S;
  }
};

std::string yamlQuote(const std::string &S) {
  std::string Out = "'";
  for (char C : S)
    Out += C == '\'' ? std::string("''") : std::string(1, C);
  return Out + "'";
}

void writeYaml(const std::string &File, const std::vector<Remark> &Remarks,
               std::vector<std::string> &Problems) {
  // Written whole to a temporary and renamed: never a half-written record.
  std::string Tmp = File + ".tmp";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Tmp, EC);
    if (EC) {
      Problems.push_back("cannot write " + File + ": " + EC.message());
      return;
    }
    for (const Remark &R : Remarks) {
      OS << "--- !Analysis\n";
      OS << "Pass:            perfmodel\n";
      OS << "Name:            " << R.Name << "\n";
      OS << "DebugLoc:        { File: " << yamlQuote(R.Loc.File) << ", Line: " << R.Loc.Line
         << ", Column: " << R.Loc.Column << " }\n";
      OS << "Function:        " << yamlQuote(R.Function) << "\n";
      OS << "Args:\n";
      for (const auto &[K, V] : R.Args)
        OS << "  - " << K << ": " << yamlQuote(V) << "\n";
      OS << "...\n";
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, File)) {
    llvm::sys::fs::remove(Tmp);
    Problems.push_back("cannot write " + File + ": " + EC.message());
  }
}

/// The machine of this compile: machine= when given, else the library model
/// of the CPU the compile targets, else the host's. WHY names the choice.
std::string chooseMachine(const PluginOptions &O, const TargetOptions &T, std::string &Why) {
  if (!O.Machine.empty()) {
    Why = "machine=" + O.Machine;
    return resolveMachine(O.Machine);
  }
  auto Generic = [](llvm::StringRef C) {
    return C.empty() || C == "generic" || C.starts_with("x86-64") || C == "i386" ||
           C == "i686" || C == "pentium4";
  };
  std::string Flag, Cpu;
  if (!Generic(T.CPU)) {
    Flag = "-march/-mcpu";
    Cpu = T.CPU;
  } else if (!Generic(T.TuneCPU)) {
    Flag = "-mtune";
    Cpu = T.TuneCPU;
  }
  std::string Note;
  if (Cpu.empty()) {
    std::string F = defaultMachine(Note);
    Why = "no target CPU named; " + Note;
    return F;
  }
  if (Cpu == llvm::sys::getHostCPUName())
    // -march=native: the host's own model (matched by CPUID) knows it best.
    if (auto Host = detectHostCpu())
      if (std::string F = machineForHost(*Host); !F.empty()) {
        Why = Flag + " " + Cpu + " (this host, model matched by CPUID)";
        return F;
      }
  if (std::string F = machineForLlvmCpu(Cpu); !F.empty()) {
    Why = Flag + " " + Cpu;
    return F;
  }
  std::string F = defaultMachine(Note);
  Why = "no library model for " + Flag + " " + Cpu + "; " + Note;
  return F;
}

std::string shortName(const MachineModel &M) {
  return M.Aliases.empty() ? llvm::sys::path::stem(M.File).str() : M.Aliases.front();
}

Remark remarkFor(const LoopReport &LR, const MachineModel &M, const std::string &Why) {
  const LoopKernel &K = *LR.Loop;
  Remark R;
  R.Loc = K.Loc;
  R.Function = K.Function;
  if (!K.Modelled) {
    R.Name = "NotModelled";
    R.Args = {{"String", "not modelled: "}, {"Reason", K.Reason}};
    return R;
  }
  R.Name = "LoopModel";
  const RooflineResult &RF = *LR.Roofline;
  // The level the working set lives in; memory when unknown.
  const RooflineLink &Mem = RF.atDataLevel();
  double L1Bytes = RF.Traffic.l1Bytes();
  R.Args = {{"Flops", formatNumber(RF.FlopsPerIt)},
            {"String", " flop/it, "},
            {"Bytes", formatNumber(L1Bytes)},
            {"String", " B/it at L1, AI "},
            {"Intensity", formatNumber(Mem.Intensity)},
            {"String", " flop/B at memory ("},
            {"Traffic", trafficSourceName(RF.TrafficModel)},
            {"String", "); "}};
  using Limit = RooflineLink::Limit;
  bool MemBound = Mem.Binds != Limit::ComputePeak && Mem.Binds != Limit::InCore &&
                  Mem.Binds != Limit::FlopMix;
  R.Args.push_back({"Bound", !MemBound             ? "compute-bound"
                             : isMemoryLevel(Mem.Level) ? "memory-bound"
                                                  : "bandwidth-bound"});
  R.Args.push_back({"String", " (data in "});
  R.Args.push_back({"DataLevel", Mem.Level});
  R.Args.push_back({"String", ")"});
  R.Args.push_back({"String", ": "});
  R.Args.push_back({"GFlops", formatNumber(Mem.BoundGFlops)});
  R.Args.push_back({"String", " GFLOP/s"});
  if (MemBound) {
    R.Args.push_back({"String", " at "});
    R.Args.push_back({"Bandwidth", formatNumber(Mem.BandwidthGBs) + " GB/s"});
  }
  R.Args.push_back({"String", " (Roofline on "});
  R.Args.push_back({"Machine", shortName(M)});
  R.Args.push_back({"String", ", " + M.Cpu + ", from "});
  R.Args.push_back({"MachineFrom", Why});
  R.Args.push_back({"String", ")"});
  if (LR.Ecm && LR.Ecm->Ok) {
    R.Args.push_back({"String", "; ECM "});
    R.Args.push_back({"ECM", LR.Ecm->contributions()});
  }
  if (LR.Ppr && LR.Ppr->Ok) {
    const LevelPrediction *At = LR.Ppr->Summary.atDataLevel();
    R.Args.push_back({"String", "; PPR "});
    R.Args.push_back({"PPR", formatNumber(At->GFlops) + " GFLOP/s"});
  }
  if (const Prediction *H = LR.headline(); H && H != &RF.Summary) {
    R.Args.push_back({"String", "; headline "});
    R.Args.push_back({"Headline", headlineText(LR)});
  }
  if (LR.InCore && LR.InCore->Ok) {
    double K2 = LR.InCore->SourceItersPerIter > 0 ? LR.InCore->SourceItersPerIter : 1;
    R.Args.push_back({"String", "; in-core "});
    R.Args.push_back({"InCore", formatNumber(LR.InCore->Cycles / K2) + " cy/it"});
    R.Args.push_back({"String", std::string(" (") + inCoreBoundName(LR.InCore->Bottleneck) + ")"});
  }
  return R;
}

class Consumer : public ASTConsumer {
public:
  Consumer(CompilerInstance &CI, PluginOptions O) : CI(CI), O(std::move(O)) {}

  void HandleTranslationUnit(ASTContext &Ctx) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    if (D.hasErrorOccurred())
      return; // the build already failed; nothing to add
    const auto &Pattern = CI.getCodeGenOpts().OptimizationRemarkAnalysis;
    bool Print = Pattern.patternMatches("perfmodel");
    if (!Print && O.Yaml.empty())
      return; // nobody asked: cost nothing
    std::vector<Remark> Remarks;
    if (O.StageTimes)
      enableStageTimes();
    try {
      analyze(Ctx, Remarks);
    } catch (const std::exception &E) {
      O.Problems.push_back(std::string("internal error: ") + E.what() +
                           " (the build is unaffected)");
    } catch (...) {
      O.Problems.push_back("internal error (the build is unaffected)");
    }
    if (O.StageTimes)
      printStageTimes(llvm::errs());
    if (!O.Yaml.empty())
      writeYaml(O.Yaml, Remarks, O.Problems);
    if (!Print && O.Problems.empty())
      return;
    unsigned ID = D.getCustomDiagID(DiagnosticsEngine::Remark, "%0");
    SourceManager &SM = Ctx.getSourceManager();
    SourceLocation MainLoc = SM.getLocForStartOfFile(SM.getMainFileID());
    for (const std::string &P : O.Problems)
      D.Report(MainLoc, ID) << ("perfmodel: " + P + " [-Rpass-analysis=perfmodel]");
    if (!Print)
      return;
    for (const Remark &R : Remarks)
      D.Report(locationOf(SM, R.Loc), ID) << (R.text() + " [-Rpass-analysis=perfmodel]");
  }

private:
  SourceLocation locationOf(SourceManager &SM, const SourceLoc &L) {
    if (auto F = SM.getFileManager().getOptionalFileRef(L.File)) {
      SourceLocation Loc = SM.translateFileLineCol(*F, L.Line, L.Column);
      if (Loc.isValid())
        return Loc;
    }
    return SM.getLocForStartOfFile(SM.getMainFileID());
  }

  void analyze(ASTContext &Ctx, std::vector<Remark> &Remarks) {
    if (O.FaultInternal)
      throw std::runtime_error("fault injected by fault=internal");
    SourceManager &SM = Ctx.getSourceManager();
    perfmodel::FrontendOptions FO;
    if (auto F = SM.getFileEntryRefForID(SM.getMainFileID()))
      FO.File = F->getName().str();
    FO.Defines = O.Defines;
    KernelIR IR = analyzeTranslationUnit(Ctx, FO);
    std::string Why;
    std::string File = chooseMachine(O, CI.getTargetOpts(), Why);
    if (File.empty()) {
      O.Problems.push_back((O.Machine.empty() ? "no machine model found (" + Why + ")"
                                              : "machine model '" + O.Machine + "' not found") +
                           "; no analysis (the build is unaffected)");
      return;
    }
    MachineLoadResult ML = loadMachineModel(File);
    if (!ML.ok()) {
      std::string First;
      for (const MachineDiag &Dg : ML.Diags)
        if (Dg.Severity == MachineDiag::Kind::Error) {
          First = Dg.str();
          break;
        }
      O.Problems.push_back("machine model " + File + " is not valid (" + First +
                           "); no analysis (the build is unaffected)");
      return;
    }
    const MachineModel &M = *ML.Model;

    // The command line's pipeline, on the loops of this file only. The
    // in-core model compiles the file once more: only on request.
    PipelineOptions PO;
    PO.Models = O.Models;
    PO.Cache = O.Cache;
    PO.InCore = O.InCore;
    PO.EdgeNotes = false; // a note no remark prints
    // The build's include paths and macros, so the kernel compiles the same.
    for (const auto &Entry : CI.getHeaderSearchOpts().UserEntries)
      PO.CompileArgs.push_back("-I" + Entry.Path);
    for (const auto &Macro : CI.getPreprocessorOpts().Macros)
      PO.CompileArgs.push_back((Macro.second ? "-U" : "-D") + Macro.first);
    PO.Select = [&](const LoopKernel &K) { return SM.isInMainFile(locationOf(SM, K.Loc)); };
    AnalysisReport R;
    modelLoops(R, IR, M, PO);
    for (const LoopReport &LR : R.Loops)
      Remarks.push_back(remarkFor(LR, M, Why));
  }

  CompilerInstance &CI;
  PluginOptions O;
};

class Action : public PluginASTAction {
public:
  bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &Args) override {
    for (const std::string &A : Args) {
      llvm::StringRef Key, Value;
      std::tie(Key, Value) = llvm::StringRef(A).split('=');
      if (Key == "machine") {
        O.Machine = Value.str();
      } else if (Key == "yaml") {
        O.Yaml = Value.str();
      } else if (Key == "incore") {
        O.InCore = Value == "1" || Value == "on" || Value == "true";
      } else if (Key == "cache" && trafficMethodNamed(Value.str())) {
        O.Cache = *trafficMethodNamed(Value.str());
      } else if (Key == "models") {
        O.Models.Roofline = true;
        O.Models.Ecm = Value.contains("ecm") || Value.contains("all");
        O.Models.Ppr = Value.contains("ppr") || Value.contains("all");
      } else if (Key == "stage-times") {
        O.StageTimes = Value == "1" || Value == "on" || Value == "true";
      } else if (Key == "fault" && Value == "internal") {
        O.FaultInternal = true;
      } else if (Key == "D") {
        auto [Name, Num] = Value.rsplit('=');
        int64_t V;
        if (Name.empty() || Num.getAsInteger(0, V))
          O.Problems.push_back("ignoring -fplugin-arg-perfmodel-" + A +
                               ": expected D=NAME=INTEGER");
        else
          O.Defines[Name.str()] = V;
      } else {
        O.Problems.push_back("ignoring unknown option -fplugin-arg-perfmodel-" + A +
                             " (known: machine, yaml, D, incore, cache, models, stage-times)");
      }
    }
    return true; // a bad option must not fail the build
  }
  ActionType getActionType() override { return AddAfterMainAction; }
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    return std::make_unique<Consumer>(CI, O);
  }

private:
  PluginOptions O;
};

} // namespace

static FrontendPluginRegistry::Add<Action>
    Registration("perfmodel", "performance-model remarks for every loop");

//===- perfmodel - static performance model for loop kernels --------------===//
//
// A thin shell over the libraries: parse the command line, load the machine,
// run the front end and the models, and hand the results to a view.
//
// Exit codes: 0 success, 1 the input could not be analysed (bad source, bad
// machine file), 2 the command line is wrong.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Frontend.h"
#include "perfmodel/InCore.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Report.h"
#include "perfmodel/Roofline.h"
#include "perfmodel/Traffic.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

using namespace perfmodel;

namespace {

constexpr int ExitOk = 0, ExitFailed = 1, ExitUsage = 2;

int error(const std::string &Msg, int Code = ExitFailed) {
  llvm::errs() << "perfmodel: error: " << Msg << "\n";
  return Code;
}

/// Prints machine-file diagnostics, at most 20 (like a compiler's error limit).
void printDiags(const std::vector<MachineDiag> &Diags, bool Warnings) {
  unsigned Shown = 0, Hidden = 0;
  for (const MachineDiag &D : Diags) {
    if (!Warnings && D.Severity != MachineDiag::Kind::Error)
      continue;
    if (Shown++ < 20)
      llvm::errs() << D.str() << "\n";
    else
      ++Hidden;
  }
  if (Hidden)
    llvm::errs() << "... and " << Hidden << " more\n";
}

/// Loads -m NAME|FILE (or the default) with --set overrides; prints problems.
std::optional<MachineModel> loadMachine(const std::string &Name,
                                        const std::vector<std::string> &Sets,
                                        std::vector<std::string> &Notes) {
  std::string File;
  if (Name.empty()) {
    std::string Note;
    File = defaultMachine(Note);
    Notes.push_back(Note);
    if (File.empty()) {
      error("no machine model found (searched PERFMODEL_MACHINE_PATH and the "
            "installed machine-models); pass -m FILE");
      return std::nullopt;
    }
  } else {
    File = resolveMachine(Name);
    if (File.empty()) {
      std::string Known;
      for (const std::string &F : listMachineFiles())
        Known += " " + llvm::sys::path::stem(F).str();
      error("machine '" + Name + "' is neither a file nor a known model (known:" +
            Known + ")");
      return std::nullopt;
    }
  }
  MachineLoadResult R = loadMachineModel(File, Sets);
  printDiags(R.Diags, /*Warnings=*/false);
  if (!R.ok()) {
    llvm::errs() << "perfmodel: error: machine model " << File << " is not valid\n";
    return std::nullopt;
  }
  return R.Model;
}

/// "N=4096", "N=1e6", "N=1<<20" -> binding.
bool parseDefine(const std::string &S, std::map<std::string, int64_t> &Out,
                 std::string &Err) {
  size_t Eq = S.rfind('=');
  if (Eq == std::string::npos || Eq == 0) {
    Err = "-D " + S + ": expected name=value, e.g. -D N=4096";
    return false;
  }
  std::string Name = llvm::StringRef(S.substr(0, Eq)).trim().str();
  llvm::StringRef V = llvm::StringRef(S).substr(Eq + 1).trim();
  int64_t Value;
  double D;
  if (!V.getAsInteger(0, Value)) {
  } else if (!V.getAsDouble(D) && D == std::floor(D) && std::fabs(D) < 9e18) {
    Value = int64_t(D);
  } else if (size_t Sh = V.find("<<"); Sh != llvm::StringRef::npos) {
    int64_t A, B;
    if (V.substr(0, Sh).trim().getAsInteger(0, A) ||
        V.substr(Sh + 2).trim().getAsInteger(0, B) || B < 0 || B > 62) {
      Err = "-D " + S + ": '" + V.str() + "' is not an integer";
      return false;
    }
    Value = A << B;
  } else {
    Err = "-D " + S + ": '" + V.str() + "' is not an integer";
    return false;
  }
  if (Value < 0) {
    Err = "-D " + S + ": sizes must not be negative";
    return false;
  }
  Out[Name] = Value;
  return true;
}

/// Writes TEXT to PATH atomically (a temporary beside it, then rename). An
/// existing file is replaced only if it is a perfmodel report itself, so a
/// mistyped -o never destroys a user's source or data.
int writeOutput(const std::string &Path, const std::string &Text) {
  if (llvm::sys::fs::is_directory(Path))
    return error("-o " + Path + ": is a directory");
  if (llvm::sys::fs::exists(Path)) {
    auto Old = llvm::MemoryBuffer::getFile(Path);
    llvm::StringRef Prev = Old ? (*Old)->getBuffer() : "";
    bool Ours = Prev.starts_with("perfmodel analyze ") ||
                (Prev.starts_with("{") &&
                 Prev.contains("\"schema\": \"perfmodel-analysis\""));
    if (!Ours)
      return error("-o " + Path + ": refusing to overwrite a file that is not a "
                   "perfmodel report");
  }
  llvm::SmallString<256> Tmp;
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Path));
  if (Dir.empty())
    Dir = ".";
  llvm::sys::path::append(Dir, llvm::sys::path::filename(Path) + ".tmp%%%%%%");
  int FD;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Dir, FD, Tmp))
    return error("cannot write " + Path + ": " + EC.message());
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Text;
    Out.close();
    if (Out.has_error()) {
      Out.clear_error();
      llvm::sys::fs::remove(Tmp);
      return error("cannot write " + Path);
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Tmp, Path)) {
    llvm::sys::fs::remove(Tmp);
    return error("cannot write " + Path + ": " + EC.message());
  }
  return ExitOk;
}

struct AnalyzeArgs {
  std::string File;
  std::string Machine;
  std::vector<std::string> Sets;
  std::vector<std::string> Defines;
  std::string Format = "text";
  std::string CompileCommandsDir;
  std::string Output;
  std::string Cache = "auto";
  std::vector<std::string> Index;
  uint64_t SimAccesses = 40'000'000;
  bool Prefetch = false;
  bool NoInCore = false;
  ModelSelection Models;
};

/// --model roofline|ecm|ppr|all (repeatable or comma-separated).
bool parseModels(const std::vector<std::string> &Names, ModelSelection &S,
                 std::string &Err) {
  if (Names.empty())
    return true;
  S.Roofline = S.Ecm = S.Ppr = false;
  for (const std::string &List : Names) {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(List).split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts) {
      P = P.trim();
      if (P == "all")
        S.Roofline = S.Ecm = S.Ppr = true;
      else if (P == "roofline")
        S.Roofline = true;
      else if (P == "ecm")
        S.Ecm = true;
      else if (P == "ppr")
        S.Ppr = true;
      else {
        Err = "--model " + P.str() + ": expected roofline, ecm, ppr or all";
        return false;
      }
    }
  }
  return true;
}

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

int runAnalyze(const AnalyzeArgs &A, const std::vector<std::string> &CompileArgs,
               bool HasCompileArgs) {
  // Sources larger than this are generated code, not kernels; refuse clearly.
  uint64_t Size = 0;
  if (!llvm::sys::fs::file_size(A.File, Size) && Size > (uint64_t(64) << 20))
    return error(A.File + ": " + std::to_string(Size >> 20) +
                 " MiB is more source than perfmodel analyses (at most 64 MiB)");
  FrontendOptions FO;
  FO.File = A.File;
  FO.CompileArgs = CompileArgs;
  FO.HasCompileArgs = HasCompileArgs;
  FO.CompileCommandsDir = A.CompileCommandsDir;
  for (const std::string &D : A.Defines) {
    std::string Err;
    if (!parseDefine(D, FO.Defines, Err))
      return error(Err, ExitUsage);
  }
  std::vector<std::string> Notes;
  std::optional<MachineModel> M = loadMachine(A.Machine, A.Sets, Notes);
  if (!M)
    return ExitFailed;

  FrontendResult FR = runFrontend(FO);
  if (!FR.Diagnostics.empty())
    llvm::errs() << FR.Diagnostics;
  if (!FR.Ok)
    return error(FR.Error);

  if (!M->Memory.SustainedGBs)
    Notes.push_back("memory: the machine model has no sustained bandwidth; the "
                    "theoretical " + formatNumber(M->Memory.BandwidthGBs) +
                    " GB/s bounds the memory level");
  IndexData Index;
  for (const std::string &Spec : A.Index) {
    std::string Err;
    if (!loadIndexSpec(Spec, FR.IR, Index, Err))
      return error(Err);
  }
  // A matrix file fixes the sizes the loops run over (rows of a CSR matrix).
  for (const auto &Size : Index.Sizes) {
    const std::string Name = Size.first;
    int64_t Value = Size.second;
    auto It = FR.IR.Parameters.find(Name);
    if (It == FR.IR.Parameters.end() || It->second.From != Parameter::Origin::Default)
      continue;
    It->second.Value = Value;
    It->second.From = Parameter::Origin::Source;
    It->second.Where = "index data";
    auto &N = FR.IR.Notes;
    N.erase(std::remove_if(N.begin(), N.end(),
                           [&](const std::string &S) {
                             return S.rfind("size parameter '" + Name + "'", 0) == 0;
                           }),
            N.end());
  }

  AnalysisReport R;
  R.IR = &FR.IR;
  R.Machine = &*M;
  R.Notes = Notes;
  R.Models = A.Models;
  // auto: the analytic layer conditions, and the simulator only where they
  // do not apply (indirect or non-uniform accesses); replaying every loop of
  // a large file would cost far more than compiling it.
  bool Auto = A.Cache == "auto";
  bool RunLC = Auto || A.Cache == "lc" || A.Cache == "both";
  bool RunSim = A.Cache == "sim" || A.Cache == "both";
  SimOptions SO;
  SO.MaxAccesses = A.SimAccesses;
  SO.Prefetch = A.Prefetch;
  SO.Index = &Index;
  std::vector<InCoreResult> InCore;
  if (!A.NoInCore)
    InCore = analyzeKernelLoops(FR.IR, CompileArgs, inCoreOptionsFor(*M));
  for (size_t LI = 0; LI < FR.IR.Loops.size(); ++LI) {
    const LoopKernel &K = FR.IR.Loops[LI];
    LoopReport LR;
    LR.Loop = &K;
    if (LI < InCore.size() && K.Modelled)
      LR.InCore = InCore[LI];
    if (K.Modelled) {
      if (RunLC)
        LR.Conditions = layerConditionTraffic(K, FR.IR, *M);
      if (RunSim || (Auto && !LR.Conditions->Ok))
        LR.Simulated = simulateTraffic(K, FR.IR, *M, SO);
      runModels(LR, FR.IR, *M, R.Models);
    }
    R.Loops.push_back(std::move(LR));
  }

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == "json")
    printJSON(OS, R);
  else
    printText(OS, R);
  OS.flush();
  if (A.Output.empty() || A.Output == "-") {
    llvm::outs() << Text;
    return ExitOk;
  }
  return writeOutput(A.Output, Text);
}

int runInCore(const std::string &File, const std::string &Hex, const std::string &Batch,
              const std::string &Machine, const std::string &Cpu,
              const std::vector<std::string> &Sets, const std::string &Format) {
  if (int(!File.empty()) + int(!Hex.empty()) + int(!Batch.empty()) != 1)
    return error("incore needs one of: an assembly file, --hex BYTES, --batch FILE",
                 ExitUsage);
  InCoreOptions O;
  std::vector<std::string> Notes;
  if (!Cpu.empty()) {
    O.Cpu = Cpu;
    if (!Machine.empty())
      return error("give -m or --mcpu, not both", ExitUsage);
  } else {
    std::optional<MachineModel> M = loadMachine(Machine, Sets, Notes);
    if (!M)
      return ExitFailed;
    O = inCoreOptionsFor(*M);
  }
  if (!Batch.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Batch, /*IsText=*/true);
    if (!Buf)
      return error(Batch + ": cannot read: " + Buf.getError().message());
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, false);
    for (llvm::StringRef Line : Lines) {
      llvm::StringRef HexText = Line.split(',').first.trim();
      if (HexText.empty() || HexText.starts_with("#"))
        continue;
      std::string Err;
      auto Bytes = parseHex(HexText.str(), Err);
      InCoreResult B;
      if (Bytes)
        B = analyzeBlockBytes(*Bytes, O);
      else
        B.Reason = Err;
      llvm::outs() << HexText << "\t";
      if (!B.Ok) {
        llvm::outs() << "error\t\t" << B.Reason << "\t\n";
        continue;
      }
      std::string Asm;
      for (const InstrCost &C : B.Instrs)
        Asm += (Asm.empty() ? "" : "; ") + C.Text;
      llvm::outs() << llvm::format("%.4f", B.Cycles) << "\t" << B.Uops << "\t"
                   << B.Bottleneck << "\t" << Asm << "\n";
    }
    return ExitOk;
  }
  InCoreResult R;
  if (!Hex.empty()) {
    std::string Err;
    auto Bytes = parseHex(Hex, Err);
    if (!Bytes)
      return error("--hex: " + Err, ExitUsage);
    R = analyzeBlockBytes(*Bytes, O);
  } else {
    R = analyzeAssemblyFile(File, O);
  }
  if (!R.Ok)
    return error((File.empty() ? std::string("--hex") : File) + ": " + R.Reason);
  if (Format == "json") {
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(inCoreJSON(R))) << "\n";
    return ExitOk;
  }
  for (const std::string &N : Notes)
    llvm::outs() << "note: " << N << "\n";
  printInCoreText(llvm::outs(), R, 0);
  return ExitOk;
}

int runMachineShow(const std::string &Name, const std::vector<std::string> &Sets) {
  std::vector<std::string> Notes;
  std::optional<MachineModel> M = loadMachine(Name, Sets, Notes);
  if (!M)
    return ExitFailed;
  printMachineText(llvm::outs(), *M);
  return ExitOk;
}

int runMachineCheck(const std::vector<std::string> &Files,
                    const std::vector<std::string> &Sets) {
  int RC = ExitOk;
  for (const std::string &Name : Files) {
    std::string File = resolveMachine(Name);
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

int main(int argc, char **argv) {
  // Everything after a bare `--` is the compile command for the analysed file.
  std::vector<std::string> CompileArgs;
  bool HasCompileArgs = false;
  std::vector<const char *> Args;
  for (int I = 0; I < argc; ++I) {
    if (!HasCompileArgs && I > 0 && llvm::StringRef(argv[I]) == "--") {
      HasCompileArgs = true;
      continue;
    }
    if (HasCompileArgs)
      CompileArgs.push_back(argv[I]);
    else
      Args.push_back(argv[I]);
  }

  CLI::App App{"perfmodel: static performance model for loop kernels "
               "(Roofline, ECM, PPR) on LLVM/Clang 19"};
  App.require_subcommand(1);
  App.set_version_flag("--version", "perfmodel 0.1.0 (LLVM 19)");

  AnalyzeArgs A;
  CLI::App *Analyze = App.add_subcommand(
      "analyze", "Model every loop of a C/C++ file: flops, bytes, Roofline bounds");
  Analyze->add_option("file", A.File, "C or C++ source file")->required();
  Analyze->add_option("-m,--machine", A.Machine,
                      "machine model: file or name (default: the host's, else Haswell-EP)");
  Analyze->add_option("--set", A.Sets, "override a machine value, e.g. caches.L2.size=2MiB")
      ->take_all()
      ->allow_extra_args(false);
  Analyze->add_option("-D,--define", A.Defines, "bind a size parameter, e.g. -D N=4096")
      ->allow_extra_args(false);
  Analyze->add_option("--format", A.Format, "output format")
      ->check(CLI::IsMember({"text", "json"}));
  Analyze->add_option("-p,--compile-commands", A.CompileCommandsDir,
                      "directory with compile_commands.json");
  Analyze->add_option("-o,--output", A.Output, "write the report to this file");
  Analyze->add_option("--cache", A.Cache,
                      "traffic beyond L1: auto (layer conditions, simulator where they "
                      "do not apply), lc, sim, both, or none (naive)")
      ->check(CLI::IsMember({"auto", "lc", "sim", "both", "none"}));
  Analyze->add_option("--index", A.Index,
                      "contents of an index array for the simulator: NAME=FILE.mtx, "
                      "NAME=uniform:LO:HI[:COUNT[:SEED]], NAME=banded:WIDTH or NAME=FILE")
      ->allow_extra_args(false);
  unsigned TimeLimit = 600;
  App.add_option("--time-limit", TimeLimit,
                 "seconds a command may run before it stops with an error (0: none)")
      ->check(CLI::Range(0u, 86400u));
  std::vector<std::string> ModelNames;
  Analyze->add_option("--model", ModelNames,
                      "models to report: roofline, ecm, ppr or all (default all; "
                      "comma-separated or repeated)")
      ->allow_extra_args(false);
  Analyze->add_option("--cores", A.Models.Cores,
                      "cores running the loop (Roofline peaks and bandwidths, ECM "
                      "scaling; default 1)")
      ->check(CLI::Range(1u, 4096u));
  Analyze->add_flag("--no-incore", A.NoInCore,
                    "skip the in-core model (no compilation of the kernel)");
  Analyze->add_flag("--prefetch", A.Prefetch,
                    "simulate the machine's prefetchers (next-line on demand misses of "
                    "levels whose prefetch is not none)");
  Analyze->add_option("--sim-accesses", A.SimAccesses,
                      "replay budget of the cache simulator (larger nests are sliced)")
      ->check(CLI::Range(uint64_t(1000), uint64_t(1) << 40));
  Analyze->footer("Compile flags for the file may follow a bare `--`, e.g. "
                  "perfmodel analyze k.c -- -O3 -Iinclude");

  std::string InCoreFile, InCoreHex, InCoreMachine, InCoreCpu, InCoreFormat = "text";
  std::string InCoreBatch;
  std::vector<std::string> InCoreSets;
  CLI::App *InCoreCmd = App.add_subcommand(
      "incore", "Cost one loop body given as assembly (.s) or hex bytes on a port model");
  InCoreCmd->add_option("file", InCoreFile, "assembly file (GNU syntax; .intel_syntax ok)");
  InCoreCmd->add_option("--hex", InCoreHex, "machine code bytes, e.g. \"c5 fd 58 c1\"");
  InCoreCmd->add_option("-m,--machine", InCoreMachine, "machine model: file or name");
  InCoreCmd->add_option("--batch", InCoreBatch,
                        "a file of blocks, one hex string per line (anything after a "
                        "comma is ignored): prints hex, cycles, uops, bottleneck and the "
                        "assembly per block, tab-separated");
  InCoreCmd->add_option("--mcpu", InCoreCpu,
                        "LLVM CPU name instead of a machine model (e.g. skylake-avx512)");
  InCoreCmd->add_option("--set", InCoreSets, "override a machine value")
      ->allow_extra_args(false);
  InCoreCmd->add_option("--format", InCoreFormat, "output format")
      ->check(CLI::IsMember({"text", "json"}));

  CLI::App *Machine = App.add_subcommand("machine", "Inspect machine models");
  Machine->require_subcommand(1);
  std::string ShowName;
  std::vector<std::string> MachineSets, CheckFiles;
  CLI::App *Show = Machine->add_subcommand("show", "Print a machine model");
  Show->add_option("machine", ShowName, "file or name")->required();
  Show->add_option("--set", MachineSets, "override a value")->allow_extra_args(false);
  CLI::App *Check = Machine->add_subcommand("check", "Validate machine model files");
  Check->add_option("files", CheckFiles, "files or names")->required();
  Check->add_option("--set", MachineSets, "override a value")->allow_extra_args(false);

  bool Known = false;
  for (const CLI::App *Sub : App.get_subcommands([](CLI::App *) { return true; }))
    Known |= Args.size() > 1 && Sub->get_name() == Args[1];
  if (Args.size() > 1 && Args[1][0] != '-' && !Known)
    return error(std::string("unknown command '") + Args[1] +
                     "' (commands: analyze, incore, machine; see perfmodel --help)",
                 ExitUsage);
  try {
    App.parse(int(Args.size()), Args.data());
  } catch (const CLI::ParseError &E) {
    int RC = App.exit(E);
    return RC == 0 ? ExitOk : ExitUsage;
  }
  if (HasCompileArgs && !Analyze->parsed())
    return error("`-- compile flags` are only accepted by analyze", ExitUsage);

  startTimeLimit(TimeLimit);
  if (Analyze->parsed()) {
    std::string Err;
    if (!parseModels(ModelNames, A.Models, Err))
      return error(Err, ExitUsage);
    return runAnalyze(A, CompileArgs, HasCompileArgs);
  }
  if (InCoreCmd->parsed())
    return runInCore(InCoreFile, InCoreHex, InCoreBatch, InCoreMachine, InCoreCpu,
                     InCoreSets, InCoreFormat);
  if (Show->parsed())
    return runMachineShow(ShowName, MachineSets);
  if (Check->parsed())
    return runMachineCheck(CheckFiles, MachineSets);
  return ExitUsage;
}

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
#include "perfmodel/Probe.h"
#include "perfmodel/Report.h"
#include "perfmodel/Roofline.h"
#include "perfmodel/Traffic.h"
#include "perfmodel/Validate.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>
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
  // A what-if on the socket's bandwidth does not reach a single core that
  // the file bounds by its own figure: say so rather than show no change.
  auto IsSet = [&](llvm::StringRef Key) {
    return std::any_of(Sets.begin(), Sets.end(), [&](const std::string &S) {
      return llvm::StringRef(S).starts_with((Key + "=").str());
    });
  };
  if (R.Model->Memory.OneCoreGBs && !IsSet("memory.sustained_one_core_gbs") &&
      (IsSet("memory.bandwidth_gbs") || IsSet("memory.sustained_gbs")))
    Notes.push_back("memory: one core stays bounded by memory.sustained_one_core_gbs = " +
                    formatNumber(*R.Model->Memory.OneCoreGBs) +
                    " GB/s; --set it too for a single-core what-if");
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
                Prev.starts_with("perfmodel sweep ") ||
                Prev.take_front(300).contains("<!-- generated by perfmodel ") ||
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

/// Standard output for "" or "-", otherwise the file OUTPUT.
int emitReport(const std::string &Output, const std::string &Text) {
  if (Output.empty() || Output == "-") {
    llvm::outs() << Text;
    return ExitOk;
  }
  return writeOutput(Output, Text);
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
  std::string InCoreBasis = "compiled"; ///< --incore compiled|source
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

/// Reads and analyses the source (with -D sizes and --index data); prints
/// what is wrong and returns nullopt when it cannot.
std::optional<FrontendResult> prepareSource(const AnalyzeArgs &A,
                                            const std::vector<std::string> &CompileArgs,
                                            bool HasCompileArgs, IndexData &Index,
                                            int &RC) {
  RC = ExitFailed;
  // Sources larger than this are generated code, not kernels; refuse clearly.
  uint64_t Size = 0;
  if (!llvm::sys::fs::file_size(A.File, Size) && Size > (uint64_t(64) << 20)) {
    error(A.File + ": " + std::to_string(Size >> 20) +
          " MiB is more source than perfmodel analyses (at most 64 MiB)");
    return std::nullopt;
  }
  FrontendOptions FO;
  FO.File = A.File;
  FO.CompileArgs = CompileArgs;
  FO.HasCompileArgs = HasCompileArgs;
  FO.CompileCommandsDir = A.CompileCommandsDir;
  for (const std::string &D : A.Defines) {
    std::string Err;
    if (!parseDefine(D, FO.Defines, Err)) {
      RC = error(Err, ExitUsage);
      return std::nullopt;
    }
  }
  FrontendResult FR = runFrontend(FO);
  if (!FR.Diagnostics.empty())
    llvm::errs() << FR.Diagnostics;
  if (!FR.Ok) {
    error(FR.Error);
    return std::nullopt;
  }
  for (const std::string &Spec : A.Index) {
    std::string Err;
    if (!loadIndexSpec(Spec, FR.IR, Index, Err)) {
      error(Err);
      return std::nullopt;
    }
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
  RC = ExitOk;
  return FR;
}

/// The machine and the analysed source of one analyze or sweep.
struct Inputs {
  std::vector<std::string> Notes;
  std::optional<MachineModel> Machine;
  IndexData Index;
  std::optional<FrontendResult> FR;
};

/// Loads -m and the source; 0 when both are there, else the exit status.
int loadInputs(const AnalyzeArgs &A, const std::vector<std::string> &CompileArgs,
               bool HasCompileArgs, Inputs &In) {
  In.Machine = loadMachine(A.Machine, A.Sets, In.Notes);
  if (!In.Machine)
    return ExitFailed;
  int RC;
  In.FR = prepareSource(A, CompileArgs, HasCompileArgs, In.Index, RC);
  return In.FR ? 0 : RC;
}

/// Runs the in-core model, the cache model and the performance models for
/// every loop of IR on machine M.
void modelLoops(AnalysisReport &R, const KernelIR &IR, const MachineModel &M,
                const AnalyzeArgs &A, const std::vector<std::string> &CompileArgs,
                const IndexData &Index, const std::vector<InCoreResult> *Known = nullptr) {
  R.IR = &IR;
  R.Machine = &M;
  R.Models = A.Models;
  if (!M.Memory.SustainedGBs)
    R.Notes.push_back("memory: the machine model has no sustained bandwidth; the "
                      "theoretical " + formatNumber(M.Memory.BandwidthGBs) +
                      " GB/s bounds the memory level" +
                      (M.Memory.OneCoreGBs ? " of the socket (one core alone: " +
                                                 formatNumber(*M.Memory.OneCoreGBs) + " GB/s)"
                                           : std::string()));
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
  if (Known)
    InCore = *Known; // the machine code does not depend on the sizes
  else if (!A.NoInCore)
    InCore = analyzeKernelLoops(IR, CompileArgs, inCoreOptionsFor(M));
  for (size_t LI = 0; LI < IR.Loops.size(); ++LI) {
    const LoopKernel &K = IR.Loops[LI];
    LoopReport LR;
    LR.Loop = &K;
    if (K.Modelled && A.InCoreBasis == "source")
      LR.InCore = sourceInCore(K, M, LI < InCore.size() ? &InCore[LI] : nullptr);
    else if (LI < InCore.size() && K.Modelled)
      LR.InCore = InCore[LI];
    if (K.Modelled) {
      if (RunLC)
        LR.Conditions = layerConditionTraffic(K, IR, M);
      if (RunSim || (Auto && !LR.Conditions->Ok))
        LR.Simulated = simulateTraffic(K, IR, M, SO);
      runModels(LR, IR, M, R.Models);
    }
    R.Loops.push_back(std::move(LR));
  }
}

int runAnalyze(const AnalyzeArgs &A, const std::vector<std::string> &CompileArgs,
               bool HasCompileArgs) {
  Inputs In;
  if (int RC = loadInputs(A, CompileArgs, HasCompileArgs, In))
    return RC;
  std::vector<std::string> &Notes = In.Notes;
  std::optional<MachineModel> &M = In.Machine;
  IndexData &Index = In.Index;
  std::optional<FrontendResult> &FR = In.FR;
  AnalysisReport R;
  R.Notes = Notes;
  modelLoops(R, FR->IR, *M, A, FR->CompileArgs, Index);

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == "json")
    printJSON(OS, R);
  else if (A.Format == "svg")
    printRooflineSVG(OS, R);
  else if (A.Format == "html")
    printHTML(OS, R);
  else
    printText(OS, R);
  OS.flush();
  return emitReport(A.Output, Text);
}

/// "N=1e3:1e8:x2" (geometric) or "N=1000:64000:+1000" (arithmetic).
struct SweepSpec {
  std::string Name;
  std::vector<int64_t> Values;
};

std::optional<SweepSpec> parseSweep(const std::string &S, std::string &Err) {
  size_t Eq = S.find('=');
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  if (Eq != std::string::npos)
    llvm::StringRef(S).substr(Eq + 1).split(Parts, ':');
  if (Eq == std::string::npos || Eq == 0 || Parts.size() != 3 || Parts[2].size() < 2 ||
      (Parts[2][0] != 'x' && Parts[2][0] != '+')) {
    Err = "-D " + S + ": a sweep is NAME=START:STOP:xFACTOR or NAME=START:STOP:+STEP, "
                      "e.g. -D N=1e3:1e8:x2";
    return std::nullopt;
  }
  auto Num = [](llvm::StringRef T, double &V) {
    std::string X = T.trim().str();
    char *End = nullptr;
    V = std::strtod(X.c_str(), &End);
    return !X.empty() && End && *End == 0 && std::isfinite(V);
  };
  double Start, Stop, Step;
  if (!Num(Parts[0], Start) || !Num(Parts[1], Stop) || !Num(Parts[2].drop_front(), Step) ||
      Start < 1 || Stop < Start || Stop > 9e18) {
    Err = "-D " + S + ": START and STOP must be numbers with 1 <= START <= STOP";
    return std::nullopt;
  }
  bool Geometric = Parts[2][0] == 'x';
  if ((Geometric && Step <= 1) || (!Geometric && Step < 1)) {
    Err = "-D " + S + ": the factor must be above 1 (x2) and the step at least 1 (+1000)";
    return std::nullopt;
  }
  SweepSpec Sp;
  Sp.Name = S.substr(0, Eq);
  for (double V = Start; V <= Stop * (1 + 1e-12); V = Geometric ? V * Step : V + Step) {
    int64_t I = int64_t(std::llround(V));
    if (Sp.Values.empty() || Sp.Values.back() != I)
      Sp.Values.push_back(I);
    if (Sp.Values.size() > 1000) {
      Err = "-D " + S + ": more than 1000 sizes; use a larger factor or step";
      return std::nullopt;
    }
  }
  return Sp;
}

/// A one-line progress bar on standard error, only when it is a terminal.
class ProgressBar {
  size_t Total;
  bool Shown;

public:
  explicit ProgressBar(size_t Total) : Total(Total), Shown(llvm::errs().is_displayed()) {}
  void setTotal(size_t T) { Total = T; }
  void clear() {
    if (Shown)
      llvm::errs() << "\r\x1b[K";
    Shown = false;
  }
  void update(size_t Done, const std::string &What) {
    if (!Shown)
      return;
    const unsigned Width = 30;
    unsigned Fill = unsigned(Width * Done / std::max<size_t>(Total, 1));
    llvm::errs() << "\r[" << std::string(Fill, '#') << std::string(Width - Fill, '.') << "] "
                 << Done << "/" << Total << " " << What << "\x1b[K";
    llvm::errs().flush();
  }
  ~ProgressBar() { clear(); }
};

int runSweep(AnalyzeArgs A, const std::vector<std::string> &CompileArgs, bool HasCompileArgs) {
  // The swept -D is the one with a range; the others bind as in analyze.
  std::optional<SweepSpec> Spec;
  std::vector<std::string> Fixed;
  for (const std::string &D : A.Defines) {
    if (D.find(':') == std::string::npos) {
      Fixed.push_back(D);
      continue;
    }
    if (Spec)
      return error("sweep takes one range (-D " + D + " is a second one)", ExitUsage);
    std::string Err;
    Spec = parseSweep(D, Err);
    if (!Spec)
      return error(Err, ExitUsage);
  }
  if (!Spec)
    return error("sweep needs a range, e.g. -D N=1e3:1e8:x2", ExitUsage);
  // Bind the first value so the front end accepts the name.
  A.Defines = Fixed;
  A.Defines.push_back(Spec->Name + "=" + std::to_string(Spec->Values.front()));
  Inputs In;
  if (int RC = loadInputs(A, CompileArgs, HasCompileArgs, In))
    return RC;
  std::optional<MachineModel> &M = In.Machine;
  IndexData &Index = In.Index;
  std::optional<FrontendResult> &FR = In.FR;
  KernelIR &IR = FR->IR;
  if (!IR.Parameters.count(Spec->Name)) {
    std::string Known;
    for (const auto &[Name, P] : IR.Parameters)
      Known += " " + Name;
    return error("-D " + Spec->Name + ": no size parameter of that name in " + A.File +
                     (Known.empty() ? " (it has none)" : " (parameters:" + Known + ")"),
                 ExitUsage);
  }
  ProgressBar Bar(Spec->Values.size() + 1);
  Bar.update(0, "compiling the kernel");
  std::vector<InCoreResult> InCore;
  if (!A.NoInCore)
    InCore = analyzeKernelLoops(IR, In.FR->CompileArgs, inCoreOptionsFor(*M));

  SweepReport SR;
  SR.File = A.File;
  SR.Param = Spec->Name;
  SR.Machine = &*M;
  for (size_t LI = 0; LI < IR.Loops.size(); ++LI) {
    SweepLoop L;
    const LoopKernel &K = IR.Loops[LI];
    L.Title = "[" + std::to_string(LI + 1) + "] " + K.Loc.str() + "  in " + K.Function;
    L.NoFlops = K.flops() == 0;
    if (!K.Modelled)
      L.Reason = K.Reason;
    SR.Loops.push_back(L);
  }
  for (size_t VI = 0; VI < Spec->Values.size(); ++VI) {
    int64_t V = Spec->Values[VI];
    Bar.update(VI + 1, Spec->Name + "=" + std::to_string(V));
    Parameter &P = IR.Parameters[Spec->Name];
    P.Value = V;
    P.From = Parameter::Origin::CommandLine;
    AnalysisReport R;
    modelLoops(R, IR, *M, A, In.FR->CompileArgs, Index, A.NoInCore ? nullptr : &InCore);
    for (size_t LI = 0; LI < R.Loops.size() && LI < SR.Loops.size(); ++LI) {
      SweepLoop &L = SR.Loops[LI];
      if (!L.Reason.empty())
        continue;
      const LoopReport &LR = R.Loops[LI];
      SweepRow Row;
      Row.Value = V;
      Row.WorkingSetBytes = LR.WorkingSetBytes;
      std::vector<const Prediction *> Ps = LR.predictions();
      if (L.Models.empty())
        for (const Prediction *Pr : Ps)
          L.Models.push_back(Pr->Model);
      for (const Prediction *Pr : Ps) {
        const LevelPrediction *At = Pr->Ok ? Pr->atDataLevel() : nullptr;
        if (Row.DataLevel.empty() && Pr->Ok)
          Row.DataLevel = Pr->DataLevel.empty() ? "?" : Pr->DataLevel;
        Row.Values.push_back(!At ? std::nan("")
                             : L.NoFlops ? At->CyclesPerIt
                                         : At->GFlops);
        Row.Bottlenecks.push_back(At ? At->Bottleneck : Pr->Reason);
      }
      L.Rows.push_back(std::move(Row));
    }
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == "svg")
    printSweepSVG(OS, SR);
  else
    printSweepText(OS, SR);
  OS.flush();
  return emitReport(A.Output, Text);
}

/// The size parameters loop K depends on (bounds and subscripts).
std::set<std::string> sizeParams(const LoopKernel &K, const KernelIR &IR) {
  std::set<std::string> S;
  auto Add = [&](const Poly &P) {
    for (const std::string &X : P.symbols())
      if (IR.Parameters.count(X))
        S.insert(X);
  };
  for (const LoopLevel &L : K.Nest) {
    Add(L.Lower);
    Add(L.Upper);
  }
  for (const Access &A : K.Accesses)
    if (A.Linear)
      Add(*A.Linear);
  return S;
}

struct ValidateArgs {
  std::string Size;     ///< the parameter varied per level
  std::vector<std::string> Levels;
  unsigned Reps = 5;
  double MaxCallSeconds = 2; ///< sizes whose one call is predicted slower are skipped
};

int runValidate(AnalyzeArgs A, const ValidateArgs &V, const std::vector<std::string> &CompileArgs,
                bool HasCompileArgs) {
  Inputs In;
  if (int RC = loadInputs(A, CompileArgs, HasCompileArgs, In))
    return RC;
  // The file's own compile command (compile_commands.json or `--`).
  const std::vector<std::string> &Cmd = In.FR->CompileArgs;
  MachineModel &M = *In.Machine;
  KernelIR &IR = In.FR->IR;
  if (llvm::Triple(M.Triple).getArch() != llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch())
    return error("validate runs the kernel on this host; the machine model " + M.Name +
                 " is for " + M.Triple);
  for (const std::string &Lv : V.Levels)
    if (Lv != "MEM" && !M.cache(Lv)) {
      std::string Known;
      for (const CacheLevel &C : M.Caches)
        Known += C.Name + ", ";
      return error("--levels " + Lv + ": " + M.Name + " has no such level (" + Known + "MEM)",
                   ExitUsage);
    }
  if (IR.Loops.empty())
    return error(A.File + " has no loops to validate");
  std::vector<std::string> Notes = In.Notes;
  if (auto Host = detectHostCpu(); Host && machineForHost(*Host) != M.File)
    Notes.push_back("the machine model is not this host's (CPUID " + Host->Brand +
                    "): the measurements are of this host, the predictions of " + M.Name);
  InCoreOptions IO = inCoreOptionsFor(M);
  std::vector<InCoreResult> InCore;
  if (!A.NoInCore)
    InCore = analyzeKernelLoops(IR, Cmd, IO);
  std::vector<std::string> Flags = {llvm::Triple(M.Triple).isX86() ? "-march=" + M.Cpu
                                                                   : "-mcpu=" + M.Cpu};
  Flags.insert(Flags.end(), IO.CompileFlags.begin(), IO.CompileFlags.end());
  std::vector<std::string> User = codeFlags(Cmd, A.File);
  Flags.insert(Flags.end(), User.begin(), User.end());

  llvm::raw_ostream &OS = llvm::outs();
  OS << "perfmodel validate " << A.File << "\nmachine: " << M.Name << ", "
     << formatNumber(M.ClockGHz) << " GHz (measured seconds x this clock = cycles)\n";
  for (const std::string &N : Notes)
    OS << "note: " << N << "\n";
  std::map<std::string, unsigned> LoopsPerFunction;
  for (const LoopKernel &K : IR.Loops)
    ++LoopsPerFunction[K.Function];

  unsigned Validated = 0, Id = 0;
  std::string LastError;
  ProgressBar Bar(IR.Loops.size() * std::max<size_t>(1, V.Levels.size()));
  size_t Step = 0;
  for (size_t LI = 0; LI < IR.Loops.size(); ++LI) {
    const LoopKernel &K = IR.Loops[LI];
    OS << "\n[" << ++Id << "] " << K.Loc.str() << "  in " << K.Function << "\n";
    auto Skip = [&](const std::string &Why) {
      OS << "    not validated: " << Why << "\n";
      LastError = Why;
    };
    if (!K.Modelled) {
      Skip("not modelled: " + K.Reason);
      continue;
    }
    if (LoopsPerFunction[K.Function] > 1) {
      Skip("'" + K.Function + "' holds " + std::to_string(LoopsPerFunction[K.Function]) +
           " innermost loops; timing the function would mix them");
      continue;
    }
    Harness H = makeHarness(IR, K, V.Reps);
    if (!H.Ok) {
      Skip(H.Why);
      continue;
    }
    std::set<std::string> Params = sizeParams(K, IR);
    std::string Size = V.Size;
    if (Size.empty() && Params.size() == 1)
      Size = *Params.begin();
    if (Size.empty() && Params.size() > 1) {
      std::string L;
      for (const std::string &P : Params)
        L += (L.empty() ? "" : ", ") + P;
      Skip("several size parameters (" + L + "): name the one to vary with --size");
      continue;
    }
    // A size that is not an argument of the function (a macro, a global)
    // is compiled in: the harness is rebuilt per size with -DNAME=value.
    bool CompiledIn = false;
    if (!Size.empty()) {
      const FunctionInfo &FI = IR.Functions.at(K.Function);
      CompiledIn = std::none_of(FI.Params.begin(), FI.Params.end(),
                                [&](const FunctionParam &P) { return P.Name == Size; });
    }
    if (CompiledIn)
      OS << "    " << Size << " is not an argument of " << K.Function
         << ": the harness is rebuilt per size with -D" << Size << "=...\n";
    llvm::SmallString<128> Exe;
    if (llvm::sys::fs::createTemporaryFile("perfmodel-harness", "exe", Exe)) {
      Skip("cannot create a temporary file");
      continue;
    }
    std::string Err;
    auto Build = [&](std::vector<std::string> F) {
      if (CompiledIn)
        F.push_back("-D" + Size + "=" + std::to_string(*IR.Parameters[Size].Value));
      return buildHarness(H.Source, IR.Cxx, F, std::string(Exe), Err);
    };
    if (!CompiledIn && !Build(Flags)) {
      llvm::sys::fs::remove(Exe);
      Skip("cannot build the timing harness: " + Err);
      continue;
    }
    // One size per level: the working set half the capacity (memory: well
    // beyond the last level), found by bisection on the size parameter.
    std::vector<std::pair<std::string, double>> Targets;
    for (const std::string &Lv : V.Levels) {
      if (Lv == "MEM") {
        double Last = M.Caches.empty() ? 0 : double(M.Caches.back().SizeBytes);
        Targets.push_back({Lv, std::clamp(4 * Last, 256.0 * (1 << 20), 1024.0 * (1 << 20))});
      } else if (const CacheLevel *C = M.cache(Lv)) {
        Targets.push_back({Lv, 0.5 * double(C->SizeBytes)});
      }
    }
    std::vector<std::vector<std::string>> Rows;
    std::vector<std::string> Head = {Size.empty() ? "size" : Size, "working set", "data in",
                                     "measured cy/it", "GFLOP/s", "spread"};
    std::vector<std::string> Models;
    for (const auto &[Lv, Target] : Targets) {
      Bar.update(++Step, K.Function + " " + Lv);
      if (!Size.empty()) {
        Parameter &P = IR.Parameters[Size];
        auto WS = [&](int64_t X) {
          P.Value = X;
          P.From = Parameter::Origin::CommandLine;
          return workingSetBytes(K, IR).value_or(0);
        };
        int64_t Lo = 1, Hi = 8;
        while (WS(Hi) < Target && Hi < (int64_t(1) << 40))
          Hi *= 2;
        Lo = Hi / 2;
        while (Hi - Lo > 1) {
          int64_t Mid = Lo + (Hi - Lo) / 2;
          (WS(Mid) < Target ? Lo : Hi) = Mid;
        }
        WS(Lo);
      }
      std::string Why;
      auto Args = harnessArgs(IR, K, Why);
      auto Iters = nestIterations(K, IR);
      if (!Args || !Iters || *Iters <= 0) {
        Skip(Args ? "the nest's iteration count is unknown" : Why);
        break;
      }
      if (CompiledIn && !Build(Flags)) {
        Skip("cannot build the timing harness: " + Err);
        break;
      }
      // The prediction costs the machine code of the same size.
      std::vector<InCoreResult> SizedInCore;
      if (CompiledIn && !A.NoInCore) {
        std::vector<std::string> Sized = Cmd;
        Sized.push_back("-D" + Size + "=" + std::to_string(*IR.Parameters[Size].Value));
        SizedInCore = analyzeKernelLoops(IR, Sized, IO);
      }
      AnalysisReport R;
      modelLoops(R, IR, M, A, Cmd, In.Index,
                 A.NoInCore ? nullptr : CompiledIn ? &SizedInCore : &InCore);
      const LoopReport &LR = R.Loops[LI];
      // Skip sizes whose calls would take too long (dgemm in memory): the
      // slowest prediction estimates one call.
      double SlowestCy = 0;
      for (const Prediction *P : LR.predictions())
        if (const LevelPrediction *At = P->Ok ? P->atDataLevel() : nullptr)
          SlowestCy = std::max(SlowestCy, At->CyclesPerIt);
      double CallSeconds = SlowestCy * *Iters / (M.ClockGHz * 1e9);
      if (CallSeconds > V.MaxCallSeconds) {
        OS << "    " << Lv << ": skipped, one call would take about " << formatNumber(CallSeconds)
           << " s (more than --max-call " << formatNumber(V.MaxCallSeconds) << " s)\n";
        continue;
      }
      auto T = runHarness(std::string(Exe), *Args, Err,
                          unsigned(std::max(60.0, 40 * CallSeconds * V.Reps)));
      if (!T) {
        Skip(Err);
        break;
      }
      double Cy = T->Median * M.ClockGHz * 1e9 / *Iters;
      double Flops = K.flops();
      std::vector<std::string> Row = {
          Size.empty() ? "-" : std::to_string(*IR.Parameters[Size].Value),
          LR.WorkingSetBytes ? formatBytes(*LR.WorkingSetBytes) : "?", "", formatNumber(Cy),
          Flops > 0 ? formatNumber(Flops / Cy * M.ClockGHz) : "-",
          formatNumber(100 * (T->Max - T->Min) / T->Median, 2) + "%"};
      std::vector<const Prediction *> Ps = LR.predictions();
      if (Models.empty())
        for (const Prediction *P : Ps) {
          Models.push_back(P->Model);
          Head.push_back(P->Model + " cy/it");
          Head.push_back("error");
        }
      for (const Prediction *P : Ps) {
        const LevelPrediction *At = P->Ok ? P->atDataLevel() : nullptr;
        if (Row[2].empty() && P->Ok)
          Row[2] = P->DataLevel;
        if (!At || At->CyclesPerIt <= 0) {
          Row.insert(Row.end(), {"-", "-"});
          continue;
        }
        double E = (At->CyclesPerIt - Cy) / Cy * 100;
        Row.push_back(formatNumber(At->CyclesPerIt));
        Row.push_back((E >= 0 ? "+" : "") + formatNumber(E, 2) + "%");
      }
      Rows.push_back(Row);
    }
    llvm::sys::fs::remove(Exe);
    if (Rows.empty())
      continue;
    Rows.insert(Rows.begin(), Head);
    std::vector<bool> Right(Head.size(), true);
    Right[2] = false;
    printTextTable(OS, Rows, 4, Right);
    ++Validated;
  }
  Bar.clear();
  if (!Validated)
    return error("no loop of " + A.File + " could be validated" +
                 (LastError.empty() ? "" : " (" + LastError + ")"));
  return ExitOk;
}

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
               const std::vector<std::string> &CompileArgs, bool HasCompileArgs) {
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
  std::optional<FrontendResult> FR =
      prepareSource(A, CompileArgs, HasCompileArgs, Index, RC);
  if (!FR)
    return RC;
  std::vector<AnalysisReport> Rs(Ms.size());
  for (size_t I = 0; I < Ms.size(); ++I)
    modelLoops(Rs[I], FR->IR, Ms[I], A, FR->CompileArgs, Index);

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
      std::vector<std::string> Row = {BaseP[P]->Model};
      const LevelPrediction *B0 = BaseP[P]->Ok ? BaseP[P]->atDataLevel() : nullptr;
      std::string Bottlenecks;
      for (size_t I = 0; I < Ms.size(); ++I) {
        std::vector<const Prediction *> Ps = Rs[I].Loops[LI].predictions();
        const Prediction *Pr = P < Ps.size() ? Ps[P] : nullptr;
        const LevelPrediction *At = Pr && Pr->Ok ? Pr->atDataLevel() : nullptr;
        if (!At) {
          if (Pr && !Pr->Ok)
            Changes.push_back(Pr->Model + " on " + std::string(1, char('A' + I)) +
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
          Changes.push_back(Pr->Model + ": " + std::string(1, char('A' + I)) + " moves the "
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

/// `machine list`: every model on the search path, one row each. A file
/// that does not load is named with its first error instead.
int runMachineList(const std::string &Format) {
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
  printMachineList(llvm::outs(), Ms, Format == "markdown");
  return RC;
}

int runMachineDiff(const std::vector<std::string> &Names,
                   const std::vector<std::string> &SetsA,
                   const std::vector<std::string> &SetsB) {
  std::vector<std::string> Notes;
  std::optional<MachineModel> A = loadMachine(Names[0], SetsA, Notes);
  std::optional<MachineModel> B = A ? loadMachine(Names[1], SetsB, Notes) : std::nullopt;
  if (!A || !B)
    return ExitFailed;
  printMachineDiff(llvm::outs(), *A, *B);
  return ExitOk;
}

/// `perfmodel probe`: measures this host and writes a machine model.
int runProbe(const std::string &Output, bool Quick, unsigned Threads) {
  // Refuse before measuring, not after.
  if (!Output.empty() && Output != "-" && llvm::sys::fs::exists(Output))
    return error("-o " + Output + ": exists; the probe does not overwrite files");
  ProbeOptions O;
  O.Quick = Quick;
  O.Threads = Threads;
  ProgressBar Bar(1);
  O.Progress = [&](unsigned Done, unsigned Total, const std::string &What) {
    Bar.setTotal(Total);
    Bar.update(Done, What);
  };
  ProbeResult R = runProbe(O);
  Bar.clear();
  if (R.ClockGHz.Median <= 0)
    return error("cannot measure this host" +
                 (R.Notes.empty() ? std::string() : ": " + R.Notes.front()));
  std::string Triple = llvm::Triple::normalize(llvm::sys::getDefaultTargetTriple());
  std::string Cpu = llvm::sys::getHostCPUName().str();
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  // The resource LLVM's model of this CPU charges each divider form to: the
  // busiest port of the lone instruction.
  std::map<std::string, std::string> DividerPorts;
  InCoreOptions IO;
  IO.Triple = Triple;
  IO.Cpu = Cpu;
  for (const auto &[Form, Encoding] : dividerForms()) {
    InCoreResult One = analyzeBlockBytes(Encoding, IO);
    if (One.Ok && !One.PortBottleneck.empty() &&
        One.PortBottleneck.find(',') == std::string::npos)
      DividerPorts[Form] = One.PortBottleneck;
  }
  writeProbedMachine(OS, R, Triple, Cpu, llvmIssueWidth(Triple, Cpu), DividerPorts);
  OS.flush();
  // What was written must load: a probe that cannot be used is an error.
  MachineLoadResult Check = parseMachineModel(Text, Output.empty() ? "<probe>" : Output);
  printDiags(Check.Diags, /*Warnings=*/true);
  if (!Check.ok())
    return error("the probed machine model does not validate (see above)");
  if (Output.empty() || Output == "-") {
    llvm::outs() << Text;
    return ExitOk;
  }
  if (llvm::sys::fs::exists(Output))
    return error("-o " + Output + ": exists; the probe does not overwrite files");
  std::error_code EC;
  llvm::raw_fd_ostream Out(Output, EC);
  if (EC)
    return error("cannot write " + Output + ": " + EC.message());
  Out << Text;
  llvm::errs() << "perfmodel: wrote " << Output << " (" << formatNumber(R.ClockGHz.Median)
               << " GHz; check it with `perfmodel machine check " << Output << "`)\n";
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

/// Options every command that runs the models shares with analyze.
void addModelOptions(CLI::App *C, AnalyzeArgs &A, std::vector<std::string> &Models) {
  C->add_option("--model", Models, "models: roofline, ecm, ppr or all")
      ->allow_extra_args(false);
  C->add_option("--cache", A.Cache, "traffic beyond L1 (as for analyze)")
      ->check(CLI::IsMember({"auto", "lc", "sim", "both", "none"}));
  C->add_option("--index", A.Index, "index data (as for analyze)")->allow_extra_args(false);
  C->add_flag("--no-incore", A.NoInCore, "skip the in-core model");
  C->add_option("--incore", A.InCoreBasis, "in-core basis (as for analyze)")
      ->check(CLI::IsMember({"compiled", "source"}));
  C->add_option("-p,--compile-commands", A.CompileCommandsDir,
                "directory with compile_commands.json");
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
  Analyze->add_option("--format", A.Format,
                      "text, json, svg (Roofline chart) or html (chart and tables)")
      ->check(CLI::IsMember({"text", "json", "svg", "html"}));
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
  Analyze->add_option("--incore", A.InCoreBasis,
                      "what the in-core model costs: compiled (the compiled machine loop, "
                      "default) or source (the operations as written, the PPR paper's "
                      "counting, on the machine file's ports)")
      ->check(CLI::IsMember({"compiled", "source"}));
  Analyze->add_flag("--prefetch", A.Prefetch,
                    "simulate the machine's prefetchers (next-line on demand misses of "
                    "levels whose prefetch is not none)");
  Analyze->add_option("--sim-accesses", A.SimAccesses,
                      "replay budget of the cache simulator (larger nests are sliced)")
      ->check(CLI::Range(uint64_t(1000), uint64_t(1) << 40));
  Analyze->footer("Compile flags for the file may follow a bare `--`, e.g. "
                  "perfmodel analyze k.c -- -O3 -Iinclude");

  // compare: the analyze options, several -m, --set bound to the -m before it.
  AnalyzeArgs CA;
  std::vector<std::string> CompareMachines, CompareSets, CompareModels;
  CLI::App *Compare = App.add_subcommand(
      "compare", "The same loops on several machines, side by side (-m A -m B "
                 "[--set ...]; a --set after an -m changes that machine only)");
  Compare->add_option("file", CA.File, "C or C++ source file")->required();
  CLI::Option *CmpM = Compare->add_option("-m,--machine", CompareMachines,
                                          "machine model: file or name (repeat)")
                          ->allow_extra_args(false);
  CLI::Option *CmpSet =
      Compare->add_option("--set", CompareSets, "override a value of the preceding -m")
          ->allow_extra_args(false);
  Compare->add_option("-D,--define", CA.Defines, "bind a size parameter")
      ->allow_extra_args(false);
  addModelOptions(Compare, CA, CompareModels);
  Compare->add_option("--cores", CA.Models.Cores, "cores running the loop")
      ->check(CLI::Range(1u, 4096u));

  // sweep: the analyze options, one -D a range.
  AnalyzeArgs SA;
  std::vector<std::string> SweepModels;
  CLI::App *Sweep = App.add_subcommand(
      "sweep", "Predicted performance while one size runs over a range (-D N=1e3:1e8:x2): "
               "the cache levels' transitions, as a table or an SVG chart");
  Sweep->add_option("file", SA.File, "C or C++ source file")->required();
  Sweep->add_option("-m,--machine", SA.Machine, "machine model: file or name");
  Sweep->add_option("--set", SA.Sets, "override a machine value")->allow_extra_args(false);
  Sweep->add_option("-D,--define", SA.Defines,
                    "the swept size NAME=START:STOP:xFACTOR|+STEP, or a fixed one NAME=VALUE")
      ->allow_extra_args(false);
  Sweep->add_option("--format", SA.Format, "text or svg")
      ->check(CLI::IsMember({"text", "svg"}));
  Sweep->add_option("-o,--output", SA.Output, "write the result to this file");
  addModelOptions(Sweep, SA, SweepModels);
  Sweep->add_option("--cores", SA.Models.Cores, "cores running the loop")
      ->check(CLI::Range(1u, 4096u));
  Sweep->add_option("--sim-accesses", SA.SimAccesses, "replay budget of the simulator")
      ->check(CLI::Range(uint64_t(1000), uint64_t(1) << 40));

  // validate: the analyze options plus the size to vary and the levels.
  AnalyzeArgs VA;
  ValidateArgs VV;
  std::string ValidateLevels = "L1,L2,L3,MEM";
  std::vector<std::string> ValidateModels;
  CLI::App *Validate = App.add_subcommand(
      "validate", "Time the analysed loops on this host at one size per memory level and "
                  "print measured beside predicted cycles per iteration");
  Validate->add_option("file", VA.File, "C or C++ source file")->required();
  Validate->add_option("-m,--machine", VA.Machine, "machine model (default: this host's)");
  Validate->add_option("--set", VA.Sets, "override a machine value")->allow_extra_args(false);
  Validate->add_option("-D,--define", VA.Defines, "fix a size parameter")
      ->allow_extra_args(false);
  Validate->add_option("--size", VV.Size, "the size parameter to vary per level");
  Validate->add_option("--levels", ValidateLevels, "levels to measure (default L1,L2,L3,MEM)");
  Validate->add_option("--max-call", VV.MaxCallSeconds,
                       "skip sizes where one call is predicted to take longer (seconds)")
      ->check(CLI::PositiveNumber);
  Validate->add_option("--reps", VV.Reps, "timed repetitions per size (median)")
      ->check(CLI::Range(1u, 101u));
  addModelOptions(Validate, VA, ValidateModels);

  std::string ProbeOut;
  bool ProbeQuick = false;
  unsigned ProbeThreads = 0;
  CLI::App *Probe = App.add_subcommand(
      "probe", "Measure this host (CPUID, clock, peak flop/s, bandwidth per level) and "
               "write a machine model");
  Probe->add_option("-o,--output", ProbeOut, "write the model to this (new) file");
  Probe->add_flag("--quick", ProbeQuick, "fewer repetitions, smaller memory working set");
  Probe->add_option("--threads", ProbeThreads, "cores for the all-core bandwidth (default: all)")
      ->check(CLI::Range(1u, 4096u));

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

  std::string ListFormat = "text";
  CLI::App *List = Machine->add_subcommand("list", "List the known machine models");
  List->add_option("--format", ListFormat, "text or markdown (the table of docs/machine-models.md)")
      ->check(CLI::IsMember({"text", "markdown"}));
  std::vector<std::string> DiffNames, DiffSetsA, DiffSetsB;
  CLI::App *Diff = Machine->add_subcommand(
      "diff", "Compare two machine models field by field (--set-a/--set-b derive "
              "hypothetical ones)");
  Diff->add_option("machines", DiffNames, "two files or names")->required()->expected(2);
  Diff->add_option("--set-a", DiffSetsA, "override a value of the first")
      ->allow_extra_args(false);
  Diff->add_option("--set-b", DiffSetsB, "override a value of the second")
      ->allow_extra_args(false);

  bool Known = false;
  for (const CLI::App *Sub : App.get_subcommands([](CLI::App *) { return true; }))
    Known |= Args.size() > 1 && Sub->get_name() == Args[1];
  if (Args.size() > 1 && Args[1][0] != '-' && !Known)
    return error(std::string("unknown command '") + Args[1] +
                     "' (commands: analyze, compare, sweep, validate, incore, machine, probe; see perfmodel --help)",
                 ExitUsage);
  try {
    App.parse(int(Args.size()), Args.data());
  } catch (const CLI::ParseError &E) {
    int RC = App.exit(E);
    return RC == 0 ? ExitOk : ExitUsage;
  }
  if (HasCompileArgs && !Analyze->parsed() && !Compare->parsed() && !Sweep->parsed() &&
      !Validate->parsed())
    return error("`-- compile flags` are only accepted by analyze", ExitUsage);

  startTimeLimit(TimeLimit);
  if (Analyze->parsed()) {
    std::string Err;
    if (!parseModels(ModelNames, A.Models, Err))
      return error(Err, ExitUsage);
    return runAnalyze(A, CompileArgs, HasCompileArgs);
  }
  if (Compare->parsed()) {
    std::string Err;
    if (!parseModels(CompareModels, CA.Models, Err))
      return error(Err, ExitUsage);
    // Walk the options in command-line order to bind each --set to its -m.
    std::vector<ComparedMachine> Machines;
    std::vector<std::string> Common;
    size_t MI = 0, SI = 0;
    for (CLI::Option *O : Compare->parse_order()) {
      if (O == CmpM && MI < CompareMachines.size()) {
        Machines.push_back({CompareMachines[MI++], Common});
      } else if (O == CmpSet && SI < CompareSets.size()) {
        if (Machines.empty())
          Common.push_back(CompareSets[SI++]);
        else
          Machines.back().Sets.push_back(CompareSets[SI++]);
      }
    }
    return runCompare(CA, Machines, CompileArgs, HasCompileArgs);
  }
  if (Validate->parsed()) {
    std::string Err;
    if (!parseModels(ValidateModels, VA.Models, Err))
      return error(Err, ExitUsage);
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(ValidateLevels).split(Parts, ',', -1, false);
    for (llvm::StringRef P : Parts)
      VV.Levels.push_back(P.trim().upper());
    return runValidate(VA, VV, CompileArgs, HasCompileArgs);
  }
  if (Probe->parsed())
    return runProbe(ProbeOut, ProbeQuick, ProbeThreads);
  if (Sweep->parsed()) {
    std::string Err;
    if (!parseModels(SweepModels, SA.Models, Err))
      return error(Err, ExitUsage);
    return runSweep(SA, CompileArgs, HasCompileArgs);
  }
  if (InCoreCmd->parsed())
    return runInCore(InCoreFile, InCoreHex, InCoreBatch, InCoreMachine, InCoreCpu,
                     InCoreSets, InCoreFormat);
  if (Show->parsed())
    return runMachineShow(ShowName, MachineSets);
  if (List->parsed())
    return runMachineList(ListFormat);
  if (Diff->parsed())
    return runMachineDiff(DiffNames, DiffSetsA, DiffSetsB);
  if (Check->parsed())
    return runMachineCheck(CheckFiles, MachineSets);
  return ExitUsage;
}

//===- Project.cpp - perfmodel analyze -p BUILD_DIR -----------------------===//
//
// Every translation unit of a compilation database, each analysed by a child
// perfmodel process (a crash or a runaway file stays that file's problem and
// a time bound can stop it), at most -j at once. The output is each file's
// report in path order, then the project summary: the loops ranked by their
// predicted share of the time and by the time their advice can save.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Driver.h"

#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Report.h"

#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

using namespace perfmodel;
using namespace perfmodel::driver;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

struct FileJob {
  std::string File;
  std::string Out, Json, Err; ///< the child's report, JSON copy, standard error
  int Status = -1;            ///< exit status; -2 crashed or killed
  bool TimedOut = false;
  std::optional<Value> Report; ///< the parsed JSON copy
};

/// One loop of the summary.
struct SummaryLoop {
  std::string File, Function, Location, Model, Level, Bottleneck, Advice;
  double CyPerIt = 0, Seconds = 0, GainSeconds = 0;
};

bool isSourceFile(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".c" || Ext == ".cc" || Ext == ".cpp" || Ext == ".cxx" || Ext == ".C" ||
         Ext == ".c++";
}

std::string slurp(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

/// The last lines of a child's standard error: why it failed.
std::string tail(const std::string &Text, unsigned Lines) {
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  llvm::StringRef(Text).rtrim().split(Parts, '\n');
  std::string Out;
  for (size_t I = Parts.size() > Lines ? Parts.size() - Lines : 0; I < Parts.size(); ++I)
    Out += (Out.empty() ? "" : "\n") + Parts[I].str();
  return Out;
}

/// The options of this run a child must see too.
std::vector<std::string> childArgs(const AnalyzeArgs &A, const std::string &MachineFile,
                                   std::optional<double> HostClockGHz, unsigned TimeLimit) {
  std::vector<std::string> V = {"--time-limit", std::to_string(TimeLimit), "analyze",
                                "-p",           A.CompileCommandsDir,      "-m",
                                MachineFile};
  auto Add = [&](const char *Flag, const std::vector<std::string> &Values) {
    for (const std::string &X : Values)
      V.insert(V.end(), {Flag, X});
  };
  Add("--set", A.Sets);
  // Every file at the clock the project run measured once (on the host's
  // own model), not each at its own measurement under the others' load.
  if (HostClockGHz) {
    char Clock[64];
    std::snprintf(Clock, sizeof(Clock), "%.17g", *HostClockGHz);
    V.insert(V.end(), {"--host-clock-ghz", Clock});
  }
  Add("-D", A.Defines);
  Add("--model", A.ModelNames);
  Add("--index", A.Index);
  V.insert(V.end(), {"--cores", std::to_string(A.Models.Cores), "--cache", A.Cache, "--incore",
                     A.InCoreBasis, "--sim-accesses", std::to_string(A.SimAccesses),
                     "--assume-align", std::to_string(A.AssumeAlign)});
  if (A.NoInCore)
    V.push_back("--no-incore");
  if (A.Prefetch)
    V.push_back("--prefetch");
  return V;
}

void collectLoops(const FileJob &J, double ClockGHz, std::vector<SummaryLoop> &Out) {
  const Object *Root = J.Report ? J.Report->getAsObject() : nullptr;
  const Array *Loops = Root ? Root->getArray("loops") : nullptr;
  if (!Loops)
    return;
  for (const Value &LV : *Loops) {
    const Object *L = LV.getAsObject();
    const Object *P = L ? L->getObject("prediction") : nullptr;
    if (!P)
      continue;
    SummaryLoop S;
    S.File = J.File;
    S.Function = L->getString("function").value_or("").str();
    if (const Object *Loc = L->getObject("location"))
      S.Location = Loc->getString("file").value_or("").str() + ":" +
                   std::to_string(Loc->getInteger("line").value_or(0)) + ":" +
                   std::to_string(Loc->getInteger("column").value_or(0));
    S.Model = P->getString("model").value_or("").str();
    S.Level = P->getString("data_level").value_or("").str();
    S.Bottleneck = P->getString("bottleneck").value_or("").str();
    S.Advice = P->getString("advice").value_or("").str();
    S.CyPerIt = P->getNumber("cy_per_it").value_or(0);
    S.Seconds = P->getNumber("seconds").value_or(0);
    double Iters = L->getNumber("iterations").value_or(0);
    S.GainSeconds = ClockGHz > 0 ? P->getNumber("promised_gain_cy_per_it").value_or(0) * Iters /
                                       (ClockGHz * 1e9)
                                 : 0;
    Out.push_back(std::move(S));
  }
}

/// Ties broken by location so the order never depends on the schedule.
void rank(std::vector<SummaryLoop> &V, double SummaryLoop::*Key) {
  std::stable_sort(V.begin(), V.end(), [&](const SummaryLoop &A, const SummaryLoop &B) {
    if (A.*Key != B.*Key)
      return A.*Key > B.*Key;
    return A.Location < B.Location;
  });
}

std::string statusText(const FileJob &J) {
  if (J.TimedOut)
    return "timed out";
  if (J.Status == 0)
    return "ok";
  if (J.Status < 0)
    return "crashed";
  return "failed";
}

/// Why job J has no report: its standard error's error lines, else its tail.
std::string whyFailed(const FileJob &J) {
  std::string Err = slurp(J.Err), E;
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  llvm::StringRef(Err).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    if (L.contains("error:") && !L.starts_with("perfmodel: error: the analysis"))
      E += (E.empty() ? "" : "; ") + L.trim().str();
  if (E.empty())
    E = tail(Err, 3);
  if (J.TimedOut && E.empty())
    E = "no result within the time limit";
  return E.empty() ? "exit status " + std::to_string(J.Status) : E;
}

/// The compilation database's C and C++ files that match --files, sorted;
/// how many it has of other languages in SKIPPED.
std::vector<std::string> sourceFiles(const clang::tooling::CompilationDatabase &DB,
                                     const std::vector<llvm::GlobPattern> &Globs,
                                     unsigned &Skipped) {
  std::vector<std::string> Files;
  Skipped = 0;
  for (const std::string &F : DB.getAllFiles()) {
    if (!isSourceFile(F)) {
      ++Skipped;
      continue;
    }
    if (!Globs.empty() && std::none_of(Globs.begin(), Globs.end(),
                                       [&](const llvm::GlobPattern &G) { return G.match(F); }))
      continue;
    Files.push_back(F);
  }
  std::sort(Files.begin(), Files.end());
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  return Files;
}

/// Each job analysed by a child process, WIDTH at a time; a child that
/// outlives its own time limit by 30 s is killed.
void runJobs(std::vector<FileJob> &Jobs, const std::string &Self,
             const std::vector<std::string> &Common, ReportFormat ChildFormat,
             unsigned Width, unsigned FileTimeLimit) {
  struct Running {
    size_t Job;
    llvm::sys::ProcessInfo PI;
    std::chrono::steady_clock::time_point Start;
  };
  std::vector<Running> Run;
  size_t Next = 0, Done = 0;
  ProgressBar Bar(Jobs.size());
  // The child stops itself at its --time-limit; this bound only catches a
  // child that cannot (stopped, or its watchdog starved).
  auto Hard = std::chrono::seconds(FileTimeLimit + 30);
  while (Done < Jobs.size()) {
    while (Run.size() < Width && Next < Jobs.size()) {
      FileJob &J = Jobs[Next];
      std::vector<std::string> Args = {Self};
      Args.insert(Args.end(), Common.begin(), Common.begin() + 3); // --time-limit N analyze
      Args.push_back(J.File);
      Args.insert(Args.end(), Common.begin() + 3, Common.end());
      Args.insert(Args.end(), {"--format", reportFormatName(ChildFormat), "-o", J.Out});
      if (ChildFormat != ReportFormat::Json)
        Args.insert(Args.end(), {"--json-copy", J.Json});
      std::vector<llvm::StringRef> Refs(Args.begin(), Args.end());
      std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), llvm::StringRef(""),
                                                    llvm::StringRef(J.Err)};
      std::string ExecErr;
      bool Failed = false;
      llvm::sys::ProcessInfo PI = llvm::sys::ExecuteNoWait(Self, Refs, std::nullopt, Redirects, 0,
                                                           &ExecErr, &Failed);
      if (Failed) {
        J.Status = -1;
        std::error_code EC;
        llvm::raw_fd_ostream(J.Err, EC) << "cannot run " << Self << ": " << ExecErr << "\n";
        ++Done;
      } else {
        Run.push_back({Next, PI, std::chrono::steady_clock::now()});
      }
      ++Next;
    }
    bool Progress = false;
    for (size_t R = 0; R < Run.size();) {
      FileJob &J = Jobs[Run[R].Job];
      llvm::sys::ProcessInfo St = llvm::sys::Wait(Run[R].PI, 0);
      if (St.Pid == 0 && std::chrono::steady_clock::now() - Run[R].Start > Hard) {
        ::kill(Run[R].PI.Pid, SIGKILL);
        St = llvm::sys::Wait(Run[R].PI, std::nullopt);
        J.TimedOut = true;
      }
      if (St.Pid == 0) {
        ++R;
        continue;
      }
      J.Status = St.ReturnCode;
      // The child's own watchdog says so on its standard error.
      J.TimedOut |= llvm::StringRef(slurp(J.Err)).contains("exceeded its time limit");
      ++Done;
      Progress = true;
      Bar.update(Done, llvm::sys::path::filename(J.File).str());
      Run.erase(Run.begin() + R);
    }
    if (!Progress)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Bar.clear();
}

/// What the project's loops add up to: every loop with a prediction, by
/// predicted time and by the time its advice can save.
struct ProjectSummary {
  std::vector<SummaryLoop> Loops, ByTime, ByGain;
  double Total = 0;
  unsigned Failed = 0, Skipped = 0;
};

/// The children's reports read back (a failed or unreadable one counts as
/// failed) and their loops ranked.
ProjectSummary gather(std::vector<FileJob> &Jobs, ReportFormat ChildFormat,
                      double ClockGHz) {
  ProjectSummary S;
  for (FileJob &J : Jobs) {
    if (J.Status == 0 && !J.TimedOut) {
      std::string Js = slurp(ChildFormat == ReportFormat::Json ? J.Out : J.Json);
      if (auto V = llvm::json::parse(Js))
        J.Report = std::move(*V);
      else {
        llvm::consumeError(V.takeError());
        J.Status = 1;
      }
    }
    if (J.Status != 0 || J.TimedOut)
      ++S.Failed;
    collectLoops(J, ClockGHz, S.Loops);
  }
  for (const SummaryLoop &L : S.Loops)
    S.Total += L.Seconds;
  S.ByTime = S.ByGain = S.Loops;
  rank(S.ByTime, &SummaryLoop::Seconds);
  rank(S.ByGain, &SummaryLoop::GainSeconds);
  S.ByGain.erase(std::remove_if(S.ByGain.begin(), S.ByGain.end(),
                                [](const SummaryLoop &L) { return L.GainSeconds <= 0; }),
                 S.ByGain.end());
  return S;
}

void printProjectJson(llvm::raw_ostream &OS, const AnalyzeArgs &A, const MachineModel &M,
                      std::vector<FileJob> &Jobs, const ProjectSummary &S) {
  const double Total = S.Total;
  Array FilesJ;
  for (FileJob &J : Jobs) {
    Object F{{"file", J.File}, {"status", statusText(J)}};
    if (J.Report)
      F["report"] = std::move(*J.Report);
    else
      F["error"] = whyFailed(J);
    FilesJ.push_back(std::move(F));
  }
  auto LoopsJ = [&](const std::vector<SummaryLoop> &V) {
    Array Out;
    for (const SummaryLoop &L : V)
      Out.push_back(Object{{"file", L.File},
                           {"location", L.Location},
                           {"function", L.Function},
                           {"model", L.Model},
                           {"data_level", L.Level},
                           {"cy_per_it", jsonNumber(L.CyPerIt)},
                           {"seconds", jsonNumber(L.Seconds)},
                           {"share", jsonNumber(Total > 0 ? L.Seconds / Total : 0.0)},
                           {"promised_gain_seconds", jsonNumber(L.GainSeconds)},
                           {"bottleneck", L.Bottleneck},
                           {"advice", L.Advice}});
    return Out;
  };
  Object Root{{"schema", "perfmodel-project"},
              {"version", JsonSchemaVersion},
              {"compile_commands", A.CompileCommandsDir},
              {"machine", Object{{"name", M.Name}, {"file", M.File}}},
              {"files", std::move(FilesJ)},
              {"summary", Object{{"files", int64_t(Jobs.size())},
                                 {"failed", int64_t(S.Failed)},
                                 {"loops", int64_t(S.Loops.size())},
                                 {"predicted_seconds", jsonNumber(Total)},
                                 {"by_time", LoopsJ(S.ByTime)},
                                 {"by_gain", LoopsJ(S.ByGain)}}}};
  OS << llvm::formatv("{0:2}", Value(std::move(Root))) << "\n";
}

/// One SARIF log of the files' results in path order; false when no file
/// gave one.
bool printProjectSarif(llvm::raw_ostream &OS, std::vector<FileJob> &Jobs, unsigned Failed) {
  // One log, one run: the files' results in path order.
  std::optional<Value> Log;
  Array Notifications;
  for (FileJob &J : Jobs) {
    std::optional<Value> V;
    if (J.Status == 0 && !J.TimedOut) {
      auto Parsed = llvm::json::parse(slurp(J.Out));
      if (Parsed)
        V = std::move(*Parsed);
      else
        llvm::consumeError(Parsed.takeError());
    }
    Object *Run0 = nullptr;
    if (V)
      if (Object *O = V->getAsObject())
        if (Array *Runs = O->getArray("runs"); Runs && !Runs->empty())
          Run0 = (*Runs)[0].getAsObject();
    if (!Run0) {
      Notifications.push_back(Object{
          {"level", "error"},
          {"message", Object{{"text", J.File + ": " + statusText(J) + ": " + whyFailed(J)}}}});
      continue;
    }
    if (!Log) {
      Log = std::move(*V);
      continue;
    }
    Array *Into = (*Log->getAsObject()->getArray("runs"))[0].getAsObject()->getArray("results");
    if (Array *Res = Run0->getArray("results"))
      for (Value &R : *Res)
        Into->push_back(std::move(R));
  }
  if (!Log)
    return false;
  Object &Run0 = *(*Log->getAsObject()->getArray("runs"))[0].getAsObject();
  Run0["invocations"] = Array{Object{{"executionSuccessful", Failed == 0},
                                     {"toolExecutionNotifications", std::move(Notifications)}}};
  OS << llvm::formatv("{0:2}", std::move(*Log)) << "\n";
  return true;
}

void printProjectText(llvm::raw_ostream &OS, const AnalyzeArgs &A, const MachineModel &M,
                      std::vector<FileJob> &Jobs, const ProjectSummary &S) {
  const double Total = S.Total;
  const unsigned Failed = S.Failed;
  OS << "perfmodel analyze -p " << A.CompileCommandsDir << ": " << Jobs.size()
     << " file(s)";
  if (S.Skipped)
    OS << " (" << S.Skipped << " not C or C++ skipped)";
  OS << "\n";
  bool Brief = A.Format == ReportFormat::Brief;
  for (FileJob &J : Jobs) {
    if (!Brief)
      OS << "\n";
    if (J.Status == 0 && !J.TimedOut) {
      OS << slurp(J.Out);
      continue;
    }
    if (Brief)
      OS << J.File << ": error: perfmodel: " << statusText(J) << ": " << whyFailed(J) << "\n";
    else
      OS << "perfmodel analyze " << J.File << "\n" << statusText(J) << ": " << whyFailed(J) << "\n";
  }
  OS << "\nproject summary: " << Jobs.size() << " file(s), " << (Jobs.size() - Failed)
     << " analysed";
  if (Failed)
    OS << ", " << Failed << " failed";
  OS << "; " << S.Loops.size() << " loop(s) with a prediction on " << M.Name << ", "
     << formatSeconds(Total) << " predicted at the bound sizes\n";
  auto Table = [&](const std::vector<SummaryLoop> &V, bool Gain) {
    std::vector<std::vector<std::string>> Rows = {
        {"#", "loop", "function", Gain ? "can save" : "time", Gain ? "of its" : "share",
         "model", "data in", "bottleneck"}};
    for (size_t I = 0; I < V.size() && I < 20; ++I) {
      const SummaryLoop &L = V[I];
      double Of = Gain ? (L.Seconds > 0 ? L.GainSeconds / L.Seconds : 0)
                       : (Total > 0 ? L.Seconds / Total : 0);
      Rows.push_back({std::to_string(I + 1), L.Location, L.Function,
                      formatSeconds(Gain ? L.GainSeconds : L.Seconds),
                      100 * Of < 0.01 ? "<0.01%" : formatNumber(100 * Of, 3) + "%", L.Model,
                      L.Level, L.Bottleneck});
    }
    printTextTable(OS, Rows, 2, {true, false, false, true, true, false, false, false});
    if (V.size() > 20)
      OS << "  ... and " << V.size() - 20 << " more (--format json lists all)\n";
  };
  if (!S.ByTime.empty()) {
    OS << "\nloops by predicted time (headline prediction x iterations of the nest):\n";
    Table(S.ByTime, false);
  }
  if (!S.ByGain.empty()) {
    OS << "\nloops by the time their bottleneck advice can save (data in L1 when transfers "
          "bind, else the next in-core bound):\n";
    Table(S.ByGain, true);
  }
}

} // namespace

int perfmodel::driver::runProject(const AnalyzeArgs &A, const ProjectArgs &P,
                                const CompileCommand &CC) {
  if (int RC = checkOutput(A.Output))
    return RC;
  if (CC.Given)
    return error("project mode takes each file's flags from the compilation database; "
                 "drop the `-- FLAGS`",
                 ExitUsage);
  if (A.Format == ReportFormat::Svg || A.Format == ReportFormat::Html)
    return error(std::string("--format ") + reportFormatName(A.Format) + " draws one file; project mode writes text, json "
                                          "or sarif",
                 ExitUsage);
  if (!llvm::sys::fs::exists(A.CompileCommandsDir + "/compile_commands.json"))
    return error("-p " + A.CompileCommandsDir + ": no compile_commands.json there (CMake "
                 "writes one with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; Bear for make)");
  std::string Err;
  auto DB = clang::tooling::JSONCompilationDatabase::loadFromDirectory(A.CompileCommandsDir,
                                                                       Err);
  if (!DB)
    return error("-p " + A.CompileCommandsDir + ": " + Err);
  std::vector<llvm::GlobPattern> Globs;
  for (const std::string &G : P.Globs) {
    auto Pat = llvm::GlobPattern::create(G);
    if (!Pat)
      return error("--files " + G + ": " + llvm::toString(Pat.takeError()), ExitUsage);
    Globs.push_back(std::move(*Pat));
  }
  unsigned Skipped = 0;
  std::vector<std::string> Files = sourceFiles(*DB, Globs, Skipped);
  if (Files.empty())
    return error("-p " + A.CompileCommandsDir + ": no C or C++ file of the compilation database" +
                 (Globs.empty() ? std::string() : " matches --files"));

  // One machine for every file: resolved and checked here, passed as a file.
  std::vector<std::string> Notes;
  HostMeasured Measured;
  std::optional<MachineModel> M =
      loadMachine(A.Machine, A.Sets, Notes, /*HostClock=*/true, std::nullopt, &Measured);
  if (!M)
    return ExitFailed;

  std::string Self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<128> Tmp;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory("perfmodel-project", Tmp))
    return error("cannot create a temporary directory: " + EC.message());
  std::optional<double> HostClock;
  if (Measured.Clock)
    HostClock = M->ClockGHz;
  std::vector<std::string> Common = childArgs(A, M->File, HostClock, P.FileTimeLimit);
  // And one core's memory where loadMachine measured it: every file with
  // the same figures, not a second of chases per file under the others.
  if (Measured.Memory) {
    auto Set = [&](const std::string &Key, double V) {
      Common.insert(Common.end(), {"--set", Key + "=" + formatNumber(V, 6)});
    };
    if (M->Memory.OneCoreGBs)
      Set("memory.sustained_one_core_gbs", *M->Memory.OneCoreGBs);
    if (M->Memory.LatencyNs)
      Set("memory.latency_ns", *M->Memory.LatencyNs);
    if (!M->Caches.empty() && M->Caches.front().MissesInFlight)
      Set("caches." + M->Caches.front().Name + ".misses_in_flight",
          *M->Caches.front().MissesInFlight);
  }
  ReportFormat ChildFormat = A.Format;

  std::vector<FileJob> Jobs(Files.size());
  for (size_t I = 0; I < Files.size(); ++I) {
    FileJob &J = Jobs[I];
    J.File = Files[I];
    std::string Base = (Tmp + "/" + std::to_string(I)).str();
    J.Out = Base + ".out";
    J.Json = Base + ".json";
    J.Err = Base + ".err";
  }
  unsigned Width = P.Jobs ? P.Jobs : std::max(1u, std::thread::hardware_concurrency());
  runJobs(Jobs, Self, Common, ChildFormat, Width, P.FileTimeLimit);
  ProjectSummary S = gather(Jobs, ChildFormat, M->ClockGHz);
  S.Skipped = Skipped;

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == ReportFormat::Json) {
    printProjectJson(OS, A, *M, Jobs, S);
  } else if (A.Format == ReportFormat::Sarif) {
    if (!printProjectSarif(OS, Jobs, S.Failed)) {
      llvm::sys::fs::remove_directories(Tmp);
      return error("no file of the project could be analysed");
    }
  } else {
    printProjectText(OS, A, *M, Jobs, S);
  }
  OS.flush();
  llvm::sys::fs::remove_directories(Tmp);
  int RC = emitReport(A.Output, Text);
  if (RC)
    return RC;
  if (S.Failed == Jobs.size())
    return error("no file of the project could be analysed");
  return S.Failed ? ExitFailed : ExitOk;
}

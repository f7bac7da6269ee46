//===- Replay.cpp - validate --replay -------------------------------------===//
//
// The replay predicts every recorded row again with today's code and machine
// files, at the row's clock and with the figures measured on its host, and
// reports each model's error per host and level, the worst rows and what
// moved against a baseline.
//
//===----------------------------------------------------------------------===//
#include "ValidateRun.h"

#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Probe.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

using namespace perfmodel;
using namespace perfmodel::driver;
namespace json = llvm::json;

namespace {

constexpr llvm::StringLiteral ReplaySchema = "perfmodel-replay";

/// One recorded row predicted again.
struct ReplayedRow {
  const RecordedRun *Run = nullptr;
  const RecordedRow *Row = nullptr;
  std::map<std::string, double> Now; ///< cycles per iteration by model, "headline" too
  std::string Headline;              ///< the headline's model now
  std::string Why;                   ///< why it is not predicted now
  double error(const std::string &Model) const {
    auto It = Now.find(Model);
    return It == Now.end() ? NAN : It->second / Row->MedianCy - 1;
  }
};

struct Replayed {
  std::string Path, Name; ///< the recording and its file name (the baseline's key)
  Recording Rec;
  std::vector<ReplayedRow> Rows;
};

const char *const ModelOrder[] = {"Roofline", "ECM", "PPR", "headline"};

std::string number(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.10g", V);
  return Buf;
}

/// The memory figures measured beside RUN's rows, each the median over the
/// rows that carry it. A figure measured beside one row (a few seconds)
/// moves more than the host does between rows: on the Zen 5 VM one core's
/// fills read 14-35 GB/s and the latency 280-494 ns within one run, and
/// the rows' medians predicted them 4-8 points of MAPE closer in memory.
std::map<std::string, double> pooledFigures(const RecordedRun &Run) {
  std::map<std::string, std::vector<double>> All;
  for (const RecordedRow &R : Run.Rows)
    for (const auto &[Key, V] : R.Measured)
      All[Key].push_back(V);
  std::map<std::string, double> Pooled;
  for (auto &[Key, Vs] : All)
    Pooled[Key] = median(Vs);
  return Pooled;
}

/// Predicts every row of RUN again into OUT, as validate predicted it on
/// the host: the recorded machine with the figures measured there (those
/// measured beside the rows pooled over the run), the L3 the host kept,
/// each row at its clock.
void replayRun(const RecordedRun &Run, const ReplayArgs &Args, std::vector<ReplayedRow> &Out) {
  const std::string &Machine = Args.Machine;
  size_t First = Out.size();
  const std::map<std::string, double> Pooled = pooledFigures(Run);
  for (const RecordedRow &Row : Run.Rows)
    Out.push_back({&Run, &Row, {}, "", ""});
  auto FailAll = [&](const std::string &Why) {
    for (size_t I = First; I < Out.size(); ++I)
      Out[I].Why = Why;
  };
  std::string Ext = llvm::sys::path::extension(Run.File).str();
  llvm::SmallString<128> Tmp;
  int FD;
  if (llvm::sys::fs::createTemporaryFile("perfmodel-replay", Ext.empty() ? "c" : Ext.substr(1),
                                         FD, Tmp))
    return FailAll("cannot create a temporary file");
  llvm::FileRemover Remove(Tmp);
  {
    llvm::raw_fd_ostream F(FD, /*shouldClose=*/true);
    F << Run.Source;
  }
  AnalyzeArgs A;
  A.File = std::string(Tmp);
  A.Shown = Run.File;
  A.Machine = Machine.empty() ? Run.Machine : Machine;
  // A clock given is not measured here, nor one core's memory: the host's
  // figures are the recorded ones (another model than the recorded one
  // keeps its own, but for the clock).
  if (Machine.empty()) {
    A.Sets = Run.Sets;
    for (const auto &[Key, V] : Run.Measured)
      A.Sets.push_back(Key + "=" + number(V));
  }
  A.Sets.push_back("clock_ghz=" + number(Run.ClockGHz));
  A.Sets.insert(A.Sets.end(), Args.Sets.begin(), Args.Sets.end());
  A.Cache = Run.Cache;
  A.InCoreBasis = Run.InCoreBasis;
  A.NoInCore = Run.NoInCore;
  A.Index = Run.Index;
  A.AssumeAlign = 64; // validate's harness allocates every array so
  A.ModelNames = Run.Models;
  std::string Err;
  if (!parseModels(A, Err))
    return FailAll("the recorded models: " + Err);
  A.Models.Cores = Run.Cores;
  CompileCommand CC{Run.Flags, true};
  Inputs In;
  if (loadInputs(A, CC, In))
    return FailAll("the recorded source or machine cannot be analysed now");
  MachineModel &M = *In.Machine;
  if (Run.KeptL3)
    shrinkL3To(M, Run.KeptL3);
  KernelIR &IR = In.FR->IR;
  const std::vector<std::string> &Cmd = In.FR->CompileArgs;
  InCoreOptions IO = inCoreOptionsFor(M, pipelineOptions(A, Cmd, In.Index));
  std::vector<InCoreResult> InCore;
  if (!A.NoInCore)
    InCore = analyzeKernelLoops(IR, Cmd, IO);
  for (size_t I = First; I < Out.size(); ++I) {
    ReplayedRow &RR = Out[I];
    const RecordedRow &Row = *RR.Row;
    auto K = llvm::find_if(IR.Loops, [&](const LoopKernel &L) {
      return L.Function == Row.Function && L.Loc.Line == Row.Line && L.Loc.Column == Row.Column;
    });
    if (K == IR.Loops.end()) {
      RR.Why = "no loop at line " + std::to_string(Row.Line) + " in " + Row.Function;
      continue;
    }
    if (!K->Modelled) {
      RR.Why = "not modelled now: " + K->Reason;
      continue;
    }
    for (const auto &[Name, V] : Row.Sizes)
      if (auto P = IR.Parameters.find(Name); P != IR.Parameters.end()) {
        P->second.Value = V;
        P->second.From = Parameter::Origin::CommandLine;
      }
    std::string Why;
    IndexData Index = indexDataOf(In.Index, IR, K->Function);
    if (!Index.Specs.empty() && !reloadIndexData(Index, IR, Why)) {
      RR.Why = Why;
      continue;
    }
    std::vector<std::string> SizedCmd;
    if (!Row.Defines.empty()) {
      SizedCmd = Cmd;
      SizedCmd.insert(SizedCmd.end(), Row.Defines.begin(), Row.Defines.end());
    }
    MachineModel AtRow = M;
    if (Row.ClockGHz > 0)
      AtRow.ClockGHz = Row.ClockGHz;
    // Another model keeps its own memory figures, as it keeps the run's.
    if (Machine.empty() && !Row.Measured.empty() &&
        !useRecordedMemory(AtRow, Pooled, Args.Sets, Why)) {
      RR.Why = Why;
      continue;
    }
    AnalysisReport R;
    predictTimedLoop(R, A, IR, *K, Index, Cmd, SizedCmd, AtRow, IO, InCore, Row.CodeAt);
    if (R.Loops.empty()) {
      RR.Why = "no prediction";
      continue;
    }
    const LoopReport &LR = R.Loops.front();
    for (const Prediction *P : LR.predictions())
      if (const LevelPrediction *At = P->Ok ? P->atDataLevel() : nullptr)
        RR.Now[P->name()] = At->CyclesPerIt;
    if (const Prediction *H = LR.headline(); H && RR.Now.count(H->name())) {
      RR.Headline = H->name();
      RR.Now["headline"] = RR.Now[H->name()];
    }
    if (RR.Now.empty())
      RR.Why = "no model predicts it now";
  }
}

/// Mean absolute percentage error per model and level ("all" too).
using MapeTable = std::map<std::string, std::map<std::string, std::pair<double, unsigned>>>;
MapeTable mapes(const std::vector<ReplayedRow> &Rows) {
  MapeTable T;
  for (const ReplayedRow &R : Rows)
    for (const char *Model : ModelOrder) {
      double E = R.error(Model);
      if (std::isnan(E))
        continue;
      for (const std::string &Lv : {R.Row->Level, std::string("all")}) {
        auto &[Sum, N] = T[Model][Lv];
        Sum += std::fabs(E);
        ++N;
      }
    }
  for (auto &[Model, ByLevel] : T)
    for (auto &[Lv, SN] : ByLevel)
      SN.first = 100 * SN.first / SN.second;
  return T;
}

std::string hostLine(const RecordedHost &H) {
  return H.Brand + " (" + H.Vendor + " family " + hex(H.Family) + " model " + hex(H.Model) +
         "; LLVM " + H.Cpu + "; " + std::to_string(H.Threads) + " threads" +
         (H.Kind.empty() ? "" : "; library model " + H.Kind) + "), recorded " + H.Date;
}

std::string rowName(const ReplayedRow &R) {
  std::string S = R.Row->Function + " " + R.Row->Level;
  if (R.Run->Cores > 1)
    S += " on " + std::to_string(R.Run->Cores) + " cores";
  for (const auto &[K, V] : R.Row->Sizes)
    S += " " + K + "=" + std::to_string(V);
  return S;
}

/// A row across replays: its file, loop, level and cores.
std::string rowKey(const std::string &File, const std::string &Function, unsigned Line,
                   const std::string &Level, unsigned Cores) {
  return File + ":" + Function + ":" + std::to_string(Line) + ":" + Level + ":" +
         std::to_string(Cores);
}
std::string rowKey(const ReplayedRow &R) {
  return rowKey(R.Run->File, R.Row->Function, R.Row->Line, R.Row->Level, R.Run->Cores);
}

json::Value replayJson(const std::vector<Replayed> &All) {
  json::Array Recs;
  for (const Replayed &X : All) {
    json::Object Mape;
    for (const auto &[Model, ByLevel] : mapes(X.Rows)) {
      json::Object L;
      for (const auto &[Lv, SN] : ByLevel)
        L[Lv] = json::Object{{"mape", jsonNumber(SN.first)}, {"rows", SN.second}};
      Mape[Model] = std::move(L);
    }
    json::Array Rows;
    for (const ReplayedRow &R : X.Rows) {
      json::Object Now;
      for (const auto &[Model, V] : R.Now)
        Now[Model] = jsonNumber(V);
      json::Object O{{"file", R.Run->File},
                     {"function", R.Row->Function},
                     {"line", R.Row->Line},
                     {"level", R.Row->Level},
                     {"cores", R.Run->Cores},
                     {"measured", jsonNumber(R.Row->MedianCy)},
                     {"predicted", std::move(Now)},
                     {"headline", R.Headline}};
      if (!R.Why.empty())
        O["not_predicted"] = R.Why;
      Rows.push_back(std::move(O));
    }
    Recs.push_back(json::Object{{"name", X.Name},
                                {"host", json::Object{{"kind", X.Rec.Host.Kind},
                                                      {"llvm_cpu", X.Rec.Host.Cpu},
                                                      {"date", X.Rec.Host.Date}}},
                                {"mape", std::move(Mape)},
                                {"rows", std::move(Rows)}});
  }
  return json::Object{{"schema", ReplaySchema}, {"version", 1}, {"recordings", std::move(Recs)}};
}

/// An earlier replay's figures: MAPE per recording, model and level, and
/// the headline per row.
struct Baseline {
  std::map<std::string, std::map<std::string, std::map<std::string, double>>> Mape;
  std::map<std::string, std::map<std::string, double>> Headline; ///< recording -> row -> cy/it
};

bool readBaseline(const std::string &Path, Baseline &B, std::string &Err) {
  std::optional<json::Value> V = readJsonFile(Path, Err);
  if (!V)
    return false;
  const json::Object *O = V->getAsObject();
  const json::Array *Recs = O ? O->getArray("recordings") : nullptr;
  if (!O || O->getString("schema") != ReplaySchema || !Recs) {
    Err = Path + ": not a replay's JSON (validate --replay ... --format json)";
    return false;
  }
  for (const json::Value &RV : *Recs) {
    const json::Object *R = RV.getAsObject();
    auto Name = R ? R->getString("name") : std::nullopt;
    if (!Name)
      continue;
    if (const json::Object *M = R->getObject("mape"))
      for (const auto &[Model, ByLevel] : *M)
        if (const json::Object *L = ByLevel.getAsObject())
          for (const auto &[Lv, X] : *L)
            if (const json::Object *XO = X.getAsObject())
              if (auto Mp = XO->getNumber("mape"))
                B.Mape[Name->str()][Model.str()][Lv.str()] = *Mp;
    if (const json::Array *Rows = R->getArray("rows"))
      for (const json::Value &Row : *Rows) {
        const json::Object *RO = Row.getAsObject();
        const json::Object *P = RO ? RO->getObject("predicted") : nullptr;
        auto H = P ? P->getNumber("headline") : std::nullopt;
        if (H)
          B.Headline[Name->str()][rowKey(RO->getString("file").value_or("").str(),
                                         RO->getString("function").value_or("").str(),
                                         unsigned(RO->getInteger("line").value_or(0)),
                                         RO->getString("level").value_or("").str(),
                                         unsigned(RO->getInteger("cores").value_or(1)))] = *H;
      }
  }
  return true;
}

using MapeByModel = std::map<std::string, std::map<std::string, double>>;

/// Each model's MAPE per level (rows), and with OLD (a baseline's) the
/// change in points.
void printMapeTable(llvm::raw_ostream &OS, MapeTable T, const MapeByModel *Old) {
  std::vector<std::vector<std::string>> Table = {{"MAPE (rows)", "L1", "L2", "L3", "MEM", "all"}};
  for (const char *Model : ModelOrder) {
    if (!T.count(Model))
      continue;
    std::vector<std::string> Line = {Model};
    for (const std::string &Lv : {"L1", "L2", "L3", "MEM", "all"}) {
      auto It = T[Model].find(Lv);
      if (It == T[Model].end()) {
        Line.push_back("-");
        continue;
      }
      std::string Cell = formatNumber(It->second.first, 3) + " % (" +
                         std::to_string(It->second.second) + ")";
      if (Old)
        if (auto OM = Old->find(Model); OM != Old->end())
          if (auto OL = OM->second.find(Lv); OL != OM->second.end()) {
            char Buf[32];
            std::snprintf(Buf, sizeof Buf, " %+.2f", It->second.first - OL->second);
            Cell += Buf;
          }
      Line.push_back(Cell);
    }
    Table.push_back(Line);
  }
  printTextTable(OS, Table, 2, {false, true, true, true, true, true});
}

/// What fails --max-rise for recording X against baseline B: a headline
/// MAPE more than MAXRISE points above the baseline's, a row the baseline
/// predicted and the replay does not, or no baseline figures at all.
std::vector<std::string> rises(const Replayed &X, const Baseline &B, double MaxRise) {
  std::vector<std::string> Out;
  auto Old = B.Mape.find(X.Name);
  if (Old == B.Mape.end())
    return {X.Name + ": the baseline has no figures for it (a new recording enters the "
                     "baseline in the commit that adds it)"};
  MapeTable T = mapes(X.Rows);
  if (auto OM = Old->second.find("headline"); OM != Old->second.end())
    for (const auto &[Lv, SN] : T["headline"])
      // The baseline's figures are rounded to 6 digits (jsonNumber).
      if (auto OL = OM->second.find(Lv);
          OL != OM->second.end() && SN.first - OL->second > MaxRise + 1e-3)
        Out.push_back(X.Name + " " + Lv + ": headline " + formatNumber(SN.first, 3) +
                      " % MAPE, more than " + formatNumber(MaxRise) +
                      " point(s) above the baseline's " + formatNumber(OL->second, 3) + " %");
  auto Rows = B.Headline.find(X.Name);
  for (const ReplayedRow &R : X.Rows)
    if (!R.Why.empty() && Rows != B.Headline.end() && Rows->second.count(rowKey(R)))
      Out.push_back(X.Name + " " + rowName(R) + ": predicted in the baseline, not now (" +
                    R.Why + ")");
  return Out;
}

/// The text report of one recording, against baseline B when given.
void printRecording(llvm::raw_ostream &OS, const Replayed &X, const ReplayArgs &Args,
                    const Baseline *B) {
  OS << "\nrecording " << X.Path << "\n  host: " << hostLine(X.Rec.Host) << "\n";
  std::set<std::string> Machines;
  for (const RecordedRun &Run : X.Rec.Runs)
    Machines.insert(Args.Machine.empty() ? Run.Machine : Args.Machine);
  std::string MachineList;
  for (const std::string &Mn : Machines)
    MachineList += (MachineList.empty() ? "" : ", ") + Mn;
  unsigned Lost = llvm::count_if(X.Rows, [](const ReplayedRow &R) { return !R.Why.empty(); });
  OS << "  " << X.Rows.size() << " timed rows, " << X.Rows.size() - Lost
     << " predicted now with " << MachineList << " at each row's clock\n";
  // Rows whose headline is what validate predicted when it recorded them
  // (the same build and machine files give the same figure).
  unsigned Same = 0, Compared = 0;
  for (const ReplayedRow &R : X.Rows) {
    auto Was = R.Row->Predicted.find(R.Row->Headline);
    auto Now = R.Now.find("headline");
    if (Was == R.Row->Predicted.end() || Now == R.Now.end())
      continue;
    ++Compared;
    Same += R.Headline == R.Row->Headline && std::fabs(Now->second / Was->second - 1) <= 0.005;
  }
  if (!Args.Sets.empty())
    OS << "  with --set " << llvm::join(Args.Sets, ", ") << " after the recorded figures\n";
  if (Args.Machine.empty() && Args.Sets.empty())
    OS << "  " << Same << " of " << Compared
       << " headlines as validate predicted them when recording (within 0.5 %)\n";
  const MapeByModel *Old = nullptr;
  if (B)
    if (auto It = B->Mape.find(X.Name); It != B->Mape.end())
      Old = &It->second;
  printMapeTable(OS, mapes(X.Rows), Old);
  if (Old)
    OS << "  (after each MAPE: its change in points against " << Args.Baseline << ")\n";
  // The worst rows by the headline's error.
  std::vector<const ReplayedRow *> Ranked;
  for (const ReplayedRow &R : X.Rows)
    if (!std::isnan(R.error("headline")))
      Ranked.push_back(&R);
  std::sort(Ranked.begin(), Ranked.end(), [](const ReplayedRow *A, const ReplayedRow *B) {
    return std::fabs(A->error("headline")) > std::fabs(B->error("headline"));
  });
  if (Ranked.size() > Args.Worst)
    Ranked.resize(Args.Worst);
  if (!Ranked.empty()) {
    OS << "  worst rows (headline):\n";
    std::vector<std::vector<std::string>> W = {
        {"row", "measured cy/it", "predicted", "model", "error"}};
    for (const ReplayedRow *R : Ranked) {
      double E = R->error("headline");
      W.push_back({rowName(*R), formatNumber(R->Row->MedianCy), formatNumber(R->Now.at("headline")),
                   R->Headline, (E >= 0 ? "+" : "") + formatNumber(100 * E, 3) + " %"});
    }
    printTextTable(OS, W, 4, {false, true, true, false, true});
  }
  // Rows whose headline moved since the baseline, most first.
  if (B)
    if (auto It = B->Headline.find(X.Name); It != B->Headline.end()) {
      std::vector<std::pair<double, std::string>> Moved;
      for (const ReplayedRow &R : X.Rows) {
        auto Was = It->second.find(rowKey(R));
        auto Now = R.Now.find("headline");
        if (Was == It->second.end() || Now == R.Now.end() || Was->second <= 0)
          continue;
        double Change = Now->second / Was->second - 1;
        if (std::fabs(Change) > 0.005)
          Moved.push_back({Change, rowName(R) + ": " + formatNumber(Was->second) + " -> " +
                                       formatNumber(Now->second) + " cy/it (error " +
                                       formatNumber(100 * (Was->second / R.Row->MedianCy - 1), 3) +
                                       " -> " + formatNumber(100 * R.error("headline"), 3) +
                                       " %)"});
      }
      std::sort(Moved.begin(), Moved.end(), [](const auto &A, const auto &B) {
        return std::fabs(A.first) > std::fabs(B.first);
      });
      OS << "  headlines moved against the baseline: " << Moved.size() << " row(s)\n";
      for (size_t I = 0; I < Moved.size() && I < Args.Worst; ++I)
        OS << "    " << Moved[I].second << "\n";
    }
  for (const ReplayedRow &R : X.Rows)
    if (!R.Why.empty())
      OS << "  not predicted: " << rowName(R) << ": " << R.Why << "\n";
}

} // namespace

int perfmodel::driver::runReplay(const ReplayArgs &Args) {
  std::vector<Replayed> All;
  for (const std::string &Path : Args.Files) {
    Replayed X;
    X.Path = Path;
    X.Name = llvm::sys::path::filename(Path).str();
    std::string Err;
    if (!readRecording(Path, X.Rec, Err))
      return error(Err);
    All.push_back(std::move(X));
  }
  // --set must apply to every machine the rows are predicted with: a bad
  // override is the command line's error, not each row's.
  if (!Args.Sets.empty()) {
    std::set<std::string> Machines;
    for (const Replayed &X : All)
      for (const RecordedRun &Run : X.Rec.Runs)
        Machines.insert(Args.Machine.empty() ? Run.Machine : Args.Machine);
    for (const std::string &Name : Machines) {
      std::vector<std::string> Notes;
      if (!loadMachine(Name, Args.Sets, Notes, /*HostClock=*/false))
        return ExitUsage;
    }
  }
  std::optional<Baseline> B;
  if (!Args.Baseline.empty()) {
    B.emplace();
    std::string Err;
    if (!readBaseline(Args.Baseline, *B, Err))
      return error(Err);
  }
  ProgressBar Bar(All.size());
  size_t Step = 0;
  for (Replayed &X : All) {
    Bar.update(++Step, X.Name);
    for (const RecordedRun &Run : X.Rec.Runs)
      replayRun(Run, Args, X.Rows);
  }
  Bar.clear();
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (Args.Format == ReportFormat::Json) {
    OS << llvm::formatv("{0:1}", replayJson(All)) << "\n";
  } else if (Args.Format == ReportFormat::Svg) {
    std::vector<AccuracyPanel> Panels;
    for (const Replayed &X : All) {
      AccuracyPanel P;
      P.Title = X.Name + ": " + X.Rec.Host.Brand + " (" + X.Rec.Host.Cpu + "), " + X.Rec.Host.Date;
      for (const ReplayedRow &R : X.Rows)
        if (!std::isnan(R.error("headline")))
          P.Points.push_back({R.Row->MedianCy, R.Now.at("headline"), R.Row->Level,
                              rowName(R) + ": measured " + formatNumber(R.Row->MedianCy) +
                                  ", " + R.Headline + " " + formatNumber(R.Now.at("headline")) +
                                  " cy/it"});
      Panels.push_back(std::move(P));
    }
    printAccuracySVG(OS, "perfmodel validate --replay: predicted against measured", Panels);
  } else {
    OS << "perfmodel validate --replay (each recorded row predicted again with this build and "
          "today's machine files, at the row's clock, with the figures measured on its host)\n";
    for (const Replayed &X : All)
      printRecording(OS, X, Args, B ? &*B : nullptr);
    // A host kind recorded more than once: all its rows together (the noise
    // between runs is in the recordings' difference).
    std::map<std::string, std::vector<const Replayed *>> Kinds;
    for (const Replayed &X : All)
      Kinds[X.Rec.Host.Kind.empty() ? X.Rec.Host.Cpu : X.Rec.Host.Kind].push_back(&X);
    for (const auto &[Kind, Xs] : Kinds) {
      if (Xs.size() < 2)
        continue;
      std::vector<ReplayedRow> Rows;
      for (const Replayed *X : Xs)
        Rows.insert(Rows.end(), X->Rows.begin(), X->Rows.end());
      OS << "\nhost kind " << Kind << ": " << Xs.size() << " recordings, " << Rows.size()
         << " rows\n";
      printMapeTable(OS, mapes(Rows), nullptr);
    }
  }
  std::vector<std::string> Rises;
  if (Args.MaxRise && B)
    for (const Replayed &X : All)
      for (std::string &R : rises(X, *B, *Args.MaxRise))
        Rises.push_back(std::move(R));
  if (int RC = emitReport(Args.Output, Text))
    return RC;
  if (!Rises.empty()) {
    for (const std::string &R : Rises)
      llvm::errs() << "perfmodel: error: " << R << "\n";
    return ExitFailed;
  }
  return ExitOk;
}

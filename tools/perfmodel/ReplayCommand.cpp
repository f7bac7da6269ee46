//===- ReplayCommand.cpp - validate --record and --replay -----------------===//
//
// A recording is JSON: the host (CPUID, LLVM's name of its CPU), then one run
// per `validate --record`: the source as timed, its flags, the machine and
// the figures measured in place of the model's, and the timed rows. The
// replay predicts every row again with today's code and machine files, at
// the row's clock, and reports each model's error per host and level.
//
//===----------------------------------------------------------------------===//
#include "Recording.h"

#include "perfmodel/MachineRegistry.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>
#include <thread>

using namespace perfmodel;
using namespace perfmodel::tool;
namespace json = llvm::json;

namespace {

constexpr llvm::StringLiteral Schema = "perfmodel-recorded-timings";
constexpr llvm::StringLiteral ReplaySchema = "perfmodel-replay";
const char *const Levels[] = {"L1", "L2", "L3", "MEM"};

json::Array strings(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

json::Object rowJson(const RecordedRow &R) {
  json::Object Sizes, Pred;
  for (const auto &[K, V] : R.Sizes)
    Sizes[K] = V;
  for (const auto &[K, V] : R.Predicted)
    Pred[K] = V;
  return json::Object{{"function", R.Function},
                      {"line", R.Line},
                      {"column", R.Column},
                      {"level", R.Level},
                      {"sizes", std::move(Sizes)},
                      {"defines", strings(R.Defines)},
                      {"iterations", R.Iterations},
                      {"clock_ghz", R.ClockGHz},
                      {"cy_per_it", json::Object{{"median", R.MedianCy},
                                                 {"min", R.MinCy},
                                                 {"max", R.MaxCy}}},
                      {"quiet", R.Quiet},
                      {"samples", R.Samples},
                      {"predicted", std::move(Pred)},
                      {"headline", R.Headline}};
}

json::Object runJson(const RecordedRun &R) {
  json::Object Measured;
  for (const auto &[K, V] : R.Measured)
    Measured[K] = V;
  json::Array Rows;
  for (const RecordedRow &Row : R.Rows)
    Rows.push_back(rowJson(Row));
  return json::Object{{"file", R.File},
                      {"source", R.Source},
                      {"flags", strings(R.Flags)},
                      {"index", strings(R.Index)},
                      {"machine", R.Machine},
                      {"sets", strings(R.Sets)},
                      {"cache", R.Cache},
                      {"incore", R.NoInCore ? "none" : R.InCoreBasis},
                      {"clock_ghz", R.ClockGHz},
                      {"measured", std::move(Measured)},
                      {"kept_l3_bytes", int64_t(R.KeptL3)},
                      {"cores", R.Cores},
                      {"rows", std::move(Rows)}};
}

/// Reads the fields of a recording, naming the first one that is missing
/// or of the wrong type.
class Reader {
  const std::string &File;
  std::string &Err;

public:
  Reader(const std::string &File, std::string &Err) : File(File), Err(Err) {}
  bool fail(const std::string &Where, const std::string &What) {
    if (Err.empty())
      Err = File + ": " + Where + ": " + What;
    return false;
  }
  bool str(const json::Object &O, llvm::StringRef K, std::string &Out, const std::string &At,
           bool Required = true) {
    if (auto V = O.getString(K)) {
      Out = V->str();
      return true;
    }
    return !Required || fail(At, "'" + K.str() + "' must be a string");
  }
  bool num(const json::Object &O, llvm::StringRef K, double &Out, const std::string &At) {
    if (auto V = O.getNumber(K)) {
      Out = *V;
      return true;
    }
    return fail(At, "'" + K.str() + "' must be a number");
  }
  bool strs(const json::Object &O, llvm::StringRef K, std::vector<std::string> &Out,
            const std::string &At) {
    const json::Array *A = O.getArray(K);
    if (!A)
      return fail(At, "'" + K.str() + "' must be a list of strings");
    for (const json::Value &V : *A) {
      auto S = V.getAsString();
      if (!S)
        return fail(At, "'" + K.str() + "' must be a list of strings");
      Out.push_back(S->str());
    }
    return true;
  }
  bool nums(const json::Object &O, llvm::StringRef K, std::map<std::string, double> &Out,
            const std::string &At) {
    const json::Object *M = O.getObject(K);
    if (!M)
      return fail(At, "'" + K.str() + "' must be an object of numbers");
    for (const auto &[Name, V] : *M) {
      auto D = V.getAsNumber();
      if (!D)
        return fail(At, "'" + K.str() + "." + Name.str() + "' must be a number");
      Out[Name.str()] = *D;
    }
    return true;
  }
};

bool readRow(Reader &Rd, const json::Object &O, const std::string &At, RecordedRow &R) {
  double Line = 0, Column = 0, Quiet = 0, Samples = 0;
  std::map<std::string, double> Sizes;
  const json::Object *Cy = O.getObject("cy_per_it");
  if (!Rd.str(O, "function", R.Function, At) || !Rd.num(O, "line", Line, At) ||
      !Rd.num(O, "column", Column, At) || !Rd.str(O, "level", R.Level, At) ||
      !Rd.nums(O, "sizes", Sizes, At) || !Rd.strs(O, "defines", R.Defines, At) ||
      !Rd.num(O, "iterations", R.Iterations, At) || !Rd.num(O, "clock_ghz", R.ClockGHz, At) ||
      !Rd.num(O, "quiet", Quiet, At) || !Rd.num(O, "samples", Samples, At) ||
      !Rd.nums(O, "predicted", R.Predicted, At) || !Rd.str(O, "headline", R.Headline, At))
    return false;
  if (!Cy)
    return Rd.fail(At, "'cy_per_it' must be an object");
  if (!Rd.num(*Cy, "median", R.MedianCy, At + ".cy_per_it") ||
      !Rd.num(*Cy, "min", R.MinCy, At + ".cy_per_it") ||
      !Rd.num(*Cy, "max", R.MaxCy, At + ".cy_per_it"))
    return false;
  if (!(R.MedianCy > 0))
    return Rd.fail(At, "the measured cycles per iteration must be positive");
  if (!llvm::is_contained(Levels, R.Level))
    return Rd.fail(At, "level '" + R.Level + "' is none of L1, L2, L3, MEM");
  R.Line = unsigned(Line);
  R.Column = unsigned(Column);
  R.Quiet = unsigned(Quiet);
  R.Samples = unsigned(Samples);
  for (const auto &[K, V] : Sizes)
    R.Sizes[K] = int64_t(V);
  return true;
}

bool readRun(Reader &Rd, const json::Object &O, const std::string &At, RecordedRun &R) {
  std::string InCore;
  double Kept = 0;
  if (!Rd.str(O, "file", R.File, At) || !Rd.str(O, "source", R.Source, At) ||
      !Rd.strs(O, "flags", R.Flags, At) || !Rd.strs(O, "index", R.Index, At) ||
      !Rd.str(O, "machine", R.Machine, At) || !Rd.strs(O, "sets", R.Sets, At) ||
      !Rd.str(O, "cache", R.Cache, At) || !Rd.str(O, "incore", InCore, At) ||
      !Rd.num(O, "clock_ghz", R.ClockGHz, At) || !Rd.nums(O, "measured", R.Measured, At) ||
      !Rd.num(O, "kept_l3_bytes", Kept, At))
    return false;
  R.NoInCore = InCore == "none";
  R.InCoreBasis = R.NoInCore ? "compiled" : InCore;
  R.KeptL3 = uint64_t(Kept);
  // Recordings before --cores ran on one.
  R.Cores = unsigned(O.getInteger("cores").value_or(1));
  if (R.Cores < 1 || R.Cores > 4096)
    return Rd.fail(At, "'cores' must be 1 to 4096");
  const json::Array *Rows = O.getArray("rows");
  if (!Rows)
    return Rd.fail(At, "'rows' must be a list");
  for (size_t I = 0; I < Rows->size(); ++I) {
    std::string RowAt = At + ".rows[" + std::to_string(I) + "]";
    const json::Object *Row = (*Rows)[I].getAsObject();
    if (!Row)
      return Rd.fail(RowAt, "must be an object");
    R.Rows.emplace_back();
    if (!readRow(Rd, *Row, RowAt, R.Rows.back()))
      return false;
  }
  return true;
}

std::string today() {
  std::time_t Now = std::time(nullptr);
  char Buf[16];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%d", std::gmtime(&Now));
  return Buf;
}

std::string hex(unsigned X) {
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "0x%02x", X);
  return Buf;
}

} // namespace

RecordedHost perfmodel::tool::thisHost() {
  RecordedHost H;
  if (std::optional<HostCpu> C = detectHostCpu()) {
    H.Vendor = C->Vendor;
    H.Brand = C->Brand;
    H.Family = C->Family;
    H.Model = C->Model;
    std::string File = machineForHost(*C);
    if (!File.empty())
      H.Kind = llvm::sys::path::stem(File).str();
  }
  H.Cpu = llvm::sys::getHostCPUName().str();
  H.Threads = std::thread::hardware_concurrency();
  H.Date = today();
  return H;
}

std::vector<std::string> perfmodel::tool::resolveNativeFlags(std::vector<std::string> Flags,
                                                             const std::string &Cpu) {
  for (std::string &F : Flags)
    for (const char *Opt : {"-march=", "-mcpu=", "-mtune="})
      if (F == std::string(Opt) + "native")
        F = Opt + Cpu;
  return Flags;
}

json::Value perfmodel::tool::toJson(const Recording &R) {
  json::Array Runs;
  for (const RecordedRun &Run : R.Runs)
    Runs.push_back(runJson(Run));
  const RecordedHost &H = R.Host;
  return json::Object{{"schema", Schema},
                      {"version", 1},
                      {"host", json::Object{{"vendor", H.Vendor},
                                            {"brand", H.Brand},
                                            {"family", H.Family},
                                            {"model", H.Model},
                                            {"kind", H.Kind},
                                            {"llvm_cpu", H.Cpu},
                                            {"threads", H.Threads},
                                            {"date", H.Date}}},
                      {"runs", std::move(Runs)}};
}

bool perfmodel::tool::fromJson(const json::Value &V, Recording &R, const std::string &File,
                               std::string &Err) {
  Reader Rd(File, Err);
  const json::Object *O = V.getAsObject();
  if (!O || O->getString("schema") != Schema)
    return Rd.fail("schema", "not a perfmodel recording (\"schema\": \"" + Schema.str() +
                                 "\" expected)");
  if (O->getInteger("version") != 1)
    return Rd.fail("version", "this perfmodel reads recordings of version 1");
  const json::Object *H = O->getObject("host");
  if (!H)
    return Rd.fail("host", "must be an object");
  double Family = 0, Model = 0, Threads = 0;
  if (!Rd.str(*H, "vendor", R.Host.Vendor, "host") || !Rd.str(*H, "brand", R.Host.Brand, "host") ||
      !Rd.num(*H, "family", Family, "host") || !Rd.num(*H, "model", Model, "host") ||
      !Rd.str(*H, "kind", R.Host.Kind, "host") || !Rd.str(*H, "llvm_cpu", R.Host.Cpu, "host") ||
      !Rd.num(*H, "threads", Threads, "host") || !Rd.str(*H, "date", R.Host.Date, "host"))
    return false;
  R.Host.Family = unsigned(Family);
  R.Host.Model = unsigned(Model);
  R.Host.Threads = unsigned(Threads);
  const json::Array *Runs = O->getArray("runs");
  if (!Runs)
    return Rd.fail("runs", "must be a list");
  for (size_t I = 0; I < Runs->size(); ++I) {
    std::string At = "runs[" + std::to_string(I) + "]";
    const json::Object *Run = (*Runs)[I].getAsObject();
    if (!Run)
      return Rd.fail(At, "must be an object");
    R.Runs.emplace_back();
    if (!readRun(Rd, *Run, At, R.Runs.back()))
      return false;
  }
  return true;
}

namespace {

/// The JSON in PATH; nullopt with ERR naming the file and what is wrong.
std::optional<json::Value> readJsonFile(const std::string &Path, std::string &Err) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf) {
    Err = Path + ": cannot read: " + Buf.getError().message();
    return std::nullopt;
  }
  llvm::Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V) {
    Err = Path + ": not JSON: " + llvm::toString(V.takeError());
    return std::nullopt;
  }
  return std::move(*V);
}

bool readRecording(const std::string &Path, Recording &R, std::string &Err) {
  std::optional<json::Value> V = readJsonFile(Path, Err);
  return V && fromJson(*V, R, Path, Err);
}

bool writeJsonFile(const std::string &Path, const json::Value &V, std::string &Err) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:1}", V) << "\n";
  std::error_code EC;
  llvm::raw_fd_ostream Out(Path, EC);
  if (EC) {
    Err = "cannot write " + Path + ": " + EC.message();
    return false;
  }
  Out << Text;
  return true;
}

} // namespace

bool perfmodel::tool::appendRecording(const std::string &Path, const RecordedHost &Host,
                                      RecordedRun Run, std::string &Err) {
  Recording R;
  R.Host = Host;
  if (llvm::sys::fs::exists(Path)) {
    if (!readRecording(Path, R, Err))
      return false;
    if (R.Host.Vendor != Host.Vendor || R.Host.Family != Host.Family ||
        R.Host.Model != Host.Model) {
      Err = Path + ": recorded on another host (" + R.Host.Vendor + " family " +
            hex(R.Host.Family) + " model " + hex(R.Host.Model) +
            "); a recording holds one host's rows: name a new file";
      return false;
    }
    // The same file with the same flags and machine replaces its earlier run.
    llvm::erase_if(R.Runs, [&](const RecordedRun &Old) {
      return Old.File == Run.File && Old.Flags == Run.Flags && Old.Machine == Run.Machine &&
             Old.Index == Run.Index && Old.Sets == Run.Sets;
    });
  }
  R.Runs.push_back(std::move(Run));
  return writeJsonFile(Path, toJson(R), Err);
}

namespace {

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

/// Predicts every row of RUN again into OUT, as validate predicted it on
/// the host: the recorded machine with the figures measured there, the L3
/// the host kept, each row at its clock.
void replayRun(const RecordedRun &Run, const std::string &Machine,
               std::vector<ReplayedRow> &Out) {
  size_t First = Out.size();
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
  A.Cache = Run.Cache;
  A.InCoreBasis = Run.InCoreBasis;
  A.NoInCore = Run.NoInCore;
  A.Index = Run.Index;
  A.AssumeAlign = 64; // validate's harness allocates every array so
  std::string Err;
  parseModels(A, Err);
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
    AnalysisReport R;
    predictTimedLoop(R, A, IR, *K, Index, Cmd, SizedCmd, AtRow, IO, InCore);
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
  if (Args.Machine.empty())
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

int perfmodel::tool::runReplay(const ReplayArgs &Args) {
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
      replayRun(Run, Args.Machine, X.Rows);
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

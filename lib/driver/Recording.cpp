//===- Recording.cpp - validate's recordings read and written -------------===//
//
// A recording is JSON: the host (CPUID, LLVM's name of its CPU), then one run
// per `validate --record`: the source as timed, its flags, the machine and
// the figures measured in place of the model's, and the timed rows
// (Replay.cpp predicts them again).
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Recording.h"

#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Probe.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

using namespace perfmodel;
using namespace perfmodel::driver;
namespace json = llvm::json;

namespace {

constexpr llvm::StringLiteral Schema = "perfmodel-recorded-timings";
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
  json::Object Row{{"function", R.Function},
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
  if (!R.CodeAt.empty()) {
    json::Object At;
    for (const auto &[K, V] : R.CodeAt)
      At[K] = int64_t(V);
    Row["code_at"] = std::move(At);
  }
  if (!R.Measured.empty()) {
    json::Object M;
    for (const auto &[K, V] : R.Measured)
      M[K] = V;
    Row["measured"] = std::move(M);
  }
  return Row;
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
                      {"models", strings(R.Models)},
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
  /// The objects of list A (at LISTAT) into OUT, each read by READONE.
  template <typename T, typename F>
  bool objects(const json::Array &A, const std::string &ListAt, std::vector<T> &Out,
               F ReadOne) {
    for (size_t I = 0; I < A.size(); ++I) {
      std::string At = ListAt + "[" + std::to_string(I) + "]";
      const json::Object *O = A[I].getAsObject();
      if (!O)
        return fail(At, "must be an object");
      Out.emplace_back();
      if (!ReadOne(*this, *O, At, Out.back()))
        return false;
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
  if (O.get("code_at")) {
    std::map<std::string, double> Code;
    if (!Rd.nums(O, "code_at", Code, At))
      return false;
    for (const auto &[K, V] : Code)
      R.CodeAt[K] = uint64_t(V);
  }
  if (O.get("measured") && !Rd.nums(O, "measured", R.Measured, At))
    return false;
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
  // Recordings before it predicted every model.
  if (O.get("models") && !Rd.strs(O, "models", R.Models, At))
    return false;
  const json::Array *Rows = O.getArray("rows");
  if (!Rows)
    return Rd.fail(At, "'rows' must be a list");
  return Rd.objects(*Rows, At + ".rows", R.Rows, readRow);
}

} // namespace

std::string perfmodel::driver::hex(unsigned X) {
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "0x%02x", X);
  return Buf;
}

RecordedHost perfmodel::driver::thisHost() {
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
  H.Date = todayUtc();
  return H;
}

std::vector<std::string> perfmodel::driver::resolveNativeFlags(std::vector<std::string> Flags,
                                                             const std::string &Cpu) {
  for (std::string &F : Flags)
    for (const char *Opt : {"-march=", "-mcpu=", "-mtune="})
      if (F == std::string(Opt) + "native")
        F = Opt + Cpu;
  return Flags;
}

json::Value perfmodel::driver::toJson(const Recording &R) {
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

bool perfmodel::driver::fromJson(const json::Value &V, Recording &R, const std::string &File,
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
  return Rd.objects(*Runs, "runs", R.Runs, readRun);
}

namespace {

} // namespace

std::optional<json::Value> perfmodel::driver::readJsonFile(const std::string &Path,
                                                         std::string &Err) {
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

bool perfmodel::driver::readRecording(const std::string &Path, Recording &R, std::string &Err) {
  std::optional<json::Value> V = readJsonFile(Path, Err);
  return V && fromJson(*V, R, Path, Err);
}

namespace {

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

bool perfmodel::driver::appendRecording(const std::string &Path, const RecordedHost &Host,
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


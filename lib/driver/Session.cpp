//===- Session.cpp - What one run of perfmodel works from -----------------===//
//
// Errors and diagnostics, loading the machine (the host's clock, one core's
// memory, the L3 kept), -D sizes and sweeps, report files, sources from
// standard input, the pipeline options of a request, the progress bar.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Session.h"

#include "perfmodel/InCore.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Report.h"

#include "clang/AST/ASTConsumer.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <thread>

using namespace perfmodel;
using namespace perfmodel::driver;

int perfmodel::driver::error(const std::string &Msg, int Code) {
  llvm::errs() << "perfmodel: error: " << Msg << "\n";
  return Code;
}

/// Prints machine-file diagnostics, at most 20 (like a compiler's error limit).
void perfmodel::driver::printDiags(const std::vector<MachineDiag> &Diags, bool Warnings) {
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
std::optional<MachineModel> perfmodel::driver::loadMachine(const std::string &Name,
                                        const std::vector<std::string> &Sets,
                                        std::vector<std::string> &Notes, bool HostClock,
                                        std::optional<double> MeasuredGHz,
                                        HostMeasured *Measured) {
  HostMeasured Ignored;
  HostMeasured &Did = Measured ? *Measured : Ignored;
  bool MemoryLater = Did.MemoryLater;
  Did = HostMeasured();
  Did.MemoryLater = MemoryLater;
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
  // The host's own model converts cycles at the clock the host runs now: a
  // VM's or a boosting core's clock is not the file's (measured in about
  // 10 ms; --set clock_ghz= keeps a fixed one).
  if (HostClock && !IsSet("clock_ghz")) {
    std::optional<HostCpu> Host = detectHostCpu();
    // The library's model of the host, or a file made for it (a probe's
    // over that model carries its CPUID).
    if (Host && cpuidMatches(R.Model->Cpuid, *Host)) {
      // The median of the repetitions: a VM's clock wanders, and its fastest
      // 2 ms ran 2-6 % above what a loop of a second saw (the Zen 5 VM, ten
      // trials; the median within 2 %), while a timing other work slowed
      // is an outlier either way.
      double GHz = MeasuredGHz ? *MeasuredGHz : measureClock(0.002, 7, /*Exactly=*/true).Median;
      if (GHz > 0.2 && GHz < 10) {
        double FileGHz = R.Model->ClockGHz;
        R.Model->ClockGHz = std::round(GHz * 100) / 100;
        Did.Clock = true;
        Notes.push_back("clock: " + formatNumber(R.Model->ClockGHz) +
                        " GHz measured on this host (the median of 7 timings of a dependent "
                        "add chain); the model file says " +
                        formatNumber(FileGHz) + " GHz (--set clock_ghz=" + formatNumber(FileGHz) +
                        " to use it)");
      }
      // A model of this host that says nothing of one core's memory would
      // let one core draw the socket's bandwidth (several times what it
      // gets) and wait no latency: measure both here, as the clock.
      MemoryModel &Mem = R.Model->Memory;
      if (!Mem.oneCoreGBs() && !IsSet("memory.sustained_one_core_gbs") && !Did.MemoryLater) {
        HostMemory H = measureHostMemory();
        std::string Got;
        auto Add = [&](const std::string &What) { Got += (Got.empty() ? "" : ", ") + What; };
        if (H.FillGBs > 0) {
          Mem.OneCoreGBs = std::round(H.FillGBs * 10) / 10;
          Add("one core's fills " + formatNumber(*Mem.OneCoreGBs) + " GB/s (a load stream)");
        }
        if (H.LatencyNs > 0 && !Mem.LatencyNs && !IsSet("memory.latency_ns")) {
          Mem.LatencyNs = std::round(H.LatencyNs);
          Add("latency " + formatNumber(*Mem.LatencyNs) + " ns (a pointer chase)");
        }
        bool InFlightStated = llvm::any_of(
            R.Model->Caches, [](const CacheLevel &C) { return C.MissesInFlight.has_value(); });
        if (H.InFlight >= 1 && !InFlightStated && !R.Model->Caches.empty()) {
          R.Model->Caches.front().MissesInFlight = unsigned(std::lround(H.InFlight));
          Add(std::to_string(*R.Model->Caches.front().MissesInFlight) +
              " misses in flight (32 chases at once or random loads)");
        }
        Did.Memory = !Got.empty();
        if (Did.Memory)
          Notes.push_back("memory: the model gives no figure for one core; measured on this "
                          "host now over 128 MiB: " + Got +
                          " (--set memory.sustained_one_core_gbs=GBS gives one instead)");
      }
    }
  }
  return R.Model;
}

/// SETS gives KEY (--set KEY=...): a figure measured here does not replace it.
static bool setsGive(const std::vector<std::string> &Sets, const std::string &Key) {
  return llvm::any_of(
      Sets, [&](const std::string &S) { return llvm::StringRef(S).starts_with(Key + "="); });
}

/// The first level's misses in flight as measured beside the latency: one
/// chase and the faster of 32 at once and independent random loads are one
/// measurement, and an irregular miss costs
/// their ratio (latency / misses in flight). A fresh latency beside the
/// file's count mispriced them on the Zen 4 VM (gathers and ELLPACK SpMV in
/// memory 30-38 % fast: 165 ns over the file's 23 where 19-20 were in flight).
/// A strided stream's lines were measured per line, and the file states that
/// time times its count: its stride latency moves with the count, so their
/// time per line stays as measured.
static void useHostMissesInFlight(MachineModel &M, const HostMemory &H,
                                  const std::vector<std::string> &Sets,
                                  std::map<std::string, double> &Recorded, std::string &Got) {
  if (M.Caches.empty() || !(H.InFlight >= 1))
    return;
  CacheLevel &L1 = M.Caches.front();
  std::string Key = "caches." + L1.Name + ".misses_in_flight";
  if (setsGive(Sets, Key))
    return;
  unsigned Now = unsigned(std::lround(H.InFlight));
  std::optional<unsigned> File = L1.MissesInFlight;
  L1.MissesInFlight = Now;
  Recorded[Key] = Now;
  Got += (Got.empty() ? "" : ", ") + std::to_string(Now) + " misses in flight";
  std::optional<double> &Stride = M.Memory.StrideLatencyNs;
  if (File && *File && Stride && *File != Now && !setsGive(Sets, "memory.stride_latency_ns")) {
    Stride = std::round(*Stride * Now / *File);
    Recorded["memory.stride_latency_ns"] = *Stride;
  }
}

void perfmodel::driver::useHostMemory(MachineModel &M, const HostMemory &H,
                                      const std::vector<std::string> &Sets,
                                      std::vector<std::string> &Notes,
                                      std::map<std::string, double> &Recorded) {
  MemoryModel &Mem = M.Memory;
  std::string Got;
  auto Use = [&](const std::string &Key, double V, std::optional<double> &Field,
                 const std::string &What) {
    if (!(V > 0) || setsGive(Sets, Key))
      return;
    Field = V;
    Recorded[Key] = V;
    Got += (Got.empty() ? "" : ", ") + What + " " + formatNumber(V) +
           (Key.find("_ns") != std::string::npos ? " ns" : " GB/s");
  };
  auto Round = [](double V, double To) { return std::round(V / To) * To; };
  // The socket first: one core's rates stay below it. Each all-core kernel
  // its own rate: the loop takes the one nearest its mix of fills.
  const std::string All = std::to_string(H.Threads) + " cores' ";
  Use("memory.sustained_gbs", Round(H.AllCoresGBs, 0.1), Mem.SustainedGBs, All + "triad");
  // A socket the user sets is the socket of every mix (a hypothetical
  // machine), unless a kernel's figure is set beside it.
  if (!setsGive(Sets, "memory.sustained_gbs")) {
    Use("memory.sustained_load_gbs", Round(H.AllCoresLoadGBs, 0.1), Mem.SustainedLoadGBs,
        All + "load");
    Use("memory.sustained_copy_gbs", Round(H.AllCoresCopyGBs, 0.1), Mem.SustainedCopyGBs,
        All + "copy");
    Use("memory.sustained_update_gbs", Round(H.AllCoresUpdateGBs, 0.1),
        Mem.SustainedUpdateGBs, All + "update");
  }
  double Socket = Mem.effectiveGBs();
  double Fill = H.FitFillGBs > 0 ? H.FitFillGBs : H.FillGBs;
  Use("memory.sustained_one_core_gbs", Round(std::min(Fill, Socket), 0.1), Mem.OneCoreGBs,
      "one core's fills");
  // Write-backs that cost nothing beside the fills go at the socket's rate.
  if (H.FitFillGBs > 0)
    Use("memory.one_core_writeback_gbs",
        Round(H.WritebackGBs > 0 ? std::min(H.WritebackGBs, Socket) : Socket, 0.1),
        Mem.OneCoreWritebackGBs, "its write-backs");
  Use("memory.latency_ns", std::round(H.LatencyNs), Mem.LatencyNs, "latency");
  useHostMissesInFlight(M, H, Sets, Recorded, Got);
  if (Got.empty())
    return;
  // The load's note on the file's one-core bound no longer holds.
  if (Recorded.count("memory.sustained_one_core_gbs"))
    llvm::erase_if(Notes, [](const std::string &N) {
      return llvm::StringRef(N).starts_with("memory: one core stays bounded by");
    });
  Notes.push_back("memory: measured on this host now (a few seconds; the predictions use "
                  "these in place of the model's): " + Got);
}

uint64_t perfmodel::driver::memoryRowBytes(const MachineModel &M) {
  double Last = M.Caches.empty() ? 0 : double(M.Caches.back().SizeBytes);
  return uint64_t(std::clamp(4 * Last, 256.0 * (1 << 20), 1024.0 * (1 << 20)));
}

HostMemory perfmodel::driver::hostMemoryNow(const MachineModel &M, unsigned Threads) {
  return measureHostMemory(memoryRowBytes(M), /*Streams=*/true,
                           Threads ? Threads : std::max(1u, std::thread::hardware_concurrency()));
}

bool perfmodel::driver::useRecordedMemory(MachineModel &M,
                                          const std::map<std::string, double> &Figures,
                                          const std::vector<std::string> &Sets,
                                          std::string &Err) {
  MemoryModel &Mem = M.Memory;
  const std::string InFlight =
      M.Caches.empty() ? "" : "caches." + M.Caches.front().Name + ".misses_in_flight";
  // A socket set is every mix's, as useHostMemory has it.
  bool SocketSet = setsGive(Sets, "memory.sustained_gbs");
  for (const auto &[Key, V] : Figures) {
    const SustainedKernel *Kernel = nullptr;
    for (const SustainedKernel &K : sustainedKernels())
      if (Key == std::string("memory.") + K.Key)
        Kernel = &K;
    if (setsGive(Sets, Key) || (Kernel && SocketSet))
      continue;
    if (Kernel)
      Mem.*Kernel->Field = V;
    else if (Key == "memory.sustained_gbs")
      Mem.SustainedGBs = V;
    else if (Key == "memory.sustained_one_core_gbs")
      Mem.OneCoreGBs = V;
    else if (Key == "memory.one_core_writeback_gbs")
      Mem.OneCoreWritebackGBs = V;
    else if (Key == "memory.latency_ns")
      Mem.LatencyNs = V;
    else if (Key == "memory.stride_latency_ns")
      Mem.StrideLatencyNs = V;
    else if (!InFlight.empty() && Key == InFlight)
      M.Caches.front().MissesInFlight = unsigned(std::lround(V));
    else {
      Err = "'" + Key + "' is not a memory figure a row records";
      return false;
    }
  }
  return true;
}

/// "N=4096", "N=1e6", "N=1<<20" -> binding.
bool perfmodel::driver::parseDefine(const std::string &S, std::map<std::string, int64_t> &Out,
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

namespace {

/// Whether PATH exists and is not a regular file (/dev/null, a FIFO): it is
/// written in place, never replaced.
bool isSpecialFile(const std::string &Path) {
  llvm::sys::fs::file_status St;
  return !llvm::sys::fs::status(Path, St) && llvm::sys::fs::exists(St) &&
         !llvm::sys::fs::is_regular_file(St) && !llvm::sys::fs::is_directory(St);
}

/// Why PATH cannot take a report ("" when it can).
std::string outputProblem(const std::string &Path) {
  if (Path.empty() || Path == "-" || isSpecialFile(Path))
    return "";
  if (llvm::sys::fs::is_directory(Path))
    return "-o " + Path + ": is a directory";
  if (llvm::sys::fs::exists(Path)) {
    auto Old = llvm::MemoryBuffer::getFile(Path);
    llvm::StringRef Prev = Old ? (*Old)->getBuffer() : "";
    bool Ours = Prev.starts_with("perfmodel analyze ") ||
                Prev.starts_with("perfmodel sweep ") ||
                Prev.starts_with("perfmodel choose bcsr ") ||
                Prev.starts_with("perfmodel validate --replay") ||
                Prev.take_front(300).contains("<!-- generated by perfmodel ") ||
                (Prev.starts_with("{") &&
                 (Prev.contains("\"schema\": \"perfmodel-analysis\"") ||
                  Prev.contains("\"schema\": \"perfmodel-project\"") ||
                  Prev.contains("\"schema\": \"perfmodel-choose-bcsr\"") ||
                  Prev.contains("\"schema\": \"perfmodel-replay\"") ||
                  (Prev.contains("sarif-2.1.0") &&
                   Prev.contains("\"name\": \"perfmodel\""))));
    if (!Ours)
      return "-o " + Path + ": refusing to overwrite a file that is not a perfmodel report";
  }
  return "";
}

} // namespace

int perfmodel::driver::checkOutput(const std::string &Path) {
  std::string Problem = outputProblem(Path);
  return Problem.empty() ? ExitOk : error(Problem);
}

namespace {

/// Writes what WRITE prints to PATH atomically (a temporary beside it, then
/// rename); a device or FIFO is written in place. An existing file is
/// replaced only if it is a perfmodel report itself (outputProblem), so a
/// mistyped -o never destroys a user's source or data.
int writeOutput(const std::string &Path, ReportWriter Write) {
  if (int RC = checkOutput(Path))
    return RC;
  if (isSpecialFile(Path)) {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    if (!EC)
      Write(Out);
    if (EC || Out.has_error()) {
      Out.clear_error();
      return error("cannot write " + Path);
    }
    return ExitOk;
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
    Write(Out);
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

} // namespace

int perfmodel::driver::emitReport(const std::string &Output, ReportWriter Write) {
  if (Output.empty() || Output == "-") {
    Write(llvm::outs());
    return ExitOk;
  }
  return writeOutput(Output, Write);
}

int perfmodel::driver::emitReport(const std::string &Output, const std::string &Text) {
  return emitReport(Output, [&](llvm::raw_ostream &OS) { OS << Text; });
}


/// --host-l3's bytes; 0 with ERR set when it does not parse.
static uint64_t givenHostL3(const AnalyzeArgs &A, std::string &Err) {
  std::string Why;
  std::optional<uint64_t> Bytes = parseByteSize(A.HostL3, Why);
  if (!Bytes || !*Bytes) {
    Err = "--host-l3 " + A.HostL3 + ": " + (Why.empty() ? "expected a size such as 6MiB" : Why);
    return 0;
  }
  return *Bytes;
}

uint64_t perfmodel::driver::hostKeptL3(const AnalyzeArgs &A, uint64_t L2Bytes, uint64_t L3Bytes,
                                     std::string &Err, L3Streams *Stream) {
  if (Stream)
    *Stream = {};
  if (!A.HostL3.empty())
    return givenHostL3(A, Err);
  L3Streams S = measureL3Streams(L2Bytes, L3Bytes);
  if (Stream)
    *Stream = S;
  return S.KeptBytes;
}

double perfmodel::driver::l3FillsFromStream(const MachineModel &M, double NsPerLine,
                                            unsigned LoadBits) {
  const CacheLevel *L3 = M.sharedLastLevel();
  // Three levels: the L2 whose fills these are is the one before the L3.
  if (!L3 || M.Caches.size() != 3 || NsPerLine <= 0 || M.ClockGHz <= 0 ||
      M.EcmOverlap != OverlapRule::Full)
    return 0;
  double Line = L3->LineBytes ? L3->LineBytes : 64;
  double Cy = NsPerLine * M.ClockGHz;
  // What else could bind a load stream: the L1's fills and the loads.
  const CacheLevel &L1 = M.Caches.front();
  double L1Cy = L1.BytesPerCycleFromNext ? Line / *L1.BytesPerCycleFromNext : 0;
  double LoadBytes =
      std::min(M.Core.LoadBytesPerCycle, std::max(LoadBits, 128u) / 8.0 * M.Core.LoadsPerCycle);
  double CoreCy = LoadBytes > 0 ? Line / LoadBytes : 0;
  if (Cy < 1.33 * std::max(L1Cy, CoreCy))
    return 0;
  return Line / Cy;
}

bool perfmodel::driver::useKeptL3(MachineModel &M, const AnalyzeArgs &A,
                                std::vector<std::string> &Notes, std::string &Err) {
  // A given size is checked before anything else, whichever model this is.
  uint64_t Given = A.HostL3.empty() ? 0 : givenHostL3(A, Err);
  if (!Err.empty())
    return false;
  const CacheLevel *L3 = M.sharedLastLevel();
  const CacheLevel *L2 = L3 ? L3 - 1 : nullptr;
  if (!L2 || !L3) {
    Notes.push_back("--kept-l3: " + M.Name + " has no L2 and L3: its caches are kept");
    return true;
  }
  if (auto Host = detectHostCpu(); !Host || machineForHost(*Host) != M.File) {
    Notes.push_back("--kept-l3: the machine model is not this host's: its L3 is kept");
    return true;
  }
  uint64_t Kept = Given ? Given : measureKeptL3(L2->SizeBytes, L3->SizeBytes);
  uint64_t Full = L3->SizeBytes;
  uint64_t Size = shrinkL3To(M, Kept);
  if (!Size) {
    Notes.push_back("--kept-l3: this host keeps the model's L3 (or it could not be "
                    "measured): the predictions use the model's");
    return true;
  }
  Notes.push_back("--kept-l3: this host keeps about " + formatByteSize(Kept) + " of the " +
                  formatByteSize(Full) + " L3 now (" +
                  (A.HostL3.empty() ? "load streams over growing sets" : "--host-l3") +
                  "): the predictions use an L3 of " + formatByteSize(Size) +
                  ", not the model's");
  return true;
}

uint64_t perfmodel::driver::shrinkL3To(MachineModel &M, uint64_t Kept) {
  if (!M.sharedLastLevel() || !keptL3IsAShare(Kept, M.sharedLastLevel()->SizeBytes))
    return 0;
  CacheLevel &L3 = M.Caches.back();
  L3.SizeBytes = wholeSets(Kept, L3.Ways, L3.LineBytes);
  return L3.SizeBytes;
}

bool perfmodel::driver::parseModels(AnalyzeArgs &A, std::string &Err) {
  if (A.ModelNames.empty())
    return true;
  ModelSelection &S = A.Models;
  S.Roofline = S.Ecm = S.Ppr = false;
  for (const std::string &List : A.ModelNames) {
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

PipelineOptions perfmodel::driver::pipelineOptions(const AnalyzeArgs &A,
                                                 const std::vector<std::string> &CompileArgs,
                                                 const IndexData &Index) {
  PipelineOptions O;
  O.Models = A.Models;
  // The command line checked both words (CLI11's IsMember).
  O.Cache = trafficMethodNamed(A.Cache).value_or(TrafficMethod::Auto);
  O.InCore = !A.NoInCore;
  O.Basis = inCoreBasisNamed(A.InCoreBasis).value_or(InCoreBasis::Compiled);
  O.AssumeAlign = A.AssumeAlign;
  O.BranchMissRate = A.BranchMissRate;
  O.CompileArgs = CompileArgs;
  O.Sim.MaxAccesses = A.SimAccesses;
  O.Sim.Prefetch = A.Prefetch;
  O.Sim.Index = &Index;
  return O;
}

namespace {

/// The front end inside the in-core model's compile of the file (one parse
/// for the loops and the machine code), where that compile runs in this
/// process for this host's architecture (the front end parses for the
/// host) and the flags say what `#pragma omp` means (the front end's own
/// parse adds -fopenmp); nullopt otherwise, or where the compile failed (the
/// front end then reports the file's errors as it does).
std::optional<FrontendResult> frontendInCompile(const FrontendOptions &FO,
                                                const InCoreOptions &CompileFor) {
  if (llvm::Triple(CompileFor.Triple).getArch() !=
      llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch())
    return std::nullopt;
  FrontendRun Run(FO);
  if (!Run.ready() || Run.addsOpenMP())
    return std::nullopt;
  std::string Diagnostics;
  std::optional<bool> Ok =
      compileWithFrontEnd(FO.File, Run.result().CompileArgs, CompileFor,
                          FrontendRun::quietFlags(), [&] { return Run.consumer(); }, Diagnostics);
  if (!Ok || !*Ok)
    return std::nullopt;
  return Run.finish(true, std::move(Diagnostics));
}

} // namespace

std::optional<FrontendResult> perfmodel::driver::prepareSource(const AnalyzeArgs &A,
                                                             const CompileCommand &CC,
                                                             IndexData &Index, int &RC,
                                                             const InCoreOptions *CompileFor) {
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
  FO.CompileArgs = CC.Args;
  FO.HasCompileArgs = CC.Given;
  FO.CompileCommandsDir = A.CompileCommandsDir;
  FO.ExitFraction = A.ExitFraction;
  for (const std::string &D : A.Defines) {
    std::string Err;
    if (!parseDefine(D, FO.Defines, Err)) {
      RC = error(Err, ExitUsage);
      return std::nullopt;
    }
  }
  std::optional<FrontendResult> InCompile;
  if (CompileFor)
    InCompile = frontendInCompile(FO, *CompileFor);
  FrontendResult FR = InCompile ? std::move(*InCompile) : runFrontend(FO);
  if (!A.Shown.empty())
    for (std::string *Text : {&FR.Diagnostics, &FR.Error})
      for (size_t At; (At = Text->find(A.File)) != std::string::npos;)
        Text->replace(At, A.File.size(), A.Shown);
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


int perfmodel::driver::loadInputs(const AnalyzeArgs &A, const CompileCommand &CC, Inputs &In) {
  In.Measured.MemoryLater = A.HostMemory;
  In.Machine = loadMachine(A.Machine, A.Sets, In.Notes, /*HostClock=*/true, A.HostClockGHz,
                           &In.Measured);
  if (!In.Machine)
    return ExitFailed;
  std::string Err;
  if (A.KeptL3 && !useKeptL3(*In.Machine, A, In.Notes, Err)) {
    error(Err);
    return ExitUsage;
  }
  if (A.HostMemory) {
    std::optional<HostCpu> Host = detectHostCpu();
    if (Host && cpuidMatches(In.Machine->Cpuid, *Host)) {
      std::map<std::string, double> Replaced; // a recording's, not analyze's
      useHostMemory(*In.Machine, hostMemoryNow(*In.Machine), A.Sets, In.Notes, Replaced);
    } else {
      In.Notes.push_back("--host-memory: " + In.Machine->Name +
                         " is not this host's model; its memory figures stand");
    }
  }
  // analyze compiles the file for the in-core model: the front end reads
  // that compile's parse.
  std::optional<InCoreOptions> CompileFor;
  if (!A.NoInCore && A.InCoreBasis == "compiled")
    CompileFor = inCoreOptionsFor(*In.Machine);
  int RC;
  In.FR = prepareSource(A, CC, In.Index, RC, CompileFor ? &*CompileFor : nullptr);
  return In.FR ? 0 : RC;
}

ProgressBar::ProgressBar(size_t Total) : Total(Total), Shown(llvm::errs().is_displayed()) {}

void ProgressBar::clear() {
  if (Shown)
    llvm::errs() << "\r\x1b[K";
  Shown = false;
}

void ProgressBar::update(size_t Done, const std::string &What) {
  if (!Shown)
    return;
  const unsigned Width = 30;
  unsigned Fill = unsigned(Width * std::min(Done, Total) / std::max<size_t>(Total, 1));
  llvm::errs() << "\r[" << std::string(Fill, '#') << std::string(Width - Fill, '.') << "] "
               << Done << "/" << Total << " " << What << "\x1b[K";
  llvm::errs().flush();
}

namespace {
std::vector<std::string> &tempFiles() {
  static std::vector<std::string> Files;
  return Files;
}
void removeTempFiles() {
  for (const std::string &F : tempFiles())
    llvm::sys::fs::remove(F);
}
} // namespace

std::string perfmodel::driver::stdinToTempFile(const std::string &Suffix) {
  std::string Text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  llvm::SmallString<128> Path;
  int FD;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("perfmodel-stdin", Suffix, FD, Path)) {
    error("cannot keep standard input in a temporary file: " + EC.message());
    return "";
  }
  {
    llvm::raw_fd_ostream Out(FD, /*shouldClose=*/true);
    Out << Text;
  }
  if (tempFiles().empty())
    std::atexit(removeTempFiles);
  tempFiles().push_back(std::string(Path));
  return std::string(Path);
}

/// "N=1e3:1e8:x2" (geometric) or "N=1000:64000:+1000" (arithmetic).
std::optional<SweepSpec> perfmodel::driver::parseSweep(const std::string &S, std::string &Err) {
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

bool perfmodel::driver::splitSizeRange(const std::vector<std::string> &Defines,
                                     std::optional<SweepSpec> &Spec,
                                     std::vector<std::string> &Fixed, std::string &Err) {
  for (const std::string &D : Defines) {
    if (D.find(':') == std::string::npos) {
      Fixed.push_back(D);
      continue;
    }
    if (Spec) {
      Err = "one size may run over a range (-D " + D + " is a second one)";
      return false;
    }
    Spec = parseSweep(D, Err);
    if (!Spec)
      return false;
  }
  return true;
}

std::string perfmodel::driver::stdinToSourceFile(const CompileCommand &CC) {
  const std::vector<std::string> &Args = CC.Args;
  bool Cxx = false;
  for (size_t I = 0; I < Args.size(); ++I)
    Cxx |= Args[I] == "-xc++" || (Args[I] == "-x" && I + 1 < Args.size() && Args[I + 1] == "c++");
  return stdinToTempFile(Cxx ? "cpp" : "c");
}

int perfmodel::driver::checkRunsOnHost(const MachineModel &M, const std::string &What,
                                     std::vector<std::string> &Notes) {
  if (llvm::Triple(M.Triple).getArch() !=
      llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch())
    return error(What + " on this host; the machine model " + M.Name + " is for " + M.Triple);
  if (auto Host = detectHostCpu(); Host && machineForHost(*Host) != M.File)
    Notes.push_back("the machine model is not this host's (CPUID " + Host->Brand +
                    "): the measurements are of this host, the predictions of " + M.Name);
  return ExitOk;
}

std::vector<std::string> perfmodel::driver::harnessFlags(const MachineModel &M,
                                                       const std::vector<std::string> &Cmd,
                                                       const std::string &File) {
  std::vector<std::string> Flags = {llvm::Triple(M.Triple).isX86() ? "-march=" + M.Cpu
                                                                   : "-mcpu=" + M.Cpu};
  InCoreOptions IO = inCoreOptionsFor(M);
  Flags.insert(Flags.end(), IO.CompileFlags.begin(), IO.CompileFlags.end());
  std::vector<std::string> User = codeFlags(Cmd, File);
  Flags.insert(Flags.end(), User.begin(), User.end());
  return Flags;
}

//===- ValidateCommand.cpp - perfmodel validate ---------------------------===//
#include "Common.h"
#include "Recording.h"

#include "perfmodel/InCore.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Report.h"
#include "perfmodel/Validate.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

/// The size parameters loop K depends on (bounds and subscripts).
std::set<std::string> sizeParams(const LoopKernel &K, const KernelIR &IR) {
  std::set<std::string> S;
  // A quotient (N/2) follows its numerator's parameters: those are varied.
  std::function<void(const Poly &)> Add = [&](const Poly &P) {
    for (const std::string &X : P.symbols())
      if (auto It = IR.Parameters.find(X); It != IR.Parameters.end()) {
        if (It->second.From == Parameter::Origin::Derived && It->second.Numerator)
          Add(*It->second.Numerator);
        else
          S.insert(X);
      }
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

/// Operations per cycle of one of the harness's probe loops (LOOP: eight
/// independent operations, a counter and its branch) by the in-core model of
/// O; 0 where it is not x86.
double probeOpsPerCycle(const std::vector<uint8_t> &Loop, const InCoreOptions &O) {
  if (O.Triple.find("x86_64") == std::string::npos)
    return 0;
  InCoreResult R = analyzeBlockBytes(Loop, O);
  return R.Ok && R.Cycles > 0 ? 8 / R.Cycles : 0;
}

/// Integer adds: add rax/rcx/rdx/rsi, 1 twice; sub rdi, 1; jnz back.
double probeAddsPerCycle(const InCoreOptions &O) {
  std::vector<uint8_t> Loop;
  for (int Round = 0; Round < 2; ++Round)
    for (uint8_t Reg : {0xc0, 0xc1, 0xc2, 0xc6})
      Loop.insert(Loop.end(), {0x48, 0x83, Reg, 0x01});
  Loop.insert(Loop.end(), {0x48, 0x83, 0xef, 0x01, 0x75, 0xda});
  return probeOpsPerCycle(Loop, O);
}

/// FP adds: addpd xmm0-xmm7, xmm8; sub rdi, 1; jnz back.
double probeFpAddsPerCycle(const InCoreOptions &O) {
  std::vector<uint8_t> Loop;
  for (uint8_t ModRM : {0xc0, 0xc8, 0xd0, 0xd8, 0xe0, 0xe8, 0xf0, 0xf8})
    Loop.insert(Loop.end(), {0x66, 0x41, 0x0f, 0x58, ModRM});
  Loop.insert(Loop.end(), {0x48, 0x83, 0xef, 0x01, 0x75, 0xd2});
  return probeOpsPerCycle(Loop, O);
}

/// The run's part of a recording: what predicts its rows again off this
/// host (the source as timed, its flags with -march=native resolved, the
/// machine and what was measured in place of its figures).
RecordedRun recordedRun(const AnalyzeArgs &A, const std::vector<std::string> &Cmd,
                        const MachineModel &M, const Inputs &In, uint64_t KeptL3) {
  RecordedRun R;
  R.File = A.Shown.empty() ? A.File : A.Shown;
  if (auto Buf = llvm::MemoryBuffer::getFile(A.File))
    R.Source = (*Buf)->getBuffer().str();
  R.Flags = resolveNativeFlags(codeFlags(Cmd, A.File), thisHost().Cpu);
  R.Index = A.Index;
  R.Sets = A.Sets;
  R.Cache = A.Cache;
  R.InCoreBasis = A.InCoreBasis;
  R.NoInCore = A.NoInCore;
  R.Machine = A.Machine;
  if (R.Machine.empty()) {
    std::string Note;
    R.Machine = llvm::sys::path::stem(defaultMachine(Note)).str();
  }
  R.ClockGHz = M.ClockGHz;
  if (In.Measured.Memory) {
    if (M.Memory.OneCoreGBs)
      R.Measured["memory.sustained_one_core_gbs"] = *M.Memory.OneCoreGBs;
    if (M.Memory.LatencyNs)
      R.Measured["memory.latency_ns"] = *M.Memory.LatencyNs;
    if (!M.Caches.empty() && M.Caches.front().MissesInFlight)
      R.Measured["caches." + M.Caches.front().Name + ".misses_in_flight"] =
          *M.Caches.front().MissesInFlight;
  }
  R.KeptL3 = KeptL3;
  R.Cores = std::max(A.Models.Cores, 1u);
  return R;
}

/// One timed size of loop K, with what each model predicted for it.
RecordedRow recordedRow(const LoopKernel &K, const std::string &Level, const KernelIR &IR,
                        const LoopReport &LR, double Iters, double GHz, double Cy,
                        const Timing &T) {
  RecordedRow R;
  R.Function = K.Function;
  R.Line = K.Loc.Line;
  R.Column = K.Loc.Column;
  R.Level = Level;
  for (const auto &[Name, P] : IR.Parameters)
    if (P.Value)
      R.Sizes[Name] = *P.Value;
  R.Iterations = Iters;
  R.ClockGHz = GHz;
  R.MedianCy = Cy;
  R.Quiet = T.Reference > 0 ? T.Kept : 0;
  R.Samples = T.Total;
  for (const Prediction *P : LR.predictions())
    if (const LevelPrediction *At = P->Ok ? P->atDataLevel() : nullptr)
      R.Predicted[P->name()] = At->CyclesPerIt;
  if (const Prediction *H = LR.headline())
    R.Headline = H->name();
  return R;
}

struct ValidateArgs {
  std::string Size;     ///< the parameter varied per level
  std::vector<std::string> Levels;
  unsigned Reps = 5;
  /// Harness processes per size: each gets its own physical pages, which
  /// move memory-bound timings on a VM; the median of their medians.
  unsigned Processes = 1;
  double MaxCallSeconds = 2; ///< sizes whose one call is predicted slower are skipped
  /// Further machine models predicted against the same timings (B, C, ...).
  std::vector<std::string> AlsoMachines;
  /// Predict with the model's L3 where this host keeps less of it.
  bool ModelL3 = false;
  /// --record FILE: the timed rows kept for later replays.
  std::string Record;
};

/// A further machine predicted beside the first on the same measurements.
struct AlsoMachine {
  std::string Label; ///< "B", "C", ...
  MachineModel M;
  InCoreOptions IO;
  std::vector<InCoreResult> InCore;
  bool HostClock = false; ///< a model of this host at its measured clock
};

/// One run of validate: the file, its machines and the L3 this host keeps
/// (setUp), then each loop timed at one size per level beside its
/// predictions (validateLoop, timeLevel), then what the harness runs showed
/// of the core, the FP pipes, the caches and the memory bus (finish).
class ValidateRun {
public:
  ValidateRun(AnalyzeArgs A, const ValidateArgs &V) : A(std::move(A)), V(V) {}
  int run(const CompileCommand &CC);

private:
  /// What one loop's rows share: its harness and how its size is set.
  struct Loop {
    const LoopKernel *K = nullptr;
    IndexData LoopIndex;
    std::set<std::string> IndexArrays, SizeHolders;
    Harness H;
    std::string Size;
    bool CompiledIn = false; ///< the size is a macro or a global: -D per size
    llvm::SmallString<128> Exe;
    std::string Err;
    std::vector<std::vector<std::string>> Rows;
    std::vector<std::string> Head, Models;
  };
  enum class Next { Level, StopLoop };

  int setUp(const CompileCommand &CC);
  int loadAlsoMachines();
  int keepL3();
  void validateLoop(size_t LI);
  bool prepareLoop(Loop &Lp);
  bool build(Loop &Lp, std::vector<std::string> F);
  std::vector<std::pair<std::string, double>> targets() const;
  void sizeTo(Loop &Lp, double Target);
  Next timeLevel(Loop &Lp, const std::string &Lv, double Target);
  std::optional<Timing> timeHarness(Loop &Lp, std::vector<std::string> Args, double CallSeconds,
                                    bool MemRow);
  int finish();
  void skip(const std::string &Why);

  double addsReference() const {
    return std::max(ModelReference, References.empty() ? 0 : median(References));
  }
  double fpReference() const {
    return FpReferences.empty() ? 0.0 : std::max(ModelFpReference, median(FpReferences));
  }
  double cacheReference() const {
    return CacheReferences.empty() ? 0.0 : median(CacheReferences);
  }

  AnalyzeArgs A;
  const ValidateArgs &V;
  Inputs In;
  std::vector<std::string> Cmd; ///< the file's own compile command
  MachineModel *M = nullptr;
  KernelIR *IR = nullptr;
  bool HostClock = false;
  std::vector<std::string> Notes;
  unsigned Cores = 1;
  InCoreOptions IO;
  /// What an unshared core retires of the harness's probe (see Timing), by
  /// the host's port model: the bar a sample's probe must reach to count.
  /// The harness runs' own references where they reach higher (a model that
  /// gives the core too few ALUs would otherwise pass contended samples).
  double ModelReference = 0, ModelFpReference = 0;
  std::vector<InCoreResult> InCore;
  std::vector<std::string> Flags;
  std::vector<AlsoMachine> Also;
  llvm::raw_ostream &OS = llvm::outs();
  double L3Target = 0;
  uint64_t KeptL3 = 0; ///< what the predictions' L3 was made (0: the model's)
  RecordedRun Rec;
  std::map<std::string, unsigned> LoopsPerFunction;
  /// Adds per cycle of an unshared core: each harness process's own
  /// reference (see Timing), the run's the median of them. GB/s of the
  /// memory probe on a quiet bus (memory-sized rows only), FP adds and the
  /// L2 read: the median of the processes' own references, as for the adds.
  std::vector<double> References, MemReferences, FpReferences, CacheReferences;
  unsigned Validated = 0, Id = 0;
  std::string LastError;
  std::unique_ptr<ProgressBar> Bar;
  size_t Step = 0;
};

int ValidateRun::run(const CompileCommand &CC) {
  if (int RC = setUp(CC); RC >= 0)
    return RC;
  for (size_t LI = 0; LI < IR->Loops.size(); ++LI)
    validateLoop(LI);
  Bar->clear();
  return finish();
}

/// The file and its machines loaded and checked, their in-core costs, the
/// header and the notes: -1 to go on, else the exit code.
int ValidateRun::setUp(const CompileCommand &CC) {
  // The L3 this host keeps is measured once below, for the sizes and models.
  A.KeptL3 = false;
  // Models of this host run at its measured clock: one measurement for all.
  if (!V.AlsoMachines.empty() && !A.HostClockGHz)
    if (double GHz = measureClock(0.002, 7).Max; GHz > 0)
      A.HostClockGHz = GHz;
  if (int RC = loadInputs(A, CC, In))
    return RC;
  Cmd = In.FR->CompileArgs;
  M = &*In.Machine;
  HostClock = In.Measured.Clock;
  IR = &In.FR->IR;
  Notes = In.Notes;
  if (int RC = checkRunsOnHost(*M, "validate runs the kernel", Notes))
    return RC;
  // The harness allocates every array with aligned_alloc(64): the prediction
  // is of those arrays, not of the allocator's 16 bytes.
  Notes.push_back("arrays: the timing harness allocates them 64-byte aligned, and the "
                  "predictions assume the same");
  A.AssumeAlign = 64;
  for (const std::string &Lv : V.Levels)
    if (Lv != "MEM" && !M->cache(Lv)) {
      std::string Known;
      for (const CacheLevel &C : M->Caches)
        Known += C.Name + ", ";
      return error("--levels " + Lv + ": " + M->Name + " has no such level (" + Known + "MEM)",
                   ExitUsage);
    }
  if (IR->Loops.empty())
    return error(A.File + " has no loops to validate");
  // On several cores the kernel runs as OpenMP threads, one a core.
  Cores = std::max(A.Models.Cores, 1u);
  if (Cores > 1 && llvm::none_of(Cmd, [](const std::string &F) {
        return llvm::StringRef(F).starts_with("-fopenmp");
      }))
    return error("--cores " + std::to_string(Cores) + " times the kernel on " +
                     std::to_string(Cores) + " OpenMP threads: compile it with -fopenmp "
                     "(after --)",
                 ExitUsage);
  IO = inCoreOptionsFor(*M, pipelineOptions(A, Cmd, In.Index));
  ModelReference = HostClock && !A.NoInCore ? probeAddsPerCycle(IO) : 0;
  ModelFpReference = HostClock && !A.NoInCore ? probeFpAddsPerCycle(IO) : 0;
  if (!A.NoInCore)
    InCore = analyzeKernelLoops(*IR, Cmd, IO);
  Flags = harnessFlags(*M, Cmd, A.File);
  if (int RC = loadAlsoMachines(); RC >= 0)
    return RC;

  OS << "perfmodel validate " << A.File << "\nmachine: " << M->Name << ", "
     << formatNumber(M->ClockGHz)
     << (HostClock ? " GHz at the start (each row: the cycles the core ran, from an add chain "
                     "timed beside every sample, and the predictions at that clock, column GHz)\n"
                   : " GHz (measured seconds x this clock = cycles)\n");
  for (const AlsoMachine &AM : Also)
    OS << "machine " << AM.Label << ": " << AM.M.Name << ", " << formatNumber(AM.M.ClockGHz)
       << " GHz (its columns: cycles at this clock; errors of its time against the same "
          "measurement)\n";
  if (int RC = keepL3(); RC >= 0)
    return RC;
  for (const std::string &N : Notes)
    OS << "note: " << N << "\n";
  Rec = recordedRun(A, Cmd, *M, In, KeptL3);
  for (const LoopKernel &K : IR->Loops)
    ++LoopsPerFunction[K.Function];
  Bar = std::make_unique<ProgressBar>(IR->Loops.size() * std::max<size_t>(1, V.Levels.size()));
  return -1;
}

/// The further machines predicted beside the first (--also-machine): -1 to go
/// on, else the exit code.
int ValidateRun::loadAlsoMachines() {
  for (const std::string &Name : V.AlsoMachines) {
    HostMeasured Measured;
    std::optional<MachineModel> X =
        loadMachine(Name, {}, Notes, /*HostClock=*/true, A.HostClockGHz, &Measured);
    if (!X)
      return ExitFailed;
    AlsoMachine AM;
    AM.Label = std::string(1, char('B' + Also.size()));
    AM.M = std::move(*X);
    AM.HostClock = Measured.Clock;
    AM.IO = inCoreOptionsFor(AM.M, pipelineOptions(A, Cmd, In.Index));
    if (!A.NoInCore)
      AM.InCore = analyzeKernelLoops(*IR, Cmd, AM.IO);
    Also.push_back(std::move(AM));
  }
  return -1;
}

/// What this host keeps of the model's L3 now (a VM's share of a shared L3
/// can be a fraction of the model's size, and moves with its neighbours):
/// the L3 working sets go to half of that, so that "data in L3" is what is
/// timed, and the predictions use it, as they use the host's measured
/// clock: the timed runs see that L3 (every model's, --also-machine too).
/// -1 to go on, else the exit code.
int ValidateRun::keepL3() {
  bool L3Row = llvm::is_contained(V.Levels, std::string("L3"));
  const CacheLevel *L3 = M->cache("L3"), *L2 = M->cache("L2");
  if (!L3 || !L2 || (!L3Row && V.ModelL3))
    return -1;
  std::string Err;
  uint64_t Full = L3->SizeBytes;
  uint64_t Kept = hostKeptL3(A, L2->SizeBytes, Full, Err);
  if (!Err.empty())
    return error(Err, ExitUsage);
  if (!keptL3IsAShare(Kept, Full))
    return -1;
  // Shown in whole sets, as the predictions' L3 is.
  uint64_t Shown = wholeSets(Kept, L3->Ways, L3->LineBytes);
  // Half of it, and clearly beyond the private L2s of the cores that
  // run the loop (1.5 x; a VM keeps little L3 beside 2 x 1 MiB of L2).
  if (L3Row)
    L3Target = std::min(0.8 * double(Kept),
                        std::max(0.5 * double(Kept), 1.5 * levelCapacity(*L2, Cores)));
  std::string Use = "the predictions use the model's L3 (--model-l3)";
  if (!V.ModelL3) {
    KeptL3 = Kept;
    Use = "the predictions use an L3 of " + formatByteSize(shrinkL3To(*M, Kept)) +
          " (--model-l3: the model's)";
    for (AlsoMachine &AM : Also)
      shrinkL3To(AM.M, Kept);
  }
  Notes.push_back("this host keeps about " + formatByteSize(Shown) +
                  " of the " + formatByteSize(Full) + " L3 now (" +
                  (A.HostL3.empty() ? "pointer chases over growing sets" : "--host-l3") +
                  "): the L3 working sets are half of that, not of the L3; " + Use);
  return -1;
}

void ValidateRun::skip(const std::string &Why) {
  OS << "    not validated: " << Why << "\n";
  LastError = Why;
}

/// Loop LI timed at a size per level, printed as a table of its rows.
void ValidateRun::validateLoop(size_t LI) {
  Loop Lp;
  Lp.K = &IR->Loops[LI];
  const LoopKernel &K = *Lp.K;
  OS << "\n[" << ++Id << "] " << K.Loc.str() << "  in " << K.Function << "\n";
  if (!prepareLoop(Lp))
    return;
  Lp.Head = {Lp.Size.empty() ? "size" : Lp.Size, "working set", "data in",
             "measured cy/it", "GFLOP/s", "spread", "GHz", "quiet"};
  for (const auto &[Lv, Target] : targets())
    if (timeLevel(Lp, Lv, Target) == Next::StopLoop)
      break;
  llvm::sys::fs::remove(Lp.Exe);
  if (Lp.Rows.empty())
    return;
  Lp.Rows.insert(Lp.Rows.begin(), Lp.Head);
  std::vector<bool> Right(Lp.Head.size(), true);
  Right[2] = false;
  printTextTable(OS, Lp.Rows, 4, Right);
  ++Validated;
}

/// Whether the loop can be timed alone, and its harness: built here unless
/// its size is compiled in (then per size).
bool ValidateRun::prepareLoop(Loop &Lp) {
  const LoopKernel &K = *Lp.K;
  if (!K.Modelled) {
    skip("not modelled: " + K.Reason);
    return false;
  }
  if (auto Exit = llvm::find_if(K.Nest, [](const LoopLevel &L) { return !L.Exit.empty(); });
      Exit != K.Nest.end()) {
    skip("the loop can exit early (" + Exit->Exit +
         "): how many iterations a timed call runs depends on the harness's data");
    return false;
  }
  if (LoopsPerFunction[K.Function] > 1) {
    skip("'" + K.Function + "' holds " + std::to_string(LoopsPerFunction[K.Function]) +
         " innermost loops; timing the function would mix them");
    return false;
  }
  // Integer arrays given with --index hold that data in the harness too,
  // and integer pointers whose pointee is a size (i < *n) one element that
  // holds the size.
  Lp.LoopIndex = indexDataOf(In.Index, *IR, K.Function);
  for (const FunctionParam &P : IR->Functions.at(K.Function).Params) {
    if (P.What != FunctionParam::Kind::Pointer || P.PointeeIsFloating)
      continue;
    if (IR->Parameters.count("*" + P.Name))
      Lp.SizeHolders.insert(P.Name);
    if (Lp.LoopIndex.Specs.count(P.Name) || Lp.SizeHolders.count(P.Name))
      Lp.IndexArrays.insert(P.Name);
  }
  Lp.H = makeHarness(*IR, K, V.Reps, 0.005, Lp.IndexArrays);
  if (!Lp.H.Ok) {
    skip(Lp.H.Why);
    return false;
  }
  std::set<std::string> Params = sizeParams(K, *IR);
  Lp.Size = V.Size;
  if (Lp.Size.empty() && Params.size() == 1)
    Lp.Size = *Params.begin();
  if (Lp.Size.empty() && Params.size() > 1) {
    std::string L;
    for (const std::string &P : Params)
      L += (L.empty() ? "" : ", ") + P;
    skip("several size parameters (" + L + "): name the one to vary with --size");
    return false;
  }
  // A size that is not an argument of the function (a macro, a global)
  // is compiled in: the harness is rebuilt per size with -DNAME=value.
  if (!Lp.Size.empty()) {
    const FunctionInfo &FI = IR->Functions.at(K.Function);
    Lp.CompiledIn = std::none_of(FI.Params.begin(), FI.Params.end(),
                                 [&](const FunctionParam &P) { return P.Name == Lp.Size; }) &&
                    !(Lp.Size[0] == '*' && Lp.SizeHolders.count(Lp.Size.substr(1)));
  }
  if (Lp.CompiledIn)
    OS << "    " << Lp.Size << " is not an argument of " << K.Function
       << ": the harness is rebuilt per size with -D" << Lp.Size << "=...\n";
  if (llvm::sys::fs::createTemporaryFile("perfmodel-harness", "exe", Lp.Exe)) {
    skip("cannot create a temporary file");
    return false;
  }
  if (!Lp.CompiledIn && !build(Lp, Flags)) {
    llvm::sys::fs::remove(Lp.Exe);
    skip("cannot build the timing harness: " + Lp.Err);
    return false;
  }
  return true;
}

/// The harness built with flags F (and the size, when compiled in). A size
/// the file #defines itself (no #ifndef around it) keeps its value whatever
/// -D says: such a build fails rather than time one size and divide by
/// another.
bool ValidateRun::build(Loop &Lp, std::vector<std::string> F) {
  std::string Source = Lp.H.Source;
  if (Lp.CompiledIn) {
    std::string Value = std::to_string(*IR->Parameters[Lp.Size].Value);
    F.push_back("-D" + Lp.Size + "=" + Value);
    // After the file's #include: its own #define would have replaced -D.
    Source += std::string(IR->Cxx ? "static_assert" : "_Static_assert") + "((" + Lp.Size +
              ") == " + Value + ", \"perfmodel-redefined\");\n";
  }
  if (buildHarness(Source, IR->Cxx, F, std::string(Lp.Exe), Lp.Err))
    return true;
  if (Lp.CompiledIn && Lp.Err.find("perfmodel-redefined") != std::string::npos)
    Lp.Err = "the file defines " + Lp.Size + " itself, so -D" + Lp.Size +
             " cannot set its size (put the #define inside #ifndef " + Lp.Size + ")";
  return false;
}

/// One size per level: the working set half the capacity of the cores'
/// instances (memory: well beyond the last level).
std::vector<std::pair<std::string, double>> ValidateRun::targets() const {
  std::vector<std::pair<std::string, double>> Targets;
  for (const std::string &Lv : V.Levels) {
    if (Lv == "MEM") {
      double Last = M->Caches.empty() ? 0 : double(M->Caches.back().SizeBytes);
      Targets.push_back({Lv, std::clamp(4 * Last, 256.0 * (1 << 20), 1024.0 * (1 << 20))});
    } else if (const CacheLevel *C = M->cache(Lv)) {
      Targets.push_back(
          {Lv, Lv == "L3" && L3Target > 0 ? L3Target : 0.5 * levelCapacity(*C, Cores)});
    }
  }
  return Targets;
}

/// The size parameter bisected to the largest value whose working set is
/// below TARGET (index data follows the size, uniform:0:n: its range, not
/// drawn).
void ValidateRun::sizeTo(Loop &Lp, double Target) {
  Parameter &P = IR->Parameters[Lp.Size];
  auto WS = [&](int64_t X) {
    P.Value = X;
    P.From = Parameter::Origin::CommandLine;
    IndexData Ranges;
    Ranges.Specs = Lp.LoopIndex.Specs;
    Ranges.Ranges = Lp.LoopIndex.Ranges; // the files' (they do not change)
    std::string Ignored;
    if (!Ranges.Specs.empty() && !reloadIndexData(Ranges, *IR, Ignored, false))
      return 0.0;
    return workingSetBytes(*Lp.K, *IR, &Ranges).value_or(0);
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

/// The row of level LV: sized, predicted, timed and compared, each model
/// and the headline, for every machine; recorded.
ValidateRun::Next ValidateRun::timeLevel(Loop &Lp, const std::string &Lv, double Target) {
  const LoopKernel &K = *Lp.K;
  const std::string &Size = Lp.Size;
  Bar->update(++Step, K.Function + " " + Lv);
  if (!Size.empty())
    sizeTo(Lp, Target);
  std::string Why;
  if (!Lp.LoopIndex.Specs.empty() && !reloadIndexData(Lp.LoopIndex, *IR, Why)) {
    skip(Why);
    return Next::StopLoop;
  }
  for (const std::string &H : Lp.SizeHolders)
    Lp.LoopIndex.Arrays[H] = {IR->bindings().at("*" + H)};
  std::map<std::string, size_t> Counts;
  for (const auto &[Name, Values] : Lp.LoopIndex.Arrays)
    Counts[Name] = Values.size();
  auto Args = harnessArgs(*IR, K, Why, &Lp.LoopIndex.Ranges, &Counts);
  auto Iters = nestIterations(K, *IR, &Lp.LoopIndex.Arrays);
  if (!Args || !Iters || *Iters <= 0) {
    skip(Args ? "the nest's iteration count is unknown" : Why);
    return Next::StopLoop;
  }
  if (Lp.CompiledIn && !build(Lp, Flags)) {
    skip("cannot build the timing harness: " + Lp.Err);
    return Next::StopLoop;
  }
  // The prediction costs the machine code of the same size.
  std::vector<std::string> SizedCmd = Cmd;
  if (Lp.CompiledIn)
    SizedCmd.push_back("-D" + Size + "=" + std::to_string(*IR->Parameters[Size].Value));
  auto Predict = [&](AnalysisReport &Out, const MachineModel &Mm, const InCoreOptions &Opt,
                     const std::vector<InCoreResult> &Unsized) {
    predictTimedLoop(Out, A, *IR, K, Lp.LoopIndex, Cmd,
                     Lp.CompiledIn ? SizedCmd : std::vector<std::string>(), Mm, Opt, Unsized);
  };
  AnalysisReport R;
  Predict(R, *M, IO, InCore);
  // Skip sizes whose calls would take too long (dgemm in memory): the
  // slowest prediction estimates one call.
  double SlowestCy = 0;
  for (const Prediction *P : R.Loops.front().predictions())
    if (const LevelPrediction *At = P->Ok ? P->atDataLevel() : nullptr)
      SlowestCy = std::max(SlowestCy, At->CyclesPerIt);
  double CallSeconds = SlowestCy * *Iters / (M->ClockGHz * 1e9);
  if (CallSeconds > V.MaxCallSeconds) {
    OS << "    " << Lv << ": skipped, one call would take about " << formatNumber(CallSeconds)
       << " s (more than --max-call " << formatNumber(V.MaxCallSeconds) << " s)\n";
    return Next::Level;
  }
  std::optional<Timing> T = timeHarness(Lp, *Args, CallSeconds, Lv == "MEM");
  if (!T) {
    skip(Lp.Err);
    return Next::StopLoop;
  }
  // The host's model: the cycles the core counted (each sample at the
  // clock an add chain beside it gives) and the predictions at the
  // clock of those samples; another model: seconds at its clock.
  double RowGHz = M->ClockGHz, Cy = T->Median * M->ClockGHz * 1e9 / *Iters;
  double Spread = (T->Max - T->Min) / T->Median;
  if (HostClock && T->ClockGHz > 0) {
    RowGHz = std::round(T->ClockGHz * 100) / 100;
    Cy = T->MedianCycles / *Iters;
    Spread = (T->MaxCycles - T->MinCycles) / (Cy * *Iters);
    if (RowGHz != M->ClockGHz) {
      MachineModel AtRow = *M;
      AtRow.ClockGHz = RowGHz;
      R = AnalysisReport();
      Predict(R, AtRow, IO, InCore);
    }
  }
  const LoopReport &LR = R.Loops.front();
  double Flops = K.flops();
  std::vector<std::string> Row = {
      Size.empty() ? "-" : std::to_string(*IR->Parameters[Size].Value),
      LR.WorkingSetBytes ? formatBytes(*LR.WorkingSetBytes) : "?", "", formatNumber(Cy),
      Flops > 0 ? formatNumber(Flops / Cy * RowGHz) : "-",
      formatNumber(100 * Spread, 2) + "%", formatNumber(RowGHz),
      T->Reference > 0 ? std::to_string(T->Kept) + "/" + std::to_string(T->Total) : "-"};
  if (Lp.Models.empty()) {
    for (const Prediction *P : LR.predictions()) {
      Lp.Models.push_back(P->name());
      Lp.Head.push_back(P->name() + " cy/it");
      Lp.Head.push_back("error");
    }
    Lp.Head.insert(Lp.Head.end(), {"headline cy/it", "error"});
    for (const AlsoMachine &AM : Also) {
      for (const std::string &Mo : Lp.Models)
        Lp.Head.insert(Lp.Head.end(), {AM.Label + ":" + Mo + " cy/it", "error"});
      Lp.Head.insert(Lp.Head.end(), {AM.Label + ":headline cy/it", "error"});
    }
  }
  // Each model, then the headline (the rule of docs/models.md) again;
  // errors compare times, so a machine at another clock compares fairly.
  auto Columns = [&](const LoopReport &L, double Clock) {
    std::vector<const Prediction *> Qs = L.predictions();
    Qs.push_back(L.headline());
    for (const Prediction *P : Qs) {
      const LevelPrediction *At = P && P->Ok ? P->atDataLevel() : nullptr;
      if (Row[2].empty() && P && P->Ok)
        Row[2] = P->DataLevel;
      if (!At || At->CyclesPerIt <= 0) {
        Row.insert(Row.end(), {"-", "-"});
        continue;
      }
      double E = (At->CyclesPerIt / Clock - Cy / RowGHz) / (Cy / RowGHz) * 100;
      Row.push_back(formatNumber(At->CyclesPerIt));
      Row.push_back((E >= 0 ? "+" : "") + formatNumber(E, 2) + "%");
    }
  };
  Columns(LR, RowGHz);
  {
    // The extremes in the row's units, as the median.
    double PerCy = Cy / (HostClock && T->ClockGHz > 0 ? T->MedianCycles : T->Median);
    double Lo = HostClock && T->ClockGHz > 0 ? T->MinCycles : T->Min;
    double Hi = HostClock && T->ClockGHz > 0 ? T->MaxCycles : T->Max;
    RecordedRow RR = recordedRow(K, Lv, *IR, LR, *Iters, RowGHz, Cy, *T);
    RR.MinCy = Lo * PerCy;
    RR.MaxCy = Hi * PerCy;
    if (Lp.CompiledIn)
      RR.Defines.push_back("-D" + Size + "=" + std::to_string(*IR->Parameters[Size].Value));
    Rec.Rows.push_back(std::move(RR));
  }
  // The further machines at the same size (their own in-core costs); models
  // of this host run at the row's clock too.
  std::vector<AnalysisReport> AlsoR(Also.size());
  for (size_t X = 0; X < Also.size(); ++X) {
    MachineModel AtRow = Also[X].M;
    if (Also[X].HostClock)
      AtRow.ClockGHz = RowGHz;
    Predict(AlsoR[X], AtRow, Also[X].IO, Also[X].InCore);
    Columns(AlsoR[X].Loops.front(), AtRow.ClockGHz);
  }
  Lp.Rows.push_back(Row);
  return Next::Level;
}

/// The harness run with ARGS (and the index data the simulator replayed,
/// one file per array) in processes, combined; nullopt with Lp.Err.
std::optional<Timing> ValidateRun::timeHarness(Loop &Lp, std::vector<std::string> Args,
                                               double CallSeconds, bool MemRow) {
  std::vector<std::string> IndexFiles;
  auto RemoveIndexFiles = [&] {
    for (const std::string &F : IndexFiles)
      llvm::sys::fs::remove(F);
  };
  for (const FunctionParam &P : IR->Functions.at(Lp.K->Function).Params) {
    if (!Lp.IndexArrays.count(P.Name))
      continue;
    llvm::SmallString<128> Path;
    int FD;
    if (llvm::sys::fs::createTemporaryFile("perfmodel-index", "bin", FD, Path)) {
      Lp.Err = "cannot create a temporary file";
      break;
    }
    llvm::raw_fd_ostream F(FD, /*shouldClose=*/true);
    const std::vector<int64_t> &Values = Lp.LoopIndex.Arrays[P.Name];
    F.write(reinterpret_cast<const char *>(Values.data()), Values.size() * sizeof(int64_t));
    IndexFiles.push_back(std::string(Path));
    Args.push_back(std::string(Path));
  }
  if (IndexFiles.size() != Lp.IndexArrays.size()) {
    RemoveIndexFiles();
    return std::nullopt;
  }
  // Each process's samples against the run's reference: the median of
  // the processes' own references so far (a process all of whose
  // samples shared the core does not lower the bar for the rest).
  // While fewer than V.Reps samples had the core to themselves, up to
  // three times the processes asked for.
  std::vector<Timing> Runs;
  unsigned Quiet = 0;
  // Memory rows also need a quiet memory bus: neighbours streaming on it
  // move such rows by 30-40 % from one run to the next.
  auto MemReference = [&] {
    return MemRow && !MemReferences.empty() ? median(MemReferences) : 0.0;
  };
  // And the FP pipes unshared (a neighbour's FP work slows FP-bound rows
  // and leaves the integer adds alone), and the load pipes, L1 and L2 (a
  // neighbour's loads and misses slow cache-bound rows and leave both
  // kinds of adds alone).
  auto Refs = [&] {
    return QuietReferences{addsReference(), MemReference(), fpReference(), cacheReference()};
  };
  for (unsigned P = 0; P < V.Processes || (P < 3 * V.Processes && Quiet < V.Reps); ++P) {
    auto One = runHarness(std::string(Lp.Exe), Args, Lp.Err,
                          unsigned(std::max(60.0, 40 * CallSeconds * V.Reps)), MemRow,
                          Cores > 1 ? Cores : 0);
    if (!One) {
      Runs.clear();
      break;
    }
    if (One->Reference > 0)
      References.push_back(One->Reference);
    if (MemRow && One->MemReference > 0)
      MemReferences.push_back(One->MemReference);
    if (One->FpReference > 0)
      FpReferences.push_back(One->FpReference);
    if (One->CacheReference > 0)
      CacheReferences.push_back(One->CacheReference);
    Runs.push_back(std::move(*One));
    Quiet = 0;
    QuietReferences Now = Refs();
    for (const Timing &R : Runs)
      Quiet += unsigned(llvm::count_if(
          R.Samples, [&](const Sample &X) { return isQuietSample(X, Now); }));
  }
  std::optional<Timing> T;
  if (!Runs.empty())
    T = combineRuns(std::move(Runs), Refs(), V.Reps);
  RemoveIndexFiles();
  return T;
}

/// The recording, and what the harness runs measured of the core beside the
/// loops: the exit code.
int ValidateRun::finish() {
  if (!Validated)
    return error("no loop of " + A.File + " could be validated" +
                 (LastError.empty() ? "" : " (" + LastError + ")"));
  if (!V.Record.empty()) {
    std::string Err;
    if (!appendRecording(V.Record, thisHost(), std::move(Rec), Err))
      return error(Err);
    OS << "\nrecorded: " << Validated << " loop(s) in " << V.Record
       << " (perfmodel validate --replay " << V.Record << " predicts them again)\n";
  }
  if (!References.empty())
    OS << "\ncore: " << formatNumber(addsReference())
       << " independent adds per cycle when this thread has the core (the larger of the port "
          "model's " << formatNumber(ModelReference) << " and the median of the harness runs' "
          "references, " << formatNumber(median(References)) << "); column quiet: the samples "
          "taken at "
       << formatNumber(100 * QuietShare)
       << " % of that or more (and not above " << formatNumber(100 * QuietCeiling)
       << " %: a disturbed clock chain), the only ones measured where there are --reps of "
          "them; all samples where fewer were (a neighbour shared the core)\n";
  if (!FpReferences.empty())
    OS << "fp: quiet samples also had the FP pipes: eight independent FP adds beside each ran "
          "at "
       << formatNumber(100 * QuietShare) << "-" << formatNumber(100 * QuietCeiling) << " % of "
       << formatNumber(fpReference())
       << " a cycle (the larger of the port model's " << formatNumber(ModelFpReference)
       << " and the median of the harness runs' references, " << formatNumber(median(FpReferences))
       << "; a neighbour's FP work lowers it and leaves the integer adds alone)\n";
  if (!CacheReferences.empty())
    OS << "cache: quiet samples also had the load pipes, L1 and L2: a 128 KiB read from the "
          "L2 beside each ran at "
       << formatNumber(100 * QuietShare) << " % or more of "
       << formatNumber(cacheReference())
       << " GB/s (the median of the harness runs' references; a neighbour's loads and misses "
          "on the core lower it and leave the adds alone)\n";
  if (!MemReferences.empty())
    OS << "memory: the MEM rows' quiet samples also had the memory bus: a 1 MiB read from "
          "memory beside each ran at "
       << formatNumber(100 * QuietShare) << " % or more of " << formatNumber(median(MemReferences))
       << " GB/s (the median of the harness runs' references; neighbours streaming on the bus "
          "lower it)\n";
  return ExitOk;
}

int runValidate(AnalyzeArgs A, const ValidateArgs &V, const CompileCommand &CC) {
  return ValidateRun(std::move(A), V).run(CC);
}


} // namespace

IndexData perfmodel::tool::indexDataOf(const IndexData &All, const KernelIR &IR,
                                       const std::string &Function) {
  IndexData Out;
  Out.Sizes = All.Sizes;
  const std::vector<FunctionParam> &Params = IR.Functions.at(Function).Params;
  for (const auto &[Name, Spec] : All.Specs) {
    const std::string &Array = Name;
    if (llvm::none_of(Params, [&](const FunctionParam &P) { return P.Name == Array; }))
      continue;
    Out.Specs[Name] = Spec;
    // A file's values (a generated spec is drawn again at each size).
    if (auto It = All.Arrays.find(Name); It != All.Arrays.end())
      Out.Arrays[Name] = It->second;
    if (auto It = All.Ranges.find(Name); It != All.Ranges.end())
      Out.Ranges[Name] = It->second;
    if (auto It = All.Origin.find(Name); It != All.Origin.end())
      Out.Origin[Name] = It->second;
  }
  return Out;
}

void perfmodel::tool::predictTimedLoop(AnalysisReport &Out, const AnalyzeArgs &A,
                                       const KernelIR &IR, const LoopKernel &K,
                                       const IndexData &Index,
                                       const std::vector<std::string> &Cmd,
                                       const std::vector<std::string> &SizedCmd,
                                       const MachineModel &M, const InCoreOptions &IO,
                                       const std::vector<InCoreResult> &Unsized) {
  std::vector<InCoreResult> Sized;
  if (!SizedCmd.empty() && !A.NoInCore)
    Sized = analyzeKernelLoops(IR, SizedCmd, IO);
  // The harness times calls again and again on warm caches: the simulator
  // measures a repeated execution too.
  PipelineOptions PO = pipelineOptions(A, Cmd, Index);
  PO.Sim.Repeated = true;
  // This loop alone (the file's other loops would be modelled, and
  // simulated, at every size of every loop).
  PO.Select = [&K](const LoopKernel &L) { return &L == &K; };
  modelLoops(Out, IR, M, PO, A.NoInCore ? nullptr : !SizedCmd.empty() ? &Sized : &Unsized);
}

Command perfmodel::tool::addValidate(CLI::App &App, const CompileCommand &CC) {
  struct State {
    AnalyzeArgs A;
    ValidateArgs V;
    ReplayArgs R;
    std::string Levels = "L1,L2,L3,MEM";
  };
  auto S = std::make_shared<State>();
  CLI::App *C = App.add_subcommand(
      "validate", "Time the analysed loops on this host at one size per memory level and "
                  "print measured beside predicted cycles per iteration");
  addSourceOptions(C, S->A, /*FileRequired=*/false);
  addMachineOptions(C, S->A);
  addModelOptions(C, S->A);
  C->add_option("--record", S->V.Record,
                "keep every timed row in this file (JSON; a recording of this host's kind "
                "gains the run) with what predicting it again needs: the source, flags, sizes, "
                "machine and the figures measured here");
  CLI::Option *Replay = C->add_option(
      "--replay", S->R.Files,
      "predict the rows of these recordings again (off their hosts, with this build and "
      "today's machine files) and print each model's error per host and level");
  Replay->excludes("file")->expected(1, -1);
  C->add_option("--baseline", S->R.Baseline,
                "with --replay: an earlier replay's --format json output to compare with")
      ->needs(Replay);
  C->add_option("--max-rise", S->R.MaxRise,
                "with --baseline: exit 1 when a recording's headline MAPE at a level rises "
                "more than this many points above the baseline's, or a row it predicted is "
                "predicted no more")
      ->needs("--baseline");
  C->add_option("--worst", S->R.Worst, "with --replay: the worst rows listed per recording")
      ->needs(Replay);
  addFormatOption(C, S->R.Format, {ReportFormat::Text, ReportFormat::Json, ReportFormat::Svg},
                  "with --replay: text, json (a baseline) or svg")
      ->needs(Replay);
  C->add_option("-o,--output", S->R.Output, "with --replay: write the report there")
      ->needs(Replay);
  C->add_option("--size", S->V.Size, "the size parameter to vary per level");
  CLI::Option *LevelsOpt = C->add_option(
      "--levels", S->Levels, "levels to measure (default L1,L2,L3,MEM; with --cores N: L3,MEM)");
  C->add_option("--max-call", S->V.MaxCallSeconds,
                "skip sizes where one call is predicted to take longer (seconds)")
      ->check(CLI::PositiveNumber);
  C->add_option("--reps", S->V.Reps, "timed repetitions per size (median)")
      ->check(CLI::Range(1u, 101u));
  C->add_option("--processes", S->V.Processes,
                "harness processes per size, the median of their medians (default 1): each "
                "process gets other physical pages, which move memory-bound timings on a VM; "
                "the spread column then covers all of them")
      ->check(CLI::Range(1u, 9u));
  addKeptL3Option(C, S->A);
  C->add_flag("--model-l3", S->V.ModelL3,
              "predict with the model's L3 where this host keeps less of it now (default: the "
              "share it keeps, as --kept-l3 does elsewhere; the L3 rows are sized from that "
              "share either way)")
      ->excludes("--kept-l3");
  C->add_option("--also-machine", S->V.AlsoMachines,
                "a further machine model predicted against the same timings (columns "
                "B:..., C:...; repeatable), e.g. a probed model beside the library's");
  Command Cmd(C, [S, &CC, LevelsOpt]() -> int {
        if (!S->R.Files.empty()) {
          S->R.Machine = S->A.Machine;
          return runReplay(S->R);
        }
        if (S->A.File.empty())
          return error("validate: a source file to time, or --replay RECORDING...", ExitUsage);
        std::string Err;
        if (!parseModels(S->A, Err))
          return error(Err, ExitUsage);
        // On several cores the small sizes time the parallel region's fork
        // and join (a microsecond or more a call), which no model has: the
        // levels the cores share unless asked.
        if (S->A.Models.Cores > 1 && !LevelsOpt->count())
          S->Levels = "L3,MEM";
        llvm::SmallVector<llvm::StringRef, 4> Parts;
        llvm::StringRef(S->Levels).split(Parts, ',', -1, false);
        for (llvm::StringRef P : Parts)
          S->V.Levels.push_back(P.trim().upper());
        return runValidate(S->A, S->V, CC);
      },
      true);
  // A suite's timed runs take minutes; each harness run has its own timeout
  // (from --max-call and --reps), so --time-limit does not stop the whole.
  Cmd.BoundsItsParts = [] { return true; };
  return Cmd;
}

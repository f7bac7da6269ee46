//===- ValidateRun.cpp - perfmodel validate: set-up and summary ----------===//
//
// The run's set-up (the file, the machines, the probe references, the L3
// this host keeps) and its summary (what the harness runs showed of the
// core, the FP pipes, the caches and the memory bus); the shared helpers and
// the prediction of a timed loop, which the replay makes too.
//
//===----------------------------------------------------------------------===//
#include "ValidateRun.h"

using namespace perfmodel;
using namespace perfmodel::driver;

namespace perfmodel::driver {

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

/// Integer adds: add rax/rcx/rdx/rsi/r9/r10/r11/rbx, r8; sub rdi, 1; jnz
/// back.
double probeAddsPerCycle(const InCoreOptions &O) {
  std::vector<uint8_t> Loop;
  for (uint8_t Reg : {0xc0, 0xc1, 0xc2, 0xc6})
    Loop.insert(Loop.end(), {0x4c, 0x01, Reg}); // add rax..rsi, r8
  for (uint8_t Reg : {0xc1, 0xc2, 0xc3})
    Loop.insert(Loop.end(), {0x4d, 0x01, Reg}); // add r9..r11, r8
  Loop.insert(Loop.end(), {0x4c, 0x01, 0xc3});  // add rbx, r8
  Loop.insert(Loop.end(), {0x48, 0x83, 0xef, 0x01, 0x75, 0xe2});
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
  R.Models = A.ModelNames;
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
  if (In.Measured.ParallelLoops)
    for (const auto &[Threads, Us] : M.Core.ParallelLoopUs)
      R.Measured["core.parallel_loop_us." + std::to_string(Threads)] = Us;
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
  // The L3 this host keeps is measured once below, for the sizes and models;
  // so is its memory where there are memory rows.
  A.KeptL3 = false;
  A.HostMemory = false;
  // Models of this host run at its measured clock: one measurement for all.
  if (!V.AlsoMachines.empty() && !A.HostClockGHz)
    if (double GHz = measureClock(0.002, 7).Median; GHz > 0)
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
    if (!isMemoryLevel(Lv) && !M->cache(Lv)) {
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
  // Each timed call of an OpenMP kernel starts and joins its threads: what
  // that costs on this host now replaces the file's (a VM's instances differ
  // by 2-3x), and a recording keeps it.
  if (Cores > 1) {
    std::string Err;
    std::map<unsigned, double> Us = measureParallelLoopUs(Cores, Err);
    if (Us.empty()) {
      Notes.push_back("OpenMP parallel loops: " + Err + "; the machine file's figure stands");
    } else {
      std::string Shown;
      for (const auto &[T, V] : Us)
        Shown += (Shown.empty() ? "" : ", ") + formatNumber(V) + " us on " + std::to_string(T);
      Notes.push_back("an OpenMP parallel loop's start, split and join measured here: " + Shown +
                      " thread(s) (core.parallel_loop_us; the predictions use these)");
      M->Core.ParallelLoopUs = std::move(Us);
      In.Measured.ParallelLoops = true;
    }
  }
  // The memory rows see this host's memory as it is now (a VM's instances
  // differ: bench/RESULTS.md), as the rows see its clock: measured once,
  // over the rows' working set (a walk's cost grows with the pages spanned),
  // on all its cores for the socket's share.
  if (HostClock && llvm::any_of(V.Levels, [](const std::string &L) { return isMemoryLevel(L); }))
    useHostMemory(*M, hostMemoryNow(*M), A.Sets, Notes, MemoryMeasured);
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
  for (const auto &[Key, Value] : MemoryMeasured)
    Rec.Measured[Key] = Value;
  for (const auto &[Key, Value] : L3Measured)
    Rec.Measured[Key] = Value;
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
  const CacheLevel *L3 = M->sharedLastLevel(), *L2 = L3 ? L3 - 1 : nullptr;
  bool L3Row = L3 && llvm::is_contained(V.Levels, L3->Name);
  if (!L3 || !L2 || (!L3Row && V.ModelL3))
    return -1;
  std::string Err;
  uint64_t Full = L3->SizeBytes;
  L3Streams Stream;
  uint64_t Kept = hostKeptL3(A, L2->SizeBytes, Full, Err, &Stream);
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
                  (A.HostL3.empty() ? "load streams over growing sets" : "--host-l3") +
                  "): the L3 working sets are half of that, not of the L3; " + Use);
  if (!V.ModelL3)
    useL3FillsNow(Stream);
  return -1;
}

/// The L2's fills from the L3 as the sweep's load stream found them now,
/// in the predictions and the recording, as one core's memory figures are:
/// neighbours on a VM's host move them from day to day (Ice Lake-SP VM:
/// the probe's fits gave 9.8 B/cy one day, 8.1-8.6 the next). Write-backs
/// move with them.
void ValidateRun::useL3FillsNow(const L3Streams &Stream) {
  double NsPerLine = Stream.L3NsPerLine;
  double Now = l3FillsFromStream(*M, NsPerLine, Stream.LoadBits);
  CacheLevel &L2 = M->Caches[1];
  if (Now <= 0 || !L2.BytesPerCycleFromNext)
    return;
  double File = *L2.BytesPerCycleFromNext;
  L2.BytesPerCycleFromNext = Now;
  L3Measured["caches." + L2.Name + ".bytes_per_cycle_from_next"] = Now;
  if (L2.BytesPerCycleToNext) {
    L2.BytesPerCycleToNext = *L2.BytesPerCycleToNext * Now / File;
    L3Measured["caches." + L2.Name + ".bytes_per_cycle_to_next"] = *L2.BytesPerCycleToNext;
  }
  Notes.push_back("the " + L2.Name + "'s fills from the L3 now: " + formatNumber(Now, 3) +
                  " B/cy (a load stream in the L3, " + formatNumber(NsPerLine, 3) +
                  " ns a line at " + formatNumber(M->ClockGHz, 3) + " GHz), not the model's " +
                  formatNumber(File, 3) + "; write-backs scaled alike");
}

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


} // namespace perfmodel::driver

IndexData perfmodel::driver::indexDataOf(const IndexData &All, const KernelIR &IR,
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

void perfmodel::driver::predictTimedLoop(AnalysisReport &Out, const AnalyzeArgs &A,
                                       const KernelIR &IR, const LoopKernel &K,
                                       const IndexData &Index,
                                       const std::vector<std::string> &Cmd,
                                       const std::vector<std::string> &SizedCmd,
                                       const MachineModel &M, const InCoreOptions &IO,
                                       const std::vector<InCoreResult> &Unsized,
                                       const std::map<std::string, uint64_t> &CodeAt) {
  std::vector<InCoreResult> Sized;
  if (!SizedCmd.empty() && !A.NoInCore)
    Sized = analyzeKernelLoops(IR, SizedCmd, IO);
  // The harness times calls again and again on warm caches: the simulator
  // measures a repeated execution too.
  PipelineOptions PO = pipelineOptions(A, Cmd, Index);
  PO.Sim.Repeated = true;
  PO.FunctionAddresses = CodeAt;
  // This loop alone (the file's other loops would be modelled, and
  // simulated, at every size of every loop).
  PO.Select = [&K](const LoopKernel &L) { return &L == &K; };
  modelLoops(Out, IR, M, PO, A.NoInCore ? nullptr : !SizedCmd.empty() ? &Sized : &Unsized);
}

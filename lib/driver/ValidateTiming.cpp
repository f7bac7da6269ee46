//===- ValidateTiming.cpp - perfmodel validate: each loop timed ----------===//
//
// Each loop of the file: its harness built, its size set per level, timed
// in one or more processes beside the probes of the core and the bus, and
// its rows predicted at the sizes timed.
//
//===----------------------------------------------------------------------===//
#include "ValidateRun.h"

using namespace perfmodel;
using namespace perfmodel::driver;

namespace perfmodel::driver {

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
  for (const std::string &N : Lp.Notes)
    OS << "    note: " << N << "\n";
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

/// -DSIZE=its value in F, in place of a -D the front end passed on for a
/// guarded macro.
void ValidateRun::defineSize(std::vector<std::string> &F, const std::string &Size) const {
  llvm::erase_if(F, [&](const std::string &A) {
    return llvm::StringRef(A).starts_with("-D" + Size + "=");
  });
  F.push_back("-D" + Size + "=" + std::to_string(*IR->Parameters.at(Size).Value));
}

/// The harness built with flags F (and the size, when compiled in). A size
/// the file #defines itself (no #ifndef around it) keeps its value whatever
/// -D says: such a build fails rather than time one size and divide by
/// another.
bool ValidateRun::build(Loop &Lp, std::vector<std::string> F) {
  std::string Source = Lp.H.Source;
  if (Lp.CompiledIn) {
    std::string Value = std::to_string(*IR->Parameters[Lp.Size].Value);
    defineSize(F, Lp.Size);
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
    if (isMemoryLevel(Lv)) {
      Targets.push_back({Lv, double(memoryRowBytes(*M))});
    } else if (const CacheLevel *C = M->cache(Lv)) {
      Targets.push_back(
          {Lv, C == M->sharedLastLevel() && L3Target > 0 ? L3Target
                                                         : 0.5 * levelCapacity(*C, Cores)});
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
    defineSize(SizedCmd, Size);
  // Where the harness placed the function: the lines its loops' code
  // spans (core.fetch_line_bytes), as timed.
  std::map<std::string, uint64_t> CodeAt;
  for (const auto &[Name, Addr] : functionAddresses(std::string(Lp.Exe)))
    if (Name == K.Function ||
        (llvm::StringRef(Name).starts_with("_Z") && llvm::StringRef(Name).contains(K.Function)))
      CodeAt[Name] = Addr % 4096;
  auto Predict = [&](AnalysisReport &Out, const MachineModel &Mm, const InCoreOptions &Opt,
                     const std::vector<InCoreResult> &Unsized) {
    predictTimedLoop(Out, A, *IR, K, Lp.LoopIndex, Cmd,
                     Lp.CompiledIn ? SizedCmd : std::vector<std::string>(), Mm, Opt, Unsized,
                     CodeAt);
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
  // A memory row is predicted with the host's memory as it is beside it,
  // measured again here as each sample's clock is: the run's first figures
  // can be minutes and a neighbour's stream away (one core's fills moved
  // by a quarter between two runs an hour apart on the Zen 4 VM).
  MachineModel RowM = *M;
  std::map<std::string, double> RowMemory;
  if (HostClock && isMemoryLevel(Lv) && !MemoryMeasured.empty()) {
    std::vector<std::string> Said; // what was measured, under the table
    useHostMemory(RowM, hostMemoryNow(*M, Cores), A.Sets, Said, RowMemory);
    for (const std::string &N : Said)
      Lp.Notes.push_back(Lv + " row: " + N);
  }
  std::optional<Timing> T = timeHarness(Lp, *Args, CallSeconds, isMemoryLevel(Lv));
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
  }
  if (RowGHz != M->ClockGHz || !RowMemory.empty()) {
    RowM.ClockGHz = RowGHz;
    R = AnalysisReport();
    Predict(R, RowM, IO, InCore);
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
    RR.CodeAt = CodeAt;
    RR.Measured = RowMemory;
    RR.MinCy = Lo * PerCy;
    RR.MaxCy = Hi * PerCy;
    if (Lp.CompiledIn)
      RR.Defines.push_back("-D" + Size + "=" + std::to_string(*IR->Parameters[Size].Value));
    Rec.Rows.push_back(std::move(RR));
  }
  // The further machines at the same size (their own in-core costs); models
  // of this host run at the row's clock too, and with the memory measured
  // beside the row (a probe's figures from minutes before are as stale as
  // a file's: the host's memory moves within minutes).
  std::vector<AnalysisReport> AlsoR(Also.size());
  for (size_t X = 0; X < Also.size(); ++X) {
    MachineModel AtRow = Also[X].M;
    if (Also[X].HostClock) {
      AtRow.ClockGHz = RowGHz;
      std::string Err; // RowMemory holds only figures a row records
      useRecordedMemory(AtRow, RowMemory, A.Sets, Err);
    }
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

} // namespace perfmodel::driver

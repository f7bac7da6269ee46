//===- Model.cpp - Shared helpers of the performance models ----------------===//
//
// What the models share: where the working set lives, the in-core cycles and
// ECM's unit of work, bytes per link, the latency bound (pointer chases,
// irregular and strided misses, thrashed stores), the TLB's cost, library
// calls priced at their measured rates, and number formatting.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Model.h"
#include "perfmodel/Roofline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

using namespace perfmodel;

const LevelPrediction *Prediction::atDataLevel() const {
  for (const LevelPrediction &L : Levels)
    if (L.Level == DataLevel)
      return &L;
  return Levels.empty() ? nullptr : &Levels.back();
}

double perfmodel::levelCapacity(const CacheLevel &C, unsigned Cores) {
  unsigned Share = std::max(C.SharedBy, 1u);
  return double(C.SizeBytes) * double((std::max(Cores, 1u) + Share - 1) / Share);
}

double perfmodel::keptShare(const CacheLevel &C, double WS, uint64_t PageBytes,
                           unsigned Cores) {
  if (WS <= 0 || !C.SizeBytes || !C.Ways || !PageBytes)
    return 1;
  double Mine = WS * double(C.SizeBytes) / levelCapacity(C, Cores);
  // A shared cache is sliced, its slice picked by a hash of many address
  // bits, and a VM keeps only part of it: no colours (the recorded L3 rows
  // at sizes the VM keeps ran at the L3's rate).
  uint64_t WayBytes = C.SizeBytes / C.Ways;
  if (WayBytes <= PageBytes || C.SharedBy > 1)
    return Mine <= double(C.SizeBytes) ? 1 : 0;
  double Colours = double(WayBytes / PageBytes);
  double Pages = std::ceil(Mine / double(PageBytes));
  if (Pages <= C.Ways)
    return 1;
  // The pages in colours of at most `ways` pages, over all pages: the
  // binomial's sum of x P(X = x) for x <= ways, over its mean.
  double Q = 1 / Colours, Kept = 0;
  for (unsigned X = 1; X <= C.Ways; ++X) {
    double LogP = std::lgamma(Pages + 1) - std::lgamma(X + 1.0) - std::lgamma(Pages - X + 1) +
                  X * std::log(Q) + (Pages - X) * std::log1p(-Q);
    Kept += X * std::exp(LogP);
  }
  return std::min(1.0, Kept / (Pages * Q));
}

Residence perfmodel::residence(const MachineModel &M, std::optional<double> WS,
                               unsigned Cores) {
  Residence R;
  R.Level = R.Other = M.Caches.size();
  if (!WS)
    return R;
  // Colours where the file states the pages the data lives in (its TLB's);
  // where it does not, a level keeps what its bytes hold (page size 0).
  // Only a set the level's bytes hold loses lines to its colours: beyond
  // them the next level's row already counts what the sets reuse (the
  // layer conditions), and PolyBench's kernels past the L2 ran no faster.
  uint64_t Page = M.Tlb ? M.Tlb->PageBytes : 0;
  double Before = 0;
  for (size_t I = 0; I < M.Caches.size(); ++I) {
    bool Fits = *WS <= levelCapacity(M.Caches[I], Cores);
    double Kept = Fits ? keptShare(M.Caches[I], *WS, Page, Cores) : 0;
    if (Kept >= 0.99) {
      R.Level = R.Other = I;
      break;
    }
    Before = Kept;
  }
  if (R.Level == 0 || Before < 0.01)
    return R;
  // Lines split between the level before and this one: the level serving
  // most of them is where the data lives.
  if (Before >= 0.5) {
    R.Other = R.Level--;
    R.OtherShare = 1 - Before;
  } else {
    R.Other = R.Level - 1;
    R.OtherShare = Before;
  }
  return R;
}

std::string perfmodel::residentLevel(const MachineModel &M, std::optional<double> WS,
                                     unsigned Cores) {
  return M.levelName(residence(M, WS, Cores).Level);
}

void perfmodel::mixKeptLines(Prediction &P, const Residence &R,
                             std::vector<std::string> &Notes) {
  size_t Far = std::max(R.Level, R.Other);
  if (!P.Ok || R.OtherShare <= 0 || Far >= P.Levels.size())
    return;
  LevelPrediction &At = P.Levels[R.Level];
  const LevelPrediction &Rest = P.Levels[R.Other];
  double Cy = (1 - R.OtherShare) * At.CyclesPerIt + R.OtherShare * Rest.CyclesPerIt;
  if (Cy <= 0 || At.CyclesPerIt <= 0)
    return;
  const LevelPrediction &Near = P.Levels[std::min(R.Level, R.Other)];
  double NearShare = R.Level < R.Other ? 1 - R.OtherShare : R.OtherShare;
  Notes.push_back(P.name() + ": " + formatNumber(100 * NearShare, 2) +
                  " % of the working set's lines stay in " + Near.Level +
                  " (its pages at random physical addresses fill some of its page colours "
                  "beyond its ways), the rest come from " + P.Levels[Far].Level + ": " +
                  formatCycles(Cy) + " cy/it with data in " + At.Level + " = " +
                  formatNumber(100 * (1 - R.OtherShare), 2) + " % at its " +
                  formatCycles(At.CyclesPerIt) + " and " + formatNumber(100 * R.OtherShare, 2) +
                  " % at " + Rest.Level + "'s " + formatCycles(Rest.CyclesPerIt));
  At.GFlops *= At.CyclesPerIt / Cy;
  At.CyclesPerIt = Cy;
}

unsigned perfmodel::flopElementBytes(const LoopKernel &K) {
  return K.Double.total() == 0 && K.Single.total() > 0 ? 4 : 8;
}

double perfmodel::sourceCallCycles(const LoopKernel &K, const MachineModel &M,
                                   std::string *Names) {
  double Cycles = 0;
  for (const std::string &C : K.MathCalls)
    if (auto It = M.Core.CallCycles.find(C); It != M.Core.CallCycles.end()) {
      Cycles += It->second;
      if (Names)
        *Names += (Names->empty() ? "" : ", ") + C;
    }
  return Cycles;
}

double perfmodel::inCoreCyclesPerIt(const ModelInput &In) {
  const InCoreResult *IC = In.InCore;
  if (!IC || !IC->Ok || IC->SourceItersPerIter <= 0)
    return In.Loop && In.Machine ? sourceCallCycles(*In.Loop, *In.Machine) : 0;
  return IC->Cycles / IC->SourceItersPerIter;
}

namespace {

/// Elements A moves per iteration of the loop over VAR, when that is a
/// constant (affine, not through loaded data).
std::optional<int64_t> stepAlong(const LoopKernel &K, const Access &A, const std::string &Var) {
  auto L = std::find_if(K.Nest.begin(), K.Nest.end(),
                        [&](const LoopLevel &N) { return N.Var == Var; });
  if (L == K.Nest.end() || !A.Linear || A.Indirect || A.Linear->degreeIn(Var) != 1)
    return std::nullopt;
  Poly C = A.Linear->coefficientOf(Var);
  if (!C.isConstant())
    return std::nullopt;
  return C.constantTerm() * L->Step;
}

/// The same along K's innermost loop.
std::optional<int64_t> innermostStep(const LoopKernel &K, const Access &A) {
  if (K.Nest.empty())
    return std::nullopt;
  return stepAlong(K, A, K.innermost().Var);
}

/// Loads per machine iteration, a gather's elements each (the load queue
/// holds them all).
double loadsPerMachineIteration(const InCoreResult &IC) {
  double N = 0;
  for (const InstrCost &I : IC.Instrs)
    if (I.MayLoad && !I.FixedPlace)
      N += I.GatherScatter && !I.MayStore ? I.GatherElements : 1;
  return N;
}

/// Whether the compiled loop gathers or scatters (AVX2/AVX-512 forms).
bool gathersOrScatters(const InCoreResult *IC) {
  return IC && IC->Ok &&
         std::any_of(IC->Instrs.begin(), IC->Instrs.end(),
                     [](const InstrCost &I) { return I.GatherScatter; });
}

/// Lines per iteration that memory sends through streams only the L1's
/// stride prefetcher follows: a constant stride of two lines or more within
/// its reach, or a stride of a line or more that the compiled loop gathers
/// or scatters (the elements of one instruction on lines of their own do
/// not train a stream prefetcher; on the Zen 4 VM a gather of one element
/// per line runs at the speed of a scalar stride of two lines, twice the
/// time per line of a dense stream). One stream per array and stride; no
/// more than the memory link brings in.
double sparseMemoryLines(const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  if (M.Caches.empty())
    return 0;
  uint64_t Line = M.Caches.front().LineBytes;
  bool Gathers = gathersOrScatters(In.InCore);
  // Where the loops inside are fully unrolled, the machine loop steps an
  // outer one: a stream is a reference's walk along that loop (ELLPACK's
  // val[8 * i + k] vectorized across i: a gather of one element per line),
  // a line per iteration of it.
  const SteppedLoop *Outer =
      In.InCore && In.InCore->Ok && !In.InCore->Stepped.Var.empty() ? &In.InCore->Stepped
                                                                     : nullptr;
  std::set<std::pair<std::string, uint64_t>> Streams;
  for (const Access &A : In.Loop->Accesses) {
    std::optional<int64_t> Step = Outer ? stepAlong(*In.Loop, A, Outer->Var)
                                        : innermostStep(*In.Loop, A);
    if (!Step)
      continue;
    uint64_t Bytes = uint64_t(std::abs(*Step * int64_t(A.StrideBytes)));
    if (M.sparseStride(Bytes) || (Gathers && !M.Caches.front().GathersPrefetched &&
                                  Bytes >= Line && !M.unprefetchedStride(Bytes)))
      Streams.insert({A.Array, Bytes});
  }
  double Lines = double(Streams.size()) / (Outer ? std::max(Outer->SourceIters, 1.0) : 1.0);
  if (In.Traffic && In.Traffic->Ok && !In.Traffic->Links.empty() && Line)
    Lines = std::min(Lines, In.Traffic->Links.back().LoadBytesPerIt / double(Line));
  return Lines;
}

} // namespace

double perfmodel::iterationsPerLine(const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  double Line = M.Caches.empty() ? 64 : M.Caches.front().LineBytes;
  if (In.InCore && In.InCore->Ok && In.InCore->BytesPerSourceIt > 0)
    return Line / In.InCore->BytesPerSourceIt;
  return iterationsPerLine(*In.Loop, M);
}

double perfmodel::iterationsPerLine(const LoopKernel &K, const MachineModel &M) {
  double Line = M.Caches.empty() ? 64 : M.Caches.front().LineBytes;
  if (K.Nest.empty())
    return Line / 8;
  // The widest access that advances one element per iteration.
  double Bytes = 0;
  for (const Access &A : K.Accesses)
    if (std::optional<int64_t> Step = innermostStep(K, A); Step && (*Step == 1 || *Step == -1))
      Bytes = std::max(Bytes, double(A.StrideBytes));
  return Line / (Bytes > 0 ? Bytes : 8);
}

double perfmodel::linkBytesPerIt(const ModelInput &In, size_t I, bool Inward) {
  const MachineModel &M = *In.Machine;
  if (In.Traffic && In.Traffic->Ok && In.Traffic->Links.size() == M.Caches.size() &&
      I < In.Traffic->Links.size())
    return Inward ? In.Traffic->Links[I].LoadBytesPerIt
                  : In.Traffic->Links[I].totalBytesPerIt();
  NaiveTraffic T = naiveTraffic(*In.Loop, M);
  return Inward ? T.LoadBytes + T.WriteAllocateBytes : T.beyondL1Bytes();
}

LinkUse perfmodel::linkUseOf(const ModelInput &In) {
  LinkUse U;
  U.WorkingSet = In.WorkingSetBytes;
  U.Cores = In.Cores;
  // Bytes of the accesses that stream (a step of at most a line), and of
  // those the ones whose addresses fall from one iteration to the next.
  double Streamed = 0, Down = 0;
  for (const Access &A : In.Loop->Accesses)
    if (std::optional<int64_t> Step = innermostStep(*In.Loop, A);
        Step && *Step != 0 && std::abs(*Step) * int64_t(A.ElementBytes) <= 64) {
      Streamed += A.ElementBytes;
      Down += *Step < 0 ? A.ElementBytes : 0;
    }
  U.Descending = Streamed > 0 ? Down / Streamed : 0;
  // Strided lines fill at their own rate where scalar loads take them one
  // by one; a gather asks for its vector's lines at once (Zen 5 VM: a
  // column walk gathered and scattered fills as fast as a stream).
  if (In.Traffic && In.Traffic->Ok && !gathersOrScatters(In.InCore))
    for (const LinkTraffic &L : In.Traffic->Links)
      U.Strided.push_back(L.LoadBytesPerIt > 0 ? L.StridedLoadBytesPerIt / L.LoadBytesPerIt : 0);
  return U;
}

double perfmodel::linkBytesPerCycle(const MachineModel &M, size_t I, bool OneCore,
                                    const LinkUse &U) {
  if (I + 1 < M.Caches.size())
    return M.fromNextBytesPerCycle(I, U);
  double GBs = OneCore ? M.Memory.gbsFor(1, 1) : M.Memory.effectiveGBs();
  return M.ClockGHz > 0 ? GBs / M.ClockGHz : 0;
}

double perfmodel::linkCycles(const MachineModel &M, size_t I, double In, double Out,
                             unsigned Cores, bool OneCore, const LinkUse &U) {
  Cores = std::max(Cores, 1u);
  // One core's memory link: what one core draws (fills and write-backs at
  // their own rates where the file gives both).
  if (I + 1 == M.Caches.size() && OneCore)
    return M.Memory.transferNs(In, Out, 1, 1) * M.ClockGHz;
  double BPC = linkBytesPerCycle(M, I, OneCore, U) *
               (I + 1 < M.Caches.size() ? Cores : 1);
  if (BPC <= 0)
    return 0;
  if (I + 1 < M.Caches.size() && M.Caches[I].BytesPerCycleToNext &&
      *M.Caches[I].BytesPerCycleToNext > 0)
    return std::max(In / BPC, Out / (*M.Caches[I].BytesPerCycleToNext * Cores));
  return (In + Out) / BPC;
}

double perfmodel::linkCyclesPerIt(const ModelInput &In, size_t I, bool OneCore) {
  double Inward = linkBytesPerIt(In, I, /*Inward=*/true);
  return linkCycles(*In.Machine, I, Inward, linkBytesPerIt(In, I) - Inward, 1, OneCore,
                    linkUseOf(In));
}

std::string perfmodel::ecmLinkName(const MachineModel &M, size_t I) {
  std::string Outer = I + 1 < M.Caches.size() ? M.Caches[I + 1].Name : "Mem";
  return M.Caches[I].Name + Outer;
}

std::string perfmodel::formatNumber(double V, int Sig) {
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  if (std::isnan(V))
    return "n/a";
  if (V == 0)
    return "0";
  // Whole numbers (most of an in-core table) print as themselves at any
  // precision: the fixed form's zeros after the point are trimmed below.
  if (std::fabs(V) < 1e15 && V == std::trunc(V))
    return std::to_string(int64_t(V));
  double A = std::fabs(V);
  int Digits = A >= 1 ? Sig - 1 - int(std::floor(std::log10(A))) : Sig - 1 - int(std::floor(std::log10(A)));
  Digits = std::max(0, std::min(Digits, 9));
  // std::to_chars rounds as printf's %.*f does, at a fraction of its cost
  // (snprintf was half of a 163-loop text report's instructions).
  char Buf[400];
  auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V, std::chars_format::fixed, Digits);
  std::string S = Ec == std::errc() ? std::string(Buf, End) : std::to_string(V);
  if (S.find('.') != std::string::npos) {
    while (S.back() == '0')
      S.pop_back();
    if (S.back() == '.')
      S.pop_back();
  }
  return S;
}

double perfmodel::writtenBytesPerIt(const LoopKernel &K) {
  double Written = 0;
  for (const Access &A : K.Accesses)
    Written += A.Write ? A.ElementBytes : 0;
  return Written;
}

std::string perfmodel::libraryCallLevels(const ModelInput &In, Prediction &P) {
  if (!In.InCore || In.InCore->LibraryCall.empty() || !P.Ok)
    return "";
  const std::string &Fn = In.InCore->LibraryCall;
  const MachineModel &M = *In.Machine;
  double Written = writtenBytesPerIt(*In.Loop);
  if (Written <= 0)
    return "";
  bool Changed = false;
  for (LevelPrediction &L : P.Levels) {
    std::optional<double> CyPerByte = M.libraryCyclesPerByte(Fn, L.Level);
    if (!CyPerByte)
      continue;
    Changed = true;
    L.CyclesPerIt = Written * *CyPerByte;
    L.GFlops = 0;
    L.Bottleneck = "the C library's " + Fn + " (" + formatNumber(1 / *CyPerByte) +
                   " B/cy with its data in " + L.Level + ", measured)";
    L.Kind = BoundKind::LibraryCall;
  }
  if (!Changed)
    return "";
  // The levels the file states a rate for, in the models' order.
  std::string Levels, Key = Fn == "memset" ? "memset" : "memcpy";
  for (const CacheLevel &C : M.Caches)
    if (M.libraryCyclesPerByte(Fn, C.Name))
      Levels += (Levels.empty() ? "" : ", ") + C.Name;
  if (M.libraryCyclesPerByte(Fn, "MEM"))
    Levels += (Levels.empty() ? "" : ", ") + std::string("MEM");
  return "the compiler replaced the loop with " + Fn + ": the predictions with the data in " +
         Levels + " are the C library's measured rate (" + formatNumber(Written) +
         " B written per iteration; core." + Key + "_bytes_per_cy, memory." + Key +
         "_one_core_gbs), not the loop's bounds in the tables";
}

const char *perfmodel::modelKindName(ModelKind K) {
  return K == ModelKind::Roofline ? "Roofline" : K == ModelKind::Ecm ? "ECM" : "PPR";
}

std::string perfmodel::formatCycles(double V) {
  char Buf[32];
  if (std::fabs(V) >= 100)
    std::snprintf(Buf, sizeof Buf, "%.0f", V);
  else
    std::snprintf(Buf, sizeof Buf, "%.3g", V);
  return Buf;
}

double perfmodel::levelLatencyCycles(const MachineModel &M, size_t I) {
  if (I < M.Caches.size())
    return M.Caches[I].LatencyCy;
  return M.Memory.LatencyNs ? *M.Memory.LatencyNs * M.ClockGHz : 0;
}

LatencyBound perfmodel::latencyFor(const ModelInput &In, std::vector<std::string> &Notes) {
  if (In.Latency)
    return *In.Latency;
  LatencyBound B = latencyBound(In);
  Notes.insert(Notes.end(), B.Notes.begin(), B.Notes.end());
  return B;
}

namespace {

/// Pointer chase: the chain's loads wait each level's latency instead of
/// the L1's.
void pointerChaseBound(const MachineModel &M, const InCoreResult &IC, LatencyBound &B) {
  size_t Levels = M.Caches.size() + 1;
  auto Name = [&](size_t L) { return M.levelName(L); };
  double L1Lat = levelLatencyCycles(M, 0);
  // The body's own chain (the nest as executed spreads it over a call).
  double Rec = IC.Executed.Ok && IC.Executed.SteadyRecurrence > 0
                   ? IC.Executed.SteadyRecurrence
                   : IC.RecurrenceBound;
  for (size_t L = 1; L < Levels; ++L) {
    double Lat = levelLatencyCycles(M, L);
    if (Lat <= 0 || L1Lat <= 0) {
      B.Notes.push_back("pointer chase: no latency for " + Name(L) +
                        (L < M.Caches.size() ? " (caches." + Name(L) + ".latency_cy)"
                                             : std::string(" (memory.latency_ns)")) +
                        "; its chained loads are costed at the L1's");
      continue;
    }
    double Chain = Rec + IC.ChainAddressLoads * (Lat - L1Lat);
    B.CyPerIt[L] = Chain / IC.SourceItersPerIter;
    B.Kind[L] = BoundKind::PointerChase;
    B.What[L] = "pointer chase: " + std::to_string(IC.ChainAddressLoads) +
                " chained load(s) per machine iteration wait the " + Name(L) + " latency (" +
                formatCycles(Lat) + " cy)";
  }
}

void thrashedStoreBound(const MachineModel &M, const TrafficResult *TR, LatencyBound &B) {
  size_t Levels = M.Caches.size() + 1;
  auto Name = [&](size_t L) { return M.levelName(L); };
  // Stores that lose their line in the L1's few sets before they commit
  // (a column walk over power-of-two rows): each waits again for the line,
  // one after the other, from the L2 that holds the column (the traffic
  // says how long, by the sets reached).
  if (TR && TR->Ok && TR->ThrashedStoresPerIt > 0 && M.Caches.size() > 1) {
    double Cy = TR->ThrashedStoreCyPerIt;
    std::string Each = !TR->ThrashedStoresMeasured ? "the " + Name(1) + " latency"
                       : TR->ThrashedStoresAlone
                           ? "caches." + Name(0) + ".conflict_store_alone_cy_by_sets"
                           : "caches." + Name(0) + ".conflict_store_cy_by_sets";
    for (size_t Row = 1; Row < Levels && Cy > 0; ++Row) {
      if (Cy <= B.CyPerIt[Row])
        continue;
      B.CyPerIt[Row] = Cy;
      B.Kind[Row] = BoundKind::SetConflict;
      B.What[Row] = "latency of " + formatCycles(TR->ThrashedStoresPerIt) +
                    " store(s) per iteration whose line the " + Name(0) +
                    "'s few sets lose before they commit: each waits for it again, one "
                    "after the other (" +
                    formatCycles(Cy) + " cy, " + Each + ")";
    }
  }
}

/// Loads whose lines crowd the L1's few sets: their refills, at the rate
/// measured for that many sets (CY per iteration), with the data beyond L1.
void conflictLoadBound(const MachineModel &M, double Cy, LatencyBound &B) {
  for (size_t Row = 1; Cy > 0 && Row < M.Caches.size() + 1; ++Row) {
    if (Cy <= B.CyPerIt[Row])
      continue;
    B.CyPerIt[Row] = Cy;
    B.Kind[Row] = BoundKind::SetConflict;
    B.What[Row] = "refills of loads whose lines crowd a few of the " + M.levelName(0) +
                  "'s sets (" + formatCycles(Cy) + " cy per iteration, caches." +
                  M.levelName(0) + ".conflict_miss_cy_by_sets)";
  }
}

} // namespace

LatencyBound perfmodel::latencyBound(const ModelInput &In) {
  const MachineModel &M = *In.Machine;
  size_t Levels = M.Caches.size() + 1;
  LatencyBound B;
  B.CyPerIt.assign(Levels, 0);
  B.What.assign(Levels, "");
  B.Kind.assign(Levels, BoundKind::Latency);
  if (M.Caches.empty())
    return B;
  auto Name = [&](size_t L) { return M.levelName(L); };
  const InCoreResult *IC = In.InCore;
  bool HaveCore = IC && IC->Ok && IC->SourceItersPerIter > 0;

  if (HaveCore && IC->ChainAddressLoads > 0)
    pointerChaseBound(M, *IC, B);
  thrashedStoreBound(M, In.Traffic, B);
  conflictLoadBound(M, In.ConflictLoadCyPerIt, B);

  // Irregular misses at the simulated sizes: the misses that reach level L
  // are served there at its latency (for the rows of levels nearer the core
  // than where they reach, by that row's level). Without the simulator, an
  // access whose constant stride escapes every prefetcher misses once per
  // iteration wherever the data lives.
  const TrafficResult *T = In.Traffic;
  std::vector<double> Irr;
  std::string Source = T && T->Method == TrafficSource::Simulator ? "simulated" : "by layer conditions";
  if (T && T->Ok && T->IrregularMissesPerIt.size() == M.Caches.size())
    Irr = T->IrregularMissesPerIt;
  else {
    double Strided = 0;
    for (const Access &A : In.Loop->Accesses)
      if (std::optional<int64_t> Step = innermostStep(*In.Loop, A))
        Strided += M.unprefetchedStride(uint64_t(std::abs(*Step * int64_t(A.StrideBytes))));
    if (Strided > 0) {
      Irr.assign(M.Caches.size(), Strided);
      Source = "strides beyond the prefetchers' " + std::to_string(M.prefetchStrideReach()) +
               " B";
    }
  }
  bool Indirect = std::any_of(In.Loop->Accesses.begin(), In.Loop->Accesses.end(),
                              [](const Access &A) { return A.Indirect; });
  if (Indirect && !(T && T->Ok && !T->IrregularMissesPerIt.empty()))
    B.Notes.push_back("indirect accesses: how often they miss needs the simulator with index "
                      "data (--cache sim --index NAME=...); their latency is not in this "
                      "prediction");
  // Streams only the stride prefetcher follows: in memory each of their
  // lines waits memory.stride_latency_ns, the L1's misses in flight at once.
  double Sparse = sparseMemoryLines(In);
  double StrideLat = M.Memory.StrideLatencyNs ? *M.Memory.StrideLatencyNs * M.ClockGHz : 0;
  if (Sparse > 1e-12 && StrideLat <= 0) {
    B.Notes.push_back("strided streams that skip lines (or gathered/scattered a line per "
                      "element): memory.stride_latency_ns is not given, so in memory their "
                      "lines are costed at the bandwidth alone");
    Sparse = 0;
  }
  double Irr0 = Irr.empty() ? 0 : Irr[0];
  if (Irr0 <= 1e-12 && Sparse <= 1e-12)
    return B;
  std::optional<unsigned> Q = M.Caches[0].MissesInFlight;
  if (!Q || !*Q) {
    B.Notes.push_back(std::string(Irr0 > 1e-12 ? "irregular misses" : "strided streams") +
                      ": caches." + M.Caches[0].Name +
                      ".misses_in_flight is not given, so their latency is not modelled "
                      "(bandwidth only)");
    return B;
  }
  double InFlight = *Q;
  std::string Why = "the " + M.Caches[0].Name + "'s " + std::to_string(*Q) + " misses in flight";
  if (HaveCore && M.Core.ReorderBuffer && IC->Uops) {
    double UopsPerIt = IC->Uops / IC->SourceItersPerIter;
    double Window = M.Core.ReorderBuffer / UopsPerIt * (Irr0 + Sparse);
    if (Window < InFlight) {
      InFlight = std::max(1.0, Window);
      Why = formatCycles(InFlight) + " misses in the " + std::to_string(M.Core.ReorderBuffer) +
            "-uop reorder buffer";
    }
  }
  // The load queue holds every element a gather loads until it retires: a
  // loop that gathers many elements per missing line keeps few lines in
  // flight (ELLPACK vectorized across rows: 8 gathers per row's line).
  if (double Loads = HaveCore ? loadsPerMachineIteration(*IC) : 0;
      Loads > 0 && M.Core.LoadQueue) {
    double Window = M.Core.LoadQueue / (Loads / IC->SourceItersPerIter) * (Irr0 + Sparse);
    if (Window < InFlight) {
      InFlight = std::max(1.0, Window);
      Why = formatCycles(InFlight) + " misses in the " + std::to_string(M.Core.LoadQueue) +
            "-entry load queue (" + formatCycles(Loads / IC->SourceItersPerIter) +
            " loads per iteration, a gather's elements each)";
    }
  }
  B.InFlight = InFlight;
  bool Unknown = false;
  for (size_t Row = 1; Row < Levels; ++Row) {
    double Cy = 0;
    bool Known = true;
    for (size_t L = 1; L <= Row && Irr0 > 1e-12; ++L) {
      double Served = L == Row ? Irr[L - 1] : Irr[L - 1] - Irr[L];
      double Lat = levelLatencyCycles(M, L);
      if (Served <= 0)
        continue;
      Known &= Lat > 0;
      Cy += Served * Lat / InFlight;
    }
    if (!Known && !Unknown) {
      Unknown = true;
      B.Notes.push_back("irregular misses: a level up to " + Name(Row) +
                        " has no latency in the machine file; its misses are not costed");
    }
    bool Memory = Row + 1 == Levels;
    double Strided = Memory ? Sparse * StrideLat / InFlight : 0;
    if (Cy + Strided > B.CyPerIt[Row]) {
      B.CyPerIt[Row] = Cy + Strided;
      std::string W;
      if (Cy > 0)
        W = formatCycles(Irr0) + " irregular L1 misses per iteration (" + Source +
            ") served up to " + Name(Row);
      if (Strided > 0)
        W += std::string(W.empty() ? "" : " and ") + formatCycles(Sparse) +
             " line(s) per iteration of streams only the stride prefetcher follows (" +
             formatCycles(*M.Memory.StrideLatencyNs) + " ns each, memory.stride_latency_ns)";
      B.What[Row] = "latency of " + W + ", " + Why;
      B.Kind[Row] = Cy > 0 ? BoundKind::Latency : BoundKind::StridedStream;
    }
  }
  return B;
}

double perfmodel::cacheLinesPerIt(const MachineModel &M, const TrafficResult *Traffic) {
  if (!Traffic || !Traffic->Ok || M.Caches.empty() ||
      Traffic->Links.size() != M.Caches.size() || !M.Caches[0].LineBytes)
    return 0;
  double Fills = Traffic->Links.front().LoadBytesPerIt - Traffic->Links.back().LoadBytesPerIt;
  return std::max(0.0, Fills) / M.Caches[0].LineBytes;
}

double perfmodel::cacheLineCyclesPerIt(const MachineModel &M, const TrafficResult *Traffic,
                                       double ItersPerCL) {
  if (!M.Memory.CacheLineCy || !Traffic || !Traffic->Ok || Traffic->Links.empty() ||
      M.Caches.empty())
    return 0;
  // Measured beside a full stream from memory (a line or more per CL); a
  // loop that takes less from memory waits for it in proportion (none when
  // its data stays in the caches).
  double MemLinesPerCL =
      Traffic->Links.back().LoadBytesPerIt / M.Caches[0].LineBytes * ItersPerCL;
  return cacheLinesPerIt(M, Traffic) * *M.Memory.CacheLineCy * std::min(1.0, MemLinesPerCL);
}

std::string perfmodel::cacheLineNote(const MachineModel &M, const TrafficResult *Traffic,
                                     const std::string &Link, double Cycles, double Scale,
                                     const std::string &Unit, const std::string &Per) {
  return Link + " includes " + formatCycles(Cycles) + " " + Unit + " for " +
         formatCycles(cacheLinesPerIt(M, Traffic) * Scale) + " lines per " + Per +
         " the L1 takes from the caches while the rest streams from memory "
         "(memory.cache_line_cy " +
         formatCycles(M.Memory.CacheLineCy.value_or(0)) +
         " cy each beside a line or more per CL from memory)";
}

double perfmodel::tlbCyclesPerIt(const ModelInput &In) {
  return In.Tlb && In.Tlb->Ok ? In.Tlb->CyclesPerIt : 0;
}

std::string perfmodel::tlbWhat(const ModelInput &In) {
  if (!In.Tlb || !In.Tlb->Ok || !In.Machine->Tlb)
    return "";
  const TlbModel &T = *In.Machine->Tlb;
  return "address translation: " + formatCycles(In.Tlb->LoadsPerIt) + " load and " +
         formatCycles(In.Tlb->StoresPerIt) + " store TLB misses per iteration beyond each " +
         "page's first (" + std::to_string(T.Entries) + "-entry " + std::to_string(T.Ways) +
         "-way TLB of " + std::to_string(T.PageBytes / 1024) + " KiB pages) x " +
         formatCycles(T.LoadMissCy) + " / " + formatCycles(T.StoreMissCy) + " cy";
}

std::optional<InCoreResult> perfmodel::inCoreWithL1TlbMisses(const InCoreResult &C,
                                                             const TlbMisses &TLB,
                                                             const MachineModel &M,
                                                             std::string &Note) {
  if (!C.Ok || !TLB.Ok || TLB.L1CyclesPerIt <= 0 || C.SourceItersPerIter <= 0 || !M.Tlb)
    return std::nullopt;
  const TlbModel &T = *M.Tlb;
  double Added = TLB.L1CyclesPerIt * C.SourceItersPerIter; // per machine iteration
  InCoreResult R = C;
  R.TnOL += Added;
  double Ports = C.PortBound + Added;
  if (Ports > R.Cycles) {
    R.Cycles = Ports;
    R.Bottleneck = InCoreBound::PortsAndTlb;
  }
  Note = "first-level TLB: " + formatCycles(TLB.L1LoadsPerIt) + " load and " +
         formatCycles(TLB.L1StoresPerIt) +
         " store misses per iteration that the last level holds (" +
         std::to_string(T.L1Entries) + "-entry " + std::to_string(T.L1Ways) + "-way, tlb.l1_*) x " +
         formatCycles(T.L1LoadMissCy) + " / " + formatCycles(T.L1StoreMissCy) +
         " cy of the load/store pipes: " + formatCycles(TLB.L1CyclesPerIt) +
         " cy/it beside the ports' " + formatCycles(C.PortBound / C.SourceItersPerIter) +
         "; in-core " + formatCycles(C.Cycles / C.SourceItersPerIter) + " -> " +
         formatCycles(R.Cycles / C.SourceItersPerIter) + " cy/it";
  return R;
}

std::string perfmodel::mechanismAdvice(BoundKind K) {
  switch (K) {
  case BoundKind::Tlb:
    return "each iteration touches a page the TLB no longer holds: block the loops so one "
           "block's pages fit the TLB (tiles for a transpose or a column walk), or put the "
           "data on huge pages (madvise MADV_HUGEPAGE, --set tlb.page=2MiB to predict that)";
  case BoundKind::StridedStream:
    return "the stream skips lines (or is gathered a line per element): only the L1's stride "
           "prefetcher follows it, a line per miss buffer per memory latency; lay the data "
           "out so the innermost loop reads consecutive elements (structure of arrays, loop "
           "interchange), or prefetch further ahead in software";
  case BoundKind::SetConflict:
    return "the column's stride (a power-of-two row) maps its lines to a few of the L1's "
           "sets, which lose them before they are used again: pad the rows (a line longer) "
           "or interchange the loops so the innermost loop walks a row";
  default:
    return "";
  }
}

//===- Probe.cpp - Timed measurements of the host -------------------------===//
//
// Every figure is the median of repetitions, each long enough (>= 20 ms, or
// 5 ms in quick mode) for the clock to be meaningful; the spread of the
// repetitions is kept so the report can say how noisy the machine was.
//
//===----------------------------------------------------------------------===//
#include "Measure.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Validate.h"

#include "Kernels.h"
#include "Repeat.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <ctime>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <random>
#include <string_view>
#include <thread>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

using namespace perfmodel;
using namespace perfmodel::probe;
using namespace perfmodel::probe::measure;

double perfmodel::median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t Mid = V.size() / 2;
  return V.size() % 2 ? V[Mid] : (V[Mid - 1] + V[Mid]) / 2;
}

double perfmodel::branchPatternCapacity(const std::vector<std::pair<uint64_t, double>> &Sweep) {
  for (size_t I = 1; I < Sweep.size(); ++I) {
    auto [N0, F0] = Sweep[I - 1];
    auto [N1, F1] = Sweep[I];
    if (F1 >= 0.25 && F0 < 0.25 && F1 > F0)
      return (double(N0) + (double(N1) - double(N0)) * (0.25 - F0) / (F1 - F0)) / 2;
  }
  return 0;
}

double perfmodel::tlbEntries(const std::vector<std::pair<uint64_t, double>> &Sweep, double Hit,
                             double Miss) {
  if (!(Miss > 0) || !(Hit > 0))
    return 0;
  double Threshold = Hit + Miss / 4;
  for (size_t I = 1; I < Sweep.size(); ++I) {
    auto [N0, C0] = Sweep[I - 1];
    auto [N1, C1] = Sweep[I];
    if (C1 >= Threshold && C0 < Threshold && C1 > C0)
      return double(N0) + (double(N1) - double(N0)) * (Threshold - C0) / (C1 - C0);
  }
  return 0;
}

HostMemory perfmodel::measureHostMemory(uint64_t Bytes, bool Streams, unsigned Threads) {
  HostMemory H;
#if defined(__x86_64__)
  constexpr double MinSeconds = 0.02;
  constexpr unsigned Reps = 3;
  // Misses in flight are a ratio of timings (one chain; 32 chains or
  // independent random loads): on a shared host a burst or a lost time
  // slice that slows only one of them moves it by 2x. Timed back to back, a
  // burst moves all or none; the median ratio stands. On 4 KiB pages, as
  // arrays get them: a gather's misses wait their page walks too. Random
  // loads keep more lines in flight than 32 chains on the Zen 5 VM
  // (bench/RESULTS.md, 2026-12-06).
  std::vector<double> Latency, Ratio;
  for (unsigned P = 0; P < 2 * Reps - 1; ++P) {
    std::vector<Measured> T = chaseNs(Bytes, {1, 32, 0}, MinSeconds, 1, /*HugePages=*/false);
    if (T.size() != 3)
      break;
    Latency.push_back(T[0].Median);
    Ratio.push_back(missesInFlight(T[0].Median, parallelMissNs(T[1].Median, T[2].Median)));
  }
  if (!Ratio.empty()) {
    H.LatencyNs = median(Latency);
    H.InFlight = median(Ratio);
  }
  unsigned Bits = compilerVectorBits(identifyCpu(hostCpuid()));
  H.Threads = std::max(Threads, 1u);
  if (!Streams) {
    size_t N = std::max<uint64_t>(64, Bytes / 8 / 64 * 64);
    Buffer A = allocate(N);
    if (!A)
      return H;
    std::vector<double> V = rates(
        [&](uint64_t Passes) {
          double Moved = 0;
          for (uint64_t I = 0; I < Passes; ++I)
            Moved += loadKernel(A.get(), N, Bits);
          return Moved;
        },
        MinSeconds, Reps);
    H.FillGBs = summarise(V).Median / 1e9;
  } else {
    // One core's fills and write-backs: a line of the load, update, copy
    // and triad kernels' output stream moves 1/0, 1/1, 2/1 and 3/1 lines
    // in/out; their repetitions beside a quiet core and memory bus, as
    // validate's rows keep theirs. The load kernel is also the fills'.
    BandwidthPoint One = bandwidth("MEM", Bytes, 1, Bits, MinSeconds, Reps);
    H.FillGBs = One.LoadGBs.Median;
    std::vector<std::tuple<double, double, double>> Points;
    auto Add = [&](double Fills, double Writebacks, double BytesPerLine, const Measured &GBs) {
      if (GBs.Median > 0)
        Points.push_back({Fills, Writebacks, BytesPerLine / GBs.Median});
    };
    Add(1, 0, 64, One.LoadGBs);
    Add(1, 1, 128, One.UpdateGBs);
    Add(2, 1, 192, One.CopyGBs);
    Add(3, 1, 256, One.TriadGBs);
    auto [Fill, Writeback] = fitFillsWritebacks(Points);
    H.FitFillGBs = Fill > 0 ? 64 / Fill : 0;
    H.WritebackGBs = Writeback > 0 ? 64 / Writeback : 0;
    if (H.Threads > 1) {
      // The fastest repetition of all cores together: no quiet check sees
      // the other cores' neighbours.
      BandwidthPoint All = bandwidth(
          "MEM", std::max<uint64_t>(uint64_t(32) << 20, Bytes / H.Threads), H.Threads, Bits,
          MinSeconds, Reps);
      H.AllCoresGBs = All.TriadGBs.Max;
      // The others at their ratio to the triad in the same rounds: the
      // fastest of each taken apart could come from another minute's host.
      H.AllCoresLoadGBs = H.AllCoresGBs * All.LoadPerTriad.Median;
      H.AllCoresUpdateGBs = H.AllCoresGBs * All.UpdatePerTriad.Median;
      H.AllCoresCopyGBs = H.AllCoresGBs * All.CopyPerTriad.Median;
    }
  }
#else
  (void)Bytes;
  (void)Streams;
  (void)Threads;
#endif
  return H;
}

std::pair<double, double>
perfmodel::fitFillsWritebacks(const std::vector<std::tuple<double, double, double>> &Points) {
  // Normal equations of t = f a + w b.
  double FF = 0, FW = 0, WW = 0, FT = 0, WT = 0;
  for (const auto &[F, W, T] : Points) {
    FF += F * F, FW += F * W, WW += W * W, FT += F * T, WT += W * T;
  }
  double Det = FF * WW - FW * FW;
  if (!(FF > 0) || std::fabs(Det) < 1e-12 * FF * std::max(WW, 1.0))
    return {0, 0};
  double A = (FT * WW - WT * FW) / Det, B = (WT * FF - FT * FW) / Det;
  if (B < 0) // write-backs hidden: the fills alone
    A = FT / FF, B = 0;
  return {std::max(A, 0.0), B};
}

double perfmodel::missesInFlight(double LatencyNs, double ParallelNs) {
  return LatencyNs > 0 && ParallelNs > 0 ? LatencyNs / ParallelNs : 0;
}

double perfmodel::parallelMissNs(double ChasesNs, double RandomNs) {
  return ChasesNs > 0 && RandomNs > 0 ? std::min(ChasesNs, RandomNs)
                                      : std::max({ChasesNs, RandomNs, 0.0});
}

namespace {
std::vector<std::pair<std::string, std::vector<uint8_t>>>
formsOf(const std::vector<ThroughputKernel> &Kernels) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> F;
  for (const ThroughputKernel &K : Kernels)
    F.push_back({K.Form, K.Encoding});
  return F;
}
} // namespace

const std::vector<std::pair<std::string, std::vector<uint8_t>>> &perfmodel::dividerForms() {
  static const auto Forms = formsOf(dividerKernels());
  return Forms;
}

const std::vector<std::pair<std::string, std::vector<uint8_t>>> &perfmodel::shuffleForms() {
  static const auto Forms = formsOf(shuffleKernels());
  return Forms;
}

std::string perfmodel::todayUtc() {
  std::time_t T = std::time(nullptr);
  char Buf[16];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%d", std::gmtime(&T));
  return Buf;
}

namespace {

/// One probe run: each measurement a step (timed, shown by the progress
/// callback), in the order runProbe lists them.
class Prober {
public:
  Prober(const ProbeOptions &O, ProbeResult &R) : O(O), R(R), C(R.Cpu) {}

  void run() {
#if defined(__linux__)
    long N = sysconf(_SC_NPROCESSORS_ONLN);
    R.OnlineCpus = N > 0 ? unsigned(N) : 1;
#endif
    Threads = O.Threads ? std::min(O.Threads, R.OnlineCpus) : R.OnlineCpus;
    MinSeconds = O.Quick ? 0.005 : 0.01;
    // In-core throughputs over L1-resident data settle in half the time:
    // a 5 ms repetition is 18 million cycles of the kernel.
    CoreSeconds = MinSeconds / 2;
    Reps = O.Quick ? 3 : 5;
#if !defined(__x86_64__)
    R.Notes.push_back("not an x86-64 host: the probe cannot measure here");
    return;
#endif
    R.StreamBits = compilerVectorBits(C);
    Isas = {Isa::Scalar, Isa::Sse};
    if (C.Avx2 && C.Fma)
      Isas.push_back(Isa::Avx2);
    if (C.Avx512f)
      Isas.push_back(Isa::Avx512);
    workingSets();
    Total = 13 + unsigned(Isas.size()) * 2 + unsigned(Sets.size()) * 2 + 1;
    Started = std::chrono::steady_clock::now();
    clockAndPeaks();
    latencies();
    throughputs();
    loadStorePorts();
    branchesTlbWindow();
    keptL3();
    bandwidths();
    chases();
    strideStream();
    capacitySweep();
    step("done");
  }

private:
  const ProbeOptions &O;
  ProbeResult &R;
  const CpuIdentity &C;
  unsigned Threads = 1, Reps = 5, Total = 0, Done = 0;
  double MinSeconds = 0.01, CoreSeconds = 0.005;
  std::vector<Isa> Isas;
  uint64_t L1 = 0, L2 = 0, L3 = 0, Mem = 0;
  /// A level's working set: private caches, the shared L3 (split between
  /// the cores, a VM keeping a share of it), memory.
  enum SetKind { Private, SharedL3, Memory };
  struct WorkingSet {
    std::string Level;
    uint64_t Bytes;
    SetKind Kind;
  };
  std::vector<WorkingSet> Sets;
  std::chrono::steady_clock::time_point Started;

  void step(const std::string &What) {
    auto Now = std::chrono::steady_clock::now();
    if (!R.StepSeconds.empty())
      R.StepSeconds.back().second = std::chrono::duration<double>(Now - Started).count();
    Started = Now;
    if (What != "done")
      R.StepSeconds.push_back({What, 0});
    if (O.Progress)
      O.Progress(Done++, Total, What);
  }

  void workingSets() {
    // Working sets per level, from CPUID (shared levels: a share that surely
    // fits, as CPUID may describe the whole package).
    auto Size = [&](unsigned Level) -> uint64_t {
      for (const ProbedCache &K : C.Caches)
        if (K.Level == Level)
          return K.SizeBytes;
      return 0;
    };
    L1 = Size(1) ? Size(1) : 32 << 10;
    L2 = Size(2) ? Size(2) : 256 << 10;
    L3 = Size(3);
    Sets = {{"L1", L1 / 2, Private}, {"L2", L2 / 2, Private}};
    if (L3)
      Sets.push_back({"L3", std::clamp<uint64_t>(L3 / 4, 4 * L2, 16 << 20), SharedL3});
    Mem = O.Quick ? (uint64_t(96) << 20) : (uint64_t(256) << 20);
    Sets.push_back({MemoryLevelName, Mem, Memory});
    if (Size(1) == 0)
      R.Notes.push_back("CPUID gives no cache geometry: working sets assume a 32 KiB L1 "
                        "and a 256 KiB L2");
  }

  void clockAndPeaks() {
    step("clock (dependent add chain)");
    R.ClockGHz = measureClock(MinSeconds, Reps);
    for (Isa I : Isas)
      for (bool Fma : {true, false}) {
        const std::string Name = vectorIsaName(I);
        if (Fma && !C.Fma)
          continue;
        step("peak flop/s, " + Name + (Fma ? " FMA" : " add+mul"));
        PeakPoint P;
        P.Isa = I;
        P.Fma = Fma;
        // Each timing against the add chain timed beside it: cycles, not
        // seconds at a clock measured once (a VM's clock moves); and only
        // those that had the core to themselves.
        for (bool Single : {false, true})
          (Single ? P.SingleFlopsPerCycle : P.DoubleFlopsPerCycle) =
              quietPerCycle([&](uint64_t N) { return peakKernel(I, Fma, Single, N * 4096); },
                            MinSeconds, Reps)
                  .PerCycle;
        R.Peaks.push_back(P);
      }
  }

  void latencies() {
    step("latencies (dependent chains)");
    if (C.Avx2 && C.Fma) {
      // By the names the writer's instruction_overrides look up.
      for (const auto &KN : {std::pair{Chain::Add, "add"}, {Chain::Mul, "mul"},
                             {Chain::Fma, "fma"}, {Chain::Div, "div"},
                             {Chain::SqrtAdd, "sqrt"}}) {
        Chain Kind = KN.first;
        const char *Name = KN.second;
        bool Sqrt = Kind == Chain::SqrtAdd;
        double AddCy = R.Latencies.count("add") ? R.Latencies["add"].Median : 0;
        // Cycles per link; less the add that keeps sqrt inexact.
        R.Latencies[Name] = paired(
            [&](uint64_t N) { return latencyKernel(Kind, N * 64); }, clockWork,
            [&](double Ops, double Cycles) { return Cycles / Ops - (Sqrt ? AddCy : 0); },
            MinSeconds, Reps);
      }
    }
  }

  void throughputs() {
    step("divider throughput");
    for (const ThroughputKernel &K : dividerKernels()) {
      if (!C.Avx2 || (K.evex() && !C.Avx512f))
        continue;
      R.Dividers.push_back(
          {K.Form, quietCyclesPer([&](uint64_t N) { return K.Run(N * 256); }, CoreSeconds, Reps)});
    }
    step("shuffle throughput");
    if (C.Avx2)
      for (const ThroughputKernel &K : shuffleKernels())
        R.Shuffles.push_back(
            {K.Form, quietCyclesPer([&](uint64_t N) { return K.Run(N * 1024); }, CoreSeconds, Reps)});
    step("FMAs beside FP stores");
    if (C.Avx2 && C.Fma) {
      alignas(64) static char Buf[512];
      for (bool Stores : {false, true})
        (Stores ? R.FmaStoresCy : R.FmaAloneCy) = quietCyclesPer(
            [&](uint64_t N) { return fmaStoreKernel(Buf, Stores, N * 256); }, CoreSeconds, Reps);
    }
    step("library calls (libm, libmvec)");
    if (!libraryCalls().empty()) {
      auto PerElement = [&](const char *Symbol) {
        return quietCyclesPer([&](uint64_t N) { return libraryCallKernel(Symbol, N * 1024); },
                              CoreSeconds, Reps);
      };
      Measured Loop = PerElement(nullptr);
      for (const LibraryCall &L : libraryCalls()) {
        if (L.Avx2 && !C.Avx2)
          continue;
        Measured M = PerElement(L.Symbol);
        // Per call, less the loop's own cost per element (one per call).
        double Own = Loop.Median;
        for (double *V : {&M.Median, &M.Min, &M.Max})
          *V = std::max(0.0, *V * L.Lanes - Own);
        R.CallCycles.push_back({L.Symbol, M});
      }
    }
  }

  void loadStorePorts() {
    step("load and store ports (independent accesses per width)");
    for (unsigned W : {8u, 16u, 32u, 64u}) {
      if ((W == 16 || W == 32) && !C.Avx)
        continue;
      if (W == 64 && !C.Avx512f)
        continue;
      R.Ports.push_back(ports(W, MinSeconds, Reps));
    }
    if (C.Avx) {
      R.MixedLoadsZmm = C.Avx512f;
      R.MixedLoadCy = mixedLoads(C.Avx512f, MinSeconds, Reps);
    }
    step("line-split loads and stores");
    if (C.Avx) {
      R.LineSplitLoad = lineSplitCost(false, MinSeconds, Reps);
      R.LineSplitStore = lineSplitCost(true, MinSeconds, Reps);
    }
  }

  void branchesTlbWindow() {
    step("branch mispredictions");
    measureBranches(R, MinSeconds, Reps);
    step("data-TLB misses");
    measureTlb(R, MinSeconds, Reps);
    step("load and store queues (two misses, fillers between them)");
    measureWindow(R, MinSeconds, Reps);
  }

  void keptL3() {
    // The L3 point inside what this host keeps of the L3 now (a VM's share
    // of a shared L3 can be a few MiB of 32): beyond it the L3's streams and
    // memcpy come partly from memory. Half of it, as validate sizes its rows.
    if (L3) {
      step("L3 capacity kept now (load streams)");
      uint64_t Kept = measureKeptL3(L2, L3);
      for (auto &[Level, WS, Kind] : Sets)
        if (Kind == SharedL3 && keptL3IsAShare(Kept, L3) && Kept / 2 < WS) {
          WS = std::max<uint64_t>(2 * L2, Kept / 2);
          R.Notes.push_back("this host keeps about " + formatByteSize(Kept) + " of the " +
                            formatByteSize(L3) + " L3 now: the L3 bandwidth set is " +
                            formatByteSize(WS));
        }
    }
  }

  void bandwidths() {
    for (const auto &[Level, WS, Kind] : Sets) {
      step("bandwidth, " + Level + ", one core");
      // In memory also the copy beside two streams that stay in the L2.
      R.Bandwidth.push_back(bandwidth(Level, WS, 1, R.StreamBits, MinSeconds, Reps,
                                      Kind == Memory ? std::max(L1, L2 / 8) : 0));
    }
    fillSweep();
    if (Threads > 1)
      for (const auto &[Level, WS, Kind] : Sets) {
        step("bandwidth, " + Level + ", " + std::to_string(Threads) + " cores");
        // Private levels: each core its own set of the same size; shared ones
        // (L3, memory): the set split between the cores.
        uint64_t PerThread = Kind == Memory     ? std::max<uint64_t>(32 << 20, WS / Threads)
                             : Kind == SharedL3 ? std::max<uint64_t>(L2, WS / Threads)
                                             : WS;
        R.Bandwidth.push_back(
            bandwidth(Level, PerThread, Threads, R.StreamBits, MinSeconds, Reps));
      }
  }

  /// The load kernel over sets from three L1s to a quarter of the L2, beside
  /// the half-L2 point the link's rate comes from.
  void fillSweep() {
    step("L2 fills by working set");
    for (uint64_t WS : {3 * L1, L2 / 4})
      if (WS > 2 * L1 && WS < L2 / 2 && (R.FillSweep.empty() || WS > R.FillSweep.back().first))
        R.FillSweep.push_back({WS, loadBytesPerCycle(WS, R.StreamBits, MinSeconds, Reps)});
    if (!R.FillSweep.empty())
      R.FillDownwards = {R.FillSweep.front().first,
                         loadBytesPerCycle(R.FillSweep.front().first, R.StreamBits, MinSeconds,
                                           Reps, /*Downwards=*/true)};
    // A column walk's lines: half the L2's worth (from the L2), twice it
    // (from the L3, where there is one).
    step("strided fills (column reads)");
    if (L2 > 2 * L1)
      R.StridedFromL2 = stridedLoadBytesPerCycle(L2 / 2 / 64, 200, MinSeconds, Reps);
    if (L3 > 4 * L2)
      R.StridedFromL3 = stridedLoadBytesPerCycle(2 * L2 / 64, 200, MinSeconds, Reps);
  }

  void chases() {
    // Latency of each level and misses in flight (Little's law's inputs):
    // one chase per level; in memory also 32 chases at once and independent
    // random loads of the same lines (a gather's misses).
    step("latency (pointer chases) and misses in flight");
    for (const auto &[Level, WS, Kind] : Sets) {
      std::vector<unsigned> Counts = {1};
      if (Kind == Memory)
        Counts.insert(Counts.end(), {32, 0});
      // The L3 chase at three L2s: a shared L3 on a busy host (or a VM's
      // slice of it) keeps far less than its size for one slow random walk.
      // A random line is then in the L2 with odds L2 / set, so the L3's own
      // latency is (t - f t_L2) / (1 - f).
      uint64_t Set = Kind == SharedL3 ? 3 * L2 : WS;
      // Caches on huge pages (their latency); memory on the 4 KiB pages that
      // programs' arrays get, whose page walks a random access also waits.
      std::vector<Measured> M = chaseNs(Set, Counts, MinSeconds, Reps, Kind != Memory);
      if (!M.empty() && Kind == SharedL3 && R.ChaseNs.count("L2")) {
        double F = double(L2) / double(Set), T2 = R.ChaseNs["L2"].Median;
        for (double *X : {&M[0].Median, &M[0].Min, &M[0].Max})
          *X = std::max(T2, (*X - F * T2) / (1 - F));
      }
      if (!M.empty())
        R.ChaseNs[Level] = M[0];
      if (M.size() > 2) {
        R.ParallelChaseNs = M[1];
        R.RandomLoadNs = M[2];
      }
    }
  }

  void strideStream() {
    // A stream only the L1's stride prefetcher follows: one load per two
    // lines over the memory-sized set (its misses wait an open page's latency,
    // as many at once as the L1 keeps in flight).
    if (Buffer A = allocate(Mem / 8)) {
      std::vector<double> Rates = rates(
          [&](uint64_t N) {
            double Loads = 0;
            for (uint64_t I = 0; I < N; ++I)
              Loads += strideKernel(A.get(), Mem / 8, 16);
            return Loads;
          },
          MinSeconds, Reps);
      R.StrideNsPerLine = nsPerUnit(std::move(Rates));
    }
  }

  void capacitySweep() {
    // The L3 capacity this host keeps (a VM's share of a shared L3, or one
    // that neighbours fill, can be a fraction of what CPUID says): sets from
    // two L2s up to CPUID's L3 in steps of 1.5, two sweeps, the slower chase
    // of the two per set (the capacity one can count on).
    if (L3 && !O.Quick) {
      step("L3 capacity (chases from 2 x L2 to the L3)");
      R.L3Sweep = l3Sweep(L2, L3, MinSeconds, Reps);
      std::vector<std::pair<uint64_t, double>> Again = l3Sweep(L2, L3, MinSeconds, Reps);
      for (size_t I = 0; I < R.L3Sweep.size() && I < Again.size(); ++I)
        R.L3Sweep[I].second = std::max(R.L3Sweep[I].second, Again[I].second);
    }
  }
};

} // namespace

ProbeResult perfmodel::runProbe(const ProbeOptions &O) {
  ProbeResult R;
  R.Date = todayUtc();
  R.Cpu = identifyCpu(hostCpuid());
  Prober(O, R).run();
  return R;
}

unsigned perfmodel::compilerVectorBits(const CpuIdentity &C, const std::string &Cpu) {
  if (!C.Avx2)
    return 128;
  if (!C.Avx512f)
    return 256;
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
  });
  std::string Triple = llvm::sys::getProcessTriple(), Error;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Error);
  if (!T)
    return 256;
  std::unique_ptr<llvm::MCSubtargetInfo> STI(T->createMCSubtargetInfo(
      Triple, Cpu.empty() ? llvm::sys::getHostCPUName() : llvm::StringRef(Cpu), ""));
  return STI && !STI->checkFeatures("+prefer-256-bit") ? 512 : 256;
}

Measured perfmodel::measureClock(double MinSeconds, unsigned Reps, bool Exactly) {
#if defined(__x86_64__)
  auto Chain = [](uint64_t N) {
    addChain(N);
    return double(N) * 64 / 1e9; // giga-cycles
  };
  if (!Exactly)
    return summarise(rates(Chain, MinSeconds, Reps));
  // Calibrated to an eighth of MINSECONDS (the chain's rate is the clock
  // from its first quarter-millisecond on: calibrating to the whole
  // MINSECONDS took as long as two more timings), then scaled so that each
  // timing lasts about MINSECONDS.
  double S = 0;
  uint64_t N = calibrate(Chain, MinSeconds / 8, steadySeconds, &S);
  if (S > 0)
    N = std::max<uint64_t>(1, uint64_t(double(N) * MinSeconds / S));
  std::vector<double> Rates;
  for (unsigned R = 0; R < Reps; ++R) {
    double T = steadySeconds();
    double Amount = Chain(N);
    if (double Took = steadySeconds() - T; Took > 0)
      Rates.push_back(Amount / Took);
  }
  return summarise(std::move(Rates));
#else
  (void)MinSeconds;
  (void)Reps;
  (void)Exactly;
  return Measured(); // the add chain is x86-64 code
#endif
}

unsigned perfmodel::windowStep(const std::vector<std::pair<unsigned, double>> &Sweep) {
  for (size_t I = 1; I + 2 < Sweep.size(); ++I)
    if (Sweep[I].second >= 1.5 && Sweep[I + 1].second >= 1.5 && Sweep[I + 2].second >= 1.5)
      return Sweep[I - 1].first;
  return 0;
}

/// The largest set of SWEEP (smallest first) that, with every smaller one,
/// takes at most LIMIT ns (0 when the first does not): the first set beyond
/// ends the capacity one can count on.
static uint64_t largestSetWithin(const std::vector<std::pair<uint64_t, double>> &Sweep,
                                 double Limit) {
  uint64_t Kept = 0;
  for (const auto &[Bytes, Ns] : Sweep) {
    if (Ns <= 0 || Ns > Limit)
      break;
    Kept = Bytes;
  }
  return Kept;
}

uint64_t perfmodel::effectiveL3Bytes(const std::vector<std::pair<uint64_t, double>> &Sweep,
                                     double L3Ns, double MemNs) {
  if (L3Ns <= 0 || MemNs <= L3Ns)
    return 0;
  // The geometric mean: a set whose chase takes it misses the L3 on about
  // a quarter of its lines or more (the arithmetic midpoint, half).
  double Mid = std::sqrt(L3Ns * MemNs);
  return largestSetWithin(Sweep, Mid);
}

/// The L3's time per line in a stream sweep: the lesser of its first two
/// sets' (0 when the first was not measured).
static double l3StreamNs(const std::vector<std::pair<uint64_t, double>> &Sweep) {
  if (Sweep.empty() || Sweep.front().second <= 0)
    return 0;
  double Ns = Sweep.front().second;
  if (Sweep.size() > 1 && Sweep[1].second > 0)
    Ns = std::min(Ns, Sweep[1].second);
  return Ns;
}

uint64_t perfmodel::keptL3FromStreams(const std::vector<std::pair<uint64_t, double>> &Sweep,
                                      double MemNs) {
  double L3Ns = l3StreamNs(Sweep);
  if (L3Ns <= 0)
    return 0;
  // A memory no more than a third slower cannot be told from the L3; nor
  // can an L3 whose first set already streams from memory.
  if (MemNs < 1.3 * L3Ns)
    return 0;
  // A quarter of the way to memory: about a quarter of the set's lines
  // come from there (streams take each line at its level's rate).
  double Limit = L3Ns + 0.25 * (MemNs - L3Ns);
  return largestSetWithin(Sweep, Limit);
}

uint64_t perfmodel::measureKeptL3(uint64_t L2Bytes, uint64_t L3Bytes, double MinSeconds,
                                  unsigned Reps) {
  return measureL3Streams(L2Bytes, L3Bytes, MinSeconds, Reps).KeptBytes;
}

L3Streams perfmodel::measureL3Streams(uint64_t L2Bytes, uint64_t L3Bytes, double MinSeconds,
                                      unsigned Reps) {
  if (!L2Bytes || L3Bytes <= 2 * L2Bytes)
    return {};
  // Streams, not chases: loops stream, and what a host keeps for them can
  // differ from what a chase finds (Ice Lake-SP VM: streams keep 10-14 MiB
  // where one chase's lines come from memory beyond 2.5 MiB).
  std::vector<uint64_t> Sizes;
  for (double S = 1.5 * double(L2Bytes); S <= 1.01 * double(L3Bytes); S *= 1.25)
    Sizes.push_back(uint64_t(S) / 64 * 64);
  Sizes.push_back(4 * L3Bytes);
  // The host's widest loads: 128-bit ones bind on Zen 4 before its L3 does
  // (four adds a line on two adders, 2.7 cy, where the L3 takes 2.4).
  unsigned Bits = compilerVectorBits(identifyCpu(hostCpuid()));
  std::vector<double> Ns = probe::measure::streamNsPerLine(Sizes, Bits, MinSeconds, Reps);
  if (Ns.size() < 3 || std::any_of(Ns.begin(), Ns.end(), [](double T) { return T <= 0; }))
    return {};
  std::vector<std::pair<uint64_t, double>> Sweep;
  for (size_t I = 0; I + 1 < Sizes.size(); ++I)
    Sweep.push_back({Sizes[I], Ns[I]});
  L3Streams Out;
  Out.LoadBits = Bits;
  Out.KeptBytes = keptL3FromStreams(Sweep, Ns.back());
  if (Out.KeptBytes)
    Out.L3NsPerLine = l3StreamNs(Sweep);
  return Out;
}

//===- Measure.cpp - The probe's measurements ----------------------------===//
//
// See Measure.h.
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
#include <functional>
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

namespace perfmodel::probe::measure {

double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

/// Rates (units a second) as ns a unit, summarised: chases and random
/// loads are timed as throughput and reported as time per access.
Measured nsPerUnit(std::vector<double> Rates) {
  for (double &X : Rates)
    X = X > 0 ? 1e9 / X : 0;
  return summarise(std::move(Rates));
}

/// Pins the calling thread to one CPU for its lifetime and gives it back the
/// CPUs it had: processes the thread starts later inherit its mask
/// (validate's OpenMP rows ran both threads on one CPU after the memory had
/// been measured on the main thread).
class PinnedTo {
#if defined(__linux__)
  cpu_set_t Saved;
  bool Restore = false;

public:
  explicit PinnedTo(unsigned Cpu) {
    CPU_ZERO(&Saved);
    Restore = pthread_getaffinity_np(pthread_self(), sizeof(Saved), &Saved) == 0;
    cpu_set_t Set;
    CPU_ZERO(&Set);
    CPU_SET(Cpu, &Set);
    pthread_setaffinity_np(pthread_self(), sizeof(Set), &Set);
  }
  ~PinnedTo() {
    if (Restore)
      pthread_setaffinity_np(pthread_self(), sizeof(Saved), &Saved);
  }
#else
public:
  explicit PinnedTo(unsigned) {}
#endif
  PinnedTo(const PinnedTo &) = delete;
  PinnedTo &operator=(const PinnedTo &) = delete;
};

Buffer allocate(size_t Doubles) {
  size_t Bytes = (Doubles * sizeof(double) + 4095) / 4096 * 4096;
  auto *P = static_cast<double *>(std::aligned_alloc(4096, Bytes));
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  // The 4 KiB pages malloc'ed data gets where THP is madvise-only: memory
  // the allocator reuses from the chases' huge-page buffers would keep them
  // (a scalar sum over memory then hides its stream behind its chain, 2.3 cy
  // an element on the Granite Rapids VM, against 3.9-4.1 on 4 KiB pages).
  if (P)
    madvise(P, Bytes, MADV_NOHUGEPAGE);
#endif
  for (size_t I = 0; P && I < Doubles; ++I) // first touch by the measuring thread
    P[I] = 1.0 + double(I % 7) * 1e-3;
  return Buffer(P);
}

double clockWork(uint64_t N) {
  addChain(N);
  return double(N) * 64; // cycles
}

/// Operations per cycle of KERNEL (N calls of it retire OPSPERCALL x N
/// independent operations) against a dependent add chain timed just before.
double opsPerChainCycle(void (*Kernel)(uint64_t), double OpsPerCall) {
  auto T0 = Clock::now();
  addChain(4000);
  auto T1 = Clock::now();
  Kernel(8000);
  auto T2 = Clock::now();
  double Chain = seconds(T0, T1), Ops = seconds(T1, T2);
  return Chain > 0 && Ops > 0 ? (8000 * OpsPerCall / Ops) / (4000 * 64 / Chain) : 0;
}

/// The independent adds per cycle this thread retires now: about the core's
/// ALU count when no neighbour shares the physical core (on a VM, another
/// guest's thread takes 20-40 % of its slots now and then). About 0.2 ms.
double coreShare() { return opsPerChainCycle(independentAdds, 32); }

/// The independent FP adds per cycle: about the core's FP adders when no
/// neighbour's FP work shares them; the integer share does not see such a
/// neighbour.
double fpShare() { return opsPerChainCycle(independentFpAdds, 8); }

Measured loadBytesPerCycle(uint64_t WS, unsigned Bits, double MinSeconds, unsigned Reps,
                           bool Downwards) {
  size_t N = std::max<uint64_t>(64, WS / 8 / 64 * 64);
  Buffer A = allocate(N);
  if (!A)
    return {};
  auto Load = [&](uint64_t Times) {
    double Bytes = 0;
    for (uint64_t I = 0; I < Times; ++I)
      Bytes += Downwards ? loadDownKernel(A.get(), N, Bits) : loadKernel(A.get(), N, Bits);
    return Bytes;
  };
  return quietPerCycle(Load, MinSeconds, Reps).PerCycle;
}

Measured stridedLoadBytesPerCycle(uint64_t Lines, unsigned StrideBytes, double MinSeconds,
                                  unsigned Reps) {
  size_t Stride = std::max(16u, StrideBytes) / 8;
  Lines = std::max<uint64_t>(Lines / 4 * 4, 64);
  Buffer A = allocate(Lines * Stride + 8);
  if (!A)
    return {};
  // Each call reads the next element of the same lines (a column walk).
  uint64_t Call = 0;
  auto Load = [&](uint64_t Times) {
    double Bytes = 0;
    for (uint64_t I = 0; I < Times; ++I)
      Bytes += stridedLoadKernel(A.get(), Lines, Stride, Call++ % 8);
    return Bytes;
  };
  return quietPerCycle(Load, MinSeconds, Reps).PerCycle;
}

/// Load, copy and triad over WS bytes per thread on THREADS pinned threads
/// in vectors of BITS; the rates of all threads add up. With CACHED (bytes
/// per stream, one thread) also the copy beside two streams of that size.
BandwidthPoint bandwidth(const std::string &Level, uint64_t WS, unsigned Threads, unsigned Bits,
                         double MinSeconds, unsigned Reps, uint64_t Cached) {
  BandwidthPoint P;
  P.Level = Level;
  P.WorkingSet = WS;
  P.Threads = Threads;
  // Element counts: multiples of 64 doubles.
  auto Round = [](uint64_t Doubles) { return std::max<uint64_t>(64, Doubles / 64 * 64); };
  // Several threads: each kernel's repetitions run together, one barrier a
  // repetition, and a repetition's rate is the bytes of all over its span.
  // The four kernels take turns in each round (side by side: their ratios
  // see one host).
  unsigned Joint = 2 * Reps + 1;
  JointSpans Spans(4, std::vector<std::vector<Span>>(Joint, std::vector<Span>(Threads)));
  std::vector<std::vector<uint64_t>> Counts(4, std::vector<uint64_t>(Threads, 1));
  SpinBarrier Barrier(Threads);
  std::atomic<bool> Failed{false};
  auto Body = [&](unsigned T) {
    PinnedTo Here(T);
    size_t NL = Round(WS / 8), NC = Round(WS / 16), NT = Round(WS / 24);
    Buffer A = allocate(NL), B = allocate(NC), C = allocate(NC), X = allocate(NT),
           Y = allocate(NT), Z = allocate(NT);
    // Start together so the threads share the memory system while timed;
    // all return when one could not allocate (the others would wait on it).
    if (!A || !B || !C || !X || !Y || !Z)
      Failed.store(true);
    Barrier.wait();
    if (Failed.load())
      return;
    // KERNEL repeated N times (one pass returns its bytes), as rates() and
    // quietPerCycle() time work.
    auto Repeated = [](auto Kernel) {
      return [Kernel](uint64_t N) {
        double Bytes = 0;
        for (uint64_t I = 0; I < N; ++I)
          Bytes += Kernel();
        return Bytes;
      };
    };
    auto LoadK = [&] { return loadKernel(A.get(), NL, Bits); };
    auto CopyK = [&] { return copyKernel(C.get(), B.get(), NC, Bits); };
    auto UpdateK = [&] { return updateKernel(B.get(), NC, Bits); };
    auto TriadK = [&] { return triadKernel(X.get(), Y.get(), Z.get(), NT, Bits); };
    if (Threads > 1) {
      std::vector<std::function<double(uint64_t)>> Works = {
          Repeated(LoadK), Repeated(CopyK), Repeated(UpdateK), Repeated(TriadK)};
      runTogether(Works, T, Barrier, Counts, Spans, MinSeconds);
    } else {
      // One core: bytes per cycle at the clock beside each repetition (a
      // VM's clock moves by 20 %) and per second, over the repetitions that
      // had the core to themselves (quietPerCycle); in memory also beside a
      // quiet memory bus (neighbours' streams).
      std::optional<BusProbe> Bus;
      if (isMemoryLevel(Level))
        Bus.emplace();
      BusProbe *OnBus = Bus && *Bus ? &*Bus : nullptr;
      auto Quiet = [&](auto Kernel, Measured &PerCycle, Measured &GBs) {
        QuietRate Q = quietPerCycle(Repeated(Kernel), MinSeconds, Reps, OnBus);
        if (OnBus) {
          P.BusQuiet += Q.Kept;
          P.BusTotal += Q.Total;
        }
        PerCycle = Q.PerCycle;
        GBs = Q.PerSecond;
        for (double *V : {&GBs.Median, &GBs.Min, &GBs.Max})
          *V /= 1e9;
      };
      Quiet(LoadK, P.LoadBytesPerCy, P.LoadGBs);
      Quiet(CopyK, P.CopyBytesPerCy, P.CopyGBs);
      Quiet(UpdateK, P.UpdateBytesPerCy, P.UpdateGBs);
      Quiet(TriadK, P.TriadBytesPerCy, P.TriadGBs);
      // Through volatile pointers: the calls a replaced loop makes, not
      // code the compiler inlines for a size it knows; bytes written.
      void *(*volatile Copier)(void *, const void *, size_t) = std::memcpy;
      void *(*volatile Filler)(void *, int, size_t) = std::memset;
      Quiet(
          [&] {
            Copier(C.get(), B.get(), NC * sizeof(double));
            return double(NC * sizeof(double));
          },
          P.MemcpyBytesPerCy, P.MemcpyGBs);
      Quiet(
          [&] {
            Filler(A.get(), 0, NL * sizeof(double));
            return double(NL * sizeof(double));
          },
          P.MemsetBytesPerCy, P.MemsetGBs);
    }
    if (Cached && Threads == 1) {
      size_t M = std::max<uint64_t>(16, Cached / 8 / 16 * 16);
      Buffer K = allocate(2 * M);
      if (!K)
        return;
      P.CachedBytes = M * 8;
      // One pass of each, back to back, per repetition (a pass over memory
      // outlasts MinSeconds): their ratio is what matters, and a VM's
      // memory moves between repetitions.
      auto Pass = [](auto Kernel) {
        auto T0 = Clock::now();
        double Bytes = Kernel();
        double S = seconds(T0, Clock::now());
        return S > 0 ? Bytes / S / 1e9 : 0.0;
      };
      // FIRST and SECOND in turns, 2 x Reps + 1 passes each, GB/s.
      auto InTurns = [&](auto First, auto Second, Measured &OfFirst, Measured &OfSecond) {
        std::vector<double> A, Z;
        for (unsigned R = 0; R < 2 * Reps + 1; ++R) {
          A.push_back(Pass(First));
          Z.push_back(Pass(Second));
        }
        OfFirst = summarise(std::move(A));
        OfSecond = summarise(std::move(Z));
      };
      InTurns([&] { return copyCachedKernel(C.get(), B.get(), NC, K.get(), M, Bits); },
              [&] { return copyKernel(C.get(), B.get(), NC, Bits); }, P.CopyCachedGBs,
              P.CopyBesideGBs);
      InTurns([&] { return sumChainKernel(B.get(), NC); },
              [&] { return loadKernel(B.get(), NC, Bits); }, P.SumChainGBs, P.SumBesideGBs);
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Body, T);
  Body(0);
  for (std::thread &Th : Pool)
    Th.join();
  // Per repetition, all threads' bytes over its span (GB/s).
  auto Sum = [&](const std::vector<std::vector<Span>> &V) {
    std::vector<double> S = jointRates(V);
    for (double &X : S)
      X /= 1e9;
    return summarise(S);
  };
  if (Threads > 1) {
    P.LoadGBs = Sum(Spans[0]);
    P.CopyGBs = Sum(Spans[1]);
    P.UpdateGBs = Sum(Spans[2]);
    P.TriadGBs = Sum(Spans[3]);
    P.LoadPerTriad = summarise(jointRatios(Spans[0], Spans[3]));
    P.CopyPerTriad = summarise(jointRatios(Spans[1], Spans[3]));
    P.UpdatePerTriad = summarise(jointRatios(Spans[2], Spans[3]));
  }
  return P;
}

/// The port slots of a split access (an in-line one: 1) from a stream where
/// every other access splits: t_half = (1 + cost) / 2 x t_inline.
Measured lineSplitCost(bool Store, double MinSeconds, unsigned Reps) {
  char *Buf = static_cast<char *>(std::aligned_alloc(4096, 4096));
  if (!Buf)
    return Measured();
  std::fill(Buf, Buf + 4096, char(0));
  Measured M = paired(
      [&](uint64_t N) { return lineAccessKernel(Buf, Store, 0, N * 64); },
      [&](uint64_t N) { return lineAccessKernel(Buf, Store, 16, N * 64); },
      [](double InLine, double Half) { return 2 * InLine / Half - 1; }, MinSeconds, Reps);
  std::free(Buf);
  return M;
}

/// Cycles per group of 8 ymm (with ZMM 4 zmm) and 8 integer loads together,
/// against the add chain timed beside each repetition.
Measured mixedLoads(bool Zmm, double MinSeconds, unsigned Reps) {
  char *Buf = static_cast<char *>(std::aligned_alloc(4096, 4096));
  if (!Buf)
    return Measured();
  std::fill(Buf, Buf + 4096, char(0));
  Measured M = quietCyclesPer([&](uint64_t N) { return mixedLoadKernel(Buf, Zmm, N * 64); },
                              MinSeconds, Reps);
  std::free(Buf);
  return M;
}

/// A branch on random bytes: the cost of a misprediction (16 MiB, whose
/// pattern no predictor holds, against 8 KiB, whose pattern it learns: the
/// same instructions, half the branches mispredicted in the first) and the
/// share mispredicted for repeated patterns of 12 K to 768 K branches.
void measureBranches(ProbeResult &R, double MinSeconds, unsigned Reps) {
  constexpr size_t Big = size_t(16) << 20, Small = 8192;
  std::vector<uint8_t> V(Big);
  uint64_t X = 0x9e3779b97f4a7c15ull;
  for (uint8_t &B : V) { // xorshift: reproducible, no pattern a predictor finds
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
    B = uint8_t(X >> 56);
  }
  double GHz = R.ClockGHz.Median;
  auto PerByteNs = [&](size_t Bytes) {
    std::vector<double> Rates = rates(
        [&](uint64_t N) {
          uint64_t Passes = std::max<uint64_t>(1, N * 65536 / Bytes);
          return branchKernel(V.data(), Bytes, Passes);
        },
        MinSeconds, Reps);
    if (Rates.empty())
      return 0.0;
    std::sort(Rates.begin(), Rates.end());
    return 1e9 / Rates[Rates.size() / 2];
  };
  branchKernel(V.data(), Big, 1); // the first pass teaches nothing; warm the data
  R.MispredictCycles = paired(
      [&](uint64_t N) { return branchKernel(V.data(), Small, std::max<uint64_t>(1, N * 8)); },
      [&](uint64_t N) { return branchKernel(V.data(), Big, 1 + N / 2048); },
      [&](double Learned, double Random) { return 2 * (1 / Random - 1 / Learned) * 1e9 * GHz; },
      MinSeconds, Reps);
  double Learned = PerByteNs(Small), Random = PerByteNs(Big);
  if (!(Random > Learned) || GHz <= 0)
    return;
  for (uint64_t Bytes = 12288; Bytes <= (uint64_t(768) << 10); Bytes += Bytes / 2)
    R.BranchSweep.push_back({Bytes, (PerByteNs(Bytes) - Learned) / (Random - Learned) / 2});
}

/// Data-TLB misses: loads and stores one per page, pages 8 apart, 2048 of
/// them (beyond any TLB's reach at that stride: a TLB indexed by the page
/// number keeps entries / 8) against 64 (the L1 TLB holds them); the lines
/// stay in L2 either way. Then stores over pages 1 apart, 256 to 8192.
void measureTlb(ProbeResult &R, double MinSeconds, unsigned Reps) {
  constexpr uint64_t Page = 4096 / sizeof(double), Far = 2048, Near = 64;
  size_t Bytes = size_t(Far) * 8 * 4096;
  auto *B = static_cast<double *>(std::aligned_alloc(4096, Bytes));
  if (!B)
    return;
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  madvise(B, Bytes, MADV_NOHUGEPAGE); // the 4 KiB pages malloc'ed data gets
#endif
  std::memset(B, 0, Bytes);
  double GHz = R.ClockGHz.Median;
  auto Rounds = [](uint64_t N, uint64_t Pages) { return std::max<uint64_t>(1, N * 256 / Pages); };
  for (bool Store : {false, true})
    (Store ? R.TlbStoreMissCy : R.TlbLoadMissCy) = paired(
        [&](uint64_t N) { return tlbKernel(B, Near, Rounds(N, Near), 8 * Page, Store); },
        [&](uint64_t N) { return tlbKernel(B, Far, Rounds(N, Far), 8 * Page, Store); },
        [&](double Hit, double Miss) { return (1 / Miss - 1 / Hit) * 1e9 * GHz; }, MinSeconds,
        Reps);
  // Cycles per access of a kernel (the median repetition's).
  auto MedianCy = [&](auto Run) {
    std::vector<double> Rates = rates(Run, MinSeconds, Reps);
    if (Rates.empty())
      return 0.0;
    std::sort(Rates.begin(), Rates.end());
    return 1e9 / Rates[Rates.size() / 2] * GHz;
  };
  auto StoreCy = [&](uint64_t Pages) {
    return MedianCy([&](uint64_t N) { return tlbKernel(B, Pages, Rounds(N, Pages), Page, true); });
  };
  R.TlbHitStoreCy = StoreCy(Near);
  for (uint64_t Pages : {256, 512, 1024, 1536, 2048, 2560, 3072, 4096, 6144, 8192})
    if (Pages <= Far * 8)
      R.TlbSweep.push_back({Pages, StoreCy(Pages)});

  // The first level: its misses find the page in the last level (256 pages
  // 1 apart: within every last level, past every first) and take no walk.
  constexpr uint64_t L1Near = 16, L1Far = 256;
  for (bool Store : {false, true})
    (Store ? R.TlbL1StoreMissCy : R.TlbL1LoadMissCy) = paired(
        [&](uint64_t N) { return tlbL1Kernel(B, L1Near, Rounds(N, L1Near), Store); },
        [&](uint64_t N) { return tlbL1Kernel(B, L1Far, Rounds(N, L1Far), Store); },
        [&](double Hit, double Miss) { return (1 / Miss - 1 / Hit) * 1e9 * GHz; }, MinSeconds,
        Reps);
  auto LoadCy = [&](uint64_t Pages) {
    return MedianCy([&](uint64_t N) { return tlbL1Kernel(B, Pages, Rounds(N, Pages), false); });
  };
  R.TlbL1HitLoadCy = LoadCy(L1Near);
  for (uint64_t Pages = 24; Pages <= 160; Pages += 8)
    R.TlbL1Sweep.push_back({Pages, LoadCy(Pages)});
  std::free(B);
}

/// The window test (ProbeResult::LoadWindow): two chases through a random
/// cycle of 256 MiB of pointers on 4 KiB pages, fillers between the misses.
void measureWindow(ProbeResult &R, double MinSeconds, unsigned Reps) {
  const std::vector<unsigned> &Fillers = windowFillers();
  if (Fillers.empty())
    return;
  size_t Len = size_t(1) << 25;
  std::vector<void *> Ring(Len);
  randomCycle(Ring.data(), Len, 7);
  alignas(64) static char Buf[4096];
  std::mt19937_64 Pick(11);
  // Each run starts both chases at random places: a chase repeated from one
  // start would find its lines in the caches.
  auto Time = [&](bool Store, unsigned F) {
    std::vector<double> V = rates(
        [&](uint64_t N) {
          return windowKernel(Store, F, reinterpret_cast<void **>(&Ring[Pick() % Len]),
                              reinterpret_cast<void **>(&Ring[Pick() % Len]), N, Buf);
        },
        MinSeconds, Reps);
    return V.empty() ? 0.0 : summarise(V).Median;
  };
  // Every fourth filler count first, then every count just below the first
  // of those whose time reaches 1.5 x the reference's (the knee windowStep
  // finds); the reference (the fewest fillers) at the start, after the
  // coarse sweep and at the end, the median of the three: the time moves
  // with the host, not with each point.
  for (bool Store : {false, true}) {
    std::vector<unsigned> Grid;
    for (unsigned F : Fillers)
      if (!Store || F <= 128) // store queues: tens of entries
        Grid.push_back(F);
    // The coarse counts, the largest among them (the plateau beyond a knee
    // needs points).
    std::vector<size_t> Coarse;
    for (size_t I = 4; I < Grid.size(); I += 4)
      Coarse.push_back(I);
    if (Grid.size() > 1 && Coarse.back() != Grid.size() - 1)
      Coarse.push_back(Grid.size() - 1);
    std::map<unsigned, double> Rate;
    std::vector<double> Refs = {Time(Store, Grid.front())};
    for (size_t I : Coarse)
      Rate[Grid[I]] = Time(Store, Grid[I]);
    Refs.push_back(Time(Store, Grid.front()));
    for (size_t K = 0; K < Coarse.size(); ++K)
      if (size_t I = Coarse[K]; Rate[Grid[I]] > 0 && median(Refs) / Rate[Grid[I]] >= 1.5) {
        for (size_t J = K ? Coarse[K - 1] + 1 : 1; J < I; ++J)
          Rate[Grid[J]] = Time(Store, Grid[J]);
        break;
      }
    Refs.push_back(Time(Store, Grid.front()));
    double Ref = median(Refs);
    Rate[Grid.front()] = Ref;
    for (const auto &[F, At] : Rate)
      if (Ref > 0 && At > 0)
        (Store ? R.StoreWindow : R.LoadWindow).push_back({F, Ref / At});
  }
}

/// Independent loads and stores of WIDTH bytes in L1: accesses per cycle,
/// each repetition against the add chain timed beside it (a VM's clock
/// moves between repetitions).
PortPoint ports(unsigned Width, double MinSeconds, unsigned Reps) {
  PortPoint P;
  P.WidthBytes = Width;
  char *Buf = static_cast<char *>(std::aligned_alloc(4096, 4096));
  if (!Buf)
    return P;
  std::fill(Buf, Buf + 4096, char(0));
  // What the core does unshared: a neighbour's slots are not this machine.
  for (bool Store : {false, true})
    (Store ? P.StoresPerCycle : P.LoadsPerCycle) =
        quietPerCycle([&](uint64_t N) { return portKernel(Buf, Store, Width, N * 64); },
                      MinSeconds, Reps)
            .PerCycle;
  std::free(Buf);
  return P;
}

/// Pointer chases through BYTES of random 64-byte lines (a cyclic
/// permutation, so one chase visits every line): ns per access for each
/// count of chases interleaved, the chains started evenly along the cycle
/// (empty when the memory cannot be had). With HUGEPAGES the buffer asks for
/// 2 MiB pages, so a chase in a cache measures the cache, not page walks.
std::vector<Measured> chaseNs(uint64_t Bytes, const std::vector<unsigned> &ChainCounts,
                              double MinSeconds, unsigned Reps, bool HugePages) {
  std::vector<Measured> Out;
  uint64_t Lines = std::max<uint64_t>(Bytes / 64, 64);
  constexpr uint64_t Huge = 2 << 20;
  uint64_t Size = HugePages ? (Lines * 64 + Huge - 1) / Huge * Huge : Lines * 64;
  char *Buf = static_cast<char *>(std::aligned_alloc(HugePages ? Huge : 4096, Size));
  if (!Buf)
    return Out;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // A hint: without it the chase still runs. Without HUGEPAGES, the 4 KiB
  // pages malloc'ed data gets, even where THP is always on.
  madvise(Buf, Size, HugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
  std::vector<uint32_t> Order(Lines);
  uint64_t Rng = lineCycle(Buf, Order.data(), Lines);
  for (unsigned Chains : ChainCounts) {
    if (Chains == 0) {
      // Independent loads of random lines of the same buffer, 1 Mi of them
      // (what a gather's misses take): no second buffer to fault in.
      std::vector<uint32_t> Random(1 << 20);
      for (uint32_t &L : Random)
        L = uint32_t(nextRandom(Rng) % Lines);
      auto Loads = [&](uint64_t N) {
        double Made = 0;
        for (uint64_t I = 0; I < N; ++I)
          Made += randomLineLoadsKernel(Buf, Random.data(), Random.size());
        return Made;
      };
      Out.push_back(nsPerUnit(rates(Loads, MinSeconds, Reps)));
      continue;
    }
    // Each call starts its chains at a random place of the cycle, evenly
    // apart: a chase repeated from one start would find the lines its last
    // call walked in the caches (a few MiB of them, which an L3 keeps).
    std::vector<uint64_t> Starts(Chains);
    auto Chase = [&](uint64_t N) {
      uint64_t At = nextRandom(Rng);
      for (unsigned C = 0; C < Chains; ++C)
        Starts[C] = uint64_t(Order[(At + Lines * C / Chains) % Lines]) * 64;
      return chaseKernel(Buf, Starts.data(), Chains, N * 256 / Chains + 1);
    };
    Out.push_back(nsPerUnit(rates(Chase, MinSeconds, Reps)));
  }
  std::free(Buf);
  return Out;
}

/// One chase per set from 2 x L2 up to L3 in steps of 1.5, on huge pages:
/// (bytes, ns per access; 0 where the memory could not be had).
std::vector<std::pair<uint64_t, double>> l3Sweep(uint64_t L2, uint64_t L3, double MinSeconds,
                                                 unsigned Reps) {
  std::vector<std::pair<uint64_t, double>> Sweep;
  for (double S = 2.0 * double(L2); S <= 1.01 * double(L3); S *= 1.5) {
    uint64_t Bytes = uint64_t(S) / 64 * 64;
    std::vector<Measured> M = chaseNs(Bytes, {1}, MinSeconds, Reps, true);
    Sweep.push_back({Bytes, M.empty() ? 0 : M[0].Median});
  }
  return Sweep;
}

std::vector<double> streamNsPerLine(const std::vector<uint64_t> &Sizes, unsigned Bits,
                                   double MinSeconds, unsigned Reps) {
  std::vector<double> Out(Sizes.size(), 0.0);
  if (Sizes.empty())
    return Out;
  Buffer A = allocate(std::max<uint64_t>(64, Sizes.back() / 8));
  if (!A)
    return Out;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    size_t N = std::max<uint64_t>(64, Sizes[I] / 8 / 64 * 64);
    auto Load = [&](uint64_t Times) {
      double Bytes = 0;
      for (uint64_t T = 0; T < Times; ++T)
        Bytes += loadKernel(A.get(), N, Bits);
      return Bytes;
    };
    Measured M = summarise(rates(Load, MinSeconds, Reps));
    Out[I] = M.Median > 0 ? 64e9 / M.Median : 0;
  }
  return Out;
}

} // namespace perfmodel::probe::measure

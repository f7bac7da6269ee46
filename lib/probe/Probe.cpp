//===- Probe.cpp - Timed measurements of the host -------------------------===//
//
// Every figure is the median of repetitions, each long enough (>= 20 ms, or
// 5 ms in quick mode) for the clock to be meaningful; the spread of the
// repetitions is kept so the report can say how noisy the machine was.
//
//===----------------------------------------------------------------------===//
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

double perfmodel::median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t Mid = V.size() / 2;
  return V.size() % 2 ? V[Mid] : (V[Mid - 1] + V[Mid]) / 2;
}

namespace {

using Clock = std::chrono::steady_clock;

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

/// The next value of a xorshift64 generator (the probe's random orders:
/// repeatable, no library state).
uint64_t nextRandom(uint64_t &State) {
  State ^= State << 13;
  State ^= State >> 7;
  State ^= State << 17;
  return State;
}

void pin(unsigned Cpu) {
#if defined(__linux__)
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(Cpu, &Set);
  pthread_setaffinity_np(pthread_self(), sizeof(Set), &Set);
#else
  (void)Cpu;
#endif
}

struct AlignedFree {
  void operator()(double *P) const { std::free(P); }
};
using Buffer = std::unique_ptr<double[], AlignedFree>;

Buffer allocate(size_t Doubles) {
  size_t Bytes = (Doubles * sizeof(double) + 4095) / 4096 * 4096;
  auto *P = static_cast<double *>(std::aligned_alloc(4096, Bytes));
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

/// A read from memory beside a repetition, as validate's memory rows take
/// one: 1 MiB, a load a line, from a 64 MiB buffer walked on so that every
/// read misses; GB/s. Neighbours streaming on the memory bus lower it, which
/// the core's share of the adds does not show.
class BusProbe {
  static constexpr size_t Doubles = size_t(8) << 20, ReadDoubles = size_t(1) << 17;
  Buffer B = allocate(Doubles);
  size_t Next = 0;

public:
  explicit operator bool() const { return bool(B); }
  double read() {
    auto T0 = Clock::now();
    strideKernel(B.get() + Next, ReadDoubles, 8);
    double S = seconds(T0, Clock::now());
    Next = (Next + ReadDoubles) % Doubles;
    return S > 0 ? double(ReadDoubles * sizeof(double)) / S / 1e9 : 0;
  }
};

/// WORK's amount per cycle (each repetition against an add chain timed just
/// before it, as paired() does) over the repetitions taken while this thread
/// had the core: the integer and the FP adds per cycle before and after
/// (the lower) quiet (isQuiet) against the second highest seen
/// (ownReferences); with BUS (working sets in memory) also beside a quiet
/// memory bus, the lower of a memory read before and after at QuietShare of
/// the second highest or more (isQuietSample, as validate's rows). At least
/// 3 x REPS repetitions; all of them when fewer than REPS were quiet. A
/// median of contended repetitions is what a shared core or bus does, not
/// this machine.
struct QuietRate {
  Measured PerCycle, PerSecond;
  unsigned Kept = 0, Total = 0; ///< repetitions counted of those taken
};
template <typename F>
QuietRate quietPerCycle(F Work, double MinSeconds, unsigned Reps, BusProbe *Bus = nullptr) {
  uint64_t N = calibrate(Work, MinSeconds);
  struct Rep {
    double PerCycle, PerSecond;
    Sample Beside; ///< the core's share and the bus's rate around it
  };
  std::vector<Rep> Taken;
  // REPS quiet repetitions that settled (against the references of all
  // taken so far, at least two more than REPS) end it early: a quiet host
  // needs no more; a busy one gets up to three times REPS.
  auto Enough = [&] {
    if (Taken.size() < Reps + 2)
      return false;
    std::vector<Sample> Beside;
    for (const Rep &X : Taken)
      Beside.push_back(X.Beside);
    QuietReferences Refs = ownReferences(Beside);
    std::vector<double> Quiet;
    for (const Rep &X : Taken)
      if (isQuietSample(X.Beside, Refs))
        Quiet.push_back(X.PerCycle);
    return Quiet.size() >= Reps && settled(Quiet);
  };
  for (unsigned R = 0; R < 3 * std::max(1u, Reps) && !Enough(); ++R) {
    // The clock from a chain as long as half the work (the short one of
    // coreShare is for the share: a timer interrupt moves it by 10 %).
    double M0 = Bus ? Bus->read() : 0;
    double S0 = coreShare(), F0 = fpShare();
    std::vector<double> Cycles = rates(clockWork, MinSeconds / 2, 1);
    auto T0 = Clock::now();
    double Amount = Work(N);
    double Sec = seconds(T0, Clock::now());
    double S1 = coreShare(), F1 = fpShare();
    double M1 = Bus ? Bus->read() : 0;
    if (Sec > 0 && !Cycles.empty() && Cycles[0] > 0) {
      Sample Beside;
      Beside.AddsPerCycle = std::min(S0, S1);
      Beside.MemGBs = std::min(M0, M1);
      Beside.FpAddsPerCycle = std::min(F0, F1);
      Taken.push_back({Amount / Sec / Cycles[0], Amount / Sec, Beside});
    }
  }
  std::vector<Sample> Beside;
  for (const Rep &X : Taken)
    Beside.push_back(X.Beside);
  QuietReferences Refs = ownReferences(Beside); // no bus read: its reference is 0
  auto Quiet = [&](const Rep &X) { return isQuietSample(X.Beside, Refs); };
  unsigned Kept = unsigned(llvm::count_if(Taken, Quiet));
  bool UseQuiet = Kept >= Reps;
  std::vector<double> Cy, Sec;
  for (const Rep &X : Taken)
    if (!UseQuiet || Quiet(X)) {
      Cy.push_back(X.PerCycle);
      Sec.push_back(X.PerSecond);
    }
  return {summarise(Cy), summarise(Sec), unsigned(Cy.size()), unsigned(Taken.size())};
}

/// Cycles per unit of WORK's amount, from quietPerCycle.
template <typename F> Measured quietCyclesPer(F Work, double MinSeconds, unsigned Reps) {
  Measured M = quietPerCycle(Work, MinSeconds, Reps).PerCycle;
  auto Inv = [](double X) { return X > 0 ? 1 / X : 0; };
  double Lo = Inv(M.Max), Hi = Inv(M.Min);
  M.Median = Inv(M.Median);
  M.Min = Lo;
  M.Max = Hi;
  return M;
}

/// Load, copy and triad over WS bytes per thread on THREADS pinned threads
/// in vectors of BITS; the rates of all threads add up. With CACHED (bytes
/// per stream, one thread) also the copy beside two streams of that size.
BandwidthPoint bandwidth(const std::string &Level, uint64_t WS, unsigned Threads, unsigned Bits,
                         double MinSeconds, unsigned Reps, uint64_t Cached = 0) {
  BandwidthPoint P;
  P.Level = Level;
  P.WorkingSet = WS;
  P.Threads = Threads;
  // Element counts: multiples of 64 doubles.
  auto Round = [](uint64_t Doubles) { return std::max<uint64_t>(64, Doubles / 64 * 64); };
  std::vector<std::vector<double>> Load(Threads), Copy(Threads), Update(Threads),
      Triad(Threads);
  std::atomic<unsigned> Ready{0};
  auto Body = [&](unsigned T) {
    pin(T);
    size_t NL = Round(WS / 8), NC = Round(WS / 16), NT = Round(WS / 24);
    Buffer A = allocate(NL), B = allocate(NC), C = allocate(NC), X = allocate(NT),
           Y = allocate(NT), Z = allocate(NT);
    if (!A || !B || !C || !X || !Y || !Z)
      return;
    // Start together so the threads share the memory system while timed.
    Ready.fetch_add(1);
    while (Ready.load() < Threads)
      std::this_thread::yield();
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
      Load[T] = rates(Repeated(LoadK), MinSeconds, Reps);
      Copy[T] = rates(Repeated(CopyK), MinSeconds, Reps);
      Update[T] = rates(Repeated(UpdateK), MinSeconds, Reps);
      Triad[T] = rates(Repeated(TriadK), MinSeconds, Reps);
    } else {
      // One core: bytes per cycle at the clock beside each repetition (a
      // VM's clock moves by 20 %) and per second, over the repetitions that
      // had the core to themselves (quietPerCycle); in memory also beside a
      // quiet memory bus (neighbours' streams).
      std::optional<BusProbe> Bus;
      if (Level == "MEM")
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
      std::vector<double> Mixed, Plain;
      for (unsigned R = 0; R < 2 * Reps + 1; ++R) {
        Mixed.push_back(
            Pass([&] { return copyCachedKernel(C.get(), B.get(), NC, K.get(), M, Bits); }));
        Plain.push_back(Pass([&] { return copyKernel(C.get(), B.get(), NC, Bits); }));
      }
      P.CopyCachedGBs = summarise(Mixed);
      P.CopyBesideGBs = summarise(Plain);
    }
  };
  std::vector<std::thread> Pool;
  for (unsigned T = 1; T < Threads; ++T)
    Pool.emplace_back(Body, T);
  Body(0);
  for (std::thread &Th : Pool)
    Th.join();
  // Per repetition, the sum over threads (GB/s).
  auto Sum = [&](const std::vector<std::vector<double>> &V) {
    std::vector<double> S(Reps, 0);
    for (const auto &PerThread : V)
      for (size_t R = 0; R < PerThread.size() && R < Reps; ++R)
        S[R] += PerThread[R] / 1e9;
    return summarise(S);
  };
  if (Threads > 1) {
    P.LoadGBs = Sum(Load);
    P.CopyGBs = Sum(Copy);
    P.UpdateGBs = Sum(Update);
    P.TriadGBs = Sum(Triad);
  }
  return P;
}

/// F(a, b) of two kernels' rates timed back to back in each repetition, so
/// both see the same clock and neighbours; repeated until settled as rates()
/// does. A and B return what they did for a size N.
template <typename A, typename B, typename F>
Measured paired(A RunA, B RunB, F Combine, double MinSeconds, unsigned Reps) {
  std::vector<double> Out;
  for (unsigned R = 0; R < Reps || (R < 3 * Reps && !settled(Out)); ++R) {
    std::vector<double> X = rates(RunA, MinSeconds / 2, 1), Y = rates(RunB, MinSeconds / 2, 1);
    if (!X.empty() && !Y.empty() && X[0] > 0 && Y[0] > 0)
      Out.push_back(Combine(X[0], Y[0]));
  }
  return summarise(Out);
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
  {
    std::vector<uint32_t> Order(Len);
    std::iota(Order.begin(), Order.end(), 0u);
    std::mt19937_64 Rng(7);
    std::shuffle(Order.begin(), Order.end(), Rng);
    for (size_t I = 0; I < Len; ++I)
      Ring[Order[I]] = &Ring[Order[(I + 1) % Len]];
  }
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
  if (HugePages)
    madvise(Buf, Size, MADV_HUGEPAGE); // a hint: without it the chase still runs
#endif
  std::vector<uint32_t> Order(Lines);
  for (uint64_t I = 0; I < Lines; ++I)
    Order[I] = uint32_t(I);
  uint64_t Rng = 0x9e3779b97f4a7c15ULL;
  for (uint64_t I = Lines - 1; I > 0; --I)
    std::swap(Order[I], Order[nextRandom(Rng) % (I + 1)]);
  for (uint64_t I = 0; I < Lines; ++I)
    *reinterpret_cast<uint64_t *>(Buf + uint64_t(Order[I]) * 64) =
        uint64_t(Order[(I + 1) % Lines]) * 64;
  for (unsigned Chains : ChainCounts) {
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

/// Independent loads of random lines over BYTES (4 KiB pages, as a chase in
/// memory): ns per access. One line a load, through 1 Mi random indices;
/// nothing limits them but the misses the core keeps in flight.
Measured randomLoadNs(uint64_t Bytes, double MinSeconds, unsigned Reps) {
  uint64_t Lines = std::max<uint64_t>(Bytes / 64, 64);
  auto *X = static_cast<double *>(std::aligned_alloc(4096, Lines * 64));
  if (!X)
    return Measured();
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  madvise(X, Lines * 64, MADV_NOHUGEPAGE); // the 4 KiB pages malloc'ed data gets
#endif
  std::memset(X, 0, Lines * 64);
  std::vector<uint32_t> Idx(1 << 20);
  uint64_t Rng = 0x2545f4914f6cdd1dULL;
  for (uint32_t &I : Idx)
    I = uint32_t(nextRandom(Rng) % Lines * 8);
  std::vector<double> V = rates(
      [&](uint64_t N) {
        double Loads = 0;
        for (uint64_t I = 0; I < N; ++I)
          Loads += randomLoadsKernel(X, Idx.data(), Idx.size());
        return Loads;
      },
      MinSeconds, Reps);
  std::free(X);
  return nsPerUnit(std::move(V));
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

} // namespace

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

HostMemory perfmodel::measureHostMemory(uint64_t Bytes) {
  HostMemory H;
#if defined(__x86_64__)
  constexpr double MinSeconds = 0.02;
  constexpr unsigned Reps = 3;
  std::vector<Measured> Chases = chaseNs(Bytes, {1, 32}, MinSeconds, Reps, true);
  if (Chases.size() == 2) {
    H.LatencyNs = Chases[0].Median;
    H.InFlight = missesInFlight(H.LatencyNs, Chases[1].Median);
  }
  size_t N = std::max<uint64_t>(64, Bytes / 8 / 64 * 64);
  Buffer A = allocate(N);
  if (!A)
    return H;
  unsigned Bits = compilerVectorBits(identifyCpu(hostCpuid()));
  std::vector<double> V = rates(
      [&](uint64_t Passes) {
        double Moved = 0;
        for (uint64_t I = 0; I < Passes; ++I)
          Moved += loadKernel(A.get(), N, Bits);
        return Moved;
      },
      MinSeconds, Reps);
  H.FillGBs = summarise(V).Median / 1e9;
#else
  (void)Bytes;
#endif
  return H;
}

double perfmodel::missesInFlight(double LatencyNs, double ParallelNs) {
  return LatencyNs > 0 && ParallelNs > 0 ? LatencyNs / ParallelNs : 0;
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

namespace {

std::string today() {
  std::time_t T = std::time(nullptr);
  char Buf[16];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%d", std::gmtime(&T));
  return Buf;
}

} // namespace

ProbeResult perfmodel::runProbe(const ProbeOptions &O) {
  ProbeResult R;
  R.Date = today();
  R.Cpu = identifyCpu(hostCpuid());
#if defined(__linux__)
  long N = sysconf(_SC_NPROCESSORS_ONLN);
  R.OnlineCpus = N > 0 ? unsigned(N) : 1;
#endif
  unsigned Threads = O.Threads ? std::min(O.Threads, R.OnlineCpus) : R.OnlineCpus;
  double MinSeconds = O.Quick ? 0.005 : 0.01;
  unsigned Reps = O.Quick ? 3 : 5;
#if !defined(__x86_64__)
  R.Notes.push_back("not an x86-64 host: the probe cannot measure here");
  return R;
#endif
  const CpuIdentity &C = R.Cpu;
  R.StreamBits = compilerVectorBits(C);
  std::vector<std::pair<Isa, std::string>> Isas = {{Isa::Scalar, "scalar"}, {Isa::Sse, "sse"}};
  if (C.Avx2 && C.Fma)
    Isas.push_back({Isa::Avx2, "avx2"});
  if (C.Avx512f)
    Isas.push_back({Isa::Avx512, "avx512"});

  // Working sets per level, from CPUID (shared levels: a share that surely
  // fits, as CPUID may describe the whole package).
  auto Size = [&](unsigned Level) -> uint64_t {
    for (const ProbedCache &K : C.Caches)
      if (K.Level == Level)
        return K.SizeBytes;
    return 0;
  };
  uint64_t L1 = Size(1) ? Size(1) : 32 << 10, L2 = Size(2) ? Size(2) : 256 << 10,
           L3 = Size(3);
  std::vector<std::pair<std::string, uint64_t>> Sets = {{"L1", L1 / 2}, {"L2", L2 / 2}};
  if (L3)
    Sets.push_back({"L3", std::clamp<uint64_t>(L3 / 4, 4 * L2, 16 << 20)});
  uint64_t Mem = O.Quick ? (uint64_t(96) << 20) : (uint64_t(256) << 20);
  Sets.push_back({"MEM", Mem});
  if (Size(1) == 0)
    R.Notes.push_back("CPUID gives no cache geometry: working sets assume a 32 KiB L1 "
                      "and a 256 KiB L2");

  unsigned Total = 12 + unsigned(Isas.size()) * 2 + unsigned(Sets.size()) * 2 + 1;
  unsigned Done = 0;
  auto Started = std::chrono::steady_clock::now();
  auto Step = [&](const std::string &What) {
    auto Now = std::chrono::steady_clock::now();
    if (!R.StepSeconds.empty())
      R.StepSeconds.back().second = std::chrono::duration<double>(Now - Started).count();
    Started = Now;
    if (What != "done")
      R.StepSeconds.push_back({What, 0});
    if (O.Progress)
      O.Progress(Done++, Total, What);
  };

  Step("clock (dependent add chain)");
  R.ClockGHz = measureClock(MinSeconds, Reps);
  for (const auto &IsaName : Isas)
    for (bool Fma : {true, false}) {
      Isa I = IsaName.first;
      const std::string &Name = IsaName.second;
      if (Fma && !C.Fma)
        continue;
      Step("peak flop/s, " + Name + (Fma ? " FMA" : " add+mul"));
      PeakPoint P;
      P.Isa = Name;
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
  Step("latencies (dependent chains)");
  if (C.Avx2 && C.Fma) {
    for (const char *Kind : {"add", "mul", "fma", "div", "sqrt+add"}) {
      bool Sqrt = std::string_view(Kind) == "sqrt+add";
      double AddCy = R.Latencies.count("add") ? R.Latencies["add"].Median : 0;
      // Cycles per link; less the add that keeps sqrt inexact.
      R.Latencies[Sqrt ? "sqrt" : Kind] = paired(
          [&](uint64_t N) { return latencyKernel(Kind, N * 64); }, clockWork,
          [&](double Ops, double Cycles) { return Cycles / Ops - (Sqrt ? AddCy : 0); },
          MinSeconds, Reps);
    }
  }
  Step("divider throughput");
  for (const ThroughputKernel &K : dividerKernels()) {
    if (!C.Avx2 || (std::string_view(K.Form).find("zmm") != std::string_view::npos &&
                    !C.Avx512f))
      continue;
    R.Dividers.push_back(
        {K.Form, quietCyclesPer([&](uint64_t N) { return K.Run(N * 256); }, MinSeconds, Reps)});
  }
  Step("shuffle throughput");
  if (C.Avx2)
    for (const ThroughputKernel &K : shuffleKernels())
      R.Shuffles.push_back(
          {K.Form, quietCyclesPer([&](uint64_t N) { return K.Run(N * 1024); }, MinSeconds, Reps)});
  Step("FMAs beside FP stores");
  if (C.Avx2 && C.Fma) {
    alignas(64) static char Buf[512];
    for (bool Stores : {false, true})
      (Stores ? R.FmaStoresCy : R.FmaAloneCy) = quietCyclesPer(
          [&](uint64_t N) { return fmaStoreKernel(Buf, Stores, N * 256); }, MinSeconds, Reps);
  }
  Step("library calls (libm, libmvec)");
  if (!libraryCalls().empty()) {
    auto PerElement = [&](const char *Symbol) {
      return quietCyclesPer([&](uint64_t N) { return libraryCallKernel(Symbol, N * 1024); },
                            MinSeconds, Reps);
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
  Step("load and store ports (independent accesses per width)");
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
  Step("line-split loads and stores");
  if (C.Avx) {
    R.LineSplitLoad = lineSplitCost(false, MinSeconds, Reps);
    R.LineSplitStore = lineSplitCost(true, MinSeconds, Reps);
  }
  Step("branch mispredictions");
  measureBranches(R, MinSeconds, Reps);
  Step("data-TLB misses");
  measureTlb(R, MinSeconds, Reps);
  Step("load and store queues (two misses, fillers between them)");
  measureWindow(R, MinSeconds, Reps);
  // The L3 point inside what this host keeps of the L3 now (a VM's share
  // of a shared L3 can be a few MiB of 32): beyond it the L3's streams and
  // memcpy come partly from memory. Half of it, as validate sizes its rows.
  if (L3) {
    Step("L3 capacity kept now (pointer chases)");
    uint64_t Kept = measureKeptL3(L2, L3);
    for (auto &[Level, WS] : Sets)
      if (Level == "L3" && keptL3IsAShare(Kept, L3) && Kept / 2 < WS) {
        WS = std::max<uint64_t>(2 * L2, Kept / 2);
        R.Notes.push_back("this host keeps about " + formatByteSize(Kept) + " of the " +
                          formatByteSize(L3) + " L3 now: the L3 bandwidth set is " +
                          formatByteSize(WS));
      }
  }
  for (const auto &[Level, WS] : Sets) {
    Step("bandwidth, " + Level + ", one core");
    // In memory also the copy beside two streams that stay in the L2.
    R.Bandwidth.push_back(bandwidth(Level, WS, 1, R.StreamBits, MinSeconds, Reps,
                                    Level == "MEM" ? std::max(L1, L2 / 8) : 0));
  }
  if (Threads > 1)
    for (const auto &[Level, WS] : Sets) {
      Step("bandwidth, " + Level + ", " + std::to_string(Threads) + " cores");
      // Private levels: each core its own set of the same size; shared ones
      // (L3, memory): the set split between the cores.
      uint64_t PerThread = Level == "MEM"  ? std::max<uint64_t>(32 << 20, WS / Threads)
                           : Level == "L3" ? std::max<uint64_t>(L2, WS / Threads)
                                           : WS;
      R.Bandwidth.push_back(
          bandwidth(Level, PerThread, Threads, R.StreamBits, MinSeconds, Reps));
    }
  // Latency of each level and misses in flight (Little's law's inputs):
  // one chase per level; in memory also 32 chases at once.
  Step("latency (pointer chases) and misses in flight");
  for (const auto &[Level, WS] : Sets) {
    std::vector<unsigned> Counts = {1};
    if (Level == "MEM")
      Counts.push_back(32);
    // The L3 chase at three L2s: a shared L3 on a busy host (or a VM's
    // slice of it) keeps far less than its size for one slow random walk.
    // A random line is then in the L2 with odds L2 / set, so the L3's own
    // latency is (t - f t_L2) / (1 - f).
    uint64_t Set = Level == "L3" ? 3 * L2 : WS;
    // Caches on huge pages (their latency); memory on the 4 KiB pages that
    // programs' arrays get, whose page walks a random access also waits.
    std::vector<Measured> M = chaseNs(Set, Counts, MinSeconds, Reps, Level != "MEM");
    if (!M.empty() && Level == "L3" && R.ChaseNs.count("L2")) {
      double F = double(L2) / double(Set), T2 = R.ChaseNs["L2"].Median;
      for (double *X : {&M[0].Median, &M[0].Min, &M[0].Max})
        *X = std::max(T2, (*X - F * T2) / (1 - F));
    }
    if (!M.empty())
      R.ChaseNs[Level] = M[0];
    if (M.size() > 1)
      R.ParallelChaseNs = M[1];
    if (Level == "MEM")
      R.RandomLoadNs = randomLoadNs(Set, MinSeconds, Reps);
  }
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
  // The L3 capacity this host keeps (a VM's share of a shared L3, or one
  // that neighbours fill, can be a fraction of what CPUID says): sets from
  // two L2s up to CPUID's L3 in steps of 1.5, two sweeps, the slower chase
  // of the two per set (the capacity one can count on).
  if (L3 && !O.Quick) {
    Step("L3 capacity (chases from 2 x L2 to the L3)");
    R.L3Sweep = l3Sweep(L2, L3, MinSeconds, Reps);
    std::vector<std::pair<uint64_t, double>> Again = l3Sweep(L2, L3, MinSeconds, Reps);
    for (size_t I = 0; I < R.L3Sweep.size() && I < Again.size(); ++I)
      R.L3Sweep[I].second = std::max(R.L3Sweep[I].second, Again[I].second);
  }
  Step("done");
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

Measured perfmodel::measureClock(double MinSeconds, unsigned Reps) {
#if defined(__x86_64__)
  return summarise(rates(
      [](uint64_t N) {
        addChain(N);
        return double(N) * 64 / 1e9; // giga-cycles
      },
      MinSeconds, Reps));
#else
  (void)MinSeconds;
  (void)Reps;
  return Measured(); // the add chain is x86-64 code
#endif
}

unsigned perfmodel::windowStep(const std::vector<std::pair<unsigned, double>> &Sweep) {
  for (size_t I = 1; I + 2 < Sweep.size(); ++I)
    if (Sweep[I].second >= 1.5 && Sweep[I + 1].second >= 1.5 && Sweep[I + 2].second >= 1.5)
      return Sweep[I - 1].first;
  return 0;
}

uint64_t perfmodel::effectiveL3Bytes(const std::vector<std::pair<uint64_t, double>> &Sweep,
                                     double L3Ns, double MemNs) {
  if (L3Ns <= 0 || MemNs <= L3Ns)
    return 0;
  // The geometric mean: a set whose chase takes it misses the L3 on about
  // a quarter of its lines or more (the arithmetic midpoint, half).
  double Mid = std::sqrt(L3Ns * MemNs);
  uint64_t Kept = 0;
  for (const auto &[Bytes, Ns] : Sweep) { // smallest first
    if (Ns <= 0 || Ns > Mid)
      break;
    Kept = Bytes;
  }
  return Kept;
}

uint64_t perfmodel::measureKeptL3(uint64_t L2Bytes, uint64_t L3Bytes, double MinSeconds,
                                  unsigned Reps) {
  if (!L2Bytes || L3Bytes <= 2 * L2Bytes)
    return 0;
  std::vector<std::pair<uint64_t, double>> Sweep = l3Sweep(L2Bytes, L3Bytes, MinSeconds, Reps);
  if (std::any_of(Sweep.begin(), Sweep.end(), [](const auto &P) { return P.second <= 0; }))
    return 0;
  std::vector<Measured> Mem = chaseNs(4 * L3Bytes, {1}, MinSeconds, Reps, true);
  if (Mem.empty() || Sweep.empty())
    return 0;
  return effectiveL3Bytes(Sweep, Sweep.front().second, Mem[0].Median);
}

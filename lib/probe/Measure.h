//===- Measure.h - The probe's measurements (internal) ---------*- C++ -*-===//
//
// Timing with repetitions on an unshared core: quiet samples beside probes
// of the core, the FP pipes and the memory bus; then each figure the probe
// measures (bandwidths per level, ports, line splits, branches, the TLB,
// the window, chases, the L3 kept). Measure.cpp; runProbe (Probe.cpp)
// puts them together.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PROBE_MEASURE_H
#define PERFMODEL_PROBE_MEASURE_H

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

namespace perfmodel::probe::measure {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point A, Clock::time_point B);

/// Rates (units a second) as ns a unit, summarised: chases and random
/// loads are timed as throughput and reported as time per access.
Measured nsPerUnit(std::vector<double> Rates);

struct AlignedFree {
  void operator()(double *P) const { std::free(P); }
};

using Buffer = std::unique_ptr<double[], AlignedFree>;

Buffer allocate(size_t Doubles);

double clockWork(uint64_t N);

/// Operations per cycle of KERNEL (N calls of it retire OPSPERCALL x N
/// independent operations) against a dependent add chain timed just before.
double opsPerChainCycle(void (*Kernel)(uint64_t), double OpsPerCall);

/// The independent adds per cycle this thread retires now: about the core's
/// ALU count when no neighbour shares the physical core (on a VM, another
/// guest's thread takes 20-40 % of its slots now and then). About 0.2 ms.
double coreShare();

/// The independent FP adds per cycle: about the core's FP adders when no
/// neighbour's FP work shares them; the integer share does not see such a
/// neighbour.
double fpShare();

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
                         double MinSeconds, unsigned Reps, uint64_t Cached = 0);
/// The load kernel over WS bytes on this thread: bytes per cycle at the
/// clock beside each repetition, over those that had the core.
Measured loadBytesPerCycle(uint64_t WS, unsigned Bits, double MinSeconds, unsigned Reps,
                           bool Downwards = false);
/// A column read over LINES lines STRIDEBYTES apart on this thread (each
/// call the next element of each line): bytes of lines per cycle.
Measured stridedLoadBytesPerCycle(uint64_t Lines, unsigned StrideBytes, double MinSeconds,
                                  unsigned Reps);

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
Measured lineSplitCost(bool Store, double MinSeconds, unsigned Reps);

/// Cycles per group of 8 ymm (with ZMM 4 zmm) and 8 integer loads together,
/// against the add chain timed beside each repetition.
Measured mixedLoads(bool Zmm, double MinSeconds, unsigned Reps);

/// A branch on random bytes: the cost of a misprediction (16 MiB, whose
/// pattern no predictor holds, against 8 KiB, whose pattern it learns: the
/// same instructions, half the branches mispredicted in the first) and the
/// share mispredicted for repeated patterns of 12 K to 768 K branches.
void measureBranches(ProbeResult &R, double MinSeconds, unsigned Reps);

/// Data-TLB misses: loads and stores one per page, pages 8 apart, 2048 of
/// them (beyond any TLB's reach at that stride: a TLB indexed by the page
/// number keeps entries / 8) against 64 (the L1 TLB holds them); the lines
/// stay in L2 either way. Then stores over pages 1 apart, 256 to 8192.
void measureTlb(ProbeResult &R, double MinSeconds, unsigned Reps);

/// The window test (ProbeResult::LoadWindow): two chases through a random
/// cycle of 256 MiB of pointers on 4 KiB pages, fillers between the misses.
void measureWindow(ProbeResult &R, double MinSeconds, unsigned Reps);

/// Independent loads and stores of WIDTH bytes in L1: accesses per cycle,
/// each repetition against the add chain timed beside it (a VM's clock
/// moves between repetitions).
PortPoint ports(unsigned Width, double MinSeconds, unsigned Reps);

/// Pointer chases through BYTES of random 64-byte lines (a cyclic
/// permutation, so one chase visits every line): ns per access for each
/// count of chases interleaved, the chains started evenly along the cycle
/// (empty when the memory cannot be had); a count of 0: independent loads of
/// 1 Mi random lines of the same buffer instead (a gather's misses). With
/// HUGEPAGES the buffer asks for 2 MiB pages, so a chase in a cache measures
/// the cache, not page walks; without, 4 KiB pages, as arrays get them.
std::vector<Measured> chaseNs(uint64_t Bytes, const std::vector<unsigned> &ChainCounts,
                              double MinSeconds, unsigned Reps, bool HugePages);

/// One chase per set from 2 x L2 up to L3 in steps of 1.5, on huge pages:
/// (bytes, ns per access; 0 where the memory could not be had).
std::vector<std::pair<uint64_t, double>> l3Sweep(uint64_t L2, uint64_t L3, double MinSeconds,
                                                 unsigned Reps);

/// A load stream (loads BITS wide) over the first bytes of one buffer for
/// each of SIZES (ascending; 4 KiB pages, as arrays get them): ns per
/// 64-byte line, 0 where the memory could not be had.
std::vector<double> streamNsPerLine(const std::vector<uint64_t> &Sizes, unsigned Bits,
                                   double MinSeconds, unsigned Reps);

} // namespace perfmodel::probe::measure

#endif

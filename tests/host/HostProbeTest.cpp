// Checks that time this host: the probe's clock and memory (HostCliTest.cpp:
// the subcommands that run timed harnesses). Timings are not tests: each
// check is a limit no x86-64 host falls outside of, or two measurements of
// one run held to each other, so that they cannot flake on a busy 2-vCPU VM.
// Label "host" (ctest -L host, or -LE host to leave them out).
#include "perfmodel/Probe.h"
#include "perfmodel/Validate.h"

#include <gtest/gtest.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace {

#if defined(__x86_64__)
volatile uint64_t Sink;

/// 16 dependent 64-bit multiplies an iteration: 3 cycles each on every
/// x86-64 core since Nehalem and K10 (uops.info, IMUL (R64, R64): latency
/// 3 on Nehalem through Alder Lake and Zen 1 through Zen 5).
void imulChain(uint64_t N) {
  uint64_t X = 3;
  for (uint64_t I = 0; I < N; ++I)
    asm volatile(".rept 16\n\timul %0, %0\n\t.endr" : "+r"(X));
  Sink = X;
}

/// The clock from the multiply chain: its best of REPS runs of N iterations.
double imulClockGHz(uint64_t N, unsigned Reps) {
  double Best = 0;
  for (unsigned R = 0; R < Reps; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    imulChain(N);
    double S = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    Best = std::max(Best, double(N) * 16 * 3 / S / 1e9);
  }
  return Best;
}
#endif

} // namespace

TEST(HostProbe, ClockFromTheAddChainIsAPlausibleFrequency) {
#if defined(__x86_64__)
  // 64 dependent adds per iteration, one cycle each: giga-adds per second
  // is the clock in GHz. A wrong count per iteration (or a removed chain)
  // puts it far outside what any x86-64 core runs at.
  perfmodel::Measured C = perfmodel::measureClock(0.002, 5);
  // 5 repetitions, up to 3x as many while the middle half has not settled
  // (a busy host: other tests run on the other core).
  EXPECT_GE(C.Reps, 5u);
  EXPECT_LE(C.Reps, 15u);
  EXPECT_GT(C.Min, 0.3);
  EXPECT_LE(C.Min, C.Median);
  EXPECT_LE(C.Median, C.Max);
  EXPECT_LT(C.Max, 7.0);
  // analyze's quick look: exactly 7 timings of about 2 ms each (the doubling
  // scaled back), whatever their scatter, and the same clock within what a
  // VM's clock wanders between the two (the medians' 30 %).
  auto T0 = std::chrono::steady_clock::now();
  perfmodel::Measured Q = perfmodel::measureClock(0.002, 7, /*Exactly=*/true);
  double Took = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  EXPECT_EQ(Q.Reps, 7u);
  EXPECT_GT(Q.Median, 0.7 * C.Median);
  EXPECT_LT(Q.Median, 1.3 * C.Median);
  EXPECT_LT(Took, 0.25); // 14 ms of timings and at most 8 ms of doubling, on a busy host
#else
  EXPECT_EQ(perfmodel::measureClock(0.002, 5).Median, 0);
#endif
}

// The add chain's clock (64 adds of 1 cy an iteration) and the multiply
// chain's (16 multiplies of 3 cy) are two readings of one clock: a wrong count
// per iteration in either, or a factor of 2 in the arithmetic, puts their
// ratio at 2 or 1/2. Each is the best of its repetitions (a neighbour only
// slows a run down), taken in turns so that a clock change hits both.
TEST(HostProbe, AddAndMultiplyChainsReadTheSameClock) {
#if defined(__x86_64__)
  double Add = 0, Mul = 0;
  for (int Turn = 0; Turn < 5; ++Turn) {
    Add = std::max(Add, perfmodel::measureClock(0.005, 3).Max);
    Mul = std::max(Mul, imulClockGHz(100000, 3));
  }
  ASSERT_GT(Mul, 0);
  EXPECT_NEAR(Add / Mul, 1.0, 0.15) << "add chain " << Add << " GHz, multiply chain " << Mul;
#else
  GTEST_SKIP() << "the chains are x86-64 code";
#endif
}

TEST(HostProbe, ParallelLoopCostIsMeasuredPerThreadCount) {
  // bench/openmp/forkjoin.c's loop: 0.32-0.76 us on one thread and 0.67-2.4
  // on two on the Zen 5 VMs so far; a unit slip (ns, ms) or a parse that
  // mixes the rows fails the bounds.
  std::string Err;
  std::map<unsigned, double> Us = perfmodel::measureParallelLoopUs(2, Err);
  ASSERT_EQ(Us.size(), 2u) << Err;
  for (const auto &[Threads, V] : Us) {
    EXPECT_GT(V, 0.02) << Threads;
    EXPECT_LT(V, 100) << Threads;
  }
}

// What analyze measures for a model of the host that states no memory
// figure for one core: on x86-64 a latency, the misses in flight (Little's
// law on 32 chases: at least one, since 32 chases cannot be slower per line
// than one; at most twice the 32 chains: on the Zen 5 VM quiet pairs give
// 31-33, 19-44 with three busy neighbours on its two vCPUs, the walks of 32
// chains sharing what one chain's pays alone) and the fills of a load stream.
// Figures are the host's: the limits are what no x86-64 core falls outside
// of (a random chase over 64 MiB passes any L2 and most L3s and pays page
// walks: more than 5 ns; DRAM behind a VM: under 20 us, the sanitizer
// build beside a busy neighbour having taken 5 us; one core fills at 1 to
// 400 GB/s), so that a unit slip (ns for s or us, MB for GB) fails.
TEST(HostProbe, HostMemoryIsMeasured) {
#if defined(__x86_64__)
  perfmodel::HostMemory H = perfmodel::measureHostMemory(uint64_t(64) << 20);
  EXPECT_GT(H.LatencyNs, 5);
  EXPECT_LT(H.LatencyNs, 20000);
  EXPECT_GE(H.InFlight, 1);
  EXPECT_LE(H.InFlight, 64);
  EXPECT_GT(H.FillGBs, 1);
  EXPECT_LT(H.FillGBs, 400);
#else
  perfmodel::HostMemory H = perfmodel::measureHostMemory(uint64_t(64) << 20);
  EXPECT_EQ(H.FillGBs, 0);
#endif
}

// With the streams (validate's figures): the fitted fills in the same range
// as the load stream's, write-backs at a rate of their own or none seen
// (0), and two threads' triad together above one core's fills' 1 GB/s.
TEST(HostProbe, HostMemoryStreamsAreMeasured) {
#if defined(__x86_64__)
  perfmodel::HostMemory H =
      perfmodel::measureHostMemory(uint64_t(64) << 20, /*Streams=*/true, /*Threads=*/2);
  EXPECT_GT(H.FitFillGBs, 1);
  EXPECT_LT(H.FitFillGBs, 400);
  EXPECT_GE(H.WritebackGBs, 0);
  EXPECT_LT(H.WritebackGBs, 4000);
  EXPECT_EQ(H.Threads, 2u);
  EXPECT_GT(H.AllCoresGBs, 1);
  EXPECT_LT(H.AllCoresGBs, 2000);
#endif
}

// Measuring pins the calling thread to CPU 0 while it streams; afterwards
// it has its CPUs back. A mask left at one CPU was inherited by every
// harness validate started later: its OpenMP rows ran their threads on
// one CPU (triad on two cores in L3 at 1.3 cy/it, 0.53 with the mask back).
TEST(HostProbe, MeasuringTheMemoryGivesTheThreadItsCpusBack) {
#if defined(__linux__)
  cpu_set_t Before, After;
  CPU_ZERO(&Before);
  CPU_ZERO(&After);
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof Before, &Before), 0);
  perfmodel::measureHostMemory(uint64_t(64) << 20, /*Streams=*/true, /*Threads=*/2);
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof After, &After), 0);
  EXPECT_EQ(CPU_COUNT(&After), CPU_COUNT(&Before));
  EXPECT_TRUE(CPU_EQUAL(&After, &Before));
#endif
}


//===- Repeat.h - Repetitions, calibration and their summary ----*- C++ -*-===//
//
// How the probe turns timed work into a figure: the work's size doubles until
// one call lasts the minimum, then repetitions run, more of them while their
// middle half has not settled, and the median stands with the spread. The
// clock is a parameter so that tests can drive the logic with a fake timer.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PROBE_REPEAT_H
#define PERFMODEL_PROBE_REPEAT_H

#include "perfmodel/Probe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace perfmodel::probe {

/// Seconds of the steady clock since an arbitrary origin.
inline double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Whether the middle half of the repetitions lies within 5 % of their
/// median: the bound the probe repeats towards on a shared machine.
inline bool settled(std::vector<double> V) {
  if (V.size() < 3)
    return false;
  std::sort(V.begin(), V.end());
  double Q1 = V[V.size() / 4], Q3 = V[(3 * V.size()) / 4], Med = V[V.size() / 2];
  return Med > 0 && (Q3 - Q1) / Med <= 0.05;
}

inline Measured summarise(std::vector<double> V) {
  Measured M;
  if (V.empty())
    return M;
  M.Settled = settled(V);
  std::sort(V.begin(), V.end());
  M.Reps = unsigned(V.size());
  M.Min = V.front();
  M.Max = V.back();
  M.Median = median(std::move(V));
  return M;
}

/// The N for which one call of WORK(N) lasts MINSECONDS (doubling from 1);
/// TOOK, if given, receives how long that last call took (MINSECONDS to
/// about twice that).
template <typename F, typename C = double (*)()>
uint64_t calibrate(F &Work, double MinSeconds, C Now = steadySeconds, double *Took = nullptr) {
  uint64_t N = 1;
  for (;;) {
    double T0 = Now();
    Work(N);
    double S = Now() - T0;
    if (S >= MinSeconds || N >= (uint64_t(1) << 40)) {
      if (Took)
        *Took = S;
      break;
    }
    N *= 2;
  }
  return N;
}

/// One thread's part of a repetition that several threads run together:
/// when it started and ended (seconds) and what it moved.
struct Span {
  double Start = 0, End = 0, Amount = 0;
};

/// The rate of one repetition run together: all that the threads moved over
/// the time from the first start to the last end. The sum of each thread's
/// own rate would count a thread that ran on after the others had finished
/// at the rate it had alone: two threads one after the other would read as
/// twice the bandwidth that either had.
inline double jointRate(const std::vector<Span> &Spans) {
  if (Spans.empty())
    return 0;
  double First = Spans.front().Start, Last = Spans.front().End, Amount = 0;
  for (const Span &S : Spans) {
    First = std::min(First, S.Start);
    Last = std::max(Last, S.End);
    Amount += S.Amount;
  }
  return Last > First ? Amount / (Last - First) : 0;
}

/// Threads waiting for each other, as many times as asked (spinning: a
/// repetition starts within microseconds on every core).
class SpinBarrier {
public:
  explicit SpinBarrier(unsigned Count) : Count(Count) {}
  void wait() {
    unsigned Gen = Generation.load();
    if (Waiting.fetch_add(1) + 1 == Count) {
      Waiting.store(0);
      Generation.fetch_add(1);
      return;
    }
    while (Generation.load() == Gen)
      std::this_thread::yield();
  }

private:
  const unsigned Count;
  std::atomic<unsigned> Waiting{0}, Generation{0};
};

/// Thread T's part of REPS repetitions of WORK that all THREADS threads of
/// BARRIER run together: each calibrates WORK to MINSECONDS, all take the
/// largest count (so every part lasts the minimum), and each repetition
/// starts at the barrier. SPANS (Reps x Threads, shared) receives every part; N (one slot
/// a thread, shared) the calibrations.
template <typename F>
void runTogether(F Work, unsigned T, SpinBarrier &Barrier, std::vector<uint64_t> &N,
                 std::vector<std::vector<Span>> &Spans, double MinSeconds) {
  Barrier.wait();
  N[T] = calibrate(Work, MinSeconds);
  Barrier.wait();
  uint64_t Count = *std::max_element(N.begin(), N.end());
  for (std::vector<Span> &Rep : Spans) {
    Barrier.wait();
    double T0 = steadySeconds();
    double Amount = Work(Count);
    Rep[T] = {T0, steadySeconds(), Amount};
  }
}

/// The joint rates of SPANS' repetitions.
inline std::vector<double> jointRates(const std::vector<std::vector<Span>> &Spans) {
  std::vector<double> Out;
  for (const std::vector<Span> &Rep : Spans)
    if (double R = jointRate(Rep); R > 0)
      Out.push_back(R);
  return Out;
}

/// Runs WORK(n) with n doubling until one call lasts MINSECONDS, then REPS
/// more calls, and up to 3 x REPS while they have not settled (a busy
/// neighbour); returns the rates (what WORK returns per second) of those.
template <typename F, typename C = double (*)()>
std::vector<double> rates(F Work, double MinSeconds, unsigned Reps, C Now = steadySeconds) {
  uint64_t N = calibrate(Work, MinSeconds, Now);
  std::vector<double> Out;
  for (unsigned R = 0; R < Reps || (Reps >= 3 && R < 3 * Reps && !settled(Out)); ++R) {
    double T0 = Now();
    double Amount = Work(N);
    double S = Now() - T0;
    if (S > 0)
      Out.push_back(Amount / S);
  }
  return Out;
}

} // namespace perfmodel::probe

#endif

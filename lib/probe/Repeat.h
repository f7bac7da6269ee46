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
#include <functional>
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

/// Spans of works run together: [work][repetition][thread].
using JointSpans = std::vector<std::vector<std::vector<Span>>>;

/// Thread T's part of REPS rounds of WORKS that all threads of BARRIER run
/// together: each thread calibrates each work to MINSECONDS, all take the
/// largest count (so every part lasts the minimum), and each round runs the
/// works one after the other, each started at the barrier: side by side, so
/// that their ratios see one host (a VM's memory moves by 2x in minutes).
/// SPANS (shared, sized Works x Reps x Threads) receives every part; N
/// (shared, Works x Threads) the calibrations.
template <typename F>
void runTogether(const std::vector<F> &Works, unsigned T, SpinBarrier &Barrier,
                 std::vector<std::vector<uint64_t>> &N, JointSpans &Spans, double MinSeconds) {
  Barrier.wait();
  for (size_t W = 0; W < Works.size(); ++W)
    N[W][T] = calibrate(Works[W], MinSeconds);
  Barrier.wait();
  std::vector<uint64_t> Count;
  for (const std::vector<uint64_t> &PerThread : N)
    Count.push_back(*std::max_element(PerThread.begin(), PerThread.end()));
  size_t Reps = Spans.empty() ? 0 : Spans.front().size();
  for (size_t R = 0; R < Reps; ++R)
    for (size_t W = 0; W < Works.size(); ++W) {
      Barrier.wait();
      double T0 = steadySeconds();
      double Amount = Works[W](Count[W]);
      Spans[W][R][T] = {T0, steadySeconds(), Amount};
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

/// Per round, the joint rate of work A over that of work B in the same
/// round (rounds where either has no span are left out).
inline std::vector<double> jointRatios(const std::vector<std::vector<Span>> &A,
                                       const std::vector<std::vector<Span>> &B) {
  std::vector<double> Out;
  for (size_t R = 0; R < A.size() && R < B.size(); ++R) {
    double X = jointRate(A[R]), Y = jointRate(B[R]);
    if (X > 0 && Y > 0)
      Out.push_back(X / Y);
  }
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

//===- ListScheduleTest.cpp - The list schedule's periodic jump ------------===//
//
// The list schedule jumps ahead whole periods once its state repeats. The
// jump must not change a single cycle: over bodies drawn at random (ports of
// one or two units, fractional unit cycles, chains within and across
// iterations, reorder buffer, queues, a front end that delivers late), the
// result with the jump equals the one of running every iteration.
//
//===----------------------------------------------------------------------===//
#include "ListSchedule.h"

#include <gtest/gtest.h>

#include <random>

using namespace perfmodel;

namespace {

struct Body {
  std::vector<InstrCost> Instrs;
  std::vector<unsigned> PortUnits, Issue;
  std::vector<std::vector<SchedEdge>> In;
  SchedQueues Queues;
  std::vector<double> Deliver;
  ScheduleInput Input;
};

Body randomBody(std::mt19937 &Rng, size_t N) {
  auto Pick = [&](unsigned Below) { return unsigned(Rng() % Below); };
  Body B;
  B.PortUnits = {1, 1, 2, 1, 1, 1};
  const double Cycles[] = {1, 1, 1, 1.27, 2, 0.5, 4, 0.3333};
  for (size_t I = 0; I < N; ++I) {
    InstrCost C;
    C.Latency = 1 + Pick(5) + (Pick(4) == 0 ? 0.37 : 0);
    for (unsigned D = 0, Ds = 1 + Pick(2); D < Ds; ++D) {
      std::vector<unsigned> Set;
      for (unsigned P = 0; P < B.PortUnits.size(); ++P)
        if (Pick(3) == 0)
          Set.push_back(P);
      if (Set.empty())
        Set.push_back(Pick(unsigned(B.PortUnits.size())));
      C.Demands.push_back({Set, Cycles[Pick(8)]});
    }
    C.MayLoad = Pick(3) == 0;
    C.MayStore = !C.MayLoad && Pick(5) == 0;
    B.Instrs.push_back(C);
    B.Issue.push_back(1 + (Pick(6) == 0));
  }
  // Positions 0..N-1: the previous iteration; N..2N-1: this one.
  B.In.resize(2 * N);
  for (size_t I = 0; I < N; ++I)
    for (unsigned E = 0, Es = Pick(3); E < Es; ++E) {
      bool Carried = I == 0 || Pick(4) == 0;
      size_t From = Carried ? Pick(unsigned(N)) : N + Pick(unsigned(I));
      B.In[N + I].push_back({From, B.Instrs[From % N].Latency});
    }
  return B;
}

void finish(Body &B, std::mt19937 &Rng, bool Queues, bool Rob, bool Late) {
  size_t N = B.Instrs.size();
  if (Queues) {
    B.Queues.Schedulers = true;
    B.Queues.Size = {unsigned(8 + Rng() % 24), unsigned(12 + Rng() % 40)};
    B.Queues.UntilRetire = {false, true};
    B.Queues.Of.resize(N);
    for (size_t I = 0; I < N; ++I) {
      B.Queues.Of[I].push_back(0);
      if (B.Instrs[I].MayLoad)
        B.Queues.Of[I].push_back(1);
    }
  }
  if (Late) {
    // A front end that hands over a body every 1.5 N / 4 cycles.
    size_t Copies = scheduleIterations(N) + 32;
    for (size_t X = 0; X < Copies * N; ++X)
      B.Deliver.push_back(double(X / N) * 1.5 * double(N) / 4 + double(X % N) / 4);
  }
  B.Input.Instrs = &B.Instrs;
  B.Input.PortUnits = &B.PortUnits;
  B.Input.In = &B.In;
  B.Input.Width = 4 + unsigned(Rng() % 3);
  B.Input.Rob = Rob ? unsigned(64 + Rng() % 160) : 0;
  B.Input.Queues = &B.Queues;
  B.Input.Issue = &B.Issue;
  B.Input.Deliver = Late ? &B.Deliver : nullptr;
}

} // namespace

TEST(ListSchedule, JumpingAheadWholePeriodsChangesNoCycle) {
  std::mt19937 Rng(20261128);
  unsigned Cases = 0, Jumped = 0;
  size_t Simulated = 0, Full = 0;
  for (size_t N : {3, 7, 12, 25, 60, 150, 400})
    for (unsigned Shape = 0; Shape < 8; ++Shape)
      for (unsigned Seed = 0; Seed < 4; ++Seed) {
        Body B = randomBody(Rng, N);
        finish(B, Rng, Shape & 1, Shape & 2, Shape & 4);
        ScheduleRun With = listScheduleRun(B.Input);
        B.Input.Periodic = false;
        ScheduleRun Without = listScheduleRun(B.Input);
        ASSERT_EQ(With.Cycles, Without.Cycles) << "N " << N << " shape " << Shape;
        EXPECT_FALSE(Without.Jumped);
        ++Cases;
        Jumped += With.Jumped;
        Simulated += With.Simulated;
        Full += Without.Simulated;
      }
  // The jump is taken: most runs repeat within a few iterations and dispatch
  // a fraction of what the full run does.
  EXPECT_GT(Jumped, Cases / 2);
  EXPECT_LT(double(Simulated), 0.6 * double(Full));
}

// A microcoded instruction of 16 uops on a 4-wide front end holds issue for
// four cycles (its own and three stalled ones). Once it has run and retired,
// the stall's last cycle sees nothing happen; the next cycle must still
// issue. By hand: 16 / 4 = 4 cycles per iteration alone, 5 with a one-uop
// add beside it (the add issues in the fifth cycle, and the next microcoded
// instruction cannot share it: it needs the whole width).
TEST(ListSchedule, IssueResumesAfterAMicrocodedInstructionsStall) {
  for (bool WithAdd : {false, true}) {
    Body B;
    B.PortUnits = {1, 1};
    InstrCost Micro;
    Micro.Latency = 1;
    Micro.Demands.push_back({{0}, 1});
    B.Instrs.push_back(Micro);
    B.Issue.push_back(16);
    if (WithAdd) {
      InstrCost Add;
      Add.Latency = 1;
      Add.Demands.push_back({{1}, 1});
      B.Instrs.push_back(Add);
      B.Issue.push_back(1);
    }
    B.In.resize(2 * B.Instrs.size());
    B.Input.Instrs = &B.Instrs;
    B.Input.PortUnits = &B.PortUnits;
    B.Input.In = &B.In;
    B.Input.Width = 4;
    B.Input.Rob = 224;
    B.Input.Queues = &B.Queues;
    B.Input.Issue = &B.Issue;
    for (bool Periodic : {true, false}) {
      B.Input.Periodic = Periodic;
      ScheduleRun R = listScheduleRun(B.Input);
      EXPECT_DOUBLE_EQ(R.Cycles, WithAdd ? 5 : 4) << "add " << WithAdd << " periodic " << Periodic;
    }
  }
}

//===- ListSchedule.cpp - Cycle-driven list schedule of a loop body -------===//
//
// Each cycle the oldest completed instructions retire in order (up to the
// width in fused uops), the front end issues up to the width in program
// order while the reorder buffer and the queues have room, then the oldest
// instructions whose inputs are ready dispatch, each port demand taking a
// unit of its set that is free this cycle (busy for the demand's cycles:
// dividers for many). Event-driven where nothing can change: an instruction
// waits off the candidate list until its inputs are ready, and cycles in
// which nothing happens are skipped to the next event. Once the state at
// the start of an iteration repeats that of an earlier one, shifted by whole
// iterations and cycles, the run is periodic: it jumps ahead whole periods
// and simulates only the end, with the same result as running it all.
//
//===----------------------------------------------------------------------===//
#include "ListSchedule.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <utility>

using namespace perfmodel;

namespace {
constexpr size_t MaxIterations = 120;
} // namespace

unsigned perfmodel::scheduleIterations(size_t N) {
  // A block of 200 instructions or more (a nest's trace, body copies and
  // the outer code) settles within 8,000 instructions, many times the
  // window; shorter blocks need more copies of themselves for that.
  if (N >= 200)
    return unsigned(std::clamp<size_t>(8000 / N, 8, MaxIterations));
  return unsigned(std::clamp<size_t>(24000 / std::max<size_t>(N, 1), 16, MaxIterations));
}

namespace {

constexpr double Never = std::numeric_limits<double>::infinity();
constexpr double LastCycle = 10'000'000; ///< a schedule that has not ended by then never will

/// Times in 1/65536 cycles: sums of them and whole cycles are exact in a
/// double, so a state shifted by whole cycles evolves exactly as the
/// original (the periodic jump relies on it).
double onGrid(double Cy) { return std::round(Cy * 65536) / 65536; }

/// Division by a run's body length, which every position's iteration and
/// place take (a hardware division costs tens of cycles): Lemire's
/// multiply-high for 32-bit dividends (positions stay far below 2^32).
struct Divisor {
  uint64_t M = 0;
  uint32_t D = 1;
  explicit Divisor(size_t N) : M(~uint64_t(0) / std::max<size_t>(N, 1) + 1), D(uint32_t(N)) {}
  size_t div(size_t A) const {
    return D == 1 ? A : size_t((static_cast<unsigned __int128>(M) * uint32_t(A)) >> 64);
  }
  size_t mod(size_t A) const {
    return size_t((static_cast<unsigned __int128>(M * uint32_t(A)) * D) >> 64);
  }
};

/// Lists per index in one array (compressed rows): the lists a cycle walks
/// (demands, ports' units, inputs, queues) stay in a few cache lines
/// instead of one allocation each, which a trace of a thousand
/// instructions otherwise misses on.
template <typename T> class Rows {
public:
  struct Span {
    const T *B, *E;
    const T *begin() const { return B; }
    const T *end() const { return E; }
    size_t size() const { return size_t(E - B); }
  };
  Rows() = default;
  explicit Rows(const std::vector<std::vector<T>> &Lists) {
    for (const std::vector<T> &L : Lists) {
      Items.insert(Items.end(), L.begin(), L.end());
      endRow();
    }
  }
  void push(const T &V) { Items.push_back(V); }
  void endRow() { First.push_back(Items.size()); }
  Span operator[](size_t R) const { return {Items.data() + First[R], Items.data() + First[R + 1]}; }

private:
  std::vector<size_t> First = {0};
  std::vector<T> Items;
};

/// The states at the starts of the iterations, every one a run has.
constexpr size_t KeptSnapshots = MaxIterations;

struct Snapshot {
  std::vector<double> State;
  uint64_t Hash = 0;
  double Cycle = 0;
  size_t Base = 0;
};

struct ScheduleBuffers {
  std::vector<double> Start, InputsAt, LatestInput, State;
  std::vector<unsigned> NextInput;
  Snapshot Recent[KeptSnapshots];
};

ScheduleBuffers &scheduleBuffers() {
  thread_local ScheduleBuffers B;
  return B;
}

class ListScheduler {
public:
  explicit ListScheduler(const ScheduleInput &In);
  ScheduleRun run();

private:
  void retire();
  void issue();
  void dispatch();
  /// Units for instruction I's demands this cycle into Take; false when one
  /// finds none.
  bool takeUnits(size_t I);
  /// Whether instruction I (of the body) cannot get units this cycle.
  bool blocked(size_t I);
  /// The cycle INST's inputs are ready; Never while one has not started.
  double inputsReady(size_t Inst);
  /// Puts an issued instruction whose inputs just became known where it
  /// waits: its group of ready instructions or the timed queue.
  void place(size_t Inst);
  /// INST's inputs are ready this cycle: it joins its group.
  void makeReady(size_t Inst);
  /// The consumers of INST, just dispatched, learn of it.
  void wake(size_t Inst);
  /// After a cycle in which nothing happened: the first cycle something may.
  double idleUntil() const;
  bool fits(size_t I) const;
  /// The state at this cycle's start, in times relative to it and positions
  /// relative to the current iteration's first instruction.
  void relativeState(std::vector<double> &S) const;
  /// Records the state at the first cycle of each issued iteration; when it
  /// repeats an earlier one, jumps ahead whole periods.
  void detectPeriod();
  /// Advances the run by COUNT periods of P instructions and T cycles.
  void jump(size_t P, double T, size_t Count);

  const ScheduleInput &In;
  const std::vector<InstrCost> &Instrs;
  const SchedQueues &Q;
  size_t N, Iters, Total, Window;
  Divisor Pos; ///< positions by N
  unsigned W;
  /// Per unit of every port, busy until; per port, its first unit (and one
  /// past the last port's).
  std::vector<double> Units;
  std::vector<unsigned> UnitFirst;
  std::vector<unsigned> Fused, Waiting;
  /// On the grid: per instruction its cycles to completion (at least one)
  /// and its demands' unit cycles; per instruction of the second iteration,
  /// its inputs.
  std::vector<double> Completes;
  struct Demand {
    unsigned PortsFirst, PortsLast; ///< its ports in DemandPorts
    double Cy;
    uint64_t Mask; ///< its ports' units (all ones: some unit past the 64th)
  };
  Rows<Demand> Demands;
  std::vector<unsigned> DemandPorts;
  Rows<SchedEdge> Inputs;
  /// Per producer position (0..N-1): its consumers and whether they are in
  /// the same iteration.
  Rows<std::pair<size_t, bool>> Consumers;
  Rows<unsigned> QueuesOf; ///< per instruction, the queues it holds an entry in
  /// Per instruction of the run (reused between runs: a thread's schedules
  /// run one after the other, and fresh pages for each cost more than the
  /// schedule of a short body).
  ScheduleBuffers &Buf;
  std::vector<double> &Start, &InputsAt, &LatestInput;
  std::vector<unsigned> &NextInput;
  /// Inputs ready, not dispatched, oldest first: per group of instructions
  /// whose demands use the same port sets (a full set blocks the group), so
  /// a cycle looks only at the groups that can still dispatch.
  /// A group's instructions, oldest first, from Head on: most leave from
  /// the front and join at the back, which then moves no element (a trace's
  /// groups hold hundreds).
  struct ReadyList {
    std::vector<size_t> V;
    size_t Head = 0;
    size_t size() const { return V.size() - Head; }
    size_t operator[](size_t K) const { return V[Head + K]; }
    const size_t *begin() const { return V.data() + Head; }
    const size_t *end() const { return V.data() + V.size(); }
    void insert(size_t Inst) {
      if (V.size() == Head || V.back() < Inst) {
        V.push_back(Inst);
        return;
      }
      V.insert(std::upper_bound(V.begin() + Head, V.end(), Inst), Inst);
    }
    void erase(size_t K) {
      if (K < size() / 2) { // the older part moves up by one
        std::move_backward(V.begin() + Head, V.begin() + Head + K, V.begin() + Head + K + 1);
        ++Head;
      } else {
        V.erase(V.begin() + Head + K);
      }
      if (Head > 64 && Head * 2 > V.size()) {
        V.erase(V.begin(), V.begin() + Head);
        Head = 0;
      }
    }
    void shift(size_t By) {
      for (size_t K = Head; K < V.size(); ++K)
        V[K] += By;
    }
  };
  std::vector<ReadyList> Ready;
  std::vector<unsigned> GroupOf;
  std::vector<size_t> Passed; ///< per group, how many of its oldest this cycle passed over
  size_t ReadyCount = 0;
  using Timed = std::pair<double, size_t>;
  std::priority_queue<Timed, std::vector<Timed>, std::greater<Timed>> Later;
  struct Taken {
    unsigned Unit;
    double Cy;
    unsigned Port;
  };
  std::vector<Taken> Take;
  /// The port sets of the demands: per instruction the sets of its demands,
  /// per set its ports' units as a mask, and the units free this cycle (busy
  /// for less than it), kept as demands take them: a set is full when it has
  /// none of them. A core of more than 64 units (none so far) keeps every
  /// unit past the 64th in bit 63, which is then free while any of them is.
  Rows<unsigned> SetOf;
  std::vector<uint64_t> SetMask;
  uint64_t Free = 0;
  /// Units that were busy when last looked at (a superset of those busy
  /// now: time only frees units), so a cycle looks at them alone; all of
  /// them until the first look and after a jump.
  uint64_t Busy = ~uint64_t(0);
  static uint64_t bitOf(unsigned U) { return uint64_t(1) << std::min(U, 63u); }
  uint64_t unitsOf(const std::vector<unsigned> &Ports) const {
    uint64_t M = 0;
    for (unsigned P : Ports)
      for (unsigned U = UnitFirst[P]; U < UnitFirst[P + 1]; ++U)
        M |= bitOf(U);
    return M;
  }
  /// Whether a unit busy until BUSY is free this cycle: one busy for a
  /// fraction of it still is (takeUnits).
  bool freeNow(double Busy) const { return Busy < Cycle + 1 - 1e-9; }
  /// The free mask for this cycle.
  void freeUnits();
  size_t Issued = 0, Dispatched = 0, Retired = 0;
  unsigned InFlight = 0;   ///< fused uops issued and not retired
  unsigned IssueStall = 0; ///< cycles the front end still spends on a long instruction
  double Cycle = 0;
  /// Periodicity: times further back than Horizon cycles no longer decide
  /// anything; the states recorded (with their cycle and first position),
  /// found by hash; whether the run already jumped.
  double Horizon = 2;
  size_t Recorded = 0; ///< snapshots taken, in Buf
  size_t SnapshotIter = 0, Skipped = 0;
  bool Jumped = false;
};

ListScheduler::ListScheduler(const ScheduleInput &In)
    : In(In), Instrs(*In.Instrs), Q(*In.Queues), N(Instrs.size()), Pos(N), Buf(scheduleBuffers()),
      Start(Buf.Start), InputsAt(Buf.InputsAt), LatestInput(Buf.LatestInput),
      NextInput(Buf.NextInput) {
  Iters = scheduleIterations(N);
  Total = N * Iters;
  // Without queues in the model, one window of 192 waiting instructions.
  Window = Q.Schedulers ? SIZE_MAX : 192;
  W = In.Width ? In.Width : 1000;
  Waiting.assign(Q.Size.size(), 0);
  UnitFirst.push_back(0);
  for (unsigned PortUnits : *In.PortUnits)
    UnitFirst.push_back(UnitFirst.back() + std::max(1u, PortUnits));
  Units.assign(UnitFirst.back(), 0.0);
  Fused.resize(N);
  Completes.resize(N);
  for (size_t I = 0; I < N; ++I) {
    Fused[I] = std::max(1u, (*In.Issue)[I]);
    Completes[I] = onGrid(std::max(1.0, Instrs[I].Latency));
    for (const auto &D : Instrs[I].Demands) {
      Demands.push({unsigned(DemandPorts.size()), unsigned(DemandPorts.size() + D.first.size()),
                    onGrid(D.second), unitsOf(D.first)});
      DemandPorts.insert(DemandPorts.end(), D.first.begin(), D.first.end());
    }
    Demands.endRow();
    for (SchedEdge E : (*In.In)[N + I])
      Inputs.push({E.From, onGrid(E.Lat)});
    Inputs.endRow();
    if (!Q.Size.empty())
      for (unsigned B : Q.Of[I])
        QueuesOf.push(B);
    QueuesOf.endRow();
  }
  std::map<std::vector<unsigned>, unsigned> Sets;
  std::vector<std::vector<unsigned>> SetPorts, SetsOf(N);
  for (size_t I = 0; I < N; ++I)
    for (const auto &D : Instrs[I].Demands) {
      auto [It, New] = Sets.try_emplace(D.first, unsigned(Sets.size()));
      if (New)
        SetPorts.push_back(D.first);
      SetsOf[I].push_back(It->second);
    }
  std::map<std::vector<unsigned>, unsigned> Groups;
  SetOf = Rows<unsigned>(SetsOf);
  for (size_t I = 0; I < N; ++I) {
    std::vector<unsigned> Sig = SetsOf[I];
    std::sort(Sig.begin(), Sig.end());
    Sig.erase(std::unique(Sig.begin(), Sig.end()), Sig.end());
    GroupOf.push_back(Groups.try_emplace(Sig, unsigned(Groups.size())).first->second);
  }
  Ready.resize(Groups.size());
  Passed.resize(Groups.size());
  for (const std::vector<unsigned> &Set : SetPorts)
    SetMask.push_back(unitsOf(Set));
  std::vector<std::vector<std::pair<size_t, bool>>> ConsumersOf(N);
  for (size_t I = 0; I < N; ++I)
    for (const SchedEdge &E : Inputs[I])
      ConsumersOf[E.From % N].push_back({I, E.From >= N});
  Consumers = Rows<std::pair<size_t, bool>>(ConsumersOf);
  for (size_t I = 0; I < N; ++I) {
    Horizon = std::max(Horizon, Completes[I] + 2);
    for (const SchedEdge &E : Inputs[I])
      Horizon = std::max(Horizon, E.Lat + 2);
  }
  Start.assign(Total, -1);
  InputsAt.assign(Total, -1);
  LatestInput.assign(Total, 0);
  NextInput.assign(Total, 0);
}

bool ListScheduler::fits(size_t I) const {
  for (unsigned B : QueuesOf[I])
    if (Waiting[B] >= Q.Size[B])
      return false;
  return true;
}

double ListScheduler::inputsReady(size_t Inst) {
  if (InputsAt[Inst] >= 0)
    return InputsAt[Inst];
  size_t I = Pos.mod(Inst), It = Pos.div(Inst);
  const Rows<SchedEdge>::Span Edges = Inputs[I];
  unsigned &E = NextInput[Inst];
  for (; E < Edges.size(); ++E) {
    const SchedEdge &Edge = Edges.B[E];
    if (Edge.From < N && It == 0)
      continue;
    size_t From = Edge.From >= N ? It * N + Edge.From - N : (It - 1) * N + Edge.From;
    if (Start[From] < 0)
      return Never;
    LatestInput[Inst] = std::max(LatestInput[Inst], Start[From] + Edge.Lat);
  }
  return InputsAt[Inst] = LatestInput[Inst];
}

void ListScheduler::retire() {
  for (unsigned Slots = W; Retired < Issued && Slots > 0;) {
    double S = Start[Retired];
    if (S < 0 || S + Completes[Pos.mod(Retired)] > Cycle)
      break;
    unsigned U = Fused[Pos.mod(Retired)];
    Slots -= std::min(Slots, U);
    InFlight -= U;
    for (unsigned B : QueuesOf[Pos.mod(Retired)])
      Waiting[B] -= Q.UntilRetire[B];
    ++Retired;
  }
}

void ListScheduler::issue() {
  // An instruction of more uops than the width (microcoded) takes the whole
  // front end for several cycles.
  unsigned Slots = W;
  if (IssueStall) {
    --IssueStall;
    Slots = 0;
  }
  while (Issued < Total && Issued - Dispatched < Window && Slots > 0) {
    unsigned U = Fused[Pos.mod(Issued)];
    if (U > Slots && !(U > W && Slots == W))
      break;
    if (In.Deliver && Issued < In.Deliver->size() && (*In.Deliver)[Issued] >= Cycle)
      break;
    if (In.Rob && InFlight + U > In.Rob && InFlight > 0)
      break;
    if (!Q.Size.empty() && !fits(Pos.mod(Issued)))
      break;
    for (unsigned B : QueuesOf[Pos.mod(Issued)])
      ++Waiting[B];
    if (U > W) {
      IssueStall = (U + W - 1) / W - 1;
      Slots = 0;
    } else {
      Slots -= U;
    }
    InFlight += U;
    size_t Inst = Issued++;
    place(Inst);
  }
}

void ListScheduler::makeReady(size_t Inst) {
  Ready[GroupOf[Pos.mod(Inst)]].insert(Inst);
  ++ReadyCount;
}

void ListScheduler::place(size_t Inst) {
  double At = inputsReady(Inst);
  if (At == Never)
    return; // a producer's dispatch wakes it
  if (At > Cycle) {
    Later.push({At, Inst});
    return;
  }
  makeReady(Inst);
}

void ListScheduler::wake(size_t Inst) {
  size_t It = Pos.div(Inst);
  for (const auto &[J, Same] : Consumers[Pos.mod(Inst)]) {
    size_t C = (Same ? It : It + 1) * N + J;
    if (C >= Issued || Start[C] >= 0 || InputsAt[C] >= 0)
      continue;
    // One older than INST was passed over this cycle: it waits for the next.
    if (C < Inst) {
      double At = inputsReady(C);
      if (At != Never)
        Later.push({At, C});
      continue;
    }
    place(C);
  }
}

bool ListScheduler::takeUnits(size_t I) {
  // Units taken by this instruction, with the cycles charged to each; two
  // demands on one single-unit port share it for their sum. A unit busy for
  // a fraction of this cycle still takes it, from where it frees (a measured
  // 1.27 cy a shuffle is 1.27 on average, not 2).
  Take.clear();
  for (const Demand &D : Demands[I]) {
    unsigned Pick = UINT_MAX, PickPort = 0;
    if (D.Mask & Free)
      for (unsigned PI = D.PortsFirst; PI < D.PortsLast; ++PI) {
        unsigned P = DemandPorts[PI];
        for (unsigned U = UnitFirst[P]; U < UnitFirst[P + 1]; ++U)
          if (freeNow(Units[U]) && (Pick == UINT_MAX || Units[U] < Units[Pick]) &&
              std::none_of(Take.begin(), Take.end(), [&](const Taken &T) { return T.Unit == U; })) {
            Pick = U;
            PickPort = P;
          }
      }
    if (Pick != UINT_MAX) {
      Take.push_back({Pick, D.Cy, PickPort});
      continue;
    }
    auto Shared = std::find_if(Take.begin(), Take.end(), [&](const Taken &T) {
      return std::find(DemandPorts.begin() + D.PortsFirst, DemandPorts.begin() + D.PortsLast,
                       T.Port) != DemandPorts.begin() + D.PortsLast;
    });
    if (Shared == Take.end())
      return false;
    Shared->Cy += D.Cy;
  }
  return true;
}

bool ListScheduler::blocked(size_t I) {
  // takeUnits fails exactly when a demand's port set has no free unit: what
  // it takes for one demand is free, so it is never in a full set.
  for (unsigned Set : SetOf[I])
    if (!(SetMask[Set] & Free))
      return true;
  return false;
}

void ListScheduler::freeUnits() {
  const double Until = Cycle + 1 - 1e-9; // freeNow's bound, once
  if (Units.size() > 64) {
    Free = 0;
    for (unsigned U = 0; U < Units.size(); ++U)
      Free |= uint64_t(Units[U] < Until) << std::min(U, 63u);
    return;
  }
  const uint64_t All = Units.size() == 64 ? ~uint64_t(0) : (uint64_t(1) << Units.size()) - 1;
  Busy &= All;
  for (uint64_t M = Busy; M; M &= M - 1) {
    unsigned U = unsigned(__builtin_ctzll(M));
    if (Units[U] < Until)
      Busy &= ~(uint64_t(1) << U);
  }
  Free = All & ~Busy;
}

void ListScheduler::dispatch() {
  while (!Later.empty() && Later.top().first <= Cycle) {
    size_t Inst = Later.top().second;
    Later.pop();
    makeReady(Inst);
  }
  // Nothing ready, nothing dispatches and nothing wakes: the cycles a chain
  // waits out cost no look at the units.
  if (!ReadyCount)
    return;
  // Oldest first over the groups: the oldest ready instruction of those
  // not blocked. A set only fills within a cycle, so a blocked group stays
  // blocked; instructions woken meanwhile are younger than the one that
  // woke them and join their group's order.
  std::fill(Passed.begin(), Passed.end(), 0);
  freeUnits();
  for (;;) {
    size_t Best = SIZE_MAX;
    unsigned BestGroup = 0;
    for (unsigned Gr = 0; Gr < Ready.size(); ++Gr) {
      if (Passed[Gr] >= Ready[Gr].size())
        continue;
      size_t Inst = Ready[Gr][Passed[Gr]];
      if (blocked(Pos.mod(Inst))) {
        Passed[Gr] = Ready[Gr].size();
        continue;
      }
      if (Inst < Best) {
        Best = Inst;
        BestGroup = Gr;
      }
    }
    if (Best == SIZE_MAX)
      break;
    size_t Inst = Best, I = Pos.mod(Inst);
    ReadyList &G = Ready[BestGroup];
    if (!takeUnits(I)) {
      ++Passed[BestGroup];
      continue;
    }
    G.erase(Passed[BestGroup]);
    --ReadyCount;
    for (const Taken &T : Take)
      Units[T.Unit] = std::max(Units[T.Unit], Cycle) + T.Cy;
    if (Units.size() > 64)
      freeUnits();
    else
      for (const Taken &T : Take)
        if (!freeNow(Units[T.Unit])) {
          Free &= ~bitOf(T.Unit);
          Busy |= bitOf(T.Unit);
        }
    Start[Inst] = Cycle;
    for (unsigned B : QueuesOf[I])
      Waiting[B] -= !Q.UntilRetire[B];
    ++Dispatched;
    wake(Inst);
  }
}

double ListScheduler::idleUntil() const {
  // Nothing changes until the oldest instruction completes, the front end
  // delivers, an input becomes ready or a unit frees: a lower bound of the
  // first such cycle, at least the next.
  double Next = Never;
  if (Retired < Issued && Start[Retired] >= 0)
    Next = std::min(Next, std::floor(Start[Retired] + Completes[Pos.mod(Retired)]));
  if (In.Deliver && Issued < Total && Issued < In.Deliver->size())
    Next = std::min(Next, std::floor((*In.Deliver)[Issued]));
  if (!Later.empty())
    Next = std::min(Next, std::floor(Later.top().first));
  if (ReadyCount)
    for (double U : Units)
      if (!freeNow(U))
        Next = std::min(Next, std::floor(U - 1));
  if (Next == Never)
    return LastCycle; // nothing left to happen
  return std::max(Cycle + 1, Next);
}

void ListScheduler::relativeState(std::vector<double> &S) const {
  // Times at or before Cycle - Horizon decide nothing (every input from them
  // is ready, every instruction they started has completed); idle units
  // matter only by which has been idle longest. Not yet known: -1e18.
  const size_t Base = Pos.div(Issued) * N;
  const double Unknown = -1e18;
  auto Time = [&](double T) { return std::max(T - Cycle, -Horizon); };
  // Sized once: a state of a long trace is thousands of values, and growing
  // it piecemeal cost more than filling it.
  const size_t From = Retired - 2 * N;
  S.clear();
  S.reserve(5 + Waiting.size() + Units.size() + 2 + ReadyCount + 2 * Later.size() +
            4 * (Issued - From) + 1);
  S.insert(S.end(), {double(Issued - Base), double(Base - Retired), double(Issued - Dispatched),
                     double(InFlight), double(IssueStall)});
  S.insert(S.end(), Waiting.begin(), Waiting.end());
  std::vector<double> Idle;
  Idle.reserve(Units.size());
  for (double U : Units)
    if (U <= Cycle)
      Idle.push_back(U);
  std::sort(Idle.begin(), Idle.end());
  for (double U : Units)
    S.push_back(U > Cycle ? U - Cycle
                          : -1e9 - double(Idle.end() - std::lower_bound(Idle.begin(), Idle.end(), U)));
  S.push_back(double(ReadyCount));
  for (const ReadyList &G : Ready)
    for (size_t C : G)
      S.push_back(double(Base) - double(C));
  std::vector<Timed> Pending(Later.size());
  auto Copy = Later;
  for (Timed &T : Pending) {
    T = Copy.top();
    Copy.pop();
  }
  S.push_back(double(Pending.size()));
  for (auto [T, C] : Pending) {
    S.push_back(Time(T));
    S.push_back(double(Base) - double(C));
  }
  // Inputs reach back two iterations: their producers' starts are state.
  // Retired instructions that started Horizon or more cycles ago (inputs
  // ready then, edges all read) differ in nothing but their place: the
  // leading run of them is its length (most of a long trace's two
  // iterations).
  size_t Settled = From;
  while (Settled < Retired && Start[Settled] - Cycle <= -Horizon)
    ++Settled;
  S.push_back(double(Settled - From));
  for (size_t X = Settled; X < Issued; ++X) {
    S.push_back(Start[X] < 0 ? Unknown : Time(Start[X]));
    S.push_back(InputsAt[X] < 0 ? Unknown : Time(InputsAt[X]));
    S.push_back(Time(LatestInput[X]));
    S.push_back(double(NextInput[X]));
  }
}

void ListScheduler::detectPeriod() {
  if (!In.Periodic || Jumped || Pos.div(Issued) == SnapshotIter || Retired < 2 * N)
    return;
  SnapshotIter = Pos.div(Issued);
  std::vector<double> &S = Buf.State;
  relativeState(S);
  uint64_t Hash = 1469598103934665603ull;
  for (double V : S) {
    uint64_t Bits;
    std::memcpy(&Bits, &V, sizeof(Bits));
    Hash = (Hash ^ Bits) * 1099511628211ull;
  }
  const size_t Base = Pos.div(Issued) * N;
  for (size_t K = 0; K < Recorded; ++K) {
    const Snapshot &Old = Buf.Recent[K];
    if (Old.Hash != Hash || Old.State != S)
      continue;
    size_t P = Base - Old.Base;
    double T = Cycle - Old.Cycle;
    // The front end's deliveries must repeat with the same period too (else
    // an older state may still give one that does).
    bool Repeats = true;
    if (In.Deliver)
      for (size_t X = std::max(Old.Base, P); Repeats && X < std::min(In.Deliver->size(), Total);
           ++X)
        Repeats = (*In.Deliver)[X] == (*In.Deliver)[X - P] + T;
    if (!Repeats)
      continue;
    Jumped = true;
    if (size_t Count = (Total - Issued) / P)
      jump(P, T, Count);
    return;
  }
  if (Recorded == KeptSnapshots)
    return;
  Snapshot &New = Buf.Recent[Recorded++];
  std::swap(New.State, S);
  New.Hash = Hash;
  New.Cycle = Cycle;
  New.Base = Base;
}

void ListScheduler::jump(size_t P, double T, size_t Count) {
  // Whatever starts before the new cycle starts as it did a period earlier,
  // T cycles later; the rest of the state moves by whole periods.
  const size_t Shift = P * Count;
  const double Dt = T * double(Count), NewCycle = Cycle + Dt;
  for (size_t X = Retired; X < Issued + Shift; ++X)
    if (Start[X] < 0 && Start[X - P] >= 0 && Start[X - P] + T < NewCycle)
      Start[X] = Start[X - P] + T;
  // Downwards: the window and its image may overlap.
  for (size_t X = Issued; X-- > Retired;) {
    InputsAt[X + Shift] = InputsAt[X] < 0 ? -1 : InputsAt[X] + Dt;
    LatestInput[X + Shift] = LatestInput[X] + Dt;
    NextInput[X + Shift] = NextInput[X];
  }
  for (double &U : Units)
    U += Dt;
  Busy = ~uint64_t(0);
  for (ReadyList &G : Ready)
    G.shift(Shift);
  decltype(Later) Moved;
  for (; !Later.empty(); Later.pop())
    Moved.push({Later.top().first + Dt, Later.top().second + Shift});
  Later = std::move(Moved);
  Issued += Shift;
  Skipped = Shift;
  Dispatched += Shift;
  Retired += Shift;
  Cycle = NewCycle;
}

ScheduleRun ListScheduler::run() {
  if (N == 0)
    return {};
  for (; Dispatched < Total && Cycle < LastCycle; Cycle += 1) {
    detectPeriod();
    size_t Before = Retired + Issued + Dispatched;
    // A front end busy with a long instruction this cycle issues the next
    // one in the coming cycle: that is an event too, even where its last
    // stalled cycle saw nothing else happen.
    bool FrontEndBusy = IssueStall > 0;
    retire();
    issue();
    dispatch();
    if (Retired + Issued + Dispatched == Before && !FrontEndBusy)
      Cycle = idleUntil() - 1;
  }
  // Steady state: dispatch time of the last instruction of each iteration.
  auto IterEnd = [&](size_t It) {
    double T = 0;
    for (size_t I = 0; I < N; ++I)
      T = std::max(T, Start[It * N + I]);
    return T;
  };
  size_t A = Iters / 2, B = Iters - 1;
  return {(IterEnd(B) - IterEnd(A)) / double(B - A), Jumped, Dispatched - Skipped};
}

} // namespace

ScheduleRun perfmodel::listScheduleRun(const ScheduleInput &In) {
  return ListScheduler(In).run();
}

double perfmodel::listSchedule(const ScheduleInput &In) { return listScheduleRun(In).Cycles; }

std::string perfmodel::listScheduleNote(double Scheduled, double Cycles) {
  if (!(Scheduled > Cycles * 1.05 + 0.05))
    return "";
  char Sched[32];
  snprintf(Sched, sizeof(Sched), "%.3g", Scheduled);
  return std::string("the body's list schedule needs ") + Sched +
         " cy per iteration, more than the analytic bound: a microcoded instruction holding "
         "one unit (the bound spreads its cycles over every unit it may use), greedy port "
         "choices, or a recurrence and the ports competing leave slots unused";
}

ScheduleInput PendingSchedule::input() const {
  ScheduleInput SI;
  SI.Instrs = &Instrs;
  SI.PortUnits = &PortUnits;
  SI.In = &In;
  SI.Width = Width;
  SI.Rob = Rob;
  SI.Queues = &Queues;
  SI.Issue = &Issue;
  SI.Deliver = Deliver.empty() ? nullptr : &Deliver;
  return SI;
}

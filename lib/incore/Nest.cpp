//===- Nest.cpp - The loop nest as executed --------------------------------===//
//
// A short inner loop spends much of its time outside its vector body: the
// remainder loop, the outer loop's own instructions (address arithmetic,
// reloads, alias checks), and the start and drain of each row. One trip of
// the enclosing machine loop is laid out as it executes at the bound sizes -
// the body and remainder loops repeated by their trip counts, the enclosing
// loop's blocks once - and run through the list scheduler with the machine's
// reorder buffer, so that neighbouring outer iterations overlap as far as
// the window allows.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/InCore.h"
#include "perfmodel/StageTimes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

using namespace perfmodel;

namespace {

/// A row is priced from its parts where what its schedule could move is at
/// most 1/LongRowShare of its cycles (executeAt).
constexpr double LongRowShare = 64;

/// Source iterations of the innermost loop per iteration of the loop around
/// it, with the outer counters at the middle of their ranges (the mean for
/// triangular nests).
std::optional<double> tripsPerOuter(const LoopKernel &K, std::map<std::string, int64_t> B) {
  for (size_t D = 0; D < K.Nest.size(); ++D) {
    const LoopLevel &L = K.Nest[D];
    auto Trips = tripCount(L, B);
    if (!Trips || *Trips == 0 || D + 1 == K.Nest.size())
      return Trips ? std::optional<double>(double(*Trips)) : std::nullopt;
    B[L.Var] = *L.Lower.evaluate(B) + (*Trips / 2) * std::abs(L.Step ? L.Step : 1);
  }
  return std::nullopt;
}

/// Cycles of straight-line code run once: what its ports and issue need.
double straightCycles(const InCoreResult &R) {
  return R.Ok ? std::max(R.PortBound, R.FrontEndBound) : 0;
}

/// Times piece P runs in one outer trip: a loop its trips, straight code
/// once unless it only leads into or out of a loop that does not run.
double timesRun(const NestCode::Piece &P, const std::vector<double> &Trips) {
  if (P.Loop >= 0)
    return Trips[P.Loop];
  return P.Iters <= 0 && ((P.EntersLoop >= 0 && Trips[P.EntersLoop] == 0) ||
                          (P.LeavesLoop >= 0 && Trips[P.LeavesLoop] == 0))
             ? 0.0
             : 1.0;
}

/// Lines of LINE bytes that RANGES (offsets in their function) touch with
/// the function at BASE.
double linesTouched(const CodeRanges &Ranges, uint64_t Base, unsigned Line) {
  double Lines = 0;
  for (auto [B, E] : Ranges)
    if (E > B)
      Lines += double((Base + E - 1) / Line - (Base + B) / Line + 1);
  return Lines;
}

/// Where the function's code may start, modulo LINE: its linked address
/// where known, else its offset in the object at each placement the
/// object's alignment leaves open (a 16-byte aligned .text: four in 64).
std::vector<uint64_t> codeBases(const CodePlace &C, const InCoreOptions &O, unsigned Line) {
  if (auto It = O.FunctionAddresses.find(C.Function); It != O.FunctionAddresses.end())
    return {It->second % Line};
  uint64_t Step = std::min<uint64_t>(std::max<uint64_t>(C.Align, 1), Line);
  std::vector<uint64_t> Bases;
  for (uint64_t S = 0; S < Line; S += Step)
    Bases.push_back((C.FunctionOffset + S) % Line);
  return Bases;
}

/// Of cycle counts equally likely, the one whose expected relative error is
/// least: the median weighted by 1/v (of 1 and 2 cycles as likely, 1).
size_t likeliest(const std::vector<double> &V) {
  std::vector<size_t> Order(V.size());
  for (size_t I = 0; I < V.size(); ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) { return V[A] < V[B]; });
  double Half = 0, Sum = 0;
  for (double X : V)
    Half += X > 0 ? 0.5 / X : 0;
  for (size_t I : Order)
    if ((Sum += V[I] > 0 ? 1 / V[I] : 0) >= Half - 1e-12)
      return I;
  return Order.empty() ? 0 : Order.back();
}

/// What the front end's lines (core.fetch_line_bytes) make of a trip of
/// TOTAL cycles: a loop's iteration takes a cycle per line of its code
/// (the op cache delivers one line a cycle, a taken branch ends it), at the
/// function's likeliest placement. BODY and BODYTRIPS: the hot loop's own
/// cycles per iteration and its trips. The cycles at each placement go to
/// SPREAD (empty when the placement does not matter).
double withFetchLines(const InCoreResult &R, const NestCode &N, const std::vector<double> &Trips,
                      double Total, double Body, double BodyTrips, const InCoreOptions &O,
                      std::vector<double> &Spread) {
  Spread.clear();
  const unsigned Line = O.FetchLineBytes;
  if (!Line || R.Code.Body.empty())
    return Total;
  std::vector<double> At;
  for (uint64_t B : codeBases(R.Code, O, Line)) {
    double Floor = 0;
    for (const NestCode::Piece &P : N.Pieces)
      Floor += timesRun(P, Trips) * linesTouched(P.Ranges, B, Line);
    double BodyLines = linesTouched(R.Code.Body, B, Line);
    At.push_back(std::max(Total + BodyTrips * std::max(0.0, BodyLines - Body), Floor));
  }
  if (*std::max_element(At.begin(), At.end()) > *std::min_element(At.begin(), At.end()) + 1e-9)
    Spread = At;
  return At[likeliest(At)];
}

/// A trace of one outer trip: each piece as often as it runs (the body at
/// most B1 trips), and the straight-line pieces alone.
struct Trace {
  std::vector<uint8_t> Bytes, Straight;
  std::vector<unsigned> Lines, StraightLines;
};
Trace traceOf(const NestCode &N, const std::vector<double> &Trips, double KB, double B1) {
  Trace Tr;
  auto Runs = [&](const NestCode::Piece &P) {
    double Times = timesRun(P, Trips);
    return P.Loop >= 0 && N.LoopIters[P.Loop] == KB ? std::min(Times, B1) : Times;
  };
  for (const NestCode::Piece &P : N.Pieces) {
    double Times = Runs(P);
    for (double I = 0; I < Times; ++I) {
      Tr.Bytes.insert(Tr.Bytes.end(), P.Bytes.begin(), P.Bytes.end());
      Tr.Lines.insert(Tr.Lines.end(), P.Lines.begin(), P.Lines.end());
    }
    if (P.Loop < 0 && Times > 0) {
      Tr.Straight.insert(Tr.Straight.end(), P.Bytes.begin(), P.Bytes.end());
      Tr.StraightLines.insert(Tr.StraightLines.end(), P.Lines.begin(), P.Lines.end());
    }
  }
  return Tr;
}

/// The figures of code priced by its bounds (a remainder loop, the outer
/// code) added to SUM, W times: a long row's parts beside its body.
void addFigures(InCoreResult &Sum, const InCoreResult &X, double W) {
  if (!X.Ok)
    return;
  Sum.TOL += X.TOL * W;
  Sum.TnOL += X.TnOL * W;
  Sum.PortBound += X.PortBound * W;
  Sum.FrontEndBound += X.FrontEndBound * W;
  Sum.Classes.Add += X.Classes.Add * W;
  Sum.Classes.Mul += X.Classes.Mul * W;
  Sum.Classes.Fma += X.Classes.Fma * W;
  Sum.Classes.Load += X.Classes.Load * W;
  Sum.Classes.Store += X.Classes.Store * W;
}

/// The remainder loops' cycles per outer trip at their bounds (not their
/// schedules), and of them their calls' (CALLS); their figures go to PARTS.
double remainderCycles(const NestCode &N, const std::vector<double> &Trips, double KB,
                       const InCoreOptions &BoundsOnly, double &RemainderCalls,
                       InCoreResult &Parts) {
  double Remainder = 0;
  RemainderCalls = 0;
  for (size_t I = 0; I < Trips.size(); ++I) {
    if (N.LoopIters[I] == KB || Trips[I] <= 0)
      continue;
    for (const NestCode::Piece &P : N.Pieces)
      if (P.Loop == int(I)) {
        InCoreResult RL = analyzeBlockFigures(P.Bytes, BoundsOnly, P.Lines);
        // A scalar remainder calls the scalar function (exp beside the
        // vector body's _ZGVdN4v_exp): its cycles per trip too.
        Remainder += Trips[I] * ((RL.Ok ? RL.Cycles : 0) + P.CallCycles);
        RemainderCalls += Trips[I] * P.CallCycles;
        addFigures(Parts, RL, Trips[I]);
      }
  }
  return Remainder;
}

/// R's figures per machine iteration of the body become the nest's (F per
/// source iteration), so that every model divides by the same source
/// iterations per trip; BEYOND body trips run outside the trace.
void scaleToNest(InCoreResult &R, const InCoreResult &RT, double Beyond, double F) {
  auto Whole = [&](double Trace, double Body) { return (Trace + Beyond * Body) * F; };
  R.TOL = Whole(RT.TOL, R.TOL);
  R.TnOL = Whole(RT.TnOL, R.TnOL);
  R.PortBound = Whole(RT.PortBound, R.PortBound);
  R.FrontEndBound = Whole(RT.FrontEndBound, R.FrontEndBound);
  R.RecurrenceBound = RT.RecurrenceBound * F;
  R.Classes.Add = Whole(RT.Classes.Add, R.Classes.Add);
  R.Classes.Mul = Whole(RT.Classes.Mul, R.Classes.Mul);
  R.Classes.Fma = Whole(RT.Classes.Fma, R.Classes.Fma);
  R.Classes.Load = Whole(RT.Classes.Load, R.Classes.Load);
  R.Classes.Store = Whole(RT.Classes.Store, R.Classes.Store);
}

/// What binds the nest: the ports or issue of the whole trip, else the
/// remainder and outer code, else chains the window cannot overlap.
void nestVerdict(InCoreResult &R, double T, double KB, const InCoreOptions &O) {
  const NestResult &E = R.Executed;
  double Flow = std::max(R.PortBound, R.FrontEndBound);
  char Buf[320];
  if (R.Bottleneck == InCoreBound::Calls) {
    // The callees' cycles (core.call_cy) bind: the steady state's advice stands.
  } else if (R.Cycles <= Flow * 1.02) {
    bool Ports = R.PortBound >= R.FrontEndBound;
    R.Bottleneck = Ports ? InCoreBound::Ports : InCoreBound::FrontEnd;
  } else if (E.Remainder + E.Overhead > E.Body) {
    R.Bottleneck = InCoreBound::Nest;
    double Share = 100 * (E.Remainder + E.Overhead) / (E.Body + E.Remainder + E.Overhead);
    if (E.PerCall)
      snprintf(Buf, sizeof(Buf),
               "the remainder loops and the function's code around the loop take %.0f %% "
               "of the time (%.4g iterations per call): longer loops per call or trip "
               "counts that are a multiple of %g help",
               Share, T, KB);
    else
      snprintf(Buf, sizeof(Buf),
               "the remainder loops and the outer loop's code take %.0f %% of the time "
               "(%.4g inner iterations per outer iteration): longer inner loops, trip "
               "counts that are a multiple of %g, or fusing the outer iterations help",
               Share, T, KB);
    R.Advice = Buf;
  } else if ((R.Bottleneck == InCoreBound::Ports || R.Bottleneck == InCoreBound::FrontEnd) &&
             E.Joins == 0) {
    // The body runs at its ports' (issue's) rate and the nest costs no more
    // than its parts: the excess is the remainder loops and the code around
    // the loop at their own schedules, not chains left unoverlapped.
    double Rest = E.Remainder + E.Overhead - E.Overlap;
    snprintf(Buf, sizeof(Buf),
             "; the remainder loops and the code around the loop add %.0f %% (%.3g cy/it "
             "beyond the body's %.3g)",
             100 * Rest / E.Cycles, Rest, E.Body);
    R.Advice += Buf;
  } else if (E.RowWindows > 0 && R.Bottleneck == InCoreBound::Recurrence) {
    // A long row priced from its parts: the body's own chain binds (its
    // advice stands), not chains across outer iterations.
  } else if (R.Bottleneck == InCoreBound::Recurrence || R.Cycles > Flow * 1.02) {
    R.Bottleneck = InCoreBound::Latency;
    snprintf(Buf, sizeof(Buf),
             "dependence chains that the %u-uop window overlaps only partly across outer "
             "iterations (%.3g cy/it, the ports need %.3g): ",
             O.Rob, E.Cycles, Flow / R.SourceItersPerIter);
    R.Advice = Buf + R.Advice;
  }
}

/// Where the front end's lines bind (E.Fetch, or the steady state's cycles
/// raised to them) the bound and advice say so; where the placement of the
/// function moves the cycles (SPREAD, per trip; TOIT: cycles per trip to
/// cycles per machine iteration of the body), a note gives the range.
void fetchVerdict(InCoreResult &R, const std::vector<double> &Spread, double ToIt,
                  const InCoreOptions &O, bool Binds = false) {
  char Buf[400];
  if (Binds || R.Executed.Fetch > 0) {
    R.FrontEndBound = std::max(R.FrontEndBound, R.Cycles);
    R.Bottleneck = InCoreBound::FrontEnd;
    snprintf(Buf, sizeof(Buf),
             "the loop's code spans more %u-byte lines than its work needs cycles (the front "
             "end delivers one line a cycle, core.fetch_line_bytes): aligning loops to %u "
             "bytes (-falign-loops=%u) keeps a short loop in one line",
             O.FetchLineBytes, O.FetchLineBytes, O.FetchLineBytes);
    R.Advice = Buf;
  }
  if (Spread.empty() || ToIt <= 0)
    return;
  auto Num = [](double V) {
    char B[32];
    snprintf(B, sizeof(B), "%.3g", V);
    return std::string(B);
  };
  std::vector<double> At = Spread;
  std::sort(At.begin(), At.end());
  std::string List;
  for (size_t I = 0; I < At.size(); ++I)
    List += (I ? I + 1 == At.size() ? " and " : ", " : "") + Num(At[I] * ToIt);
  snprintf(Buf, sizeof(Buf),
           "code placement: the object leaves open where in a %u-byte line the function "
           "starts (%zu places): %s cy per machine iteration at them, as its loops' code "
           "spans more or fewer lines (predicted: the likeliest, %s; -falign-functions=%u "
           "fixes the place)",
           O.FetchLineBytes, At.size(), List.c_str(), Num(R.Cycles).c_str(),
           O.FetchLineBytes);
  R.Notes.push_back(Buf);
}

/// The machine loop alone (no nest replayed): an iteration takes at least a
/// cycle per line of its code.
void steadyFetch(InCoreResult &R, const InCoreOptions &O) {
  if (!R.Ok || !O.FetchLineBytes || R.Code.Body.empty() || R.Executed.Ok)
    return;
  // No pieces: one trip of the body alone, max(its cycles, its lines).
  std::vector<double> Spread;
  double Fetched = withFetchLines(R, NestCode(), {}, R.Cycles, R.Cycles, 1, O, Spread);
  bool Binds = Fetched > R.Cycles * (1 + 1e-9);
  R.Cycles = Fetched;
  fetchVerdict(R, Spread, 1, O, Binds);
}

/// executeNest with T source iterations of the inner loop per outer iteration
/// (nullopt: its bounds are not known at the sizes given).
void executeAt(InCoreResult &R, std::optional<double> T, const InCoreOptions &O) {
  NestResult &E = R.Executed;
  E = NestResult();
  E.Rob = O.Rob;
  E.LoadQueue = O.Rob ? O.LoadQueue : 0;
  E.StoreQueue = O.Rob ? O.StoreQueue : 0;
  if (!R.Ok || R.SourceItersPerIter <= 0)
    return;
  const NestCode &N = R.Nest;
  E.Steady = R.Cycles / R.SourceItersPerIter;
  // The remainder loops and outer code move the same streams as the body.
  InCoreOptions LO = O;
  LO.Splits = R.Splits;
  E.SteadyRecurrence = R.RecurrenceBound;
  if (N.Pieces.empty() || N.Body < 0) {
    E.Reason = N.Reason.empty() ? "no enclosing machine loop" : N.Reason;
    return;
  }
  if (!T) {
    E.Reason = "the loop bounds are not known at these sizes (bind them with -D)";
    return;
  }
  if (*T < 1) {
    E.Reason = "the inner loop runs no iteration at these sizes";
    return;
  }
  double KB = N.LoopIters[N.Body];
  unsigned Copies = 1;
  std::vector<double> Trips = nestMachineTrips(N, *T, &Copies);
  double B = Trips[N.Body];

  // The trace: the body at most BMax trips per copy (a long body's trips add
  // its steady state), the rest as they run.
  size_t BodyBytes = 0, OtherBytes = 0;
  for (const NestCode::Piece &P : N.Pieces) {
    if (P.Loop >= 0 && N.LoopIters[P.Loop] == KB)
      BodyBytes += P.Bytes.size();
    else if (P.Loop >= 0)
      OtherBytes += P.Bytes.size() * size_t(Trips[P.Loop]);
    else
      OtherBytes += P.Bytes.size();
  }
  if (OtherBytes > 16384) {
    E.Reason = "the remainder loops and outer code are too long to replay at these sizes";
    return;
  }
  const size_t Budget = 6144;
  double BMax = std::max(1.0, std::floor(double(Budget > OtherBytes ? Budget - OtherBytes : 0) /
                                         double(std::max<size_t>(1, BodyBytes))));
  double B1 = std::min(B, std::max(2.0, BMax));
  Trace Tr = traceOf(N, Trips, KB, B1);
  double BodyTrips = 0, BodyTraced = 0;
  for (size_t I = 0; I < Trips.size(); ++I)
    if (N.LoopIters[I] == KB) {
      BodyTrips += Trips[I];
      BodyTraced += std::min(Trips[I], B1);
    }

  // The remainders and the straight code: their bounds, not their schedules.
  InCoreOptions BoundsOnly = LO;
  BoundsOnly.ListSchedule = false;
  BoundsOnly.DeferBodySchedule = false;
  InCoreResult Parts; // their figures per outer trip
  double RemainderCalls = 0;
  double Remainder = remainderCycles(N, Trips, KB, BoundsOnly, RemainderCalls, Parts);
  double Overhead = 0;
  if (!Tr.Straight.empty()) {
    InCoreResult S = analyzeBlockFigures(Tr.Straight, BoundsOnly, Tr.StraightLines);
    Overhead = straightCycles(S);
    addFigures(Parts, S, 1);
  }
  double Body = BodyTrips * R.Cycles;

  // A long row is priced from its parts, the trace not scheduled, where
  // what scheduling it could move is a small share of the trip. The
  // schedule saves at most the parts' own cycles (the body's ports or
  // issue stay busy) plus, at a join, the chains the window overlaps (each
  // body trip in it, its recurrence); what a join exposes is of the same
  // order.
  double WindowTrips = O.Rob && R.Uops ? double(O.Rob) / R.Uops : 0;
  double Moves = Remainder + Overhead + double(Copies) * WindowTrips * R.RecurrenceBound;
  bool FromParts = WindowTrips > 0 && WindowTrips < B &&
                   Moves * LongRowShare <= Body + Remainder + Overhead;
  InCoreResult RT;
  double Beyond = 0, Total = 0;
  if (FromParts) {
    RT = Parts;
    RT.RecurrenceBound = BodyTrips * R.RecurrenceBound; // the body's chain binds within a row
    Beyond = BodyTrips;
    // The outer code needs its own ports and issue slots, which a body
    // bound by its chain leaves free; the remainders follow the body.
    double BodyFlow = BodyTrips * std::max(R.PortBound, R.FrontEndBound);
    Total = Remainder + std::max(Body, BodyFlow + Overhead);
  } else {
    scheduleBody(R); // the trace's schedule is set against the body's
    RT = analyzeBlockFigures(Tr.Bytes, LO, Tr.Lines);
    if (!RT.Ok) {
      E.Reason = "the enclosing loop's code cannot be costed: " + RT.Reason;
      return;
    }
    // Bodies counted at their steady state; what the schedule adds or
    // saves beyond them is the rest of the nest.
    double Extra = RT.ScheduledCycles - BodyTraced * R.ScheduledCycles;
    Beyond = BodyTrips - BodyTraced; // body trips not in the trace
    Total = Body + Extra;
    // Never below what the whole trip's ports, issue and carried chains need.
    Total = std::max(Total, RT.Cycles + Beyond * R.Cycles);
    // The trace's schedule has the remainders' call instructions, not
    // their callees.
    Total += RemainderCalls;
  }
  std::vector<double> Spread;
  double Fetched = withFetchLines(R, N, Trips, Total, R.Cycles, BodyTrips, O, Spread);

  double PerSource = 1 / (double(Copies) * *T);
  E.Ok = true;
  E.PerCall = N.WholeFunction;
  E.TripsPerOuter = *T;
  E.Copies = Copies;
  E.RowWindows = FromParts ? B / WindowTrips : 0;
  E.Cycles = Total * PerSource;
  E.Body = Body * PerSource;
  E.Remainder = Remainder * PerSource;
  E.Overhead = Overhead * PerSource;
  // The pieces alone are their steady states; the trace's schedule also has
  // the latency exposed where one loop drains and the next fills. What it
  // saves is overlap, what it adds is the joins' cost, never a negative overlap.
  double Net = (Body + Remainder + Overhead - Total) * PerSource;
  E.Overlap = std::max(0.0, Net);
  E.Joins = std::max(0.0, -Net);
  E.Fetch = (Fetched - Total) * PerSource;
  E.Cycles = Fetched * PerSource;
  Total = Fetched;
  E.Where = N.Where;
  for (size_t I = 0; I < Trips.size(); ++I)
    E.Runs.push_back({N.LoopIters[I], Trips[I]});

  double F = R.SourceItersPerIter * PerSource;
  scaleToNest(R, RT, Beyond, F);
  R.Cycles = Total * F; // ScheduledCycles stays the body's own list schedule
  nestVerdict(R, *T, KB, O);
  fetchVerdict(R, Spread, F, O);
}

} // namespace

void perfmodel::executeNest(InCoreResult &R, const LoopKernel &K,
                            const std::map<std::string, int64_t> &Bind,
                            const InCoreOptions &O) {
  StageScope Timed(Stage::Nest);
  executeAt(R, tripsPerOuter(K, Bind), O);
  steadyFetch(R, O);
}

void perfmodel::executeNestTrips(InCoreResult &R, double TripsPerOuter, const InCoreOptions &O) {
  StageScope Timed(Stage::Nest);
  executeAt(R, TripsPerOuter, O);
}

std::vector<double> perfmodel::nestMachineTrips(const NestCode &N, double TripsPerOuter,
                                                unsigned *CopiesOut) {
  std::vector<double> Trips(N.LoopIters.size(), 0);
  if (N.Body < 0 || size_t(N.Body) >= N.LoopIters.size())
    return Trips;
  // The enclosing machine loop may hold several copies of the inner loop
  // (an unrolled outer loop): one per copy of the hot body.
  double KB = N.LoopIters[N.Body];
  unsigned Copies = 0;
  for (double Kx : N.LoopIters)
    Copies += Kx == KB;
  Copies = std::max(1u, Copies);
  if (CopiesOut)
    *CopiesOut = Copies;
  // Each copy's iterations go to its machine loops from the widest down: the
  // body takes whole trips, the epilogue and scalar loops the rest.
  std::set<double, std::greater<double>> Levels(N.LoopIters.begin(), N.LoopIters.end());
  // Straight-line copies of the inner loop (fully unrolled beside the
  // loop versions) do their iterations first.
  double Straight = 0;
  for (const NestCode::Piece &P : N.Pieces)
    if (P.Loop < 0)
      Straight += P.Iters;
  double Left = std::round(std::max(0.0, TripsPerOuter - Straight / Copies));
  for (double Kx : Levels) {
    if (Kx <= 0)
      continue;
    double Tk = std::floor(Left / Kx + 1e-9);
    Left -= Tk * Kx;
    unsigned Given = 0;
    for (size_t I = 0; I < N.LoopIters.size(); ++I)
      if (N.LoopIters[I] == Kx && Given < Copies) {
        Trips[I] = Tk;
        ++Given;
      }
  }
  return Trips;
}

void perfmodel::executeNestRows(InCoreResult &R, const std::vector<int64_t> &Trips,
                                const InCoreOptions &O, double MispredictCycles,
                                double PatternCapacity) {
  const NestCode &N = R.Nest;
  if (!R.Ok || R.SourceItersPerIter <= 0 || N.Pieces.empty() || N.Body < 0 ||
      size_t(N.Body) >= N.LoopIters.size() || Trips.empty())
    return;
  // Rows longer than a few trips of the body cost what a shorter row with
  // the same remainder costs plus the body's steady state per iteration:
  // one replay per remainder class instead of one per length.
  double KB = std::max(1.0, N.LoopIters[N.Body]);
  int64_t Cap = int64_t(4 * KB);
  std::map<int64_t, double> Rows; // representative trip count -> rows
  double Extra = 0, Iters = 0;     // source iterations beyond the representatives
  for (int64_t T : Trips) {
    if (T <= 0)
      continue;
    int64_t Rep = T;
    if (T > Cap) {
      int64_t K = int64_t(KB);
      Rep = Cap - K + 1 + (T - (Cap - K + 1)) % K;
    }
    Rows[Rep] += 1;
    Extra += double(T - Rep);
    Iters += double(T);
  }
  if (Iters <= 0)
    return;
  const InCoreResult Steady = R;
  double PerIt = 1 / R.SourceItersPerIter; // steady fields are per machine iteration
  // The per-machine-iteration fields of the results, weighted and summed.
  struct Sum {
    double Cycles = 0, Rec = 0;
    InCoreResult Figures; ///< ports, issue, ECM's split, PPR's classes (addFigures)
    double Body = 0, Remainder = 0, Overhead = 0, Overlap = 0, Joins = 0;
    void add(const InCoreResult &X, double W) {
      Cycles += X.Cycles * W;
      Rec += X.RecurrenceBound * W;
      addFigures(Figures, X, W);
    }
  } S;
  for (const auto &[T, Count] : Rows) {
    InCoreResult X = Steady;
    executeNestTrips(X, double(T), O);
    if (!X.Executed.Ok)
      return; // R keeps its steady state
    // The executed fields are per machine iteration of T source iterations
    // per outer iteration.
    S.add(X, Count * double(T) / X.SourceItersPerIter);
    double G = Count * double(T);
    S.Body += X.Executed.Body * G;
    S.Remainder += X.Executed.Remainder * G;
    S.Overhead += X.Executed.Overhead * G;
    S.Overlap += X.Executed.Overlap * G;
    S.Joins += X.Executed.Joins * G;
  }
  // The iterations beyond each representative run at the body's steady state.
  S.add(Steady, Extra * PerIt);
  S.Body += Steady.Cycles * Extra * PerIt;

  // Each inner machine loop's exit (and the guard that skips it) follows
  // its trip count; a predictor keeps the last one per branch, so a row
  // whose count for that loop differs from the previous row's mispredicts,
  // unless the whole sequence, repeated, fits what the predictor learns.
  // A row as long as the previous one changes no loop's count.
  double Changes = 0;
  std::vector<double> Prev;
  int64_t PrevT = 0;
  for (int64_t T : Trips) {
    T = std::max<int64_t>(T, 0);
    if (!Prev.empty() && T == PrevT)
      continue;
    std::vector<double> Cur = nestMachineTrips(N, double(T));
    if (!Prev.empty())
      for (size_t I = 0; I < Cur.size(); ++I)
        Changes += Cur[I] != Prev[I];
    Prev = std::move(Cur);
    PrevT = T;
  }
  double Learned = PatternCapacity > 0 && Changes > 0 ? std::min(1.0, PatternCapacity / Changes) : 0;
  double Mispredicts = Changes * (1 - Learned);
  double Lost = MispredictCycles > 0 ? Mispredicts * MispredictCycles : 0;
  S.Cycles += Lost;
  S.Figures.TOL += Lost;
  S.Overhead += Lost;

  double ToMachine = R.SourceItersPerIter / Iters; // totals -> per machine iteration
  R.Cycles = S.Cycles * ToMachine;
  R.TOL = S.Figures.TOL * ToMachine;
  R.TnOL = S.Figures.TnOL * ToMachine;
  R.PortBound = S.Figures.PortBound * ToMachine;
  R.FrontEndBound = S.Figures.FrontEndBound * ToMachine;
  R.RecurrenceBound = S.Rec * ToMachine;
  R.Classes = S.Figures.Classes;
  R.Classes.Add *= ToMachine;
  R.Classes.Mul *= ToMachine;
  R.Classes.Fma *= ToMachine;
  R.Classes.Load *= ToMachine;
  R.Classes.Store *= ToMachine;
  NestResult &E = R.Executed;
  E = NestResult();
  E.Ok = true;
  E.Rob = O.Rob;
  E.LoadQueue = O.Rob ? O.LoadQueue : 0;
  E.StoreQueue = O.Rob ? O.StoreQueue : 0;
  E.TripsPerOuter = Iters / double(Trips.size());
  E.Cycles = S.Cycles / Iters;
  E.Body = S.Body / Iters;
  E.Remainder = S.Remainder / Iters;
  E.Overhead = S.Overhead / Iters;
  E.Overlap = S.Overlap / Iters;
  E.Joins = S.Joins / Iters;
  E.Steady = Steady.Cycles * PerIt;
  E.SteadyRecurrence = Steady.RecurrenceBound;
  E.Where = N.Where;
  char Buf[320];
  snprintf(Buf, sizeof(Buf),
           "the nest as executed over %zu outer iterations of %.3g inner iterations on "
           "average (%zu distinct replays): %.3g cy per inner iteration, steady state %.3g; "
           "%.0f inner-loop exits change their trip count, %.0f %% of them learned by the "
           "predictor over repeated passes (%.2f mispredicted per outer iteration)%s",
           Trips.size(), E.TripsPerOuter, Rows.size(), E.Cycles, E.Steady, Changes,
           100 * Learned, Mispredicts / double(Trips.size()),
           MispredictCycles > 0 ? "" : " not charged: the machine file has no core.branch_mispredict_cy");
  R.Notes.push_back(Buf);
  if (MispredictCycles > 0 && Lost > 0) {
    snprintf(Buf, sizeof(Buf), " x %g cy = %.3g cy per inner iteration", MispredictCycles,
             Lost / Iters);
    R.Notes.back() += Buf;
  }
}

//===- LayerLevels.cpp - Layer conditions level by level -----------------===//
//
// For one cache level: whether the whole working set fits; the sliding-window
// conditions per reuse distance; reuse of strided columns and of short
// windows in the next outer iteration; reuse across the enclosing loops
// (capacity, and the sets: LRU over a cycle loses what over-fills a set);
// then the streams of lines through the level's link and their floors.
//
//===----------------------------------------------------------------------===//
#include "LayerModel.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

using namespace perfmodel;
using namespace perfmodel::layers;

namespace perfmodel::layers {


std::string sizeText(double Bytes) {
  uint64_t B = uint64_t(Bytes);
  // Whole KiB/MiB as the machine files write them; else three digits.
  if (double(B) == Bytes && (B < 1024 || B % 1024 == 0))
    return formatByteSize(B);
  const char *Units[] = {"B", "KiB", "MiB", "GiB"};
  unsigned U = 0;
  while (Bytes >= 1024 && U < 3)
    Bytes /= 1024, ++U;
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.3g%s", Bytes, Units[U]);
  return Buf;
}

std::optional<int64_t> solveLimit(const Poly &Req, const std::string &Param,
                                  std::map<std::string, int64_t> B, double Cap) {
  auto Ok = [&](int64_t V) {
    B[Param] = V;
    auto R = Req.evaluate(B);
    return R && double(*R) <= Cap;
  };
  if (!Ok(1))
    return std::nullopt;
  int64_t Lo = 1, Hi = int64_t(1) << 40;
  if (Ok(Hi))
    return std::nullopt;
  while (Hi - Lo > 1) {
    int64_t Mid = Lo + (Hi - Lo) / 2;
    (Ok(Mid) ? Lo : Hi) = Mid;
  }
  return Lo;
}

/// Per region, the share of its lines LRU loses before they are reused in a
/// cyclic sweep: those in sets given more lines than WAYS by all regions
/// together (each spread evenly over its sets, its remainder at random,
/// regions placed independently), plus one per line there of a region that
/// moves on (up to its own lines less one).
std::vector<double> lostShares(const std::vector<Region> &Regions, double Sets,
                               unsigned Ways, bool Aligned) {
  size_t Cap = Ways + 1; // loads above the ways are all alike
  // Load one region puts on a set: (uncapped count, probability). Placed
  // independently, a region reaching a fraction U of the sets is in any
  // set with odds U; ALIGNED (bases at the same set, strides reaching
  // nested subsets from it), in a set of a region reaching Within of them
  // with odds min(1, U / Within).
  auto Outcomes = [&](const Region &R, double Within = 1) {
    double U = std::min(1.0, R.Sets / Sets), Per = R.Lines / std::max(1.0, R.Sets);
    if (Aligned)
      U = std::min(1.0, U / std::max(Within, 1e-12));
    double Q = std::floor(Per), E = Per - Q;
    return std::vector<std::pair<double, double>>{{0, 1 - U}, {Q, U * (1 - E)}, {Q + 1, U * E}};
  };
  std::vector<double> Shares;
  for (size_t M = 0; M < Regions.size(); ++M) {
    // Distribution of the other regions' lines in one set: (staying,
    // moving) -> odds. Kept sparse, in the order a dense table would be
    // summed: a TLB's thousands of ways (a TLB is a cache whose lines are
    // pages) leave few of its loads possible.
    std::map<std::pair<size_t, size_t>, double> Others = {{{0, 0}, 1.0}};
    for (size_t J = 0; J < Regions.size(); ++J) {
      if (J == M)
        continue;
      std::map<std::pair<size_t, size_t>, double> Next;
      auto Out = Outcomes(Regions[J], std::min(1.0, Regions[M].Sets / Sets));
      for (const auto &[SV, Odds] : Others)
        for (auto [C, P] : Out) {
          auto [S, V] = SV;
          size_t S2 = Regions[J].Stays ? std::min<size_t>(Cap, S + size_t(C)) : S;
          size_t V2 = Regions[J].Stays ? V : std::min<size_t>(Cap, V + size_t(C));
          Next[{S2, V2}] += Odds * P;
        }
      Others = std::move(Next);
    }
    // This region's reloads per set: its lines in an over-full set, and one
    // more for each line there of a region that moves on, while it has
    // lines to lose (each line the next pass finds stale evicts one of this
    // region's again).
    double Lost = 0;
    for (auto [C, P] : Outcomes(Regions[M]))
      if (C > 0)
        for (const auto &[SV, Odds] : Others)
          if (C + double(SV.first + SV.second) > Ways)
            Lost += P * Odds * (C + std::min(double(SV.second), C - 1));
    Shares.push_back(Regions[M].Lines > 0 ? std::min(1.0, Lost * Sets / Regions[M].Lines) : 0);
  }
  return Shares;
}

void LayerModel::level(size_t Index) {
  LevelIndex = Index;
  Cache = &M.Caches[Index];
  const CacheLevel &C = *Cache;
  Cap = double(C.SizeBytes) * O.SafetyFactor;
  Sets = C.sets();
  Aligned = O.AlignedBases && Sets && Sets * Line <= 4096;
  L = LinkTraffic();
  L.Inner = C.Name;
  L.Outer = M.levelName(Index + 1);
  Moved.assign(Groups.size(), 0);
  Fresh.assign(Groups.size(), 0);
  for (size_t GI = 0; GI < Groups.size(); ++GI)
    Moved[GI] = Fresh[GI] = Groups[GI].StreamBytes;
  Trip = trips(Depth - 1);
  if (!wholeSetFits()) {
    thresholdConditions();
    stridedReuse();
    windowReuse();
    outerReuse();
    streams();
  }
  R.Links.push_back(L);
}

/// The footprint as the sets see it: a line-strided array fills only
/// the share of the sets its stride reaches.
bool LayerModel::wholeSetFits() {
  const CacheLevel &C = *Cache;
  double InSets = Footprint;
  for (const auto &[Name, Use] : LineStrided)
    if (uint64_t Used = setsReached(uint64_t(Use.second)))
      InSets += Use.first * (double(Sets) / double(Used) - 1);
  if (InSets > Cap && Footprint <= Cap && Iterations > 0)
    R.Notes.push_back("the working set (" + sizeText(Footprint) + ") is less than " + C.Name +
                      " holds, but its line-strided streams reach only part of its sets: "
                      "it does not fit there");
  if (InSets <= Cap && Iterations > 0) {
    L.LoadBytesPerIt = (C.WriteAllocate ? ReadFoot : ReadFoot - WriteFoot) / Iterations;
    L.EvictBytesPerIt = WriteFoot / Iterations;
    LayerCondition LC;
    LC.Level = C.Name;
    LC.Holds = true;
    LC.Text = "the whole working set (" + sizeText(Footprint) + ") fits in " + C.Name +
              " (" + formatByteSize(C.SizeBytes) +
              "): each line crosses once per execution of the nest";
    R.Conditions.push_back(LC);
    return true;
  }
  return false;
}

/// Conditions: one per distinct reuse distance, in increasing order.
void LayerModel::thresholdConditions() {
  const CacheLevel &C = *Cache;
  T = 0;
  for (double Th : Thresholds)
    if (requirement(Th) <= Cap)
      T = Th;
  // Conditions: one per distinct reuse distance, in increasing order.
  for (double Th : Thresholds) {
    const Member *TM = nullptr;
    const Member *Ahead = nullptr;
    for (const Group &Gr : Groups)
      for (size_t J = 1; J < Gr.Members.size(); ++J)
        if (Gr.Members[J].Gap == Th && !TM) {
          TM = &Gr.Members[J];
          Ahead = &Gr.Members[J - 1];
        }
    LayerCondition LC;
    LC.Level = C.Name;
    double Req = requirement(Th);
    LC.Holds = Req <= Cap;
    std::string ReqText = sizeText(Req);
    if (Symbolic && TM) {
      Poly RS = requirementSym(*TM);
      auto Syms = RS.symbols();
      ReqText = RS.str() + " B";
      if (Syms.size() == 1) {
        LC.Param = *Syms.begin();
        LC.Limit = solveLimit(RS, LC.Param, B, Cap);
      }
    }
    LC.Text = TM->A->Text + " reuses " + Ahead->A->Text + " after " +
              (Symbolic && TM ? Poly(TM->GapBytesSym).str() + " B" : sizeText(Th)) +
              ": needs " + ReqText + " <= " + formatByteSize(C.SizeBytes);
    if (LC.Limit)
      LC.Text += ", holds for " + LC.Param + " <= " + std::to_string(*LC.Limit);
    R.Conditions.push_back(LC);
  }
}

/// Strided streams (a new line every inner iteration, as the writes of a
/// transposition) reuse their lines in the next iteration of the
/// enclosing loop when it moves them by less than a line and the level
/// holds one execution of the inner loop: the inner trip's lines of every
/// strided stream and the contiguous streams' bytes over the same trip.
void LayerModel::stridedReuse() {
  const CacheLevel &C = *Cache;
  OuterReq = 0;
  std::vector<size_t> Strided;
  for (size_t GI = 0; GI < Groups.size(); ++GI) {
    const Group &Gr = Groups[GI];
    int64_t AbsAdv = std::abs(Gr.Advance), AbsOut = outerAdvance(Gr);
    OuterReq += innerLines(Gr) * Line;
    if (AbsAdv > int64_t(Line) && AbsOut > 0 && AbsOut < int64_t(Line))
      Strided.push_back(GI);
  }
  if (!Strided.empty() && Trip > 0) {
    LayerCondition LC;
    LC.Level = C.Name;
    // With the sets known, the set model below decides (a set-associative
    // cache keeps the lines of the sets that are not over-full even when
    // the inner loop's lines exceed its capacity); else the capacity.
    LC.Holds = Sets || OuterReq <= Cap;
    const Group &First = Groups[Strided.front()];
    LC.Text = First.Members.front().A->Text + " reuses its lines in the next iteration of '" +
              K.Nest[Depth - 2].Var + "' (" + std::to_string(outerAdvance(First)) +
              " B on): needs one inner loop's lines, " + sizeText(OuterReq) +
              " <= " + formatByteSize(C.SizeBytes);
    // A stride of whole lines sharing a factor with the set count maps the
    // inner loop's lines to a fraction of the sets: a set given more lines
    // than ways misses them all on the next pass, the others hit.
    std::vector<double> MissShare(Groups.size(), 0);
    for (size_t GI : Strided) {
      if (!Sets)
        break;
      const Group &Gr = Groups[GI];
      uint64_t AbsAdv = uint64_t(std::abs(Gr.Advance)), Used = strideSets(Gr);
      double Lines = innerLines(Gr);
      // This column and the other streams' lines of one inner loop, each
      // over the sets its stride reaches.
      std::vector<Region> Regions{{Lines, double(Used), true}};
      for (size_t GJ = 0; GJ < Groups.size(); ++GJ)
        if (GJ != GI)
          Regions.push_back({innerLines(Groups[GJ]), double(strideSets(Groups[GJ])),
                             outerAdvance(Groups[GJ]) < int64_t(Line)});
      MissShare[GI] = lostShares(Regions, double(Sets), C.Ways, Aligned)[0];
      double Missed = MissShare[GI] * Lines;
      if (Missed > 0) {
        // The first column is the condition's subject; the others by name.
        std::string Its = GI == Strided.front() ? "its" : Gr.Array + "'s";
        if (Used < Sets)
          LC.Text += "; but " + Its + " stride of " + std::to_string(AbsAdv / Line) +
                     " lines maps them to " + std::to_string(Used) + " of " +
                     std::to_string(Sets) + " sets, room for " +
                     sizeText(double(Used) * C.Ways * Line);
        else
          LC.Text += "; but the sets are over-full" +
                     (GI == Strided.front() ? std::string() : " for " + Gr.Array);
        if (MissShare[GI] >= 1)
          LC.Holds = false;
        else
          LC.Text += ": " + std::to_string(int64_t(std::lround(Missed))) + " of " + Its + " " +
                     std::to_string(int64_t(Lines)) + " lines are in over-full sets";
      }
    }
    auto Writes = [](const Group &Gr) {
      return std::any_of(Gr.Members.begin(), Gr.Members.end(),
                         [](const Member &Mb) { return Mb.A->Write; });
    };
    // Stores of a column that misses here wait at commit for a line the
    // fills of the later stores (a store queue's worth per stream in
    // those sets) evict first, where those overfill the sets' ways
    // (bench/memory/conflicts.c: 256-float rows, 4 sets, ~20 cy a store).
    if (LevelIndex == 0 && Sets && M.Core.StoreQueue)
      for (size_t GI : Strided) {
        const Group &Gr = Groups[GI];
        uint64_t Used = strideSets(Gr);
        if (!Writes(Gr) || MissShare[GI] < 1 || Used >= Sets)
          continue;
        double InFlight = 0;
        // Alone: no read of this or another stream goes through those sets.
        bool Alone = std::none_of(Gr.Members.begin(), Gr.Members.end(),
                                  [](const Member &Mb) { return Mb.A->Read; });
        for (size_t GJ : Strided)
          if (strideSets(Groups[GJ]) == Used) {
            InFlight += M.Core.StoreQueue;
            Alone &= GJ == GI;
          }
        if (InFlight < double(Used) * C.Ways)
          continue;
        // Each waits as measured for that many sets (the refill and the
        // dirty line it evicts), or else the next level's latency.
        std::optional<double> Cy = C.conflictStoreCycles(unsigned(Used), Alone);
        bool AloneFigure = Cy && Alone && !C.ConflictStoreAloneCyBySets.empty();
        double Wait = Cy ? *Cy : M.Caches.size() > 1 ? M.Caches[1].LatencyCy : 0;
        R.ThrashedStoresPerIt += 1;
        R.ThrashedStoreCyPerIt += Wait;
        R.ThrashedStoresMeasured |= Cy.has_value();
        R.ThrashedStoresAlone |= AloneFigure;
        char Buf[64];
        std::snprintf(Buf, sizeof Buf, "%.3g cy", Wait);
        R.Notes.push_back(Gr.Array + "'s stores reach " + std::to_string(Used) + " of the " +
                          C.Name + "'s " + std::to_string(Sets) + " sets: " +
                          std::to_string(int64_t(InFlight)) +
                          " lines in flight (the store queue's worth per stream) overfill their " +
                          std::to_string(Used * C.Ways) +
                          " ways, so each store waits for its line again, " + Buf +
                          (!Cy            ? " (the next level's latency)"
                           : AloneFigure ? " (caches." + C.Name +
                                               ".conflict_store_alone_cy_by_sets: no read goes "
                                               "through those sets)"
                                         : " (caches." + C.Name + ".conflict_store_cy_by_sets)"));
      }
    // Load streams of a column that misses here refill their lines from
    // the next level slower the fewer sets they reach (measured per sets:
    // bench/memory/conflicts.c), whatever the link's bandwidth allows.
    if (LevelIndex == 0 && Sets && !C.ConflictMissCyBySets.empty())
      for (size_t GI : Strided) {
        const Group &Gr = Groups[GI];
        if (Writes(Gr) || MissShare[GI] < 1)
          continue;
        // Its leading members' lines an iteration (rows j..j+3 of an
        // unrolled column: four), over the sets they reach together.
        // Members a whole number of iterations apart share their lines.
        std::set<int64_t> Lead;
        uint64_t Step = uint64_t(std::abs(Gr.Advance));
        int64_t Adv = std::max<int64_t>(1, int64_t(Step));
        for (const Member &Mb : Gr.Members) {
          int64_t Apart = Mb.Offset - Gr.Members.front().Offset;
          if (Lead.insert(((Apart % Adv + Adv) % Adv) / int64_t(Line)).second)
            Step = std::gcd(Step, uint64_t(std::abs(Apart)));
        }
        uint64_t Used = setsReached(Step);
        auto Cy = C.conflictMissCycles(unsigned(Used));
        if (Used >= Sets || !Cy)
          continue;
        R.ConflictLoadCyPerIt += double(Lead.size()) * *Cy;
        char Buf[96];
        std::snprintf(Buf, sizeof Buf, "%zu line(s) an iteration, %.3g cy each", Lead.size(),
                      *Cy);
        R.Notes.push_back(Gr.Array + "'s loads reach " + std::to_string(Used) + " of the " +
                          C.Name + "'s " + std::to_string(Sets) + " sets and miss there: " +
                          Buf + " to refill (caches." + C.Name + ".conflict_miss_cy_by_sets)");
      }
    R.Conditions.push_back(LC);
    if (LC.Holds)
      for (size_t GI : Strided) {
        Fresh[GI] = MissShare[GI] * Groups[GI].StreamBytes;
        Moved[GI] = Fresh[GI] + (1 - MissShare[GI]) * double(outerAdvance(Groups[GI]));
      }
  }
}

/// A short inner loop over a window the enclosing loop slides by less
/// than the window (a convolution's in[i + k], taps laid out along the
/// inner loop): the next outer iteration reads the same lines but for the
/// bytes the window moved on, when the level holds one execution of the
/// inner loop.
void LayerModel::windowReuse() {
  const CacheLevel &C = *Cache;
  std::vector<size_t> Windows;
  for (size_t GI = 0; GI < Groups.size() && Trip > 0; ++GI) {
    const Group &Gr = Groups[GI];
    double AbsAdv = double(std::abs(Gr.Advance)), AbsOut = double(outerAdvance(Gr));
    // Each member's own window overlaps itself (rows of a stencil, which
    // reuse one another across the gaps, do not: a row is no window).
    if (AbsAdv > 0 && AbsAdv < Line && AbsOut > 0 && AbsOut < Trip * AbsAdv)
      Windows.push_back(GI);
  }
  if (!Windows.empty()) {
    LayerCondition LC;
    LC.Level = C.Name;
    LC.Holds = OuterReq <= Cap;
    const Group &First = Groups[Windows.front()];
    LC.Text = First.Members.front().A->Text + " reuses its window in the next iteration of '" +
              K.Nest[Depth - 2].Var + "' (" + std::to_string(outerAdvance(First)) +
              " B on): needs one inner loop's lines, " + sizeText(OuterReq) + " <= " +
              formatByteSize(C.SizeBytes);
    R.Conditions.push_back(LC);
    if (LC.Holds)
      for (size_t GI : Windows)
        Moved[GI] = Fresh[GI] = double(outerAdvance(Groups[GI])) / Trip;
  }
}

/// Reuse across the enclosing loops: a stream that does not move with
/// loop d is read again in its next iteration; when everything one
/// iteration of d touches fits the level, the stream's lines cross once
/// per execution of d, not once per iteration of it (B of a matmul in
/// ikj order across i, C's row across k).
void LayerModel::outerReuse() {
  const CacheLevel &C = *Cache;
  Reload.assign(Groups.size(), 1);
  for (size_t D = Depth - 1; D-- > 0;) {
    // Capacity and sets: each member's lines spread over the sets its
    // stride reaches; a set given more lines than ways loses them all before
    // the next iteration of D (LRU over a cycle; docs/cache-model.md).
    double Foot = 0;
    std::vector<Region> Regions; // one per stream: its members' lines together
    for (const Group &Gr : Groups) {
      double Lines = linesInside(Gr, D, [this](size_t E) { return trips(E); });
      Foot += Lines * Line;
      // A column's lines reach the sets its stride does, and as many more
      // as the loops between D and the innermost shift it by lines.
      double Shift = 0;
      for (size_t E = D + 1; E + 1 < Depth; ++E)
        Shift += double(std::abs(Gr.LoopAdvance[E])) * std::max(0.0, trips(E) - 1);
      double Reach = std::min(double(Sets), double(strideSets(Gr)) *
                                                (1 + std::floor(Shift / Line)));
      Regions.push_back({Lines, Reach, std::abs(Gr.LoopAdvance[D]) < int64_t(Line)});
    }
    // A triangular nest: what one iteration of D touches shrinks or grows
    // with D's counter (gramschmidt's columns right of k). Where it
    // crosses the capacity within D's range, the reuse holds for part of
    // the iterations: the simulator decides.
    if (R.Edge.empty() && reused(D)) {
      std::optional<double> First = footAt(D, true), Last = footAt(D, false);
      if (First && Last && (*First <= Cap) != (*Last <= Cap))
        R.Edge = "one iteration of '" + K.Nest[D].Var + "' touches " + sizeText(*First) +
                 " at its first value and " + sizeText(*Last) + " at its last, around " +
                 C.Name + "'s " + formatByteSize(C.SizeBytes);
    }
    // With the sets known the set model decides (see the strided rule).
    std::vector<double> Share(Groups.size(), Foot <= Cap ? 0 : 1);
    if (Sets)
      Share = lostShares(Regions, double(Sets), C.Ways, Aligned);
    bool Fits = Sets || Foot <= Cap, Any = false;
    double Miss = 0; // largest share lost among the reused streams
    for (size_t GI = 0; GI < Groups.size(); ++GI)
      if (Groups[GI].Advance != 0 && Groups[GI].LoopAdvance[D] == 0) {
        Any = true;
        Miss = std::max(Miss, Share[GI]);
        Reload[GI] *= Share[GI] + (1 - Share[GI]) / std::max(1.0, trips(D));
      }
    if (Any && Miss >= 1)
      Fits = false;
    if (Any) {
      LayerCondition LC;
      LC.Level = C.Name;
      LC.Holds = Fits;
      LC.Text = "one iteration of '" + K.Nest[D].Var + "' touches " + sizeText(Foot) +
                (Foot <= Cap || !Fits ? " <= " : " > ") + formatByteSize(C.SizeBytes) +
                (Foot <= Cap || !Fits ? "" : " (the sets decide)") +
                ": the streams that do not move with it are reused across it";
      if (Fits && Miss >= 0.005)
        LC.Text += ", but for up to " + std::to_string(int(std::lround(100 * Miss))) +
                   " % of their lines, in over-full sets";
      R.Conditions.push_back(LC);
    }
    if (!Fits)
      break; // the footprints only grow outwards
  }
  for (size_t GI = 0; GI < Groups.size(); ++GI) {
    Moved[GI] *= Reload[GI];
    Fresh[GI] *= Reload[GI];
  }
}

/// Streams through this level: chains of accesses joined by hitting gaps.
void LayerModel::streams() {
  const CacheLevel &C = *Cache;
  std::map<std::string, double> ArrayLoad, ArrayEvict; // what they bring per array
  for (size_t GI = 0; GI < Groups.size(); ++GI) {
    const Group &Gr = Groups[GI];
    double Load0 = L.LoadBytesPerIt, Evict0 = L.EvictBytesPerIt;
    // A chain that moves with every loop brings in at least the lines it
    // touches (short rows end in partial lines); loops outside that do not
    // move it (a time loop) repeat the sweep once per pass.
    size_t Repeating = 0;
    while (Repeating + 1 < Gr.LoopAdvance.size() && Gr.LoopAdvance[Repeating] == 0)
      ++Repeating;
    double Passes = 1;
    for (size_t D = 0; D < Repeating; ++D)
      Passes *= std::max(1.0, trips(D));
    bool Sweeps = Reload[GI] == 1 && Moved[GI] == Gr.StreamBytes &&
                  std::none_of(Gr.LoopAdvance.begin() + Repeating, Gr.LoopAdvance.end(),
                               [](int64_t A) { return A == 0; });
    std::vector<const Access *> Chain;
    bool ChainRead = false, ChainWrite = false;
    // A stride no prefetcher follows: its lines come in on demand, each
    // miss waiting the latency (the models' latency bound, PPR's eq. 3).
    bool Irregular = M.unprefetchedStride(uint64_t(std::abs(Gr.Advance)));
    auto Close = [&] {
      double Bytes = Moved[GI];
      // A column's members within a line (u[j][i-1], u[j][i], u[j][i+1])
      // straddle two lines in the rows where the span crosses one.
      // (Only where the span's place in the line moves: a stride or an
      // outer advance that is not a multiple of the line; sum8's a[i] ..
      // a[i+7] stepping by a line never straddle.)
      bool Moves = std::abs(Gr.Advance) % int64_t(Line) != 0 ||
                   (Depth >= 2 && outerAdvance(Gr) % int64_t(Line) != 0);
      if (std::abs(Gr.Advance) >= int64_t(Line) && Chain.size() > 1 && Moves) {
        int64_t Span = Gr.span(&Chain);
        if (Span < int64_t(Line))
          Bytes += Fresh[GI] * double(Span) / Line;
      }
      if (Sweeps && Iterations > 0) {
        auto [It, New] = Touched.try_emplace(std::make_pair(Chain, Repeating));
        if (New)
          It->second = touchedBytes(G, K, IR, Chain, Line, Repeating);
        // Long rows' edge lines (< 1 %) are left out: the stream's figure
        // stays its bytes per iteration.
        double PerIt = It->second ? *It->second * Passes / Iterations : 0;
        if (PerIt > 1.01 * Bytes)
          Bytes = PerIt;
      }
      if (ChainRead || (ChainWrite && C.WriteAllocate)) {
        L.LoadBytesPerIt += Bytes;
        if (Irregular)
          R.IrregularMissesPerIt[LevelIndex] += Bytes / Line;
        else if (std::abs(Gr.Advance) > int64_t(Line))
          L.StridedLoadBytesPerIt += Bytes;
      }
      if (ChainWrite)
        L.EvictBytesPerIt += Bytes;
    };
    // An array that does not move in the innermost loop stays in
    // registers or L1 there: only its lines' floor below counts.
    for (size_t J = 0; Gr.Advance != 0 && J < Gr.Members.size(); ++J) {
      const Member &Mb = Gr.Members[J];
      if (J > 0 && Mb.Gap > T) {
        Close();
        Chain.clear();
        ChainRead = ChainWrite = false;
      }
      Chain.push_back(Mb.A);
      ChainRead |= Mb.A->Read;
      ChainWrite |= Mb.A->Write;
    }
    if (Gr.Advance != 0)
      Close();
    ArrayLoad[Gr.Array] += L.LoadBytesPerIt - Load0;
    ArrayEvict[Gr.Array] += L.EvictBytesPerIt - Evict0;
  }
  // Every line an array's accesses touch crosses at least once per
  // execution of the nest, however much the level reuses it (B of a
  // matmul reused across i is still brought in once, C's element kept in
  // a register across k written back once).
  for (const auto &[Array, Use] : Arrays) {
    if (!Use.Lines || Iterations <= 0)
      continue;
    double Floor = *Use.Lines / Iterations; // edge lines (< 1 %) left out as above
    if ((Use.Reads || (Use.Writes && C.WriteAllocate)) && 1.01 * ArrayLoad[Array] < Floor)
      L.LoadBytesPerIt += Floor - ArrayLoad[Array];
    if (Use.Writes && 1.01 * ArrayEvict[Array] < Floor)
      L.EvictBytesPerIt += Floor - ArrayEvict[Array];
  }
}

} // namespace perfmodel::layers

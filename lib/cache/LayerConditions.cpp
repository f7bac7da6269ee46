//===- LayerConditions.cpp - Analytic cache-line traffic ------------------===//
//
// Sliding-window layer conditions on the innermost loop (as in kerncraft):
// per array, the accesses are sorted along the direction of travel; the gap
// between neighbours is how many iterations later the trailing access touches
// the data the leading one brought in. With threshold t (iterations), the
// cache must hold, for every access, min(gap, t) iterations of its stream:
//   Req(t) = sum over accesses of min(gap, t) x bytes per iteration.
// The largest t with Req(t) <= capacity decides which accesses hit; accesses
// joined by hitting gaps form one stream of lines through the level.
// When the whole working set fits, only compulsory traffic remains.
//
//===----------------------------------------------------------------------===//
#include "NestGeometry.h"
#include "perfmodel/StageTimes.h"
#include "perfmodel/Traffic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

using namespace perfmodel;

namespace {

struct Member {
  const Access *A = nullptr;
  int64_t Offset = 0;  ///< byte offset constant (at the bound sizes)
  Poly OffsetSym;      ///< the same, symbolic in the parameters
  double Gap = std::numeric_limits<double>::infinity(); ///< iterations to the one ahead
  Poly GapBytesSym;    ///< symbolic gap in bytes (finite gaps only)
};

struct Group {
  std::string Array;
  int64_t Advance = 0;     ///< bytes per iteration along the innermost loop
  std::vector<int64_t> LoopAdvance; ///< bytes per iteration of each loop, outermost first
  double StreamBytes = 0;  ///< bytes per iteration the stream moves
  std::vector<Member> Members; ///< leading first

  /// Bytes from the lowest to the highest offset of the members (of those
  /// in ONLY, when given; 0 when none).
  int64_t span(const std::vector<const Access *> *Only = nullptr) const {
    int64_t Lo = std::numeric_limits<int64_t>::max(), Hi = std::numeric_limits<int64_t>::min();
    for (const Member &Mb : Members)
      if (!Only || std::find(Only->begin(), Only->end(), Mb.A) != Only->end()) {
        Lo = std::min(Lo, Mb.Offset);
        Hi = std::max(Hi, Mb.Offset);
      }
    return Hi > Lo ? Hi - Lo : 0;
  }
};

/// Splits a byte-offset polynomial into the part with counters and the rest.
void splitByCounters(const Poly &P, const std::set<std::string> &Counters, Poly &WithIV,
                     Poly &Rest) {
  WithIV = Poly();
  Rest = Poly();
  for (const auto &[Mon, C] : P.terms()) {
    Poly T = Poly::constant(C);
    bool HasIV = false;
    for (const std::string &S : Mon) {
      T = T * Poly::symbol(S);
      HasIV |= Counters.count(S) > 0;
    }
    (HasIV ? WithIV : Rest) = (HasIV ? WithIV : Rest) + T;
  }
}

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

/// Largest value of PARAM (1 .. 2^40) for which Req(PARAM) <= Cap, given the
/// other bindings; nullopt when it never or always holds in that range.
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

/// Lines of one region (an access's lines between two reuses) and the
/// number of sets they map to (all of them, or fewer for a column whose
/// stride of whole lines shares a factor with the set count).
struct Region {
  double Lines = 0;
  double Sets = 0;
  bool Stays = true; ///< reused by the next pass too (else it moves on)
};

/// Per region, the share of its lines LRU loses before they are reused in a
/// cyclic sweep: those in sets given more lines than WAYS by all regions
/// together (each spread evenly over its sets, its remainder at random,
/// regions placed independently), plus one per line there of a region that
/// moves on (up to its own lines less one).
std::vector<double> lostShares(const std::vector<Region> &Regions, double Sets,
                               unsigned Ways, bool Aligned = false) {
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
    // Distribution of the other regions' lines in one set: [staying][moving].
    std::vector<std::vector<double>> Others(Cap + 1, std::vector<double>(Cap + 1, 0));
    Others[0][0] = 1;
    for (size_t J = 0; J < Regions.size(); ++J) {
      if (J == M)
        continue;
      std::vector<std::vector<double>> Next(Cap + 1, std::vector<double>(Cap + 1, 0));
      for (size_t S = 0; S <= Cap; ++S)
        for (size_t V = 0; V <= Cap; ++V)
          for (auto [C, P] : Outcomes(Regions[J], std::min(1.0, Regions[M].Sets / Sets))) {
            size_t S2 = Regions[J].Stays ? std::min<size_t>(Cap, S + size_t(C)) : S;
            size_t V2 = Regions[J].Stays ? V : std::min<size_t>(Cap, V + size_t(C));
            Next[S2][V2] += Others[S][V] * P;
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
        for (size_t S = 0; S <= Cap; ++S)
          for (size_t V = 0; V <= Cap; ++V)
            if (C + double(S + V) > Ways)
              Lost += P * Others[S][V] * (C + std::min(double(V), C - 1));
    Shares.push_back(Regions[M].Lines > 0 ? std::min(1.0, Lost * Sets / Regions[M].Lines) : 0);
  }
  return Shares;
}

/// One nest's layer conditions: its streams (groups of accesses to an
/// array moving together) and their footprints found once, then per cache
/// level the conditions and the traffic across its link to the next.
class LayerModel {
public:
  LayerModel(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
             const LayerConditionOptions &O, TrafficResult &R)
      : K(K), IR(IR), M(M), O(O), R(R), B(IR.bindings()), G(K, IR),
        Line(M.Caches[0].LineBytes), Depth(K.Nest.size()) {}

  /// The steps, in order; a false one leaves the reason in R.
  bool groupAccesses();
  void orderGroups();
  bool footprints();
  void level(size_t Index);
  void finish();

private:
  // The nest.
  double requirement(double T) const;
  Poly requirementSym(const Member &TM) const;
  bool dense(const Group &Gr) const;
  double trips(size_t D) const { return G.trips(K.Nest[D]); }
  int64_t outerAdvance(const Group &Gr) const;
  double linesInside(const Group &Gr, size_t D,
                     const std::function<double(size_t)> &TripsOf) const;
  std::optional<double> footAt(size_t D, bool AtFirst) const;
  bool reused(size_t D) const;
  // The level.
  uint64_t setsReached(uint64_t Adv) const;
  uint64_t strideSets(const Group &Gr) const {
    return setsReached(uint64_t(std::abs(Gr.Advance)));
  }
  double innerLines(const Group &Gr) const;
  bool wholeSetFits();
  void thresholdConditions();
  void stridedReuse();
  void windowReuse();
  void outerReuse();
  void streams();

  const LoopKernel &K;
  const KernelIR &IR;
  const MachineModel &M;
  const LayerConditionOptions &O;
  TrafficResult &R;
  const std::map<std::string, int64_t> B;
  const NestGeometry G;
  const unsigned Line;
  const size_t Depth;
  std::set<std::string> Counters;
  std::vector<Group> Groups;
  std::vector<double> Thresholds;
  /// All streams contiguous and at one common speed: requirements are
  /// exact polynomials in the parameters.
  bool Symbolic = true;
  int64_t CommonAdv = 0;
  bool Rectangular = true; ///< no bound depends on a counter
  /// Per array (all its streams), the lines one execution of the nest
  /// touches: counted, or the byte range where that is exact (a box of a
  /// nest whose bounds do not depend on its counters, swept without skipping
  /// a line); nullopt where neither is known. And whether it is read, written.
  struct ArrayUse {
    std::optional<double> Lines;
    bool Reads = false, Writes = false;
  };
  std::map<std::string, ArrayUse> Arrays;
  /// Footprint of one execution of the nest, for the "everything fits" case.
  double Footprint = 0, ReadFoot = 0, WriteFoot = 0;
  /// Arrays of a one-level nest that every stream walks at one stride of
  /// whole lines (a[16 * i]: every other line): their lines stay in the sets
  /// that stride reaches, so a cache holds them in that share of its sets.
  /// Bytes and stride.
  std::map<std::string, std::pair<double, int64_t>> LineStrided;
  double Iterations = 0;
  std::map<std::pair<std::vector<const Access *>, size_t>, std::optional<double>> Touched; ///< per chain and repeating loops

  // The level being worked on.
  size_t LevelIndex = 0;
  const CacheLevel *Cache = nullptr;
  double Cap = 0;
  uint64_t Sets = 0;
  /// Arrays on pages of their own start in the same set of a cache whose
  /// sets span a page or less (Haswell's L1: 64 x 64 B).
  bool Aligned = false;
  LinkTraffic L;
  double T = 0; ///< the largest threshold whose requirement fits
  /// Per stream: the bytes that cross per iteration; of them, the bytes of
  /// lines a column takes afresh (not slid into from the previous outer
  /// iteration: where its members straddle a line these are two lines, not
  /// one); and the share reloaded across outer loops.
  std::vector<double> Moved, Fresh, Reload;
  double Trip = 0;     ///< the innermost loop's trips
  double OuterReq = 0; ///< one inner loop's lines of every stream, in bytes
};


bool LayerModel::groupAccesses() {
  if (!G.ok()) {
    R.Reason = G.reason();
    return false;
  }
  const LoopLevel &In = K.innermost();
  // Group the accesses by array; every access must be affine.
  Counters = G.counters();
  for (const Access &A : K.Accesses) {
    if (A.Indirect || !A.Linear) {
      R.Reason = "layer conditions need affine accesses; " + A.Text +
                 (A.Indirect ? " is indirect (via " + A.IndirectVia + ")"
                             : " has no affine element offset") +
                 ": use the simulator";
      return false;
    }
    Poly Sym = *A.Linear * Poly::constant(A.StrideBytes) + Poly::constant(A.FieldOffset);
    Poly WithIV, Rest;
    splitByCounters(Sym, Counters, WithIV, Rest);
    Poly Coef = WithIV.substitute(B);
    for (const auto &[Mon, C] : Coef.terms())
      if (Mon.size() != 1) {
        R.Reason = A.Text + " is not linear in the loop counters";
        return false;
      }
    int64_t Adv = Coef.coefficientOf(In.Var).constantTerm() * In.Step;
    std::vector<int64_t> LoopAdv;
    for (const LoopLevel &Lv : K.Nest)
      LoopAdv.push_back(Coef.coefficientOf(Lv.Var).constantTerm() * Lv.Step);
    auto Off = Rest.evaluate(B);
    if (!Off) {
      R.Reason = "offset of " + A.Text + " depends on unbound values";
      return false;
    }
    // One stream per array and movement: accesses whose offsets differ by
    // outer counters (data[k][i] and data[k][j]) are separate streams.
    auto It = std::find_if(Groups.begin(), Groups.end(), [&](const Group &Gr) {
      return Gr.Array == A.Array && Gr.LoopAdvance == LoopAdv;
    });
    if (It == Groups.end()) {
      for (const Group &Gr : Groups)
        if (Gr.Array == A.Array && Gr.Advance != Adv) {
          R.Reason = "accesses to " + A.Array +
                     " move at different strides (not uniformly generated)";
          return false;
        }
      Groups.push_back({A.Array, Adv, LoopAdv, 0, {}});
      It = Groups.end() - 1;
    }
    It->Members.push_back({&A, *Off, Rest, std::numeric_limits<double>::infinity(), {}});
  }
  return true;
}

void LayerModel::orderGroups() {
  // Order each group along its direction of travel; measure the gaps.
  for (Group &Gr : Groups) {
    int64_t AbsAdv = Gr.Advance < 0 ? -Gr.Advance : Gr.Advance;
    Gr.StreamBytes = std::min<double>(double(AbsAdv), Line);
    if (AbsAdv == 0)
      continue; // invariant in the innermost loop: stays in registers or L1
    bool Up = Gr.Advance > 0;
    std::stable_sort(Gr.Members.begin(), Gr.Members.end(),
                     [&](const Member &X, const Member &Y) {
                       return Up ? X.Offset > Y.Offset : X.Offset < Y.Offset;
                     });
    for (size_t I = 1; I < Gr.Members.size(); ++I) {
      Member &Mb = Gr.Members[I];
      const Member &Ahead = Gr.Members[I - 1];
      double Bytes = double(Up ? Ahead.Offset - Mb.Offset : Mb.Offset - Ahead.Offset);
      Mb.Gap = Bytes / double(AbsAdv);
      Mb.GapBytesSym = Up ? Ahead.OffsetSym - Mb.OffsetSym : Mb.OffsetSym - Ahead.OffsetSym;
      Thresholds.push_back(Mb.Gap);
    }
  }
  std::sort(Thresholds.begin(), Thresholds.end());
  Thresholds.erase(std::unique(Thresholds.begin(), Thresholds.end()), Thresholds.end());

  // Requirements are exact polynomials when all streams are contiguous and
  // at one common speed (bytes and iterations convert exactly).
  for (const Group &Gr : Groups) {
    int64_t AbsAdv = Gr.Advance < 0 ? -Gr.Advance : Gr.Advance;
    if (AbsAdv == 0)
      continue;
    if ((CommonAdv && AbsAdv != CommonAdv) || AbsAdv > Line)
      Symbolic = false;
    CommonAdv = AbsAdv;
  }
}

double LayerModel::requirement(double T) const {
  double Req = 0;
  for (const Group &Gr : Groups)
    if (Gr.Advance != 0)
      for (const Member &Mb : Gr.Members)
        Req += std::min(Mb.Gap, T) * Gr.StreamBytes;
  return Req;
}

Poly LayerModel::requirementSym(const Member &TM) const {
  Poly Req;
  for (const Group &Gr : Groups)
    if (Gr.Advance != 0)
      for (const Member &Mb : Gr.Members)
        Req = Req + (Mb.Gap <= TM.Gap ? Mb.GapBytesSym : TM.GapBytesSym);
  return Req;
}

/// A group sweeps its box without skipping a line: each loop moves it by
/// less than a line past what the loops inside it cover.
bool LayerModel::dense(const Group &Gr) const {
  double Span = 0;
  for (size_t D = K.Nest.size(); D-- > 0;) {
    double Adv = double(std::abs(Gr.LoopAdvance[D]));
    if (Adv > Span + Line)
      return false;
    auto [Lo, Hi] = G.range(K.Nest[D].Var);
    Span += Adv * double(Hi - Lo) / double(std::max<int64_t>(1, std::abs(K.Nest[D].Step)));
  }
  return true;
}

bool LayerModel::footprints() {
  for (const LoopLevel &Lv : K.Nest)
    for (const Poly *P : {&Lv.Lower, &Lv.Upper})
      for (const std::string &S : P->symbols())
        Rectangular &= !Counters.count(S);
  // Per array: its lines (Arrays), the footprints, the line-strided arrays.
  for (const Group &First : Groups) {
    if (Arrays.count(First.Array))
      continue;
    bool Reads = false, Writes = false, AllDense = true;
    double Lo = std::numeric_limits<double>::infinity(), Hi = -Lo;
    std::vector<const Access *> Refs;
    for (const Group &Gr : Groups) {
      if (Gr.Array != First.Array)
        continue;
      AllDense &= dense(Gr);
      for (const Member &Mb : Gr.Members) {
        auto Range = G.byteRange(*Mb.A);
        if (!Range) {
          R.Reason = "cannot bound the offsets of " + Mb.A->Text;
          return false;
        }
        Lo = std::min(Lo, double(Range->first));
        Hi = std::max(Hi, double(Range->second + Mb.A->ElementBytes));
        Reads |= Mb.A->Read;
        Writes |= Mb.A->Write;
        Refs.push_back(Mb.A);
      }
    }
    // The lines the nest touches (a triangle touches half its bounding box),
    // else the byte range.
    auto Lines = touchedBytes(G, K, IR, Refs, Line);
    double Bytes = Lines.value_or(std::ceil((Hi - Lo) / Line) * Line);
    // Streams whose stride skips lines (a[16 * i]: every other line) touch
    // at most a line per cluster of members within a line per iteration:
    // the range would count the lines they skip.
    if (!Lines) {
      double Skipping = 0;
      bool AllSkip = true;
      for (const Group &Gr : Groups) {
        if (Gr.Array != First.Array)
          continue;
        if (std::abs(Gr.Advance) <= int64_t(Line)) {
          AllSkip = false;
          break;
        }
        std::vector<int64_t> Offs;
        for (const Member &Mb : Gr.Members)
          Offs.push_back(Mb.Offset);
        std::sort(Offs.begin(), Offs.end());
        double Clusters = 0;
        for (size_t J = 0, Start = 0; J < Offs.size(); ++J)
          if (J == 0 || Offs[J] - Offs[Start] >= int64_t(Line))
            ++Clusters, Start = J;
        Skipping += Clusters * double(Line) * G.totalIterations();
      }
      if (AllSkip && Skipping > 0 && Skipping < Bytes)
        Bytes = Skipping;
    }
    Arrays[First.Array] = {
        Lines || (Rectangular && AllDense) ? std::optional<double>(Bytes) : std::nullopt, Reads,
        Writes};
    if (K.Nest.size() == 1) {
      int64_t Stride = std::abs(First.Advance);
      bool OneStride = Stride > int64_t(Line) && Stride % int64_t(Line) == 0;
      for (const Group &Gr : Groups)
        if (Gr.Array == First.Array)
          OneStride &= std::abs(Gr.Advance) == Stride;
      if (OneStride)
        LineStrided[First.Array] = {Bytes, Stride};
    }
    Footprint += Bytes;
    if (Reads || Writes)
      ReadFoot += Bytes; // read, or write-allocated
    if (Writes)
      WriteFoot += Bytes;
  }
  Iterations = G.totalIterations();
  return true;
}

/// Bytes per iteration of the loop enclosing the innermost one (0: none).
int64_t LayerModel::outerAdvance(const Group &Gr) const {
  return Depth >= 2 ? std::abs(Gr.LoopAdvance[Depth - 2]) : int64_t(0);
}

/// Lines one member touches in an iteration of loop D: rows of a
/// contiguous span, at most the whole byte range it covers.
double LayerModel::linesInside(const Group &Gr, size_t D,
                               const std::function<double(size_t)> &TripsOf) const {
  double Lines = 1, Span = 0, Range = 0;
  for (size_t E = D + 1; E < Depth; ++E) {
    double C = double(std::abs(Gr.LoopAdvance[E])), Tr = std::max(0.0, TripsOf(E) - 1);
    Range += C * Tr;
    if (C >= Line)
      Lines *= Tr + 1;
    else
      Span += C * Tr;
  }
  double Rows = Lines * std::ceil((Span + 8) / Line);
  double One = std::min(Rows, std::ceil((Range + 8) / Line));
  // The members overlap when their offsets are closer than what one of
  // them covers (a stencil's rows, seidel's nine points over one
  // array): one member's lines and the spread of their offsets.
  double Spread = std::ceil(double(Gr.span()) / Line);
  return std::min(One * double(Gr.Members.size()), One + Spread);
}

/// What one iteration of D touches at D's first (last) value, inner
/// bounds evaluated there; nullopt unless some inner loop's bounds depend
/// on D's counter alone among the counters.
std::optional<double> LayerModel::footAt(size_t D, bool AtFirst) const {
  auto [Lo, Hi] = G.range(K.Nest[D].Var);
  std::map<std::string, int64_t> At = B;
  At[K.Nest[D].Var] = AtFirst ? Lo : Hi;
  bool Varies = false;
  std::vector<double> T(Depth, 0);
  for (size_t E = D + 1; E < Depth; ++E) {
    const LoopLevel &L = K.Nest[E];
    auto L0 = L.Lower.evaluate(At), U0 = L.Upper.evaluate(At);
    if (!L0 || !U0) {
      T[E] = trips(E); // depends on another counter: its whole range
      continue;
    }
    Varies |= L.Lower.mentions(K.Nest[D].Var) || L.Upper.mentions(K.Nest[D].Var);
    int64_t St = std::abs(L.Step ? L.Step : 1);
    T[E] = *U0 > *L0 ? double((*U0 - *L0 + St - 1) / St) : 0;
  }
  if (!Varies)
    return std::nullopt;
  double F = 0;
  for (const Group &Gr : Groups)
    F += linesInside(Gr, D, [&](size_t E) { return T[E]; }) * Line;
  return F;
}

bool LayerModel::reused(size_t D) const {
  return std::any_of(Groups.begin(), Groups.end(), [&](const Group &Gr) {
    return Gr.Advance != 0 && Gr.LoopAdvance[D] == 0;
  });
}

/// Sets a stream's lines reach: all of them, or for a column whose stride
/// of whole lines shares a factor with the set count, a fraction.
uint64_t LayerModel::setsReached(uint64_t Adv) const {
  return Adv >= Line && Adv % Line == 0 ? Sets / std::gcd(Sets, Adv / Line) : Sets;
}

/// Lines one inner loop's run of a stream touches: its members' lines
/// together (a column's u[j][i-1], u[j][i], u[j][i+1] share a line but
/// where the three straddle one: 1 + 16/64 lines a row, not 3).
double LayerModel::innerLines(const Group &Gr) const {
  double Members = double(Gr.Members.size()), Spread = double(Gr.span()) / Line;
  bool Column = std::abs(Gr.Advance) >= int64_t(Line);
  double One = Column ? Trip : Trip * Gr.StreamBytes / Line;
  return std::min(Members * One, One + (Column ? Trip * Spread : Spread));
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
  L.Outer = Index + 1 < M.Caches.size() ? M.Caches[Index + 1].Name : "MEM";
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
    // A stride of whole lines that shares a factor with the set count
    // maps the inner loop's lines to a fraction of the sets, round-robin:
    // a set given more lines than it has ways misses all of them on the
    // next pass (LRU over a cycle), the others hit (a power-of-two row
    // length, as N = 2048, uses few sets; PolyBench's 240 doubles, 30
    // lines, half of them).
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
    // Stores of a column that misses here wait at commit for a line the
    // fills of the later stores (a store queue's worth per stream in
    // those sets) evict first, where those overfill the sets' ways
    // (bench/memory/conflicts.c: 256-float rows, 4 sets, ~20 cy a store).
    if (LevelIndex == 0 && Sets && M.Core.StoreQueue)
      for (size_t GI : Strided) {
        const Group &Gr = Groups[GI];
        bool Writes = std::any_of(Gr.Members.begin(), Gr.Members.end(),
                                  [](const Member &Mb) { return Mb.A->Write; });
        uint64_t Used = strideSets(Gr);
        if (!Writes || MissShare[GI] < 1 || Used >= Sets)
          continue;
        double InFlight = 0;
        for (size_t GJ : Strided)
          InFlight += strideSets(Groups[GJ]) == Used ? M.Core.StoreQueue : 0;
        if (InFlight < double(Used) * C.Ways)
          continue;
        R.ThrashedStoresPerIt += 1;
        R.Notes.push_back(Gr.Array + "'s stores reach " + std::to_string(Used) + " of the " +
                          C.Name + "'s " + std::to_string(Sets) + " sets: " +
                          std::to_string(int64_t(InFlight)) +
                          " lines in flight (the store queue's worth per stream) overfill their " +
                          std::to_string(Used * C.Ways) +
                          " ways, so each store waits for its line again");
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
    // Capacity, and the sets: each member's lines spread evenly over the
    // sets (a column's over those its stride reaches), its remainder over
    // some of them; a set given more lines than ways loses all of them
    // before the next iteration of D (LRU over a cycle). matmul ijk at
    // n = 180: B (4050 lines), A's and C's rows fill 256 KiB on Haswell's
    // L2, and B's lines in sets also holding a row's line (8 %) miss.
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
    // A chain that moves with every loop and is not reused across one
    // brings in at least the lines it touches: short or triangular rows
    // end in partial lines the bytes per iteration do not count.
    // Loops outside all that move it (a time loop) repeat the sweep: its
    // lines per pass of the loops inside them (rows of a 3D stencil whose
    // skipped edges share lines with the next row: 160 B a row of 144 B
    // used, heat-3d at n = 20).
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

void LayerModel::finish() {
  for (const Group &Gr : Groups)
    if (Gr.Advance == 0)
      R.Notes.push_back(Gr.Array + " does not move in the innermost loop: its "
                        "lines are counted once per execution of the nest");
  R.TotalIterations = Iterations < 1.8e19 ? uint64_t(Iterations) : UINT64_MAX;
  addOuterTraffic(K, G, IR, M, R, O.AlignedBases);
  R.Ok = true;
}

} // namespace

TrafficResult perfmodel::layerConditionTraffic(const LoopKernel &K, const KernelIR &IR,
                                               const MachineModel &M,
                                               const LayerConditionOptions &O) {
  StageScope Timed(Stage::LayerConditions);
  TrafficResult R = startTraffic("layer conditions", K, M);
  if (!R.Reason.empty())
    return R;
  LayerModel Model(K, IR, M, O, R);
  if (!Model.groupAccesses())
    return R;
  Model.orderGroups();
  if (!Model.footprints())
    return R;
  R.IrregularMissesPerIt.assign(M.Caches.size(), 0);
  for (size_t I = 0; I < M.Caches.size(); ++I)
    Model.level(I);
  Model.finish();
  return R;
}

std::string perfmodel::layerConditionsAtEdge(const TrafficResult &Base, const LoopKernel &K,
                                             const KernelIR &IR, const MachineModel &M) {
  StageScope Timed(Stage::LayerConditions);
  if (!Base.Ok || M.Caches.empty())
    return "";
  if (!Base.Edge.empty())
    return Base.Edge;
  // What a link may move before it matters: 1 % of the bytes the loop
  // moves at L1 (compulsory lines of a nest that fits, counted once).
  double L1Bytes = 0;
  for (const Access &A : K.Accesses)
    L1Bytes += A.ElementBytes * ((A.Read ? 1 : 0) + (A.Write ? 1 : 0));
  std::string Worst;
  double WorstDiff = 0;
  auto Compare = [&](const TrafficResult &T, const std::string &What) {
    if (!T.Ok || T.Links.size() != Base.Links.size())
      return;
    for (size_t I = 0; I < T.Links.size(); ++I) {
      double X = Base.Links[I].totalBytesPerIt(), Y = T.Links[I].totalBytesPerIt();
      double Diff = std::fabs(X - Y) / std::max(X, 1e-9);
      if (std::max(X, Y) > 0.01 && Diff > 0.05 && std::fabs(X - Y) > 0.01 * L1Bytes &&
          Diff > WorstDiff) {
        WorstDiff = Diff;
        char Buf[200];
        std::snprintf(Buf, sizeof Buf, "%s moves %s-%s from %.3g to %.3g B/it", What.c_str(),
                      Base.Links[I].Inner.c_str(), Base.Links[I].Outer.c_str(), X, Y);
        Worst = Buf;
      }
    }
  };
  // Where the arrays sit: placed independently (the default) or all on
  // page boundaries, as large heap arrays are (their columns then share the
  // same sets of a cache whose sets span a page).
  LayerConditionOptions AlignedBases;
  AlignedBases.AlignedBases = true;
  Compare(layerConditionTraffic(K, IR, M, AlignedBases), "arrays starting on page boundaries");
  for (int Delta : {-1, +1}) {
    // Every cache a way smaller (larger), its sets kept.
    MachineModel N = M;
    bool Any = false;
    for (CacheLevel &C : N.Caches) {
      if (C.Ways < 2 || !C.LineBytes || !C.sets())
        continue;
      uint64_t Sets = C.sets();
      C.Ways = unsigned(int(C.Ways) + Delta);
      C.SizeBytes = Sets * C.Ways * C.LineBytes;
      Any = true;
    }
    if (!Any)
      continue;
    Compare(layerConditionTraffic(K, IR, N),
            std::string("one way ") + (Delta < 0 ? "less" : "more") + " per cache");
  }
  return Worst;
}

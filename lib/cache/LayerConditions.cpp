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
#include "LayerModel.h"
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
using namespace perfmodel::layers;

namespace {

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

} // namespace

namespace perfmodel::layers {


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
      // An element the innermost loop does not move (a[0], a[n/2] beside
      // a[i]) stays in L1 as the others stream by: a group of its own.
      for (const Group &Gr : Groups)
        if (Gr.Array == A.Array && Gr.Advance != Adv && Gr.Advance != 0 && Adv != 0) {
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

void LayerModel::finish() {
  for (const Group &Gr : Groups)
    if (Gr.Advance == 0)
      R.Notes.push_back(Gr.Array + " does not move in the innermost loop: its "
                        "lines are counted once per execution of the nest");
  R.TotalIterations = Iterations < 1.8e19 ? uint64_t(Iterations) : UINT64_MAX;
  addOuterTraffic(K, G, IR, M, R, O.AlignedBases);
  R.Ok = true;
}

} // namespace perfmodel::layers

TrafficResult perfmodel::layerConditionTraffic(const LoopKernel &K, const KernelIR &IR,
                                               const MachineModel &M,
                                               const LayerConditionOptions &O) {
  StageScope Timed(Stage::LayerConditions);
  TrafficResult R = startTraffic(TrafficSource::LayerConditions, K, M);
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

double perfmodel::conflictLoadCycles(const LoopKernel &K, const KernelIR &IR,
                                     const MachineModel &M) {
  if (M.Caches.empty() || M.Caches[0].ConflictMissCyBySets.empty())
    return 0;
  LoopKernel Columns = K;
  Columns.OuterAccesses.clear();
  const auto &B = IR.bindings();
  const LoopLevel &In = K.innermost();
  Columns.Accesses.erase(
      std::remove_if(Columns.Accesses.begin(), Columns.Accesses.end(),
                     [&](const Access &A) {
                       if (!A.Read || A.Write || A.Indirect || !A.Linear)
                         return true;
                       auto S = bytesPerIteration(A, In, B);
                       return !S || *S < int64_t(M.Caches[0].LineBytes);
                     }),
      Columns.Accesses.end());
  if (Columns.Accesses.empty())
    return 0;
  TrafficResult R = layerConditionTraffic(Columns, IR, M);
  return R.Ok ? R.ConflictLoadCyPerIt : 0;
}

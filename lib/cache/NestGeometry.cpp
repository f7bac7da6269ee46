//===- NestGeometry.cpp ---------------------------------------------------===//
//
// The ranges a loop nest's counters take at the bound sizes (triangular and
// offset bounds included), the bytes each access touches over them, and the
// references of enclosing loops that add L1 traffic beside the innermost's.
//
//===----------------------------------------------------------------------===//
#include "NestGeometry.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

using namespace perfmodel;

namespace {
std::optional<double> exactIterations(const LoopKernel &K,
                                      const std::map<std::string, int64_t> &B);
double unionLines(std::vector<std::pair<int64_t, int64_t>> &Runs);
} // namespace

NestGeometry::NestGeometry(const LoopKernel &K, const KernelIR &IR)
    : Bindings(IR.bindings()) {
  Iterations = 1;
  std::map<std::string, int64_t> Mid = Bindings;
  for (const LoopLevel &L : K.Nest) {
    for (const Poly *P : {&L.Lower, &L.Upper})
      for (const std::string &S : P->symbols())
        if (IR.DataSymbols.count(S)) {
          Reason = "bounds of loop '" + L.Var + "' depend on data (" + S + ")";
          return;
        }
    auto Lo = extremes(L.Lower.substitute(Bindings));
    auto Hi = extremes(L.Upper.substitute(Bindings));
    if (!Lo || !Hi) {
      Reason = "bounds of loop '" + L.Var + "' are not known at the bound sizes";
      return;
    }
    int64_t First = Lo->first, Last = Hi->second - 1;
    Ranges[L.Var] = {First, std::max(First, Last)};
    auto LoM = L.Lower.evaluate(Mid), HiM = L.Upper.evaluate(Mid);
    int64_t Step = L.Step < 0 ? -L.Step : L.Step;
    double Trip = (LoM && HiM && *HiM > *LoM) ? double((*HiM - *LoM + Step - 1) / Step) : 0;
    Iterations *= Trip;
    if (&L != &K.Nest.back())
      OuterBox *= double((std::max(First, Last) - First) / Step + 1);
    Mid[L.Var] = (First + Last) / 2;
  }
  // The middle of an odd range falls between two values: count exactly
  // where the outer loops are small enough to walk.
  if (K.Nest.size() > 1 && OuterBox <= double(uint64_t(1) << 16))
    if (auto E = exactIterations(K, Bindings))
      Iterations = *E;
}

std::set<std::string> NestGeometry::counters() const {
  std::set<std::string> S;
  for (const auto &[Name, R] : Ranges)
    S.insert(Name);
  return S;
}

std::optional<std::pair<int64_t, int64_t>> NestGeometry::extremes(const Poly &P) const {
  // Offsets beyond 2^63 bytes (sizes no machine holds) have no range.
  int64_t Lo = 0, Hi = 0;
  for (const auto &[Mon, C] : P.terms()) {
    int64_t A = C, B = C;
    if (!Mon.empty()) {
      if (Mon.size() != 1)
        return std::nullopt;
      auto It = Ranges.find(Mon[0]);
      if (It == Ranges.end() || __builtin_mul_overflow(C, It->second.first, &A) ||
          __builtin_mul_overflow(C, It->second.second, &B))
        return std::nullopt;
    }
    if (__builtin_add_overflow(Lo, std::min(A, B), &Lo) ||
        __builtin_add_overflow(Hi, std::max(A, B), &Hi))
      return std::nullopt;
  }
  return std::make_pair(Lo, Hi);
}

std::optional<std::pair<int64_t, int64_t>> NestGeometry::byteRange(const Access &A) const {
  if (!A.Linear)
    return std::nullopt;
  Poly P = (*A.Linear * Poly::constant(A.StrideBytes) + Poly::constant(A.FieldOffset))
               .substitute(Bindings);
  return extremes(P);
}

namespace {

/// C0 + sum C[d] x counter d, over the nest's counters (outermost first).
struct LinearForm {
  int64_t C0 = 0;
  std::vector<int64_t> C;
  int64_t at(const std::vector<int64_t> &X) const {
    int64_t V = C0;
    for (size_t D = 0; D < X.size() && D < C.size(); ++D)
      V += C[D] * X[D];
    return V;
  }
};

std::optional<LinearForm> linearIn(const Poly &P, const std::vector<std::string> &Vars,
                                   const std::map<std::string, int64_t> &Bindings) {
  LinearForm F;
  F.C.assign(Vars.size(), 0);
  Poly Bound = P.substitute(Bindings);
  for (const auto &[Mon, C] : Bound.terms()) {
    if (Mon.empty()) {
      F.C0 += C;
      continue;
    }
    auto It = std::find(Vars.begin(), Vars.end(), Mon[0]);
    if (Mon.size() != 1 || It == Vars.end())
      return std::nullopt;
    F.C[size_t(It - Vars.begin())] += C;
  }
  return F;
}

int64_t floorDiv(int64_t A, int64_t B) { return A / B - ((A % B != 0) && ((A < 0) != (B < 0))); }

/// The nest's counters (outermost first) and bounds as linear forms over
/// them; nullopt when a bound is not linear in them at the bound sizes.
struct NestBounds {
  std::vector<std::string> Vars;
  std::vector<LinearForm> Lower, Upper;
};
std::optional<NestBounds> nestBounds(const LoopKernel &K,
                                     const std::map<std::string, int64_t> &B) {
  NestBounds NB;
  for (const LoopLevel &L : K.Nest)
    NB.Vars.push_back(L.Var);
  for (const LoopLevel &L : K.Nest) {
    auto Lo = linearIn(L.Lower, NB.Vars, B), Hi = linearIn(L.Upper, NB.Vars, B);
    if (!Lo || !Hi || L.Step == 0)
      return std::nullopt;
    NB.Lower.push_back(*Lo);
    NB.Upper.push_back(*Hi);
  }
  return NB;
}

/// Calls VISIT(X, Lo, Hi, Times) for every point X of the outer loops (every
/// value of each, bounds from the outer values) with the innermost loop's
/// bounds [Lo, Hi) there; false when there are more than MAXPOINTS points.
/// Levels marked in ONCE run their first value only, Times counting the
/// values they stand for (nothing VISIT sees moves with them: a repetition
/// loop's points all touch the same lines and run as many iterations).
template <typename Fn>
bool walkOuterLoops(const LoopKernel &K, const std::vector<LinearForm> &Lower,
                    const std::vector<LinearForm> &Upper, uint64_t MaxPoints, Fn &&Visit,
                    const std::vector<bool> &Once = {}) {
  size_t Inner = K.Nest.size() - 1;
  std::vector<int64_t> X(K.Nest.size(), 0);
  uint64_t Points = 0;
  bool Aborted = false;
  auto Walk = [&](auto &&Self, size_t D, double Times) -> void {
    if (D == Inner) {
      if (++Points > MaxPoints)
        Aborted = true;
      else
        Visit(X, Lower[Inner].at(X), Upper[Inner].at(X), Times);
      return;
    }
    int64_t Lo = Lower[D].at(X), Hi = Upper[D].at(X), St = std::abs(K.Nest[D].Step);
    if (D < Once.size() && Once[D] && Hi > Lo) {
      Times *= double((Hi - Lo + St - 1) / St);
      Hi = Lo + 1;
    }
    for (int64_t V = Lo; V < Hi && !Aborted; V += St) {
      X[D] = V;
      Self(Self, D + 1, Times);
    }
    X[D] = 0;
  };
  Walk(Walk, 0, 1.0);
  return !Aborted;
}

/// The outer levels nothing deeper moves with: no inner bound and no
/// address of ADDR (when given) has their counter.
std::vector<bool> repeatingLevels(const LoopKernel &K, const std::vector<LinearForm> &Lower,
                                  const std::vector<LinearForm> &Upper,
                                  const std::vector<LinearForm> &Addr = {}) {
  size_t Inner = K.Nest.size() - 1;
  std::vector<bool> Once(K.Nest.size(), false);
  for (size_t D = 0; D < Inner; ++D) {
    bool Moves = false;
    for (const LinearForm &F : Addr)
      Moves |= F.C[D] != 0;
    for (size_t In = D + 1; In <= Inner; ++In)
      Moves |= Lower[In].C[D] != 0 || Upper[In].C[D] != 0;
    Once[D] = !Moves;
  }
  return Once;
}

std::optional<double> exactIterations(const LoopKernel &K,
                                      const std::map<std::string, int64_t> &B) {
  auto Bounds = nestBounds(K, B);
  if (!Bounds)
    return std::nullopt;
  int64_t Step = std::abs(K.Nest.back().Step);
  double N = 0;
  if (!walkOuterLoops(
          K, Bounds->Lower, Bounds->Upper, uint64_t(1) << 16,
          [&](std::vector<int64_t> &, int64_t Lo, int64_t Hi, double Times) {
            if (Hi > Lo)
              N += Times * double((Hi - Lo + Step - 1) / Step);
          },
          repeatingLevels(K, Bounds->Lower, Bounds->Upper)))
    return std::nullopt;
  return N;
}

} // namespace

namespace {
std::optional<double> walkTouched(const NestGeometry &G, const LoopKernel &K, const KernelIR &IR,
                                  const std::vector<const Access *> &Members, unsigned LineBytes,
                                  size_t Fixed);

/// Appends V in decimal.
void appendNumber(std::string &Key, int64_t V) {
  char Buf[24];
  Key.append(Buf, std::to_chars(Buf, Buf + sizeof(Buf), V).ptr);
}

/// Appends P's terms as they are kept (symbols, then coefficient): one
/// polynomial one text, without str()'s layout.
void appendPoly(std::string &Key, const Poly &P) {
  for (const auto &[Mono, C] : P.terms()) {
    for (const std::string &S : Mono) {
      Key += S;
      Key += '*';
    }
    appendNumber(Key, C);
    Key += ';';
  }
}

/// What touchedBytes reads of the nest and the accesses, as text: the same
/// question asked again (each level's layer conditions, the what-ifs at a
/// level's edge, the working set) has the same answer.
std::string touchedKey(const LoopKernel &K, const KernelIR &IR,
                       const std::vector<const Access *> &Members, unsigned LineBytes,
                       size_t Fixed) {
  std::string Key;
  Key.reserve(512);
  appendNumber(Key, LineBytes);
  Key += '/';
  appendNumber(Key, int64_t(Fixed));
  for (const auto &[Name, V] : IR.bindings()) {
    Key += '|';
    Key += Name;
    Key += '=';
    appendNumber(Key, V);
  }
  for (const LoopLevel &L : K.Nest) {
    Key += '|';
    Key += L.Var;
    Key += ':';
    appendPoly(Key, L.Lower);
    Key += ':';
    appendPoly(Key, L.Upper);
    Key += ':';
    appendNumber(Key, L.Step);
  }
  for (const Access *A : Members) {
    Key += '|';
    if (A->Indirect)
      Key += '*';
    else if (A->Linear)
      appendPoly(Key, *A->Linear);
    else
      Key += '?';
    for (unsigned V : {A->StrideBytes, A->FieldOffset, A->ElementBytes}) {
      Key += ',';
      appendNumber(Key, V);
    }
  }
  return Key;
}
} // namespace

std::optional<double> perfmodel::touchedBytes(const NestGeometry &G, const LoopKernel &K,
                                              const KernelIR &IR,
                                              const std::vector<const Access *> &Members,
                                              unsigned LineBytes, size_t Fixed) {
  // A walk costs up to 2^17 visits; an analysis asks the same a few times
  // per nest. Kept for the process (a key is a few hundred bytes; a cap
  // keeps a long sweep's memo small).
  static std::mutex Lock;
  static std::unordered_map<std::string, std::optional<double>> Memo;
  std::string Key = touchedKey(K, IR, Members, LineBytes, Fixed);
  {
    std::lock_guard<std::mutex> G(Lock);
    if (auto It = Memo.find(Key); It != Memo.end())
      return It->second;
  }
  std::optional<double> Bytes = walkTouched(G, K, IR, Members, LineBytes, Fixed);
  std::lock_guard<std::mutex> Guard(Lock);
  if (Memo.size() > 100'000)
    Memo.clear();
  Memo.emplace(std::move(Key), Bytes);
  return Bytes;
}

namespace {
std::optional<double> walkTouched(const NestGeometry &G, const LoopKernel &K, const KernelIR &IR,
                                  const std::vector<const Access *> &Members, unsigned LineBytes,
                                  size_t Fixed) {
  constexpr uint64_t MaxVisits = uint64_t(1) << 17; // outer points x members
  constexpr size_t MaxRuns = size_t(1) << 17;
  if (K.Nest.empty() || Members.empty() || LineBytes == 0 || Fixed + 1 > K.Nest.size())
    return std::nullopt;
  const auto &B = IR.bindings();
  auto Bounds = nestBounds(K, B);
  if (!Bounds)
    return std::nullopt;
  // The fixed loops run their first iteration only.
  double Points = G.outerBoxPoints();
  for (size_t D = 0; D < Fixed; ++D) {
    Bounds->Upper[D] = Bounds->Lower[D];
    Bounds->Upper[D].C0 += std::abs(K.Nest[D].Step);
    auto [Lo, Hi] = G.range(K.Nest[D].Var);
    Points /= std::max(1.0, double(Hi - Lo) / double(std::abs(K.Nest[D].Step)) + 1);
  }
  if (Points * double(Members.size()) > double(MaxVisits))
    return std::nullopt;
  const std::vector<std::string> &Vars = Bounds->Vars;
  std::vector<LinearForm> Addr;
  size_t Inner = K.Nest.size() - 1;
  int64_t Step = std::abs(K.Nest[Inner].Step), Line = LineBytes;
  // A stride that skips lines (a column walk) is visited line by line where
  // the nest is small enough (a triangular column sweep touches half its
  // box); else the byte range is the estimate.
  std::vector<bool> Skips;
  double InnerTrips = G.trips(K.Nest[Inner]);
  for (const Access *A : Members) {
    if (A->Indirect || !A->Linear)
      return std::nullopt;
    auto F = linearIn(*A->Linear * Poly::constant(A->StrideBytes) +
                          Poly::constant(A->FieldOffset),
                      Vars, B);
    if (!F)
      return std::nullopt;
    Skips.push_back(std::abs(F->C[Inner] * Step) > Line);
    if (Skips.back() && Points * InnerTrips * double(Members.size()) > double(MaxRuns))
      return std::nullopt;
    Addr.push_back(*F);
  }
  // Runs of lines per member, merged with the previous run when they touch.
  std::vector<std::pair<int64_t, int64_t>> Runs;
  std::vector<std::optional<std::pair<int64_t, int64_t>>> Open(Members.size());
  // A walk's lines follow from its first address's line (and where in the
  // line it starts, unless the stride is whole lines) and its trip: outer
  // points that repeat a walk (a column sweep's neighbouring columns in one
  // line) add nothing.
  std::set<std::array<int64_t, 5>> Walked;
  auto Visit = [&](std::vector<int64_t> &X, int64_t Lo, int64_t Hi, double) {
    if (Hi <= Lo)
      return;
    int64_t Last = Lo + (Hi - 1 - Lo) / Step * Step;
    for (size_t M = 0; M < Members.size(); ++M) {
      if (Skips[M]) {
        X[Inner] = Lo;
        int64_t First = Addr[M].at(X), Stride = Addr[M].C[Inner] * Step;
        int64_t Within = Stride % Line == 0
                             ? floorDiv(First + Members[M]->ElementBytes - 1, Line) -
                                   floorDiv(First, Line)
                             : First - floorDiv(First, Line) * Line;
        if (!Walked.insert({int64_t(M), floorDiv(First, Line), Within, Lo - Last, Stride}).second)
          continue;
        for (int64_t I = Lo; I <= Last && Runs.size() < MaxRuns; I += Step) {
          X[Inner] = I;
          int64_t A0 = Addr[M].at(X);
          Runs.push_back({floorDiv(A0, Line),
                          floorDiv(A0 + Members[M]->ElementBytes - 1, Line)});
        }
        continue;
      }
      X[Inner] = Lo;
      int64_t A0 = Addr[M].at(X);
      X[Inner] = Last;
      int64_t A1 = Addr[M].at(X);
      if (A0 > A1)
        std::swap(A0, A1);
      int64_t L0 = floorDiv(A0, Line), L1 = floorDiv(A1 + Members[M]->ElementBytes - 1, Line);
      auto &R = Open[M];
      if (R && L0 <= R->second + 1 && L1 >= R->first - 1) {
        R->first = std::min(R->first, L0);
        R->second = std::max(R->second, L1);
      } else {
        if (R && Runs.size() < MaxRuns)
          Runs.push_back(*R);
        R = std::make_pair(L0, L1);
      }
    }
  };
  // Levels no address and no inner bound moves with repeat the same lines.
  if (!walkOuterLoops(K, Bounds->Lower, Bounds->Upper, MaxVisits / Members.size(), Visit,
                      repeatingLevels(K, Bounds->Lower, Bounds->Upper, Addr)))
    return std::nullopt;
  if (Runs.size() >= MaxRuns)
    return std::nullopt;
  for (auto &R : Open)
    if (R)
      Runs.push_back(*R);
  return unionLines(Runs) * double(Line);
}
} // namespace

namespace {
/// Lines in the union of the runs [first, last]: counted on a line map where
/// the runs span little more than their number (a column sweep's single
/// lines), else merged in order.
double unionLines(std::vector<std::pair<int64_t, int64_t>> &Runs) {
  if (Runs.empty())
    return 0;
  int64_t Lo = Runs.front().first, Hi = Runs.front().second;
  for (const auto &[First, Last] : Runs) {
    Lo = std::min(Lo, First);
    Hi = std::max(Hi, Last);
  }
  if (Hi - Lo < int64_t(Runs.size()) * 8 + (int64_t(1) << 16)) {
    std::vector<int32_t> Starts(size_t(Hi - Lo) + 2, 0); // +1 at a run's start, -1 past its end
    for (const auto &[First, Last] : Runs) {
      ++Starts[size_t(First - Lo)];
      --Starts[size_t(Last - Lo) + 1];
    }
    double Lines = 0;
    int64_t Open = 0;
    for (size_t I = 0; I + 1 < Starts.size(); ++I) {
      Open += Starts[I];
      Lines += Open > 0;
    }
    return Lines;
  }
  std::sort(Runs.begin(), Runs.end());
  double Lines = 0;
  int64_t End = std::numeric_limits<int64_t>::min();
  for (auto [First, Last] : Runs) {
    First = std::max(First, End + 1);
    if (Last >= First)
      Lines += double(Last - First + 1);
    End = std::max(End, Last);
  }
  return Lines;
}


/// Elements 0 .. the last of A's array as declared, every dimension's extent
/// known at the bound sizes; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> declaredElements(const Access &A,
                                                            const KernelIR &IR) {
  if (A.Dims.empty())
    return std::nullopt;
  const auto &B = IR.bindings();
  int64_t N = 1;
  for (const std::optional<Poly> &D : A.Dims) {
    std::optional<int64_t> V = D ? D->evaluate(B) : std::nullopt;
    if (!V || *V <= 0 || __builtin_mul_overflow(N, *V, &N))
      return std::nullopt;
  }
  return std::make_pair(int64_t(0), N - 1);
}

/// A one-level nest's array walked at one stride of whole lines reaches
/// only part of a cache's sets: with power-of-two set counts, 1 / 2^v where
/// 2^v divides the stride in lines (a[16 * i] of doubles, every other line:
/// half the sets). The inverse of that share: what its lines weigh in a
/// cache, as the sets hold them (1 where the rule does not apply).
double setShareInverse(const LoopKernel &K, const KernelIR &IR,
                       const std::vector<const Access *> &Members) {
  constexpr int64_t Line = 64;
  if (K.Nest.size() != 1 || Members.empty())
    return 1;
  std::optional<int64_t> Stride;
  for (const Access *A : Members) {
    if (A->Indirect || !A->Linear)
      return 1;
    auto C = elementsPerUnit(*A, K.innermost().Var, IR.bindings());
    if (!C)
      return 1;
    int64_t S = std::abs(*C * int64_t(A->StrideBytes) * K.innermost().Step);
    if (Stride && *Stride != S)
      return 1;
    Stride = S;
  }
  if (!Stride || *Stride <= Line || *Stride % Line)
    return 1;
  int64_t Lines = *Stride / Line;
  return double(Lines & -Lines); // the largest power of two dividing it
}

} // namespace

std::optional<double> perfmodel::workingSetBytes(const LoopKernel &K, const KernelIR &IR,
                                                 const IndexData *Index) {
  NestGeometry G(K, IR);
  // Bounds loaded from memory (CSR rows) need the index data's ranges.
  bool Geometry = G.ok();
  if (!Geometry && !Index)
    return std::nullopt;
  // Per array the lines the nest touches, else the span between the lowest
  // and highest byte touched (exact for dense sweeps over a box, an upper
  // bound for strided ones; for an indirect access, or under bounds loaded
  // from index data, the span the data's range reaches).
  std::map<std::string, std::pair<int64_t, int64_t>> Span;
  std::map<std::string, std::vector<const Access *>> ByArray;
  std::set<std::string> Spanned; // arrays whose span comes from index data
  for (const Access &A : K.Accesses) {
    ByArray[A.Array].push_back(&A);
    std::optional<std::pair<int64_t, int64_t>> R;
    if (A.Indirect || !Geometry) {
      std::optional<Poly> Off = elementOffset(A);
      std::optional<std::pair<int64_t, int64_t>> E;
      if (Index && Off)
        E = offsetRange(K, IR, *Off, IR.bindings(), &Index->Ranges);
      // Without index data, an array of declared extent (float b[32000],
      // a VLA or parameter of bound size) is touched within it at most.
      if (!E)
        E = declaredElements(A, IR);
      if (!E)
        return std::nullopt;
      R = {E->first * int64_t(A.StrideBytes) + A.FieldOffset,
           E->second * int64_t(A.StrideBytes) + A.FieldOffset};
      Spanned.insert(A.Array);
    } else {
      R = G.byteRange(A);
      // A subscript the front end cannot follow (TSVC's j++ inside a
      // branch) stays within its array's declared extent.
      if (!R)
        if (auto E = declaredElements(A, IR)) {
          R = {E->first * int64_t(A.StrideBytes) + A.FieldOffset,
               E->second * int64_t(A.StrideBytes) + A.FieldOffset};
          Spanned.insert(A.Array);
        }
    }
    if (!R)
      return std::nullopt;
    R->second += A.ElementBytes;
    auto [It, New] = Span.try_emplace(A.Array, *R);
    if (!New) {
      It->second.first = std::min(It->second.first, R->first);
      It->second.second = std::max(It->second.second, R->second);
    }
  }
  double Bytes = 0;
  for (const auto &[Name, S] : Span) {
    double Range = double(S.second - S.first);
    if (Spanned.count(Name)) {
      Bytes += Range;
      continue;
    }
    double Touched = std::min(Range, touchedBytes(G, K, IR, ByArray[Name], 64).value_or(Range));
    Bytes += std::min(Range, Touched * setShareInverse(K, IR, ByArray[Name]));
  }
  return Bytes;
}

//===- KernelIR.cpp ------------------------------------------------------===//
//
// What follows from a KernelIR at the bound sizes: parameter bindings, trip
// counts and nest iterations (index data for bounds read from memory), the
// offset range an access spans, and element offsets of structure fields.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/KernelIR.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>

using namespace perfmodel;

std::string SourceLoc::str() const {
  return File + ":" + std::to_string(Line) + ":" + std::to_string(Column);
}

FlopCounts &FlopCounts::operator+=(const FlopCounts &O) {
  Add += O.Add;
  Mul += O.Mul;
  Div += O.Div;
  Sqrt += O.Sqrt;
  Other += O.Other;
  FmaContractible += O.FmaContractible;
  return *this;
}

namespace {
std::map<std::string, int64_t> computeBindings(const std::map<std::string, Parameter> &Parameters) {
  std::map<std::string, int64_t> B;
  for (const auto &[Name, P] : Parameters)
    if (P.Value && P.From != Parameter::Origin::Derived)
      B[Name] = *P.Value;
  // Quotients of the others, at their values now (validate and sweep move
  // the parameters after the front end ran).
  // A quotient of a quotient ((N/2)*0.5, an early exit's share of N/2)
  // waits for its numerator: repeat while one more resolves.
  for (bool More = true; More;) {
    More = false;
    for (const auto &[Name, P] : Parameters)
      if (P.From == Parameter::Origin::Derived && P.Numerator && P.Divisor > 0 && !B.count(Name))
        if (auto V = P.Numerator->evaluate(B)) {
          std::optional<int64_t> D = P.Divisor;
          if (P.DivisorSize)
            D = P.DivisorSize->evaluate(B);
          if (!D || *D <= 0)
            continue;
          B[Name] = *V / *D;
          More = true;
        }
  }
  return B;
}

bool sameParameter(const Parameter &A, const Parameter &B) {
  return A.Value == B.Value && A.From == B.From && A.Divisor == B.Divisor &&
         A.Numerator == B.Numerator && A.DivisorSize == B.DivisorSize;
}
} // namespace

/// The settings of Parameters met so far and their bindings, shared by a
/// KernelIR's copies (validate and sweep copy one and move its sizes). Never
/// shrinks, so that the references bindings() hands out stay valid.
struct KernelIR::BindingsMemo {
  struct Setting {
    std::map<std::string, Parameter> Parameters;
    std::map<std::string, int64_t> Values;
  };
  std::mutex Lock;
  std::deque<Setting> Settings;
  size_t Last = 0;

  static bool matches(const Setting &S, const std::map<std::string, Parameter> &P) {
    return S.Parameters.size() == P.size() &&
           std::equal(S.Parameters.begin(), S.Parameters.end(), P.begin(),
                      [](const auto &X, const auto &Y) {
                        return X.first == Y.first && sameParameter(X.second, Y.second);
                      });
  }
};

const std::map<std::string, int64_t> &KernelIR::bindings() const {
  // Set under the lock only: a KernelIR is not shared between threads
  // while it is written, its copies may be.
  static std::mutex Create;
  std::shared_ptr<BindingsMemo> M;
  {
    std::lock_guard<std::mutex> G(Create);
    if (!Memo)
      Memo = std::make_shared<BindingsMemo>();
    M = Memo;
  }
  std::lock_guard<std::mutex> G(M->Lock);
  if (M->Last < M->Settings.size() && BindingsMemo::matches(M->Settings[M->Last], Parameters))
    return M->Settings[M->Last].Values;
  for (size_t I = 0; I < M->Settings.size(); ++I)
    if (BindingsMemo::matches(M->Settings[I], Parameters)) {
      M->Last = I;
      return M->Settings[I].Values;
    }
  M->Settings.push_back({Parameters, computeBindings(Parameters)});
  M->Last = M->Settings.size() - 1;
  return M->Settings.back().Values;
}

std::optional<int64_t> perfmodel::tripCount(const LoopLevel &L,
                                            const std::map<std::string, int64_t> &B) {
  auto Lo = L.Lower.evaluate(B), Hi = L.Upper.evaluate(B);
  if (!Lo || !Hi)
    return std::nullopt;
  if (*Hi <= *Lo)
    return 0;
  int64_t Step = std::abs(L.Step ? L.Step : 1);
  return (*Hi - *Lo + Step - 1) / Step;
}

std::optional<bool> perfmodel::SizeGuard::holds(const std::map<std::string, int64_t> &B) const {
  auto L = Left.evaluate(B), R = Right.evaluate(B);
  if (!L || !R)
    return std::nullopt;
  bool V = false;
  switch (Cmp) {
  case Op::Eq: V = *L == *R; break;
  case Op::Ne: V = *L != *R; break;
  case Op::Lt: V = *L < *R; break;
  case Op::Le: V = *L <= *R; break;
  case Op::Gt: V = *L > *R; break;
  case Op::Ge: V = *L >= *R; break;
  }
  return V != Negated;
}

std::optional<double>
perfmodel::nestIterations(const LoopKernel &K, const KernelIR &IR,
                          const std::map<std::string, std::vector<int64_t>> *Values) {
  std::map<std::string, int64_t> B = IR.bindings(); // the counters join it
  for (const SizeGuard &G : K.Guards)
    if (G.holds(B) == false)
      return 0.0;
  // A level's bounds with the values they load (rowptr[i + 1]) looked up in
  // VALUES at the current counters; false when one is missing.
  auto Resolve = [&](const LoopLevel &L, std::map<std::string, int64_t> &B) {
    for (const Poly *P : {&L.Lower, &L.Upper})
      for (const std::string &S : P->symbols()) {
        auto Ref = IR.DataRefs.find(S);
        if (Ref == IR.DataRefs.end())
          continue;
        auto V = Values ? Values->find(Ref->second.Array) : decltype(Values->end())();
        auto I = Ref->second.Index.evaluate(B);
        if (!Values || V == Values->end() || !I || *I < 0 || size_t(*I) >= V->second.size())
          return false;
        B[S] = V->second[size_t(*I)];
      }
    return true;
  };
  // Whether a level's bounds depend on counter VAR, directly or through the
  // index of a value they load.
  auto DependsOn = [&](const LoopLevel &L, const std::string &Var) {
    for (const Poly *P : {&L.Lower, &L.Upper})
      for (const std::string &S : P->symbols()) {
        if (S == Var)
          return true;
        auto Ref = IR.DataRefs.find(S);
        if (Ref != IR.DataRefs.end() && Ref->second.Index.symbols().count(Var))
          return true;
      }
    return false;
  };
  // Exact by recursion over the outer levels while that stays cheap, then
  // the inner levels' counts at their midpoint.
  std::function<std::optional<double>(size_t, std::map<std::string, int64_t> &, double)> Rec =
      [&](size_t D, std::map<std::string, int64_t> &B,
          double Budget) -> std::optional<double> {
    if (D == K.Nest.size())
      return 1.0;
    const LoopLevel &L = K.Nest[D];
    if (!Resolve(L, B))
      return std::nullopt;
    auto T = tripCount(L, B);
    if (!T)
      return std::nullopt;
    if (*T == 0)
      return 0.0;
    int64_t Step = std::abs(L.Step ? L.Step : 1), Trips = *T, Lo = *L.Lower.evaluate(B);
    // Do the inner bounds depend on this counter?
    bool Dependent = false;
    for (size_t E = D + 1; E < K.Nest.size(); ++E)
      Dependent |= DependsOn(K.Nest[E], L.Var);
    if (!Dependent || double(Trips) > Budget) {
      B[L.Var] = Lo + (Trips / 2) * Step;
      auto Inner = Rec(D + 1, B, Budget);
      B.erase(L.Var);
      if (!Inner)
        return std::nullopt;
      return double(Trips) * *Inner;
    }
    double Sum = 0;
    for (int64_t T = 0; T < Trips; ++T) {
      B[L.Var] = Lo + T * Step;
      auto Inner = Rec(D + 1, B, Budget / double(Trips));
      if (!Inner)
        return std::nullopt;
      Sum += *Inner;
    }
    B.erase(L.Var);
    return Sum;
  };
  return Rec(0, B, 1e6);
}

void perfmodel::forEachLocation(KernelIR &IR, const std::function<void(SourceLoc &)> &F) {
  for (LoopKernel &K : IR.Loops) {
    F(K.Loc);
    for (LoopLevel &L : K.Nest)
      F(L.Loc);
    for (Access &A : K.Accesses)
      F(A.Loc);
    for (Access &A : K.OuterAccesses)
      F(A.Loc);
  }
}

std::optional<std::pair<int64_t, int64_t>>
perfmodel::offsetRange(const LoopKernel &K, const KernelIR &IR, const Poly &Off,
                       const std::map<std::string, int64_t> &B,
                       const std::map<std::string, std::pair<int64_t, int64_t>> *Ranges) {
  // The loaded values in OFF and the ends of their ranges.
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> Data;
  for (const std::string &S : Off.symbols()) {
    auto Ref = IR.DataRefs.find(S);
    if (Ref == IR.DataRefs.end())
      continue;
    if (!Ranges)
      return std::nullopt;
    auto R = Ranges->find(Ref->second.Array);
    if (R == Ranges->end())
      return std::nullopt;
    Data.push_back({S, R->second});
  }
  if (Data.size() > 4)
    return std::nullopt;
  int64_t Lo = INT64_MAX, Hi = INT64_MIN;
  bool Ok = true;
  std::function<void(size_t, std::map<std::string, int64_t> &)> Corner =
      [&](size_t D, std::map<std::string, int64_t> &C) {
        if (!Ok)
          return;
        if (D == K.Nest.size()) {
          for (unsigned Mask = 0; Mask < (1u << Data.size()); ++Mask) {
            for (size_t I = 0; I < Data.size(); ++I)
              C[Data[I].first] = Mask >> I & 1 ? Data[I].second.second : Data[I].second.first;
            auto V = Off.evaluate(C);
            if (!V) {
              Ok = false;
              return;
            }
            Lo = std::min(Lo, *V);
            Hi = std::max(Hi, *V);
          }
          return;
        }
        const LoopLevel &L = K.Nest[D];
        // Bounds loaded from index data (rowptr[i]): the lower one at its
        // range's low end, the upper at the high end (every row's span).
        auto Bound = [&](const Poly &P, bool High) -> std::optional<int64_t> {
          std::map<std::string, int64_t> E = C;
          for (const std::string &S : P.symbols()) {
            auto Ref = IR.DataRefs.find(S);
            if (Ref == IR.DataRefs.end() || !Ranges)
              continue;
            auto R = Ranges->find(Ref->second.Array);
            if (R != Ranges->end())
              E[S] = High ? R->second.second : R->second.first;
          }
          return P.evaluate(E);
        };
        auto First = Bound(L.Lower, false), End = Bound(L.Upper, true);
        if (!First || !End) {
          Ok = false;
          return;
        }
        if (*End <= *First)
          return; // empty at this corner
        int64_t Step = std::abs(L.Step ? L.Step : 1);
        int64_t Last = *First + (*End - 1 - *First) / Step * Step;
        for (int64_t V : {*First, Last}) {
          C[L.Var] = V;
          Corner(D + 1, C);
        }
        C.erase(L.Var);
      };
  std::map<std::string, int64_t> C = B;
  Corner(0, C);
  if (!Ok || Lo > Hi)
    return std::nullopt;
  return std::make_pair(Lo, Hi);
}

std::optional<int64_t> perfmodel::elementsPerUnit(const Access &A, const std::string &Var,
                                                  const std::map<std::string, int64_t> &B) {
  if (!A.Linear)
    return std::nullopt;
  return A.Linear->substitute(B).coefficientOf(Var).evaluate(B);
}

std::optional<int64_t> perfmodel::bytesPerIteration(const Access &A, const LoopLevel &L,
                                                    const std::map<std::string, int64_t> &B) {
  auto C = elementsPerUnit(A, L.Var, B);
  if (!C)
    return std::nullopt;
  return std::llabs(*C * L.Step) * int64_t(A.StrideBytes);
}

std::optional<Poly> perfmodel::elementOffset(const Access &A, std::string *Why) {
  if (A.Linear)
    return A.Linear;
  Poly Lin;
  for (size_t I = 0; I < A.Subscripts.size(); ++I) {
    if (I > 0) {
      if (!A.Dims[I]) {
        if (Why)
          *Why = A.Text + ": the extent of dimension " + std::to_string(I + 1) + " is unknown";
        return std::nullopt;
      }
      Lin = Lin * *A.Dims[I];
    }
    Lin = Lin + A.Subscripts[I];
  }
  if (A.Subscripts.empty() && A.Indirect) {
    if (Why)
      *Why = A.Text + ": the base pointer is loaded from memory (" + A.IndirectVia +
             "); not replayed";
    return std::nullopt;
  }
  return Lin;
}

namespace {

/// E's value, LOOKUP(Sym) giving each symbol's.
template <typename LookupFn>
std::optional<int64_t> evaluateWith(const IntExpr &E, LookupFn Lookup) {
  using Op = IntExpr::Op;
  switch (E.K) {
  case Op::Const:
    return E.Value;
  case Op::Sym:
    return Lookup(E);
  default:
    break;
  }
  // && || and ?: evaluate only what C does.
  if (E.K == Op::LAnd || E.K == Op::LOr || E.K == Op::Select) {
    auto C = evaluateWith(E.Args[0], Lookup);
    if (!C)
      return std::nullopt;
    if (E.K == Op::Select)
      return evaluateWith(E.Args[*C ? 1 : 2], Lookup);
    if ((E.K == Op::LAnd) != (*C != 0))
      return int64_t(*C != 0);
    auto R = evaluateWith(E.Args[1], Lookup);
    return R ? std::optional<int64_t>(*R != 0) : std::nullopt;
  }
  auto A = evaluateWith(E.Args[0], Lookup);
  if (!A)
    return std::nullopt;
  if (E.Args.size() == 1) {
    switch (E.K) {
    case Op::Not: return int64_t(!*A);
    case Op::Neg: return -*A;
    case Op::BitNot: return ~*A;
    default: return std::nullopt;
    }
  }
  auto B = evaluateWith(E.Args[1], Lookup);
  if (!B)
    return std::nullopt;
  int64_t X = *A, Y = *B;
  switch (E.K) {
  case Op::Add:
  case Op::Sub:
  case Op::Mul: {
    // Overflow is undefined in C: no share is said.
    int64_t V = 0;
    bool Over = E.K == Op::Add   ? __builtin_add_overflow(X, Y, &V)
                : E.K == Op::Sub ? __builtin_sub_overflow(X, Y, &V)
                                 : __builtin_mul_overflow(X, Y, &V);
    return Over ? std::nullopt : std::optional<int64_t>(V);
  }
  case Op::Div:
  case Op::Rem:
    if (!Y || (X == INT64_MIN && Y == -1))
      return std::nullopt;
    return E.K == Op::Div ? X / Y : X % Y;
  case Op::Shl:
    return Y >= 0 && Y < 63 && X >= 0 && X <= (INT64_MAX >> Y) ? std::optional<int64_t>(X << Y)
                                                                 : std::nullopt;
  case Op::Shr: return Y >= 0 && Y < 63 ? std::optional<int64_t>(X >> Y) : std::nullopt;
  case Op::BitAnd: return X & Y;
  case Op::BitOr: return X | Y;
  case Op::BitXor: return X ^ Y;
  case Op::Lt: return int64_t(X < Y);
  case Op::Le: return int64_t(X <= Y);
  case Op::Gt: return int64_t(X > Y);
  case Op::Ge: return int64_t(X >= Y);
  case Op::Eq: return int64_t(X == Y);
  case Op::Ne: return int64_t(X != Y);
  default: return std::nullopt;
  }
}

} // namespace

std::optional<int64_t> IntExpr::evaluate(const std::map<std::string, int64_t> &B) const {
  return evaluateWith(*this, [&](const IntExpr &S) -> std::optional<int64_t> {
    auto It = B.find(S.Name);
    return It == B.end() ? std::nullopt : std::optional<int64_t>(It->second);
  });
}

void IntExpr::symbols(std::set<std::string> &Out) const {
  if (K == Op::Sym)
    Out.insert(Name);
  for (const IntExpr &A : Args)
    A.symbols(Out);
}

std::optional<double> perfmodel::branchShare(const LoopKernel &K, const IntExpr &Cond,
                                             const std::map<std::string, int64_t> &Bound) {
  // Every symbol is a counter or bound.
  std::set<std::string> Syms;
  Cond.symbols(Syms);
  std::map<std::string, size_t> Slot;
  for (size_t D = 0; D < K.Nest.size(); ++D)
    Slot[K.Nest[D].Var] = D;
  for (const std::string &S : Syms)
    if (!Slot.count(S) && !Bound.count(S))
      return std::nullopt;
  if (K.Nest.empty())
    return std::nullopt;
  const int64_t InnerCap = 4096, OuterSamples = 16, LeafBudget = 1 << 18;
  const size_t Inner = K.Nest.size() - 1;
  // The sizes folded in, each counter's symbol holding its level in Value.
  std::function<IntExpr(const IntExpr &)> Slotted = [&](const IntExpr &E) {
    IntExpr Out = E;
    if (E.K == IntExpr::Op::Sym) {
      if (auto It = Slot.find(E.Name); It != Slot.end())
        Out.Value = int64_t(It->second);
      else {
        Out.K = IntExpr::Op::Const;
        Out.Value = Bound.at(E.Name);
      }
    }
    for (IntExpr &A : Out.Args)
      A = Slotted(A);
    return Out;
  };
  const IntExpr Fast = Slotted(Cond);
  std::map<std::string, int64_t> B = Bound;
  std::vector<int64_t> C(K.Nest.size());
  auto Lookup = [&](const IntExpr &S) -> std::optional<int64_t> { return C[size_t(S.Value)]; };
  int64_t Leaves = 0;
  using Count = std::pair<double, double>; // iterations taken, iterations
  // The sub-nest from level D on at the counters set outside it. The
  // innermost level is counted whole up to InnerCap (evenly spread points
  // beyond); an outer level at OuterSamples points, its first and last
  // among them, and between two points that differ, at their midpoint
  // again while the budget lasts (edge rows and columns found exactly),
  // then as a trapezoid.
  std::function<std::optional<Count>(size_t)> Level = [&](size_t D) -> std::optional<Count> {
    if (D == K.Nest.size()) {
      ++Leaves;
      auto V = evaluateWith(Fast, Lookup);
      if (!V)
        return std::nullopt;
      return Count{*V ? 1.0 : 0.0, 1.0};
    }
    const LoopLevel &L = K.Nest[D];
    auto T = tripCount(L, B);
    auto Lo = L.Lower.evaluate(B);
    if (!T || !Lo)
      return std::nullopt;
    int64_t Step = std::abs(L.Step ? L.Step : 1);
    auto At = [&](int64_t Index) {
      C[D] = *Lo + Index * Step;
      if (D != Inner) // the bounds inside read it; the leaves read C
        B[L.Var] = C[D];
      return Level(D + 1);
    };
    Count Sum{0, 0};
    auto Add = [&](const Count &X, double Times) {
      Sum.first += X.first * Times;
      Sum.second += X.second * Times;
    };
    int64_t Samples = D == Inner ? InnerCap : OuterSamples;
    if (*T <= Samples) {
      for (int64_t I = 0; I < *T; ++I) {
        auto X = At(I);
        if (!X)
          return std::nullopt;
        Add(*X, 1);
      }
    } else if (D == Inner) {
      for (int64_t P = 0; P < Samples; ++P) {
        auto X = At(int64_t((double(P) + 0.5) * double(*T) / double(Samples)));
        if (!X)
          return std::nullopt;
        Add(*X, double(*T) / double(Samples));
      }
    } else {
      std::vector<std::pair<int64_t, Count>> Points;
      for (int64_t P = 0; P < Samples; ++P) {
        int64_t I = int64_t(std::llround(double(P) * double(*T - 1) / double(Samples - 1)));
        auto X = At(I);
        if (!X)
          return std::nullopt;
        Points.push_back({I, *X});
      }
      // Indices A..B-1 of an interval whose ends count GA and GB.
      bool Failed = false;
      std::function<void(int64_t, Count, int64_t, Count)> Span = [&](int64_t A, Count GA,
                                                                      int64_t Bx, Count GB) {
        if (Failed || Bx <= A)
          return;
        if (GA == GB || Bx - A == 1)
          return Add(GA, double(Bx - A));
        if (Leaves > LeafBudget) {
          Add(GA, double(Bx - A) / 2);
          return Add(GB, double(Bx - A) / 2);
        }
        int64_t M = A + (Bx - A) / 2;
        auto GM = At(M);
        if (!GM) {
          Failed = true;
          return;
        }
        Span(A, GA, M, *GM);
        Span(M, *GM, Bx, GB);
      };
      for (size_t P = 0; P + 1 < Points.size(); ++P)
        Span(Points[P].first, Points[P].second, Points[P + 1].first, Points[P + 1].second);
      if (Failed)
        return std::nullopt;
      Add(Points.back().second, 1);
    }
    B.erase(L.Var);
    return Sum;
  };
  auto All = Level(0);
  if (!All || All->second <= 0)
    return std::nullopt;
  return All->first / All->second;
}

std::optional<double> perfmodel::armShare(const LoopKernel &K, const CounterBranch &Br,
                                          const std::map<std::string, int64_t> &Bound) {
  if (Br.What == CounterBranch::Kind::Counters)
    return branchShare(K, Br.Cond, Bound);
  if (K.Nest.empty())
    return std::nullopt;
  // The innermost level's trips at the outer counters' first values.
  std::map<std::string, int64_t> B = Bound;
  for (size_t D = 0; D + 1 < K.Nest.size(); ++D)
    if (auto Lo = K.Nest[D].Lower.evaluate(B))
      B[K.Nest[D].Var] = *Lo;
  auto T = tripCount(K.innermost(), B);
  if (!T || *T <= 0)
    return std::nullopt;
  double N = double(*T), H = std::log(N) + 0.5772156649 + 1 / (2 * N);
  return std::min(1.0, H / N);
}

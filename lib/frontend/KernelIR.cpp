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
#include <cstdlib>
#include <functional>

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

std::map<std::string, int64_t> KernelIR::bindings() const {
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
  std::map<std::string, int64_t> B = IR.bindings();
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

//===- KernelIR.cpp ------------------------------------------------------===//
#include "perfmodel/KernelIR.h"

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
    if (P.Value)
      B[Name] = *P.Value;
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

std::optional<double> perfmodel::nestIterations(const LoopKernel &K, const KernelIR &IR) {
  // Exact by recursion over the outer levels while that stays cheap, then
  // the inner levels' counts at their midpoint.
  std::function<std::optional<double>(size_t, std::map<std::string, int64_t> &, double)> Rec =
      [&](size_t D, std::map<std::string, int64_t> &B,
          double Budget) -> std::optional<double> {
    if (D == K.Nest.size())
      return 1.0;
    const LoopLevel &L = K.Nest[D];
    auto T = tripCount(L, B);
    if (!T)
      return std::nullopt;
    if (*T == 0)
      return 0.0;
    int64_t Step = std::abs(L.Step ? L.Step : 1), Trips = *T, Lo = *L.Lower.evaluate(B);
    // Do the inner bounds depend on this counter?
    bool Dependent = false;
    for (size_t E = D + 1; E < K.Nest.size(); ++E)
      Dependent |= K.Nest[E].Lower.symbols().count(L.Var) ||
                   K.Nest[E].Upper.symbols().count(L.Var);
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
  std::map<std::string, int64_t> B = IR.bindings();
  return Rec(0, B, 1e6);
}

void perfmodel::forEachLocation(KernelIR &IR, const std::function<void(SourceLoc &)> &F) {
  for (LoopKernel &K : IR.Loops) {
    F(K.Loc);
    for (LoopLevel &L : K.Nest)
      F(L.Loc);
    for (Access &A : K.Accesses)
      F(A.Loc);
  }
}

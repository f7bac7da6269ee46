//===- NestGeometry.cpp ---------------------------------------------------===//
#include "NestGeometry.h"

#include <algorithm>

using namespace perfmodel;

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
    Mid[L.Var] = (First + Last) / 2;
  }
}

std::set<std::string> NestGeometry::counters() const {
  std::set<std::string> S;
  for (const auto &[Name, R] : Ranges)
    S.insert(Name);
  return S;
}

std::optional<std::pair<int64_t, int64_t>> NestGeometry::extremes(const Poly &P) const {
  int64_t Lo = 0, Hi = 0;
  for (const auto &[Mon, C] : P.terms()) {
    if (Mon.empty()) {
      Lo += C;
      Hi += C;
      continue;
    }
    if (Mon.size() != 1)
      return std::nullopt;
    auto It = Ranges.find(Mon[0]);
    if (It == Ranges.end())
      return std::nullopt;
    int64_t A = C * It->second.first, B = C * It->second.second;
    Lo += std::min(A, B);
    Hi += std::max(A, B);
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

std::optional<double> perfmodel::workingSetBytes(const LoopKernel &K, const KernelIR &IR) {
  NestGeometry G(K, IR);
  if (!G.ok())
    return std::nullopt;
  // Per array the span between the lowest and highest byte touched: exact for
  // dense sweeps, an upper bound for strided ones.
  std::map<std::string, std::pair<int64_t, int64_t>> Span;
  for (const Access &A : K.Accesses) {
    if (A.Indirect)
      return std::nullopt;
    auto R = G.byteRange(A);
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
  for (const auto &[Name, S] : Span)
    Bytes += double(S.second - S.first);
  return Bytes;
}

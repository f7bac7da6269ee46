//===- Poly.cpp - Integer polynomials over named symbols -----------------===//
#include "perfmodel/Poly.h"

#include <algorithm>
#include <cstdint>

using namespace perfmodel;

namespace {
// Saturating arithmetic: hostile sizes (-D n=1e18) and the layer-condition
// search's probes must not overflow; evaluate() reports overflow instead.
int64_t satAdd(int64_t A, int64_t B) {
  int64_t R;
  if (__builtin_add_overflow(A, B, &R))
    return B > 0 ? INT64_MAX : INT64_MIN;
  return R;
}
int64_t satMul(int64_t A, int64_t B) {
  int64_t R;
  if (__builtin_mul_overflow(A, B, &R))
    return (A < 0) != (B < 0) ? INT64_MIN : INT64_MAX;
  return R;
}
} // namespace

void Poly::add(const Monomial &M, int64_t C) {
  if (C == 0)
    return;
  int64_t &Slot = Terms[M];
  Slot = satAdd(Slot, C);
  if (Slot == 0)
    Terms.erase(M);
}

Poly Poly::constant(int64_t C) {
  Poly P;
  P.add({}, C);
  return P;
}

Poly Poly::symbol(const std::string &Name) {
  Poly P;
  P.add({Name}, 1);
  return P;
}

Poly Poly::operator+(const Poly &O) const {
  Poly R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, C);
  return R;
}

Poly Poly::operator-(const Poly &O) const {
  Poly R = *this;
  for (const auto &[M, C] : O.Terms)
    R.add(M, -C);
  return R;
}

Poly Poly::operator*(const Poly &O) const {
  Poly R;
  for (const auto &[M1, C1] : Terms)
    for (const auto &[M2, C2] : O.Terms) {
      Monomial M = M1;
      M.insert(M.end(), M2.begin(), M2.end());
      std::sort(M.begin(), M.end());
      R.add(M, satMul(C1, C2));
    }
  return R;
}

bool Poly::isConstant() const {
  return Terms.empty() || (Terms.size() == 1 && Terms.begin()->first.empty());
}

int64_t Poly::constantTerm() const {
  auto It = Terms.find({});
  return It == Terms.end() ? 0 : It->second;
}

std::set<std::string> Poly::symbols() const {
  std::set<std::string> S;
  for (const auto &[M, C] : Terms)
    S.insert(M.begin(), M.end());
  return S;
}

bool Poly::mentions(const std::string &Sym) const { return degreeIn(Sym) > 0; }

unsigned Poly::degreeIn(const std::string &Sym) const {
  unsigned D = 0;
  for (const auto &[M, C] : Terms)
    D = std::max<unsigned>(D, std::count(M.begin(), M.end(), Sym));
  return D;
}

Poly Poly::coefficientOf(const std::string &Sym) const {
  Poly R;
  for (const auto &[M, C] : Terms) {
    auto It = std::find(M.begin(), M.end(), Sym);
    if (It == M.end())
      continue;
    Monomial Rest = M;
    Rest.erase(Rest.begin() + (It - M.begin()));
    R.add(Rest, C);
  }
  return R;
}

Poly Poly::substitute(const std::map<std::string, int64_t> &Values) const {
  Poly R;
  for (const auto &[M, C] : Terms) {
    Monomial Rest;
    int64_t Coef = C;
    for (const std::string &S : M) {
      auto It = Values.find(S);
      if (It != Values.end())
        Coef = satMul(Coef, It->second);
      else
        Rest.push_back(S);
    }
    R.add(Rest, Coef);
  }
  return R;
}

Poly Poly::renamed(const std::string &From, const std::string &To) const {
  Poly R;
  for (const auto &[M, C] : Terms) {
    Monomial N = M;
    std::replace(N.begin(), N.end(), From, To);
    std::sort(N.begin(), N.end());
    R.add(N, C);
  }
  return R;
}

std::optional<int64_t> Poly::evaluate(const std::map<std::string, int64_t> &Values) const {
  int64_t Sum = 0;
  for (const auto &[M, C] : Terms) {
    int64_t T = C;
    for (const std::string &S : M) {
      auto It = Values.find(S);
      if (It == Values.end() || __builtin_mul_overflow(T, It->second, &T))
        return std::nullopt; // unbound, or beyond 64 bits
    }
    if (__builtin_add_overflow(Sum, T, &Sum))
      return std::nullopt;
  }
  return Sum;
}

std::string Poly::str() const {
  if (Terms.empty())
    return "0";
  // Highest-degree terms first, constants last, so "2*i*n + j - 1" reads naturally.
  std::vector<std::pair<Monomial, int64_t>> Order(Terms.begin(), Terms.end());
  std::stable_sort(Order.begin(), Order.end(), [](const auto &A, const auto &B) {
    if (A.first.empty() != B.first.empty())
      return B.first.empty();
    return A.first.size() > B.first.size();
  });
  std::string S;
  bool First = true;
  for (const auto &[M, C] : Order) {
    int64_t Abs = C < 0 ? -C : C;
    if (First)
      S += C < 0 ? "-" : "";
    else
      S += C < 0 ? " - " : " + ";
    First = false;
    std::string Factors;
    for (const std::string &Sym : M)
      Factors += (Factors.empty() ? "" : "*") + Sym;
    if (Factors.empty())
      S += std::to_string(Abs);
    else if (Abs == 1)
      S += Factors;
    else
      S += std::to_string(Abs) + "*" + Factors;
  }
  return S;
}

//===- Poly.h - Integer polynomials over named symbols ---------*- C++ -*-===//
//
// Loop bounds and subscripts are affine in the induction variables, but their
// coefficients may be size parameters (a[i*n+j]), so they are kept as integer
// polynomials over symbols: induction variables and named size parameters.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_POLY_H
#define PERFMODEL_POLY_H

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfmodel {

class Poly {
public:
  using Monomial = std::vector<std::string>; ///< sorted symbols, with repeats

  Poly() = default;
  static Poly constant(int64_t C);
  static Poly symbol(const std::string &Name);

  Poly operator+(const Poly &O) const;
  Poly operator-(const Poly &O) const;
  Poly operator*(const Poly &O) const;
  Poly operator-() const { return constant(0) - *this; }
  bool operator==(const Poly &O) const { return Terms == O.Terms; }
  bool operator!=(const Poly &O) const { return Terms != O.Terms; }
  bool operator<(const Poly &O) const { return Terms < O.Terms; }

  bool isZero() const { return Terms.empty(); }
  bool isConstant() const;
  int64_t constantTerm() const;
  std::set<std::string> symbols() const;
  bool mentions(const std::string &Sym) const;
  /// Highest power of SYM in any term.
  unsigned degreeIn(const std::string &Sym) const;
  /// The coefficient of SYM (a polynomial in the other symbols); requires
  /// degreeIn(Sym) <= 1.
  Poly coefficientOf(const std::string &Sym) const;
  /// Substitutes the given symbols by values; the rest stay symbolic.
  Poly substitute(const std::map<std::string, int64_t> &Values) const;
  /// SYM FROM written TO.
  Poly renamed(const std::string &From, const std::string &To) const;
  /// The value when every symbol is bound, else nullopt.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &Values) const;
  /// "2*i*n + j - 1"
  std::string str() const;

  const std::map<Monomial, int64_t> &terms() const { return Terms; }

private:
  void add(const Monomial &M, int64_t C);
  std::map<Monomial, int64_t> Terms; ///< no zero coefficients stored
};

} // namespace perfmodel

#endif

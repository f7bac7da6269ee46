//===- KernelIR.cpp ------------------------------------------------------===//
#include "perfmodel/KernelIR.h"

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

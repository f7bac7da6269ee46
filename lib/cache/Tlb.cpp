//===- Tlb.cpp - Data-TLB misses from the layer conditions ----------------===//
//
// A TLB is a cache whose lines are pages: the layer conditions of a
// one-level machine whose only cache is the TLB (entries x page bytes, its
// ways) count the pages brought in per iteration. Touching each page once is
// part of streaming through memory and of every measured bandwidth; what
// the loop loses to translation is the pages beyond that: the count with
// the real TLB minus the count with one that holds every page.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Traffic.h"

#include <algorithm>

using namespace perfmodel;

namespace {

/// Pages per source iteration that miss a TLB of ENTRIES entries and WAYS
/// ways (nullopt, with WHY, when the layer conditions do not apply).
std::optional<double> pagesPerIt(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                                 uint64_t Entries, unsigned Ways, std::string &Why) {
  MachineModel T;
  T.Name = M.Name;
  CacheLevel C;
  C.Name = "TLB";
  C.LineBytes = unsigned(M.Tlb->PageBytes);
  C.Ways = Ways;
  C.SizeBytes = Entries * M.Tlb->PageBytes;
  T.Caches = {C};
  TrafficResult R = layerConditionTraffic(K, IR, T);
  if (!R.Ok || R.Links.empty()) {
    Why = R.Reason;
    return std::nullopt;
  }
  return R.Links[0].LoadBytesPerIt / double(M.Tlb->PageBytes);
}

/// Pages per iteration beyond touching each once, for K's accesses.
std::optional<double> extraPages(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                                 std::string &Why) {
  // 2^26 sets of the TLB's ways hold every page a loop can touch, however
  // its strides crowd the sets (the set model's cost grows with the ways,
  // not the sets).
  unsigned Ways = M.Tlb->Ways;
  auto Real = pagesPerIt(K, IR, M, M.Tlb->Entries, Ways, Why);
  auto Once = pagesPerIt(K, IR, M, uint64_t(Ways) << 26, Ways, Why);
  if (!Real || !Once)
    return std::nullopt;
  return std::max(0.0, *Real - *Once);
}

} // namespace

TlbMisses perfmodel::tlbMisses(const LoopKernel &K, const KernelIR &IR, const MachineModel &M) {
  TlbMisses R;
  if (!M.Tlb) {
    R.Reason = "the machine model gives no tlb";
    return R;
  }
  auto All = extraPages(K, IR, M, R.Reason);
  if (!All)
    return R;
  R.Ok = true;
  R.Reason.clear();
  if (*All <= 0)
    return R; // most loops: nothing beyond first touches, no split needed
  // The loads alone (read-modify-writes among them): the stores' misses are
  // the rest.
  LoopKernel Loads = K;
  Loads.Accesses.erase(std::remove_if(Loads.Accesses.begin(), Loads.Accesses.end(),
                                      [](const Access &A) { return !A.Read; }),
                       Loads.Accesses.end());
  std::optional<double> L = Loads.Accesses.empty() ? 0.0 : extraPages(Loads, IR, M, R.Reason);
  if (!L) {
    R.Ok = false;
    return R;
  }
  R.LoadsPerIt = std::min(*L, *All);
  R.StoresPerIt = *All - R.LoadsPerIt;
  R.CyclesPerIt = R.LoadsPerIt * M.Tlb->LoadMissCy + R.StoresPerIt * M.Tlb->StoreMissCy;
  return R;
}

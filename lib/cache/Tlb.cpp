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

/// Pages per iteration beyond touching each once, for K's accesses, with a
/// TLB of ENTRIES entries and WAYS ways.
std::optional<double> extraPages(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                                 uint64_t Entries, unsigned Ways, std::string &Why) {
  // 2^26 sets of the TLB's ways hold every page a loop can touch, however
  // its strides crowd the sets (the set model's cost grows with the ways,
  // not the sets).
  auto Real = pagesPerIt(K, IR, M, Entries, Ways, Why);
  auto Once = pagesPerIt(K, IR, M, uint64_t(Ways) << 26, Ways, Why);
  if (!Real || !Once)
    return std::nullopt;
  return std::max(0.0, *Real - *Once);
}

/// K with its loads alone (read-modify-writes among them).
LoopKernel loadsOf(const LoopKernel &K) {
  LoopKernel Loads = K;
  Loads.Accesses.erase(std::remove_if(Loads.Accesses.begin(), Loads.Accesses.end(),
                                      [](const Access &A) { return !A.Read; }),
                       Loads.Accesses.end());
  return Loads;
}

/// Misses per iteration of a TLB level split into loads and stores: the
/// loads alone miss as often as beside the stores (a page both touch counts
/// for the load), the stores' misses are the rest.
struct Split {
  double Loads = 0, Stores = 0;
};
std::optional<Split> splitMisses(const LoopKernel &K, const KernelIR &IR, const MachineModel &M,
                                 uint64_t Entries, unsigned Ways, std::string &Why) {
  auto All = extraPages(K, IR, M, Entries, Ways, Why);
  if (!All)
    return std::nullopt;
  if (*All <= 0)
    return Split{}; // most loops: nothing beyond first touches
  LoopKernel Loads = loadsOf(K);
  std::optional<double> L =
      Loads.Accesses.empty() ? 0.0 : extraPages(Loads, IR, M, Entries, Ways, Why);
  if (!L)
    return std::nullopt;
  Split S;
  S.Loads = std::min(*L, *All);
  S.Stores = *All - S.Loads;
  return S;
}

} // namespace

TlbMisses perfmodel::tlbMisses(const LoopKernel &K, const KernelIR &IR, const MachineModel &M) {
  TlbMisses R;
  if (!M.Tlb) {
    R.Reason = "the machine model gives no tlb";
    return R;
  }
  const TlbModel &T = *M.Tlb;
  auto Last = splitMisses(K, IR, M, T.Entries, T.Ways, R.Reason);
  if (!Last)
    return R;
  R.Ok = true;
  R.Reason.clear();
  R.LoadsPerIt = Last->Loads;
  R.StoresPerIt = Last->Stores;
  R.CyclesPerIt = R.LoadsPerIt * T.LoadMissCy + R.StoresPerIt * T.StoreMissCy;
  if (!T.L1Entries || (T.L1LoadMissCy <= 0 && T.L1StoreMissCy <= 0))
    return R;
  // The first level misses at least where the last does; those walk and
  // are costed above, the rest find their page in the last level.
  std::string Why;
  auto First = splitMisses(K, IR, M, T.L1Entries, T.L1Ways, Why);
  if (!First)
    return R; // the last level's count stands; the first level's unknown
  R.L1LoadsPerIt = std::max(0.0, First->Loads - R.LoadsPerIt);
  R.L1StoresPerIt = std::max(0.0, First->Stores - R.StoresPerIt);
  R.L1CyclesPerIt = R.L1LoadsPerIt * T.L1LoadMissCy + R.L1StoresPerIt * T.L1StoreMissCy;
  return R;
}

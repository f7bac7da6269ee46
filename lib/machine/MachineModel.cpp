//===- MachineModel.cpp - What a machine model answers --------------------===//
//
// The machine model's own questions: a cache by name, byte sizes as text,
// the FP pipes and a flop mix's cycles, library-call costs, and what LLVM
// knows of the CPU; the file is read in MachineRead.cpp and MachineLoad.cpp.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

using namespace perfmodel;

std::string MachineDiag::str() const {
  std::string S = File;
  if (Line)
    S += ":" + std::to_string(Line) + ":" + std::to_string(Column);
  S += Severity == Kind::Error ? ": error: " : ": warning: ";
  if (!Key.empty())
    S += Key + ": ";
  return S + Message;
}

std::optional<double> MachineModel::libraryCyclesPerByte(const std::string &Function,
                                                         const std::string &Level) const {
  bool Copy = Function == "memcpy" || Function == "memmove";
  if (!Copy && Function != "memset")
    return std::nullopt;
  if (isMemoryLevel(Level)) {
    std::optional<double> GBs = Copy ? Memory.MemcpyOneCoreGBs : Memory.MemsetOneCoreGBs;
    if (!GBs || *GBs <= 0 || ClockGHz <= 0)
      return std::nullopt;
    return ClockGHz / *GBs;
  }
  const auto &Rates = Copy ? Core.MemcpyBytesPerCycle : Core.MemsetBytesPerCycle;
  auto It = Rates.find(Level);
  if (It == Rates.end() || It->second <= 0)
    return std::nullopt;
  return 1 / It->second;
}

/// The set one instance of NEXT holds of U's working set (each instance of
/// a private level its core's share); nullopt when unknown or beyond NEXT.
static std::optional<double> setInNext(const CacheLevel &Next, const LinkUse &U) {
  if (!U.WorkingSet || *U.WorkingSet <= 0)
    return std::nullopt;
  unsigned Cores = std::max(1u, U.Cores);
  double Set = *U.WorkingSet / Cores * std::min(Cores, std::max(1u, Next.SharedBy));
  return Set <= double(Next.SizeBytes) ? std::optional<double>(Set) : std::nullopt;
}

/// Table T (sorted by key, not empty) at X: linear in log2 of the key
/// between entries, the nearest entry's value beyond them.
template <typename Key>
static double atLog2(const std::vector<std::pair<Key, double>> &T, double X) {
  if (X <= double(T.front().first))
    return T.front().second;
  if (X >= double(T.back().first))
    return T.back().second;
  size_t K = 1;
  while (double(T[K].first) < X)
    ++K;
  double X0 = std::log2(double(T[K - 1].first)), X1 = std::log2(double(T[K].first));
  double F = (std::log2(X) - X0) / (X1 - X0);
  return T[K - 1].second + F * (T[K].second - T[K - 1].second);
}

/// Level C's fill rate of upward streams from SET bytes in the next level:
/// its FromNextBySet where it states one, else its flat rate.
static double fillRateAtSet(const CacheLevel &C, std::optional<double> Set) {
  if (C.FromNextBySet.empty() || !Set)
    return C.BytesPerCycleFromNext.value_or(0);
  return atLog2(C.FromNextBySet, *Set);
}

/// A by-sets table at SETS sets: linear in log2 between entries, below the
/// first the first's, beyond the last none.
static std::optional<double> bySets(const std::vector<std::pair<unsigned, double>> &T,
                                    unsigned Sets) {
  if (T.empty() || !Sets || Sets > T.back().first)
    return std::nullopt;
  return atLog2(T, double(Sets));
}

std::optional<double> CacheLevel::conflictMissCycles(unsigned Sets) const {
  return bySets(ConflictMissCyBySets, Sets);
}

std::optional<double> CacheLevel::conflictStoreCycles(unsigned Sets, bool Alone) const {
  return bySets(Alone && !ConflictStoreAloneCyBySets.empty() ? ConflictStoreAloneCyBySets
                                                             : ConflictStoreCyBySets,
                Sets);
}

/// RATE with a SHARE of the bytes (clamped to [0, 1]) at OTHER instead:
/// the two mix by their bytes, harmonically.
static double mixedRate(double Rate, double Share, std::optional<double> Other) {
  Share = std::clamp(Share, 0.0, 1.0);
  if (Share <= 0 || !Other)
    return Rate;
  return 1 / ((1 - Share) / Rate + Share / *Other);
}

double MachineModel::fromNextBytesPerCycle(size_t I, const LinkUse &U) const {
  if (I + 1 >= Caches.size())
    return 0;
  const CacheLevel &C = Caches[I];
  std::optional<double> Set = setInNext(Caches[I + 1], U);
  double Rate = fillRateAtSet(C, Set);
  if (Rate <= 0)
    return Rate;
  // Bytes that run downwards come at their own rate where the set fits the
  // next level; the lines of strided streams (one per iteration each) at
  // theirs wherever the set is (measured from the L2 and the L3 alike).
  if (Set)
    Rate = mixedRate(Rate, U.Descending, C.FromNextDescending);
  return mixedRate(Rate, I < U.Strided.size() ? U.Strided[I] : 0, C.FromNextStrided);
}

const CacheLevel *MachineModel::cache(const std::string &LevelName) const {
  for (const CacheLevel &C : Caches)
    if (C.Name == LevelName)
      return &C;
  return nullptr;
}

std::optional<uint64_t> perfmodel::parseByteSize(const std::string &Text,
                                                 std::string &Error) {
  llvm::StringRef S = llvm::StringRef(Text).trim();
  size_t NumEnd = 0;
  while (NumEnd < S.size() && (isdigit(S[NumEnd]) || S[NumEnd] == '.'))
    ++NumEnd;
  llvm::StringRef Num = S.substr(0, NumEnd), Unit = S.substr(NumEnd).trim();
  double Value;
  if (Num.empty() || Num.getAsDouble(Value)) {
    Error = "expected a size such as 32KiB, got '" + Text + "'";
    return std::nullopt;
  }
  static const std::pair<const char *, uint64_t> Units[] = {
      {"B", 1}, {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30},
      {"TiB", 1ull << 40}};
  if (Unit.empty()) {
    Error = "size '" + Text + "' needs a unit (B, KiB, MiB, GiB)";
    return std::nullopt;
  }
  for (const auto &[Name, Mult] : Units) {
    if (Unit != Name)
      continue;
    double Bytes = Value * double(Mult);
    if (Bytes != std::floor(Bytes) || Bytes > 9.0e15) {
      Error = "size '" + Text + "' is not a whole number of bytes";
      return std::nullopt;
    }
    return uint64_t(Bytes);
  }
  if (Unit.equals_insensitive("KB") || Unit.equals_insensitive("MB") ||
      Unit.equals_insensitive("GB") || Unit.equals_insensitive("K") ||
      Unit.equals_insensitive("M") || Unit.equals_insensitive("G"))
    Error = "size '" + Text + "': use binary units (KiB, MiB, GiB), which is "
            "what cache sizes mean";
  else
    Error = "size '" + Text + "' has unknown unit '" + Unit.str() +
            "' (use B, KiB, MiB, GiB)";
  return std::nullopt;
}

std::vector<FpUnit> CoreModel::fpPipes() const {
  if (!FpUnits.empty())
    return FpUnits;
  unsigned N = FmaUnits;
  if (!N && pipeBits() >= 64)
    N = unsigned(std::lround(PeakFlopsPerCycleDouble / (pipeBits() / 64.0)));
  return std::vector<FpUnit>(std::max(N, 1u), FpUnit{true, true, FmaUnits > 0});
}

std::optional<double> CoreModel::fpMixCycles(double Add, double Mul, double Fma) const {
  std::vector<FpUnit> Units = fpPipes();
  double Need[3] = {Add, Mul, Fma};
  double Worst = 0;
  for (unsigned S = 1; S < 8; ++S) { // every set of kinds, exact for three
    double Ops = 0;
    unsigned Able = 0;
    for (unsigned K = 0; K < 3; ++K)
      if (S & (1u << K))
        Ops += Need[K];
    if (Ops == 0)
      continue;
    for (const FpUnit &U : Units)
      Able += ((S & 1) && U.Add) || ((S & 2) && U.Mul) || ((S & 4) && U.Fma);
    if (!Able)
      return std::nullopt;
    Worst = std::max(Worst, Ops / Able);
  }
  return Worst;
}

std::string perfmodel::formatByteSize(uint64_t Bytes) {
  static const char *Names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned U = 0;
  while (U < 4 && Bytes != 0 && Bytes % 1024 == 0) {
    Bytes /= 1024;
    ++U;
  }
  return std::to_string(Bytes) + Names[U];
}

bool perfmodel::checkLLVMCpu(const std::string &Triple, const std::string &Cpu,
                             std::string &Error) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
  });
  std::string Err;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  if (!T) {
    Error = "LLVM 19 has no target for triple '" + Triple + "': " + Err;
    return false;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(Triple, "", ""));
  if (!STI || !STI->isCPUStringValid(Cpu)) {
    Error = "LLVM 19 does not know CPU '" + Cpu + "' for " + Triple +
            " (see: llc-19 -mtriple=" + Triple + " -mcpu=help)";
    return false;
  }
  return true;
}

/// Every resource of LLVM 19's model of CPU; empty when it has no model or
/// does not know the CPU.
static std::vector<llvm::MCProcResourceDesc> llvmResourceDescs(const std::string &Triple,
                                                               const std::string &Cpu) {
  std::vector<llvm::MCProcResourceDesc> Out;
  std::string Err;
  if (!checkLLVMCpu(Triple, Cpu, Err))
    return Out;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  std::unique_ptr<llvm::MCSubtargetInfo> STI(T->createMCSubtargetInfo(Triple, Cpu, ""));
  const llvm::MCSchedModel &SM = STI->getSchedModel();
  for (unsigned I = 1; SM.hasInstrSchedModel() && I < SM.getNumProcResourceKinds(); ++I)
    Out.push_back(*SM.getProcResource(I)); // names and sub-unit tables are static data
  return Out;
}

/// Every resource of LLVM 19's model of CPU with its buffer size (0: not a
/// scheduler queue).
static std::vector<std::pair<std::string, int>> llvmResources(const std::string &Triple,
                                                              const std::string &Cpu) {
  std::vector<std::pair<std::string, int>> Out;
  for (const llvm::MCProcResourceDesc &D : llvmResourceDescs(Triple, Cpu))
    Out.push_back({D.Name, D.BufferSize});
  return Out;
}

std::map<std::string, unsigned> perfmodel::llvmPorts(const std::string &Triple,
                                                     const std::string &Cpu) {
  std::map<std::string, unsigned> Out;
  for (const llvm::MCProcResourceDesc &D : llvmResourceDescs(Triple, Cpu))
    if (!D.SubUnitsIdxBegin)
      Out[D.Name] = std::max(1u, D.NumUnits);
  return Out;
}

std::vector<std::string> perfmodel::llvmResourceNames(const std::string &Triple,
                                                      const std::string &Cpu) {
  std::vector<std::string> Out;
  for (const auto &[Name, Buffer] : llvmResources(Triple, Cpu))
    Out.push_back(Name);
  return Out;
}

std::map<std::string, unsigned> perfmodel::llvmSchedulerQueues(const std::string &Triple,
                                                               const std::string &Cpu) {
  std::map<std::string, unsigned> Out;
  for (const auto &[Name, Buffer] : llvmResources(Triple, Cpu))
    if (Buffer > 0)
      Out[Name] = unsigned(Buffer);
  return Out;
}

std::string perfmodel::MachineModel::tnolSerialShareText() const {
  std::string S;
  if (EcmOverlap != OverlapRule::Full)
    return S;
  for (size_t L = 1; L <= Caches.size(); ++L) {
    std::string From = levelName(L);
    if (auto It = EcmTnolSerialShare.find(From); It != EcmTnolSerialShare.end()) {
      char Buf[32];
      snprintf(Buf, sizeof(Buf), "%g", It->second);
      S += (S.empty() ? "" : ", ") + From + " " + Buf;
    }
  }
  return S;
}

const std::vector<SustainedKernel> &perfmodel::sustainedKernels() {
  static const std::vector<SustainedKernel> Kernels = {
      {"sustained_load_gbs", "load", 1.0, &MemoryModel::SustainedLoadGBs},
      {"sustained_copy_gbs", "copy", 2.0 / 3, &MemoryModel::SustainedCopyGBs},
      {"sustained_update_gbs", "update", 0.5, &MemoryModel::SustainedUpdateGBs}};
  return Kernels;
}

double MemoryModel::socketGBs(double Fills, std::string *Name) const {
  double Best = effectiveGBs(), Gap = SustainedGBs ? std::abs(Fills - 0.75) : 2;
  if (Name)
    *Name = SustainedGBs ? "memory.sustained_gbs" : "memory.bandwidth_gbs";
  for (const SustainedKernel &K : sustainedKernels())
    if (const std::optional<double> &GBs = this->*K.Field;
        GBs && std::abs(Fills - K.Fills) < Gap - 1e-9) {
      Gap = std::abs(Fills - K.Fills);
      Best = *GBs;
      if (Name)
        *Name = std::string("memory.") + K.Key;
    }
  return Best;
}

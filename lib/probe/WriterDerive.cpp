//===- WriterDerive.cpp - Machine figures from a probe result -------------===//
//
// What the kernels measured turned into the figures the models use: the
// ports, the overlap fit, the bandwidths per level and core count, the L3
// kept, the host's description and the library keys it covers.
//
//===----------------------------------------------------------------------===//
#include "WriterShared.h"

#include "perfmodel/MachineModel.h"
#include "perfmodel/Probe.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

using namespace perfmodel;

using namespace perfmodel::probe_writer;

namespace perfmodel::probe_writer {

std::string num(double V, int Decimals) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format(("%." + std::to_string(Decimals) + "f").c_str(), V);
  // 16.0 -> 16
  if (S.find('.') != std::string::npos) {
    while (S.back() == '0')
      S.pop_back();
    if (S.back() == '.')
      S.pop_back();
  }
  return S;
}

/// The probe's parallelMissNs (perfmodel::parallelMissNs of its 32 chases
/// and random loads in memory).
double parallelMissNs(const ProbeResult &R) {
  return perfmodel::parallelMissNs(R.ParallelChaseNs.Median, R.RandomLoadNs.Median);
}

std::string spread(const Measured &M) {
  return "median of " + std::to_string(M.Reps) + ", spread " + num(100 * M.spread(), 1) + " %" +
         (M.Settled ? "" : ", not settled");
}

/// A load kernel's RATE (B/cy) over an L2-resident set as the L1 link's
/// cycles a line: less, under no overlap, its in-core cycles in L1 (as the
/// fit takes the link's share); 0 or less where it says nothing.
double linkCyclesOfLoad(const Derived &D, unsigned Line, double Rate) {
  if (Rate <= 0 || D.Times.empty())
    return 0;
  return Line / Rate - (D.Fit.Rule == OverlapRule::None ? D.Times[0].Load : 0.0);
}

/// The L1's fill rate at each set of the fill sweep: the load kernel's
/// cycles a line there less, under no overlap, its in-core cycles in L1 (as
/// the fit takes the link's share at half the L2), then the half-L2 rate.
/// Empty when every set fills within a tenth of that rate.
std::vector<std::pair<uint64_t, double>> fillsBySet(const ProbeResult &R, const Derived &D,
                                                    unsigned Line) {
  auto Half = D.Times.size() > 1 ? D.FromNext.find(D.Times[0].Level) : D.FromNext.end();
  const BandwidthPoint *P = D.Times.size() > 1 ? point(R, D.Times[1].Level, false) : nullptr;
  if (Half == D.FromNext.end() || !P || R.FillSweep.empty())
    return {};
  std::vector<std::pair<uint64_t, double>> Out;
  bool Differs = false;
  for (const auto &[Set, Rate] : R.FillSweep) {
    double Cy = linkCyclesOfLoad(D, Line, Rate.Median);
    if (Cy <= 0)
      return {};
    Out.push_back({Set, Line / Cy});
    Differs |= std::fabs(Out.back().second / Half->second - 1) > 0.1;
  }
  Out.push_back({P->WorkingSet, Half->second});
  return Differs ? Out : std::vector<std::pair<uint64_t, double>>();
}

/// The L1's fill rate of the load kernel run downwards, taken as the sweep's
/// rates are; nullopt unless it differs by more than a tenth from the
/// upward kernel's at the same set.
std::optional<double> fillsDownwards(const ProbeResult &R, const Derived &D, unsigned Line) {
  const auto &[Set, Down] = R.FillDownwards;
  auto Up = std::find_if(R.FillSweep.begin(), R.FillSweep.end(),
                         [Set = Set](const auto &P) { return P.first == Set; });
  if (Up == R.FillSweep.end())
    return std::nullopt;
  double DownCy = linkCyclesOfLoad(D, Line, Down.Median),
         UpCy = linkCyclesOfLoad(D, Line, Up->second.Median);
  if (DownCy <= 0 || UpCy <= 0 || std::fabs(UpCy / DownCy - 1) <= 0.1)
    return std::nullopt;
  return Line / DownCy;
}

/// The column read's rates as the L1's fills from L2 and the L2's from L3,
/// under full overlap (the slowest link sets a line's time: the L3 point's
/// time is the L2's link where it exceeds the L1's), where they run more
/// than a tenth below the streams' rates.
std::map<std::string, double> stridedFills(const ProbeResult &R, const Derived &D) {
  std::map<std::string, double> Out;
  if (D.Fit.Rule != OverlapRule::Full || D.Times.size() < 3)
    return Out;
  auto Slower = [&](const std::string &Level, double Rate) {
    auto F = D.FromNext.find(Level);
    if (Rate > 0 && F != D.FromNext.end() && Rate < 0.9 * F->second)
      Out[Level] = Rate;
  };
  double FromL2 = R.StridedFromL2.Median, FromL3 = R.StridedFromL3.Median;
  Slower(D.Times[0].Level, FromL2);
  if (FromL3 > 0 && (FromL2 <= 0 || FromL3 < FromL2 / 1.05) && !isMemoryLevel(D.Times[2].Level))
    Slower(D.Times[1].Level, FromL3);
  return Out;
}

const BandwidthPoint *point(const ProbeResult &R, const std::string &Level, bool AllCores) {
  const BandwidthPoint *Best = nullptr;
  for (const BandwidthPoint &P : R.Bandwidth)
    if (P.Level == Level && (P.Threads > 1) == AllCores)
      Best = &P;
  return Best;
}

/// The L3 capacity the probe saw kept, in whole sets, when it is below three
/// quarters of FULL (CPUID's or the base's size: a VM's share, a busy
/// neighbour), with COMMENT saying so; else 0.
uint64_t keptL3Size(const ProbeResult &R, const Derived &D, uint64_t Full, unsigned Ways,
                    unsigned Line, std::string &Comment) {
  uint64_t Size = wholeSets(D.KeptL3, Ways, Line);
  if (!keptL3IsAShare(Size, Full))
    return 0;
  Comment = "kept: chases stay near the L3's latency up to " + formatByteSize(Size) +
            ", not the " + formatByteSize(Full) + " CPUID reports (sweep";
  for (const auto &[Bytes, Ns] : R.L3Sweep)
    Comment += " " + num(double(Bytes) / (1 << 20)) + "MiB:" + num(Ns) + "ns";
  Comment += ")";
  return Size;
}

Derived derive(const ProbeResult &R, std::optional<OverlapRule> Prefer) {
  Derived D;
  D.GHz = R.ClockGHz.Median;
  for (const PortPoint &P : R.Ports) {
    auto Take = [&](const Measured &M, double &Count, double &Bytes, const PortPoint *&CountAt,
                    const PortPoint *&BytesAt) {
      if (M.Median > Count)
        Count = M.Median, CountAt = &P;
      if (M.Median * P.WidthBytes > Bytes)
        Bytes = M.Median * P.WidthBytes, BytesAt = &P;
    };
    Take(P.LoadsPerCycle, D.Loads, D.LoadBytes, D.LoadsAt, D.LoadBytesAt);
    Take(P.StoresPerCycle, D.Stores, D.StoreBytes, D.StoresAt, D.StoreBytesAt);
  }
  D.Times = levelTimes(R);
  D.Fit = fitEcmOverlap(D.Times, Prefer);
  unsigned Line = R.Cpu.Caches.empty() || !R.Cpu.Caches[0].LineBytes
                      ? 64
                      : R.Cpu.Caches[0].LineBytes;
  for (size_t I = 0; I < D.Fit.CyclesPerLine.size() && I + 1 < D.Times.size(); ++I) {
    double T = D.Fit.CyclesPerLine[I];
    if (T <= 0)
      continue;
    if (isMemoryLevel(D.Times[I + 1].Level)) {
      D.OneCoreGBs = Line / T * D.GHz;
      if (D.Fit.MemWritebackCyclesPerLine > 0)
        D.OneCoreWritebackGBs = Line / D.Fit.MemWritebackCyclesPerLine * D.GHz;
    } else {
      D.FromNext[D.Times[I].Level] = Line / T;
      if (I < D.Fit.Duplex.size() && D.Fit.Duplex[I] &&
          I < D.Fit.WritebackCyclesPerLine.size() && D.Fit.WritebackCyclesPerLine[I] > 0)
        D.OwnWritebackPath[D.Times[I].Level] = Line / D.Fit.WritebackCyclesPerLine[I];
    }
  }
  D.FirstFromNextBySet = fillsBySet(R, D, Line);
  D.FirstFromNextDescending = fillsDownwards(R, D, Line);
  D.FromNextStrided = stridedFills(R, D);
  auto MemChase = R.ChaseNs.find("MEM");
  D.MemLatencyNs = MemChase != R.ChaseNs.end() ? MemChase->second.Median : 0;
  D.InFlight = missesInFlight(D.MemLatencyNs, parallelMissNs(R));
  if (R.StrideNsPerLine.Median > 0 && D.InFlight >= 1)
    D.StrideLatencyNs = R.StrideNsPerLine.Median * double(std::lround(D.InFlight));
  if (auto L3 = R.ChaseNs.find("L3"); L3 != R.ChaseNs.end())
    D.KeptL3 = effectiveL3Bytes(R.L3Sweep, L3->second.Median, D.MemLatencyNs);
  // The copy moves 3 lines (read, write-allocate, write-back) per line of
  // its stream; the cached kernel reads one line of each of its two cached
  // streams beside them.
  if (const BandwidthPoint *P = point(R, "MEM", false);
      P && P->CopyCachedGBs.Median > 0 && P->CopyBesideGBs.Median > 0 && D.GHz > 0 &&
      D.Fit.Rule == OverlapRule::Full) {
    D.CacheLinePoint = P;
    D.CopyCy = 3.0 * Line / P->CopyBesideGBs.Median * D.GHz;
    D.CopyCachedCy = 3.0 * Line / P->CopyCachedGBs.Median * D.GHz;
    D.CacheLineCy = std::max(0.0, (D.CopyCachedCy - D.CopyCy) / 2);
  }
  // A loop-carried chain beside its stream: the add latency an element, the
  // stream's time an element, and the sum over memory.
  if (const BandwidthPoint *P = point(R, "MEM", false);
      P && P->SumChainGBs.Median > 0 && P->SumBesideGBs.Median > 0 && D.GHz > 0) {
    auto Add = R.Latencies.find("add");
    D.ChainCy = Add != R.Latencies.end() ? Add->second.Median : 0;
    D.ChainStreamCy = 8.0 / P->SumBesideGBs.Median * D.GHz;
    D.ChainBothCy = 8.0 / P->SumChainGBs.Median * D.GHz;
    double Max = std::max(D.ChainCy, D.ChainStreamCy), Min = std::min(D.ChainCy, D.ChainStreamCy);
    if (D.ChainCy > 0 && Min > 0)
      D.RecurrenceShare = std::clamp((D.ChainBothCy - Max) / Min, 0.0, 1.0);
  }
  return D;
}

/// The peak kernel with the most double flop/cy among those with (or
/// without) FMA; null when none ran.
const PeakPoint *bestPeak(const ProbeResult &R, bool Fma) {
  const PeakPoint *Best = nullptr;
  for (const PeakPoint &P : R.Peaks)
    if (P.Fma == Fma &&
        (!Best || P.DoubleFlopsPerCycle.Median > Best->DoubleFlopsPerCycle.Median))
      Best = &P;
  return Best;
}

std::string widthName(unsigned W) {
  return W == 8 ? "8-byte (general register)" : std::to_string(W) + "-byte";
}

/// "BRAND (VENDOR, family 0x.. model 0x..), N online CPUs."
std::string hostDescription(const ProbeResult &R) {
  const CpuIdentity &C = R.Cpu;
  std::string S;
  llvm::raw_string_ostream(S) << (C.Brand.empty() ? "unknown" : C.Brand) << " (" << C.Vendor
                              << ", family 0x" << llvm::format_hex_no_prefix(C.Family, 2)
                              << " model 0x" << llvm::format_hex_no_prefix(C.Model, 2) << "), "
                              << R.OnlineCpus << " online CPUs.";
  return S;
}

/// The probe's notes and every bandwidth measured, for the record (the model
/// uses some of them), as comments.
void writeNotesAndBandwidths(llvm::raw_ostream &OS, const ProbeResult &R) {
  for (const std::string &N : R.Notes)
    OS << "# note: " << N << "\n";
  if (!R.StepSeconds.empty()) {
    double Total = 0;
    std::string Long;
    for (const auto &[What, Seconds] : R.StepSeconds) {
      Total += Seconds;
      if (Seconds >= 2)
        Long += (Long.empty() ? "" : ", ") + What + " " + num(Seconds, 0) + " s";
    }
    OS << "# the probe took " << num(Total, 0) << " s"
       << (Long.empty() ? "" : " (steps of 2 s or more: " + Long + ")") << "\n";
  }
  OS << "# bandwidth (GB/s, median of repetitions; copy counts 3 streams, update 2,\n"
        "# triad 4, write-allocates included):\n";
  for (const BandwidthPoint &P : R.Bandwidth)
    OS << "#   " << P.Level << " " << formatByteSize(P.WorkingSet) << " per core x " << P.Threads
       << ": load " << num(P.LoadGBs.Median) << ", copy " << num(P.CopyGBs.Median)
       << ", update " << num(P.UpdateGBs.Median) << ", triad " << num(P.TriadGBs.Median)
       << (P.MemcpyGBs.Median > 0 ? ", memcpy " + num(P.MemcpyGBs.Median) + " (written)" : "")
       << (P.MemsetGBs.Median > 0 ? ", memset " + num(P.MemsetGBs.Median) : "") << "\n";
}

/// The C library's memcpy and memset rates of the one-core points: core keys
/// in bytes per cycle for the caches (each repetition at its own clock), "" if none.
std::string libraryCoreKeys(const ProbeResult &R, const MachineModel *Base) {
  std::string Out;
  for (bool Copy : {true, false}) {
    std::string Map;
    for (const BandwidthPoint &P : R.Bandwidth) {
      const Measured &M = Copy ? P.MemcpyBytesPerCy : P.MemsetBytesPerCy;
      if (P.Threads == 1 && !isMemoryLevel(P.Level) && M.Median > 0 && (!Base || Base->cache(P.Level)))
        Map += (Map.empty() ? "" : ", ") + P.Level + ": " + num(M.Median);
    }
    if (!Map.empty())
      Out += std::string("  ") + (Copy ? "memcpy" : "memset") + "_bytes_per_cy: {" + Map + "}\n";
  }
  return Out;
}

/// The same in memory: ", memcpy_one_core_gbs: X, memset_one_core_gbs: Y".
std::string libraryMemoryKeys(const ProbeResult &R) {
  std::string Out;
  if (const BandwidthPoint *P = point(R, "MEM", false)) {
    if (P->MemcpyGBs.Median > 0)
      Out += ", memcpy_one_core_gbs: " + num(P->MemcpyGBs.Median);
    if (P->MemsetGBs.Median > 0)
      Out += ", memset_one_core_gbs: " + num(P->MemsetGBs.Median);
  }
  return Out;
}

/// The source keys the two above cover.
std::string libraryCovers(const ProbeResult &R) {
  std::string Out;
  if (!libraryCoreKeys(R).empty())
    Out += ", core.memcpy_bytes_per_cy, core.memset_bytes_per_cy";
  if (!libraryMemoryKeys(R).empty())
    Out += ", memory.memcpy_one_core_gbs, memory.memset_one_core_gbs";
  return Out;
}

} // namespace perfmodel::probe_writer

//===- Writer.cpp - A probe result as a machine model ---------------------===//
//
// A probe result written as a machine file: the host's identity, the core's
// measured widths and costs, CPUID's caches with chased latencies and fitted
// link bandwidths, memory, TLB and the sources of every number; or, over a
// base model, only what was measured (WriterBase.cpp).
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


std::vector<LevelTimes> perfmodel::levelTimes(const ProbeResult &R) {
  std::vector<LevelTimes> Out;
  double GHz = R.ClockGHz.Median;
  for (const char *Level : {"L1", "L2", "L3", "MEM"})
    if (const BandwidthPoint *P = point(R, Level, false)) {
      // Bytes each kernel counts per line of each stream (8 doubles). In the
      // caches per cycle as measured beside each repetition where the probe
      // has that; memory's time is in seconds: at the clock measured once.
      bool PerCycle = !isMemoryLevel(Level);
      auto Cycles = [&](const Measured &GBs, const Measured &PerCy, double Bytes) {
        return PerCycle && PerCy.Median > 0 ? Bytes / PerCy.Median
               : GBs.Median > 0             ? Bytes * GHz / GBs.Median
                                            : 0;
      };
      LevelTimes T;
      T.Level = Level;
      T.Load = Cycles(P->LoadGBs, P->LoadBytesPerCy, 64);
      T.Copy = Cycles(P->CopyGBs, P->CopyBytesPerCy, 192);
      T.Update = Cycles(P->UpdateGBs, P->UpdateBytesPerCy, 128);
      T.Triad = Cycles(P->TriadGBs, P->TriadBytesPerCy, 256);
      if (T.Load > 0)
        Out.push_back(T);
    }
  return Out;
}

namespace {

/// core: the widths, FMA units and peaks of the fastest peak kernel, the
/// load/store ports (or the L1 kernels' rates where no port kernel ran).
void writeProbedCore(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                     unsigned IssueWidth) {
  const CpuIdentity &C = R.Cpu;
  double GHz = R.ClockGHz.Median;
  // Peaks: the widest ISA measured, FMA when present.
  const PeakPoint *Best = bestPeak(R, /*Fma=*/true);
  if (!Best)
    Best = bestPeak(R, /*Fma=*/false);
  unsigned Simd = C.simdBits();
  double PeakD = Best ? std::max(1.0, std::round(Best->DoubleFlopsPerCycle.Median)) : 1;
  double PeakS = Best ? std::max(1.0, std::round(Best->SingleFlopsPerCycle.Median)) : 2;
  unsigned Lanes = std::max(1u, Simd / 64);
  unsigned FmaUnits = Best && Best->Fma ? unsigned(std::lround(PeakD / (2.0 * Lanes))) : 0;
  if (Best && Best->Fma && FmaUnits == 0)
    FmaUnits = 1;
  OS << "core:\n";
  OS << "  issue_width: " << (IssueWidth ? IssueWidth : 4) << "\n";
  OS << "  simd_bits: " << Simd << "\n";
  OS << "  fma_units: " << FmaUnits << "\n";
  if (Best)
    OS << "  # " << vectorIsaName(Best->Isa) << (Best->Fma ? " FMA" : " add+mul") << " kernel: "
       << num(Best->DoubleFlopsPerCycle.Median, 2) << " double, "
       << num(Best->SingleFlopsPerCycle.Median, 2) << " single flop/cy ("
       << spread(Best->DoubleFlopsPerCycle) << ")\n";
  for (const PeakPoint &P : R.Peaks)
    OS << "  #   " << vectorIsaName(P.Isa) << (P.Fma ? " FMA    " : " add+mul") << ": "
       << num(P.DoubleFlopsPerCycle.Median, 2) << " / " << num(P.SingleFlopsPerCycle.Median, 2)
       << " flop/cy\n";
  OS << "  peak_flops_per_cycle: {double: " << num(PeakD, 0) << ", single: " << num(PeakS, 0)
     << "}\n";
  if (D.LoadsAt || D.StoresAt) {
    writePorts(OS, R, D);
  } else { // no port kernels ran: the L1 load and copy kernels' rates
    const BandwidthPoint *L1 = point(R, "L1", false);
    double LoadBPC = L1 && GHz > 0 ? L1->LoadGBs.Median / GHz : Simd / 8.0;
    double StoreBPC = L1 && GHz > 0 ? L1->CopyGBs.Median / 3 / GHz : Simd / 8.0;
    unsigned VecBytes = std::min(Simd, 256u) / 8; // the kernels use AVX2 at most
    if (L1)
      OS << "  # L1 load kernel " << num(L1->LoadGBs.Median) << " GB/s, copy "
         << num(L1->CopyGBs.Median) << " GB/s (" << spread(L1->LoadGBs) << ")\n";
    OS << "  loads_per_cycle: " << std::max(1L, std::lround(LoadBPC / VecBytes)) << "\n";
    OS << "  load_bytes_per_cycle: " << num(std::max(1.0, LoadBPC)) << "\n";
    OS << "  stores_per_cycle: " << std::max(1L, std::lround(StoreBPC / VecBytes)) << "\n";
    OS << "  store_bytes_per_cycle: " << num(std::max(1.0, StoreBPC)) << "\n";
  }
}

/// caches: CPUID's geometry (ways assumed where it gives none: returns
/// whether any were), chased latencies, the misses in flight and each
/// link's measured bandwidth.
bool writeProbedCaches(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D) {
  const CpuIdentity &C = R.Cpu;
  double GHz = R.ClockGHz.Median;
  double InFlight = D.InFlight;
  OS << "caches:\n";
  bool AssumedWays = false;
  for (size_t I = 0; I < C.Caches.size(); ++I) {
    const ProbedCache &K = C.Caches[I];
    std::string Name = "L" + std::to_string(K.Level);
    unsigned Ways = K.Ways;
    unsigned Line = K.LineBytes ? K.LineBytes : 64;
    if (!Ways || K.SizeBytes % (uint64_t(Ways) * Line)) {
      Ways = 16;
      while (Ways > 1 && K.SizeBytes % (uint64_t(Ways) * Line))
        Ways /= 2;
      AssumedWays = true;
    }
    std::string Kept;
    if (K.Level == 3 && keptL3Size(R, D, K.SizeBytes, Ways, Line, Kept))
      OS << "  # " << Kept << "; the size is CPUID's: what a shared L3 keeps varies with "
         << "the host's load\n";
    OS << "  - {name: " << Name << ", size: " << formatByteSize(K.SizeBytes) << ", ways: " << Ways
       << ", line: " << Line;
    // One chase in the level: its load-to-use latency; the L1 also keeps
    // the misses in flight that the chases in memory show.
    auto Chase = R.ChaseNs.find(Name);
    if (Chase != R.ChaseNs.end() && Chase->second.Median > 0 && GHz > 0)
      OS << ", latency_cy: " << num(Chase->second.Median * GHz);
    if (I == 0 && InFlight >= 1)
      OS << ", misses_in_flight: " << unsigned(std::lround(InFlight));
    if (K.SharedByThreads > 1)
      OS << ", shared_by: " << std::min(K.SharedByThreads, R.OnlineCpus);
    if (K.Inclusive)
      OS << ", policy: " << (*K.Inclusive ? "inclusive" : "non-inclusive");
    // The bandwidth from the next level, measured with the data there.
    std::string Next = I + 1 < C.Caches.size() ? "L" + std::to_string(C.Caches[I + 1].Level)
                                               : std::string();
    if (auto F = D.FromNext.find(Name); F != D.FromNext.end() && !Next.empty()) {
      auto W = D.OwnWritebackPath.find(Name);
      bool Own = W != D.OwnWritebackPath.end();
      OS << ",\n     bytes_per_cycle_from_next: " << num(F->second)
         << (Own ? ", bytes_per_cycle_to_next: " + num(W->second) : std::string())
         << "}  # " << linkComment(R, D, Next)
         << (Own ? "; write-backs on a path of their own" : "") << "\n";
    }
    else if (const BandwidthPoint *P = Next.empty() ? nullptr : point(R, Next, false);
             P && GHz > 0)
      OS << ",\n     bytes_per_cycle_from_next: " << num(P->LoadGBs.Median / GHz)
         << "}  # load kernel in " << Next << ": " << num(P->LoadGBs.Median) << " GB/s\n";
    else
      OS << "}\n";
  }
  return AssumedWays;
}

/// memory: the triad's bandwidth (all cores and one), latency, the lines
/// from caches beside memory streams and strided streams.
void writeProbedMemory(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D) {
  auto MemChase = R.ChaseNs.find("MEM");
  double MemLatency = D.MemLatencyNs, InFlight = D.InFlight;
  const BandwidthPoint *Mem = point(R, "MEM", true);
  if (!Mem)
    Mem = point(R, "MEM", false);
  double MemGBs = Mem ? Mem->TriadGBs.Median : 1;
  OS << "\n# Triad with write-allocate (4 streams) on " << (Mem ? Mem->Threads : 1)
     << " core(s), " << (Mem ? spread(Mem->TriadGBs) : std::string("not measured")) << ".\n";
  // All cores' other kernels: a loop takes the rate of the one nearest its
  // share of fills (docs/models.md). The placeholder for the theoretical
  // bandwidth is the largest of them.
  std::string Kernels;
  double Peak = MemGBs;
  if (Mem && Mem->Threads > 1)
    for (const auto &[Key, What, GBs, Ratio] :
         {std::tuple{"sustained_load_gbs", "load", Mem->LoadGBs, Mem->LoadPerTriad},
          std::tuple{"sustained_update_gbs", "update", Mem->UpdateGBs, Mem->UpdatePerTriad},
          std::tuple{"sustained_copy_gbs", "copy", Mem->CopyGBs, Mem->CopyPerTriad}}) {
      // At its ratio to the triad in the same rounds where measured so.
      double V = Ratio.Median > 0 ? MemGBs * Ratio.Median : GBs.Median;
      if (V > 0) {
        OS << "# " << What << " on " << Mem->Threads << " cores, " << spread(GBs);
        if (Ratio.Median > 0)
          OS << "; " << num(Ratio.Median) << " x the triad in the same rounds";
        OS << ".\n";
        Kernels += std::string(", ") + Key + ": " + num(V);
        Peak = std::max(Peak, V);
      }
    }
  OS << "# The theoretical bandwidth is unknown to the probe: replace bandwidth_gbs\n"
     << "# with channels x MT/s x 8 B from the platform's documentation.\n";
  const BandwidthPoint *Mem1 = point(R, "MEM", false);
  if (MemLatency > 0)
    OS << "# Latency: one pointer chase over the memory-sized set, " << spread(MemChase->second)
       << ";\n# " << inFlightComment(R, InFlight) << ".\n";
  bool CacheLine = D.CacheLineCy >= 0;
  if (CacheLine)
    OS << "# Lines from the caches beside memory streams: " << cacheLineComment(R, D) << "\n";
  if (D.StrideLatencyNs > 0)
    OS << "# Strided streams: " << strideComment(R, D.StrideLatencyNs) << "\n";
  OS << "memory: {bandwidth_gbs: " << num(Peak) << ", sustained_gbs: " << num(MemGBs) << Kernels
     << libraryMemoryKeys(R);
  if (MemLatency > 0)
    OS << ", latency_ns: " << num(MemLatency);
  if (CacheLine)
    OS << ", cache_line_cy: " << num(D.CacheLineCy);
  if (D.StrideLatencyNs > 0)
    OS << ", stride_latency_ns: " << num(D.StrideLatencyNs);
  if (Mem1 && Mem != Mem1 && D.OneCoreGBs > 0) {
    OS << ",\n         sustained_one_core_gbs: " << num(std::min(MemGBs, D.OneCoreGBs));
    if (D.OneCoreWritebackGBs > 0)
      OS << ",  # " << linkComment(R, D, "MEM") << "\n         one_core_writeback_gbs: "
         << num(std::min(MemGBs, D.OneCoreWritebackGBs)) << "}  # "
         << writebackComment(D, MemGBs) << "\n\n";
    else
      OS << "}  # " << linkComment(R, D, "MEM") << "\n\n";
  }
  else if (Mem1 && Mem != Mem1)
    OS << ",\n         sustained_one_core_gbs: "
       << num(std::min(MemGBs, Mem1->TriadGBs.Median)) << "}  # one core, "
       << spread(Mem1->TriadGBs) << "\n\n";
  else
    OS << "}\n\n";
}

/// sources: what the probe measured, what CPUID and LLVM gave, what was
/// assumed.
void writeProbedSources(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                        const std::string &Src, const std::string &Cpu, unsigned IssueWidth,
                        const std::vector<std::string> &TlbKeys, bool Overrides,
                        bool AssumedWays) {
  const CpuIdentity &C = R.Cpu;
  double InFlight = D.InFlight;
  OS << "sources:\n";
  OS << "  - id: probe\n    cite: >-\n      " << Src << ": " << KernelsCite
     << "; bandwidths in memory also on all cores, pinned.\n"
     << "    covers: [clock_ghz, core.fma_units, core.peak_flops_per_cycle, "
        "core.loads_per_cycle, core.load_bytes_per_cycle, core.stores_per_cycle, "
        "core.store_bytes_per_cycle, caches.*.bytes_per_cycle_from_next, "
        "caches.*.bytes_per_cycle_to_next, "
        "memory.bandwidth_gbs, memory.sustained_gbs, memory.sustained_load_gbs, "
        "memory.sustained_update_gbs, memory.sustained_copy_gbs, memory.sustained_one_core_gbs"
     << (D.OneCoreWritebackGBs > 0 ? ", memory.one_core_writeback_gbs" : "")
     << (!D.Fit.Rule ? "" : ", ecm.overlap")
     << (D.Fit.Rule && D.RecurrenceShare >= 0 ? ", ecm.recurrence_serial_share" : "")
     << (D.CacheLineCy >= 0 ? ", memory.cache_line_cy" : "")
     << (D.StrideLatencyNs > 0 ? ", memory.stride_latency_ns" : "")
     << (R.LineSplitLoad.Median > 0 ? ", core.line_split_load_cost" : "")
     << (R.LineSplitStore.Median > 0 ? ", core.line_split_store_cost" : "")
     << (vectorLoadSlots(R, D) ? ", core.vector_load_slots" : "")
     << (R.MispredictCycles.Median > 0 ? ", core.branch_mispredict_cy" : "")
     << (windowStep(R.LoadWindow) ? ", core.load_queue" : "")
     << (windowStep(R.StoreWindow) ? ", core.store_queue" : "")
     << (branchPatternCapacity(R.BranchSweep) > 0 ? ", core.branch_pattern_capacity" : "")
     << (R.ChaseNs.empty() ? "" : ", caches.*.latency_cy, memory.latency_ns")
     << (InFlight >= 1 ? ", caches.L1.misses_in_flight" : "")
     << (TlbKeys.empty() ? "" : ", " + llvm::join(TlbKeys, ", "))
     << (Overrides ? ", core.instruction_overrides" : "")
     << (R.CallCycles.empty() ? "" : ", core.call_cy") << libraryCovers(R) << "]\n";
  OS << "  - id: cpuid\n    cite: >-\n      CPUID of this host: vendor, family and model, "
        "SIMD width from the feature flags, cache geometry from "
     << (C.Caches.empty() ? std::string("(none given)") : C.Caches.front().From) << ".\n"
     << "    covers: [cpuid, core.simd_bits, caches.*.size, caches.*.line, "
        "caches.*.shared_by"
     << (AssumedWays ? "" : ", caches.*.ways") << "]\n";
  OS << "  - id: host\n    cite: >-\n      Online CPUs of this host (sysconf), taken as "
        "the cores of one socket.\n    covers: [cores_per_socket]\n";
  OS << "  - id: llvm\n    cite: >-\n      "
     << (IssueWidth ? "LLVM 19 scheduling model of " + Cpu + ": issue width."
                    : std::string("assumed: LLVM 19 has no issue width for " + Cpu + "."))
     << "\n    covers: [core.issue_width]\n";
  if (AssumedWays)
    OS << "  - id: assumed-ways\n    cite: >-\n      CPUID does not give the associativity "
          "of every level; 16 ways (or the largest power of two dividing the size) "
          "assumed.\n    covers: [caches.*.ways]\n";
}

} // namespace

void perfmodel::writeProbedMachine(llvm::raw_ostream &OS, const ProbeResult &R,
                                   const std::string &Triple, const std::string &Cpu,
                                   unsigned IssueWidth,
                                   const FormPorts &LlvmCosts,
                                   const ProbeBase *Base) {
  Derived D = derive(R, Base && Base->Model ? std::optional<OverlapRule>(Base->Model->EcmOverlap)
                                            : std::nullopt);
  if (Base && Base->Model)
    return writeOverBase(OS, R, D, *Base, LlvmCosts);
  const CpuIdentity &C = R.Cpu;
  double GHz = R.ClockGHz.Median;
  std::string Src = "measured by perfmodel probe on " + R.Date;
  OS << "# Machine model of this host, " << Src << ".\n"
     << "# CPU: " << hostDescription(R) << "\n"
     << "# Measured figures are medians of repeated runs (spreads in the comments);\n"
     << "# the rest comes from CPUID or LLVM, or is marked as assumed in `sources`.\n"
     << "# Review before use: a virtual machine may hide caches or share cores.\n";
  writeNotesAndBandwidths(OS, R);
  OS << "name: \"" << (C.Brand.empty() ? std::string("Probed host") : C.Brand)
     << " (probed " << R.Date << ")\"\n";
  OS << "aliases: [probed-" << Cpu << "]\n";
  OS << "llvm: {triple: " << Triple << ", cpu: " << Cpu << "}\n\n";
  OS << "# dependent add chain, " << spread(R.ClockGHz) << "\n";
  OS << "clock_ghz: " << num(GHz, 2) << "\n";
  OS << "cores_per_socket: " << R.OnlineCpus << "\n\n";

  writeProbedCore(OS, R, D, IssueWidth);
  bool Overrides = writeMeasuredCosts(OS, R, LlvmCosts);
  OS << "\n";
  writeOverlap(OS, D);
  bool AssumedWays = writeProbedCaches(OS, R, D);
  writeProbedMemory(OS, R, D);
  std::string TlbComment;
  std::vector<std::string> TlbKeys;
  std::string Tlb = tlbText(R, nullptr, TlbComment, TlbKeys);
  OS << TlbComment << Tlb;
  OS << "cpuid: {vendor: " << C.Vendor << ", family: " << C.Family << ", models: [0x"
     << llvm::format_hex_no_prefix(C.Model, 2) << "]}\n\n";
  writeProbedSources(OS, R, D, Src, Cpu, IssueWidth, TlbKeys, Overrides, AssumedWays);
}

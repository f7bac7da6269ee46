//===- WriterBase.cpp - A probed model over its base ----------------------===//
//
// A probe result written over a library model (base:): only what the
// probe measured, each key with a comment on its measurement.
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

/// Where a link's fitted bandwidth comes from: the load kernel's rate in
/// LEVEL beside what the fit made of it.
std::string linkComment(const ProbeResult &R, const Derived &D, const std::string &Level) {
  std::string S = std::string("ECM fit (") + overlapRuleName(*D.Fit.Rule) + ")";
  if (const BandwidthPoint *P = point(R, Level, false)) {
    S += "; load kernel in " + Level + ": " + num(P->LoadGBs.Median) + " GB/s, " +
         spread(P->LoadGBs);
    if (P->BusTotal)
      S += "; " + std::to_string(P->BusQuiet) + " of " + std::to_string(P->BusTotal) +
           " repetitions beside a quiet memory bus (a 1 MiB read before and after each at 90 % "
           "of the second fastest or more; all of a kernel's where fewer than the repetitions "
           "asked were)";
  }
  return S;
}

/// The `tlb` line the probe's measurements give (empty when they did not
/// run), with its comment, and the keys it measured (MEASURED, for the
/// probe's covers). Over a base that states the TLB's geometry the vendor's
/// entries and ways stay and the measured costs replace its; else the knee
/// of each sweep gives a level's entries and the TLB is written fully
/// associative (the last level's ways hide behind the first level).
std::string tlbText(const ProbeResult &R, const TlbModel *Base, std::string &Comment,
                    std::vector<std::string> &Measured) {
  double Load = R.TlbLoadMissCy.Median, Store = R.TlbStoreMissCy.Median;
  if (!(Load > 0) || !(Store > 0))
    return "";
  double Knee = tlbEntries(R.TlbSweep, R.TlbHitStoreCy, Store);
  Comment = "# Data TLB: one load (store) per 4 KiB page, 2048 pages 8 apart against 64: " +
            num(Load) + " (" + num(Store) + ") cy more per access, " + spread(R.TlbLoadMissCy) +
            " (" + spread(R.TlbStoreMissCy) + "); stores over pages 1 apart (pages:cy";
  for (const auto &[N, Cy] : R.TlbSweep)
    Comment += " " + std::to_string(N) + ":" + num(Cy, 2);
  Comment += ", 64:" + num(R.TlbHitStoreCy, 2) + ")" +
             (Knee > 0 ? ": a quarter of a miss more from " + std::to_string(std::lround(Knee)) +
                             " pages"
                       : ": no knee up to 8192 pages");
  unsigned Entries = Base ? Base->Entries : unsigned(std::lround(Knee / 64) * 64);
  unsigned Ways = Base ? Base->Ways : Entries;
  if (!Entries)
    return "";
  Comment += Base ? "; entries and ways: the base's\n"
                  : "; ways not measurable behind the L1 TLB: written fully associative, "
                    "which keeps more pages for page strides than a set-indexed TLB\n";
  Measured = {"tlb.load_miss_cy", "tlb.store_miss_cy"};
  if (!Base)
    Measured.insert(Measured.end(), {"tlb.entries", "tlb.ways", "tlb.page"});
  std::string Text = "tlb: {entries: " + std::to_string(Entries) +
                     ", ways: " + std::to_string(Ways) + ", page: 4KiB, load_miss_cy: " +
                     num(Load, 1) + ", store_miss_cy: " + num(Store, 1);

  // The first level: written where its misses cost the pipes a measurable
  // tenth of a cycle or more and the load sweep shows where they start.
  double L1Load = R.TlbL1LoadMissCy.Median, L1Store = R.TlbL1StoreMissCy.Median;
  double L1Knee = tlbEntries(R.TlbL1Sweep, R.TlbL1HitLoadCy, L1Load);
  bool BaseL1 = Base && Base->L1Entries;
  unsigned L1Entries = BaseL1 ? Base->L1Entries : unsigned(std::lround(L1Knee / 8) * 8);
  unsigned L1Ways = BaseL1 ? Base->L1Ways : L1Entries;
  if (std::max(L1Load, L1Store) >= 0.1 && L1Knee > 0 && L1Entries && L1Entries < Entries) {
    Comment += "# First-level TLB: one load (store) per page over 256 pages 1 apart against 16, "
               "lines in L1: " +
               num(L1Load, 2) + " (" + num(L1Store, 2) + ") cy more per access, " +
               spread(R.TlbL1LoadMissCy) + " (" + spread(R.TlbL1StoreMissCy) +
               "); loads over pages 1 apart (pages:cy 16:" + num(R.TlbL1HitLoadCy, 2);
    for (const auto &[N, Cy] : R.TlbL1Sweep)
      Comment += " " + std::to_string(N) + ":" + num(Cy, 2);
    Comment += "): a quarter of a miss more from " + std::to_string(std::lround(L1Knee)) +
               " pages" + (BaseL1 ? "; l1_entries and l1_ways: the base's\n" : "\n");
    Text += ", l1_entries: " + std::to_string(L1Entries) + ", l1_ways: " +
            std::to_string(L1Ways) + ", l1_load_miss_cy: " + num(std::max(0.0, L1Load), 2) +
            ", l1_store_miss_cy: " + num(std::max(0.0, L1Store), 2);
    Measured.insert(Measured.end(), {"tlb.l1_load_miss_cy", "tlb.l1_store_miss_cy"});
    if (!BaseL1)
      Measured.insert(Measured.end(), {"tlb.l1_entries", "tlb.l1_ways"});
  }
  return Text + "}\n\n";
}

/// How the memory link's write-back rate was had, capped at SOCKET GB/s.
std::string writebackComment(const Derived &D, double Socket) {
  std::string S = std::string("ECM fit (") + overlapRuleName(*D.Fit.Rule) + "): a line written back " +
                  num(D.Fit.MemWritebackCyclesPerLine) + " cy beside " +
                  num(D.Fit.CyclesPerLine.back()) + " per line filled (load, copy, update, "
                  "triad fill 1, 2, 1, 3 lines and write back 0, 1, 1, 1), added to the fills";
  if (D.OneCoreWritebackGBs > Socket)
    S += "; the fitted " + num(D.OneCoreWritebackGBs) + " GB/s capped at the socket's";
  return S;
}

/// How memory.cache_line_cy was had.
std::string cacheLineComment(const ProbeResult &R, const Derived &D) {
  const BandwidthPoint &P = *D.CacheLinePoint;
  return "a copy in memory takes " + num(D.CopyCy) + " cy per line of its stream, " +
         num(D.CopyCachedCy) + " with two more read streams of " +
         formatByteSize(P.CachedBytes) + " each (in the L2) beside it: " +
         num(D.CacheLineCy) + " cy per line from the L2 (" + spread(P.CopyCachedGBs) + "; " +
         std::to_string(R.StreamBits) + "-bit vectors)";
}

std::string inFlightComment(const ProbeResult &R, double InFlight) {
  std::string S = "32 chases at once take " + num(R.ParallelChaseNs.Median) + " ns per line";
  if (R.RandomLoadNs.Median > 0)
    S += ", independent random loads " + num(R.RandomLoadNs.Median) + " (" +
         spread(R.RandomLoadNs) + ")";
  return S + ": " + num(InFlight) + " misses in flight";
}

std::string strideComment(const ProbeResult &R, double LatencyNs) {
  double PerLine = R.StrideNsPerLine.Median;
  return "a scalar load per two lines (128 B apart) over the memory-sized set takes " +
         num(PerLine) + " ns per line (" + spread(R.StrideNsPerLine) + "): x " +
         num(PerLine > 0 ? LatencyNs / PerLine : 0) +
         " misses in flight, what a stream only the stride prefetcher follows waits";
}

/// The probe's figures over a library model: only what was measured, each
/// beside its spread and kernel; the rest is the base's.
namespace {

/// The core's keys over the base, written only when the probe measured any
/// (a file with an empty `core:` would not load); COVERS gains them.
void writeCoreOverBase(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                       const MachineModel &B, const FormPorts &LlvmCosts,
                       std::vector<std::string> &Covers) {
  std::string CoreText;
  llvm::raw_string_ostream CS(CoreText);
  // The widest FMA kernel's peak; the base keeps its units and widths.
  const PeakPoint *Best = bestPeak(R, /*Fma=*/true);
  // The peak follows from the base's pipes (fp_units, validated against
  // it), so the measurement is recorded beside it, not written over it.
  if (Best && Best->DoubleFlopsPerCycle.Median > 0) {
    double Dp = Best->DoubleFlopsPerCycle.Median, BaseDp = B.Core.PeakFlopsPerCycleDouble;
    CS << "  # peak: " << vectorIsaName(Best->Isa) << " FMA kernel " << num(Dp, 2) << " double flop/cy ("
       << spread(Best->DoubleFlopsPerCycle) << "), the base states " << num(BaseDp, 2)
       << (BaseDp > 0 && std::fabs(Dp - BaseDp) > 0.15 * BaseDp
               ? ": they differ by more than 15 %, check the base's core.fp_units"
               : "")
       << "\n";
  }
  if (D.LoadsAt)
    Covers.insert(Covers.end(), {"core.loads_per_cycle", "core.load_bytes_per_cycle"});
  if (vectorLoadSlots(R, D))
    Covers.push_back("core.vector_load_slots");
  if (D.StoresAt)
    Covers.insert(Covers.end(), {"core.stores_per_cycle", "core.store_bytes_per_cycle"});
  writePorts(CS, R, D);
  if (writeMeasuredCosts(CS, R, LlvmCosts, &B))
    Covers.push_back("core.instruction_overrides");
  if (!R.CallCycles.empty())
    Covers.push_back("core.call_cy");
  if (!libraryCoreKeys(R, &B).empty())
    Covers.insert(Covers.end(), {"core.memcpy_bytes_per_cy", "core.memset_bytes_per_cy"});
  if (R.LineSplitLoad.Median > 0)
    Covers.push_back("core.line_split_load_cost");
  if (R.LineSplitStore.Median > 0)
    Covers.push_back("core.line_split_store_cost");
  if (R.MispredictCycles.Median > 0)
    Covers.push_back("core.branch_mispredict_cy");
  if (windowStep(R.LoadWindow))
    Covers.push_back("core.load_queue");
  if (windowStep(R.StoreWindow))
    Covers.push_back("core.store_queue");
  if (branchPatternCapacity(R.BranchSweep) > 0)
    Covers.push_back("core.branch_pattern_capacity");
  CS.flush();
  bool CoreKeys = llvm::any_of(llvm::split(CoreText, '\n'), [](llvm::StringRef L) {
    L = L.trim();
    return !L.empty() && !L.starts_with("#");
  });
  OS << (CoreKeys ? "\ncore:\n" : "\n") << CoreText;
  OS << "\n";
}

/// Caches by the base's names (a level the base does not have is left out):
/// chased latencies, misses in flight, measured links.
void writeCachesOverBase(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                         const MachineModel &B, std::vector<std::string> &Covers) {
  const CpuIdentity &C = R.Cpu;
  std::vector<std::string> Lines, Missing;
  for (size_t I = 0; I < C.Caches.size(); ++I) {
    std::string Name = "L" + std::to_string(C.Caches[I].Level);
    if (!B.cache(Name)) {
      Missing.push_back(Name);
      continue;
    }
    std::string Keys, Comment;
    auto Chase = R.ChaseNs.find(Name);
    if (Chase != R.ChaseNs.end() && Chase->second.Median > 0 && D.GHz > 0) {
      Keys += ", latency_cy: " + num(Chase->second.Median * D.GHz);
      Comment += "latency: one pointer chase, " + spread(Chase->second);
      Covers.push_back("caches." + Name + ".latency_cy");
    }
    if (I == 0 && D.InFlight >= 1) {
      Keys += ", misses_in_flight: " + std::to_string(std::lround(D.InFlight));
      Covers.push_back("caches." + Name + ".misses_in_flight");
    }
    // The L3 this host kept is said, not written: a VM's share of a shared
    // L3 moves with its neighbours (docs/machine-models.md).
    if (const CacheLevel *Base = B.cache(Name); C.Caches[I].Level == 3 && Base) {
      std::string Why;
      if (keptL3Size(R, D, Base->SizeBytes, Base->Ways, Base->LineBytes, Why))
        Comment += std::string(Comment.empty() ? "" : "; ") + Why +
                   "; not written: what a shared L3 keeps varies with the host's load";
    }
    std::string Next =
        I + 1 < C.Caches.size() ? "L" + std::to_string(C.Caches[I + 1].Level) : std::string();
    if (auto F = D.FromNext.find(Name); F != D.FromNext.end() && !Next.empty()) {
      Keys += ", bytes_per_cycle_from_next: " + num(F->second);
      Comment += std::string(Comment.empty() ? "" : "; ") + "from next: " +
                 linkComment(R, D, Next);
      Covers.push_back("caches." + Name + ".bytes_per_cycle_from_next");
      if (I == 0 && !D.FirstFromNextBySet.empty()) {
        std::string Table;
        for (const auto &[Set, Rate] : D.FirstFromNextBySet)
          Table += (Table.empty() ? "" : ", ") + formatByteSize(Set) + ": " + num(Rate);
        Keys += ", bytes_per_cycle_from_next_by_set: {" + Table + "}";
        Comment += "; fills by working set: the load kernel over smaller sets in " + Next;
        Covers.push_back("caches." + Name + ".bytes_per_cycle_from_next_by_set");
      }
      if (I == 0 && D.FirstFromNextDescending) {
        Keys += ", bytes_per_cycle_from_next_descending: " + num(*D.FirstFromNextDescending);
        Comment += "; streams run downwards: the load kernel from the top of the set";
        Covers.push_back("caches." + Name + ".bytes_per_cycle_from_next_descending");
      }
      if (auto S = D.FromNextStrided.find(Name); S != D.FromNextStrided.end()) {
        Keys += ", bytes_per_cycle_from_next_strided: " + num(S->second);
        Comment += "; strided fills: a column read at 200 B, a line per load, from " + Next;
        Covers.push_back("caches." + Name + ".bytes_per_cycle_from_next_strided");
      }
      if (auto W = D.OwnWritebackPath.find(Name); W != D.OwnWritebackPath.end()) {
        Keys += ", bytes_per_cycle_to_next: " + num(W->second);
        Comment += "; write-backs on a path of their own (a kernel's time the slower "
                   "direction's)";
        Covers.push_back("caches." + Name + ".bytes_per_cycle_to_next");
      }
    }
    if (!Keys.empty())
      Lines.push_back("  # " + Comment + "\n  - {name: " + Name + Keys + "}\n");
  }
  if (!Lines.empty()) {
    OS << "caches:\n";
    for (const std::string &L : Lines)
      OS << L;
    OS << "\n";
  }
  for (const std::string &M : Missing)
    OS << "# " << M << " (from CPUID) is not in the base model: not written\n";

}

/// Memory: latency and what one core draws; the socket's figures are the
/// base's (this host's cores are not the socket's).
void writeMemoryOverBase(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                         const MachineModel &B, std::vector<std::string> &Covers) {
  std::string Mem;
  if (D.MemLatencyNs > 0) {
    OS << "# Latency: one pointer chase over the memory-sized set, "
       << spread(R.ChaseNs.at("MEM")) << "; " << inFlightComment(R, D.InFlight) << ".\n";
    Mem += "latency_ns: " + num(D.MemLatencyNs);
    Covers.push_back("memory.latency_ns");
  }
  if (D.OneCoreGBs > 0) {
    // One core cannot draw more than the base's socket (a base of another
    // machine, or a fit thrown by a busy host): capped, and said so.
    double Socket = B.Memory.effectiveGBs(), One = std::min(D.OneCoreGBs, Socket);
    // Write-backs the fit finds nearly free still share the bus: at most
    // what this host's cores drew together here (the fastest repetition: a
    // neighbour only ever slows one), as validate's memory rows take them.
    // Uncapped (195 GB/s fitted on the Zen 4 VM beside 52.5 drawn by its two
    // cores) the probed model priced memory streams 27 % fast.
    double Bus = Socket;
    if (const BandwidthPoint *All = point(R, "MEM", true); All && All->TriadGBs.Max > 0)
      Bus = std::min(Bus, All->TriadGBs.Max);
    OS << "# One core: " << linkComment(R, D, "MEM")
       << (One < D.OneCoreGBs ? "; the fitted " + num(D.OneCoreGBs) +
                                    " GB/s capped at the base's socket"
                              : std::string())
       << "\n";
    Mem += std::string(Mem.empty() ? "" : ", ") + "sustained_one_core_gbs: " + num(One);
    Covers.push_back("memory.sustained_one_core_gbs");
    if (D.OneCoreWritebackGBs > 0) {
      OS << "# Write-backs: " << writebackComment(D, Bus)
         << (Bus < Socket && D.OneCoreWritebackGBs > Bus
                 ? " (here: all cores' triad, " + num(Bus) + " GB/s)"
                 : std::string())
         << "\n";
      Mem += ", one_core_writeback_gbs: " + num(std::min(D.OneCoreWritebackGBs, Bus));
      Covers.push_back("memory.one_core_writeback_gbs");
    }
  }
  if (D.CacheLineCy >= 0) {
    OS << "# Lines from the caches beside memory streams: " << cacheLineComment(R, D) << "\n";
    Mem += std::string(Mem.empty() ? "" : ", ") + "cache_line_cy: " + num(D.CacheLineCy);
    Covers.push_back("memory.cache_line_cy");
  }
  // Over the base's L1 misses in flight when the chases gave none.
  double StrideNs = D.StrideLatencyNs;
  if (StrideNs <= 0 && R.StrideNsPerLine.Median > 0 && !B.Caches.empty() &&
      B.Caches.front().MissesInFlight)
    StrideNs = R.StrideNsPerLine.Median * *B.Caches.front().MissesInFlight;
  if (StrideNs > 0) {
    OS << "# Strided streams: " << strideComment(R, StrideNs) << "\n";
    Mem += std::string(Mem.empty() ? "" : ", ") + "stride_latency_ns: " + num(StrideNs);
    Covers.push_back("memory.stride_latency_ns");
  }
  if (std::string Lib = libraryMemoryKeys(R); !Lib.empty()) {
    Mem += Mem.empty() ? Lib.substr(2) : Lib;
    Covers.insert(Covers.end(), {"memory.memcpy_one_core_gbs", "memory.memset_one_core_gbs"});
  }
  if (!Mem.empty())
    OS << "memory: {" << Mem << "}\n\n";
}

} // namespace

void writeOverBase(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                   const ProbeBase &Base, const FormPorts &LlvmCosts) {
  const MachineModel &B = *Base.Model;
  std::string Src = "measured by perfmodel probe on " + R.Date;
  OS << "# " << B.Name << " with the figures " << Src << " on this host:\n# "
     << hostDescription(R) << "\n"
     << "# Every key below replaces the base's; everything else (cache geometry,\n"
     << "# sockets, theoretical bandwidth, widths, CPUID) is the base's, with its\n"
     << "# sources. Medians of repetitions; spreads and kernels in the comments.\n";
  writeNotesAndBandwidths(OS, R);
  OS << "# (all-core figures are this host's cores, not the base's socket: not written)\n";
  OS << "base: " << Base.Name << "\n";
  OS << "name: \"" << B.Name << " (probed " << R.Date << ")\"\n";
  OS << "aliases: [probed-" << B.Cpu << "]\n\n";
  std::vector<std::string> Covers;
  bool BaseClock = false;
  if (R.ClockGHz.Median > 0) {
    OS << "# dependent add chain, " << spread(R.ClockGHz) << "\n";
    OS << "clock_ghz: " << num(R.ClockGHz.Median, 2) << "\n";
    if (!B.BaseClockGHz) {
      OS << "base_clock_ghz: " << num(B.ClockGHz, 2) << "  # the base model's clock\n";
      BaseClock = true;
    }
    Covers.push_back("clock_ghz");
  }
  writeCoreOverBase(OS, R, D, B, LlvmCosts, Covers);
  writeOverlap(OS, D);
  if (D.Fit.Rule)
    Covers.push_back("ecm.overlap");
  if (D.Fit.Rule && D.RecurrenceShare >= 0)
    Covers.push_back("ecm.recurrence_serial_share");
  writeCachesOverBase(OS, R, D, B, Covers);
  writeMemoryOverBase(OS, R, D, B, Covers);
  std::string TlbComment;
  std::vector<std::string> TlbKeys;
  std::string Tlb = tlbText(R, B.Tlb ? &*B.Tlb : nullptr, TlbComment, TlbKeys);
  if (!Tlb.empty()) {
    OS << TlbComment << Tlb;
    Covers.insert(Covers.end(), TlbKeys.begin(), TlbKeys.end());
  }

  OS << "sources:\n  - id: probe\n    cite: >-\n      " << Src << ": " << KernelsCite
     << ".\n    covers: [";
  for (size_t I = 0; I < Covers.size(); ++I)
    OS << (I ? ", " : "") << Covers[I];
  OS << "]\n";
  if (BaseClock)
    OS << "  - id: base-clock\n    cite: >-\n      The clock_ghz of " << Base.Name
       << ", as its sources state it.\n    covers: [base_clock_ghz]\n";
}

} // namespace perfmodel::probe_writer

//===- Writer.cpp - A probe result as a machine model ---------------------===//
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

namespace {

std::string num(double V, int Decimals = 1) {
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

/// ns per miss with as many misses in flight as the core keeps: the faster
/// of 32 chases at once (capped at 32 by construction) and independent
/// random loads (a gather's misses); 0 when neither was measured.
double parallelMissNs(const ProbeResult &R) {
  double A = R.ParallelChaseNs.Median, B = R.RandomLoadNs.Median;
  return A > 0 && B > 0 ? std::min(A, B) : std::max(A, B);
}

std::string spread(const Measured &M) {
  return "median of " + std::to_string(M.Reps) + ", spread " + num(100 * M.spread(), 1) + " %" +
         (M.Settled ? "" : ", not settled");
}

const BandwidthPoint *point(const ProbeResult &R, const std::string &Level, bool AllCores) {
  const BandwidthPoint *Best = nullptr;
  for (const BandwidthPoint &P : R.Bandwidth)
    if (P.Level == Level && (P.Threads > 1) == AllCores)
      Best = &P;
  return Best;
}

/// What the kernels measured, turned into the figures the models use.
struct Derived {
  double GHz = 0;
  // Ports: the most accesses per cycle of any width, the most bytes per
  // cycle of any width, and the widths that gave them.
  double Loads = 0, LoadBytes = 0, Stores = 0, StoreBytes = 0;
  const PortPoint *LoadsAt = nullptr, *LoadBytesAt = nullptr, *StoresAt = nullptr,
                  *StoreBytesAt = nullptr;
  OverlapFit Fit;
  std::vector<LevelTimes> Times; ///< the fit's input, one level each
  std::map<std::string, double> FromNext; ///< cache name -> B/cy from the next level
  /// caches whose write-backs have a path of their own (the fit's duplex
  /// links): no slower than the fills, so written at the fills' rate
  std::set<std::string> OwnWritebackPath;
  double OneCoreGBs = 0;                  ///< the fitted memory link's fills
  double OneCoreWritebackGBs = 0;         ///< and its write-backs
  double MemLatencyNs = 0, InFlight = 0;
  /// The latency a stream only the stride prefetcher follows waits: its
  /// time per line x the misses in flight written (0: not measured).
  double StrideLatencyNs = 0;
  uint64_t KeptL3 = 0; ///< the L3 capacity the chase sweep shows (0: none)
  /// Cycles a line from the L2 adds beside memory streams (copy with two
  /// cached streams against the plain copy), written under the `full` rule
  /// only (`none` adds those lines' transfers); -1: not written.
  double CacheLineCy = -1;
  double CopyCy = 0, CopyCachedCy = 0; ///< per line of the copied stream
  const BandwidthPoint *CacheLinePoint = nullptr; ///< where they were timed
};

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

Derived derive(const ProbeResult &R) {
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
  D.Fit = fitEcmOverlap(D.Times);
  unsigned Line = R.Cpu.Caches.empty() || !R.Cpu.Caches[0].LineBytes
                      ? 64
                      : R.Cpu.Caches[0].LineBytes;
  for (size_t I = 0; I < D.Fit.CyclesPerLine.size() && I + 1 < D.Times.size(); ++I) {
    double T = D.Fit.CyclesPerLine[I];
    if (T <= 0)
      continue;
    if (D.Times[I + 1].Level == "MEM") {
      D.OneCoreGBs = Line / T * D.GHz;
      if (D.Fit.MemWritebackCyclesPerLine > 0)
        D.OneCoreWritebackGBs = Line / D.Fit.MemWritebackCyclesPerLine * D.GHz;
    } else {
      D.FromNext[D.Times[I].Level] = Line / T;
      if (I < D.Fit.Duplex.size() && D.Fit.Duplex[I])
        D.OwnWritebackPath.insert(D.Times[I].Level);
    }
  }
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
      D.Fit.Rule == "full") {
    D.CacheLinePoint = P;
    D.CopyCy = 3.0 * Line / P->CopyBesideGBs.Median * D.GHz;
    D.CopyCachedCy = 3.0 * Line / P->CopyCachedGBs.Median * D.GHz;
    D.CacheLineCy = std::max(0.0, (D.CopyCachedCy - D.CopyCy) / 2);
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
std::string libraryCoreKeys(const ProbeResult &R, const MachineModel *Base = nullptr) {
  std::string Out;
  for (bool Copy : {true, false}) {
    std::string Map;
    for (const BandwidthPoint &P : R.Bandwidth) {
      const Measured &M = Copy ? P.MemcpyBytesPerCy : P.MemsetBytesPerCy;
      if (P.Threads == 1 && P.Level != "MEM" && M.Median > 0 && (!Base || Base->cache(P.Level)))
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

/// The ECM rule and the fit behind it, as a comment and a line of YAML.
void writeOverlap(llvm::raw_ostream &OS, const Derived &D) {
  if (D.Fit.Rule.empty())
    return;
  OS << "# ECM overlap fitted to the load, copy, update and triad kernels in";
  for (const LevelTimes &T : D.Times)
    OS << " " << T.Level;
  OS << "\n# (one core): mean error " << num(100 * D.Fit.ResidualNone, 1) << " % with 'none', "
     << num(100 * D.Fit.ResidualFull, 1) << " % with 'full'; link times below are the fit's.\n"
     << "#   cy per line of each stream, measured (fitted): load, copy, update, triad\n";
  auto Row = [&](const LevelTimes &T, const LevelTimes *P) {
    OS << "#   " << T.Level << ":";
    for (auto [M, F] : {std::pair{T.Load, P ? P->Load : 0}, {T.Copy, P ? P->Copy : 0},
                        {T.Update, P ? P->Update : 0}, {T.Triad, P ? P->Triad : 0}})
      OS << " " << num(M, 2) << (P ? " (" + num(F, 2) + ")" : std::string());
    OS << "\n";
  };
  for (size_t I = 0; I < D.Times.size(); ++I)
    Row(D.Times[I], I >= 1 && I - 1 < D.Fit.Predicted.size() ? &D.Fit.Predicted[I - 1] : nullptr);
  OS << "ecm: {overlap: " << D.Fit.Rule << "}\n\n";
}

/// The load slots each 32-byte part of a vector load takes of the
/// loads_per_cycle, from 8 vector parts (8 ymm or 4 zmm loads) and 8
/// integer loads timed together: their cycles are (8 + 8 S) /
/// loads_per_cycle (Zen 4 with zmm: 6.67 where separate pipes would take
/// 4). 0 when the vector parts take no more than an integer load's slot
/// (the pipes are not shared beyond the ports' count).
double vectorLoadSlots(const ProbeResult &R, const Derived &D) {
  double Cy = R.MixedLoadCy.Median;
  if (Cy <= 0 || !D.LoadsAt)
    return 0;
  double S = (std::max(1.0, std::round(D.Loads)) * Cy - 8) / 8;
  return S > 1.1 ? S : 0;
}

/// Loads and stores per cycle and bytes per cycle from the port kernels.
void writePorts(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D) {
  auto Line = [&](const char *Key, double V, const PortPoint *At, const Measured &M,
                  int Decimals) {
    OS << "  " << Key << ": " << num(V, Decimals) << "  # " << widthName(At->WidthBytes)
       << " independent accesses in L1 (" << spread(M) << ")\n";
  };
  if (D.LoadsAt) {
    Line("loads_per_cycle", std::max(1.0, std::round(D.Loads)), D.LoadsAt,
         D.LoadsAt->LoadsPerCycle, 0);
    Line("load_bytes_per_cycle", D.LoadBytes, D.LoadBytesAt, D.LoadBytesAt->LoadsPerCycle, 1);
    if (R.MixedLoadCy.Median > 0) {
      double S = vectorLoadSlots(R, D);
      OS << (S > 0 ? "  vector_load_slots: " + num(S, 2) + "  # " : std::string("  # "))
         << (R.MixedLoadsZmm ? "4 zmm" : "8 ymm") << " and 8 integer loads, independent, in L1: "
         << num(R.MixedLoadCy.Median, 2) << " cy (" << spread(R.MixedLoadCy) << ")"
         << (S > 0 ? "" : ", as many as the ports' count: no vector_load_slots") << "\n";
    }
  }
  if (D.StoresAt) {
    Line("stores_per_cycle", std::max(1.0, std::round(D.Stores)), D.StoresAt,
         D.StoresAt->StoresPerCycle, 0);
    Line("store_bytes_per_cycle", D.StoreBytes, D.StoreBytesAt, D.StoreBytesAt->StoresPerCycle,
         1);
  }
}

/// The line-split costs, latencies and divider throughputs measured, as
/// `core` keys; true when instruction_overrides were written.
bool writeMeasuredCosts(llvm::raw_ostream &OS, const ProbeResult &R,
                        const FormPorts &LlvmCosts, const MachineModel *Base = nullptr) {
  if (!R.CallCycles.empty()) {
    OS << "  # library calls: cycles per call in y[i] = f(x[i]) over 1024 elements in L1, "
          "less the loop alone\n  call_cy: {";
    const char *Sep = "";
    for (const auto &[Symbol, M] : R.CallCycles) {
      OS << Sep << Symbol << ": " << num(M.Median, 3);
      Sep = ", ";
    }
    OS << "}\n";
  }
  if (std::string Keys = libraryCoreKeys(R, Base); !Keys.empty())
    OS << "  # the C library's memcpy and memset, bytes written per cycle with the data in "
          "each cache (half of it; memcpy: source and destination)\n"
       << Keys;
  // A split costs at least what an access inside one line does; a ratio a
  // little under 1 is noise.
  for (const auto &[Key, M] : {std::pair<const char *, const Measured *>{
                                   "line_split_load_cost", &R.LineSplitLoad},
                               {"line_split_store_cost", &R.LineSplitStore}})
    if (M->Median > 0)
      OS << "  " << Key << ": " << num(std::max(1.0, M->Median), 2)
         << "  # 32-byte stream, every other access split vs none, in L1 (" << spread(*M)
         << ")\n";
  // The window test: loads held to retirement are the fillers and the two
  // miss loads; stores, the fillers.
  for (auto [Key, Sweep, Extra] :
       {std::tuple<const char *, const std::vector<std::pair<unsigned, double>> *, unsigned>{
            "load_queue", &R.LoadWindow, 2},
        {"store_queue", &R.StoreWindow, 0}})
    if (unsigned N = windowStep(*Sweep)) {
      OS << "  " << Key << ": " << N + Extra << "  # two misses overlap with " << N
         << " fillers between them, not with more (time over 16 fillers:";
      for (const auto &[F, X] : *Sweep)
        OS << " " << F << ":" << num(X, 2);
      OS << ")\n";
    }
  if (R.MispredictCycles.Median > 0)
    OS << "  branch_mispredict_cy: " << num(R.MispredictCycles.Median, 1)
       << "  # a branch on random bytes over 16 MiB vs the same over 8 KiB ("
       << spread(R.MispredictCycles) << ")\n";
  if (double Cap = branchPatternCapacity(R.BranchSweep); Cap > 0) {
    OS << "  branch_pattern_capacity: " << std::lround(Cap)
       << "  # a repeated random pattern is half learned at " << std::lround(2 * Cap)
       << " branches (mispredicted per branch:";
    for (const auto &[N, F] : R.BranchSweep)
      OS << " " << N << ":" << num(std::max(0.0, F), 2);
    OS << ")\n";
  }
  // Measured latencies and divider throughputs (on the resource LLVM's model
  // charges them to): the scheduling models of new cores often carry an
  // older core's figures.
  struct Entry {
    std::string Form;
    const Measured *Latency = nullptr, *Throughput = nullptr;
    std::map<std::string, double> Ports; ///< LLVM's resources, scaled to the measurement
  };
  std::vector<Entry> Entries;
  static const std::string ScalarFmaGlob = "\"vf*[0-9]s[sd] \"";
  static const std::vector<const char *> FmaForms = {"vfmadd", "vfmsub", "vfnmadd", "vfnmsub"};
  auto At = [&](const std::string &Form) -> Entry & {
    for (Entry &E : Entries)
      if (E.Form == Form)
        return E;
    Entries.emplace_back();
    Entries.back().Form = Form;
    return Entries.back();
  };
  static const std::vector<std::pair<const char *, std::vector<const char *>>> LatencyForms = {
      {"add", {"vaddsd", "vaddss", "vaddpd", "vaddps", "vsubsd", "vsubss", "vsubpd", "vsubps"}},
      {"mul", {"vmulsd", "vmulss", "vmulpd", "vmulps"}},
      {"fma", {FmaForms.begin(), FmaForms.end()}},
      {"div", {"vdivsd"}}, // single precision divides and roots are faster: not measured
      {"sqrt", {"vsqrtsd"}}};
  for (const auto &[Kind, Forms] : LatencyForms)
    if (auto L = R.Latencies.find(Kind); L != R.Latencies.end() && L->second.Median > 0)
      for (const char *F : Forms)
        At(F).Latency = &L->second;
  // A measured reciprocal throughput on the busiest resources LLVM charges
  // the form to (a divider's pipe; both FMA pipes of a scalar FMA); the
  // others keep LLVM's cycles.
  auto Busiest = [&](const std::string &Form) {
    double Most = 0;
    if (auto Cost = LlvmCosts.find(Form); Cost != LlvmCosts.end())
      for (const auto &[Port, Cy] : Cost->second)
        Most = std::max(Most, Cy);
    return Most;
  };
  auto Scaled = [&](const std::string &Form, double Cycles) {
    std::map<std::string, double> Out;
    double Most = Busiest(Form);
    if (Most <= 0 || Cycles <= 0)
      return Out;
    for (const auto &[Port, Cy] : LlvmCosts.at(Form))
      if (Cy >= Most * (1 - 1e-9))
        Out[Port] = Cycles;
    return Out;
  };
  for (const DividerPoint &D : R.Dividers) {
    std::map<std::string, double> Ports = Scaled(D.Form, D.CyclesPerInstr.Median);
    if (Ports.empty())
      continue;
    Entry &E = At(D.Form);
    E.Throughput = &D.CyclesPerInstr;
    E.Ports = std::move(Ports);
  }
  // Shuffles where they differ from LLVM's model by more than the clock
  // estimate's error (10 %, and a tenth of a cycle); the rest agree with it.
  for (const DividerPoint &D : R.Shuffles) {
    double Llvm = Busiest(D.Form), Cy = D.CyclesPerInstr.Median;
    if (Llvm <= 0 || Cy <= 0 || std::fabs(Cy - Llvm) <= std::max(0.1 * Llvm, 0.1))
      continue;
    Entry &E = At(D.Form);
    E.Throughput = &D.CyclesPerInstr;
    E.Ports = Scaled(D.Form, Cy);
  }
  // Scalar FMAs: the 12-chain peak kernel gives their reciprocal throughput
  // (2 flops each). Written for every scalar FMA form where it differs from
  // LLVM's by more than the clock estimate's error (LLVM 19's Zen 4 and 5
  // models charge one per cycle; they run two).
  for (const PeakPoint &P : R.Peaks) {
    double Llvm = Busiest(ScalarFmaForm);
    if (P.Isa != "scalar" || !P.Fma || P.DoubleFlopsPerCycle.Median <= 0 || Llvm <= 0)
      continue;
    double Cycles = 2 / P.DoubleFlopsPerCycle.Median;
    if (std::fabs(Cycles - Llvm) <= 0.1 * Llvm)
      continue;
    Entry &E = At(ScalarFmaGlob);
    E.Throughput = &P.DoubleFlopsPerCycle;
    E.Ports = Scaled(ScalarFmaForm, Cycles);
  }
  // FMAs beside FP stores: where 8 stores make 24 FMAs slower than either
  // alone (the FMAs as timed, the stores on the resource that binds them in
  // LLVM's model) by more than the clock estimate's error, the two share a
  // slot the model does not know. Every FMA form then takes the rest of the
  // trip's cycles on the store's resource: (trip - 8 stores) / 24 each
  // (Zen 3: 0.5, two FMAs or a store a cycle).
  if (auto St = LlvmCosts.find(FpStoreForm), Fm = LlvmCosts.find(FmaYmmForm);
      St != LlvmCosts.end() && Fm != LlvmCosts.end() && St->second.size() == 1 &&
      R.FmaAloneCy.Median > 0 && R.FmaStoresCy.Median > 0) {
    const auto &[Port, StoreCy] = *St->second.begin();
    double Trip = R.FmaStoresCy.Median, Alone = std::max(R.FmaAloneCy.Median, 8 * StoreCy);
    double Share = (Trip - 8 * StoreCy) / 24;
    if (!Fm->second.count(Port) && Trip > 1.1 * Alone && Share >= 0.05)
      for (const char *F : FmaForms) {
        Entry &E = At(F);
        E.Ports[Port] = Share;
        E.Throughput = &R.FmaStoresCy;
      }
  }
  bool Overrides = !Entries.empty();
  if (Overrides)
    OS << "  # latencies of dependent scalar chains; dividers and shuffles: reciprocal\n"
          "  # throughput of 8 independent operations; scalar FMA: the peak kernel's;\n"
          "  # FMAs on the FP store's resource: 24 FMAs beside 8 stores\n"
          "  instruction_overrides:\n";
  for (const Entry &E : Entries) {
    OS << "    - {form: " << E.Form;
    // Latencies are whole cycles: a chain within 5 % of one (the clock
    // estimate's own error) is that one.
    double Lat = E.Latency ? E.Latency->Median : 0;
    if (E.Latency && std::round(Lat) > 0 && std::fabs(Lat - std::round(Lat)) <= 0.05 * Lat)
      Lat = std::round(Lat);
    if (E.Latency)
      OS << ", latency_cy: " << num(Lat, 2);
    if (!E.Ports.empty()) {
      OS << ", ports: {";
      const char *Sep = "";
      for (const auto &[Port, Cy] : E.Ports) {
        OS << Sep << Port << ": " << num(Cy, 2);
        Sep = ", ";
      }
      OS << "}";
    }
    OS << "}  # ";
    if (E.Latency)
      OS << "chain " << num(E.Latency->Median, 2) << " cy, ";
    if (E.Throughput && E.Form == ScalarFmaGlob)
      OS << "12-chain peak " << num(E.Throughput->Median, 3) << " flop/cy, ";
    if (E.Throughput == &R.FmaStoresCy)
      OS << "24 FMAs " << num(R.FmaAloneCy.Median, 3) << " cy, beside 8 FP stores "
         << num(R.FmaStoresCy.Median, 3) << ", ";
    OS << spread(E.Throughput ? *E.Throughput : *E.Latency) << "\n";
  }
  return Overrides;
}

const char *const KernelsCite =
    "clock from a dependent add chain; peak flop/s from 12-chain FMA and add+mul kernels "
    "per ISA; loads and stores per cycle from 16 independent accesses of each width in L1, "
    "and of 8 ymm (with AVX-512 4 zmm) and 8 integer loads together; "
    "add, multiply, FMA, divide and square-root latency from dependent scalar chains; "
    "divide and square-root throughput from 8 independent operations per form; what an FP "
    "store costs beside FMAs from 24 FMAs on 12 accumulators with and without 8 ymm stores; "
    "line-split "
    "costs from a 32-byte load or store stream in L1 with every other access crossing a "
    "line vs none; branch misprediction from a branch on random bytes over 16 MiB vs 8 KiB "
    "and the predictor's capacity from repeated patterns of 12 K-768 K branches; "
    "data-TLB misses from one load or store per 4 KiB page over 2048 pages 8 apart vs 64, "
    "library calls (libm, libmvec) from y[i] = f(x[i]) over 1024 elements in L1 with "
    "arguments in [0.5, 2] less the same loop without the call, "
    "the TLB's entries from stores over 256-8192 pages 1 apart; the first-level TLB's "
    "entries from loads over 24-160 pages a page and a line apart (lines in L1) and its "
    "misses from loads or stores over 256 such pages vs 16; "
    "load and store queues from two pointer chases missing to memory with 16-256 L1-hit "
    "loads (16-128 stores to one line) between them (Henry Wong's window test); "
    "latencies from one pointer chase over random lines in each level (huge "
    "pages; the L3's over three L2 sizes with the L2's hits taken out), "
    "misses in flight from 32 chases at once in memory (latency / time per line); the "
    "latency of strided streams from a scalar load per two lines in memory (time per line x "
    "misses in flight); the ECM "
    "overlap rule and each link's bandwidth fitted to load, copy, update and triad kernels "
    "with the working set in each level (one core; memory's fills and write-backs apart; "
    "vectors of the width clang-19 -march=native uses here), and the copy in memory with two "
    "L2-resident read streams beside it (memory.cache_line_cy)";

/// Where a link's fitted bandwidth comes from: the load kernel's rate in
/// LEVEL beside what the fit made of it.
std::string linkComment(const ProbeResult &R, const Derived &D, const std::string &Level) {
  std::string S = "ECM fit (" + D.Fit.Rule + ")";
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
  std::string S = "ECM fit (" + D.Fit.Rule + "): a line written back " +
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
void writeOverBase(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                   const ProbeBase &Base, const FormPorts &LlvmCosts) {
  const CpuIdentity &C = R.Cpu;
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
  // The core's keys, written only when the probe measured any (a file with
  // an empty `core:` would not load).
  std::string CoreText;
  llvm::raw_string_ostream CS(CoreText);
  // The widest FMA kernel's peak; the base keeps its units and widths.
  const PeakPoint *Best = bestPeak(R, /*Fma=*/true);
  // The peak follows from the base's pipes (fp_units, validated against
  // it), so the measurement is recorded beside it, not written over it.
  if (Best && Best->DoubleFlopsPerCycle.Median > 0) {
    double Dp = Best->DoubleFlopsPerCycle.Median, BaseDp = B.Core.PeakFlopsPerCycleDouble;
    CS << "  # peak: " << Best->Isa << " FMA kernel " << num(Dp, 2) << " double flop/cy ("
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
  writeOverlap(OS, D);
  if (!D.Fit.Rule.empty())
    Covers.push_back("ecm.overlap");

  // Caches by the base's names; a level the base does not have is left out.
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
    // The L3 this host kept during the probe is said, not written: a VM's
    // share of a shared L3 moves with its neighbours (on the Zen 4 VM the
    // probe saw 10 MiB and validate minutes later found 16 MiB kept).
    if (const CacheLevel *Base = B.cache(Name); Name == "L3" && Base) {
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
      if (D.OwnWritebackPath.count(Name)) {
        Keys += ", bytes_per_cycle_to_next: " + num(F->second);
        Comment += "; write-backs on a path of their own (update costs no more than load): "
                   "no slower than the fills";
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

  // Memory: latency and what one core draws; the socket's figures are the
  // base's (this host's cores are not the socket's).
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
    OS << "# One core: " << linkComment(R, D, "MEM")
       << (One < D.OneCoreGBs ? "; the fitted " + num(D.OneCoreGBs) +
                                    " GB/s capped at the base's socket"
                              : std::string())
       << "\n";
    Mem += std::string(Mem.empty() ? "" : ", ") + "sustained_one_core_gbs: " + num(One);
    Covers.push_back("memory.sustained_one_core_gbs");
    if (D.OneCoreWritebackGBs > 0) {
      OS << "# Write-backs: " << writebackComment(D, Socket) << "\n";
      Mem += ", one_core_writeback_gbs: " +
             num(std::min(D.OneCoreWritebackGBs, Socket));
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

} // namespace

std::vector<LevelTimes> perfmodel::levelTimes(const ProbeResult &R) {
  std::vector<LevelTimes> Out;
  double GHz = R.ClockGHz.Median;
  for (const char *Level : {"L1", "L2", "L3", "MEM"})
    if (const BandwidthPoint *P = point(R, Level, false)) {
      // Bytes each kernel counts per line of each stream (8 doubles). In the
      // caches per cycle as measured beside each repetition where the probe
      // has that; memory's time is in seconds: at the clock measured once.
      bool PerCycle = std::string_view(Level) != "MEM";
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

void perfmodel::writeProbedMachine(llvm::raw_ostream &OS, const ProbeResult &R,
                                   const std::string &Triple, const std::string &Cpu,
                                   unsigned IssueWidth,
                                   const FormPorts &LlvmCosts,
                                   const ProbeBase *Base) {
  Derived D = derive(R);
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
    OS << "  # " << Best->Isa << (Best->Fma ? " FMA" : " add+mul") << " kernel: "
       << num(Best->DoubleFlopsPerCycle.Median, 2) << " double, "
       << num(Best->SingleFlopsPerCycle.Median, 2) << " single flop/cy ("
       << spread(Best->DoubleFlopsPerCycle) << ")\n";
  for (const PeakPoint &P : R.Peaks)
    OS << "  #   " << P.Isa << (P.Fma ? " FMA    " : " add+mul") << ": "
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
  bool Overrides = writeMeasuredCosts(OS, R, LlvmCosts);
  OS << "\n";

  auto MemChase = R.ChaseNs.find("MEM");
  double MemLatency = D.MemLatencyNs, InFlight = D.InFlight;
  writeOverlap(OS, D);
  OS << "caches:\n";
  bool AssumedWays = false;
  std::vector<std::string> Levels;
  for (size_t I = 0; I < C.Caches.size(); ++I) {
    const ProbedCache &K = C.Caches[I];
    std::string Name = "L" + std::to_string(K.Level);
    Levels.push_back(Name);
    unsigned Ways = K.Ways;
    unsigned Line = K.LineBytes ? K.LineBytes : 64;
    if (!Ways || K.SizeBytes % (uint64_t(Ways) * Line)) {
      Ways = 16;
      while (Ways > 1 && K.SizeBytes % (uint64_t(Ways) * Line))
        Ways /= 2;
      AssumedWays = true;
    }
    std::string Kept;
    if (Name == "L3" && keptL3Size(R, D, K.SizeBytes, Ways, Line, Kept))
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
    if (auto F = D.FromNext.find(Name); F != D.FromNext.end() && !Next.empty())
      OS << ",\n     bytes_per_cycle_from_next: " << num(F->second)
         << (D.OwnWritebackPath.count(Name) ? ", bytes_per_cycle_to_next: " + num(F->second)
                                            : std::string())
         << "}  # " << linkComment(R, D, Next)
         << (D.OwnWritebackPath.count(Name) ? "; write-backs on a path of their own" : "")
         << "\n";
    else if (const BandwidthPoint *P = Next.empty() ? nullptr : point(R, Next, false);
             P && GHz > 0)
      OS << ",\n     bytes_per_cycle_from_next: " << num(P->LoadGBs.Median / GHz)
         << "}  # load kernel in " << Next << ": " << num(P->LoadGBs.Median) << " GB/s\n";
    else
      OS << "}\n";
  }
  const BandwidthPoint *Mem = point(R, "MEM", true);
  if (!Mem)
    Mem = point(R, "MEM", false);
  double MemGBs = Mem ? Mem->TriadGBs.Median : 1;
  OS << "\n# Triad with write-allocate (4 streams) on " << (Mem ? Mem->Threads : 1)
     << " core(s), " << (Mem ? spread(Mem->TriadGBs) : std::string("not measured"))
     << ".\n# The theoretical bandwidth is unknown to the probe: replace bandwidth_gbs\n"
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
  OS << "memory: {bandwidth_gbs: " << num(MemGBs) << ", sustained_gbs: " << num(MemGBs)
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
  std::string TlbComment;
  std::vector<std::string> TlbKeys;
  std::string Tlb = tlbText(R, nullptr, TlbComment, TlbKeys);
  OS << TlbComment << Tlb;
  OS << "cpuid: {vendor: " << C.Vendor << ", family: " << C.Family << ", models: [0x"
     << llvm::format_hex_no_prefix(C.Model, 2) << "]}\n\n";

  OS << "sources:\n";
  OS << "  - id: probe\n    cite: >-\n      " << Src << ": " << KernelsCite
     << "; bandwidths in memory also on all cores, pinned.\n"
     << "    covers: [clock_ghz, core.fma_units, core.peak_flops_per_cycle, "
        "core.loads_per_cycle, core.load_bytes_per_cycle, core.stores_per_cycle, "
        "core.store_bytes_per_cycle, caches.*.bytes_per_cycle_from_next, "
        "caches.*.bytes_per_cycle_to_next, "
        "memory.bandwidth_gbs, memory.sustained_gbs, memory.sustained_one_core_gbs"
     << (D.OneCoreWritebackGBs > 0 ? ", memory.one_core_writeback_gbs" : "")
     << (D.Fit.Rule.empty() ? "" : ", ecm.overlap")
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

//===- WriterCosts.cpp - Measured costs in a written model ----------------===//
//
// The measured instruction costs, ports and L1 overlap as the machine
// file's keys, each with the measurement it comes from.
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

/// The ECM rule and the fit behind it, as a comment and a line of YAML.
void writeOverlap(llvm::raw_ostream &OS, const Derived &D) {
  if (!D.Fit.Rule)
    return;
  OS << "# ECM overlap fitted to the load, copy, update and triad kernels in";
  for (const LevelTimes &T : D.Times)
    OS << " " << T.Level;
  OS << "\n# (one core): mean error " << num(100 * D.Fit.ResidualNone, 1) << " % with 'none', "
     << num(100 * D.Fit.ResidualFull, 1) << " % with 'full'"
     << (D.Fit.Preferred ? " (within two points: the base model's rule is kept)" : "")
     << "; link times below are the fit's.\n"
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
  if (D.RecurrenceShare >= 0)
    OS << "# A scalar sum over memory: " << num(D.ChainBothCy, 2) << " cy an element, its add "
       << "chain alone " << num(D.ChainCy, 2) << ", the load kernel over the same buffer "
       << num(D.ChainStreamCy, 2) << ": it adds " << num(D.RecurrenceShare, 2)
       << " of the smaller to the larger.\n";
  OS << "ecm: {overlap: " << overlapRuleName(*D.Fit.Rule);
  if (D.RecurrenceShare >= 0)
    OS << ", recurrence_serial_share: {MEM: " << num(D.RecurrenceShare, 2) << "}";
  OS << "}\n\n";
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

namespace {

/// The measured core keys beside the ports: library calls, memcpy and
/// memset rates, line splits, the load and store queues, branches.
void writeMeasuredCoreKeys(llvm::raw_ostream &OS, const ProbeResult &R,
                           const MachineModel *Base) {
  // A call that timed at no cost beside the loop alone was disturbed (the
  // loop's own timing took a neighbour's time): left out, the base's or
  // none stands, rather than a file that does not load.
  std::string Calls, Dropped;
  auto Append = [](std::string &List, const std::string &Item) {
    List += (List.empty() ? "" : ", ") + Item;
  };
  for (const auto &[Symbol, M] : R.CallCycles) {
    if (M.Median > 0)
      Append(Calls, Symbol + ": " + num(M.Median, 3));
    else
      Append(Dropped, Symbol);
  }
  if (!Calls.empty() || !Dropped.empty()) {
    OS << "  # library calls: cycles per call in y[i] = f(x[i]) over 1024 elements in L1, "
          "less the loop alone";
    if (!Dropped.empty())
      OS << "; not stated (timed at no cost beside the loop: disturbed): " << Dropped;
    OS << "\n";
  }
  if (!Calls.empty())
    OS << "  call_cy: {" << Calls << "}\n";
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
}

/// An instruction override the probe measured.
struct OverrideEntry {
  std::string Form;
  const Measured *Latency = nullptr, *Throughput = nullptr;
  std::map<std::string, double> Ports; ///< LLVM's resources, scaled to the measurement
};

const std::string ScalarFmaGlob = "\"vf*[0-9]s[sd] \"";

/// Measured latencies and divider throughputs (on the resource LLVM's model
/// charges them to): the scheduling models of new cores often carry an
/// older core's figures.
std::vector<OverrideEntry> measuredOverrides(const ProbeResult &R, const FormPorts &LlvmCosts) {
  using Entry = OverrideEntry;
  std::vector<Entry> Entries;
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
    if (P.Isa != VectorIsa::Scalar || !P.Fma || P.DoubleFlopsPerCycle.Median <= 0 || Llvm <= 0)
      continue;
    double Cycles = 2 / P.DoubleFlopsPerCycle.Median;
    if (std::fabs(Cycles - Llvm) <= 0.1 * Llvm)
      continue;
    Entry &E = At(ScalarFmaGlob);
    E.Throughput = &P.DoubleFlopsPerCycle;
    E.Ports = Scaled(ScalarFmaForm, Cycles);
  }
  // Where 8 FP stores slow 24 FMAs beyond either alone, they share a slot
  // LLVM does not know: each FMA takes (trip - 8 stores) / 24 of the
  // store's resource (Zen 3: 0.5; docs/machine-model.md, instruction_overrides).
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
  return Entries;
}

/// instruction_overrides: each measured form with its latency and ports.
void writeOverrides(llvm::raw_ostream &OS, const ProbeResult &R,
                    const std::vector<OverrideEntry> &Entries) {
  if (!Entries.empty())
    OS << "  # latencies of dependent scalar chains; dividers and shuffles: reciprocal\n"
          "  # throughput of 8 independent operations; scalar FMA: the peak kernel's;\n"
          "  # FMAs on the FP store's resource: 24 FMAs beside 8 stores\n"
          "  instruction_overrides:\n";
  for (const OverrideEntry &E : Entries) {
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
}

} // namespace

/// The line-split costs, latencies and divider throughputs measured, as
/// `core` keys; true when instruction_overrides were written.
bool writeMeasuredCosts(llvm::raw_ostream &OS, const ProbeResult &R,
                        const FormPorts &LlvmCosts, const MachineModel *Base) {
  writeMeasuredCoreKeys(OS, R, Base);
  std::vector<OverrideEntry> Entries = measuredOverrides(R, LlvmCosts);
  writeOverrides(OS, R, Entries);
  return !Entries.empty();
}

} // namespace perfmodel::probe_writer

//===- Report.cpp - The text view of an analysis --------------------------===//
//
// Numbers, sizes and tables as the views print them, and the analysis
// as text: per loop its nest, accesses, in-core costs, traffic and each
// model's prediction with its bottleneck and advice; the machine as text.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Report.h"
#include "ViewHelpers.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace perfmodel;
using namespace perfmodel::views;

std::string perfmodel::formatSeconds(double S) {
  if (S >= 1)
    return formatNumber(S) + " s";
  if (S >= 1e-3)
    return formatNumber(S * 1e3) + " ms";
  return formatNumber(S * 1e6) + " us";
}


namespace {
struct FormatEntry {
  ReportFormat Format;
  const char *Name;
  void (*Print)(llvm::raw_ostream &, const AnalysisReport &); ///< null: not an analysis view
};
constexpr FormatEntry Formats[] = {
    {ReportFormat::Text, "text", printText},      {ReportFormat::Brief, "brief", printBrief},
    {ReportFormat::Json, "json", printJSON},      {ReportFormat::Sarif, "sarif", printSARIF},
    {ReportFormat::Svg, "svg", printRooflineSVG}, {ReportFormat::Html, "html", printHTML},
    {ReportFormat::Markdown, "markdown", nullptr}};
} // namespace

const char *perfmodel::reportFormatName(ReportFormat F) {
  for (const FormatEntry &E : Formats)
    if (E.Format == F)
      return E.Name;
  return "text";
}

std::optional<ReportFormat> perfmodel::reportFormatNamed(llvm::StringRef Name) {
  for (const FormatEntry &E : Formats)
    if (Name == E.Name)
      return E.Format;
  return std::nullopt;
}

bool perfmodel::printReport(llvm::raw_ostream &OS, const AnalysisReport &R, ReportFormat F) {
  for (const FormatEntry &E : Formats)
    if (E.Format == F && E.Print) {
      E.Print(OS, R);
      return true;
    }
  return false;
}

std::string perfmodel::views::fromNextBySetText(const CacheLevel &L) {
  std::string S;
  for (const auto &[Set, Rate] : L.FromNextBySet)
    S += (S.empty() ? "" : ", ") + formatNumber(Rate) + (S.empty() ? " B/cy" : "") + " at " +
         formatByteSize(Set);
  return S;
}

const char *perfmodel::views::originName(Parameter::Origin O) {
  switch (O) {
  case Parameter::Origin::CommandLine:
    return "command-line";
  case Parameter::Origin::Source:
    return "source";
  case Parameter::Origin::Default:
    return "default";
  case Parameter::Origin::Derived:
    return "derived";
  }
  return "default";
}


void perfmodel::printTable(llvm::raw_ostream &OS,
                           const std::vector<std::vector<std::string>> &Rows, unsigned Indent,
                           const std::vector<bool> &RightAlign) {
  std::vector<size_t> W;
  for (const auto &Row : Rows)
    for (size_t I = 0; I < Row.size(); ++I) {
      if (W.size() <= I)
        W.push_back(0);
      W[I] = std::max(W[I], Row[I].size());
    }
  std::string Line; // one buffer for every row: a report prints thousands
  for (const auto &Row : Rows) {
    Line.assign(Indent, ' ');
    for (size_t I = 0; I < Row.size(); ++I) {
      bool Right = I < RightAlign.size() && RightAlign[I];
      size_t Pad = W[I] - Row[I].size();
      if (Right)
        Line.append(Pad, ' ');
      Line += Row[I];
      if (I + 1 < Row.size()) {
        if (!Right)
          Line.append(Pad, ' ');
        Line += "  ";
      }
    }
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    OS << Line << "\n";
  }
}

namespace {

std::string flopBreakdown(const FlopCounts &F) {
  std::string S;
  auto Add = [&](unsigned N, const char *What) {
    if (!N)
      return;
    S += (S.empty() ? "" : ", ") + std::to_string(N) + " " + What;
  };
  Add(F.Add, "add");
  Add(F.Mul, "mul");
  Add(F.Div, "div");
  Add(F.Sqrt, "sqrt");
  Add(F.Other, "math call");
  if (F.FmaContractible)
    S += "; " + std::to_string(F.FmaContractible) + " FMA-contractible";
  return S;
}

std::string nestLine(const LoopLevel &L, const std::map<std::string, int64_t> &B) {
  std::string S = "for " + L.Var + " in [" + L.Lower.str() + ", " + L.Upper.str() + ")";
  if (L.Step != 1)
    S += " step " + std::to_string(L.Step);
  if (auto T = tripCount(L, B))
    S += "  (" + std::to_string(*T) + " iterations)";
  if (!L.Pragma.empty())
    S += "  #pragma " + L.Pragma;
  return S;
}

std::string displayPath(const std::string &P) { return P; }

void printTraffic(llvm::raw_ostream &OS, const LoopReport &LR) {
  const TrafficResult *LC = LR.Conditions && LR.Conditions->Ok ? &*LR.Conditions : nullptr;
  const TrafficResult *Sim = LR.Simulated && LR.Simulated->Ok ? &*LR.Simulated : nullptr;
  OS << "    traffic per iteration, beyond L1 (load + evict B/it):\n";
  std::vector<std::vector<std::string>> Rows;
  std::vector<std::string> Head = {"link"};
  if (LC)
    Head.push_back("layer conditions");
  if (Sim) {
    Head.push_back("simulator");
    Head.push_back("misses/it");
  }
  Rows.push_back(Head);
  const TrafficResult *Any = LC ? LC : Sim;
  for (size_t I = 0; Any && I < Any->Links.size(); ++I) {
    std::vector<std::string> Row = {Any->Links[I].Outer + "-" + Any->Links[I].Inner};
    auto Cell = [](const LinkTraffic &L) {
      return formatNumber(L.LoadBytesPerIt) + " + " + formatNumber(L.EvictBytesPerIt);
    };
    if (LC)
      Row.push_back(Cell(LC->Links[I]));
    if (Sim) {
      Row.push_back(Cell(Sim->Links[I]));
      Row.push_back(formatNumber(Sim->MissesPerIt[I]) + " (" + Sim->Links[I].Inner + ")");
    }
    Rows.push_back(Row);
  }
  if (Any)
    printTable(OS, Rows, 6);
  if (LR.Conditions && !LR.Conditions->Ok)
    OS << "    layer conditions: not applied: " << LR.Conditions->Reason << "\n";
  if (LR.Simulated && !LR.Simulated->Ok)
    OS << "    simulator: not run: " << LR.Simulated->Reason << "\n";
  if (LC && LC->Conditions.empty())
    OS << "    layer conditions: none (no access reuses data another brought in)\n";
  if (LC && !LC->Conditions.empty()) {
    OS << "    layer conditions:\n";
    for (const LayerCondition &C : LC->Conditions)
      OS << "      " << C.Level << ": " << C.Text << (C.Holds ? "" : "  [fails here]")
         << "\n";
    for (const std::string &N : LC->Notes)
      OS << "    note: " << N << "\n";
  }
  if (Sim)
    for (const std::string &N : Sim->Notes)
      OS << "    simulator: " << N << "\n";
}


bool NoFlopsOf(const LoopKernel &K) { return K.flops() == 0; }

} // namespace

std::string perfmodel::formatBytes(double B) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned U = 0;
  while (B >= 1024 && U < 4) {
    B /= 1024;
    ++U;
  }
  return formatNumber(B) + " " + Units[U];
}

namespace {

std::string gflops(double V, bool NoFlops) { return NoFlops ? "-" : formatNumber(V); }

void printEcmText(llvm::raw_ostream &OS, const EcmResult &E, bool NoFlops) {
  if (!E.Ok) {
    OS << "    ECM: not modelled: " << E.Reason << "\n";
    return;
  }
  OS << "    ECM (overlap " << overlapRuleName(E.Overlap) << ", " << formatNumber(E.ItersPerCL)
     << " it/CL): " << E.contributions() << " -> " << E.predictions() << "\n";
  std::string Head = "{ T_OL || T_nOL";
  for (const std::string &L : E.Links)
    Head += " | T_" + L;
  OS << "      contributions " << Head << " }; predictions {";
  for (size_t I = 0; I < E.Levels.size(); ++I)
    OS << (I ? " ] " : " ") << E.Levels[I];
  OS << " }\n";
  std::vector<std::vector<std::string>> Rows = {
      {"data in", "cy/CL", "cy/it", "GFLOP/s", "bottleneck"}};
  for (size_t I = 0; I < E.Summary.Levels.size(); ++I) {
    const LevelPrediction &L = E.Summary.Levels[I];
    Rows.push_back({L.Level, formatNumber(E.Predictions[I]), formatNumber(L.CyclesPerIt),
                    gflops(L.GFlops, NoFlops), L.Bottleneck});
  }
  printTable(OS, Rows, 6, {false, true, true, true, false});
  if (E.SaturationCores) {
    OS << "      multicore (data in memory): saturates at n_s = " << E.SaturationCores
       << " core(s)";
    if (!NoFlops)
      OS << ", " << formatNumber(E.SaturatedGFlops) << " GFLOP/s per socket; P(n) =";
    if (!NoFlops)
      for (size_t N = 0; N < E.ScalingGFlops.size() && N < 8; ++N)
        OS << " " << formatNumber(E.ScalingGFlops[N]);
    if (!NoFlops && E.ScalingGFlops.size() > 8)
      OS << " ...";
    OS << "\n";
  }
  for (const std::string &N : E.Notes)
    OS << "      note: " << N << "\n";
}

void printPprText(llvm::raw_ostream &OS, const PprResult &P, bool NoFlops) {
  if (!P.Ok) {
    OS << "    PPR: not modelled: " << P.Reason << "\n";
    return;
  }
  OS << "    PPR: S_DAG(A,M,FMA) " << formatNumber(P.ComputeCy) << " cy/it, S_DAG(L,S) "
     << formatNumber(P.LoadStoreCy) << " cy/it (per it: " << formatNumber(P.A) << " add, "
     << formatNumber(P.M) << " mul, " << formatNumber(P.Fma) << " FMA, "
     << formatNumber(P.L) << " load, " << formatNumber(P.S) << " store instructions)\n";
  std::vector<std::vector<std::string>> Rows = {
      {"data in", "regular B/it", "T_regular", "T_irregular", "cy/it", "GFLOP/s",
       "bottleneck"}};
  for (size_t I = 0; I < P.Levels.size(); ++I) {
    const LevelPrediction &L = P.Summary.Levels[I];
    Rows.push_back({P.Levels[I], formatNumber(P.RegularBytes[I]),
                    formatNumber(P.RegularCy[I]), formatNumber(P.IrregularCy),
                    formatNumber(L.CyclesPerIt), gflops(L.GFlops, NoFlops), L.Bottleneck});
  }
  printTable(OS, Rows, 6, {false, true, true, true, true, true, false});
  for (const std::string &N : P.Notes)
    OS << "      note: " << N << "\n";
}

void printSummaryText(llvm::raw_ostream &OS, const LoopReport &LR) {
  std::vector<const Prediction *> Ps = LR.predictions();
  if (Ps.empty())
    return;
  const std::string &Level = Ps.front()->DataLevel;
  OS << "    prediction";
  if (LR.WorkingSetBytes)
    OS << " (working set " << formatBytes(*LR.WorkingSetBytes) << ", data in " << Level
       << ")";
  else
    OS << " (working set unknown: data in memory assumed)";
  OS << ":\n";
  if (LR.headline())
    OS << "      headline: " << headlineText(LR) << "\n";
  bool NoFlops = LR.Loop->flops() == 0;
  std::vector<std::vector<std::string>> Rows = {
      {"model", "cy/it", "GFLOP/s", "bottleneck"}};
  for (const Prediction *P : Ps) {
    if (!P->Ok) {
      Rows.push_back({P->name(), "-", "-", "not modelled: " + P->Reason});
      continue;
    }
    const LevelPrediction *At = P->atDataLevel();
    Rows.push_back({P->name(), formatNumber(At->CyclesPerIt), gflops(At->GFlops, NoFlops),
                    At->Bottleneck});
  }
  printTable(OS, Rows, 6, {false, true, true, false});
  for (const Prediction *P : Ps)
    if (P->Ok && !P->Advice.empty())
      OS << "      " << P->name() << ": " << P->Advice << "\n";
}
} // namespace

const std::vector<std::string> &perfmodel::views::uncostedCalls(const LoopReport &LR) {
  static const std::vector<std::string> None;
  return LR.InCore && LR.InCore->Ok ? LR.InCore->UncostedCallees : None;
}

std::string perfmodel::headlineText(const LoopReport &LR) {
  const Prediction *P = LR.headline();
  const LevelPrediction *At = LR.headlineLevel();
  if (!P || !At)
    return "";
  std::string S = P->name() + " " + formatNumber(At->CyclesPerIt) + " cy/it";
  if (At->GFlops > 0)
    S += ", " + formatNumber(At->GFlops) + " GFLOP/s";
  S += " with data in " + At->Level + "; bound by " + At->Bottleneck;
  if (const auto &Calls = uncostedCalls(LR); !Calls.empty())
    S += "; a lower bound: the loop calls " + calleesText(Calls) + " every iteration, not costed";
  return S;
}

void perfmodel::printBrief(llvm::raw_ostream &OS, const AnalysisReport &R) {
  for (const LoopReport &LR : R.Loops) {
    const LoopKernel &K = *LR.Loop;
    OS << K.Loc.str() << ": note: perfmodel: " << K.Function << ": ";
    if (!K.Modelled) {
      OS << "not modelled: " << K.Reason << "\n";
      continue;
    }
    const Prediction *P = LR.headline();
    if (!P) {
      OS << "no model succeeded\n";
      continue;
    }
    OS << headlineText(LR) << " (" << R.Machine->Name << ")";
    if (!P->Advice.empty())
      OS << "; " << P->Advice;
    OS << "\n";
  }
  if (R.Loops.empty())
    OS << R.IR->File << ": note: perfmodel: no loops found\n";
}

void perfmodel::printTextTable(llvm::raw_ostream &OS,
                               const std::vector<std::vector<std::string>> &Rows,
                               unsigned Indent, const std::vector<bool> &RightAlign) {
  printTable(OS, Rows, Indent, RightAlign);
}

std::string perfmodel::machineSummary(const MachineModel &M) {
  return M.Name + " (" + llvm::sys::path::filename(M.File).str() + "), " +
         formatNumber(M.ClockGHz) + " GHz, " + M.Cpu;
}

void perfmodel::printText(llvm::raw_ostream &OS, const AnalysisReport &R) {
  const KernelIR &IR = *R.IR;
  const MachineModel &M = *R.Machine;
  OS << "perfmodel analyze " << displayPath(IR.File) << "\n";
  OS << "machine: " << machineSummary(M) << "\n";
  for (const std::string &S : M.Overrides)
    OS << "  hypothetical: --set " << S << "\n";
  if (!IR.Parameters.empty()) {
    OS << "parameters:";
    auto Bound = IR.bindings(); // derived quotients at their parameters' values
    for (const auto &[Name, P] : IR.Parameters)
      OS << " " << Name << "=" << (Bound.count(Name) ? std::to_string(Bound[Name]) : "?") << " ("
         << originName(P.From) << (P.Where.empty() ? "" : " " + P.Where) << ")";
    OS << "\n";
  }
  for (const std::string &N : R.Notes)
    OS << "note: " << N << "\n";
  for (const std::string &N : IR.Notes)
    OS << "note: " << N << "\n";
  if (R.Loops.empty())
    OS << "\nno loops found in " << displayPath(IR.File) << "\n";

  const auto &Bindings = IR.bindings();
  unsigned Id = 0;
  for (const LoopReport &LR : R.Loops) {
    const LoopKernel &K = *LR.Loop;
    OS << "\n[" << ++Id << "] " << K.Loc.str() << "  in " << K.Function << "\n";
    if (!K.Modelled) {
      OS << "    not modelled: " << K.Reason << "\n";
      for (const std::string &N : K.Notes)
        OS << "    note: " << N << "\n";
      continue;
    }
    for (size_t I = 0; I < K.Nest.size(); ++I)
      OS << "    " << (I == 0 ? "nest:  " : "       ") << std::string(2 * I, ' ')
         << nestLine(K.Nest[I], Bindings) << "\n";
    OS << "    flops/it: " << K.flops();
    if (K.Double.total())
      OS << "  double: " << flopBreakdown(K.Double);
    if (K.Single.total())
      OS << "  single: " << flopBreakdown(K.Single);
    OS << "\n";
    if (!K.Reductions.empty()) {
      OS << "    carried: ";
      for (size_t I = 0; I < K.Reductions.size(); ++I)
        OS << (I ? ", " : "") << K.Reductions[I];
      OS << " (reduction across iterations)\n";
    }
    if (!K.Accesses.empty()) {
      std::vector<std::vector<std::string>> Rows = {
          {"access", "mode", "bytes", "array", "offset (elements)", ""}};
      for (const Access &A : K.Accesses) {
        std::string Mode = A.Read && A.Write ? "RW" : A.Write ? "W" : "R";
        std::string Off = A.Linear ? A.Linear->str() : "";
        std::string Extra;
        if (A.Indirect)
          Extra = "indirect via " + A.IndirectVia;
        else if (!A.NonAffine.empty())
          Extra = "not affine";
        Rows.push_back({A.Text, Mode, std::to_string(A.ElementBytes), A.Array, Off, Extra});
      }
      printTable(OS, Rows, 4, {false, false, true, false, false, false});
    }
    if (LR.InCore) {
      if (LR.InCore->Ok)
        printInCoreText(OS, *LR.InCore, 4,
                        R.Machine->Caches.empty() ? 64 : R.Machine->Caches[0].LineBytes);
      else
        OS << "    in-core: not modelled: " << LR.InCore->Reason << "\n";
    }
    if (LR.Conditions || LR.Simulated)
      printTraffic(OS, LR);
    if (LR.Roofline) {
      const RooflineResult &RF = *LR.Roofline;
      const NaiveTraffic &T = RF.Traffic;
      OS << "    bytes/it: " << formatNumber(T.LoadBytes) << " loaded + "
         << formatNumber(T.StoreBytes) << " stored = " << formatNumber(T.l1Bytes())
         << " B at L1";
      if (RF.TrafficModel == TrafficSource::Naive)
        OS << "; " << formatNumber(T.beyondL1Bytes()) << " B beyond L1 with "
           << formatNumber(T.WriteAllocateBytes)
           << " B write-allocate (naive: every reference once, no cache reuse)";
      else
        OS << "; beyond L1 from the " << trafficSourceName(RF.TrafficModel);
      OS << "\n";
      bool NoFlops = RF.FlopsPerIt == 0;
      if (NoFlops)
        OS << "    Roofline (no floating-point work: bounds in cycles per iteration):\n";
      else
        OS << "    Roofline (" << RF.Precision << " peak " << formatNumber(RF.PeakGFlops)
           << " GFLOP/s, ridge " << formatNumber(RF.RidgeIntensity)
           << " flop/B at memory):\n";
      std::vector<std::vector<std::string>> Rows = {{"data in", "link", "B/it", "flop/B",
                                                     "GB/s", "roof GF/s", "bound GF/s",
                                                     "cy/it", "binding"}};
      for (const RooflineLink &L : RF.Levels)
        Rows.push_back({L.Level, L.Link, formatNumber(L.BytesPerIt),
                        formatNumber(L.Intensity), formatNumber(L.BandwidthGBs),
                        formatNumber(L.RoofGFlops), formatNumber(L.BoundGFlops),
                        formatNumber(L.BoundCyclesPerIt), L.Binding});
      printTable(OS, Rows, 6, {false, false, true, true, true, true, true, true, false});
      if (!RF.Levels.empty()) {
        const RooflineLink &Mem = RF.atDataLevel();
        OS << "    bound: data in " << (isMemoryLevel(Mem.Level) ? "memory" : Mem.Level) << " -> ";
        if (NoFlops)
          OS << formatNumber(Mem.BoundCyclesPerIt) << " cy/it, ";
        else
          OS << formatNumber(Mem.BoundGFlops) << " GFLOP/s ("
             << formatNumber(Mem.BoundCyclesPerIt) << " cy/it), ";
        using Limit = RooflineLink::Limit;
        if (Mem.Binds == Limit::ComputePeak)
          OS << "compute-bound (flop peak)";
        else if (Mem.Binds == Limit::FlopMix)
          OS << "compute-bound (the loop's flop mix on the FP pipes)";
        else if (Mem.Binds == Limit::InCore)
          OS << "core-bound (" << (LR.InCore ? inCoreBoundName(LR.InCore->Bottleneck) : "in-core")
             << ", data in L1 would not be faster)";
        else if (Mem.Binds == Limit::Latency)
          OS << "latency-bound (" << Mem.LatencyWhat << ")";
        else
          OS << "bandwidth-bound on " << Mem.Binding;
        OS << "\n";
      }
      if (!NoFlops && RF.Ceilings.size() > 1) {
        OS << "    compute ceilings (GFLOP/s):";
        for (size_t I = 0; I < RF.Ceilings.size(); ++I)
          OS << (I ? ";" : "") << " " << RF.Ceilings[I].Name << " "
             << formatNumber(RF.Ceilings[I].GFlops);
        OS << "\n";
      }
      for (const std::string &N : RF.Notes)
        if (!NoFlops || N.find("no floating-point") == std::string::npos)
          OS << "    note: " << N << "\n";
    }
    if (LR.Ecm)
      printEcmText(OS, *LR.Ecm, NoFlopsOf(K));
    if (LR.Ppr)
      printPprText(OS, *LR.Ppr, NoFlopsOf(K));
    printSummaryText(OS, LR);
    for (const std::string &N : K.Notes)
      OS << "    note: " << N << "\n";
  }
}

void perfmodel::printMachineText(llvm::raw_ostream &OS, const MachineModel &M) {
  OS << M.Name << "\n";
  OS << "  file:        " << M.File << "\n";
  if (!M.Aliases.empty()) {
    OS << "  aliases:    ";
    for (const std::string &A : M.Aliases)
      OS << " " << A;
    OS << "\n";
  }
  OS << "  llvm:        " << M.Triple << ", -mcpu=" << M.Cpu << "\n";
  OS << "  clock:       " << formatNumber(M.ClockGHz) << " GHz";
  if (M.BaseClockGHz)
    OS << " (base " << formatNumber(*M.BaseClockGHz) << " GHz)";
  OS << ", " << M.CoresPerSocket
     << " cores/socket x " << M.Sockets << " socket(s)\n";
  const CoreModel &C = M.Core;
  OS << "  core:        issue " << C.IssueWidth << "/cy, SIMD " << C.SimdBits << " bit";
  if (C.pipeBits() != C.SimdBits)
    OS << " on " << C.pipeBits() << "-bit pipes";
  OS << ", " << C.FmaUnits << " FMA unit(s)\n";
  if (!C.FpUnits.empty()) {
    OS << "  fp pipes:   ";
    for (const FpUnit &U : C.FpUnits) {
      std::string Ops = std::string(U.Fma ? " fma" : "") + (U.Mul ? " mul" : "") +
                        (U.Add ? " add" : "");
      OS << " [" << Ops.substr(1) << "]";
    }
    OS << "\n";
  }
  OS << "  peak:        " << formatNumber(C.PeakFlopsPerCycleDouble) << " DP / "
     << formatNumber(C.PeakFlopsPerCycleSingle) << " SP flop/cy = "
     << formatNumber(C.PeakFlopsPerCycleDouble * M.ClockGHz) << " / "
     << formatNumber(C.PeakFlopsPerCycleSingle * M.ClockGHz) << " GFLOP/s per core\n";
  OS << "  L1 ports:    " << C.LoadsPerCycle << " loads (" << formatNumber(C.LoadBytesPerCycle)
     << " B/cy) + " << C.StoresPerCycle << " store(s) (" << formatNumber(C.StoreBytesPerCycle)
     << " B/cy)";
  if (C.UnalignedVectorCost != 1)
    OS << "; unaligned vector access " << formatNumber(C.UnalignedVectorCost) << " slots";
  OS << "\n";
  if (const std::optional<FrontEndModel> &E = C.FrontEnd) {
    OS << "  front end:   " << E->Decoders << " decoders, " << E->IqSize
       << "-entry instruction queue, rename " << E->IssueWidth << "/cy; ";
    if (E->LsdUops)
      OS << "loop stream detector " << E->LsdUops << " uops";
    else
      OS << "no loop stream detector";
    OS << ", uop cache " << E->DsbWidth << "/cy; store forwarding "
       << formatNumber(E->StoreForward) << " cy"
       << (E->MoveElimination ? ", move elimination" : "") << "\n";
  }
  std::vector<std::vector<std::string>> Rows = {
      {"cache", "size", "ways", "sets", "line", "latency", "from next", "shared", "policy",
       "prefetch"}};
  for (const CacheLevel &L : M.Caches) {
    Rows.push_back({L.Name, formatByteSize(L.SizeBytes), std::to_string(L.Ways),
                    std::to_string(L.sets()), std::to_string(L.LineBytes) + " B",
                    L.LatencyCy > 0 ? formatNumber(L.LatencyCy) + " cy" : "?",
                    L.BytesPerCycleFromNext ? formatNumber(*L.BytesPerCycleFromNext) + " B/cy"
                                            : "-",
                    std::to_string(L.SharedBy), cachePolicyName(L.Policy),
                    prefetchName(L.Prefetch)});
  }
  printTable(OS, Rows, 2);
  for (const CacheLevel &L : M.Caches)
    if (!L.FromNextBySet.empty())
      OS << "  " << L.Name << " from next by working set: " << fromNextBySetText(L) << "\n";
  OS << "  memory:      " << formatNumber(M.Memory.BandwidthGBs) << " GB/s theoretical";
  if (M.Memory.SustainedGBs)
    OS << ", " << formatNumber(*M.Memory.SustainedGBs) << " GB/s sustained";
  if (auto One = M.Memory.oneCoreGBs())
    OS << " (" << formatNumber(*One) << " GB/s by one core: " << M.Memory.oneCoreSource()
       << (M.Memory.OneCoreGBs && M.Memory.LittleGBs
               ? "; Little's law would give " + M.Memory.LittleBasis
               : std::string())
       << (M.Memory.OneCoreWritebackGBs
               ? "; its write-backs " + formatNumber(*M.Memory.OneCoreWritebackGBs) +
                     " GB/s, added"
               : std::string())
       << ")";
  if (M.Memory.Channels)
    OS << ", " << *M.Memory.Channels << " channels";
  if (M.Memory.LatencyNs)
    OS << ", " << formatNumber(*M.Memory.LatencyNs) << " ns";
  if (M.Memory.StrideLatencyNs)
    OS << " (" << formatNumber(*M.Memory.StrideLatencyNs) << " ns for a stride the stream "
       << "prefetcher does not follow)";
  if (M.Memory.CacheLineCy)
    OS << "; a line the L1 takes from a cache beside memory streams adds "
       << formatNumber(*M.Memory.CacheLineCy) << " cy";
  OS << "\n";
  if (M.Tlb) {
    const TlbModel &T = *M.Tlb;
    auto Shape = [](unsigned Entries, unsigned Ways) {
      return std::to_string(Entries) + " entries, " +
             (Ways == Entries ? std::string("fully associative") : std::to_string(Ways) + "-way");
    };
    OS << "  data TLB:    " << Shape(T.Entries, T.Ways) << ", " << formatByteSize(T.PageBytes)
       << " pages; a miss walks the page tables: " << formatNumber(T.LoadMissCy) << " cy a load, "
       << formatNumber(T.StoreMissCy) << " a store";
    if (T.L1Entries)
      OS << "; first level " << Shape(T.L1Entries, T.L1Ways) << ", a miss the last level holds "
         << formatNumber(T.L1LoadMissCy) << " cy of the load/store pipes a load, "
         << formatNumber(T.L1StoreMissCy) << " a store";
    OS << "\n";
  }
  OS << "  ecm overlap: " << overlapRuleName(M.EcmOverlap);
  if (std::string S = M.tnolSerialShareText(); !S.empty())
    OS << "; T_nOL waits for a share of the transfers from " << S;
  for (const auto &[Level, Share] : M.EcmRecurrenceSerialShare)
    OS << "; a loop-carried chain waits for " << formatNumber(Share)
       << " of the smaller of its time and the transfers' with data in " << Level;
  OS << "\n";
  OS << "  sources:\n";
  for (const SourceRef &S : M.Sources)
    OS << "    [" << S.Id << "] " << S.Cite << "\n";
}

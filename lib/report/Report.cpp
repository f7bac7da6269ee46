//===- Report.cpp - Text and JSON views of an analysis -------------------===//
#include "perfmodel/Report.h"
#include "perfmodel/Pipeline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace perfmodel;

std::string perfmodel::formatSeconds(double S) {
  if (S >= 1)
    return formatNumber(S) + " s";
  if (S >= 1e-3)
    return formatNumber(S * 1e3) + " ms";
  return formatNumber(S * 1e6) + " us";
}

std::string perfmodel::formatNumber(double V, int Sig) {
  if (std::isinf(V))
    return V > 0 ? "inf" : "-inf";
  if (std::isnan(V))
    return "n/a";
  if (V == 0)
    return "0";
  double A = std::fabs(V);
  int Digits = A >= 1 ? Sig - 1 - int(std::floor(std::log10(A))) : Sig - 1 - int(std::floor(std::log10(A)));
  Digits = std::max(0, std::min(Digits, 9));
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.*f", Digits, V);
  std::string S = Buf;
  if (S.find('.') != std::string::npos) {
    while (S.back() == '0')
      S.pop_back();
    if (S.back() == '.')
      S.pop_back();
  }
  return S;
}

namespace {

const char *originName(Parameter::Origin O) {
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

} // namespace

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
  for (const auto &Row : Rows) {
    std::string Line(Indent, ' ');
    for (size_t I = 0; I < Row.size(); ++I) {
      bool Right = I < RightAlign.size() && RightAlign[I];
      std::string Pad(W[I] - Row[I].size(), ' ');
      Line += Right ? Pad + Row[I] : Row[I] + (I + 1 < Row.size() ? Pad : "");
      if (I + 1 < Row.size())
        Line += "  ";
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
  OS << "    ECM (overlap " << E.Overlap << ", " << formatNumber(E.ItersPerCL)
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
      Rows.push_back({P->Model, "-", "-", "not modelled: " + P->Reason});
      continue;
    }
    const LevelPrediction *At = P->atDataLevel();
    Rows.push_back({P->Model, formatNumber(At->CyclesPerIt), gflops(At->GFlops, NoFlops),
                    At->Bottleneck});
  }
  printTable(OS, Rows, 6, {false, true, true, false});
  for (const Prediction *P : Ps)
    if (P->Ok && !P->Advice.empty())
      OS << "      " << P->Model << ": " << P->Advice << "\n";
}
} // namespace

/// The calls a loop makes that no model costs: the prediction is a lower
/// bound (none when the in-core model did not run or costs them all).
static const std::vector<std::string> &uncostedCalls(const LoopReport &LR) {
  static const std::vector<std::string> None;
  return LR.InCore && LR.InCore->Ok ? LR.InCore->UncostedCallees : None;
}

std::string perfmodel::headlineText(const LoopReport &LR) {
  const Prediction *P = LR.headline();
  const LevelPrediction *At = LR.headlineLevel();
  if (!P || !At)
    return "";
  std::string S = P->Model + " " + formatNumber(At->CyclesPerIt) + " cy/it";
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

  auto Bindings = IR.bindings();
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
      if (RF.TrafficModel == "naive")
        OS << "; " << formatNumber(T.beyondL1Bytes()) << " B beyond L1 with "
           << formatNumber(T.WriteAllocateBytes)
           << " B write-allocate (naive: every reference once, no cache reuse)";
      else
        OS << "; beyond L1 from the " << RF.TrafficModel;
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
        OS << "    bound: data in " << (Mem.Level == "MEM" ? "memory" : Mem.Level) << " -> ";
        if (NoFlops)
          OS << formatNumber(Mem.BoundCyclesPerIt) << " cy/it, ";
        else
          OS << formatNumber(Mem.BoundGFlops) << " GFLOP/s ("
             << formatNumber(Mem.BoundCyclesPerIt) << " cy/it), ";
        if (Mem.Binding == "compute peak")
          OS << "compute-bound (flop peak)";
        else if (Mem.Binding == "in-core")
          OS << "core-bound (" << (LR.InCore ? LR.InCore->Bottleneck : "in-core")
             << ", data in L1 would not be faster)";
        else if (Mem.Binding == "latency")
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

llvm::json::Value perfmodel::jsonNumber(double V) {
  if (!std::isfinite(V))
    return nullptr;
  // Round to 6 significant digits so golden files do not churn on last bits.
  if (V == 0)
    return 0.0;
  double Scale = std::pow(10.0, 5 - int(std::floor(std::log10(std::fabs(V)))));
  return std::round(V * Scale) / Scale;
}

namespace {

llvm::json::Value num(double V) { return jsonNumber(V); }


llvm::json::Array strings(const std::vector<std::string> &V) {
  llvm::json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

llvm::json::Array numbers(const std::vector<double> &V) {
  llvm::json::Array A;
  for (double D : V)
    A.push_back(num(D));
  return A;
}

llvm::json::Array ceilingsJSON(const RooflineResult &R) {
  llvm::json::Array A;
  for (const ComputeCeiling &C : R.Ceilings)
    A.push_back(llvm::json::Object{{"name", C.Name}, {"gflops", num(C.GFlops)}});
  return A;
}

} // namespace

llvm::json::Value perfmodel::headlineJSON(const LoopReport &LR, const MachineModel &M) {
  const Prediction *P = LR.headline();
  const LevelPrediction *At = LR.headlineLevel();
  if (!P || !At)
    return nullptr;
  llvm::json::Object O{{"model", P->Model},
                       {"data_level", At->Level},
                       {"cy_per_it", num(At->CyclesPerIt)},
                       {"gflops", num(At->GFlops)},
                       {"bottleneck", At->Bottleneck},
                       {"advice", P->Advice},
                       {"promised_gain_cy_per_it", num(promisedGainCyclesPerIt(LR))}};
  // Calls in the loop: the prediction leaves their callees out.
  const std::vector<std::string> &Calls = uncostedCalls(LR);
  O["lower_bound"] = !Calls.empty();
  if (!Calls.empty())
    O["uncosted_calls"] = strings(Calls);
  if (LR.Iterations && M.ClockGHz > 0)
    O["seconds"] = num(At->CyclesPerIt * *LR.Iterations / (M.ClockGHz * 1e9));
  else
    O["seconds"] = nullptr;
  return O;
}

namespace {

llvm::json::Object predictionJSON(const Prediction &P) {
  llvm::json::Object O{{"model", P.Model}, {"ok", P.Ok}};
  if (!P.Ok) {
    O["reason"] = P.Reason;
    return O;
  }
  llvm::json::Array Levels;
  for (const LevelPrediction &L : P.Levels)
    Levels.push_back(llvm::json::Object{{"level", L.Level},
                                        {"cy_per_it", num(L.CyclesPerIt)},
                                        {"gflops", num(L.GFlops)},
                                        {"bottleneck", L.Bottleneck}});
  O["levels"] = std::move(Levels);
  O["data_level"] = P.DataLevel;
  O["advice"] = P.Advice;
  return O;
}

llvm::json::Object ecmJSON(const EcmResult &E) {
  llvm::json::Object O{{"ok", E.Ok}};
  if (!E.Ok) {
    O["reason"] = E.Reason;
    return O;
  }
  O["overlap"] = E.Overlap;
  O["iterations_per_cl"] = num(E.ItersPerCL);
  O["t_ol"] = num(E.TOL);
  O["t_nol"] = num(E.TnOL);
  O["incore_estimated"] = E.InCoreEstimated;
  O["links"] = strings(E.Links);
  O["transfers_cy_per_cl"] = numbers(E.Transfers);
  O["latency_cy_per_cl"] = numbers(E.Latency);
  O["levels"] = strings(E.Levels);
  O["predictions_cy_per_cl"] = numbers(E.Predictions);
  O["notation"] = E.contributions() + " -> " + E.predictions();
  O["saturation_cores"] = E.SaturationCores;
  O["saturated_gflops"] = num(E.SaturatedGFlops);
  O["scaling_gflops"] = numbers(E.ScalingGFlops);
  O["notes"] = strings(E.Notes);
  return O;
}

llvm::json::Object pprJSON(const PprResult &P) {
  llvm::json::Object O{{"ok", P.Ok}};
  if (!P.Ok) {
    O["reason"] = P.Reason;
    return O;
  }
  O["instructions_per_it"] = llvm::json::Object{{"add", num(P.A)}, {"mul", num(P.M)},
                                                {"fma", num(P.Fma)}, {"load", num(P.L)},
                                                {"store", num(P.S)}};
  O["s_dag_compute"] = num(P.ComputeCy);
  O["s_dag_load_store"] = num(P.LoadStoreCy);
  O["levels"] = strings(P.Levels);
  O["regular_bytes_per_it"] = numbers(P.RegularBytes);
  O["t_regular"] = numbers(P.RegularCy);
  O["t_irregular"] = num(P.IrregularCy);
  O["cy_per_it"] = numbers(P.TotalCy);
  O["notes"] = strings(P.Notes);
  return O;
}

llvm::json::Object flopsJSON(const FlopCounts &F) {
  return llvm::json::Object{{"add", F.Add},     {"mul", F.Mul},
                            {"div", F.Div},     {"sqrt", F.Sqrt},
                            {"other", F.Other}, {"fma_contractible", F.FmaContractible},
                            {"total", F.total()}};
}

llvm::json::Object trafficJSON(const TrafficResult &T) {
  using llvm::json::Array;
  using llvm::json::Object;
  Object O{{"ok", T.Ok}};
  if (!T.Ok) {
    O["reason"] = T.Reason;
    return O;
  }
  Array Links;
  for (size_t I = 0; I < T.Links.size(); ++I) {
    const LinkTraffic &L = T.Links[I];
    Object LO{{"inner", L.Inner},
              {"outer", L.Outer},
              {"load_bytes_per_it", num(L.LoadBytesPerIt)},
              {"evict_bytes_per_it", num(L.EvictBytesPerIt)}};
    if (I < T.MissesPerIt.size())
      LO["misses_per_it"] = num(T.MissesPerIt[I]);
    Links.push_back(std::move(LO));
  }
  O["links"] = std::move(Links);
  Array Conds;
  for (const LayerCondition &C : T.Conditions) {
    Object CO{{"level", C.Level}, {"text", C.Text}, {"holds", C.Holds}};
    if (C.Limit) {
      CO["param"] = C.Param;
      CO["limit"] = *C.Limit;
    }
    Conds.push_back(std::move(CO));
  }
  if (!T.Conditions.empty())
    O["conditions"] = std::move(Conds);
  if (T.SimulatedIterations)
    O["simulated_iterations"] = T.SimulatedIterations;
  Array Notes;
  for (const std::string &N : T.Notes)
    Notes.push_back(N);
  O["notes"] = std::move(Notes);
  return O;
}

llvm::json::Object locJSON(const SourceLoc &L) {
  return llvm::json::Object{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

} // namespace

void perfmodel::printJSON(llvm::raw_ostream &OS, const AnalysisReport &R) {
  using llvm::json::Array;
  using llvm::json::Object;
  using llvm::json::Value;
  const KernelIR &IR = *R.IR;
  const MachineModel &M = *R.Machine;
  auto Bindings = IR.bindings();

  Array Params;
  for (const auto &[Name, P] : IR.Parameters) {
    Object O{{"name", Name}, {"origin", originName(P.From)}};
    O["value"] = Bindings.count(Name) ? Value(Bindings.at(Name)) : Value(nullptr);
    if (!P.Where.empty())
      O["where"] = P.Where;
    Params.push_back(std::move(O));
  }
  Array Notes;
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  for (const std::string &N : IR.Notes)
    Notes.push_back(N);

  // Arrays are reserved where they grow big: json::Value's move may throw,
  // so a growing vector copies every element it holds.
  Array Loops;
  Loops.reserve(R.Loops.size());
  unsigned Id = 0;
  for (const LoopReport &LR : R.Loops) {
    const LoopKernel &K = *LR.Loop;
    Object L{{"id", ++Id},
             {"function", K.Function},
             {"location", locJSON(K.Loc)},
             {"modelled", K.Modelled}};
    L["reason"] = K.Modelled ? Value(nullptr) : Value(K.Reason);
    Array Nest;
    for (const LoopLevel &LL : K.Nest) {
      Object N{{"var", LL.Var},
               {"lower", LL.Lower.str()},
               {"upper", LL.Upper.str()},
               {"step", LL.Step},
               {"location", locJSON(LL.Loc)}};
      auto TC = tripCount(LL, Bindings);
      N["trip_count"] = TC ? Value(*TC) : Value(nullptr);
      N["pragma"] = LL.Pragma.empty() ? Value(nullptr) : Value(LL.Pragma);
      N["exit"] = LL.Exit.empty() ? Value(nullptr) : Value(LL.Exit);
      Nest.push_back(std::move(N));
    }
    L["nest"] = std::move(Nest);
    if (K.Modelled) {
      L["flops"] = Object{{"total", K.flops()},
                          {"double", flopsJSON(K.Double)},
                          {"single", flopsJSON(K.Single)}};
      Array Acc;
      Acc.reserve(K.Accesses.size());
      for (const Access &A : K.Accesses) {
        Array Subs;
        for (const Poly &P : A.Subscripts)
          Subs.push_back(P.str());
        Object O{{"array", A.Array},     {"text", A.Text},
                 {"read", A.Read},       {"write", A.Write},
                 {"bytes", A.ElementBytes}, {"stride_bytes", A.StrideBytes},
                 {"field_offset", A.FieldOffset}, {"subscripts", std::move(Subs)},
                 {"indirect", A.Indirect}, {"location", locJSON(A.Loc)}};
        O["linear"] = A.Linear ? Value(A.Linear->str()) : Value(nullptr);
        O["indirect_via"] = A.Indirect ? Value(A.IndirectVia) : Value(nullptr);
        O["non_affine"] = A.NonAffine.empty() ? Value(nullptr) : Value(A.NonAffine);
        Acc.push_back(std::move(O));
      }
      L["accesses"] = std::move(Acc);
      Array Red;
      for (const std::string &S : K.Reductions)
        Red.push_back(S);
      L["reductions"] = std::move(Red);
    }
    if (LR.Roofline) {
      const RooflineResult &RF = *LR.Roofline;
      Object Tr{{"model", RF.TrafficModel},
                {"load_bytes", num(RF.Traffic.LoadBytes)},
                {"store_bytes", num(RF.Traffic.StoreBytes)},
                {"write_allocate_bytes", num(RF.Traffic.WriteAllocateBytes)}};
      if (LR.Conditions)
        Tr["layer_conditions"] = trafficJSON(*LR.Conditions);
      if (LR.Simulated)
        Tr["simulator"] = trafficJSON(*LR.Simulated);
      L["traffic"] = std::move(Tr);
      if (LR.InCore)
        L["incore"] = inCoreJSON(*LR.InCore);
      Array Levels;
      for (const RooflineLink &X : RF.Levels)
        Levels.push_back(Object{{"level", X.Level},
                                {"link", X.Link},
                                {"bytes_per_it", num(X.BytesPerIt)},
                                {"intensity", num(X.Intensity)},
                                {"bandwidth_gbs", num(X.BandwidthGBs)},
                                {"link_cy_per_it", num(X.CyclesPerIt)},
                                {"roof_gflops", num(X.RoofGFlops)},
                                {"bound_gflops", num(X.BoundGFlops)},
                                {"bound_cy_per_it", num(X.BoundCyclesPerIt)},
                                {"binding", X.Binding}});
      Array RN;
      for (const std::string &N : RF.Notes)
        RN.push_back(N);
      L["roofline"] = Object{{"precision", RF.Precision},
                             {"incore_cy_per_it", num(RF.InCoreCyclesPerIt)},
                             {"incore_gflops", num(RF.InCoreGFlops)},
                             {"flops_per_it", num(RF.FlopsPerIt)},
                             {"peak_gflops", num(RF.PeakGFlops)},
                             {"ridge_intensity", num(RF.RidgeIntensity)},
                             {"levels", std::move(Levels)},
                             {"ceilings", ceilingsJSON(RF)},
                             {"cores", RF.Cores},
                             {"notes", std::move(RN)}};
    }
    if (LR.Ecm)
      L["ecm"] = ecmJSON(*LR.Ecm);
    if (LR.Ppr)
      L["ppr"] = pprJSON(*LR.Ppr);
    if (K.Modelled) {
      L["working_set_bytes"] = LR.WorkingSetBytes ? num(*LR.WorkingSetBytes) : Value(nullptr);
      Array Ps;
      for (const Prediction *P : LR.predictions())
        Ps.push_back(predictionJSON(*P));
      L["predictions"] = std::move(Ps);
      L["iterations"] = LR.Iterations ? num(*LR.Iterations) : Value(nullptr);
      if (LR.Tlb)
        L["tlb"] = LR.Tlb->Ok ? Value(Object{{"load_misses_per_it", num(LR.Tlb->LoadsPerIt)},
                                             {"store_misses_per_it", num(LR.Tlb->StoresPerIt)},
                                             {"cycles_per_it", num(LR.Tlb->CyclesPerIt)},
                                             {"l1_load_misses_per_it", num(LR.Tlb->L1LoadsPerIt)},
                                             {"l1_store_misses_per_it", num(LR.Tlb->L1StoresPerIt)},
                                             {"l1_cycles_per_it", num(LR.Tlb->L1CyclesPerIt)}})
                              : Value(Object{{"reason", LR.Tlb->Reason}});
      L["prediction"] = headlineJSON(LR, M);
    }
    Array LN;
    for (const std::string &N : K.Notes)
      LN.push_back(N);
    L["notes"] = std::move(LN);
    Loops.push_back(std::move(L));
  }

  Array Sets;
  for (const std::string &S : M.Overrides)
    Sets.push_back(S);
  Object Root{{"schema", "perfmodel-analysis"},
              {"version", JsonSchemaVersion},
              {"file", IR.File},
              {"machine", Object{{"name", M.Name},
                                 {"file", M.File},
                                 {"llvm_cpu", M.Cpu},
                                 {"clock_ghz", num(M.ClockGHz)},
                                 {"overrides", std::move(Sets)}}},
              {"parameters", std::move(Params)},
              {"notes", std::move(Notes)},
              {"loops", std::move(Loops)}};
  OS << llvm::formatv("{0:2}", Value(std::move(Root))) << "\n";
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
  OS << "  ecm overlap: " << M.EcmOverlap << "\n";
  OS << "  sources:\n";
  for (const SourceRef &S : M.Sources)
    OS << "    [" << S.Id << "] " << S.Cite << "\n";
}

namespace {

/// Where the loop's streams start and what their line splits cost: "a, b
/// at 16 B (assumed: --assume-align), c at 64 B (declared); 1/4 of the
/// 32-byte loads and stores cross a line, 2 slots each".
std::string alignmentText(const InCoreResult &R) {
  const LineSplits &S = R.Splits;
  if (S.Streams.empty())
    return ""; // no contiguous stream: gathers, strides, scalars
  std::vector<std::pair<std::string, std::string>> Groups; // (what, arrays)
  for (const LineSplits::Stream &St : S.Streams) {
    std::string What = St.AlignBytes == 0 ? "aligned by its intrinsics"
                       : "at " + std::to_string(St.AlignBytes) + " B" +
                             (St.Declared ? " (declared)" : " (assumed; --assume-align)");
    auto It = std::find_if(Groups.begin(), Groups.end(),
                           [&](const auto &G) { return G.first == What; });
    if (It == Groups.end())
      Groups.push_back({What, St.Array});
    else if (("," + It->second + ",").find("," + St.Array + ",") == std::string::npos)
      It->second += "," + St.Array;
  }
  std::string Out;
  for (const auto &[What, Arrays] : Groups) {
    std::string List = Arrays;
    for (size_t P = 0; (P = List.find(',', P)) != std::string::npos; P += 2)
      List.replace(P, 1, ", ");
    Out += (Out.empty() ? "" : "; ") + List + " " + What;
  }
  // The widest vector access of the machine loop decides the figure shown.
  unsigned W = 0;
  llvm::StringRef Widest;
  for (const InstrCost &C : R.Instrs) {
    llvm::StringRef T(C.Text);
    unsigned X = T.contains("zmmword ptr") ? 64u : T.contains("ymmword ptr") ? 32u
                 : T.contains("xmmword ptr") ? 16u : 0u;
    if (X > W)
      W = X, Widest = T;
  }
  if (!W)
    return ""; // scalar accesses of naturally aligned elements do not split
  unsigned Part = 0;
  double LoadFrac = S.fractionOf(Widest, false, &Part), StoreFrac = S.fractionOf(Widest, true);
  std::string Width = std::to_string(W) + "-byte";
  if (Part < W) // wider accesses split in their parts
    Width = std::to_string(Part) + "-byte parts of the " + Width;
  if (!S.LoadCost && !S.StoreCost)
    return Out + "; line splits free (the machine file gives no core.line_split_*_cost)";
  char Buf[200];
  snprintf(Buf, sizeof(Buf),
           "; %s of the %s loads and %s of the stores cross a cache line (%s and %s slots "
           "each)",
           (formatNumber(100 * LoadFrac) + " %").c_str(), Width.c_str(),
           (formatNumber(100 * StoreFrac) + " %").c_str(),
           S.LoadCost ? formatNumber(S.LoadCost).c_str() : "1",
           S.StoreCost ? formatNumber(S.StoreCost).c_str() : "1");
  return Out + Buf;
}

} // namespace

void perfmodel::printInCoreText(llvm::raw_ostream &OS, const InCoreResult &R,
                                unsigned Indent, unsigned LineBytes) {
  std::string Pad(Indent, ' ');
  double K = R.SourceItersPerIter > 0 ? R.SourceItersPerIter : 1;
  bool Source = R.Basis == "source";
  OS << Pad << "in-core ("
     << (Source ? "source as written on the machine file's " + R.Cpu + " ports" : R.Cpu)
     << ", data in L1): " << formatNumber(R.Cycles)
     << (Source ? " cy per iteration" : " cy per machine iteration");
  if (!Source && (K != 1 || R.BytesPerSourceIt > 0))
    OS << " = " << formatNumber(R.Cycles / K) << " cy/it (" << formatNumber(K)
       << " source iterations per trip)";
  if (LineBytes && R.BytesPerSourceIt > 0)
    OS << ", " << formatNumber(R.Cycles / K * LineBytes / R.BytesPerSourceIt) << " cy/CL";
  OS << "\n";
  const NestResult &E = R.Executed;
  if (E.Ok) {
    OS << Pad << "  as executed: " << formatNumber(E.Cycles) << " cy/it = body "
       << formatNumber(E.Body) << " + remainder " << formatNumber(E.Remainder)
       << (E.PerCall ? " + call code " : " + outer code ") << formatNumber(E.Overhead)
       << (E.Joins > 0 ? " + joins " + formatNumber(E.Joins) : std::string())
       << (E.Overlap > 0 || E.Joins == 0 ? " - overlap " + formatNumber(E.Overlap) : std::string())
       << " (" << formatNumber(E.TripsPerOuter)
       << (E.PerCall ? " iterations per call" : " iterations per outer iteration");
    if (E.Copies > 1)
      OS << ", " << E.Copies << " outer iterations per trip";
    if (E.Rob)
      OS << ", " << E.Rob << "-uop reorder buffer";
    if (E.LoadQueue)
      OS << ", " << E.LoadQueue << "-load queue";
    if (E.StoreQueue)
      OS << ", " << E.StoreQueue << "-store queue";
    OS << "); the body's steady state alone: " << formatNumber(E.Steady) << " cy/it\n";
  } else if (!Source && !E.Reason.empty()) {
    OS << Pad << "  steady state of the machine loop (not the nest as executed: " << E.Reason
       << ")\n";
  }
  if (!R.MachineLoop.empty())
    OS << Pad << "  machine loop: " << R.MachineLoop
       << (E.Ok && !E.Where.empty() ? "; enclosing: " + E.Where : std::string()) << "\n";
  if (std::string A = Source ? "" : alignmentText(R); !A.empty())
    OS << Pad << "  alignment: " << A << "\n";
  OS << Pad << "  bounds: ports " << formatNumber(R.PortBound) << " | front end "
     << formatNumber(R.FrontEndBound) << " (" << R.Uops << " uops) | recurrence "
     << formatNumber(R.RecurrenceBound);
  // As executed, the recurrence is what one execution of the nest carries
  // into the next; the body's own chain binds within it.
  if (const NestResult &E = R.Executed;
      E.Ok && E.SteadyRecurrence > R.RecurrenceBound * 1.01 &&
      E.SteadyRecurrence > 0.5 * std::max(R.PortBound, R.FrontEndBound))
    OS << " across executions (" << formatNumber(E.SteadyRecurrence) << " within the body)";
  OS << "  -> " << R.Bottleneck;
  if (!Source)
    OS << " (the body's list schedule: " << formatNumber(R.ScheduledCycles) << ")";
  OS << "; ECM T_OL " << formatNumber(R.TOL) << ", T_nOL " << formatNumber(R.TnOL)
     << (Source ? " cy per iteration\n" : " cy per machine iteration\n");
  // Port pressure per instruction, only the ports in use.
  std::vector<size_t> Used;
  for (size_t P = 0; P < R.PortLoad.size(); ++P)
    if (R.PortLoad[P] > 1e-9)
      Used.push_back(P);
  std::vector<std::vector<std::string>> Rows;
  std::vector<std::string> Head = {"uops", Source ? "" : "lat"};
  for (size_t P : Used)
    Head.push_back(R.Ports[P]);
  Head.push_back("instruction");
  Rows.push_back(Head);
  for (size_t I = 0; I < R.Instrs.size(); ++I) {
    const InstrCost &C = R.Instrs[I];
    bool OnChain =
        std::find(R.CriticalChain.begin(), R.CriticalChain.end(), I) != R.CriticalChain.end();
    std::vector<std::string> Row = {std::to_string(C.Uops),
                                    Source ? "" : formatNumber(C.Latency)};
    for (size_t P : Used)
      Row.push_back(C.PortCycles.size() > P && C.PortCycles[P] > 1e-9
                        ? formatNumber(C.PortCycles[P], 2)
                        : "");
    Row.push_back((OnChain ? "* " : "  ") + C.Text +
                  (C.Line ? "  ; line " + std::to_string(C.Line) : ""));
    Rows.push_back(Row);
  }
  std::vector<std::string> Total = {std::to_string(R.Uops), ""};
  for (size_t P : Used)
    Total.push_back(formatNumber(R.PortLoad[P], 3));
  Total.push_back("  total per iteration");
  Rows.push_back(Total);
  std::vector<bool> Right(Head.size(), true);
  Right.back() = false;
  printTable(OS, Rows, Indent + 2, Right);
  if (!R.CriticalChain.empty())
    OS << Pad << "  * loop-carried critical chain: "
       << formatNumber(E.Ok ? E.SteadyRecurrence : R.RecurrenceBound) << " cy per iteration"
       << (E.Ok ? " of the body\n" : "\n");
  OS << Pad << "  bottleneck: " << R.Advice << "\n";
  for (const std::string &N : R.Notes)
    OS << Pad << "  note: " << N << "\n";
}

llvm::json::Object perfmodel::inCoreJSON(const InCoreResult &R) {
  using llvm::json::Array;
  using llvm::json::Object;
  Object O{{"ok", R.Ok}, {"cpu", R.Cpu}, {"basis", R.Basis}};
  if (!R.Ok) {
    O["reason"] = R.Reason;
    return O;
  }
  Array Ports, Instrs, Notes, Chain;
  Instrs.reserve(R.Instrs.size());
  for (size_t P = 0; P < R.Ports.size(); ++P)
    if (R.PortLoad[P] > 1e-9)
      Ports.push_back(Object{{"port", R.Ports[P]}, {"cycles", num(R.PortLoad[P])}});
  for (const InstrCost &C : R.Instrs) {
    Object P;
    for (size_t I = 0; I < C.PortCycles.size(); ++I)
      if (C.PortCycles[I] > 1e-9)
        P[R.Ports[I]] = num(C.PortCycles[I]);
    Object I{{"text", C.Text}, {"line", C.Line}, {"uops", C.Uops}, {"latency", num(C.Latency)}};
    I["ports"] = std::move(P); // not in the list above: it would be copied
    Instrs.push_back(std::move(I));
  }
  for (unsigned I : R.CriticalChain)
    Chain.push_back(I);
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  O["machine_loop"] = R.MachineLoop;
  O["cy_per_machine_iteration"] = num(R.Cycles);
  O["source_iterations_per_trip"] = num(R.SourceItersPerIter);
  O["cy_per_it"] = num(R.Cycles / (R.SourceItersPerIter > 0 ? R.SourceItersPerIter : 1));
  O["bounds"] = Object{{"ports", num(R.PortBound)},
                       {"front_end", num(R.FrontEndBound)},
                       {"recurrence", num(R.RecurrenceBound)},
                       {"list_schedule", num(R.ScheduledCycles)}};
  if (R.DecodeBound > 0) // unrolled code on an Intel core: its legacy decoders
    (*O["bounds"].getAsObject())["decode"] = num(R.DecodeBound);
  if (R.Basis != "source" && !R.Splits.Streams.empty()) {
    const LineSplits &S = R.Splits;
    Array Streams;
    for (const LineSplits::Stream &St : S.Streams)
      Streams.push_back(Object{{"array", St.Array},
                               {"reference", St.Text},
                               {"align_bytes", St.AlignBytes},
                               {"declared", St.Declared},
                               {"split_fraction_32b", num(St.Split32)}});
    auto Fractions = [&](const std::map<unsigned, double> &F) {
      Object Out;
      for (const auto &[W, V] : F)
        Out[std::to_string(W)] = num(V);
      return Out;
    };
    O["alignment"] = Object{{"assumed_bytes", S.AssumedAlign},
                            {"line_split_load_cost", num(S.LoadCost)},
                            {"line_split_store_cost", num(S.StoreCost)},
                            {"load_split_fraction", Fractions(S.Load)},
                            {"store_split_fraction", Fractions(S.Store)},
                            {"streams", std::move(Streams)}};
  }
  if (R.Basis != "source") {
    const NestResult &E = R.Executed;
    Object N{{"ok", E.Ok}};
    if (!E.Ok) {
      N["reason"] = E.Reason;
    } else {
      Array Runs;
      for (const auto &[Iters, Trips] : E.Runs)
        Runs.push_back(Object{{"source_iterations_per_trip", num(Iters)}, {"trips", num(Trips)}});
      N["cy_per_it"] = num(E.Cycles);
      N["body"] = num(E.Body);
      N["remainder"] = num(E.Remainder);
      N["outer_code"] = num(E.Overhead);
      N["overlap"] = num(E.Overlap);
      N["joins"] = num(E.Joins);
      N["steady_cy_per_it"] = num(E.Steady);
      N["iterations_per_outer_iteration"] = num(E.TripsPerOuter);
      N["per_call"] = E.PerCall;
      N["outer_iterations_per_trip"] = E.Copies;
      N["reorder_buffer"] = E.Rob;
      if (E.LoadQueue)
        N["load_queue"] = E.LoadQueue;
      if (E.StoreQueue)
        N["store_queue"] = E.StoreQueue;
      N["enclosing_machine_loop"] = E.Where;
      N["machine_loops"] = std::move(Runs);
    }
    O["nest"] = std::move(N);
  }
  O["bottleneck"] = R.Bottleneck;
  O["advice"] = R.Advice;
  O["uops"] = R.Uops;
  O["t_ol"] = num(R.TOL);
  O["t_nol"] = num(R.TnOL);
  O["port_pressure"] = std::move(Ports);
  O["instructions"] = std::move(Instrs);
  O["critical_chain"] = std::move(Chain);
  O["notes"] = std::move(Notes);
  return O;
}

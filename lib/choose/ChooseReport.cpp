//===- ChooseReport.cpp - Text and JSON views of a choice ------------------===//
//
// Text and JSON of a choice: the BCSR candidates ranked by predicted time
// (pruned ones as lower bounds), and the variants' predictions per size with
// the sizes where the winner changes, predicted and measured.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Choose.h"
#include "perfmodel/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace perfmodel;

namespace {

std::string shape(const BcsrCandidate &C) {
  return std::to_string(C.R) + "x" + std::to_string(C.C);
}

} // namespace

void perfmodel::printBcsrChoice(llvm::raw_ostream &OS, const BcsrChoice &Ch,
                                const MachineModel &M) {
  OS << "perfmodel choose bcsr " << Ch.Matrix << "\n";
  OS << "machine: " << machineSummary(M) << "\n";
  OS << "matrix: " << Ch.Rows << " x " << Ch.Cols << ", " << Ch.Nonzeros << " nonzeros\n";
  OS << "model: " << rankingModelName(Ch.Model) << " on simulated traffic (an SpMV repeated: warm caches)\n";
  std::vector<std::vector<std::string>> Rows = {{"rank", "block", "blocks", "fill", "cy/block",
                                                 "in-core", "mem B/block", "time/SpMV",
                                                 "GFLOP/s", "bottleneck"}};
  const BcsrCandidate *Csr = nullptr;
  size_t Rank = 0, Shown = 0;
  for (const BcsrCandidate &C : Ch.Candidates) {
    ++Rank;
    bool IsCsr = C.R == 1 && C.C == 1;
    if (IsCsr)
      Csr = &C;
    // The ten best, then CSR wherever it ranks, then the failures.
    if (Shown >= 10 && !IsCsr && C.Ok)
      continue;
    ++Shown;
    if (!C.Ok) {
      Rows.push_back({"-", shape(C), std::to_string(C.Blocks), formatNumber(C.Fill), "", "",
                      "", "", "", "not predicted: " + C.Reason});
      continue;
    }
    if (C.Pruned) {
      Rows.push_back({std::to_string(Rank), shape(C), std::to_string(C.Blocks),
                      formatNumber(C.Fill), ">= " + formatNumber(C.CyclesPerBlock), "", "",
                      ">= " + formatNumber(C.Seconds * 1e6) + " us",
                      "<= " + formatNumber(C.GFlops), C.Bottleneck});
      continue;
    }
    Rows.push_back({std::to_string(Rank), shape(C), std::to_string(C.Blocks),
                    formatNumber(C.Fill), formatNumber(C.CyclesPerBlock),
                    formatNumber(C.InCoreCyclesPerBlock), formatNumber(C.MemoryBytesPerBlock),
                    formatNumber(C.Seconds * 1e6) + " us", formatNumber(C.GFlops),
                    C.Bottleneck});
  }
  printTable(OS, Rows, 2, {true, false, true, true, true, true, true, true, true, false});
  if (Rank > Shown)
    OS << "  (" << Rank - Shown << " more in --format json)\n";
  if (const BcsrCandidate *Best = Ch.chosen()) {
    OS << "chosen: " << shape(*Best) << ", " << formatNumber(Best->GFlops) << " GFLOP/s";
    if (Csr && Csr->Ok)
      OS << ", predicted " << formatNumber(Ch.SpeedupOverCsr) << "x the speed of CSR (1x1, "
         << formatNumber(Csr->GFlops) << " GFLOP/s)";
    OS << "\n";
  }
  OS << "analysis: " << formatNumber(Ch.AnalysisSeconds) << " s for " << Ch.Candidates.size()
     << " candidates";
  if (const BcsrCandidate *Best = Ch.chosen())
    OS << " (" << formatNumber(Ch.AnalysisSeconds / Best->Seconds) << " predicted SpMVs)";
  OS << "\n";
  for (const std::string &N : Ch.Notes)
    OS << "note: " << N << "\n";
}

void perfmodel::printBcsrChoiceJSON(llvm::raw_ostream &OS, const BcsrChoice &Ch,
                                    const MachineModel &M) {
  using namespace llvm::json;
  Array Cands;
  for (const BcsrCandidate &C : Ch.Candidates) {
    Object O{{"r", C.R}, {"c", C.C}, {"blocks", C.Blocks}, {"fill", jsonNumber(C.Fill)},
             {"ok", C.Ok}};
    if (C.Ok) {
      O["pruned"] = C.Pruned;
      O["lower_bound_seconds"] = jsonNumber(C.LowerBoundSeconds);
      O["cy_per_block"] = jsonNumber(C.CyclesPerBlock);
      O["incore_cy_per_block"] = jsonNumber(C.InCoreCyclesPerBlock);
      O["memory_bytes_per_block"] = jsonNumber(C.MemoryBytesPerBlock);
      O["seconds"] = jsonNumber(C.Seconds);
      O["gflops"] = jsonNumber(C.GFlops);
      O["bottleneck"] = C.Bottleneck;
    } else {
      O["reason"] = C.Reason;
    }
    Cands.push_back(std::move(O));
  }
  Object Root{{"schema", "perfmodel-choose-bcsr"},
              {"version", JsonSchemaVersion},
              {"matrix", Ch.Matrix},
              {"machine", M.Name},
              {"machine_file", M.File},
              {"clock_ghz", jsonNumber(M.ClockGHz)},
              {"rows", Ch.Rows},
              {"cols", Ch.Cols},
              {"nonzeros", Ch.Nonzeros},
              {"model", rankingModelName(Ch.Model)},
              {"candidates", std::move(Cands)},
              {"analysis_seconds", jsonNumber(Ch.AnalysisSeconds)}};
  if (const BcsrCandidate *Best = Ch.chosen()) {
    Root["chosen"] = Object{{"r", Best->R}, {"c", Best->C}};
    Root["speedup_over_csr"] = jsonNumber(Ch.SpeedupOverCsr);
  }
  Array Notes;
  for (const std::string &N : Ch.Notes)
    Notes.push_back(N);
  Root["notes"] = std::move(Notes);
  if (!Ch.Explanation.empty())
    Root["explanation"] = Ch.Explanation;
  OS << llvm::formatv("{0:2}", Value(std::move(Root))) << "\n";
}

namespace {

std::string rankedBy(std::optional<ModelKind> Model) {
  return Model ? modelKindName(*Model) : "the headline rule (ECM, else PPR, else the Roofline)";
}

/// "A up to length 65536; B from 66190 to 1e6; C from 1.1e6": the
/// fastest variant over each range of sizes.
std::string winnersText(const VariantChoice &Ch, const std::vector<VariantCrossover> &X,
                        int First) {
  if (First < 0)
    return "-";
  if (X.empty())
    return Ch.Names[First] + " at every size";
  std::string S = Ch.Names[First] + " up to " + Ch.Param + " = " + std::to_string(X[0].Last);
  for (size_t I = 0; I < X.size(); ++I) {
    S += "; " + Ch.Names[X[I].To];
    if (I + 1 == X.size())
      S += " from " + std::to_string(X[I].First);
    else if (X[I + 1].Last == X[I].First)
      S += " at " + std::to_string(X[I].First);
    else
      S += " from " + std::to_string(X[I].First) + " to " + std::to_string(X[I + 1].Last);
  }
  return S;
}

} // namespace

void perfmodel::printVariantChoice(llvm::raw_ostream &OS, const VariantChoice &Ch,
                                   const MachineModel &M) {
  OS << "perfmodel choose " << Ch.File << "\n";
  OS << "machine: " << machineSummary(M) << "\n";
  OS << "ranked by: " << rankedBy(Ch.Model) << ", the time of one call of each function\n";
  bool Measured = std::any_of(Ch.Points.begin(), Ch.Points.end(), [](const VariantPoint &P) {
    return std::any_of(P.Variants.begin(), P.Variants.end(),
                       [](const VariantEstimate &E) { return E.Measured.has_value(); });
  });
  if (Ch.Points.size() == 1) {
    // One size: the ranking with each variant's bound.
    const VariantPoint &P = Ch.Points.front();
    std::vector<size_t> Order(P.Variants.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
      const VariantEstimate &X = P.Variants[A], &Y = P.Variants[B];
      if (X.Ok != Y.Ok)
        return X.Ok;
      return X.Ok && X.Seconds < Y.Seconds;
    });
    std::vector<std::vector<std::string>> Rows = {
        {"rank", "variant", "time/call", "vs fastest", "GFLOP/s", "data in", "bottleneck"}};
    if (Measured)
      Rows[0].insert(Rows[0].begin() + 4, "measured");
    double Best = P.Winner >= 0 ? P.Variants[P.Winner].Seconds : 0;
    size_t Rank = 0;
    for (size_t I : Order) {
      const VariantEstimate &E = P.Variants[I];
      std::vector<std::string> Row;
      if (!E.Ok)
        Row = {"-", Ch.Names[I], "", "", "", "", "not predicted: " + E.Reason};
      else
        Row = {std::to_string(++Rank), Ch.Names[I], formatSeconds(E.Seconds),
               formatNumber(E.Seconds / Best) + "x", E.GFlops > 0 ? formatNumber(E.GFlops) : "-",
               E.DataLevel, E.Bottleneck};
      if (Measured)
        Row.insert(Row.begin() + 4, E.Measured ? formatSeconds(*E.Measured) : "-");
      Rows.push_back(Row);
    }
    std::vector<bool> Right(Rows[0].size(), false);
    Right[0] = Right[2] = Right[3] = Right[4] = true;
    if (Measured)
      Right[5] = true;
    if (!Ch.Param.empty())
      OS << Ch.Param << " = " << P.Value << "\n";
    printTable(OS, Rows, 2, Right);
    if (P.Winner >= 0)
      OS << "chosen: " << Ch.Names[P.Winner] << "\n";
    if (Measured && P.MeasuredWinner >= 0)
      OS << "measured fastest: " << Ch.Names[P.MeasuredWinner] << "\n";
  } else {
    // A sweep: a row per size, a column per variant.
    auto Table = [&](bool Timed) {
      std::vector<std::vector<std::string>> Rows = {{Ch.Param}};
      for (const std::string &N : Ch.Names)
        Rows[0].push_back(N);
      Rows[0].push_back(Timed ? "fastest (measured)" : "fastest");
      Rows[0].push_back(Timed ? "chosen's speed" : "margin");
      for (const VariantPoint &P : Ch.Points) {
        std::vector<std::string> Row = {std::to_string(P.Value)};
        for (const VariantEstimate &E : P.Variants)
          Row.push_back(Timed ? (E.Measured ? formatSeconds(*E.Measured) : "-")
                        : E.Ok ? formatSeconds(E.Seconds) + " " + E.DataLevel
                               : "-");
        int W = Timed ? P.MeasuredWinner : P.Winner;
        Row.push_back(W >= 0 ? Ch.Names[W] : "-");
        std::string Extra = "-";
        if (W >= 0 && Timed && P.Winner >= 0 && P.Variants[P.Winner].Measured)
          // The speed of the predicted choice relative to the measured best.
          Extra = formatNumber(100 * *P.Variants[W].Measured / *P.Variants[P.Winner].Measured,
                               3) +
                  "%";
        if (W >= 0 && !Timed) {
          // How much slower the runner-up is predicted to be.
          double Next = 0;
          for (size_t I = 0; I < P.Variants.size(); ++I)
            if (int(I) != W && P.Variants[I].Ok && (!Next || P.Variants[I].Seconds < Next))
              Next = P.Variants[I].Seconds;
          if (Next)
            Extra = formatNumber(100 * (Next / P.Variants[W].Seconds - 1), 2) + "%";
        }
        Row.push_back(Extra);
        Rows.push_back(Row);
      }
      std::vector<bool> Right(Rows[0].size(), true);
      Right[Rows[0].size() - 2] = false;
      printTable(OS, Rows, 2, Right);
    };
    OS << "predicted time per call (and where the data of the longest loop sits):\n";
    Table(false);
    if (Measured) {
      OS << "measured on this host (median per call):\n";
      Table(true);
    }
    int First = Ch.Points.front().Winner;
    OS << "chosen: " << winnersText(Ch, Ch.Crossovers, First) << "\n";
    if (Measured)
      OS << "measured: "
         << winnersText(Ch, Ch.MeasuredCrossovers, Ch.Points.front().MeasuredWinner)
         << " (between the sizes timed)\n";
  }
  OS << "analysis: " << formatNumber(Ch.AnalysisSeconds) << " s\n";
  for (const std::string &N : Ch.Notes)
    OS << "note: " << N << "\n";
}

void perfmodel::printVariantChoiceJSON(llvm::raw_ostream &OS, const VariantChoice &Ch,
                                       const MachineModel &M) {
  using namespace llvm::json;
  auto Name = [&](int I) -> Value {
    if (I < 0)
      return nullptr;
    return Ch.Names[I];
  };
  Array Points;
  for (const VariantPoint &P : Ch.Points) {
    Array Vs;
    for (size_t I = 0; I < P.Variants.size(); ++I) {
      const VariantEstimate &E = P.Variants[I];
      Object O{{"variant", Ch.Names[I]}, {"ok", E.Ok}};
      if (E.Ok) {
        O["seconds"] = jsonNumber(E.Seconds);
        O["gflops"] = jsonNumber(E.GFlops);
        O["data_level"] = E.DataLevel;
        O["bottleneck"] = E.Bottleneck;
      } else {
        O["reason"] = E.Reason;
      }
      if (E.Measured)
        O["measured_seconds"] = jsonNumber(*E.Measured);
      Vs.push_back(std::move(O));
    }
    Object O{{"variants", std::move(Vs)}, {"fastest", Name(P.Winner)}};
    if (!Ch.Param.empty())
      O["value"] = P.Value;
    if (P.MeasuredWinner >= 0)
      O["measured_fastest"] = Name(P.MeasuredWinner);
    Points.push_back(std::move(O));
  }
  auto Crossovers = [&](const std::vector<VariantCrossover> &X) {
    Array A;
    for (const VariantCrossover &C : X)
      A.push_back(Object{{"last", C.Last}, {"first", C.First}, {"from", Name(C.From)},
                         {"to", Name(C.To)}});
    return A;
  };
  Array Names, Notes;
  for (const std::string &N : Ch.Names)
    Names.push_back(N);
  for (const std::string &N : Ch.Notes)
    Notes.push_back(N);
  Object Root{{"schema", "perfmodel-choose-variants"},
              {"version", JsonSchemaVersion},
              {"file", Ch.File},
              {"machine", M.Name},
              {"machine_file", M.File},
              {"clock_ghz", jsonNumber(M.ClockGHz)},
              {"model", rankingModelName(Ch.Model)},
              {"variants", std::move(Names)},
              {"points", std::move(Points)},
              {"crossovers", Crossovers(Ch.Crossovers)},
              {"analysis_seconds", jsonNumber(Ch.AnalysisSeconds)},
              {"notes", std::move(Notes)}};
  if (!Ch.Param.empty())
    Root["param"] = Ch.Param;
  if (!Ch.MeasuredCrossovers.empty() ||
      std::any_of(Ch.Points.begin(), Ch.Points.end(),
                  [](const VariantPoint &P) { return P.MeasuredWinner >= 0; }))
    Root["measured_crossovers"] = Crossovers(Ch.MeasuredCrossovers);
  OS << llvm::formatv("{0:2}", Value(std::move(Root))) << "\n";
}

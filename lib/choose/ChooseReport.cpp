//===- ChooseReport.cpp - Text and JSON views of a choice ------------------===//
#include "perfmodel/Choose.h"
#include "perfmodel/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

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
  OS << "model: " << Ch.Model << " on simulated traffic (an SpMV repeated: warm caches)\n";
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
              {"model", Ch.Model},
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
  OS << llvm::formatv("{0:2}", Value(std::move(Root))) << "\n";
}

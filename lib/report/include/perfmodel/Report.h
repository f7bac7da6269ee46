//===- Report.h - Text and JSON views of an analysis -----------*- C++ -*-===//
//
// Views only read the results; they compute nothing a model should.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_REPORT_H
#define PERFMODEL_REPORT_H

#include "perfmodel/Analysis.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

/// Version of the JSON output; see docs/json-schema.md.
constexpr int JsonSchemaVersion = 1;

/// The commands' output formats, as --format names them.
enum class ReportFormat { Text, Brief, Json, Sarif, Svg, Html, Markdown };
const char *reportFormatName(ReportFormat F);
std::optional<ReportFormat> reportFormatNamed(llvm::StringRef Name);
/// R in format F: the one table from a format to the printer of an analysis
/// (text, brief, json, sarif, svg, html); false for a format without one.
bool printReport(llvm::raw_ostream &OS, const AnalysisReport &R, ReportFormat F);

void printText(llvm::raw_ostream &OS, const AnalysisReport &R);
/// "Name (file.yml), 2.7 GHz, haswell": the machine line of the text reports.
std::string machineSummary(const MachineModel &M);
/// The headline in one line: "ECM 3.78 cy/it, 1.43 GFLOP/s with data in MEM;
/// bound by ..." ("" when no model succeeded).
std::string headlineText(const LoopReport &LR);
/// The headline as JSON ({model, data_level, cy_per_it, gflops, bottleneck,
/// advice, promised_gain_cy_per_it, seconds}); null when no model succeeded.
llvm::json::Value headlineJSON(const LoopReport &LR, const MachineModel &M);
/// One line per loop in the compilers' diagnostic form ("file:line:col: note:
/// perfmodel: ..."), which editors and Compiler Explorer link to the source.
void printBrief(llvm::raw_ostream &OS, const AnalysisReport &R);
/// SARIF 2.1.0 (docs/sarif.md): one result per loop at its location, the
/// headline and bottleneck as the message, the advice beside it.
void printSARIF(llvm::raw_ostream &OS, const AnalysisReport &R);
void printJSON(llvm::raw_ostream &OS, const AnalysisReport &R);
void printMachineText(llvm::raw_ostream &OS, const MachineModel &M);
/// `perfmodel sweep`: predictions of each loop while one size parameter
/// runs over a range.
struct SweepRow {
  int64_t Value = 0;
  std::optional<double> WorkingSetBytes;
  std::string DataLevel;
  std::vector<double> Values;           ///< per model: GFLOP/s (cy/it without flops); NaN: not modelled
  std::vector<std::string> Bottlenecks; ///< per model, at the data level
};
struct SweepLoop {
  std::string Title; ///< "[1] file:line:col in function"
  bool NoFlops = false;
  std::string Reason; ///< not modelled
  std::vector<std::string> Models;
  std::vector<SweepRow> Rows;
};
struct SweepReport {
  std::string File, Param;
  const MachineModel *Machine = nullptr;
  std::vector<SweepLoop> Loops;
};
void printSweepText(llvm::raw_ostream &OS, const SweepReport &R);
/// Performance against working-set size, a line per model, the cache
/// capacities marked; one panel per loop.
void printSweepSVG(llvm::raw_ostream &OS, const SweepReport &R);

/// Predicted against measured cycles per iteration (validate --replay): one
/// point per timed row, coloured by the level its data was in, on log-log
/// axes with the diagonal and the 10 % band; one panel per host.
struct AccuracyPoint {
  double Measured = 0, Predicted = 0;
  std::string Level; ///< L1, L2, L3, MEM
  std::string Label; ///< shown on hover
};
struct AccuracyPanel {
  std::string Title;
  std::vector<AccuracyPoint> Points;
};
void printAccuracySVG(llvm::raw_ostream &OS, const std::string &Title,
                      const std::vector<AccuracyPanel> &Panels);

/// A self-contained SVG Roofline chart: the machine's roofs and ceilings and
/// each modelled loop as a point per memory level.
void printRooflineSVG(llvm::raw_ostream &OS, const AnalysisReport &R);
/// One HTML page: the chart, a prediction table per loop, the text report.
void printHTML(llvm::raw_ostream &OS, const AnalysisReport &R);
/// `machine list`: one row per model (header first) with its key figures.
std::vector<std::vector<std::string>> machineListRows(const std::vector<MachineModel> &Ms);
/// The list as an aligned text table or as a Markdown table.
void printMachineList(llvm::raw_ostream &OS, const std::vector<MachineModel> &Ms,
                      bool Markdown);
/// Every field of a model as (key path, value) in file order, plus derived
/// figures (peak per node, ridge point); unknown values read "unknown".
std::vector<std::pair<std::string, std::string>> machineFields(const MachineModel &M);
/// `machine diff`: the fields that differ; returns how many.
unsigned printMachineDiff(llvm::raw_ostream &OS, const MachineModel &A, const MachineModel &B);
/// The in-core section: bounds, port pressure per instruction, critical chain.
/// LINEBYTES > 0 adds cycles per cache line of work.
void printInCoreText(llvm::raw_ostream &OS, const InCoreResult &R, unsigned Indent,
                     unsigned LineBytes = 0);
/// The in-core section as a JSON object (docs/json-schema.md, "incore").
void writeInCoreJSON(llvm::json::OStream &J, const InCoreResult &R);

/// An aligned text table, the first row the header; RIGHTALIGN per column.
void printTextTable(llvm::raw_ostream &OS, const std::vector<std::vector<std::string>> &Rows,
                    unsigned Indent, const std::vector<bool> &RightAlign = {});

/// A JSON number rounded to 6 significant digits (null when not finite), so
/// outputs do not churn on last bits.
llvm::json::Value jsonNumber(double V);

/// V written to J as J.value(V) writes it (objects' keys sorted), but each
/// fractional number in its shortest form that reads back exactly (0.1, not
/// 0.10000000000000001): smaller reports, and no printf per number.
void writeJSON(llvm::json::OStream &J, const llvm::json::Value &V);

/// "229 MiB": three significant digits in the largest binary unit below it.
std::string formatBytes(double Bytes);

/// "1.18 us", "4.6 ms", "2.1 s": three significant digits.
std::string formatSeconds(double S);

/// A text table, columns two spaces apart: the first row is the header;
/// RIGHTALIGN[i] right-aligns column i (numbers).
void printTable(llvm::raw_ostream &OS, const std::vector<std::vector<std::string>> &Rows,
                unsigned Indent, const std::vector<bool> &RightAlign = {});

} // namespace perfmodel

#endif

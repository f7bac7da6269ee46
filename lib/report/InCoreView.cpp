//===- InCoreView.cpp - The in-core result as text and JSON ---------------===//
//
// One block's or loop's in-core cost: its bounds, bottleneck, the
// per-instruction port table, alignment and line splits, the executed
// nest; text and JSON side by side.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Report.h"
#include "ViewHelpers.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace perfmodel;

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
  unsigned W = 0, Element = 0;
  for (const InstrCost &C : R.Instrs)
    if (C.vectorBytes() > W)
      W = C.vectorBytes(), Element = C.PackedElement;
  if (!W)
    return ""; // scalar accesses of naturally aligned elements do not split
  unsigned Part = 0;
  double LoadFrac = S.fractionOf(W, Element, false, &Part),
         StoreFrac = S.fractionOf(W, Element, true);
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
  bool Source = R.Basis == InCoreBasis::Source;
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
       << (E.Fetch > 0 ? " + the code's lines " + formatNumber(E.Fetch) : std::string())
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
    if (E.RowWindows > 0)
      OS << "; a row is " << formatNumber(E.RowWindows)
         << " windows long: its parts at their own rates, the joins not scheduled";
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
  OS << "  -> " << inCoreBoundName(R.Bottleneck);
  if (!Source && R.BodyScheduled)
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

namespace {

using llvm::json::OStream;
using views::JsonMembers;

/// Instructions' port cycles as objects keyed by port name, in key order.
void writeInstructions(OStream &J, const InCoreResult &R) {
  std::vector<size_t> ByName(R.Ports.size());
  for (size_t P = 0; P < ByName.size(); ++P)
    ByName[P] = P;
  llvm::sort(ByName, [&](size_t A, size_t B) { return R.Ports[A] < R.Ports[B]; });
  J.arrayBegin();
  for (const InstrCost &C : R.Instrs) {
    JsonMembers I;
    I.str("text", C.Text)
        .integer("line", C.Line)
        .integer("uops", C.Uops)
        .num("latency", C.Latency)
        .nested("ports", [&](OStream &J) {
          J.objectBegin();
          for (size_t P : ByName)
            if (P < C.PortCycles.size() && C.PortCycles[P] > 1e-9) {
              J.attributeBegin(R.Ports[P]);
              views::writeNumber(J, C.PortCycles[P]);
              J.attributeEnd();
            }
          J.objectEnd();
        })
        .write(J);
  }
  J.arrayEnd();
}

/// Where the streams start and the share of accesses that cross a line.
void writeAlignment(OStream &J, const LineSplits &S) {
  // Widths as keys sort as strings ("16" before "8").
  auto Fractions = [](const std::map<unsigned, double> &F) {
    return [&F](OStream &J) {
      std::vector<std::pair<std::string, double>> Keyed;
      for (const auto &[W, V] : F)
        Keyed.push_back({std::to_string(W), V});
      llvm::sort(Keyed);
      J.objectBegin();
      for (const auto &[K, V] : Keyed) {
        J.attributeBegin(K);
        views::writeNumber(J, V);
        J.attributeEnd();
      }
      J.objectEnd();
    };
  };
  JsonMembers A;
  A.integer("assumed_bytes", S.AssumedAlign)
      .num("line_split_load_cost", S.LoadCost)
      .num("line_split_store_cost", S.StoreCost)
      .nested("load_split_fraction", Fractions(S.Load))
      .nested("store_split_fraction", Fractions(S.Store))
      .nested("streams", views::jsonArray(S.Streams, [](OStream &J, const LineSplits::Stream &St) {
        JsonMembers X;
        X.str("array", St.Array)
            .str("reference", St.Text)
            .integer("align_bytes", St.AlignBytes)
            .boolean("declared", St.Declared)
            .num("split_fraction_32b", St.Split32)
            .write(J);
      }))
      .write(J);
}

/// The nest as executed: its parts, overlap and the machine loops' trips.
void writeExecuted(OStream &J, const NestResult &E) {
  JsonMembers N;
  if (!N.okElseWrite(J, E.Ok, E.Reason))
    return;
  N.num("cy_per_it", E.Cycles)
      .num("body", E.Body)
      .num("remainder", E.Remainder)
      .num("outer_code", E.Overhead)
      .num("overlap", E.Overlap)
      .num("joins", E.Joins);
  if (E.Fetch > 0)
    N.num("code_lines", E.Fetch);
  N.num("steady_cy_per_it", E.Steady)
      .num("iterations_per_outer_iteration", E.TripsPerOuter)
      .boolean("per_call", E.PerCall)
      .integer("outer_iterations_per_trip", E.Copies)
      .integer("reorder_buffer", E.Rob);
  if (E.LoadQueue)
    N.integer("load_queue", E.LoadQueue);
  if (E.StoreQueue)
    N.integer("store_queue", E.StoreQueue);
  if (E.RowWindows > 0)
    N.num("row_windows", E.RowWindows);
  N.str("enclosing_machine_loop", E.Where)
      .nested("machine_loops", views::jsonArray(E.Runs, [](OStream &J, const auto &Run) {
        JsonMembers X;
        X.num("source_iterations_per_trip", Run.first).num("trips", Run.second).write(J);
      }))
      .write(J);
}

} // namespace

void perfmodel::writeInCoreJSON(OStream &J, const InCoreResult &R) {
  JsonMembers O;
  O.str("cpu", R.Cpu).str("basis", R.Basis == InCoreBasis::Source ? "source" : "compiled");
  if (!O.okElseWrite(J, R.Ok, R.Reason))
    return;
  O.str("machine_loop", R.MachineLoop)
      .num("cy_per_machine_iteration", R.Cycles)
      .num("source_iterations_per_trip", R.SourceItersPerIter)
      .num("cy_per_it", R.Cycles / (R.SourceItersPerIter > 0 ? R.SourceItersPerIter : 1))
      .nested("bounds", [&R](OStream &J) {
        JsonMembers B;
        B.num("ports", R.PortBound)
            .num("front_end", R.FrontEndBound)
            .num("recurrence", R.RecurrenceBound);
        if (R.BodyScheduled) // not run for a long row priced from its parts
          B.num("list_schedule", R.ScheduledCycles);
        if (R.DecodeBound > 0) // unrolled code on an Intel core: its legacy decoders
          B.num("decode", R.DecodeBound);
        B.write(J);
      });
  if (R.Basis != InCoreBasis::Source && !R.Splits.Streams.empty())
    O.nested("alignment", [&R](OStream &J) { writeAlignment(J, R.Splits); });
  if (R.Basis != InCoreBasis::Source)
    O.nested("nest", [&R](OStream &J) { writeExecuted(J, R.Executed); });
  O.str("bottleneck", inCoreBoundName(R.Bottleneck))
      .str("advice", R.Advice)
      .integer("uops", R.Uops)
      .num("t_ol", R.TOL)
      .num("t_nol", R.TnOL)
      .nested("port_pressure",
              [&R](OStream &J) {
                J.arrayBegin();
                for (size_t P = 0; P < R.Ports.size(); ++P)
                  if (R.PortLoad[P] > 1e-9) {
                    JsonMembers X;
                    X.str("port", R.Ports[P]).num("cycles", R.PortLoad[P]).write(J);
                  }
                J.arrayEnd();
              })
      .nested("instructions", [&R](OStream &J) { writeInstructions(J, R); })
      .nested("critical_chain", views::jsonArray(R.CriticalChain, [](OStream &J, unsigned I) {
        J.value(int64_t(I));
      }))
      .strings("notes", R.Notes)
      .write(J);
}

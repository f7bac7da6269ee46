//===- SweepCommand.cpp - perfmodel sweep ---------------------------------===//
//
// `perfmodel sweep`: one size parameter over a range, every loop predicted
// at each value, as a table or an SVG of the performance levels.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/Report.h"

#include "llvm/ADT/StringRef.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

int runSweep(AnalyzeArgs A, const CompileCommand &CC) {
  if (int RC = checkOutput(A.Output))
    return RC;
  // The swept -D is the one with a range; the others bind as in analyze.
  std::optional<SweepSpec> Spec;
  std::vector<std::string> Fixed;
  std::string RangeErr;
  if (!splitSizeRange(A.Defines, Spec, Fixed, RangeErr))
    return error(RangeErr, ExitUsage);
  if (!Spec)
    return error("sweep needs a range, e.g. -D N=1e3:1e8:x2", ExitUsage);
  // Bind the first value so the front end accepts the name.
  A.Defines = Fixed;
  A.Defines.push_back(Spec->Name + "=" + std::to_string(Spec->Values.front()));
  Inputs In;
  if (int RC = loadInputs(A, CC, In))
    return RC;
  std::optional<MachineModel> &M = In.Machine;
  IndexData &Index = In.Index;
  std::optional<FrontendResult> &FR = In.FR;
  KernelIR &IR = FR->IR;
  if (!IR.Parameters.count(Spec->Name)) {
    std::string Known;
    for (const auto &[Name, P] : IR.Parameters)
      Known += " " + Name;
    return error("-D " + Spec->Name + ": no size parameter of that name in " + A.File +
                     (Known.empty() ? " (it has none)" : " (parameters:" + Known + ")"),
                 ExitUsage);
  }
  ProgressBar Bar(Spec->Values.size() + 1);
  Bar.update(0, "compiling the kernel");
  std::vector<InCoreResult> InCore;
  PipelineOptions PO = pipelineOptions(A, In.FR->CompileArgs, Index);
  if (!A.NoInCore)
    InCore = analyzeKernelLoops(IR, In.FR->CompileArgs, inCoreOptionsFor(*M, PO));

  SweepReport SR;
  SR.File = A.File;
  SR.Param = Spec->Name;
  SR.Machine = &*M;
  for (size_t LI = 0; LI < IR.Loops.size(); ++LI) {
    SweepLoop L;
    const LoopKernel &K = IR.Loops[LI];
    L.Title = "[" + std::to_string(LI + 1) + "] " + K.Loc.str() + "  in " + K.Function;
    L.NoFlops = K.flops() == 0;
    if (!K.Modelled)
      L.Reason = K.Reason;
    SR.Loops.push_back(L);
  }
  for (size_t VI = 0; VI < Spec->Values.size(); ++VI) {
    int64_t V = Spec->Values[VI];
    Bar.update(VI + 1, Spec->Name + "=" + std::to_string(V));
    Parameter &P = IR.Parameters[Spec->Name];
    P.Value = V;
    P.From = Parameter::Origin::CommandLine;
    AnalysisReport R;
    modelLoops(R, IR, *M, PO, A.NoInCore ? nullptr : &InCore);
    for (size_t LI = 0; LI < R.Loops.size() && LI < SR.Loops.size(); ++LI) {
      SweepLoop &L = SR.Loops[LI];
      if (!L.Reason.empty())
        continue;
      const LoopReport &LR = R.Loops[LI];
      SweepRow Row;
      Row.Value = V;
      Row.WorkingSetBytes = LR.WorkingSetBytes;
      std::vector<const Prediction *> Ps = LR.predictions();
      if (L.Models.empty())
        for (const Prediction *Pr : Ps)
          L.Models.push_back(Pr->name());
      for (const Prediction *Pr : Ps) {
        const LevelPrediction *At = Pr->Ok ? Pr->atDataLevel() : nullptr;
        if (Row.DataLevel.empty() && Pr->Ok)
          Row.DataLevel = Pr->DataLevel.empty() ? "?" : Pr->DataLevel;
        Row.Values.push_back(!At ? std::nan("")
                             : L.NoFlops ? At->CyclesPerIt
                                         : At->GFlops);
        Row.Bottlenecks.push_back(At ? At->Bottleneck : Pr->Reason);
      }
      L.Rows.push_back(std::move(Row));
    }
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  if (A.Format == ReportFormat::Svg)
    printSweepSVG(OS, SR);
  else
    printSweepText(OS, SR);
  OS.flush();
  return emitReport(A.Output, Text);
}


} // namespace

Command perfmodel::tool::addSweep(CLI::App &App, const CompileCommand &CC) {
  auto A = std::make_shared<AnalyzeArgs>();
  CLI::App *C = App.add_subcommand(
      "sweep", "Predicted performance while one size runs over a range (-D N=1e3:1e8:x2): "
               "the cache levels' transitions, as a table or an SVG chart");
  addSourceOptions(C, *A);
  addMachineOptions(C, *A);
  addModelOptions(C, *A);
  addFormatOption(C, A->Format, {ReportFormat::Text, ReportFormat::Svg}, "text or svg");
  C->add_option("-o,--output", A->Output, "write the result to this file");
  C->footer("-D takes the swept size NAME=START:STOP:xFACTOR|+STEP and fixed ones NAME=VALUE.");
  return {C, [A, &CC]() -> int {
            std::string Err;
            if (!parseModels(*A, Err))
              return error(Err, ExitUsage);
            return runSweep(*A, CC);
          },
          true};
}

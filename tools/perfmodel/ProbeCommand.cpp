//===- ProbeCommand.cpp - perfmodel probe ---------------------------------===//
//
// `perfmodel probe`: measures this host and writes a machine file (over the
// library's model of the host by default), or shows what differs from it
// (--diff).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/InCore.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

/// `perfmodel probe`: measures this host and writes a machine model.
int probeHost(const std::string &Output, bool Quick, unsigned Threads, bool Diff,
              const std::string &BaseOpt) {
  // Refuse before measuring, not after.
  if (!Output.empty() && Output != "-" && llvm::sys::fs::exists(Output))
    return error("-o " + Output + ": exists; the probe does not overwrite files");
  // The library model the figures go over: named, else the host's by CPUID.
  std::optional<HostCpu> Host = detectHostCpu();
  std::string Library = Host ? machineForHost(*Host) : std::string();
  std::string BaseFile = BaseOpt.empty() ? Library : BaseOpt == "none" ? "" : resolveMachine(BaseOpt);
  if (!BaseOpt.empty() && BaseOpt != "none" && BaseFile.empty())
    return error("--base " + BaseOpt + ": no such machine model (see `perfmodel machine list`)");
  std::optional<MachineModel> BaseModel;
  if (!BaseFile.empty()) {
    MachineLoadResult L = loadMachineModel(BaseFile);
    if (!L.ok()) {
      printDiags(L.Diags, /*Warnings=*/false);
      return error("--base: " + BaseFile + " does not load");
    }
    BaseModel = std::move(*L.Model);
  }
  ProbeOptions O;
  O.Quick = Quick;
  O.Threads = Threads;
  ProgressBar Bar(1);
  O.Progress = [&](unsigned Done, unsigned Total, const std::string &What) {
    Bar.setTotal(Total);
    Bar.update(Done, What);
  };
  ProbeResult R = runProbe(O);
  Bar.clear();
  if (R.ClockGHz.Median <= 0)
    return error("cannot measure this host" +
                 (R.Notes.empty() ? std::string() : ": " + R.Notes.front()));
  std::string Triple = llvm::Triple::normalize(llvm::sys::getDefaultTargetTriple());
  // The port names and costs of the model the overrides go into: the base's
  // CPU where there is one (a VM can report another core's CPUID model, and
  // LLVM names the host after it: rocketlake on a Granite Rapids guest).
  std::string Cpu = BaseModel && !BaseModel->Cpu.empty() ? BaseModel->Cpu
                                                         : llvm::sys::getHostCPUName().str();
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  // What LLVM's model of this CPU charges each measured form, per resource:
  // the lone instruction's port loads.
  FormPorts LlvmCosts;
  InCoreOptions IO;
  IO.Triple = Triple;
  IO.Cpu = Cpu;
  auto Cost = [&](const std::string &Form, const std::vector<uint8_t> &Encoding) {
    InCoreResult One = analyzeBlockBytes(Encoding, IO);
    if (!One.Ok)
      return;
    for (size_t P = 0; P < One.Ports.size() && P < One.PortLoad.size(); ++P)
      if (One.PortLoad[P] > 0)
        LlvmCosts[Form][One.Ports[P]] = One.PortLoad[P];
  };
  for (const auto &[Form, Encoding] : dividerForms())
    Cost(Form, Encoding);
  for (const auto &[Form, Encoding] : shuffleForms())
    Cost(Form, Encoding);
  Cost(ScalarFmaForm, ScalarFmaEncoding);
  Cost(FmaYmmForm, FmaYmmEncoding);
  // The FP store: only the resource that binds it alone, per unit (the
  // store-data unit; its address and queue resources have more units).
  if (InCoreResult St = analyzeBlockBytes(FpStoreEncoding, IO); St.Ok) {
    std::string Port;
    double Most = 0;
    for (size_t P = 0; P < St.Ports.size() && P < St.PortLoad.size(); ++P) {
      unsigned Units = P < St.PortUnits.size() ? std::max(1u, St.PortUnits[P]) : 1u;
      double PerUnit = St.PortLoad[P] / Units;
      if (PerUnit > Most + 1e-9) {
        Most = PerUnit;
        Port = St.Ports[P];
      }
    }
    if (!Port.empty())
      LlvmCosts[FpStoreForm][Port] = Most;
  }
  ProbeBase Base;
  if (BaseModel) {
    // A library file by its stem, so the written file finds it from anywhere.
    bool InLibrary = resolveMachine(llvm::sys::path::stem(BaseFile).str()) == BaseFile;
    Base.Name = InLibrary ? llvm::sys::path::stem(BaseFile).str() : BaseFile;
    Base.Model = &*BaseModel;
    if (!InLibrary && !llvm::sys::path::is_absolute(Base.Name)) {
      llvm::SmallString<256> Abs(Base.Name);
      llvm::sys::fs::make_absolute(Abs);
      Base.Name = std::string(Abs);
    }
  }
  writeProbedMachine(OS, R, Triple, Cpu, llvmIssueWidth(Triple, Cpu), LlvmCosts,
                     BaseModel ? &Base : nullptr);
  OS.flush();
  // What was written must load: a probe that cannot be used is an error.
  MachineLoadResult Check = parseMachineModel(Text, Output.empty() ? "<probe>" : Output);
  printDiags(Check.Diags, /*Warnings=*/true);
  if (!Check.ok())
    return error("the probed machine model does not validate (see above)");
  if (Diff) {
    // The library's figure for this CPU beside the measured one.
    if (Library.empty()) {
      llvm::outs() << "no library model matches this host's CPUID: nothing to compare\n";
    } else {
      MachineLoadResult L = loadMachineModel(Library);
      if (!L.ok())
        return error("the library model " + Library + " does not load");
      llvm::outs() << "library model (A) vs this probe (B):\n";
      printMachineDiff(llvm::outs(), *L.Model, *Check.Model);
    }
    if (Output.empty())
      return ExitOk;
  }
  if (Output.empty() || Output == "-") {
    llvm::outs() << Text;
    return ExitOk;
  }
  if (llvm::sys::fs::exists(Output))
    return error("-o " + Output + ": exists; the probe does not overwrite files");
  std::error_code EC;
  llvm::raw_fd_ostream Out(Output, EC);
  if (EC)
    return error("cannot write " + Output + ": " + EC.message());
  Out << Text;
  llvm::errs() << "perfmodel: wrote " << Output << " (" << formatNumber(R.ClockGHz.Median)
               << " GHz; check it with `perfmodel machine check " << Output << "`)\n";
  return ExitOk;
}

} // namespace

Command perfmodel::tool::addProbe(CLI::App &App) {
  struct State {
    std::string Output;
    bool Quick = false;
    unsigned Threads = 0;
    bool Diff = false;
    std::string Base;
  };
  auto S = std::make_shared<State>();
  CLI::App *C = App.add_subcommand(
      "probe", "Measure this host (CPUID, clock, peak flop/s, bandwidth per level) and "
               "write a machine model");
  C->add_option("-o,--output", S->Output, "write the model to this (new) file");
  C->add_flag("--quick", S->Quick, "fewer repetitions, smaller memory working set");
  C->add_option("--threads", S->Threads, "cores for the all-core bandwidth (default: all)")
      ->check(CLI::Range(1u, 4096u));
  C->add_flag("--diff", S->Diff,
              "print the library model of this CPU (by CPUID) beside the measured figures "
              "(with -o the model is still written)");
  C->add_option("--base", S->Base,
                 "library model (name or file) the measured figures replace keys of; "
                 "'none' writes a whole model from CPUID and the measurements "
                 "(default: the library model of this CPU by CPUID, else none)");
  return {C, [S] { return probeHost(S->Output, S->Quick, S->Threads, S->Diff, S->Base); },
          false};
}

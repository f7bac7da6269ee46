//===- InCoreCommand.cpp - perfmodel incore -------------------------------===//
//
// One loop body as assembly (a file, or standard input as llvm-mca reads it)
// or as machine-code bytes, costed on a machine's port model.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "perfmodel/InCore.h"
#include "perfmodel/Report.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

using namespace perfmodel;
using namespace perfmodel::tool;

namespace {

int runInCore(std::string File, const std::string &Hex, const std::string &Batch,
              const std::string &Machine, const std::string &Cpu,
              const std::vector<std::string> &Sets, ReportFormat Format, bool Unrolled,
              bool BHive) {
  if (int(!File.empty()) + int(!Hex.empty()) + int(!Batch.empty()) > 1)
    return error("incore takes one of: an assembly file (- or none: standard input), "
                 "--hex BYTES, --batch FILE",
                 ExitUsage);
  InCoreOptions O;
  std::vector<std::string> Notes;
  if (!Cpu.empty()) {
    O.Cpu = Cpu;
    if (!Machine.empty())
      return error("give -m or --mcpu, not both", ExitUsage);
  } else {
    std::optional<MachineModel> M = loadMachine(Machine, Sets, Notes, /*HostClock=*/false);
    if (!M)
      return ExitFailed;
    O = inCoreOptionsFor(*M);
  }
  O.Unrolled = Unrolled || BHive;
  O.SameInitialRegisters = BHive;
  if (!Batch.empty()) {
    auto Buf = llvm::MemoryBuffer::getFile(Batch, /*IsText=*/true);
    if (!Buf)
      return error(Batch + ": cannot read: " + Buf.getError().message());
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    (*Buf)->getBuffer().split(Lines, '\n', -1, false);
    for (llvm::StringRef Line : Lines) {
      llvm::StringRef HexText = Line.split(',').first.trim();
      if (HexText.empty() || HexText.starts_with("#"))
        continue;
      std::string Err;
      auto Bytes = parseHex(HexText.str(), Err);
      InCoreResult B;
      if (Bytes)
        B = analyzeBlockBytes(*Bytes, O);
      else
        B.Reason = Err;
      llvm::outs() << HexText << "\t";
      if (!B.Ok) {
        llvm::outs() << "error\t\t" << B.Reason << "\t\n";
        continue;
      }
      std::string Asm;
      for (const InstrCost &C : B.Instrs)
        Asm += (Asm.empty() ? "" : "; ") + C.Text;
      llvm::outs() << llvm::format("%.4f", B.Cycles) << "\t" << B.Uops << "\t"
                   << inCoreBoundName(B.Bottleneck) << "\t" << Asm << "\n";
    }
    return ExitOk;
  }
  // As llvm-mca: no input named, or `-`, reads the assembly from standard input.
  std::string Shown = File;
  if (Hex.empty() && (File.empty() || File == "-")) {
    File = stdinToTempFile("s");
    if (File.empty())
      return ExitFailed;
    Shown = "<stdin>";
  }
  InCoreResult R;
  if (!Hex.empty()) {
    std::string Err;
    auto Bytes = parseHex(Hex, Err);
    if (!Bytes)
      return error("--hex: " + Err, ExitUsage);
    R = analyzeBlockBytes(*Bytes, O);
  } else {
    R = analyzeAssemblyFile(File, O);
  }
  if (!R.Ok)
    return error((Hex.empty() ? Shown : std::string("--hex")) + ": " + R.Reason);
  if (Format == ReportFormat::Json) {
    llvm::json::OStream J(llvm::outs(), 2);
    writeInCoreJSON(J, R);
    llvm::outs() << "\n";
    return ExitOk;
  }
  for (const std::string &N : Notes)
    llvm::outs() << "note: " << N << "\n";
  printInCoreText(llvm::outs(), R, 0);
  return ExitOk;
}

} // namespace

Command perfmodel::tool::addInCore(CLI::App &App) {
  struct State {
    std::string File, Hex, Machine, Cpu, Batch;
    ReportFormat Format = ReportFormat::Text;
    std::vector<std::string> Sets;
    bool Unrolled = false, BHive = false;
  };
  auto S = std::make_shared<State>();
  CLI::App *C = App.add_subcommand(
      "incore", "Cost one loop body given as assembly (.s, or standard input) or hex bytes "
                "on a port model");
  C->add_option("file", S->File,
                "assembly file (GNU syntax; .intel_syntax ok); - or none: standard input");
  C->add_option("--hex", S->Hex, "machine code bytes, e.g. \"c5 fd 58 c1\"");
  C->add_option("-m,--machine", S->Machine, "machine model: file or name");
  C->add_option("--batch", S->Batch,
                "a file of blocks, one hex string per line (anything after a "
                "comma is ignored): prints hex, cycles, uops, bottleneck and the "
                "assembly per block, tab-separated");
  C->add_option("--mcpu", S->Cpu, "LLVM CPU name instead of a machine model (e.g. skylake-avx512)");
  C->add_option("--set", S->Sets, "override a machine value")->allow_extra_args(false);
  addFormatOption(C, S->Format, {ReportFormat::Text, ReportFormat::Json}, "text or json");
  C->add_flag("--unrolled", S->Unrolled,
              "the block runs unrolled as straight-line code, not as a loop: on Intel cores "
              "its uops come from the legacy decoders (predecode windows, LCP stalls)");
  C->add_flag("--bhive", S->BHive,
              "as BHive measures: --unrolled, every general-purpose register starting at "
              "one address (rsp 2 KiB above it, rbp 16 bytes below rsp) and all pages "
              "aliased, so stores and loads through different registers may meet");
  return {C, [S]() {
            return runInCore(S->File, S->Hex, S->Batch, S->Machine, S->Cpu, S->Sets, S->Format,
                             S->Unrolled, S->BHive);
          },
          false};
}

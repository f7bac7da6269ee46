//===- ObjectCode.cpp - Compile with clang-19, read objects ---------------===//
//
// clang-19 runs that compile the kernel (the user's flags minus outputs and
// dependency files), the object file read back function by function with
// its DWARF lines, and assembly text assembled for `incore`. The perfmodel
// tool compiles in its own process (clang-19's driver and cc1, the libraries
// it already loaded): a clang process's start costs about 80 ms, 5 % of the
// compile of a 4,000-line file. Flags that change LLVM's global options or
// load code fall back to a clang-19 process.
//
//===----------------------------------------------------------------------===//
#include "ObjectCode.h"
#include "perfmodel/InCore.h"
#include "perfmodel/StageTimes.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Tool.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/FrontendTool/Utils.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>

using namespace perfmodel;
using namespace llvm;

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  SmallString<128> Path;
  TempFile(const char *Prefix, const char *Suffix) {
    sys::fs::createTemporaryFile(Prefix, Suffix, Path);
  }
  ~TempFile() { sys::fs::remove(Path); }
};

std::atomic<bool> InProcess{false};
std::atomic<unsigned> DoneInProcess{0};

/// clang-19's real path (its resource directory and headers are found from
/// it, as its own driver does); empty when it is not on PATH.
const std::string &clangPath() {
  static const std::string Path = [] {
    auto P = sys::findProgramByName("clang-19");
    SmallString<256> Real;
    if (!P || sys::fs::real_path(*P, Real))
      return std::string();
    return std::string(Real);
  }();
  return Path;
}

/// EmitObj with a second consumer of the AST after code generation (as a
/// plugin that runs after the main action).
class AlsoConsume : public clang::WrapperFrontendAction {
public:
  AlsoConsume(std::unique_ptr<clang::FrontendAction> Main, const ASTConsumerMaker &Make)
      : WrapperFrontendAction(std::move(Main)), Make(Make) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        StringRef InFile) override {
    std::vector<std::unique_ptr<clang::ASTConsumer>> Both;
    Both.push_back(WrapperFrontendAction::CreateASTConsumer(CI, InFile));
    if (!Both.back())
      return nullptr;
    Both.push_back(Make());
    return std::make_unique<clang::MultiplexConsumer>(std::move(Both));
  }

private:
  const ASTConsumerMaker &Make;
};

/// Compiles with ARGS (clang-19's command line without the program) in this
/// process; nullopt where a clang-19 process should: flags that set LLVM's
/// global options or load plugins, a driver that plans more than one cc1 job,
/// or an error the driver reports (the process reports it as clang does).
/// ALSO: a second consumer of the AST beside EmitObj; DIAGNOSTICSOUT gets
/// Clang's diagnostics, warnings included.
std::optional<bool> compileHere(const std::vector<std::string> &Args, std::string &Error,
                                const ASTConsumerMaker *Also = nullptr,
                                std::string *DiagnosticsOut = nullptr) {
  for (const std::string &A : Args) {
    StringRef X(A);
    if (X.starts_with("-mllvm") || X.starts_with("-Xclang") || X.starts_with("-fplugin") ||
        X.starts_with("-save-temps") || X.starts_with("-Wl,") || X == "-###" || X == "-v")
      return std::nullopt;
  }
  const std::string &Clang = clangPath();
  if (Clang.empty())
    return std::nullopt;
  static std::once_flag Targets;
  std::call_once(Targets, [] {
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    InitializeAllAsmParsers();
    CrashRecoveryContext::Enable();
    // Line tables carry no variables, yet the instruction-referencing
    // LiveDebugValues walks every instruction for them; the older pass has
    // nothing to do, and the code is the same (bench/RESULTS.md). LLVM's
    // options are global: set here, once, for this process's compiles.
    if (cl::Option *O = cl::getRegisteredOptions().lookup("experimental-debug-variable-locations"))
      if (O->addOccurrence(1, O->ArgStr, "false"))
        O->setDefault();
  });
  std::string Diagnostics;
  raw_string_ostream DOS(Diagnostics);
  IntrusiveRefCntPtr<clang::DiagnosticOptions> DiagOpts = new clang::DiagnosticOptions();
  clang::DiagnosticsEngine Diags(new clang::DiagnosticIDs(), &*DiagOpts,
                                 new clang::TextDiagnosticPrinter(DOS, &*DiagOpts));
  clang::driver::Driver D(Clang, sys::getDefaultTargetTriple(), Diags);
  std::vector<const char *> Argv{Clang.c_str()};
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  std::unique_ptr<clang::driver::Compilation> C(D.BuildCompilation(Argv));
  if (!C || C->containsError() || Diags.hasErrorOccurred() || C->getJobs().size() != 1)
    return std::nullopt;
  const clang::driver::Command &Job = *C->getJobs().begin();
  const opt::ArgStringList &CC1 = Job.getArguments();
  if (StringRef(Job.getCreator().getName()) != "clang" || CC1.empty() ||
      StringRef(CC1.front()) != "-cc1")
    return std::nullopt;
  auto CI = std::make_unique<clang::CompilerInstance>();
  if (!clang::CompilerInvocation::CreateFromArgs(CI->getInvocation(),
                                                 ArrayRef(CC1).drop_front(), Diags, Clang.c_str()))
    return std::nullopt;
  // cc1 leaves its memory to the process's exit; this process goes on.
  CI->getFrontendOpts().DisableFree = false;
  CI->getCodeGenOpts().DisableFree = false;
  // The second consumer reads the AST after code generation, which the
  // driver otherwise lets the backend clear.
  if (Also)
    CI->getCodeGenOpts().ClearASTBeforeBackend = false;
  CI->createDiagnostics(new clang::TextDiagnosticPrinter(DOS, &CI->getDiagnosticOpts()));
  CI->setVerboseOutputStream(nulls()); // "N errors generated.": the caller reports
  if (Also && CI->getFrontendOpts().ProgramAction != clang::frontend::EmitObj)
    return std::nullopt;
  bool Ok = false;
  ++DoneInProcess;
  CrashRecoveryContext CRC;
  if (!CRC.RunSafely([&] {
        if (!Also) {
          Ok = clang::ExecuteCompilerInvocation(CI.get());
          return;
        }
        AlsoConsume Act(std::make_unique<clang::EmitObjAction>(), *Also);
        Ok = CI->ExecuteAction(Act);
      })) {
    Error = "clang-19 crashed compiling the file (in process)";
    return false;
  }
  if (!Ok)
    Error = "clang-19 failed:\n" + StringRef(Diagnostics).trim().str();
  if (DiagnosticsOut)
    *DiagnosticsOut = Diagnostics;
  return Ok;
}
} // namespace

void perfmodel::compileInProcess(bool On) { InProcess = On; }

unsigned perfmodel::inProcessCompiles() { return DoneInProcess; }

bool perfmodel::runClang(const std::vector<std::string> &Args, std::string &Error) {
  StageScope Timed(Stage::Compile);
  auto Clang = sys::findProgramByName("clang-19");
  if (!Clang) {
    Error = "clang-19 not found on PATH";
    return false;
  }
  TempFile Err("perfmodel-clang", "txt");
  std::vector<StringRef> Argv{*Clang};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(""), StringRef(Err.Path)};
  std::string ExecError;
  int RC = sys::ExecuteAndWait(*Clang, Argv, std::nullopt, Redirects, /*Seconds=*/120,
                               0, &ExecError);
  if (RC == 0)
    return true;
  auto Buf = MemoryBuffer::getFile(Err.Path);
  Error = "clang-19 failed" + (ExecError.empty() ? "" : " (" + ExecError + ")") +
          (Buf ? ":\n" + (*Buf)->getBuffer().trim().str() : "");
  return false;
}

bool perfmodel::readObject(const std::string &Path, ObjectFileBytes &Out,
                           std::string &Error) {
  StageScope Timed(Stage::ObjectCode);
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin) {
    Error = Path + ": " + toString(Bin.takeError());
    return false;
  }
  const object::ObjectFile &Obj = *Bin->getBinary();

  // Line table rows per section, sorted by address.
  std::map<uint64_t, std::vector<std::pair<uint64_t, unsigned>>> Rows;
  std::unique_ptr<DWARFContext> DCtx = DWARFContext::create(Obj);
  for (const auto &CU : DCtx->compile_units()) {
    const DWARFDebugLine::LineTable *LT = DCtx->getLineTableForUnit(CU.get());
    if (!LT)
      continue;
    // Lines of the compiled file only: code inlined from headers (a
    // std::vector's operator[] at line 1124 of stl_vector.h) carries no line
    // of the source's, so it cannot pass for the code of another loop.
    std::string Main = dwarf::toString(CU->getUnitDIE().find(dwarf::DW_AT_name), "");
    std::map<uint64_t, bool> OwnFile;
    auto Own = [&](uint64_t File) {
      auto It = OwnFile.find(File);
      if (It != OwnFile.end())
        return It->second;
      std::string Name;
      bool Same = Main.empty() ||
                  (LT->getFileNameByIndex(File, "", DILineInfoSpecifier::FileLineInfoKind::RawValue,
                                          Name) &&
                   (Name == Main || sys::path::filename(Name) == sys::path::filename(Main)));
      return OwnFile[File] = Same;
    };
    for (const DWARFDebugLine::Row &Row : LT->Rows)
      Rows[Row.Address.SectionIndex].push_back(
          {Row.Address.Address,
           Row.EndSequence || !Own(Row.File) ? 0u : unsigned(Row.Line)});
  }
  for (auto &[Sec, V] : Rows)
    std::stable_sort(V.begin(), V.end(),
                     [](const auto &A, const auto &B) { return A.first < B.first; });

  for (const object::SectionRef &S : Obj.sections()) {
    if (!S.isText())
      continue;
    Expected<StringRef> Contents = S.getContents();
    if (!Contents)
      continue;
    ArrayRef<uint8_t> Data(reinterpret_cast<const uint8_t *>(Contents->data()),
                           Contents->size());
    Out.Text.insert(Out.Text.end(), Data.begin(), Data.end());
    std::map<uint64_t, std::string> Relocated; // section offset -> symbol
    for (const object::SectionRef &R : Obj.sections()) {
      Expected<object::section_iterator> Target = R.getRelocatedSection();
      if (!Target) {
        consumeError(Target.takeError());
        continue;
      }
      if (*Target == Obj.section_end() || **Target != S)
        continue;
      for (const object::RelocationRef &Rel : R.relocations()) {
        object::symbol_iterator Sym = Rel.getSymbol();
        if (Sym == Obj.symbol_end())
          continue;
        if (Expected<StringRef> Name = Sym->getName())
          Relocated[Rel.getOffset()] = Name->str();
        else
          consumeError(Name.takeError());
      }
    }
    for (const object::SymbolRef &Sym : Obj.symbols()) {
      auto Type = Sym.getType();
      auto Sec = Sym.getSection();
      if (!Type || *Type != object::SymbolRef::ST_Function || !Sec || *Sec != S)
        continue;
      auto Name = Sym.getName();
      auto Addr = Sym.getAddress();
      uint64_t Size = object::ELFSymbolRef(Sym).getSize();
      if (!Name || !Addr || Size == 0 || *Addr < S.getAddress() ||
          *Addr - S.getAddress() + Size > Data.size())
        continue;
      FunctionCode F;
      F.SectionAlign = std::max<uint64_t>(1, S.getAlignment().value());
      F.Name = Name->str();
      F.Address = *Addr;
      uint64_t Off = *Addr - S.getAddress();
      F.Bytes.assign(Data.begin() + Off, Data.begin() + Off + Size);
      F.Lines.assign(Size, 0);
      for (auto R = Relocated.lower_bound(Off); R != Relocated.end() && R->first < Off + Size; ++R)
        F.Symbols[R->first - Off] = R->second;
      auto It = Rows.find(S.getIndex());
      if (It != Rows.end())
        for (uint64_t B = 0; B < Size; ++B) {
          uint64_t A = *Addr + B;
          auto R = std::upper_bound(It->second.begin(), It->second.end(), A,
                                    [](uint64_t X, const auto &E) { return X < E.first; });
          if (R != It->second.begin())
            F.Lines[B] = std::prev(R)->second;
        }
      Out.Functions.push_back(std::move(F));
    }
  }
  return true;
}

bool perfmodel::assembleToText(const std::string &File, const std::string &Triple,
                               ObjectFileBytes &Out, std::string &Error) {
  TempFile Obj("perfmodel-asm", "o");
  if (!runClang({"-c", "-x", "assembler", "--target=" + Triple, File, "-o",
                 std::string(Obj.Path)},
                Error))
    return false;
  return readObject(std::string(Obj.Path), Out, Error);
}

std::vector<std::string> perfmodel::codeFlags(const std::vector<std::string> &Args,
                                              const std::string &Source) {
  std::vector<std::string> Out;
  for (size_t I = 0; I < Args.size(); ++I) {
    StringRef X(Args[I]);
    if (X == "-o" || X == "-MF" || X == "-MT" || X == "-MQ") {
      ++I;
      continue;
    }
    if (X == "-c" || X == "-S" || X == "-E" || X.starts_with("-M") || X == Source ||
        (!X.starts_with("-") && (X.ends_with(".c") || X.ends_with(".cc") ||
                                 X.ends_with(".cpp") || X.ends_with(".cxx"))))
      continue;
    Out.push_back(Args[I]);
  }
  return Out;
}

namespace {
/// The compile of SOURCE for the in-core model, without its output.
std::vector<std::string> kernelCompileArgs(const std::string &Source,
                                           const std::vector<std::string> &Args,
                                           const std::string &Triple, const std::string &Cpu) {
  // Line tables map machine code to source lines; columns are never read and
  // cost about 1.5 % of the compile (the code is the same without them).
  std::vector<std::string> A = {"-c", "-O3", "-gline-tables-only", "-gno-column-info",
                                "--target=" + Triple};
  A.push_back(llvm::Triple(Triple).isX86() ? "-march=" + Cpu : "-mcpu=" + Cpu);
  // The user's flags come after ours, so an explicit -O2 or -march wins.
  for (const std::string &F : codeFlags(Args, Source))
    A.push_back(F);
  A.push_back(Source);
  return A;
}

/// Objects compiled with a front end's parse (compileKernelParsing), by
/// their compile's arguments, for compileKernel to take.
std::map<std::vector<std::string>, ObjectFileBytes> &parsedObjects() {
  static std::map<std::vector<std::string>, ObjectFileBytes> Objects;
  return Objects;
}
} // namespace

std::optional<bool> perfmodel::compileKernelParsing(
    const std::string &Source, const std::vector<std::string> &Args, const std::string &Triple,
    const std::string &Cpu, const std::vector<std::string> &ExtraFlags,
    const ASTConsumerMaker &Make, std::string &Diagnostics, std::string &Error) {
  if (!InProcess)
    return std::nullopt;
  std::vector<std::string> Key = kernelCompileArgs(Source, Args, Triple, Cpu);
  TempFile Obj("perfmodel-kernel", "o");
  std::vector<std::string> A = Key;
  A.insert(A.end() - 1, ExtraFlags.begin(), ExtraFlags.end());
  A.push_back("-o");
  A.push_back(std::string(Obj.Path));
  std::optional<bool> Ok;
  {
    StageScope Timed(Stage::Compile);
    Ok = compileHere(A, Error, &Make, &Diagnostics);
  }
  if (!Ok || !*Ok)
    return Ok;
  ObjectFileBytes Out;
  if (!readObject(std::string(Obj.Path), Out, Error))
    return false;
  parsedObjects()[Key] = std::move(Out);
  return true;
}

bool perfmodel::compileKernel(const std::string &Source,
                              const std::vector<std::string> &Args,
                              const std::string &Triple, const std::string &Cpu,
                              ObjectFileBytes &Out, std::string &Error) {
  std::vector<std::string> Key = kernelCompileArgs(Source, Args, Triple, Cpu);
  if (auto It = parsedObjects().find(Key); It != parsedObjects().end()) {
    Out = std::move(It->second); // taken once: -p analyses file after file
    parsedObjects().erase(It);
    return true;
  }
  TempFile Obj("perfmodel-kernel", "o");
  std::vector<std::string> A = std::move(Key);
  A.push_back("-o");
  A.push_back(std::string(Obj.Path));
  std::optional<bool> Here;
  if (InProcess) {
    StageScope Timed(Stage::Compile);
    Here = compileHere(A, Error);
  }
  if (Here ? !*Here : !runClang(A, Error))
    return false;
  return readObject(std::string(Obj.Path), Out, Error);
}

std::map<std::string, uint64_t> perfmodel::functionAddresses(const std::string &Path) {
  std::map<std::string, uint64_t> Out;
  auto Bin = object::ObjectFile::createObjectFile(Path);
  if (!Bin) {
    consumeError(Bin.takeError());
    return Out;
  }
  for (const object::SymbolRef &Sym : Bin->getBinary()->symbols()) {
    Expected<object::SymbolRef::Type> Type = Sym.getType();
    if (!Type || *Type != object::SymbolRef::ST_Function) {
      consumeError(Type.takeError());
      continue;
    }
    Expected<StringRef> Name = Sym.getName();
    Expected<uint64_t> Addr = Sym.getAddress();
    if (Name && Addr && *Addr)
      Out[Name->str()] = *Addr;
    consumeError(Name.takeError());
    consumeError(Addr.takeError());
  }
  return Out;
}

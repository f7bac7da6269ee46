//===- Frontend.cpp - Run Clang on a file and build its KernelIR ---------===//
//
// Runs Clang 19 on a file (its flags from `--` or compile_commands.json),
// collects each function's signature for the harnesses, walks the loops into
// KernelIR and finishes it: sizes bound from -D, the source or defaults, and
// early exits assumed to run to their bound unless --exit-fraction says.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Frontend.h"
#include "perfmodel/StageTimes.h"

#include "LoopAnalyzer.h"
#include "perfmodel/FrontendAST.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace clang;
using namespace perfmodel;

namespace {

class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  FunctionCollector(ASTContext &Ctx, LoopAnalyzer &LA, KernelIR &IR)
      : Ctx(Ctx), LA(LA), IR(IR) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *F) {
    const SourceManager &SM = Ctx.getSourceManager();
    if (!F->doesThisDeclarationHaveABody() ||
        !SM.isInMainFile(SM.getExpansionLoc(F->getLocation())))
      return true;
    if (const auto *MD = dyn_cast<CXXMethodDecl>(F))
      if (MD->getParent()->isLambda())
        return true; // walked as part of the enclosing function
    if (F->isDependentContext()) {
      // A template pattern: its instantiations are analysed; say so when none.
      if (const FunctionTemplateDecl *TD = F->getDescribedFunctionTemplate()) {
        bool Any = false;
        for (const FunctionDecl *Spec : TD->specializations())
          Any |= Spec->hasBody();
        if (!Any)
          IR.Notes.push_back("template '" + F->getNameAsString() + "' at line " +
                             std::to_string(SM.getPresumedLineNumber(
                                 SM.getExpansionLoc(F->getLocation()))) +
                             " is never instantiated in this file; its loops are "
                             "not analysed");
      }
      return true;
    }
    LA.analyzeFunction(F);
    return true;
  }

private:
  ASTContext &Ctx;
  LoopAnalyzer &LA;
  KernelIR &IR;
};

} // namespace

/// What the analyzer learns of the source beyond the IR: the values of
/// constants, the quotients of parameters in bounds and subscripts, and
/// calls that return a size.
struct perfmodel::SourceFacts {
  std::map<std::string, std::pair<int64_t, std::string>> Values;
  std::map<std::string, Quotient> Quotients;
  std::map<std::string, std::string> Aliases; ///< a call's text -> the size it returns
};

namespace {

class Consumer : public ASTConsumer {
public:
  Consumer(KernelIR &IR, SourceFacts &Values)
      : IR(IR), Values(Values) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Ctx.getDiagnostics().hasErrorOccurred())
      return;
    StageScope Timed(Stage::FrontEnd); // also inside a compile's parse
    LoopAnalyzer LA(Ctx, IR);
    FunctionCollector FC(Ctx, LA, IR);
    FC.TraverseDecl(Ctx.getTranslationUnitDecl());
    Values.Values = LA.sourceValues();
    Values.Quotients = LA.quotients();
    Values.Aliases = LA.aliases();
    IR.DataSymbols = LA.dataSymbols();
  }

private:
  KernelIR &IR;
  SourceFacts &Values;
};

/// "-DNAME=VALUE" for each -D binding whose name TEXT guards as a macro
/// (#ifndef NAME, #if !defined(NAME)): such a size is the compiler's to set.
std::vector<std::string> guardedMacroDefines(llvm::StringRef Text,
                                             const perfmodel::FrontendOptions &Opts) {
  std::vector<std::string> Out;
  for (const auto &[Name, Value] : Opts.Defines) {
    if (Name.empty() || !llvm::all_of(Name, [](char C) { return llvm::isAlnum(C) || C == '_'; }) ||
        llvm::isDigit(Name[0]))
      continue;
    llvm::Regex Guard("^[ \t]*#[ \t]*(ifndef[ \t]+" + Name +
                          "([^A-Za-z0-9_]|$)|if[ \t]+![ \t]*defined[ \t]*\\(?[ \t]*" + Name +
                          "([^A-Za-z0-9_]|$))",
                      llvm::Regex::Newline);
    if (Guard.match(Text))
      Out.push_back("-D" + Name + "=" + std::to_string(Value));
  }
  return Out;
}

std::unique_ptr<tooling::CompilationDatabase>
findDatabase(const perfmodel::FrontendOptions &Opts, std::string &Error, std::string &Note) {
  if (Opts.HasCompileArgs)
    return std::make_unique<tooling::FixedCompilationDatabase>(".", Opts.CompileArgs);
  if (!Opts.CompileCommandsDir.empty()) {
    auto DB = tooling::JSONCompilationDatabase::loadFromDirectory(
        Opts.CompileCommandsDir, Error);
    if (!DB)
      return nullptr;
    Note = "compile flags from " + Opts.CompileCommandsDir + "/compile_commands.json";
    return tooling::inferMissingCompileCommands(std::move(DB));
  }
  // Look for compile_commands.json next to the file and in its parents.
  llvm::SmallString<256> Abs(Opts.File);
  llvm::sys::fs::make_absolute(Abs);
  // build/../src/f.c lives in src/, not in build/ (whose database is not its).
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  for (llvm::StringRef Dir = llvm::sys::path::parent_path(Abs); !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, "compile_commands.json");
    if (!llvm::sys::fs::exists(Candidate))
      continue;
    std::string Ignored;
    if (auto DB = tooling::JSONCompilationDatabase::loadFromDirectory(Dir, Ignored)) {
      Note = "compile flags from " + std::string(Candidate);
      return tooling::inferMissingCompileCommands(std::move(DB));
    }
  }
  return std::make_unique<tooling::FixedCompilationDatabase>(".",
                                                             std::vector<std::string>{});
}

} // namespace

std::string perfmodel::clangResourceDir() {
  if (llvm::sys::fs::is_directory(PERFMODEL_CLANG_RESOURCE_DIR))
    return PERFMODEL_CLANG_RESOURCE_DIR;
  // Built elsewhere than run: ask the compiler.
  if (auto Clang = llvm::sys::findProgramByName("clang-19")) {
    llvm::SmallString<128> Out;
    llvm::sys::fs::createTemporaryFile("perfmodel-resdir", "txt", Out);
    std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out),
                                                  std::nullopt};
    llvm::StringRef Args[] = {*Clang, "-print-resource-dir"};
    if (llvm::sys::ExecuteAndWait(*Clang, Args, std::nullopt, Redirects) == 0) {
      auto Buf = llvm::MemoryBuffer::getFile(Out);
      llvm::sys::fs::remove(Out);
      if (Buf)
        return (*Buf)->getBuffer().trim().str();
    }
    llvm::sys::fs::remove(Out);
  }
  return PERFMODEL_CLANG_RESOURCE_DIR;
}

namespace {

/// NAME=... as a shell takes it: quoted where NAME is more than a word
/// (-D 'state.range(0)=...', -D '*n=...').
std::string defineArg(const std::string &Name) {
  bool Word = llvm::all_of(Name, [](char C) { return llvm::isAlnum(C) || C == '_' || C == '.'; });
  return Word ? Name + "=..." : "'" + Name + "=...'";
}

/// Loops that can exit early: their iterations are priced as written; how
/// many run is an assumption the report states: all of the bound's, or the
/// share FRACTION of them (a derived size, so -D and validate move it too).
void assumeExits(KernelIR &IR, double Fraction,
                 std::map<std::string, Quotient> &Quotients) {
  for (LoopKernel &K : IR.Loops)
    for (LoopLevel &L : K.Nest) {
      if (L.Exit.empty() || !K.Modelled)
        continue;
      std::string Note = "the loop at line " + std::to_string(L.Loc.Line) +
                         " can exit early (" + L.Exit + "): ";
      Poly Span = L.Upper - L.Lower;
      bool Moves = llvm::any_of(K.Nest, [&](const LoopLevel &O) { return Span.mentions(O.Var); });
      if (Fraction >= 1.0) {
        Note += "priced as running to its bound, every iteration (--exit-fraction F prices a "
                "share F of them); the cycles per iteration do not depend on it";
      } else if (Moves) {
        Note += "priced as running to its bound: --exit-fraction does not apply to a bound "
                "that moves with an enclosing loop";
      } else {
        const std::string FractionText = llvm::formatv("{0}", Fraction).str();
        constexpr int64_t Scale = 1'000'000;
        Poly Share = Span * Poly::constant(std::llround(Fraction * Scale));
        if (auto C = Share.evaluate({})) {
          L.Upper = L.Lower + Poly::constant(*C / Scale);
        } else {
          std::string SpanText = Span.str();
          if (!llvm::all_of(SpanText, [](char C) { return isalnum(C) || C == '_'; }))
            SpanText = "(" + SpanText + ")";
          std::string Name = SpanText + "*" + FractionText;
          Quotients[Name] = {Share, Scale, std::nullopt};
          L.Upper = L.Lower + Poly::symbol(Name);
        }
        Note += "priced as running " + FractionText + " of its bound's iterations (--exit-fraction)";
      }
      K.Notes.push_back(Note);
    }
}

/// K's counter FROM written TO in its levels and references.
void renameCounter(LoopKernel &K, const std::string &From, const std::string &To) {
  for (LoopLevel &L : K.Nest) {
    if (L.Var == From)
      L.Var = To;
    L.Lower = L.Lower.renamed(From, To);
    L.Upper = L.Upper.renamed(From, To);
  }
  for (std::vector<Access> *List : {&K.Accesses, &K.OuterAccesses})
    for (Access &A : *List) {
      for (Poly &P : A.Subscripts)
        P = P.renamed(From, To);
      for (std::optional<Poly> &D : A.Dims)
        if (D)
          D = D->renamed(From, To);
      if (A.Linear)
        A.Linear = A.Linear->renamed(From, To);
      if (A.Row)
        A.Row = A.Row->renamed(From, To);
    }
}

/// Binds size parameters, relabels paths as the user named the file, and
/// orders the loops: the part of the analysis after Clang's AST walk.
void finalizeIR(KernelIR &IR, const SourceFacts &Facts, const perfmodel::FrontendOptions &Opts) {
  const auto &SourceValues = Facts.Values;
  auto Quotients = Facts.Quotients;
  assumeExits(IR, Opts.ExitFraction, Quotients);
  // Size parameters: every symbol a bound, subscript or extent mentions that
  // is not a loop counter or a value read from memory; a quotient (N/2)
  // brings its numerator's too.
  std::set<std::string> Symbols;
  std::function<void(const Poly &, const std::set<std::string> &)> Collect =
      [&](const Poly &P, const std::set<std::string> &Counters) {
        for (const std::string &S : P.symbols())
          if (!Counters.count(S) && !IR.DataSymbols.count(S) && Symbols.insert(S).second)
            if (auto Q = Quotients.find(S); Q != Quotients.end()) {
              Collect(Q->second.Numerator, Counters);
              if (Q->second.By)
                Collect(*Q->second.By, Counters);
            }
      };
  for (const LoopKernel &K : IR.Loops) {
    std::set<std::string> Counters;
    for (const LoopLevel &L : K.Nest)
      Counters.insert(L.Var);
    for (const LoopLevel &L : K.Nest) {
      Collect(L.Lower, Counters);
      Collect(L.Upper, Counters);
    }
    for (const Access &A : K.Accesses) {
      for (const Poly &P : A.Subscripts)
        Collect(P, Counters);
      if (A.Linear) // pointer arithmetic: *(p + s*stride + i)
        Collect(*A.Linear, Counters);
      for (const auto &D : A.Dims)
        if (D)
          Collect(*D, Counters);
    }
  }
  // A counter named like a size of another loop (a loop over k here, a
  // parameter k there) would take the size's value where the bindings are
  // substituted: it gets a name of its own.
  for (LoopKernel &K : IR.Loops)
    for (size_t L = 0; L < K.Nest.size(); ++L)
      if (std::string From = K.Nest[L].Var; Symbols.count(From)) {
        std::string To = From + "'";
        while (Symbols.count(To))
          To += "'";
        renameCounter(K, From, To);
        K.Notes.push_back("the counter " + From + " is written " + To + ": '" + From +
                          "' is also a size in the file (-D " + From + "=... binds the size)");
      }
  // -D by a call's text (domain.numElem()) binds the size it returns.
  std::map<std::string, int64_t> Defines = Opts.Defines;
  std::set<std::string> ByAlias;
  for (const auto &[Call, Size] : Facts.Aliases)
    if (auto It = Opts.Defines.find(Call); It != Opts.Defines.end() && !Defines.count(Size)) {
      Defines[Size] = It->second;
      ByAlias.insert(Call);
    }
  // A size's parameter: -D (DEFS), else the source's value, else FALLBACK
  // with NOTE.
  auto Bind = [&](const std::string &S, const std::map<std::string, int64_t> &Defs,
                  int64_t Fallback, const std::string &Note) {
    Parameter P;
    P.Name = S;
    if (auto It = Defs.find(S); It != Defs.end()) {
      P.Value = It->second;
      P.From = Parameter::Origin::CommandLine;
    } else if (auto SV = SourceValues.find(S); SV != SourceValues.end()) {
      P.Value = SV->second.first;
      P.From = Parameter::Origin::Source;
      P.Where = SV->second.second;
    } else {
      P.Value = Fallback;
      P.From = Parameter::Origin::Default;
      IR.Notes.push_back(Note);
    }
    return P;
  };
  // Steps given by sizes (i += k) are sizes too, defaulting to a step's 1,
  // also where the size is a bound elsewhere (TSVC's n3 = x->b, i += n3,
  // and x->b - 1 a start): 1000 would make the loop a thousand times
  // shorter.
  std::set<std::string> Steps;
  for (const LoopKernel &K : IR.Loops)
    for (const LoopLevel &L : K.Nest)
      if (!L.StepParam.empty())
        Steps.insert(L.StepParam);
  Symbols.insert(Steps.begin(), Steps.end());
  for (const std::string &S : Symbols) {
    if (Steps.count(S) && !Quotients.count(S)) {
      IR.Parameters[S] = Bind(S, Defines, 1,
                              "step '" + S + "' has no value: assumed 1 (bind it with -D " +
                                  defineArg(S) + ")");
      continue;
    }
    if (auto Q = Quotients.find(S); Q != Quotients.end() && !Defines.count(S)) {
      Parameter P;
      P.Name = S;
      P.From = Parameter::Origin::Derived;
      P.Numerator = Q->second.Numerator;
      P.Divisor = Q->second.Divisor;
      P.DivisorSize = Q->second.By;
      IR.Parameters[S] = P;
      continue;
    }
    std::string Also;
    for (const auto &[Call, Size] : Facts.Aliases)
      if (Size == S)
        Also += " or -D '" + Call + "=...'";
    IR.Parameters[S] =
        Bind(S, Defines, Opts.DefaultSize,
             "size parameter '" + S + "' has no value: assumed " +
                 std::to_string(Opts.DefaultSize) + " (bind it with -D " + defineArg(S) + Also +
                 ")");
  }
  // A step given by a size moves its loop by the size's value.
  for (LoopKernel &K : IR.Loops)
    for (LoopLevel &L : K.Nest)
      if (!L.StepParam.empty()) {
        int64_t V = IR.Parameters[L.StepParam].Value.value_or(1);
        L.Step *= V > 0 ? V : 1;
      }
  // Sizes only branches test (if (m == 4) around a nest) take -D or the
  // source's value, never a default: unbound, the branch is taken to run.
  std::set<std::string> GuardSymbols;
  for (const LoopKernel &K : IR.Loops)
    for (const SizeGuard &G : K.Guards)
      for (const Poly *P : {&G.Left, &G.Right})
        for (const std::string &S : P->symbols())
          if (!Symbols.count(S) && !IR.Parameters.count(S) &&
              (Defines.count(S) || SourceValues.count(S)))
            GuardSymbols.insert(S);
  for (const std::string &S : GuardSymbols)
    IR.Parameters[S] = Bind(S, Defines, 0, "");
  {
    const auto &B = IR.bindings();
    for (LoopKernel &K : IR.Loops)
      for (const SizeGuard &G : K.Guards) {
        std::optional<bool> Holds = G.holds(B);
        if (Holds == false) {
          std::string At = "'" + G.Text + "' (line " + std::to_string(G.Line) + ")";
          K.Notes.push_back("does not run at these sizes: " +
                            (G.Negated ? "it is in the else of " + At + ", which holds"
                                       : At + " is false") +
                            "; its time is 0");
          break;
        }
        if (!Holds)
          K.Notes.push_back("runs only where '" + G.Text + "' (line " + std::to_string(G.Line) +
                            ") is " + (G.Negated ? "false" : "true") +
                            ": taken to run (-D binds the sizes it tests)");
      }
  }
  for (const auto &[Name, Value] : Opts.Defines)
    if (!Symbols.count(Name) && !ByAlias.count(Name) && !GuardSymbols.count(Name))
      IR.Notes.push_back("-D " + Name + "=" + std::to_string(Value) +
                                ": no analysed loop uses a parameter named '" + Name +
                                "'");

  // Clang reports absolute paths; show the file as the user named it.
  llvm::SmallString<256> AbsFile(Opts.File);
  llvm::sys::fs::make_absolute(AbsFile);
  llvm::sys::path::remove_dots(AbsFile, true);
  auto Relabel = [&](SourceLoc &L) {
    llvm::SmallString<256> P(L.File);
    llvm::sys::path::remove_dots(P, true);
    if (P == AbsFile)
      L.File = Opts.File;
  };
  forEachLocation(IR, Relabel);
  for (auto &[Name, P] : IR.Parameters) {
    llvm::StringRef W(P.Where);
    if (W.starts_with(AbsFile.str()))
      P.Where = Opts.File + W.substr(AbsFile.size()).str();
  }

  std::stable_sort(IR.Loops.begin(), IR.Loops.end(),
                   [](const LoopKernel &A, const LoopKernel &B) {
                     return std::tie(A.Loc.Line, A.Loc.Column) <
                            std::tie(B.Loc.Line, B.Loc.Column);
                   });
}

} // namespace

KernelIR perfmodel::analyzeTranslationUnit(clang::ASTContext &Ctx,
                                           const perfmodel::FrontendOptions &Opts) {
  KernelIR IR;
  IR.File = Opts.File;
  LoopAnalyzer LA(Ctx, IR);
  FunctionCollector FC(Ctx, LA, IR);
  FC.TraverseDecl(Ctx.getTranslationUnitDecl());
  IR.DataSymbols = LA.dataSymbols();
  finalizeIR(IR, SourceFacts{LA.sourceValues(), LA.quotients(), LA.aliases()}, Opts);
  return IR;
}

perfmodel::FrontendRun::FrontendRun(const perfmodel::FrontendOptions &O)
    : Opts(O), Facts(std::make_unique<SourceFacts>()) {
  FrontendResult &Result = R;
  Result.IR.File = Opts.File;
  if (!llvm::sys::fs::exists(Opts.File)) {
    Result.Error = Opts.File + ": no such file";
    return;
  }
  if (llvm::sys::fs::is_directory(Opts.File)) {
    Result.Error = Opts.File + ": is a directory, expected a C or C++ source file";
    return;
  }
  auto Readable = llvm::MemoryBuffer::getFile(Opts.File);
  if (!Readable) {
    Result.Error = Opts.File + ": cannot read: " + Readable.getError().message();
    return;
  }

  std::string DBError, DBNote;
  DB = findDatabase(Opts, DBError, DBNote);
  if (!DB) {
    Result.Error = "cannot load compile_commands.json: " + DBError;
    return;
  }
  if (!DBNote.empty())
    Result.IR.Notes.push_back(DBNote);
  {
    llvm::SmallString<256> Abs(Opts.File);
    llvm::sys::fs::make_absolute(Abs);
    std::vector<tooling::CompileCommand> Cmds = DB->getCompileCommands(Abs);
    if (Cmds.empty())
      Cmds = DB->getCompileCommands(Opts.File);
    if (!Cmds.empty() && Cmds.front().CommandLine.size() > 1) {
      // Without the compiler, the input and the output; relative include
      // paths made absolute, as later compiles run elsewhere.
      const tooling::CompileCommand &C = Cmds.front();
      auto AbsPath = [&](llvm::StringRef P) {
        llvm::SmallString<256> X(P);
        if (!llvm::sys::path::is_absolute(X))
          llvm::sys::fs::make_absolute(C.Directory, X);
        return std::string(X);
      };
      std::string Input = AbsPath(C.Filename);
      for (size_t I = 1; I < C.CommandLine.size(); ++I) {
        llvm::StringRef A = C.CommandLine[I];
        if (A == "-o" || A == "-MF" || A == "-MT" || A == "-MQ") {
          ++I;
          continue;
        }
        if (A == "-c" || AbsPath(A) == Input)
          continue;
        if ((A == "-I" || A == "-isystem" || A == "-include") && I + 1 < C.CommandLine.size()) {
          Result.CompileArgs.push_back(A.str());
          Result.CompileArgs.push_back(AbsPath(C.CommandLine[++I]));
          continue;
        }
        if (A.starts_with("-I") && A.size() > 2) {
          Result.CompileArgs.push_back("-I" + AbsPath(A.drop_front(2)));
          continue;
        }
        Result.CompileArgs.push_back(A.str());
      }
    }
    if (Opts.HasCompileArgs)
      Result.CompileArgs = Opts.CompileArgs;
  }

  // A size bound with -D that the file takes as a macro it guards (#ifndef
  // N / #define N 256 / #endif) is compiled with that value too: the loops'
  // bounds, the arrays' extents and the machine code then agree.
  Macros = guardedMacroDefines(Readable.get()->getBuffer(), Opts);
  for (const std::string &D : Macros) {
    Result.CompileArgs.push_back(D);
    Result.IR.Notes.push_back(D.substr(2) + ": a macro the file guards with #ifndef; " +
                              "compiled with " + D);
  }
  // The front end's own parse reads `#pragma omp` (-fopenmp) where the
  // flags do not say; a compile with the flags as they are would not.
  bool FlagsSayOpenMP = llvm::any_of(Result.CompileArgs, [](const std::string &A) {
    return llvm::StringRef(A).starts_with("-fopenmp") ||
           llvm::StringRef(A).starts_with("-fno-openmp");
  });
  llvm::Regex Pragma("^[ \t]*#[ \t]*pragma[ \t]+omp", llvm::Regex::Newline);
  AddsOpenMP = !FlagsSayOpenMP && Pragma.match(Readable.get()->getBuffer());
  Ready = true;
}

perfmodel::FrontendRun::~FrontendRun() = default;

std::unique_ptr<clang::ASTConsumer> perfmodel::FrontendRun::consumer() {
  return std::make_unique<Consumer>(R.IR, *Facts);
}

perfmodel::FrontendResult perfmodel::FrontendRun::finish(bool Parsed, std::string Diagnostics) {
  R.Diagnostics = std::move(Diagnostics);
  if (!Ready) // the constructor said why
    return std::move(R);
  if (!Parsed) {
    R.Error = Opts.File + ": Clang could not compile the file (diagnostics above)";
    return std::move(R);
  }
  finalizeIR(R.IR, *Facts, Opts);
  R.Ok = true;
  return std::move(R);
}

FrontendResult perfmodel::runFrontend(const perfmodel::FrontendOptions &Opts) {
  StageScope Timed(Stage::FrontEnd);
  FrontendRun Run(Opts);
  if (!Run.ready())
    return Run.finish(false, "");

  tooling::ClangTool Tool(Run.database(), {Opts.File});
  // The builtin headers of Clang 19 (stddef.h, immintrin.h, omp.h), whatever
  // compiler the database names; OpenMP pragmas are parsed so that
  // `#pragma omp` loops are seen as such.
  std::string ResourceDir = clangResourceDir();
  std::vector<std::string> Macros = Run.macros();
  Tool.appendArgumentsAdjuster([ResourceDir, Macros](const tooling::CommandLineArguments &Args,
                                                     llvm::StringRef) {
    tooling::CommandLineArguments Out;
    bool HasOpenMP = false;
    for (const std::string &A : Args) {
      if (llvm::StringRef(A).starts_with("-fopenmp") ||
          llvm::StringRef(A).starts_with("-fno-openmp"))
        HasOpenMP = true;
      // Flags that only change code generation or GCC-only warnings.
      if (llvm::StringRef(A).starts_with("-resource-dir"))
        continue;
      Out.push_back(A);
    }
    Out.push_back("-resource-dir=" + ResourceDir);
    if (!HasOpenMP)
      Out.push_back("-fopenmp");
    for (const std::string &W : FrontendRun::quietFlags())
      Out.push_back(W);
    Out.insert(Out.end(), Macros.begin(), Macros.end());
    return Out;
  });

  std::string DiagText;
  llvm::raw_string_ostream DiagOS(DiagText);
  auto DiagOpts = llvm::makeIntrusiveRefCnt<DiagnosticOptions>();
  DiagOpts->ShowColors = false;
  TextDiagnosticPrinter Printer(DiagOS, DiagOpts.get());
  Tool.setDiagnosticConsumer(&Printer);

  struct RunAction : ASTFrontendAction {
    FrontendRun &Run;
    explicit RunAction(FrontendRun &Run) : Run(Run) {}
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, llvm::StringRef) override {
      return Run.consumer();
    }
  };
  struct RunFactory : tooling::FrontendActionFactory {
    FrontendRun &Run;
    explicit RunFactory(FrontendRun &Run) : Run(Run) {}
    std::unique_ptr<FrontendAction> create() override { return std::make_unique<RunAction>(Run); }
  } F(Run);
  int RC = Tool.run(&F);
  DiagOS.flush();
  return Run.finish(RC == 0, DiagText);
}

const std::vector<std::string> &perfmodel::FrontendRun::quietFlags() {
  static const std::vector<std::string> Flags = {"-Wno-unknown-pragmas",
                                                 "-Wno-unused-command-line-argument",
                                                 "-Wno-unknown-warning-option"};
  return Flags;
}

//===- Frontend.h - Source file to KernelIR --------------------*- C++ -*-===//
//
// The front end's entry point: a C or C++ file with its flags (given, or from
// compile_commands.json), -D sizes and exit fractions in; the KernelIR of its
// loops, Clang's diagnostics and the flags it compiled with out.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_FRONTEND_H
#define PERFMODEL_FRONTEND_H

#include "perfmodel/KernelIR.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace clang {
class ASTConsumer;
namespace tooling {
class CompilationDatabase;
}
} // namespace clang

namespace perfmodel {

struct FrontendOptions {
  std::string File;
  /// Compile flags given after `--`; when set, no compilation database is read.
  std::vector<std::string> CompileArgs;
  bool HasCompileArgs = false;
  /// Directory holding compile_commands.json; empty = search upwards from File.
  std::string CompileCommandsDir;
  /// -D name=value bindings of size parameters.
  std::map<std::string, int64_t> Defines;
  /// Value assumed for a size parameter that nothing binds.
  int64_t DefaultSize = 1000;
  /// The share of its bound's iterations a loop that can exit early runs
  /// (1: the exit is not taken).
  double ExitFraction = 1.0;
};

struct FrontendResult {
  bool Ok = false;
  std::string Error;       ///< perfmodel's own message when !Ok
  std::string Diagnostics; ///< Clang's diagnostics, as Clang prints them
  KernelIR IR;
  /// The file's compile command as found (compile_commands.json or the
  /// flags after `--`), without the compiler: what later compiles of the
  /// kernel (in-core, timing harness) must use too.
  std::vector<std::string> CompileArgs;
};

/// Parses FILE with Clang 19 and extracts every loop nest.
FrontendResult runFrontend(const FrontendOptions &Opts);

struct SourceFacts;

/// runFrontend in steps, for a host that parses the file in a compile of
/// its own (analyze's in-core compile: the file is then parsed once): the
/// constructor checks the file and finds its flags (result().CompileArgs,
/// with the guarded macros the -D bind); consumer() collects the loops from
/// the AST of a parse with those flags; finish() completes the result.
/// runFrontend's own parse adds -fopenmp where the flags lack it (so that
/// `#pragma omp` loops are seen) and quietFlags().
class FrontendRun {
public:
  explicit FrontendRun(const FrontendOptions &Opts);
  ~FrontendRun();
  bool ready() const { return Ready; } ///< false: finish(false) says why
  const FrontendResult &result() const { return R; }
  /// The file has `#pragma omp` and its flags do not mention OpenMP.
  bool addsOpenMP() const { return AddsOpenMP; }
  const std::vector<std::string> &macros() const { return Macros; }
  clang::tooling::CompilationDatabase &database() { return *DB; }
  std::unique_ptr<clang::ASTConsumer> consumer();
  /// The result, after the consumer ran on a parse (PARSED: without errors)
  /// that printed DIAGNOSTICS; call once.
  FrontendResult finish(bool Parsed, std::string Diagnostics);
  /// Warnings the front end's parse turns off (pragmas of other tools).
  static const std::vector<std::string> &quietFlags();

private:
  FrontendOptions Opts;
  FrontendResult R;
  std::unique_ptr<SourceFacts> Facts;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB;
  std::vector<std::string> Macros;
  bool Ready = false, AddsOpenMP = false;
};

/// The Clang resource directory used for builtin headers.
std::string clangResourceDir();

} // namespace perfmodel

#endif

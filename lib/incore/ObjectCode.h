//===- ObjectCode.h - Compile with clang-19, read objects (internal) ------===//
//
// Compiling with clang-19 and reading the object: the bytes and source lines
// of each function, for the machine loops and the nest around them.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_OBJECTCODE_H
#define PERFMODEL_OBJECTCODE_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTConsumer;
}

namespace perfmodel {

struct FunctionCode {
  std::string Name;
  uint64_t Address = 0;
  /// The alignment of its section: where it is linked, its code keeps its
  /// offsets modulo this (a function placement the object leaves open).
  uint64_t SectionAlign = 16;
  std::vector<uint8_t> Bytes;
  std::vector<unsigned> Lines; ///< source line per byte offset (0: unknown)
  /// Symbols that relocations inside the function refer to, by byte offset
  /// (a call's target: memcpy where the compiler replaced a loop).
  std::map<uint64_t, std::string> Symbols;
};

struct ObjectFileBytes {
  std::vector<uint8_t> Text; ///< all of .text (assembly input)
  std::vector<FunctionCode> Functions;
};

/// Runs clang-19 with ARGS; on failure Error holds its diagnostics.
bool runClang(const std::vector<std::string> &Args, std::string &Error);

bool assembleToText(const std::string &File, const std::string &Triple,
                    ObjectFileBytes &Out, std::string &Error);

/// Compiles SOURCE at -O3 -g for the CPU, with the user's ARGS, and reads the
/// functions and their line tables.
bool compileKernel(const std::string &Source, const std::vector<std::string> &Args,
                   const std::string &Triple, const std::string &Cpu,
                   ObjectFileBytes &Out, std::string &Error);

using ASTConsumerMaker = std::function<std::unique_ptr<clang::ASTConsumer>()>;

/// compileKernel in this process with a second consumer of the parse's AST
/// (made by MAKE, run after code generation) and EXTRAFLAGS (warnings) on
/// this compile only; compileKernel with the same arguments then takes the
/// object. nullopt where the compile cannot run in this process (nothing
/// was parsed), else whether it succeeded; DIAGNOSTICS gets Clang's.
std::optional<bool> compileKernelParsing(const std::string &Source,
                                         const std::vector<std::string> &Args,
                                         const std::string &Triple, const std::string &Cpu,
                                         const std::vector<std::string> &ExtraFlags,
                                         const ASTConsumerMaker &Make, std::string &Diagnostics,
                                         std::string &Error);


bool readObject(const std::string &Path, ObjectFileBytes &Out, std::string &Error);

} // namespace perfmodel

#endif

//===- Assembly.cpp - Cost an assembly file's .text as one loop body ------===//
//
// `perfmodel incore FILE.s`: the assembly's .text assembled with LLVM's MC
// layer and costed as the body of one loop (llvm-mca's use), with the
// machine file's options.
//
//===----------------------------------------------------------------------===//
#include "ObjectCode.h"
#include "perfmodel/InCore.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

using namespace perfmodel;

InCoreResult perfmodel::analyzeAssemblyFile(const std::string &File,
                                            const InCoreOptions &O) {
  InCoreResult R;
  R.Cpu = O.Cpu;
  if (!llvm::sys::fs::exists(File) || llvm::sys::fs::is_directory(File)) {
    R.Reason = File + ": no such file";
    return R;
  }
  ObjectFileBytes Obj;
  std::string Err;
  if (!assembleToText(File, O.Triple, Obj, Err)) {
    R.Reason = Err;
    return R;
  }
  // A whole function (a compiler's listing): its loop, not the prologue and
  // remainder around it. A bare loop body or a block is costed as given.
  std::string Note;
  if (auto Loop = innermostLoopOfListing(Obj.Text, O, Note)) {
    R = analyzeBlockBytes(*Loop, O);
    R.Notes.insert(R.Notes.begin(), Note);
    return R;
  }
  R = analyzeBlockBytes(Obj.Text, O);
  return R;
}

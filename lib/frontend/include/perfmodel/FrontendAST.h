//===- FrontendAST.h - KernelIR from an AST Clang already built -*- C++ -*-===//
//
// For hosts that run inside a compilation (the Clang plugin): the same
// analysis as runFrontend, on an existing ASTContext. Opts.File names the
// main file as the report should show it; Opts.Defines bind parameters.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_FRONTENDAST_H
#define PERFMODEL_FRONTENDAST_H

#include "perfmodel/Frontend.h"

namespace clang {
class ASTContext;
}

namespace perfmodel {

KernelIR analyzeTranslationUnit(clang::ASTContext &Ctx, const FrontendOptions &Opts);

} // namespace perfmodel

#endif

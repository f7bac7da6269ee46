//===- AstHelpers.h - Small questions about Clang's AST (internal) -*- C++ -*-===//
//
// What the loop analyzer's files ask of an expression or a statement: the
// variable it names, what it writes, an alignment a declaration promises,
// a math function's kind, a container query.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_FRONTEND_ASTHELPERS_H
#define PERFMODEL_FRONTEND_ASTHELPERS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"

#include <initializer_list>

namespace perfmodel::ast {

/// E without parentheses and implicit casts (null stays null).
const clang::Expr *strip(const clang::Expr *E);

/// The variable E names, if it names one.
const clang::VarDecl *refVar(const clang::Expr *E);

/// The alignment in bytes a pointer variable is promised where it is
/// declared: its initialiser is __builtin_assume_aligned(p, N),
/// aligned_alloc(N, s), memalign(N, s) or _mm_malloc(s, N), or a parameter
/// carries align_value(N). 0 when nothing says.
unsigned promisedAlign(const clang::VarDecl *V, clang::ASTContext &Ctx);

/// A for, range-for, while or do statement.
bool isLoopStmt(const clang::Stmt *S);

/// A call of operator[] (std::vector, std::array, a user's container).
bool isSubscriptCall(const clang::Expr *E);

/// Element type of a floating-point scalar or vector-extension type, with the
/// number of lanes.
clang::QualType fpElement(clang::QualType T, unsigned &Lanes);

enum class MathKind { None, Free, Sqrt, Fma, Other };
/// What a math function's call costs in flops (by its name).
MathKind classifyMath(llvm::StringRef Name);

/// Members of standard containers that read nothing but the container header.
bool isContainerQuery(const clang::CXXMethodDecl *MD);

/// A function whose body is empty inline assembly alone (Google
/// Benchmark's DoNotOptimize and ClobberMemory): an optimisation barrier
/// that runs no instructions of its own.
bool isOptimisationBarrier(const clang::FunctionDecl *FD);

/// The expression statement S writes, or may write through its address: an
/// assignment's target, an incremented or address-taken operand.
const clang::Expr *writtenBy(const clang::Stmt *S);

/// How many expressions of S write V (assignments, increments, &V).
unsigned writesOf(const clang::Stmt *S, const clang::VarDecl *V);

/// Whether S names V anywhere.
bool mentionsVar(const clang::Stmt *S, const clang::VarDecl *V);

/// The container of C.begin() / C.end() (NAMES: begin, cbegin or end, cend),
/// through the copies and temporaries that wrap an iterator.
const clang::Expr *containerOf(const clang::Expr *E,
                               std::initializer_list<llvm::StringRef> Names);

} // namespace perfmodel::ast

#endif

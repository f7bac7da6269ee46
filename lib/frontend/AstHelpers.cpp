//===- AstHelpers.cpp - Small questions about Clang's AST -----------------===//
//
// See AstHelpers.h.
//
//===----------------------------------------------------------------------===//
#include "AstHelpers.h"

#include "LoopAnalyzer.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Frontend/OpenMP/OMP.h"


using namespace clang;

namespace perfmodel::ast {

const Expr *strip(const Expr *E) { return E ? E->IgnoreParenImpCasts() : nullptr; }

const VarDecl *refVar(const Expr *E) {
  if (const auto *DR = dyn_cast_or_null<DeclRefExpr>(strip(E)))
    return dyn_cast<VarDecl>(DR->getDecl());
  return nullptr;
}

/// The alignment in bytes a pointer variable is promised where it is
/// declared: its initialiser is __builtin_assume_aligned(p, N),
/// aligned_alloc(N, s), memalign(N, s) or _mm_malloc(s, N), or a parameter
/// carries align_value(N). 0 when nothing says.
unsigned promisedAlign(const VarDecl *V, ASTContext &Ctx) {
  auto Value = [&](const Expr *E) -> unsigned {
    Expr::EvalResult R;
    if (!E || E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
      return 0;
    int64_t N = R.Val.getInt().getExtValue();
    return N > 0 && N <= 4096 && (N & (N - 1)) == 0 ? unsigned(N) : 0;
  };
  if (const auto *AV = V->getAttr<AlignValueAttr>())
    return Value(AV->getAlignment());
  if (!V->getType()->isPointerType() || !V->getInit())
    return 0;
  const auto *CE = dyn_cast<CallExpr>(V->getInit()->IgnoreParenCasts());
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return 0;
  llvm::StringRef N = FD->getName();
  unsigned Arg = N == "__builtin_assume_aligned" || N == "_mm_malloc"  ? 1
                 : N == "aligned_alloc" || N == "memalign"            ? 0
                                                                       : ~0u;
  return Arg < CE->getNumArgs() ? Value(CE->getArg(Arg)) : 0;
}

bool isLoopStmt(const Stmt *S) {
  return isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<CXXForRangeStmt>(S);
}

bool isSubscriptCall(const Expr *E) {
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
  return Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2;
}

/// Element type of a floating-point scalar or vector-extension type, with the
/// number of lanes.
QualType fpElement(QualType T, unsigned &Lanes) {
  Lanes = 1;
  T = T.getCanonicalType();
  if (const auto *VT = T->getAs<VectorType>()) {
    Lanes = VT->getNumElements();
    T = VT->getElementType();
  }
  return T->isRealFloatingType() ? T : QualType();
}


MathKind classifyMath(llvm::StringRef Name) {
  Name.consume_front("__builtin_");
  static const char *Free[] = {"fabs", "fabsf", "fabsl", "abs", "labs", "copysign",
                               "copysignf", "floor", "floorf", "ceil", "ceilf",
                               "trunc", "truncf", "round", "roundf", "rint",
                               "nearbyint", "lround"};
  static const char *Other[] = {
      "exp",   "expf",  "exp2",  "exp2f", "expm1", "log",    "logf",  "log2",
      "log2f", "log10", "log1p", "pow",   "powf",  "sin",    "sinf",  "cos",
      "cosf",  "tan",   "tanf",  "asin",  "acos",  "atan",   "atan2", "sinh",
      "cosh",  "tanh",  "tanhf", "cbrt",  "erf",   "erfc",   "hypot", "fmin",
      "fminf", "fmax",  "fmaxf", "min",   "max",   "fmod",   "fmodf", "tgamma",
      "lgamma"};
  if (Name == "sqrt" || Name == "sqrtf" || Name == "sqrtl")
    return MathKind::Sqrt;
  if (Name == "fma" || Name == "fmaf" || Name == "fmal")
    return MathKind::Fma;
  for (const char *F : Free)
    if (Name == F)
      return MathKind::Free;
  for (const char *O : Other)
    if (Name == O)
      return MathKind::Other;
  return MathKind::None;
}

/// Members of standard containers that read nothing but the container header.
bool isContainerQuery(const CXXMethodDecl *MD) {
  if (!MD || !MD->getParent()->isInStdNamespace())
    return false;
  if (!MD->getIdentifier()) // operators, constructors, conversions
    return false;
  llvm::StringRef N = MD->getName();
  return N == "size" || N == "data" || N == "begin" || N == "end" ||
         N == "cbegin" || N == "cend" || N == "empty";
}

bool isOptimisationBarrier(const FunctionDecl *FD) {
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def)
    return false;
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() == 0)
    return false;
  return llvm::all_of(Body->body(), [&](const Stmt *S) {
    const auto *A = dyn_cast<AsmStmt>(S);
    return A && llvm::StringRef(A->generateAsmString(FD->getASTContext())).trim().empty();
  });
}


/// The expression statement S writes, or may write through its address: an
/// assignment's target, an incremented or address-taken operand.
const Expr *writtenBy(const Stmt *S) {
  if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
    return BO->getLHS();
  if (const auto *UO = dyn_cast<UnaryOperator>(S);
      UO && (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf))
    return UO->getSubExpr();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
      Op && Op->isAssignmentOp() && Op->getNumArgs() > 0)
    return Op->getArg(0);
  return nullptr;
}

/// How many expressions of S write V (assignments, increments, &V).
unsigned writesOf(const Stmt *S, const VarDecl *V) {
  if (!S)
    return 0;
  const Expr *W = writtenBy(S);
  unsigned N = W && refVar(W) == V;
  for (const Stmt *C : S->children())
    N += writesOf(C, V);
  return N;
}


/// Whether S names V anywhere.
bool mentionsVar(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V)
    return true;
  return llvm::any_of(S->children(), [&](const Stmt *C) { return mentionsVar(C, V); });
}


/// The container of C.begin() / C.end() (NAMES: begin, cbegin or end, cend),
/// through the copies and temporaries that wrap an iterator.
const Expr *containerOf(const Expr *E, std::initializer_list<llvm::StringRef> Names) {
  for (unsigned Guard = 0; E && Guard < 8; ++Guard) {
    E = E->IgnoreImplicit()->IgnoreParens();
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1) {
      E = CE->getArg(0);
      continue;
    }
    break;
  }
  const auto *MC = dyn_cast_or_null<CXXMemberCallExpr>(E);
  if (!MC || MC->getNumArgs() != 0 || !MC->getMethodDecl()->getIdentifier())
    return nullptr;
  llvm::StringRef N = MC->getMethodDecl()->getName();
  for (llvm::StringRef Name : Names)
    if (N == Name)
      return MC->getImplicitObjectArgument()->IgnoreParenImpCasts();
  return nullptr;
}

} // namespace perfmodel::ast

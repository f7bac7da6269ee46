//===- LoopAnalyzer.cpp - Clang AST to KernelIR --------------------------===//
//
// A hand-written walk rather than RecursiveASTVisitor: the analysis needs the
// loop nest as a stack and a read/write context flowing down expressions,
// which a visitor would have to rebuild from parent maps.
//
//===----------------------------------------------------------------------===//
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
using namespace perfmodel;

namespace {

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

enum class MathKind { None, Free, Sqrt, Fma, Other };

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

} // namespace

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

SourceLoc LoopAnalyzer::loc(SourceLocation L) const {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLoc R;
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (P.isInvalid())
    return R;
  R.File = P.getFilename();
  R.Line = P.getLine();
  R.Column = P.getColumn();
  return R;
}

std::string LoopAnalyzer::text(const Stmt *S) const {
  const SourceManager &SM = Ctx.getSourceManager();
  CharSourceRange R = CharSourceRange::getTokenRange(S->getSourceRange());
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
    R = SM.getExpansionRange(R);
  llvm::StringRef T = Lexer::getSourceText(R, SM, Ctx.getLangOpts());
  if (T.empty() || T.size() > 200) {
    std::string S2;
    llvm::raw_string_ostream OS(S2);
    S->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return S2;
  }
  // Collapse whitespace so multi-line expressions print on one line.
  std::string Out;
  bool Space = false;
  for (char C : T) {
    if (isspace(static_cast<unsigned char>(C))) {
      Space = !Out.empty();
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

unsigned LoopAnalyzer::sizeOf(QualType T) const {
  T = T.getNonReferenceType();
  if (T->isIncompleteType() || T->isDependentType() || T->isVariablyModifiedType())
    return 0;
  return Ctx.getTypeSizeInChars(T).getQuantity();
}

namespace {

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

} // namespace

void LoopAnalyzer::collectAssigned(const Stmt *S, std::set<const VarDecl *> &Out) const {
  if (!S)
    return;
  if (const Expr *W = writtenBy(S))
    if (const VarDecl *V = refVar(W))
      Out.insert(V); // (address taken: may be written through the pointer)
  for (const Stmt *C : S->children())
    collectAssigned(C, Out);
}

void LoopAnalyzer::collectAssignedMembers(const Stmt *S, std::set<std::string> &Out) const {
  if (!S)
    return;
  if (const Expr *W = writtenBy(S); W && isa<MemberExpr>(strip(W)))
    Out.insert(text(strip(W)));
  for (const Stmt *C : S->children())
    collectAssignedMembers(C, Out);
}

void LoopAnalyzer::collectWrittenInNest(const Stmt *Root) {
  NestRoot = Root;
  AssignedInNest.clear();
  collectAssigned(Root, AssignedInNest);
  MembersAssignedInNest.clear();
  collectAssignedMembers(Root, MembersAssignedInNest);
}

bool LoopAnalyzer::invariantMember(const MemberExpr *ME) const {
  if (!ME || !isa<FieldDecl>(ME->getMemberDecl()) || ME->getType().isVolatileQualified() ||
      MembersAssignedInNest.count(text(ME)))
    return false;
  const Expr *Base = strip(ME->getBase());
  if (isa<CXXThisExpr>(Base)) {
    if (Frames.empty() || !Frames.back().Object)
      return true; // a method's own loop: this does not change
    if (MembersAssignedInNest.count(exprText(ME)))
      return false;
    const Expr *O = Frames.back().Object;
    if (const auto *OM = dyn_cast<MemberExpr>(O))
      return invariantMember(OM);
    const VarDecl *V = refVar(O);
    return V && !AssignedInNest.count(V);
  }
  if (const auto *Inner = dyn_cast<MemberExpr>(Base)) // g.dims.n, p->q->n
    return invariantMember(Inner);
  const VarDecl *V = refVar(Base);
  return V && !AssignedInNest.count(V);
}

bool LoopAnalyzer::invariantDeref(const UnaryOperator *UO) const {
  if (!UO || UO->getOpcode() != UO_Deref || !UO->getType()->isIntegerType() ||
      UO->getType().isVolatileQualified())
    return false;
  const VarDecl *V = refVar(UO->getSubExpr());
  if (!V || AssignedInNest.count(V) || !NestRoot)
    return false;
  // A store through V anywhere in the nest: *V = ..., V[k] += ..., ++*V.
  auto ThroughV = [&](const Expr *E) {
    E = strip(E);
    if (const auto *D = dyn_cast<UnaryOperator>(E); D && D->getOpcode() == UO_Deref)
      return refVar(D->getSubExpr()) == V;
    if (const auto *A = dyn_cast<ArraySubscriptExpr>(E))
      return refVar(A->getBase()) == V;
    return false;
  };
  std::function<bool(const Stmt *)> Writes = [&](const Stmt *S) {
    if (!S)
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->isAssignmentOp() && ThroughV(BO->getLHS()))
      return true;
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && U->isIncrementDecrementOp() && ThroughV(U->getSubExpr()))
      return true;
    if (isa<CallExpr>(S)) // a call may write through V (its address escaped)
      for (const Stmt *C : S->children())
        if (const auto *E = dyn_cast_or_null<Expr>(C); E && refVar(E) == V)
          return true;
    for (const Stmt *C : S->children())
      if (Writes(C))
        return true;
    return false;
  };
  return !Writes(NestRoot);
}

std::optional<LoopAnalyzer::InlineFrame> LoopAnalyzer::inlineFrame(const Expr *E) const {
  const auto *C = dyn_cast<CallExpr>(E->IgnoreParens());
  if (!C || isSubscriptCall(C))
    return std::nullopt;
  const FunctionDecl *FD = C->getDirectCallee();
  const FunctionDecl *Def = nullptr;
  if (!FD || !FD->hasBody(Def) || !Def || Frames.size() >= 4 || Inlining.count(Def))
    return std::nullopt;
  // The user's own code only: library and intrinsic headers (std::vector's
  // size(), _mm256_add_pd) have their own handling.
  if (Ctx.getSourceManager().isInSystemHeader(Def->getLocation()))
    return std::nullopt;
  for (const DeclContext *D = Def->getDeclContext(); D; D = D->getParent())
    if (D->isStdNamespace())
      return std::nullopt;
  for (const InlineFrame &F : Frames)
    if (F.Def == Def)
      return std::nullopt; // recursive
  const auto *MD = dyn_cast<CXXMethodDecl>(Def);
  if (MD && MD->isVirtual())
    return std::nullopt;
  // return EXPR; after locals defined once (double t = x * x;), which the
  // returned expression may use.
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Def->getBody());
  if (!Body || Body->size() == 0 || Body->size() > 8 || containsLoop(Body))
    return std::nullopt;
  const auto *Ret = dyn_cast<ReturnStmt>(Body->body_back());
  if (!Ret || !Ret->getRetValue())
    return std::nullopt;
  InlineFrame F;
  for (const Stmt *St : Body->body()) {
    if (St == Ret)
      break;
    const auto *DS = dyn_cast<DeclStmt>(St);
    const auto *V = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    if (!V || !V->getInit() || V->getType()->isReferenceType() || isAssignedIn(V, Body))
      return std::nullopt;
    F.Locals.push_back(V->getInit());
  }
  F.Def = Def;
  F.Result = Ret->getRetValue();
  F.CallText = text(C);
  unsigned First = 0; // the first argument a parameter takes
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(C)) {
    F.Object = MC->getImplicitObjectArgument();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(C); OC && MD) {
    F.Object = OC->getArg(0); // a(i, j): the object is the operator's first argument
    First = 1;
  } else if (MD && !MD->isStatic()) {
    return std::nullopt;
  }
  if (F.Object) {
    F.Object = F.Object->IgnoreParenImpCasts();
    F.ObjectIsPointer = F.Object->getType()->isPointerType();
  }
  if (C->getNumArgs() < First + Def->getNumParams())
    return std::nullopt; // default arguments: not followed
  for (unsigned I = 0; I < Def->getNumParams(); ++I)
    F.Args[Def->getParamDecl(I)] = C->getArg(First + I);
  return F;
}

std::string LoopAnalyzer::exprText(const Expr *E) const {
  const auto *ME = dyn_cast<MemberExpr>(E->IgnoreParenImpCasts());
  if (ME && isa<CXXThisExpr>(strip(ME->getBase())) && !Frames.empty() && Frames.back().Object)
    return exprText(Frames.back().Object) + (Frames.back().ObjectIsPointer ? "->" : ".") +
           ME->getMemberDecl()->getNameAsString();
  if (ME && !Frames.empty()) // a field of a field: dims.n -> g.dims.n
    if (const auto *Inner = dyn_cast<MemberExpr>(strip(ME->getBase())))
      return exprText(Inner) + (ME->isArrow() ? "->" : ".") +
             ME->getMemberDecl()->getNameAsString();
  return text(E);
}

const Expr *LoopAnalyzer::argumentFor(const ParmVarDecl *P, size_t &Outer) const {
  for (size_t I = Frames.size(); I-- > 0;) {
    auto It = Frames[I].Args.find(P);
    if (It != Frames[I].Args.end()) {
      Outer = I;
      return It->second;
    }
  }
  return nullptr;
}

bool LoopAnalyzer::visitInlined(const Expr *C, Use U) {
  std::optional<InlineFrame> F = inlineFrame(C);
  if (!F)
    return false;
  // The arguments are evaluated once, in the caller.
  for (const auto &[P, A] : F->Args)
    visit(A, Use::Read);
  const Expr *Result = F->Result;
  bool Reference = F->Def->getReturnType()->isReferenceType();
  Frames.push_back(std::move(*F));
  for (const Expr *Init : Frames.back().Locals)
    visit(Init, Use::Read);
  if (Reference || U != Use::Read)
    visitLValue(Result, U);
  else
    visit(Result, Use::Read);
  Frames.pop_back();
  return true;
}

std::optional<std::pair<const Expr *, LoopAnalyzer::PolyResult>>
LoopAnalyzer::pointerOffset(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const VarDecl *V = refVar(E); V && PointerIVs.count(V) && IVs.count(V)) {
    PolyResult At; // a pointer counter: its array at the counter
    At.P = Poly::symbol(IVs.at(V));
    return std::make_pair(strip(PointerIVs.at(V)), At);
  }
  if (auto Stepped = steppedPointer(E))
    return Stepped;
  if (refVar(E) && (E->getType()->isPointerType() || E->getType()->isArrayType()))
    return std::make_pair(E, PolyResult{});
  if (const auto *UO = dyn_cast<UnaryOperator>(E); UO && UO->getOpcode() == UO_AddrOf)
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(strip(UO->getSubExpr())))
      if (auto Base = pointerOffset(AS->getBase())) {
        PolyResult K = toPoly(AS->getIdx());
        Base->second.merge(K);
        Base->second.P = Base->second.P + K.P;
        return Base;
      }
  if (const auto *BO = dyn_cast<BinaryOperator>(E);
      BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
    bool PtrLeft = BO->getLHS()->getType()->isPointerType();
    if (auto Base = pointerOffset(PtrLeft ? BO->getLHS() : BO->getRHS())) {
      PolyResult K = toPoly(PtrLeft ? BO->getRHS() : BO->getLHS());
      Base->second.merge(K);
      Base->second.P = BO->getOpcode() == BO_Add ? Base->second.P + K.P : Base->second.P - K.P;
      return Base;
    }
  }
  return std::nullopt;
}

bool LoopAnalyzer::isCounter(const std::string &Sym) const {
  for (const LoopLevel &L : Nest)
    if (L.Var == Sym)
      return true;
  return false;
}

bool LoopAnalyzer::isAssignedIn(const VarDecl *V, const Stmt *Scope) const {
  std::set<const VarDecl *> S;
  collectAssigned(Scope, S);
  return S.count(V);
}

FlopCounts &LoopAnalyzer::flopsFor(QualType T, unsigned &Lanes) {
  QualType E = fpElement(T, Lanes);
  if (!E.isNull() && E->isSpecificBuiltinType(BuiltinType::Float))
    return Current->Single;
  return Current->Double;
}

FlopCounts &LoopAnalyzer::opsFor(QualType T) {
  unsigned Lanes;
  QualType E = fpElement(T, Lanes);
  if (!E.isNull() && E->isSpecificBuiltinType(BuiltinType::Float))
    return Current->SingleOps[Lanes];
  return Current->DoubleOps[Lanes];
}

void LoopAnalyzer::countContractible(QualType T) {
  unsigned Lanes;
  FlopCounts &F = flopsFor(T, Lanes); // sets Lanes
  F.FmaContractible += Lanes;
  ++opsFor(T).FmaContractible;
}

//===----------------------------------------------------------------------===//
// Affine analysis
//===----------------------------------------------------------------------===//

std::optional<LoopAnalyzer::PolyResult> LoopAnalyzer::macroConstant(const Expr *E) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = E->getBeginLoc(), End = E->getEndLoc();
  if (!B.isMacroID() || !End.isMacroID())
    return std::nullopt;
  // The expression must be exactly one object-like macro use, e.g. `N`.
  CharSourceRange RB = SM.getExpansionRange(B), RE = SM.getExpansionRange(End);
  if (RB.getBegin() != RE.getBegin() || RB.getEnd() != RE.getEnd())
    return std::nullopt;
  SourceLocation Top = B;
  while (SM.getImmediateMacroCallerLoc(Top).isMacroID())
    Top = SM.getImmediateMacroCallerLoc(Top);
  if (!SM.isMacroBodyExpansion(Top) && !SM.isMacroArgExpansion(Top))
    return std::nullopt;
  if (SM.isMacroArgExpansion(Top))
    return std::nullopt;
  llvm::StringRef Name = Lexer::getImmediateMacroName(Top, SM, Ctx.getLangOpts());
  // The macro's spelling in the file must be just its name (object-like).
  llvm::StringRef Spelled = Lexer::getSourceText(RB, SM, Ctx.getLangOpts());
  if (Name.empty() || Spelled != Name)
    return std::nullopt;
  Expr::EvalResult R;
  if (E->isValueDependent() || !E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  int64_t V = R.Val.getInt().getExtValue();
  // The literal was spelled in the #define: point there.
  SourceValues.emplace(Name.str(), std::make_pair(V, loc(SM.getSpellingLoc(B)).str()));
  PolyResult P;
  P.P = Poly::symbol(Name.str());
  return P;
}

LoopAnalyzer::PolyResult LoopAnalyzer::toPoly(const Expr *E, unsigned Depth) {
  PolyResult R;
  if (!E) {
    R.NonAffine = "missing expression";
    return R;
  }
  if (Depth > 16) {
    R.NonAffine = "expression too deeply nested";
    return R;
  }
  if (auto M = macroConstant(E))
    return *M;
  const Expr *S = E->IgnoreParenImpCasts();
  if (S != E)
    if (auto M = macroConstant(S))
      return *M;
  if (const auto *CE = dyn_cast<CastExpr>(S)) // explicit integer casts
    if (CE->getSubExpr()->getType()->isIntegerType())
      return toPoly(CE->getSubExpr(), Depth + 1);
  if (const auto *IL = dyn_cast<IntegerLiteral>(S)) {
    R.P = Poly::constant(IL->getValue().getSExtValue());
    return R;
  }
  if (const auto *DR = dyn_cast<DeclRefExpr>(S)) {
    if (const auto *EC = dyn_cast<EnumConstantDecl>(DR->getDecl())) {
      R.P = Poly::constant(EC->getInitVal().getExtValue());
      return R;
    }
    const auto *V = dyn_cast<VarDecl>(DR->getDecl());
    if (!V) {
      R.NonAffine = "'" + text(S) + "' is not a variable";
      return R;
    }
    if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
      size_t Outer = 0;
      if (const Expr *Arg = argumentFor(P, Outer)) {
        // The argument, in the frames around the call that passed it.
        std::vector<InlineFrame> Inner(Frames.begin() + Outer, Frames.end());
        Frames.resize(Outer);
        PolyResult A = toPoly(Arg, Depth + 1);
        Frames.insert(Frames.end(), Inner.begin(), Inner.end());
        return A;
      }
    }
    auto IV = IVs.find(V);
    if (IV != IVs.end()) {
      R.P = Poly::symbol(IV->second);
      return R;
    }
    std::string Name = V->getName().str();
    bool Assigned = AssignedInFunction.count(V);
    if (V->hasLocalStorage() && !isa<ParmVarDecl>(V) && V->getInit() && !Assigned &&
        !V->getType()->isReferenceType()) {
      // A local computed once from other values: substitute its definition.
      PolyResult Sub = toPoly(V->getInit(), Depth + 1);
      if (Sub.Indirect || Sub.NonAffine.empty())
        return Sub;
      R.NonAffine = "'" + Name + "' = " + text(V->getInit()) + ": " + Sub.NonAffine;
      return R;
    }
    if (Assigned && AssignedInNest.count(V)) {
      // Set once at the top of the innermost body before this use, from
      // values that do not include itself (TSVC's j = i + 1; a[j]): its
      // value in this iteration is that expression.
      if (const Expr *Def = bodyDefinition(V, S)) {
        PolyResult Sub = toPoly(Def, Depth + 1);
        if (Sub.Indirect || Sub.NonAffine.empty())
          return Sub;
      }
      if (auto Stepped = steppedValue(V, DR))
        return *Stepped;
      R.NonAffine = "'" + Name + "' changes inside the loop nest";
      return R;
    }
    if (V->getType().isConstQualified() && V->getInit()) {
      Expr::EvalResult ER;
      if (!V->getInit()->isValueDependent() && V->getInit()->EvaluateAsInt(ER, Ctx))
        SourceValues.emplace(Name, std::make_pair(ER.Val.getInt().getExtValue(),
                                                  loc(V->getLocation()).str()));
    }
    if (!V->getType()->isIntegerType()) {
      R.NonAffine = "'" + Name + "' is not an integer";
      return R;
    }
    R.P = Poly::symbol(Name);
    return R;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S);
      BO && BO->getOpcode() == BO_Sub && BO->getLHS()->getType()->isPointerType() &&
      BO->getRHS()->getType()->isPointerType()) {
    // p - a: elements between two pointers into one array.
    auto L = pointerOffset(BO->getLHS()), Rt = pointerOffset(BO->getRHS());
    if (L && Rt && refVar(L->first) && refVar(L->first) == refVar(Rt->first)) {
      R = L->second;
      R.merge(Rt->second);
      R.P = L->second.P - Rt->second.P;
      return R;
    }
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    PolyResult L = toPoly(BO->getLHS(), Depth + 1), Rt = toPoly(BO->getRHS(), Depth + 1);
    R.merge(L);
    R.merge(Rt);
    switch (BO->getOpcode()) {
    case BO_Add:
      R.P = L.P + Rt.P;
      return R;
    case BO_Sub:
      R.P = L.P - Rt.P;
      return R;
    case BO_Mul:
      R.P = L.P * Rt.P;
      return R;
    case BO_Shl:
      if (Rt.P.isConstant() && Rt.P.constantTerm() >= 0 && Rt.P.constantTerm() < 62) {
        R.P = L.P * Poly::constant(int64_t(1) << Rt.P.constantTerm());
        return R;
      }
      break;
    case BO_Div:
    case BO_Shr: {
      // Values of sizes alone: no counter, nothing loaded from memory.
      auto Sizes = [&](const PolyResult &X) {
        return X.affine() && llvm::none_of(X.P.symbols(), [&](const std::string &Y) {
                 return isCounter(Y) || DataSymbols.count(Y);
               });
      };
      int64_t D = BO->getOpcode() == BO_Div ? Rt.P.constantTerm()
                                            : (Rt.P.constantTerm() < 62
                                                   ? int64_t(1) << Rt.P.constantTerm()
                                                   : 0);
      if (Rt.P.isConstant() && D > 0) {
        bool Exact = true;
        Poly Q;
        for (const auto &[Mon, C] : L.P.terms()) {
          Exact &= C % D == 0;
          Poly T = Poly::constant(C / D);
          for (const std::string &Sym : Mon)
            T = T * Poly::symbol(Sym);
          Q = Q + T;
        }
        if (Exact) {
          R.P = Q;
          return R;
        }
        // A quotient of parameters (N/2 with N a size): a size of its own,
        // which bindings() computes from N; of a counter (i/2) it is not
        // affine.
        if (Sizes(L)) {
          if (L.P.symbols().empty()) {
            R.P = Poly::constant(L.P.constantTerm() / D);
            return R;
          }
          std::string Name = text(S);
          Quotients[Name] = {L.P, D, std::nullopt};
          R.P = Poly::symbol(Name);
          return R;
        }
      }
      // A quotient by a size (iterations/LEN_2D): a derived size too.
      if (BO->getOpcode() == BO_Div && !Rt.P.isConstant() && Sizes(L) && Sizes(Rt)) {
        std::string Name = text(S);
        Quotients[Name] = {L.P, 1, Rt.P};
        R.P = Poly::symbol(Name);
        return R;
      }
      break;
    }
    default:
      break;
    }
    if (R.NonAffine.empty() && !R.Indirect)
      R.NonAffine = "'" + text(S) + "' is not affine";
    return R;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->getOpcode() == UO_Minus || UO->getOpcode() == UO_Plus) {
      R = toPoly(UO->getSubExpr(), Depth + 1);
      if (UO->getOpcode() == UO_Minus)
        R.P = -R.P;
      return R;
    }
    if (UO->getOpcode() == UO_Deref && invariantDeref(UO)) {
      R.P = Poly::symbol(exprText(S));
      return R;
    }
    // out[p++], a[++k]: a counter the nest steps, read where it is stepped.
    if (const auto *DR = dyn_cast<DeclRefExpr>(UO->getSubExpr()->IgnoreParens());
        DR && UO->isIncrementDecrementOp())
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl()); V && AssignedInNest.count(V))
        if (auto Stepped = steppedValue(V, DR))
          return *Stepped;
    if (UO->getOpcode() == UO_Deref) {
      R.Indirect = true;
      R.IndirectVia = text(S);
      R.P = Poly::symbol(R.IndirectVia);
      DataSymbols.insert(R.IndirectVia);
      return R;
    }
  }
  // An integer field the nest does not write (g.n, p->nx) is a size like a
  // parameter, bound with -D g.n=...; one it writes is data.
  if (const auto *ME = dyn_cast<MemberExpr>(S);
      ME && ME->getType()->isIntegerType() && invariantMember(ME)) {
    R.P = Poly::symbol(exprText(S));
    return R;
  }
  if (std::optional<InlineFrame> F = inlineFrame(S); F && !F->Def->getReturnType()->isReferenceType()) {
    // idx(i, j) in a subscript: the returned expression.
    const Expr *Result = F->Result;
    Frames.push_back(std::move(*F));
    PolyResult In = toPoly(Result, Depth + 1);
    Frames.pop_back();
    if (std::set<std::string> Syms = In.P.symbols();
        In.affine() && Syms.size() == 1 && In.P == Poly::symbol(*Syms.begin()) &&
        !isCounter(*Syms.begin()))
      Aliases[exprText(S)] = *Syms.begin();
    return In;
  }
  if (isa<ArraySubscriptExpr>(S) || isSubscriptCall(S) || isa<MemberExpr>(S)) {
    R.Indirect = true;
    R.IndirectVia = text(S);
    R.P = Poly::symbol(R.IndirectVia);
    DataSymbols.insert(R.IndirectVia);
    // Remember where the value comes from, so a simulator given the array's
    // contents can evaluate it: rowptr[i + 1] is element i+1 of rowptr.
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      const VarDecl *Base = refVar(AS->getBase());
      PolyResult Idx = toPoly(AS->getIdx(), Depth + 1);
      if (Base && Idx.affine())
        IR.DataRefs[R.IndirectVia] = {Base->getNameAsString(), Idx.P,
                                      sizeOf(AS->getType())};
    }
    return R;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    if (isContainerQuery(MC->getMethodDecl()) && MC->getNumArgs() == 0 &&
        MC->getMethodDecl()->getIdentifier() &&
        MC->getMethodDecl()->getName() == "size") {
      R.P = Poly::symbol(text(S));
      return R;
    }
  }
  Expr::EvalResult ER;
  if (!S->isValueDependent() && S->EvaluateAsInt(ER, Ctx)) {
    R.P = Poly::constant(ER.Val.getInt().getExtValue());
    return R;
  }
  R.NonAffine = "'" + text(S) + "' is not affine";
  return R;
}

std::optional<Poly> LoopAnalyzer::dimensionSize(const VarDecl *VD, QualType T,
                                                unsigned Level) {
  // Prefer the size as written (`double a[N][M]` keeps N and M symbolic).
  if (VD && VD->getTypeSourceInfo()) {
    TypeLoc TL = VD->getTypeSourceInfo()->getTypeLoc();
    for (unsigned I = 0; I <= Level; ++I) {
      TL = TL.getUnqualifiedLoc();
      if (auto PT = TL.getAs<PointerTypeLoc>(); PT && I == 0) {
        // double (*a)[M]: the pointer is the unknown outer dimension.
        if (Level == 0)
          break;
        TL = PT.getPointeeLoc().IgnoreParens();
        continue;
      }
      auto AT = TL.getAs<ArrayTypeLoc>();
      if (!AT)
        break;
      if (I == Level) {
        if (const Expr *SE = AT.getSizeExpr()) {
          PolyResult P = toPoly(SE);
          if (P.affine())
            return P.P;
        }
        break;
      }
      TL = AT.getElementLoc();
    }
  }
  QualType Cur = T.getCanonicalType();
  for (unsigned I = 0; I < Level; ++I) {
    if (const auto *PT = Cur->getAs<PointerType>(); PT && I == 0)
      Cur = PT->getPointeeType().getCanonicalType();
    else if (const ArrayType *AT = Ctx.getAsArrayType(Cur))
      Cur = AT->getElementType().getCanonicalType();
    else
      return std::nullopt;
  }
  if (const auto *CAT = Ctx.getAsConstantArrayType(Cur))
    return Poly::constant(CAT->getSize().getZExtValue());
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

bool LoopAnalyzer::containsLoop(const Stmt *S) const {
  if (!S)
    return false;
  if (isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S) || isa<CXXForRangeStmt>(S))
    return true;
  if (isa<LambdaExpr>(S))
    return false;
  for (const Stmt *C : S->children())
    if (containsLoop(C))
      return true;
  return false;
}

LoopAnalyzer::LoopExit LoopAnalyzer::findExit(const Stmt *S, bool NestedLoop) const {
  if (!S || isa<LambdaExpr>(S))
    return {};
  auto At = [&](const std::string &What) {
    return What + " at line " + std::to_string(loc(S->getBeginLoc()).Line);
  };
  if (isa<ReturnStmt>(S))
    return {At("return")};
  if (const auto *G = dyn_cast<GotoStmt>(S); G && InnerLabels.count(G->getLabel()))
    return {};
  if (isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return {At("goto")};
  if (const auto *LS = dyn_cast<LabelStmt>(S); LS && !InnerLabels.count(LS->getDecl()))
    return {At("label '" + std::string(LS->getName()) + "'"), true};
  if (isa<BreakStmt>(S) && !NestedLoop)
    return {At("break")};
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (FD->isNoReturn() ||
          (FD->getIdentifier() && (FD->getName() == "exit" || FD->getName() == "longjmp")))
        return {At("call to '" + FD->getNameAsString() + "'")};
  bool Nested = NestedLoop || isa<ForStmt>(S) || isa<WhileStmt>(S) ||
                isa<DoStmt>(S) || isa<CXXForRangeStmt>(S) || isa<SwitchStmt>(S);
  LoopExit First;
  for (const Stmt *C : S->children()) {
    LoopExit R = findExit(C, Nested);
    if (R.Enters)
      return R;
    if (First.Text.empty())
      First = R;
  }
  return First;
}

const Stmt *LoopAnalyzer::lastStatement(const Stmt *Body) const {
  const auto *CS = dyn_cast<CompoundStmt>(Body);
  return CS && !CS->body_empty() ? CS->body_back() : Body;
}

/// Whether S names V anywhere.
static bool mentionsVar(const Stmt *S, const VarDecl *V) {
  if (!S)
    return false;
  if (const auto *DR = dyn_cast<DeclRefExpr>(S); DR && DR->getDecl() == V)
    return true;
  return llvm::any_of(S->children(), [&](const Stmt *C) { return mentionsVar(C, V); });
}

bool LoopAnalyzer::readBeforeDefinition(const VarDecl *V, const Stmt *Body) const {
  const auto *CS = dyn_cast<CompoundStmt>(Body);
  if (!CS)
    return true;
  bool Read = false;
  for (const Stmt *C : CS->body()) {
    const auto *BO = dyn_cast<BinaryOperator>(C);
    if (BO && BO->getOpcode() == BO_Assign && refVar(BO->getLHS()) == V)
      return Read;
    Read |= mentionsVar(C, V);
  }
  return true;
}

std::optional<Poly> LoopAnalyzer::stepOf(const Stmt *S, const VarDecl *V) {
  if (const auto *UO = dyn_cast<UnaryOperator>(S);
      UO && UO->isIncrementDecrementOp() && refVar(UO->getSubExpr()) == V)
    return Poly::constant(UO->isIncrementOp() ? 1 : -1);
  const auto *BO = dyn_cast<BinaryOperator>(S);
  if (!BO || !BO->isAssignmentOp() || refVar(BO->getLHS()) != V)
    return std::nullopt;
  const Expr *By = nullptr;
  int64_t Sign = 1;
  if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) {
    By = BO->getRHS();
    Sign = BO->getOpcode() == BO_AddAssign ? 1 : -1;
  } else if (const auto *Sum = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts());
             BO->getOpcode() == BO_Assign && Sum &&
             (Sum->getOpcode() == BO_Add || Sum->getOpcode() == BO_Sub)) {
    if (refVar(Sum->getLHS()) == V) { // V = V + c, V = V - c
      By = Sum->getRHS();
      Sign = Sum->getOpcode() == BO_Add ? 1 : -1;
    } else if (Sum->getOpcode() == BO_Add && refVar(Sum->getRHS()) == V) {
      By = Sum->getLHS(); // V = c + V
    }
  }
  if (!By || mentionsVar(By, V))
    return std::nullopt;
  // A step of sizes alone: no counter, nothing loaded.
  PolyResult P = toPoly(By, 1);
  if (!P.affine() || llvm::any_of(P.P.symbols(), [&](const std::string &Y) { return isCounter(Y); }))
    return std::nullopt;
  return P.P * Poly::constant(Sign);
}

std::optional<LoopAnalyzer::PolyResult> LoopAnalyzer::steppedValue(const VarDecl *V,
                                                                   const Expr *Use) {
  auto Stepped = steppedCounter(V, Use);
  if (!Stepped || (!Stepped->first && !V->getType()->isIntegerType()))
    return std::nullopt;
  PolyResult Value;
  if (Stepped->first)
    Value = toPoly(Stepped->first, 1);
  else
    Value.P = Poly::symbol(V->getName().str()); // a parameter, from its value
  if (!Value.affine())
    return std::nullopt;
  Value.P = Value.P + Stepped->second;
  return Value;
}

std::optional<std::pair<const Expr *, LoopAnalyzer::PolyResult>>
LoopAnalyzer::steppedPointer(const Expr *E) {
  const VarDecl *V = refVar(E);
  if (!V || !E->getType()->isPointerType() || !AssignedInNest.count(V) || PointerIVs.count(V))
    return std::nullopt;
  auto Stepped = steppedCounter(V, E);
  if (!Stepped)
    return std::nullopt;
  if (!Stepped->first) { // a parameter: its own base
    PolyResult Steps;
    Steps.P = Stepped->second;
    return std::make_pair(E, Steps);
  }
  if (refVar(strip(Stepped->first)) == V)
    return std::nullopt;
  auto Start = pointerOffset(Stepped->first);
  if (Start)
    Start->second.P = Start->second.P + Stepped->second;
  return Start;
}

std::optional<std::pair<const Expr *, Poly>> LoopAnalyzer::steppedCounter(const VarDecl *V,
                                                                           const Expr *Use) {
  size_t Inner = Nest.size();
  if (Inner == 0 || NestLoops.size() != Inner || !CurrentBody)
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Inside = [&](const Stmt *Outer, const Stmt *S) {
    SourceRange R = Outer->getSourceRange();
    return !SM.isBeforeInTranslationUnit(S->getBeginLoc(), R.getBegin()) &&
           !SM.isBeforeInTranslationUnit(R.getEnd(), S->getEndLoc());
  };
  if (!Inside(CurrentBody, Use))
    return std::nullopt;
  // Every write of V in the nest, and those found at a place we understand.
  unsigned Writes = writesOf(NestLoops.front(), V), Placed = 0;
  // Steps in S with no condition or loop on the way to them; false where a
  // write of V is under one. USEOP: the step whose operand is the use.
  const Stmt *UseOp = nullptr;
  std::function<bool(const Stmt *, Poly &, unsigned &)> Steps = [&](const Stmt *S, Poly &Sum,
                                                                    unsigned &N) {
    if (isa<IfStmt, SwitchStmt, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt,
            ConditionalOperator>(S) ||
        (isa<BinaryOperator>(S) && cast<BinaryOperator>(S)->isLogicalOp())) {
      return writesOf(S, V) == 0;
    }
    if (const Expr *W = writtenBy(S); W && refVar(W) == V) {
      auto By = stepOf(S, V);
      if (!By)
        return false;
      Sum = Sum + *By;
      ++N;
      if (const auto *UO = dyn_cast<UnaryOperator>(S); UO && strip(UO->getSubExpr()) == strip(Use))
        UseOp = S;
    }
    for (const Stmt *C : S->children())
      if (C && !Steps(C, Sum, N))
        return false;
    return true;
  };
  // A body's statements (a body without braces is one).
  auto Statements = [](const Stmt *Body) {
    std::vector<const Stmt *> Out;
    if (const auto *CS = dyn_cast<CompoundStmt>(Body))
      Out.assign(CS->body_begin(), CS->body_end());
    else if (Body)
      Out.push_back(Body);
    return Out;
  };
  // The one reset: a statement of an enclosing body before its inner loop,
  // a plain assignment that does not read V or V's declaration there
  // (real_t *A = a;: a fresh one each iteration).
  std::optional<size_t> ResetLevel;
  const Expr *Reset = nullptr;
  bool ResetIsDecl = false;
  for (size_t D = 0; D + 1 < Inner && !Reset; ++D)
    for (const Stmt *C : Statements(NestLoops[D]->getBody())) {
      if (C == NestLoops[D + 1])
        break;
      const auto *BO = dyn_cast<BinaryOperator>(C);
      if (BO && BO->getOpcode() == BO_Assign && refVar(BO->getLHS()) == V &&
          !mentionsVar(BO->getRHS(), V)) {
        ResetLevel = D;
        Reset = BO->getRHS();
      }
      if (const auto *DS = dyn_cast<DeclStmt>(C);
          DS && DS->isSingleDecl() && DS->getSingleDecl() == V && V->getInit()) {
        ResetLevel = D;
        Reset = V->getInit();
        ResetIsDecl = true;
      }
    }
  if (!Reset) {
    // Else a local initialised where it is declared, before the nest, that
    // nothing outside the nest writes (int p = 0; ... out[p++] = ...).
    unsigned InFunction = writesOf(FunctionBody, V);
    // ... and no loop around the nest runs it again from where V was left.
    std::function<bool(const Stmt *, bool)> InLoop = [&](const Stmt *S, bool Looped) {
      if (S == NestLoops.front())
        return Looped;
      bool IsLoop = isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
      for (const Stmt *C : S->children())
        if (C && InLoop(C, Looped || IsLoop))
          return true;
      return false;
    };
    // A parameter starts at its own value (Reset stays null).
    if (!V->hasLocalStorage() || (!isa<ParmVarDecl>(V) && !V->getInit()) || !FunctionBody ||
        InFunction != Writes || InLoop(FunctionBody, false) ||
        !SM.isBeforeInTranslationUnit(V->getLocation(), NestLoops.front()->getBeginLoc()))
      return std::nullopt;
    Reset = isa<ParmVarDecl>(V) ? nullptr : V->getInit();
  }
  Placed = ResetLevel && !ResetIsDecl ? 1 : 0; // an initialiser is not a write
  // R: the level whose body resets V (Inner: before the nest, a level above
  // the outermost). Per level from R inward: the steps before the inner
  // loop (or the use), and all of them per iteration (the inner loop's
  // trips times its steps are added below).
  size_t R = ResetLevel ? *ResetLevel : Inner;
  auto Below = [&](size_t D) { return R == Inner || D > R; };
  std::vector<Poly> Before(Inner), PerIteration(Inner);
  bool UseSeen = false; // the innermost body's statements after the use
  for (size_t D = R == Inner ? 0 : R; D < Inner; ++D) {
    bool AfterReset = Below(D), AfterInner = false;
    const Stmt *Next = D + 1 < Inner ? NestLoops[D + 1] : nullptr;
    for (const Stmt *C : Statements(NestLoops[D]->getBody())) {
      if (C == Next) {
        AfterInner = true;
        continue;
      }
      if (D == R && !AfterReset) {
        const auto *BO = dyn_cast<BinaryOperator>(C);
        const auto *DS = dyn_cast<DeclStmt>(C);
        AfterReset = (BO && BO->getRHS() == Reset) ||
                     (DS && DS->isSingleDecl() && DS->getSingleDecl() == V);
        continue;
      }
      if (D == R && AfterInner)
        continue; // after the nest inside: the next reset undoes it
      Poly Sum;
      unsigned N = 0;
      if (!Steps(C, Sum, N))
        return std::nullopt;
      Placed += N;
      bool UseHere = D + 1 == Inner && Inside(C, Use);
      if (UseHere) {
        // The use's own statement: only its own ++k / k++ may step V there.
        if (N > (UseOp ? 1 : 0))
          return std::nullopt;
        if (UseOp && cast<UnaryOperator>(UseOp)->isPrefix())
          Before[D] = Before[D] + Sum;
        UseSeen = true;
      } else if (!AfterInner && !UseSeen) {
        Before[D] = Before[D] + Sum;
      }
      PerIteration[D] = PerIteration[D] + Sum;
    }
    if (D + 1 < Inner && !AfterInner)
      return std::nullopt; // the inner loop is not a statement of this body
  }
  if (Placed != Writes)
    return std::nullopt; // a write elsewhere (another loop, a call's argument)
  // Innermost outward: a level's iteration takes its own steps and its inner
  // loop's whole run.
  for (size_t D = Inner; D-- > 0 && Below(D);) {
    if (Nest[D].Step != 1 || !Nest[D].StepParam.empty())
      return std::nullopt; // (a size's step is bound only later)
    Poly Trips = Nest[D].Upper - Nest[D].Lower;
    if (llvm::any_of(Trips.symbols(), [&](const std::string &Y) { return isCounter(Y); }))
      return std::nullopt; // a triangle: the steps add up quadratically
    if (D > 0)
      PerIteration[D - 1] = PerIteration[D - 1] + Trips * PerIteration[D];
  }
  Poly K = R == Inner ? Poly() : Before[R];
  for (size_t D = 0; D < Inner; ++D)
    if (Below(D))
      K = K + (Poly::symbol(Nest[D].Var) - Nest[D].Lower) * PerIteration[D] + Before[D];
  return std::make_pair(Reset, K);
}

const Expr *LoopAnalyzer::bodyDefinition(const VarDecl *V, const Stmt *Use) const {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(CurrentBody);
  if (!Body)
    return nullptr;
  // Every write of V in the body: exactly one, a plain assignment that is a
  // statement of the body itself, before the use.
  if (writesOf(Body, V) != 1)
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Stmt *C : Body->body()) {
    const auto *BO = dyn_cast<BinaryOperator>(C);
    if (!BO || BO->getOpcode() != BO_Assign || refVar(BO->getLHS()) != V)
      continue;
    if (mentionsVar(BO->getRHS(), V) || !SM.isBeforeInTranslationUnit(BO->getEndLoc(), Use->getBeginLoc()))
      return nullptr;
    return BO->getRHS();
  }
  return nullptr;
}

LoopAnalyzer::LoopExit LoopAnalyzer::loopExit(const Stmt *Loop, const Stmt *Body) {
  // The body's labels, and those a goto outside the loop names.
  std::set<const LabelDecl *> Labels, Entered;
  std::function<void(const Stmt *)> Collect = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *LS = dyn_cast<LabelStmt>(S))
      Labels.insert(LS->getDecl());
    for (const Stmt *C : S->children())
      Collect(C);
  };
  Collect(Body);
  SourceRange R = Loop->getSourceRange();
  const SourceManager &SM = Ctx.getSourceManager();
  std::function<void(const Stmt *)> Gotos = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *G = dyn_cast<GotoStmt>(S))
      if (Labels.count(G->getLabel()) &&
          (SM.isBeforeInTranslationUnit(G->getBeginLoc(), R.getBegin()) ||
           SM.isBeforeInTranslationUnit(R.getEnd(), G->getBeginLoc())))
        Entered.insert(G->getLabel());
    for (const Stmt *C : S->children())
      Gotos(C);
  };
  Gotos(FunctionBody);
  InnerLabels.clear();
  for (const LabelDecl *L : Labels)
    if (!Entered.count(L))
      InnerLabels.insert(L);
  LoopExit E = findExit(Body, false);
  InnerLabels.clear();
  return E;
}

void LoopAnalyzer::recordSignature(const FunctionDecl *F) {
  FunctionInfo Info;
  Info.Name = FunctionName;
  IR.Cxx = Ctx.getLangOpts().CPlusPlus;
  if (isa<CXXMethodDecl>(F))
    Info.Why = "a member function";
  else if (F->isTemplated() || F->isTemplateInstantiation())
    Info.Why = "a template";
  else if (F->isVariadic())
    Info.Why = "variadic";
  else if (!F->getIdentifier())
    Info.Why = "not a plain named function";
  else if (F->getDeclContext()->isNamespace() || F->getDeclContext()->isRecord())
    Info.Why = "inside a namespace or class";
  Info.Callable = Info.Why.empty();
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressTagKeyword = false;
  for (const ParmVarDecl *P : F->parameters()) {
    FunctionParam FP;
    FP.Name = P->getNameAsString();
    QualType T = P->getType().getCanonicalType();
    FP.Type = P->getType().getAsString(PP);
    if (T->isIntegerType() || T->isEnumeralType()) {
      FP.What = FunctionParam::Kind::Integer;
    } else if (T->isRealFloatingType()) {
      FP.What = FunctionParam::Kind::Floating;
    } else if (T->isPointerType() || T->isArrayType()) {
      QualType E = T->isPointerType() ? T->getPointeeType()
                                      : QualType(T->getArrayElementTypeNoTypeQual(), 0);
      FP.What = FunctionParam::Kind::Pointer;
      // `double C[N][N]` is a pointer to rows: the harness allocates the
      // scalars, and the subscripts are linearised in scalar elements.
      if (E->isArrayType())
        E = Ctx.getBaseElementType(E);
      FP.Pointee = E.getUnqualifiedType().getAsString(PP);
      if (!E->isIncompleteType() && !E->isFunctionType())
        FP.PointeeBytes = unsigned(Ctx.getTypeSizeInChars(E).getQuantity());
      FP.PointeeIsFloating = E->isRealFloatingType();
    }
    if (FP.Name.empty() && Info.Callable) {
      Info.Callable = false;
      Info.Why = "an unnamed parameter";
    }
    Info.Params.push_back(FP);
  }
  IR.Functions[Info.Name] = Info;
}

void LoopAnalyzer::analyzeFunction(const FunctionDecl *F) {
  FunctionName.clear();
  llvm::raw_string_ostream OS(FunctionName);
  F->getNameForDiagnostic(OS, Ctx.getPrintingPolicy(), /*Qualified=*/true);
  OS.flush();
  recordSignature(F);
  FunctionBody = F->getBody();
  AssignedInFunction.clear();
  collectAssigned(FunctionBody, AssignedInFunction);
  Nest.clear();
  IVs.clear();
  NestNotes.clear();
  PendingPragma.clear();
  RangeVars.clear();
  walk(FunctionBody);
}

void LoopAnalyzer::walk(const Stmt *S) {
  if (!S)
    return;
  if (const auto *F = dyn_cast<ForStmt>(S))
    return handleFor(F);
  if (const auto *F = dyn_cast<CXXForRangeStmt>(S))
    return handleRangeFor(F);
  if (isa<WhileStmt>(S))
    return handleOtherLoop(S, "while loop: its trip count depends on a condition "
                              "evaluated at run time");
  if (isa<DoStmt>(S))
    return handleOtherLoop(S, "do-while loop: its trip count depends on a condition "
                              "evaluated at run time");
  if (const auto *D = dyn_cast<OMPLoopDirective>(S)) {
    PendingPragma =
        "omp " + llvm::omp::getOpenMPDirectiveName(D->getDirectiveKind()).str();
    walk(D->getAssociatedStmt());
    PendingPragma.clear();
    return;
  }
  if (const auto *C = dyn_cast<CapturedStmt>(S))
    return walk(C->getCapturedStmt());
  if (const auto *L = dyn_cast<LambdaExpr>(S)) {
    // A lambda body is its own function: save the enclosing nest.
    auto SavedNest = Nest;
    auto SavedIVs = IVs;
    auto SavedName = FunctionName;
    auto SavedNotes = NestNotes;
    auto SavedAssigned = AssignedInNest;
    auto SavedMembers = MembersAssignedInNest;
    Nest.clear();
    IVs.clear();
    NestNotes.clear();
    FunctionName = SavedName + "::lambda@" + std::to_string(loc(L->getBeginLoc()).Line);
    walk(L->getBody());
    Nest = SavedNest;
    IVs = SavedIVs;
    FunctionName = SavedName;
    NestNotes = SavedNotes;
    AssignedInNest = SavedAssigned;
    MembersAssignedInNest = SavedMembers;
    return;
  }
  for (const Stmt *C : S->children())
    walk(C);
}

void LoopAnalyzer::handleOtherLoop(const Stmt *Loop, const std::string &Reason) {
  const Stmt *Body = nullptr;
  if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Body = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(Loop))
    Body = D->getBody();
  else if (const auto *F = dyn_cast<ForStmt>(Loop))
    Body = F->getBody();
  else if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop))
    Body = RF->getBody();
  PendingPragma.clear();
  if (containsLoop(Body)) {
    // Inner loops are still modelled, without the outer trip count.
    NestNotes.push_back("enclosed in a loop at line " +
                        std::to_string(loc(Loop->getBeginLoc()).Line) +
                        " that is not modelled (" + Reason + ")");
    auto SavedNest = Nest;
    walk(Body);
    Nest = SavedNest;
    NestNotes.pop_back();
    return;
  }
  LoopKernel K;
  K.Function = FunctionName;
  K.Loc = loc(Loop->getBeginLoc());
  K.EndLine = loc(Loop->getEndLoc()).Line;
  K.Nest = Nest;
  K.Modelled = false;
  K.Reason = Reason;
  K.Notes = NestNotes;
  IR.Loops.push_back(std::move(K));
}

std::string LoopAnalyzer::parseForHeader(const ForStmt *F, LoopLevel &L,
                                         const VarDecl *&IV) {
  IV = nullptr;
  const Expr *Init = nullptr;
  if (const auto *DS = dyn_cast_or_null<DeclStmt>(F->getInit())) {
    if (!DS->isSingleDecl())
      return "the loop declares several variables; one counter is expected";
    IV = dyn_cast<VarDecl>(DS->getSingleDecl());
    Init = IV ? IV->getInit() : nullptr;
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(F->getInit())) {
    if (BO->getOpcode() == BO_Assign) {
      IV = refVar(BO->getLHS());
      Init = BO->getRHS();
    }
  }
  if (!IV || !Init)
    return "no counter initialisation in the loop header";
  if (IV->getType()->isRecordType())
    return parseIteratorHeader(F, L, IV, Init);
  bool Pointer = IV->getType()->isPointerType();
  if (!IV->getType()->isIntegerType() && !Pointer)
    return "counter '" + IV->getNameAsString() + "' is neither an integer nor a pointer (" +
           IV->getType().getAsString() + ")";
  L.Var = IV->getNameAsString();

  // Step.
  const Expr *Inc = F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr;
  std::optional<int64_t> Step;
  if (const auto *UO = dyn_cast_or_null<UnaryOperator>(Inc)) {
    if (refVar(UO->getSubExpr()) == IV && UO->isIncrementDecrementOp())
      Step = UO->isIncrementOp() ? 1 : -1;
  } else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Inc)) {
    if (refVar(BO->getLHS()) == IV) {
      const Expr *Amount = nullptr;
      int Sign = 1;
      if (BO->getOpcode() == BO_AddAssign || BO->getOpcode() == BO_SubAssign) {
        Amount = BO->getRHS();
        Sign = BO->getOpcode() == BO_AddAssign ? 1 : -1;
      } else if (BO->getOpcode() == BO_Assign) {
        if (const auto *RB = dyn_cast<BinaryOperator>(strip(BO->getRHS())))
          if ((RB->getOpcode() == BO_Add || RB->getOpcode() == BO_Sub) &&
              refVar(RB->getLHS()) == IV) {
            Amount = RB->getRHS();
            Sign = RB->getOpcode() == BO_Add ? 1 : -1;
          }
      }
      Expr::EvalResult ER;
      if (Amount && !Amount->isValueDependent() && Amount->EvaluateAsInt(ER, Ctx)) {
        Step = Sign * ER.Val.getInt().getExtValue();
      } else if (Amount) {
        // A size as the step (i += k): its value comes with the sizes'
        // (finalizeIR); anything else is not a step the models can count.
        PolyResult P = toPoly(Amount);
        std::set<std::string> Syms = P.P.symbols();
        if (!P.affine() || Syms.size() != 1 || P.P != Poly::symbol(*Syms.begin()) ||
            isCounter(*Syms.begin()) || *Syms.begin() == L.Var)
          return "step '" + text(Amount) + "' is not a constant or a size";
        L.StepParam = *Syms.begin();
        Step = Sign;
      }
    }
  }
  if (!Step || *Step == 0)
    return F->getInc() ? "increment '" + text(F->getInc()) + "' is not a constant step"
                       : "no increment in the loop header";
  L.Step = *Step;

  // Bounds.
  const auto *Cond = dyn_cast_or_null<BinaryOperator>(strip(F->getCond()));
  if (!Cond || !Cond->isComparisonOp())
    return F->getCond() ? "condition '" + text(F->getCond()) +
                              "' is not a comparison of the counter"
                        : "no loop condition";
  BinaryOperatorKind Op = Cond->getOpcode();
  const Expr *Bound = nullptr;
  if (refVar(Cond->getLHS()) == IV) {
    Bound = Cond->getRHS();
  } else if (refVar(Cond->getRHS()) == IV) {
    Bound = Cond->getLHS();
    Op = BinaryOperator::reverseComparisonOp(Op);
  } else {
    return "condition '" + text(Cond) + "' does not compare the counter '" + L.Var + "'";
  }
  PolyResult Lo, Hi;
  if (Pointer) {
    // The counter is the element offset from the array both ends point into.
    auto From = pointerOffset(Init), To = pointerOffset(Bound);
    const VarDecl *FromV = From ? refVar(From->first) : nullptr;
    if (!FromV || !To || refVar(To->first) != FromV)
      return "pointer counter '" + L.Var + "': '" + text(Init) + "' and '" + text(Bound) +
             "' are not offsets into one array";
    Lo = From->second;
    Hi = To->second;
    PointerIVs[IV] = From->first;
  } else {
    Lo = toPoly(Init);
    Hi = toPoly(Bound);
  }
  for (PolyResult *P : {&Lo, &Hi})
    if (!P->NonAffine.empty())
      return "bound " + P->NonAffine;
  if (Lo.Indirect || Hi.Indirect)
    NestNotes.push_back("loop '" + L.Var + "' at line " +
                        std::to_string(loc(F->getBeginLoc()).Line) +
                        " has bounds read from memory (" +
                        (Lo.Indirect ? Lo.IndirectVia : Hi.IndirectVia) +
                        "): its trip count depends on the data");
  bool Up = *Step > 0;
  switch (Op) {
  case BO_LT:
  case BO_LE:
  case BO_NE:
    if (!Up)
      return "condition '" + text(Cond) + "' and a negative step never terminate";
    L.Lower = Lo.P;
    L.Upper = Op == BO_LE ? Hi.P + Poly::constant(1) : Hi.P;
    break;
  case BO_GT:
  case BO_GE:
    if (Up)
      return "condition '" + text(Cond) + "' and a positive step never terminate";
    L.Lower = Op == BO_GE ? Hi.P : Hi.P + Poly::constant(1);
    L.Upper = Lo.P + Poly::constant(1);
    break;
  default:
    return "condition '" + text(Cond) + "' is not an ordering comparison";
  }
  if (isAssignedIn(IV, F->getBody()))
    return "counter '" + L.Var + "' is modified in the loop body";
  return "";
}

namespace {

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

} // namespace

std::string LoopAnalyzer::parseIteratorHeader(const ForStmt *F, LoopLevel &L,
                                              const VarDecl *IV, const Expr *Init) {
  L.Var = IV->getNameAsString();
  const Expr *Container = containerOf(Init, {"begin", "cbegin"});
  if (!Container)
    return "iterator '" + L.Var + "' does not start at a container's begin()";
  // ++it or it++
  const auto *Inc = dyn_cast_or_null<CXXOperatorCallExpr>(
      F->getInc() ? F->getInc()->IgnoreParenImpCasts() : nullptr);
  if (!Inc || Inc->getOperator() != OO_PlusPlus || refVar(Inc->getArg(0)) != IV)
    return "iterator '" + L.Var + "' does not step by ++";
  // it != c.end() or it < c.end()
  const auto *Cond = dyn_cast_or_null<CXXOperatorCallExpr>(
      F->getCond() ? F->getCond()->IgnoreImplicit()->IgnoreParens() : nullptr);
  const Expr *End = nullptr;
  if (Cond && Cond->getNumArgs() == 2 &&
      (Cond->getOperator() == OO_ExclaimEqual || Cond->getOperator() == OO_Less) &&
      refVar(Cond->getArg(0)) == IV)
    End = containerOf(Cond->getArg(1), {"end", "cend"});
  if (!End || text(End) != text(Container))
    return "iterator '" + L.Var + "' does not run to the end() of the container it starts in";
  if (isAssignedIn(IV, F->getBody()))
    return "counter '" + L.Var + "' is modified in the loop body";
  L.Lower = Poly::constant(0);
  L.Upper = Poly::symbol(text(Container) + ".size()");
  L.Step = 1;
  IteratorIVs[IV] = Container;
  return "";
}

void LoopAnalyzer::handleFor(const ForStmt *F) {
  LoopLevel L;
  L.Loc = loc(F->getBeginLoc());
  L.Pragma = PendingPragma;
  PendingPragma.clear();
  const VarDecl *IV = nullptr;
  size_t NotesBefore = NestNotes.size();
  bool Root = Nest.empty();
  if (Root) {
    collectWrittenInNest(F);
  }
  std::string Why = parseForHeader(F, L, IV);
  if (Why.empty()) {
    LoopExit Exit = loopExit(F, F->getBody());
    if (Exit.Enters)
      Why = "a goto can enter the loop (" + Exit.Text + ")";
    L.Exit = Exit.Text;
  }
  if (!Why.empty()) {
    PointerIVs.erase(IV);
    IteratorIVs.erase(IV);
    NestNotes.resize(NotesBefore);
    handleOtherLoop(F, Why);
    return;
  }
  Nest.push_back(L);
  NestLoops.push_back(F);
  IVs[IV] = L.Var;
  if (containsLoop(F->getBody())) {
    size_t First = IR.Loops.size();
    walk(F->getBody());
    collectOuterAccesses(F->getBody(), First);
  } else {
    analyzeInnermost(F, F->getBody());
  }
  IVs.erase(IV);
  PointerIVs.erase(IV);
  IteratorIVs.erase(IV);
  Nest.pop_back();
  NestLoops.pop_back();
  NestNotes.resize(NotesBefore);
}

void LoopAnalyzer::handleRangeFor(const CXXForRangeStmt *F) {
  // for (T x : range) iterates range[0 .. size): model it with a hidden counter.
  const Expr *Range = F->getRangeInit();
  QualType RT = Range ? Range->getType().getNonReferenceType() : QualType();
  LoopLevel L;
  L.Loc = loc(F->getBeginLoc());
  L.Pragma = PendingPragma;
  PendingPragma.clear();
  if (Nest.empty()) {
    collectWrittenInNest(F);
  }
  const VarDecl *LV = F->getLoopVariable();
  L.Var = "__" + LV->getNameAsString() + "_idx";
  L.Lower = Poly::constant(0);
  if (const auto *CAT = RT.isNull() ? nullptr : Ctx.getAsConstantArrayType(RT)) {
    L.Upper = Poly::constant(CAT->getSize().getZExtValue());
  } else if (!RT.isNull() && RT->getAsCXXRecordDecl()) {
    L.Upper = Poly::symbol(text(Range) + ".size()");
  } else {
    handleOtherLoop(F, "range-based for over '" + (Range ? text(Range) : "?") +
                           "' whose length is unknown");
    return;
  }
  LoopExit Exit = loopExit(F, F->getBody());
  if (Exit.Enters) {
    handleOtherLoop(F, "a goto can enter the loop (" + Exit.Text + ")");
    return;
  }
  L.Exit = Exit.Text;
  Nest.push_back(L);
  RangeVars[LV] = {Range, L.Var};
  if (containsLoop(F->getBody()))
    walk(F->getBody());
  else
    analyzeInnermost(F, F->getBody());
  RangeVars.erase(LV);
  Nest.pop_back();
}

//===----------------------------------------------------------------------===//
// Innermost loop bodies
//===----------------------------------------------------------------------===//

void LoopAnalyzer::collectOuterAccesses(const Stmt *Body, size_t First) {
  if (First >= IR.Loops.size())
    return;
  // A scratch kernel of the enclosing nest; the innermost loop's state is
  // not in use here (its loops were analysed already), but kept as found.
  LoopKernel Scratch;
  Scratch.Function = FunctionName;
  Scratch.Nest = Nest;
  LoopKernel *SavedCurrent = Current;
  const Stmt *SavedBody = CurrentBody;
  auto SavedIndex = std::move(AccessIndex);
  auto SavedAssigned = std::move(AssignedInBody);
  Current = &Scratch;
  CurrentBody = Body;
  AccessIndex.clear();
  AssignedInBody.clear();
  const auto *Compound = dyn_cast<CompoundStmt>(Body);
  std::vector<const Stmt *> Stmts;
  if (Compound)
    Stmts.assign(Compound->body_begin(), Compound->body_end());
  else
    Stmts.push_back(Body);
  for (const Stmt *S : Stmts)
    if (!containsLoop(S))
      visit(S, Use::Read);
  Current = SavedCurrent;
  CurrentBody = SavedBody;
  AccessIndex = std::move(SavedIndex);
  AssignedInBody = std::move(SavedAssigned);
  for (Access &A : Scratch.Accesses) {
    A.OuterLevel = int(Nest.size()) - 1;
    A.SharedOuter = IR.Loops.size() - First > 1;
  }
  for (size_t I = First; I < IR.Loops.size(); ++I)
    IR.Loops[I].OuterAccesses.insert(IR.Loops[I].OuterAccesses.end(), Scratch.Accesses.begin(),
                                     Scratch.Accesses.end());
}

void LoopAnalyzer::analyzeInnermost(const Stmt *Loop, const Stmt *Body) {
  LoopKernel K;
  K.Function = FunctionName;
  K.Loc = loc(Loop->getBeginLoc());
  K.EndLine = loc(Loop->getEndLoc()).Line;
  K.Nest = Nest;
  K.Notes = NestNotes;
  Current = &K;
  CurrentBody = Body;
  AccessIndex.clear();
  AssignedInBody.clear();
  collectAssigned(Body, AssignedInBody);
  visit(Body, Use::Read);

  // Scalars declared outside the loop and updated from themselves inside it
  // carry a dependence from one iteration to the next.
  for (const VarDecl *V : AssignedInBody) {
    if (IVs.count(V) || !V->hasLocalStorage() || !V->getType()->isScalarType())
      continue;
    SourceRange VR = V->getSourceRange();
    if (Body->getSourceRange().fullyContains(VR))
      continue;
    // Set afresh before any read in each iteration (j = i + 1): not carried.
    if (bodyDefinition(V, Body->getEndLoc().isValid() ? lastStatement(Body) : Body) &&
        !readBeforeDefinition(V, Body))
      continue;
    K.Reductions.push_back(V->getNameAsString());
  }
  std::sort(K.Reductions.begin(), K.Reductions.end());

  for (const Access &A : K.Accesses) {
    if (!A.NonAffine.empty() && K.Modelled)
      K.Notes.push_back("subscript of " + A.Text + " is not affine: " + A.NonAffine);
  }
  Current = nullptr;
  CurrentBody = nullptr;
  IR.Loops.push_back(std::move(K));
}

void LoopAnalyzer::countFlop(const Expr *E, QualType T, char Op) {
  unsigned Lanes;
  if (fpElement(T, Lanes).isNull())
    return;
  FlopCounts &FC = flopsFor(T, Lanes);
  FlopCounts &Ops = opsFor(T);
  switch (Op) {
  case '+':
    FC.Add += Lanes;
    ++Ops.Add;
    break;
  case '*':
    FC.Mul += Lanes;
    ++Ops.Mul;
    break;
  case '/':
    FC.Div += Lanes;
    ++Ops.Div;
    break;
  case 's':
    FC.Sqrt += Lanes;
    ++Ops.Sqrt;
    break;
  case 'f':
    FC.Add += Lanes;
    FC.Mul += Lanes;
    FC.FmaContractible += Lanes;
    ++Ops.Add;
    ++Ops.Mul;
    ++Ops.FmaContractible;
    break;
  default:
    FC.Other += Lanes;
    ++Ops.Other;
    break;
  }
}

bool LoopAnalyzer::countCalleeFlops(const FunctionDecl *FD) {
  // Small helpers defined in the file (`inline double sq(double x)`) are
  // inlined by any optimising compiler: count their arithmetic in place.
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def || Inlining.size() >= 4 || Inlining.count(Def))
    return false; // too deep, or recursive: not something a compiler inlines
  const Stmt *B = Def->getBody();
  if (containsLoop(B))
    return false;
  bool MemoryFree = true;
  std::function<void(const Stmt *)> Check = [&](const Stmt *S) {
    if (!S || !MemoryFree)
      return;
    if (isa<ArraySubscriptExpr>(S) || isa<CXXThisExpr>(S) ||
        (isa<UnaryOperator>(S) && cast<UnaryOperator>(S)->getOpcode() == UO_Deref))
      MemoryFree = false;
    if (const auto *DR = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DR->getDecl()))
        if (V->hasGlobalStorage() || V->getType()->isReferenceType() ||
            V->getType()->isPointerType())
          MemoryFree = false;
    for (const Stmt *C : S->children())
      Check(C);
  };
  Check(B);
  if (!MemoryFree)
    return false;
  auto SavedIndex = AccessIndex;
  size_t AccessesBefore = Current->Accesses.size();
  Inlining.insert(Def);
  visit(B, Use::Read);
  Inlining.erase(Def);
  Current->Accesses.resize(AccessesBefore);
  AccessIndex = SavedIndex;
  return Current->Modelled;
}

void LoopAnalyzer::visitCall(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (FD && visitIntrinsic(C, FD->getNameAsString()))
    return; // visits its own arguments
  for (const Expr *A : C->arguments())
    visit(A, Use::Read);
  if (!FD) {
    if (Current->Modelled) {
      Current->Modelled = false;
      Current->Reason = "indirect call '" + text(C) + "' with unknown side effects";
    }
    return;
  }
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (isContainerQuery(MD))
      return;
  std::string Name = FD->getNameAsString();
  bool Std = FD->isInStdNamespace() || FD->getDeclContext()->isTranslationUnit() ||
             FD->getDeclContext()->isExternCContext();
  MathKind K = Std ? classifyMath(Name) : MathKind::None;
  if (K == MathKind::None && FD->getBuiltinID())
    K = classifyMath(Ctx.BuiltinInfo.getName(FD->getBuiltinID()));
  QualType T = C->getType();
  switch (K) {
  case MathKind::Free:
    return;
  case MathKind::Sqrt:
    return countFlop(C, T, 's');
  case MathKind::Fma:
    return countFlop(C, T, 'f');
  case MathKind::Other:
    countFlop(C, T, 'o');
    Current->MathCalls.push_back(Name);
    Current->Notes.push_back("'" + Name + "' counted as 1 flop per call");
    return;
  case MathKind::None:
    break;
  }
  // exit(), abort(): the iteration that calls them is the last (findExit
  // notes the loop's early exit); the others do not run them.
  if (FD->hasAttr<ConstAttr>() || FD->hasAttr<PureAttr>() || FD->isNoReturn() ||
      (FD->getIdentifier() && FD->getName() == "exit"))
    return;
  if (countCalleeFlops(FD))
    return;
  if (Current->Modelled) {
    Current->Modelled = false;
    Current->Reason = "call to '" + FD->getQualifiedNameAsString() +
                      "' with unknown side effects";
  }
}

bool LoopAnalyzer::visitIntrinsic(const CallExpr *C, const std::string &Name) {
  // x86 SIMD intrinsics (_mm_*, _mm256_*, _mm512_*): loads and stores are
  // vector-wide accesses, arithmetic is one flop per lane.
  llvm::StringRef N(Name);
  if (!N.starts_with("_mm") || !Ctx.getSourceManager().isInSystemHeader(
                                   Ctx.getSourceManager().getExpansionLoc(
                                       C->getDirectCallee()->getLocation())))
    return false;
  auto Arg = [&](unsigned I) { return I < C->getNumArgs() ? C->getArg(I) : nullptr; };
  bool Scalar = N.ends_with("_ss") || N.ends_with("_sd");
  bool Load = N.contains("_load") || N.contains("_lddqu") || N.contains("_broadcast_s");
  bool Store = N.contains("_store") || N.contains("_stream_p");
  if ((Load || Store) && Arg(0) && Arg(0)->getType()->isPointerType()) {
    unsigned Bytes;
    if (Load)
      Bytes = N.contains("_broadcast") || Scalar
                  ? sizeOf(Arg(0)->getType()->getPointeeType())
                  : sizeOf(C->getType());
    else
      Bytes = Arg(C->getNumArgs() - 1) ? sizeOf(Arg(C->getNumArgs() - 1)->getType()) : 0;
    if (Scalar && Store)
      Bytes = sizeOf(Arg(0)->getType()->getPointeeType());
    for (unsigned I = 1; I < C->getNumArgs(); ++I)
      visit(C->getArg(I), Use::Read);
    // _mm256_load_ps, _mm_store_pd, _mm256_stream_ps: the address must be a
    // multiple of the width (the instruction faults otherwise).
    bool Aligned = !Scalar && !N.contains("_broadcast") && !N.contains("_ps1") &&
              (N.contains("_load_") || N.contains("_store_") || N.contains("_stream_"));
    if (Bytes &&
        recordAccess(Arg(0), Load ? Use::Read : Use::Write, Bytes, Aligned))
      return true;
    visit(Arg(0), Use::Read);
    Current->Notes.push_back("address of " + Name + " not analysed: " + text(Arg(0)));
    return true;
  }
  for (const Expr *A : C->arguments())
    visit(A, Use::Read);
  QualType T = C->getType();
  if (Scalar) { // one lane
    unsigned Lanes;
    QualType E = fpElement(T, Lanes);
    if (!E.isNull())
      T = E;
  }
  char Op = 0;
  if (N.contains("_fmadd") || N.contains("_fmsub") || N.contains("_fnmadd") ||
      N.contains("_fnmsub") || N.contains("_fmaddsub") || N.contains("_fmsubadd"))
    Op = 'f';
  else if (N.contains("_add_") || N.contains("_sub_") || N.contains("_hadd_") ||
           N.contains("_hsub_") || N.contains("_addsub_"))
    Op = '+';
  else if (N.contains("_mul_"))
    Op = '*';
  else if (N.contains("_div_"))
    Op = '/';
  else if (N.contains("_sqrt_"))
    Op = 's';
  else if (N.contains("_min_") || N.contains("_max_"))
    Op = 'o';
  if (Op)
    countFlop(C, T, Op);
  return true; // set, shuffle, permute, cast, logic: no flops, no memory
}

void LoopAnalyzer::visitIndicesOnly(const Expr *E) {
  // `&a[i]` computes an address: the subscripts are evaluated, a[i] is not read.
  E = strip(E);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(E)) {
    visit(AS->getIdx(), Use::Read);
    visitIndicesOnly(AS->getBase());
    return;
  }
  if (isa<DeclRefExpr>(E) || isa<MemberExpr>(E))
    return;
  visit(E, Use::Read);
}

void LoopAnalyzer::visitLValue(const Expr *E, Use U) {
  const Expr *S = E->IgnoreParens();
  if (recordAccess(S, U) || visitInlined(S, U))
    return;
  visit(S, Use::Read);
}

void LoopAnalyzer::mergeAccess(Access A, const std::string &Key) {
  // Repeated references to one element are one access, read and/or written.
  A.ReadRefs = A.Read;
  A.WriteRefs = A.Write;
  auto It = AccessIndex.find(Key);
  if (It == AccessIndex.end()) {
    AccessIndex[Key] = Current->Accesses.size();
    Current->Accesses.push_back(std::move(A));
    return;
  }
  Access &Old = Current->Accesses[It->second];
  Old.Read |= A.Read;
  Old.Write |= A.Write;
  Old.AlignedByContract |= A.AlignedByContract; // one address: one promise
  Old.ReadRefs += A.ReadRefs;
  Old.WriteRefs += A.WriteRefs;
  ++Old.Occurrences;
}

void LoopAnalyzer::recordElementAccess(const std::string &Container, const std::string &Text,
                                       const std::string &Counter, unsigned Bytes,
                                       SourceLocation Where, Use U) {
  Access A;
  A.Array = Container;
  A.Text = Text;
  A.ElementBytes = A.StrideBytes = Bytes;
  A.Subscripts = {Poly::symbol(Counter)};
  A.Dims = {std::nullopt};
  A.Linear = A.Subscripts[0];
  A.Read = U != Use::Write;
  A.Write = U != Use::Read;
  A.Loc = loc(Where);
  std::string Key = A.Array + "|" + A.Linear->str();
  mergeAccess(std::move(A), Key);
}

/// The subscripts of access E (REF without its field), outermost first, and
/// its base, with the pointer steps folded into the base's offset.
LoopAnalyzer::ShapeKind LoopAnalyzer::accessShape(const Expr *E, const Expr *Ref,
                                                  const FieldDecl *Field, bool AddressMode,
                                                  Use U, AccessShape &S) {
  std::vector<const Expr *> &Index = S.Index;
  const Expr *&Root = S.Root;
  bool &IsDeref = S.IsDeref;
  Poly &PeeledOffset = S.PeeledOffset;
  const Expr *R = strip(Ref);
  if (Field && cast<MemberExpr>(E)->isArrow()) {
    Root = R; // p->x
  } else if (const auto *AS = dyn_cast<ArraySubscriptExpr>(R)) {
    const Expr *Cur = AS;
    while (const auto *A = dyn_cast<ArraySubscriptExpr>(Cur)) {
      Index.insert(Index.begin(), A->getIdx());
      const Expr *B = strip(A->getBase());
      if (isa<ArraySubscriptExpr>(B) && B->getType()->isArrayType()) {
        Cur = B;
        continue;
      }
      Root = B;
      break;
    }
  } else if (isSubscriptCall(R)) {
    const auto *Op = cast<CXXOperatorCallExpr>(R);
    Index.push_back(Op->getArg(1));
    Root = strip(Op->getArg(0));
  } else if (const auto *UO = AddressMode ? nullptr : dyn_cast<UnaryOperator>(R);
             AddressMode || (UO && UO->getOpcode() == UO_Deref)) {
    IsDeref = true;
    const Expr *P = AddressMode ? E->IgnoreParenCasts() : strip(UO->getSubExpr());
    if (const auto *BO = dyn_cast<BinaryOperator>(P);
        BO && BO->isAdditiveOp() && BO->getType()->isPointerType()) {
      bool PtrLeft = BO->getLHS()->getType()->isPointerType();
      Root = strip(PtrLeft ? BO->getLHS() : BO->getRHS());
      Index.push_back(PtrLeft ? BO->getRHS() : BO->getLHS());
      if (BO->getOpcode() == BO_Sub) // *(p - k): handled as a negated index below
        Index.back() = nullptr;
      // *(p + i + k) parses as *((p + i) + k): fold the inner offsets into
      // the base's offset while the element type stays the same.
      while (const auto *In = dyn_cast<BinaryOperator>(Root)) {
        if (In->getOpcode() != BO_Add || !In->getType()->isPointerType() ||
            !Ctx.hasSameUnqualifiedType(In->getType()->getPointeeType(),
                                        P->getType()->getPointeeType()))
          break;
        bool InLeft = In->getLHS()->getType()->isPointerType();
        PolyResult O = toPoly(InLeft ? In->getRHS() : In->getLHS());
        if (!O.affine())
          break;
        PeeledOffset = PeeledOffset + O.P;
        Root = strip(InLeft ? In->getLHS() : In->getRHS());
      }
    } else {
      Root = P;
    }
  } else if (const auto *DR = dyn_cast<DeclRefExpr>(R); DR && !Field && !AddressMode) {
    const auto *V = dyn_cast<VarDecl>(DR->getDecl());
    if (!V)
      return ShapeKind::NotAnAccess;
    if (size_t Outer = 0; isa<ParmVarDecl>(V) && argumentFor(cast<ParmVarDecl>(V), Outer))
      return ShapeKind::NotAnAccess; // an inlined call's parameter: its argument was read at the call
    auto RV = RangeVars.find(V);
    if (RV != RangeVars.end() && V->getType()->isReferenceType()) {
      // The range-for variable binds to range[idx].
      std::string Range = text(RV->second.first);
      recordElementAccess(Range, Range + "[" + RV->second.second + "]", RV->second.second,
                          sizeOf(V->getType()), DR->getBeginLoc(), U);
      return ShapeKind::Recorded;
    }
    // Scalars in memory: globals, statics and references.
    bool InMemory = V->hasGlobalStorage() || V->getType()->isReferenceType();
    if (!InMemory || V->getType()->isArrayType() || !V->getType()->isScalarType() ||
        V->isConstexpr() || (V->getType().isConstQualified() && V->hasInit()))
      return ShapeKind::NotAnAccess;
    Root = R;
  } else {
    return ShapeKind::NotAnAccess;
  }
  if (!Root)
    return ShapeKind::NotAnAccess;
  // p walking a (for (double *p = a; ...; ++p)): *p, p[k], p->x address a
  // at offset p.
  if (const VarDecl *PV = refVar(Root); PV && PointerIVs.count(PV) && IVs.count(PV)) {
    Root = strip(PointerIVs.at(PV));
    PeeledOffset = PeeledOffset + Poly::symbol(IVs.at(PV));
  }
  // *A with A++ after it, *p++: a pointer the nest steps.
  {
    const Expr *Walker = Root;
    if (const auto *Inc = dyn_cast<UnaryOperator>(Root); Inc && Inc->isIncrementDecrementOp())
      Walker = strip(Inc->getSubExpr());
    if (auto Stepped = steppedPointer(Walker); Stepped && Stepped->second.affine()) {
      Root = strip(Stepped->first);
      PeeledOffset = PeeledOffset + Stepped->second.P;
    }
  }
  return ShapeKind::Access;
}

/// A's base: a named array or pointer, maybe through a local alias
/// (`const double *row = &A[i*n];`), or a pointer loaded from memory (then
/// BASELOADED and A is indirect); ALIASOFFSET grows by the aliases' offsets.
const VarDecl *LoopAnalyzer::resolveBase(Access &A, const Expr *Root, bool AlignedByContract,
                                         Poly &AliasOffset, bool &BaseLoaded) {
  const VarDecl *BaseVar = nullptr;
  const Expr *B = Root;
  for (unsigned Hop = 0; Hop < 4; ++Hop) {
    const VarDecl *V = refVar(B);
    if (!V)
      break;
    BaseVar = V;
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit() ||
        !V->getType()->isPointerType() || AssignedInFunction.count(V))
      break;
    const Expr *Init = strip(V->getInit());
    const Expr *Target = nullptr, *Off = nullptr;
    if (const auto *UO = dyn_cast<UnaryOperator>(Init);
        UO && UO->getOpcode() == UO_AddrOf) {
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(strip(UO->getSubExpr()))) {
        Target = AS->getBase();
        Off = AS->getIdx();
      }
    } else if (const auto *BO = dyn_cast<BinaryOperator>(Init);
               BO && BO->getOpcode() == BO_Add && BO->getType()->isPointerType()) {
      bool PtrLeft = BO->getLHS()->getType()->isPointerType();
      Target = PtrLeft ? BO->getLHS() : BO->getRHS();
      Off = PtrLeft ? BO->getRHS() : BO->getLHS();
    } else if (refVar(Init) && Init->getType()->isPointerType()) {
      Target = Init;
    }
    const VarDecl *TV = refVar(Target);
    if (!TV || !(TV->getType()->isPointerType() ||
                 (TV->getType()->isArrayType() &&
                  !TV->getType()->getArrayElementTypeNoTypeQual()->isArrayType())))
      break;
    if (Off) {
      PolyResult O = toPoly(Off);
      if (!O.affine())
        break;
      AliasOffset = AliasOffset + O.P;
    }
    B = Target;
    BaseVar = TV;
  }
  A.Array = BaseVar ? BaseVar->getNameAsString() : exprText(Root);
  A.AlignedByContract = AlignedByContract;
  if (BaseVar && BaseVar->getType()->isArrayType())
    A.BaseAlignBytes = Ctx.getDeclAlign(BaseVar).getQuantity();
  else if (BaseVar && !AssignedInFunction.count(BaseVar))
    A.BaseAlignBytes = promisedAlign(BaseVar, Ctx);
  BaseLoaded = !BaseVar && !isa<MemberExpr>(Root);
  if (const auto *ME = dyn_cast<MemberExpr>(Root)) {
    // s.a[i], p->a[i] and this->a[i] address the array directly; only a base
    // pointer that is itself loaded (q[k]->a[i]) makes the access indirect.
    const Expr *MB = strip(ME->getBase());
    BaseLoaded = ME->isArrow() && !refVar(MB) && !isa<CXXThisExpr>(MB);
  }
  if (BaseLoaded) {
    A.Indirect = true;
    A.IndirectVia = exprText(Root);
  }
  return BaseVar;
}

/// A's subscripts (INDEX, outermost first), dimensions and linear element
/// offset; REF is E without its field.
void LoopAnalyzer::linearise(Access &A, const AccessShape &S, const Expr *E, const Expr *Ref,
                             const FieldDecl *Field, bool AddressMode, const VarDecl *BaseVar,
                             const Poly &AliasOffset) {
  const std::vector<const Expr *> &Index = S.Index;
  const Expr *Root = S.Root;
  bool Linearisable = true;
  for (size_t I = 0; I < Index.size(); ++I) {
    PolyResult P = Index[I] ? toPoly(Index[I]) : PolyResult();
    if (!Index[I]) { // *(p - k)
      const Expr *PtrExpr = AddressMode ? E->IgnoreParenCasts()
                                        : strip(cast<UnaryOperator>(strip(Ref))->getSubExpr());
      const auto *BO = cast<BinaryOperator>(PtrExpr);
      P = toPoly(BO->getRHS());
      P.P = -P.P;
    }
    if (P.Indirect && !A.Indirect) {
      A.Indirect = true;
      A.IndirectVia = P.IndirectVia;
    }
    if (!P.NonAffine.empty() && A.NonAffine.empty())
      A.NonAffine = P.NonAffine;
    if (P.NonAffine.empty() && !P.Indirect) {
      // Affine means linear in the counters: i*j or i*i is not.
      for (const auto &[Mon, C] : P.P.terms()) {
        unsigned Counters = 0;
        for (const std::string &Sym : Mon)
          Counters += isCounter(Sym);
        if (Counters > 1) {
          P.NonAffine = "'" + text(Index[I] ? Index[I] : Ref) +
                        "' multiplies loop counters";
          break;
        }
      }
      if (!P.NonAffine.empty() && A.NonAffine.empty())
        A.NonAffine = P.NonAffine;
    }
    A.Subscripts.push_back(P.P);
    if (!P.affine())
      Linearisable = false;
  }
  if (Index.empty() && !Field && S.IsDeref)
    A.Subscripts.clear();
  QualType BaseT = BaseVar ? BaseVar->getType() : Root->getType();
  for (size_t I = 0; I < Index.size(); ++I)
    A.Dims.push_back(dimensionSize(BaseVar, BaseT, I));
  if (Linearisable && !A.Indirect) {
    Poly Lin;
    for (size_t I = 0; I < A.Subscripts.size(); ++I) {
      if (I > 0) {
        if (!A.Dims[I]) {
          Linearisable = false;
          break;
        }
        Lin = Lin * *A.Dims[I];
      }
      Lin = Lin + A.Subscripts[I];
    }
    if (Linearisable)
      A.Linear = Lin + AliasOffset;
  }

}

bool LoopAnalyzer::recordAccess(const Expr *E, Use U, unsigned OverrideBytes,
                                bool AlignedByContract) {
  E = E->IgnoreParens();
  // *it of an iterator counter: the container's element at the counter.
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Star && Op->getNumArgs() == 1)
    if (const VarDecl *IV = refVar(Op->getArg(0)); IV && IteratorIVs.count(IV) && IVs.count(IV)) {
      recordElementAccess(text(IteratorIVs.at(IV)), text(E), IVs.at(IV), sizeOf(E->getType()),
                          E->getBeginLoc(), U);
      return true;
    }
  // Address mode (intrinsic loads and stores): E is a pointer to the data.
  bool AddressMode = OverrideBytes > 0 && E->getType()->isPointerType();
  if (AddressMode) {
    const Expr *P = E->IgnoreParenCasts();
    if (const auto *UO = dyn_cast<UnaryOperator>(P); UO && UO->getOpcode() == UO_AddrOf)
      return recordAccess(UO->getSubExpr(), U, OverrideBytes, AlignedByContract);
  }
  // An lvalue of array type (`*B` for `double (*B)[N][N]`) is not read or
  // written as a whole: it decays to a pointer, and the subscripts that
  // follow are the access.
  if (!AddressMode && E->getType()->isArrayType())
    return false;
  // Peel a field access: a[i].x reads sizeof(x) at offsetof(x) in element a[i].
  unsigned FieldOffset = 0;
  const FieldDecl *Field = nullptr;
  const Expr *Ref = E;
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    // An integer field the nest does not write (a size: g.n, this->n) stays
    // in a register; it is not an access.
    if (U == Use::Read && !AddressMode && ME->getType()->isIntegerType() && invariantMember(ME))
      return true;
    Field = dyn_cast<FieldDecl>(ME->getMemberDecl());
    const Expr *Base = strip(ME->getBase());
    bool ThroughMemory = ME->isArrow() || isa<ArraySubscriptExpr>(Base) ||
                         isSubscriptCall(Base);
    if (!Field || !ThroughMemory || Field->getType()->isArrayType())
      return false;
    if (const RecordDecl *RD = Field->getParent(); RD && !RD->isInvalidDecl())
      FieldOffset = Ctx.getASTRecordLayout(RD).getFieldOffset(Field->getFieldIndex()) / 8;
    Ref = ME->isArrow() ? ME->getBase() : Base;
  }

  AccessShape S;
  if (ShapeKind K = accessShape(E, Ref, Field, AddressMode, U, S); K != ShapeKind::Access)
    return K == ShapeKind::Recorded;
  const Expr *Root = S.Root;

  Access A;
  A.Text = text(E);
  // The returned element of an inlined accessor is named by the call.
  if (!Frames.empty())
    A.Text = E->IgnoreParenImpCasts() == Frames.back().Result->IgnoreParenImpCasts()
                 ? Frames.back().CallText
                 : Frames.back().CallText + ": " + A.Text; // x->get(j): v[i]
  A.Loc = loc(E->getBeginLoc());
  A.Read = U != Use::Write;
  A.Write = U != Use::Read;
  unsigned Elem = AddressMode ? sizeOf(E->getType()->getPointeeType()) : sizeOf(E->getType());
  A.ElementBytes = OverrideBytes ? OverrideBytes : Elem;
  // A field's element is its struct (through p->x, the pointee).
  QualType Struct = Ref->getType();
  if (Field && Struct->isPointerType())
    Struct = Struct->getPointeeType();
  A.StrideBytes = Field ? sizeOf(Struct) : Elem;
  if (AddressMode)
    A.Text = "*(" + A.Text + ")";
  A.FieldOffset = FieldOffset;

  Poly AliasOffset = S.PeeledOffset;
  bool BaseLoaded = false;
  const VarDecl *BaseVar = resolveBase(A, Root, AlignedByContract, AliasOffset, BaseLoaded);
  linearise(A, S, E, Ref, Field, AddressMode, BaseVar, AliasOffset);

  // Merge repeated references to the same element.
  std::string Key = A.Array + "|" + std::to_string(A.FieldOffset) + "|" +
                    std::to_string(A.ElementBytes) + "|";
  if (A.Linear)
    Key += A.Linear->str();
  else
    for (const Poly &P : A.Subscripts)
      Key += P.str() + ",";
  if (A.Indirect)
    Key += "|" + A.Text;
  mergeAccess(std::move(A), Key);

  // The subscripts and a loaded base are themselves evaluated (and may read).
  for (const Expr *I : S.Index)
    if (I)
      visit(I, Use::Read);
  if (BaseLoaded)
    visit(S.Root, Use::Read);
  return true;
}

void LoopAnalyzer::visit(const Stmt *S, Use U) {
  if (!S || !Current)
    return;
  if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
    if (BO->isAssignmentOp()) {
      bool Compound = BO->isCompoundAssignmentOp();
      visitLValue(BO->getLHS(), Compound ? Use::ReadWrite : Use::Write);
      visit(BO->getRHS(), Use::Read);
      if (const auto *CA = dyn_cast<CompoundAssignOperator>(BO)) {
        QualType T = CA->getComputationResultType();
        switch (BO->getOpcode()) {
        case BO_AddAssign:
        case BO_SubAssign: {
          countFlop(BO, T, '+');
          unsigned Lanes;
          const auto *M = dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParens());
          if (M && M->getOpcode() == BO_Mul && !fpElement(T, Lanes).isNull() &&
              !fpElement(M->getType(), Lanes).isNull())
            countContractible(T);
          break;
        }
        case BO_MulAssign:
          countFlop(BO, T, '*');
          break;
        case BO_DivAssign:
          countFlop(BO, T, '/');
          break;
        default:
          break;
        }
      }
      return;
    }
    visit(BO->getLHS(), Use::Read);
    visit(BO->getRHS(), Use::Read);
    switch (BO->getOpcode()) {
    case BO_Add:
    case BO_Sub: {
      countFlop(BO, BO->getType(), '+');
      unsigned Lanes;
      if (fpElement(BO->getType(), Lanes).isNull())
        break;
      for (const Expr *Op : {BO->getLHS(), BO->getRHS()}) {
        const auto *M = dyn_cast<BinaryOperator>(Op->IgnoreParens());
        if (M && M->getOpcode() == BO_Mul) {
          countContractible(BO->getType());
          break; // one add fuses with one multiply
        }
      }
      break;
    }
    case BO_Mul:
      countFlop(BO, BO->getType(), '*');
      break;
    case BO_Div:
      countFlop(BO, BO->getType(), '/');
      break;
    default:
      break;
    }
    return;
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
    if (UO->isIncrementDecrementOp()) {
      visitLValue(UO->getSubExpr(), Use::ReadWrite);
      countFlop(UO, UO->getType(), '+');
      return;
    }
    if (UO->getOpcode() == UO_AddrOf) {
      visitIndicesOnly(UO->getSubExpr());
      return;
    }
    if (UO->getOpcode() == UO_Deref && recordAccess(UO, U))
      return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    if ((isSubscriptCall(Op) || Op->getOperator() == OO_Star) && recordAccess(Op, U))
      return;
    if (Op->isAssignmentOp() && Op->getNumArgs() == 2 &&
        Op->getArg(0)->getType()->isScalarType()) {
      visitLValue(Op->getArg(0), Use::Write);
      visit(Op->getArg(1), Use::Read);
      return;
    }
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    if ((isa<ArraySubscriptExpr>(E) || isa<MemberExpr>(E) || isa<DeclRefExpr>(E)) &&
        recordAccess(E, U))
      return;
  }
  if (const auto *CE = dyn_cast<CallExpr>(S); CE && !isa<CXXOperatorCallExpr>(S)) {
    if (!visitInlined(CE, U))
      visitCall(CE);
    return;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    // Overloaded arithmetic on classes (std::complex, ...) is a real call;
    // a one-line operator() is read as what it returns.
    if (!visitInlined(Op, U))
      visitCall(Op);
    return;
  }
  if (const auto *CO = dyn_cast<AbstractConditionalOperator>(S)) {
    Current->Notes.push_back("conditional expression at line " +
                             std::to_string(loc(CO->getBeginLoc()).Line) +
                             ": both arms counted");
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    Current->Notes.push_back("branch at line " + std::to_string(loc(If->getBeginLoc()).Line) +
                             ": flops and accesses of every arm counted");
  }
  if (isa<LambdaExpr>(S))
    return;
  if (const auto *ICE = dyn_cast<ImplicitCastExpr>(S)) {
    visit(ICE->getSubExpr(), U);
    return;
  }
  if (const auto *PE = dyn_cast<ParenExpr>(S)) {
    visit(PE->getSubExpr(), U);
    return;
  }
  for (const Stmt *C : S->children())
    visit(C, Use::Read);
}

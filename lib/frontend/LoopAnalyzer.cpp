//===- LoopAnalyzer.cpp - Clang AST to KernelIR --------------------------===//
//
// A hand-written walk rather than RecursiveASTVisitor: the analysis needs the
// loop nest as a stack and a read/write context flowing down expressions,
// which a visitor would have to rebuild from parent maps.
// This file: the walk over functions and loop nests, and what the other
// parts share; the headers are LoopHeaders.cpp, the innermost body
// LoopBody.cpp, subscripts as polynomials AffineExprs.cpp.
//
//===----------------------------------------------------------------------===//
#include "LoopAnalyzer.h"
#include "AstHelpers.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Frontend/OpenMP/OMP.h"

using namespace clang;
using namespace perfmodel;
using namespace perfmodel::ast;


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
  // Part of a macro's body (NDPTRSET's `v0 + domain.jp`): the expression
  // itself, not the macro's whole invocation; a whole macro (N, LEN / 2)
  // by the name it is written with.
  bool PartOfMacro = R.getBegin().isMacroID() && R.getEnd().isMacroID() &&
                     !(Lexer::isAtStartOfMacroExpansion(R.getBegin(), SM, Ctx.getLangOpts()) &&
                       Lexer::isAtEndOfMacroExpansion(R.getEnd(), SM, Ctx.getLangOpts())) &&
                     SM.getFileID(SM.getSpellingLoc(R.getBegin())) ==
                         SM.getFileID(SM.getSpellingLoc(R.getEnd())) &&
                     !SM.isMacroArgExpansion(R.getBegin());
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
    R = SM.getExpansionRange(R);
  llvm::StringRef T = Lexer::getSourceText(R, SM, Ctx.getLangOpts());
  if (T.empty() || T.size() > 200 || PartOfMacro) {
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


void LoopAnalyzer::collectAssigned(const Stmt *S, std::set<const VarDecl *> &Out) const {
  if (!S)
    return;
  if (const Expr *W = writtenBy(S))
    if (const VarDecl *V = refVar(W))
      Out.insert(V); // (address taken: may be written through the pointer)
  for (const Stmt *C : S->children())
    collectAssigned(C, Out);
}

const Expr *LoopAnalyzer::assignedOnceBeforeNest(const VarDecl *V) const {
  if (!FunctionBody || !NestRoot || V->getInit() || !V->hasLocalStorage())
    return nullptr;
  // Every write of V in the function: one plain assignment, before the
  // nest and outside any loop (NDPTRSET's `x2 = x0 + domain.jp`).
  const Expr *Value = nullptr;
  unsigned Writes = 0;
  bool InLoop = false;
  std::function<void(const Stmt *, bool)> Scan = [&](const Stmt *S, bool Looped) {
    if (!S)
      return;
    Looped |= isLoopStmt(S);
    if (const Expr *W = writtenBy(S); W && refVar(W) == V) {
      ++Writes;
      InLoop |= Looped;
      const auto *BO = dyn_cast<BinaryOperator>(S);
      Value = BO && BO->getOpcode() == BO_Assign ? BO->getRHS() : nullptr;
    }
    for (const Stmt *C : S->children())
      Scan(C, Looped);
  };
  Scan(FunctionBody, false);
  if (Writes != 1 || InLoop || !Value ||
      Ctx.getSourceManager().isBeforeInTranslationUnit(NestRoot->getBeginLoc(),
                                                       Value->getBeginLoc()))
    return nullptr;
  return Value;
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

bool LoopAnalyzer::invariantCall(const Expr *E) {
  const auto *C = dyn_cast<CallExpr>(E);
  if (!C || isSubscriptCall(C) || isa<CXXOperatorCallExpr>(C) || !C->getType()->isIntegerType() ||
      C->getType().isVolatileQualified() || !C->getDirectCallee())
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(C)) {
    const Expr *O = strip(MC->getImplicitObjectArgument());
    if (const auto *OM = dyn_cast<MemberExpr>(O)) {
      if (!invariantMember(OM))
        return false;
    } else if (!isa<CXXThisExpr>(O)) {
      const VarDecl *V = refVar(O);
      if (!V || AssignedInNest.count(V))
        return false;
    }
  }
  // Arguments of the nest's counters or data (f(i), g(a[k])) vary with it.
  for (const Expr *A : C->arguments()) {
    PolyResult P = toPoly(A, 1);
    if (!P.affine())
      return false;
    for (const std::string &Sym : P.P.symbols())
      if (isCounter(Sym))
        return false;
  }
  return true;
}

std::optional<LoopAnalyzer::InlineFrame> LoopAnalyzer::callFrame(const Expr *E) const {
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
  // A parameter the callee writes no longer stands for its argument.
  std::set<const VarDecl *> Written;
  collectAssigned(Def->getBody(), Written);
  for (const ParmVarDecl *P : Def->parameters())
    if (Written.count(P))
      return std::nullopt;
  InlineFrame F;
  F.Def = Def;
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

std::optional<LoopAnalyzer::InlineFrame> LoopAnalyzer::inlineFrame(const Expr *E) const {
  std::optional<InlineFrame> F = callFrame(E);
  if (!F)
    return std::nullopt;
  // Straight-line code: locals defined once (double t = x * x;), which
  // later statements and the returned expression may use, expression
  // statements (a[i] += b[i] * c[i];), and a return at the end, if any.
  const auto *Body = dyn_cast_or_null<CompoundStmt>(F->Def->getBody());
  if (!Body || Body->size() > 8 || containsLoop(Body))
    return std::nullopt;
  for (const Stmt *St : Body->body()) {
    if (const auto *Ret = dyn_cast<ReturnStmt>(St)) {
      if (St != Body->body_back())
        return std::nullopt;
      F->Result = Ret->getRetValue();
      break;
    }
    if (const auto *Ex = dyn_cast<Expr>(St)) {
      F->Effects.push_back(Ex);
      continue;
    }
    const auto *DS = dyn_cast<DeclStmt>(St);
    const auto *V = DS && DS->isSingleDecl() ? dyn_cast<VarDecl>(DS->getSingleDecl()) : nullptr;
    if (!V || !V->getInit() || V->getType()->isReferenceType() || isAssignedIn(V, Body))
      return std::nullopt;
    F->Locals.push_back(V->getInit());
  }
  if (!F->Result && F->Effects.empty())
    return std::nullopt;
  return F;
}

std::optional<LoopAnalyzer::InlineFrame> LoopAnalyzer::loopCall(const Stmt *S) const {
  const auto *C = dyn_cast<CallExpr>(S);
  if (!C || isa<CXXOperatorCallExpr>(C) || !C->getDirectCallee())
    return std::nullopt;
  const FunctionDecl *Def = nullptr;
  if (!C->getDirectCallee()->hasBody(Def) || !Def ||
      !containsLoop(Def->getBody(), /*ThroughCalls=*/false))
    return std::nullopt;
  return callFrame(C);
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
  for (const Expr *Effect : Frames.back().Effects)
    visit(Effect, Use::Read);
  if (Result && (Reference || U != Use::Read))
    visitLValue(Result, U);
  else if (Result)
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

void LoopAnalyzer::noteFileArray(const VarDecl *V) {
  if (!V->isFileVarDecl() || !V->getType()->isConstantArrayType())
    return;
  QualType E = Ctx.getBaseElementType(V->getType());
  if (E.isConstQualified() || !(E->isIntegerType() || E->isRealFloatingType()) ||
      E->isBooleanType())
    return;
  FunctionInfo &F = IR.Functions[FunctionName];
  std::string Name = V->getNameAsString();
  if (llvm::any_of(F.FileArrays, [&](const FileArray &A) { return A.Name == Name; }))
    return;
  PrintingPolicy PP(Ctx.getLangOpts());
  F.FileArrays.push_back({Name, E.getUnqualifiedType().getAsString(PP), E->isRealFloatingType()});
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
    PendingForks = isOpenMPParallelDirective(D->getDirectiveKind());
    walk(D->getAssociatedStmt());
    PendingPragma.clear();
    PendingForks = false;
    return;
  }
  if (const auto *C = dyn_cast<CapturedStmt>(S))
    return walk(C->getCapturedStmt());
  if (const auto *If = dyn_cast<IfStmt>(S); If && !If->getConditionVariable() && !If->getInit()) {
    // A branch on sizes decides whether the nests inside it run.
    std::vector<SizeGuard> G = sizeGuards(If->getCond());
    walk(If->getCond());
    size_t Depth = Guards.size();
    Guards.insert(Guards.end(), G.begin(), G.end());
    walk(If->getThen());
    Guards.resize(Depth);
    if (G.size() == 1) { // the else of a single comparison runs where it fails
      Guards.push_back(G.front());
      Guards.back().Negated = true;
    }
    walk(If->getElse());
    Guards.resize(Depth);
    return;
  }
  if (const auto *C = dyn_cast<CallExpr>(S); C && !Nest.empty())
    if (std::optional<InlineFrame> F = loopCall(C)) {
      for (const Stmt *A : C->arguments())
        walk(A);
      return walkCallee(C, std::move(*F));
    }
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

std::vector<SizeGuard> LoopAnalyzer::sizeGuards(const Expr *Cond) {
  Cond = Cond->IgnoreParenImpCasts();
  const auto *BO = dyn_cast<BinaryOperator>(Cond);
  if (!BO)
    return {};
  if (BO->getOpcode() == BO_LAnd) {
    std::vector<SizeGuard> L = sizeGuards(BO->getLHS()), R = sizeGuards(BO->getRHS());
    L.insert(L.end(), R.begin(), R.end());
    return L;
  }
  SizeGuard G;
  switch (BO->getOpcode()) {
  case BO_EQ: G.Cmp = SizeGuard::Op::Eq; break;
  case BO_NE: G.Cmp = SizeGuard::Op::Ne; break;
  case BO_LT: G.Cmp = SizeGuard::Op::Lt; break;
  case BO_LE: G.Cmp = SizeGuard::Op::Le; break;
  case BO_GT: G.Cmp = SizeGuard::Op::Gt; break;
  case BO_GE: G.Cmp = SizeGuard::Op::Ge; break;
  default: return {};
  }
  if (!BO->getLHS()->getType()->isIntegerType() || !BO->getRHS()->getType()->isIntegerType())
    return {};
  PolyResult L = toPoly(BO->getLHS()), R = toPoly(BO->getRHS());
  auto SizesOnly = [&](const PolyResult &P) {
    return P.affine() && llvm::none_of(P.P.symbols(), [&](const std::string &S) {
             return isCounter(S) || DataSymbols.count(S);
           });
  };
  if (!SizesOnly(L) || !SizesOnly(R))
    return {};
  G.Left = L.P;
  G.Right = R.P;
  G.Text = text(Cond);
  G.Line = loc(Cond->getBeginLoc()).Line;
  return {G};
}

void LoopAnalyzer::walkCallee(const CallExpr *C, InlineFrame F) {
  const Stmt *Body = F.Def->getBody();
  // What the callee writes is written in the nest: its locals and counters
  // are not sizes fixed for the nest.
  auto SavedFunction = AssignedInFunction;
  auto SavedNest = AssignedInNest;
  auto SavedMembers = MembersAssignedInNest;
  collectAssigned(Body, AssignedInFunction);
  collectAssigned(Body, AssignedInNest);
  collectAssignedMembers(Body, MembersAssignedInNest);
  NestNotes.push_back("inside the call " + F.CallText + " at line " +
                      std::to_string(loc(C->getBeginLoc()).Line) +
                      " (the callee's parameters stand for the call's arguments)");
  F.Walked = true;
  Frames.push_back(std::move(F));
  walk(Body);
  Frames.pop_back();
  NestNotes.pop_back();
  AssignedInFunction = std::move(SavedFunction);
  AssignedInNest = std::move(SavedNest);
  MembersAssignedInNest = std::move(SavedMembers);
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
  PendingForks = false;
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
  K.Guards = Guards;
  IR.Loops.push_back(std::move(K));
}

//===- LoopHeaders.cpp - Loop headers, steps and exits --------------------===//
//
// A loop's header as a counter, bounds and a step (for, range-for and
// iterator loops), the counters and pointers a nest steps by constants,
// and the exits that leave a loop early.
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
using namespace perfmodel;
using namespace perfmodel::ast;

bool LoopAnalyzer::containsLoop(const Stmt *S, bool ThroughCalls) const {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (isLoopStmt(S))
    return true;
  // Inside a nest, a call to a function of the file with a loop adds its
  // loops to the nest (walkCallee); outside one, they are the callee's own.
  if (ThroughCalls && !Nest.empty() && loopCall(S))
    return true;
  for (const Stmt *C : S->children())
    if (containsLoop(C, ThroughCalls))
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
  bool Nested = NestedLoop || isLoopStmt(S) || isa<SwitchStmt>(S);
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

std::optional<LoopAnalyzer::PolyResult> LoopAnalyzer::followedValue(const VarDecl *V) {
  if (!V->getType()->isIntegerType() || NestLoops.empty())
    return std::nullopt;
  // Every write of V in the nest: a plain assignment of one affine value of
  // the counters. Each value V holds is then one that value took in this
  // or an earlier iteration (or V's value before the nest): an access
  // through V reaches lines the counters' accesses reach, or one fixed line.
  std::optional<Poly> Value;
  const BinaryOperator *First = nullptr;
  bool Ok = true;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S || !Ok)
      return;
    if (const Expr *W = writtenBy(S); W && refVar(W) == V) {
      const auto *BO = dyn_cast<BinaryOperator>(S);
      if (!BO || BO->getOpcode() != BO_Assign || mentionsVar(BO->getRHS(), V)) {
        Ok = false;
        return;
      }
      bool Saved = InSubscript;
      InSubscript = false;
      PolyResult R = toPoly(BO->getRHS(), 1);
      InSubscript = Saved;
      std::set<std::string> Syms = R.P.symbols();
      if (!R.affine() || llvm::none_of(Syms, [&](const std::string &X) { return isCounter(X); }) ||
          (Value && !(*Value == R.P))) {
        Ok = false;
        return;
      }
      Value = R.P;
      First = First ? First : BO;
    }
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(NestLoops.front());
  if (!Ok || !Value)
    return std::nullopt;
  if (Current) {
    std::string Note = "'" + V->getNameAsString() + "' is only ever set to " +
                       text(First->getRHS()) + " inside the nest (line " +
                       std::to_string(loc(First->getBeginLoc()).Line) +
                       "): its subscripts are priced as reaching the lines that value's "
                       "accesses reach (an arg-min or last-index pattern)";
    if (!llvm::is_contained(Current->Notes, Note))
      Current->Notes.push_back(Note);
  }
  PolyResult Out;
  Out.P = *Value;
  return Out;
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

namespace {
/// A body's statements (a body without braces is one).
std::vector<const Stmt *> statementsOf(const Stmt *Body) {
  std::vector<const Stmt *> Out;
  if (const auto *CS = dyn_cast<CompoundStmt>(Body))
    Out.assign(CS->body_begin(), CS->body_end());
  else if (Body)
    Out.push_back(Body);
  return Out;
}
} // namespace

std::optional<LoopAnalyzer::CounterReset> LoopAnalyzer::counterReset(const VarDecl *V,
                                                                     unsigned Writes) {
  const SourceManager &SM = Ctx.getSourceManager();
  size_t Inner = Nest.size();
  // The one reset: a statement of an enclosing body before its inner loop,
  // a plain assignment that does not read V or V's declaration there
  // (real_t *A = a;: a fresh one each iteration).
  CounterReset Out;
  for (size_t D = 0; D + 1 < Inner && !Out.Value; ++D)
    for (const Stmt *C : statementsOf(NestLoops[D]->getBody())) {
      if (C == NestLoops[D + 1])
        break;
      const auto *BO = dyn_cast<BinaryOperator>(C);
      if (BO && BO->getOpcode() == BO_Assign && refVar(BO->getLHS()) == V &&
          !mentionsVar(BO->getRHS(), V)) {
        Out.Level = D;
        Out.Value = BO->getRHS();
      }
      if (const auto *DS = dyn_cast<DeclStmt>(C);
          DS && DS->isSingleDecl() && DS->getSingleDecl() == V && V->getInit()) {
        Out.Level = D;
        Out.Value = V->getInit();
        Out.IsDecl = true;
      }
    }
  if (Out.Value)
    return Out;
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
  // A parameter starts at its own value (Value stays null).
  if (!V->hasLocalStorage() || (!isa<ParmVarDecl>(V) && !V->getInit()) || !FunctionBody ||
      InFunction != Writes || InLoop(FunctionBody, false) ||
      !SM.isBeforeInTranslationUnit(V->getLocation(), NestLoops.front()->getBeginLoc()))
    return std::nullopt;
  Out.Value = isa<ParmVarDecl>(V) ? nullptr : V->getInit();
  return Out;
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
  std::optional<CounterReset> Found = counterReset(V, Writes);
  if (!Found)
    return std::nullopt;
  std::optional<size_t> ResetLevel = Found->Level;
  const Expr *Reset = Found->Value;
  bool ResetIsDecl = Found->IsDecl;
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
    for (const Stmt *C : statementsOf(NestLoops[D]->getBody())) {
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
        if (P.affine() && P.P.isConstant() && P.P.constantTerm() != 0) {
          // A local defined once by a constant (m = (1001 - 7) / 2).
          Step = Sign * P.P.constantTerm();
        } else if (!P.affine() || Syms.size() != 1 || P.P != Poly::symbol(*Syms.begin()) ||
                   isCounter(*Syms.begin()) || *Syms.begin() == L.Var) {
          return "step '" + text(Amount) + "' is not a constant or a size";
        } else {
          L.StepParam = *Syms.begin();
          Step = Sign;
        }
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
  L.ForksThreads = PendingForks;
  PendingPragma.clear();
  PendingForks = false;
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
  L.ForksThreads = PendingForks;
  PendingPragma.clear();
  PendingForks = false;
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

//===- CounterBranches.cpp - Branches of the body on counters and sizes ---===//
//
// An `if` of the innermost body whose condition reads only loop counters,
// sizes and locals computed from them (x = j / 4; if (x + 1 < width)) runs
// each arm in a share of the iterations the sizes decide: the condition is
// kept as an IntExpr for branchShare, with the lines of its arms, so the
// in-core model costs each arm as often as it runs. An `if` whose then-arm
// takes a new minimum or maximum of the data (`if (x[k] < x[m]) m = k`)
// is taken in H(n) / n of n iterations for data in random order.
//
//===----------------------------------------------------------------------===//
#include "AstHelpers.h"
#include "LoopAnalyzer.h"

#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;
using namespace perfmodel;
using namespace perfmodel::ast;

namespace {

std::optional<IntExpr::Op> binaryOp(BinaryOperatorKind K) {
  using Op = IntExpr::Op;
  switch (K) {
  case BO_Add: return Op::Add;
  case BO_Sub: return Op::Sub;
  case BO_Mul: return Op::Mul;
  case BO_Div: return Op::Div;
  case BO_Rem: return Op::Rem;
  case BO_Shl: return Op::Shl;
  case BO_Shr: return Op::Shr;
  case BO_And: return Op::BitAnd;
  case BO_Or: return Op::BitOr;
  case BO_Xor: return Op::BitXor;
  case BO_LT: return Op::Lt;
  case BO_LE: return Op::Le;
  case BO_GT: return Op::Gt;
  case BO_GE: return Op::Ge;
  case BO_EQ: return Op::Eq;
  case BO_NE: return Op::Ne;
  case BO_LAnd: return Op::LAnd;
  case BO_LOr: return Op::LOr;
  default: return std::nullopt;
  }
}

/// TEXT with every whole-word IDENT replaced by BY, and spaces dropped.
std::string substituted(const std::string &Text, const std::string &Ident,
                        const std::string &By) {
  auto Word = [](char C) { return isalnum((unsigned char)C) || C == '_'; };
  std::string Out;
  for (size_t I = 0; I < Text.size();) {
    if (Text.compare(I, Ident.size(), Ident) == 0 && (I == 0 || !Word(Text[I - 1])) &&
        (I + Ident.size() >= Text.size() || !Word(Text[I + Ident.size()]))) {
      Out += By;
      I += Ident.size();
      continue;
    }
    if (!isspace((unsigned char)Text[I]))
      Out += Text[I];
    ++I;
  }
  return Out;
}

IntExpr node(IntExpr::Op K, std::vector<IntExpr> Args) {
  IntExpr E;
  E.K = K;
  E.Args = std::move(Args);
  return E;
}

} // namespace

/// The one value a local takes in each iteration before the body's branch
/// AT reads it: its initialiser where it is declared in the body and never
/// written again, or the one plain assignment, a statement of the body
/// before AT; null otherwise.
const Expr *LoopAnalyzer::valueInBody(const VarDecl *V, const Stmt *At) const {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(CurrentBody);
  if (!Body || NestLoops.empty())
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  unsigned Writes = writesOf(NestLoops.front(), V);
  for (const Stmt *S : Body->body()) {
    if (!SM.isBeforeInTranslationUnit(S->getEndLoc(), At->getBeginLoc()))
      break;
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (D == V && V->getInit() && Writes == 0)
          return V->getInit();
    if (const auto *BO = dyn_cast<BinaryOperator>(S);
        BO && BO->getOpcode() == BO_Assign && refVar(BO->getLHS()) == V && Writes == 1 &&
        !mentionsVar(BO->getRHS(), V))
      return BO->getRHS();
  }
  return nullptr;
}

std::optional<IntExpr> LoopAnalyzer::intExpr(const Expr *E, const Stmt *At, unsigned Depth) {
  if (!E || Depth > 8 || !E->getType()->isIntegralOrEnumerationType())
    return std::nullopt;
  E = E->IgnoreParens();
  Expr::EvalResult R;
  if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx)) {
    if (R.Val.getInt().getSignificantBits() > 64)
      return std::nullopt; // an __int128 beyond int64_t
    IntExpr C;
    C.Value = R.Val.getInt().getExtValue();
    return C;
  }
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    if (!CE->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return std::nullopt; // from a float or a pointer
    return intExpr(CE->getSubExpr(), At, Depth + 1);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    auto K = binaryOp(BO->getOpcode());
    if (!K)
      return std::nullopt;
    auto L = intExpr(BO->getLHS(), At, Depth + 1), Rt = intExpr(BO->getRHS(), At, Depth + 1);
    if (!L || !Rt)
      return std::nullopt;
    return node(*K, {std::move(*L), std::move(*Rt)});
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    using Op = IntExpr::Op;
    std::optional<Op> K;
    switch (UO->getOpcode()) {
    case UO_LNot: K = Op::Not; break;
    case UO_Minus: K = Op::Neg; break;
    case UO_Not: K = Op::BitNot; break;
    case UO_Plus: return intExpr(UO->getSubExpr(), At, Depth + 1);
    default: return std::nullopt;
    }
    auto A = intExpr(UO->getSubExpr(), At, Depth + 1);
    if (!A)
      return std::nullopt;
    return node(*K, {std::move(*A)});
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    auto C = intExpr(CO->getCond(), At, Depth + 1), T = intExpr(CO->getTrueExpr(), At, Depth + 1),
         F = intExpr(CO->getFalseExpr(), At, Depth + 1);
    if (!C || !T || !F)
      return std::nullopt;
    return node(IntExpr::Op::Select, {std::move(*C), std::move(*T), std::move(*F)});
  }
  const VarDecl *V = refVar(E);
  if (!V || !isa<DeclRefExpr>(E))
    return std::nullopt;
  IntExpr S;
  S.K = IntExpr::Op::Sym;
  if (auto It = IVs.find(V); It != IVs.end()) {
    S.Name = It->second;
    return S;
  }
  if (const Expr *Value = valueInBody(V, At))
    return intExpr(Value, At, Depth + 1);
  if (writesOf(NestLoops.front(), V))
    return std::nullopt; // changes inside the nest otherwise
  if (V->hasLocalStorage() && !isa<ParmVarDecl>(V)) {
    const Expr *Init = AssignedInFunction.count(V) ? assignedOnceBeforeNest(V) : V->getInit();
    return Init ? intExpr(Init, At, Depth + 1) : std::nullopt;
  }
  S.Name = V->getNameAsString(); // a size: a parameter or a global
  return S;
}

CounterBranch LoopAnalyzer::branchLines(const IfStmt *If) const {
  CounterBranch B;
  B.Line = loc(If->getCond()->getBeginLoc()).Line;
  B.LastLine = loc(If->getCond()->getEndLoc()).Line;
  B.ThenFirst = loc(If->getThen()->getBeginLoc()).Line;
  B.ThenLast = loc(If->getThen()->getEndLoc()).Line;
  if (const Stmt *Else = If->getElse()) {
    B.ElseFirst = loc(Else->getBeginLoc()).Line;
    B.ElseLast = loc(Else->getEndLoc()).Line;
  }
  // `if (c) {` and `} else {` share lines with the condition and the other
  // arm; code on them is the condition's and the else's.
  B.ThenFirst = std::max(B.ThenFirst, B.LastLine + 1);
  if (B.ElseFirst && B.ThenLast >= B.ElseFirst)
    B.ThenLast = B.ElseFirst - 1;
  B.Text = text(If->getCond());
  return B;
}

std::optional<CounterBranch> LoopAnalyzer::counterBranch(const IfStmt *If) {
  if (!CurrentBody || NestLoops.empty() || If->getConditionVariable() || If->getInit())
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  // Only the body's own branches: not one of a function walked into.
  if (SM.isBeforeInTranslationUnit(If->getBeginLoc(), CurrentBody->getBeginLoc()) ||
      SM.isBeforeInTranslationUnit(CurrentBody->getEndLoc(), If->getEndLoc()))
    return std::nullopt;
  std::optional<IntExpr> Cond = intExpr(If->getCond(), If, 0);
  if (!Cond)
    return std::nullopt;
  CounterBranch B = branchLines(If);
  B.Cond = std::move(*Cond);
  return B;
}

std::optional<CounterBranch> LoopAnalyzer::extremumBranch(const IfStmt *If) {
  if (!CurrentBody || NestLoops.empty() || If->getElse() || If->getInit())
    return std::nullopt;
  const auto *Cmp = dyn_cast<BinaryOperator>(strip(If->getCond()));
  if (!Cmp || !(Cmp->getOpcode() == BO_LT || Cmp->getOpcode() == BO_LE ||
                Cmp->getOpcode() == BO_GT || Cmp->getOpcode() == BO_GE))
    return std::nullopt;
  // The then-arm's plain assignments of scalars (also inside a call's
  // arguments: benchmark::DoNotOptimize(m = k)).
  std::vector<const BinaryOperator *> Sets;
  std::function<void(const Stmt *)> Walk = [&](const Stmt *S) {
    if (!S)
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->getOpcode() == BO_Assign)
      if (const VarDecl *V = refVar(BO->getLHS()); V && V->getType()->isScalarType())
        Sets.push_back(BO);
    for (const Stmt *C : S->children())
      Walk(C);
  };
  Walk(If->getThen());
  std::string L = text(Cmp->getLHS()), R = text(Cmp->getRHS());
  for (const BinaryOperator *Set : Sets) {
    const VarDecl *V = refVar(Set->getLHS());
    if (IVs.count(V) || writesOf(CurrentBody, V) != writesOf(If->getThen(), V))
      continue;
    std::string Name = V->getNameAsString(), Value = text(Set->getRHS());
    // One side reads V and becomes the other once V takes its new value:
    // the compared element is the new extremum.
    for (auto [A, B] : {std::pair{L, R}, std::pair{R, L}}) {
      if (substituted(B, Name, Name) == substituted(B, Name, "\x01"))
        continue; // B does not read V
      if (substituted(A, Name, Name) != substituted(A, Name, "\x01"))
        continue; // A reads V too
      if (substituted(B, Name, "(" + Value + ")") != substituted(A, Name, Name) &&
          substituted(B, Name, Value) != substituted(A, Name, Name))
        continue;
      CounterBranch Br = branchLines(If);
      Br.What = CounterBranch::Kind::RunningExtremum;
      return Br;
    }
  }
  return std::nullopt;
}

//===- AffineExprs.cpp - Subscripts as polynomials ------------------------===//
//
// An expression as a polynomial in the loop counters and the sizes: what
// toPoly follows (arithmetic, casts, constants, macros, stepped values) and
// what makes it non-affine or indirect; an array's dimensions.
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

/// A variable in a subscript or a bound: a counter, an enumerator, an
/// inlined call's argument, a local's definition, a value the nest sets or
/// steps, or a size by its name.
LoopAnalyzer::PolyResult LoopAnalyzer::variablePoly(const DeclRefExpr *DR, unsigned Depth) {
  PolyResult R;
  const Expr *S = DR;
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
      return inOuterFrames(Outer, [&] { return toPoly(Arg, Depth + 1); });
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
    if (Sub.affine())
      return Sub;
    // Set once before the nest from memory or a call (int m =
    // *(int *)args; int n = list.count()): a value the nest cannot change,
    // a size named by the local (-D m=...).
    if (V->getType()->isIntegerType() && NestRoot && FunctionBody &&
        FunctionBody->getSourceRange().fullyContains(V->getSourceRange()) &&
        !NestRoot->getSourceRange().fullyContains(V->getSourceRange())) {
      R.P = Poly::symbol(Name);
      return R;
    }
    if (Sub.Indirect)
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
    if (InSubscript)
      if (auto Followed = followedValue(V))
        return *Followed;
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

/// An arithmetic operator's operands combined: sums, products, shifts, and
/// quotients of sizes (N/2, iterations/LEN_2D) as derived sizes.
LoopAnalyzer::PolyResult LoopAnalyzer::binaryPoly(const BinaryOperator *BO, unsigned Depth) {
  PolyResult R;
  const Expr *S = BO;
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
  if (const auto *DR = dyn_cast<DeclRefExpr>(S))
    return variablePoly(DR, Depth);
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
  if (const auto *BO = dyn_cast<BinaryOperator>(S))
    return binaryPoly(BO, Depth);
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
  if (std::optional<InlineFrame> F = inlineFrame(S);
      F && F->Result && F->Effects.empty() && !F->Def->getReturnType()->isReferenceType()) {
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
  if (invariantCall(S)) {
    R.P = Poly::symbol(text(S));
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

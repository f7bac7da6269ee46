//===- LoopBody.cpp - The innermost body: accesses and flops --------------===//
//
// The innermost loop's body walked with a read/write context: each
// expression's flops and calls, each memory reference as an Access (its
// base, subscripts and linear offset), merged per element.
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
  K.Guards = Guards;
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

  rowsEndToEnd(K);
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

/// T's element type when T is std::complex<E> (null otherwise).
static QualType complexElement(QualType T) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  const auto *CT = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!CT || CT->getName() != "complex" || !CT->isInStdNamespace() ||
      CT->getTemplateArgs().size() != 1)
    return QualType();
  return CT->getTemplateArgs()[0].getAsType();
}

bool LoopAnalyzer::visitComplexCall(const CallExpr *C, const FunctionDecl *FD) {
  // std::complex arithmetic: the operations of its definition on the real
  // and imaginary parts (libstdc++ and libc++ inline them; a product is
  // 4 multiplies and 2 adds, of which 2 can be FMAs).
  QualType E;
  unsigned Complex = 0;
  for (const Expr *A : C->arguments())
    if (QualType AE = complexElement(A->getType()); !AE.isNull()) {
      E = AE;
      ++Complex;
    }
  if (E.isNull())
    E = complexElement(C->getType());
  const auto *Method = dyn_cast<CXXMethodDecl>(FD);
  bool Std = FD->isInStdNamespace() ||
             (Method && !complexElement(Ctx.getRecordType(Method->getParent())).isNull());
  if (E.isNull() || !Std)
    return false;
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(C);
  OverloadedOperatorKind Op = OC ? OC->getOperator() : OO_None;
  if (Method && !OC)
    Op = OO_None; // c.real(), c.imag()
  switch (Op) {
  case OO_Equal:
  case OO_PlusEqual:
  case OO_MinusEqual:
  case OO_StarEqual:
  case OO_SlashEqual:
    visitLValue(C->getArg(0), Op == OO_Equal ? Use::Write : Use::ReadWrite);
    visit(C->getArg(1), Use::Read);
    break;
  default:
    for (const Expr *A : C->arguments())
      visit(A, Use::Read);
  }
  countComplexFlops(C, E, Op, Complex == 2 && C->getNumArgs() == 2, FD->getName());
  return true;
}

void LoopAnalyzer::countComplexFlops(const CallExpr *C, QualType E, OverloadedOperatorKind Op,
                                     bool Both, llvm::StringRef Name) {
  auto Count = [&](char Kind, unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      countFlop(C, E, Kind);
  };
  switch (Op) {
  case OO_Plus:
  case OO_PlusEqual:
  case OO_Minus:
  case OO_MinusEqual:
    if (C->getNumArgs() == 2)
      Count('+', Both ? 2 : 1);
    return;
  case OO_Star:
  case OO_StarEqual:
    Count('f', Both ? 2 : 0); // re = ac - bd, im = ad + bc
    Count('*', 2);
    return;
  case OO_Slash:
  case OO_SlashEqual:
    if (Both) { // ((ac + bd) + (bc - ad) i) / (c^2 + d^2)
      Count('f', 3);
      Count('*', 3);
      Current->Notes.push_back("complex division counted as 6 multiplies, 3 adds and 2 "
                               "divisions (the compiled code may call __divdc3)");
    }
    Count('/', 2);
    return;
  case OO_None:
    break;
  default:
    return; // unary -, ==: no flops worth counting
  }
  if (Name == "norm" || Name == "abs") { // re^2 + im^2, and its root
    Count('f', 1);
    Count('*', 1);
    Count('s', Name == "abs");
  } else if (Name != "real" && Name != "imag" && Name != "conj" && Name != "complex") {
    Count('o', 1); // exp, sin, pow, ... of a complex: a library call
    Current->MathCalls.push_back(Name.str());
    Current->Notes.push_back("complex '" + Name.str() + "' counted as 1 flop per call");
  }
}

void LoopAnalyzer::visitCall(const CallExpr *C) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (FD && visitIntrinsic(C, FD->getNameAsString()))
    return; // visits its own arguments
  if (FD && visitComplexCall(C, FD))
    return;
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
    if (isContainerQuery(MD) || (MD->isConst() && invariantCall(C)))
      return; // a size read: state.range(0)
  if (isOptimisationBarrier(FD))
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

/// The largest value of the affine P over K's nest (counters at their
/// last iteration where their coefficient is positive, their first where
/// it is negative); nullopt where a counter's coefficient is not constant.
static std::optional<Poly> maxOverNest(const Poly &P, const LoopKernel &K) {
  Poly Max = P;
  for (const LoopLevel &L : K.Nest) {
    Poly C = P.coefficientOf(L.Var);
    if (C.isZero())
      continue;
    if (!C.isConstant() || L.Step == 0)
      return std::nullopt;
    Poly Last = L.Step > 0 ? L.Upper - Poly::constant(1) : L.Upper + Poly::constant(1);
    Poly At = (C.constantTerm() > 0) == (L.Step > 0) ? Last : L.Lower;
    Max = Max - C * Poly::symbol(L.Var) + C * At;
  }
  return Max;
}

/// Rows reached through a pointer array the nest loads (za[j][k], px[i][12]
/// over double **): their addresses are data, but a 2D array's traffic
/// follows from one assumption, stated in a note: the rows are disjoint and
/// laid end to end, each as long as the columns the nest references reach
/// (a size "za[*].len", which -D binds to the true length). Each such
/// reference then reads the array "za[*]" at row * len + column.
void LoopAnalyzer::rowsEndToEnd(LoopKernel &K) {
  struct Rows {
    bool Ok = true;
    std::optional<Poly> Last; ///< the last column referenced
  };
  std::map<std::string, Rows> ByArray;
  for (const Access &A : K.Accesses) {
    if (A.RowsOf.empty())
      continue;
    Rows &R = ByArray[A.RowsOf];
    // The column must be affine in the counters and sizes: za[j][idx[k]]
    // reads data for it, and its rows stay unknown.
    auto IsData = [&](const std::string &S) { return DataSymbols.count(S) > 0; };
    std::optional<Poly> M;
    if (A.Subscripts.size() == 1 && A.NonAffine.empty() && A.IndirectVia == A.Array && A.Row &&
        llvm::none_of(A.Subscripts[0].symbols(), IsData))
      M = maxOverNest(A.Subscripts[0], K);
    if (!M || !R.Ok) {
      R.Ok = false;
      continue;
    }
    Poly D = R.Last ? *M - *R.Last : Poly::constant(1);
    if (!D.isConstant())
      R.Ok = false;
    else if (D.constantTerm() > 0)
      R.Last = *M;
  }
  for (auto &[Ptr, R] : ByArray) {
    if (!R.Ok || !R.Last)
      continue;
    std::string Len = Ptr + "[*].len";
    // One length per pointer array in the file: the longest reach of its
    // loops where they differ by a constant.
    Poly Reach = *R.Last + Poly::constant(1);
    auto Q = Quotients.find(Len);
    if (Q == Quotients.end())
      Quotients[Len] = {Reach, 1, std::nullopt};
    else if (Poly D = Reach - Q->second.Numerator; D.isConstant() && D.constantTerm() > 0)
      Q->second.Numerator = Reach;
    std::string Via;
    for (Access &A : K.Accesses) {
      if (A.RowsOf != Ptr)
        continue;
      if (Via.empty())
        Via = A.IndirectVia;
      A.Array = Ptr + "[*]";
      A.Subscripts.insert(A.Subscripts.begin(), *A.Row);
      A.Dims = {std::nullopt, Poly::symbol(Len)};
      A.Linear = *A.Row * Poly::symbol(Len) + A.Subscripts[1];
      A.Indirect = false;
      A.IndirectVia.clear();
    }
    K.Notes.push_back("the rows " + Ptr + " points to (" + Via +
                      ") are taken as disjoint and laid end to end, each " + Len +
                      " elements long (the columns referenced; -D '" + Len +
                      "=...' gives their true length): their addresses are loaded data");
  }
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
    if (size_t Outer = 0; isa<ParmVarDecl>(V))
      if (const Expr *Arg = argumentFor(cast<ParmVarDecl>(V), Outer)) {
        // A pointer parameter of a call walked into: the array its argument
        // points into, at the argument's offset (test(&a[4]) -> a, 4).
        auto Points = inOuterFrames(Outer, [&] { return pointerOffset(Arg); });
        if (!Points || !Points->second.affine())
          break;
        AliasOffset = AliasOffset + Points->second.P;
        B = Points->first;
        continue;
      }
    if (!V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getType()->isPointerType())
      break;
    const Expr *Init = AssignedInFunction.count(V) ? assignedOnceBeforeNest(V) : V->getInit();
    if (!Init)
      break;
    Init = strip(Init);
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
  if (BaseVar)
    noteFileArray(BaseVar);
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
    // za[j] of a pointer array za: a row the nest's rows-end-to-end rule
    // may lay out (rowsEndToEnd).
    if (const auto *RS = dyn_cast<ArraySubscriptExpr>(strip(Root)))
      if (const VarDecl *P = refVar(RS->getBase());
          P && RS->getType()->isPointerType() && !AssignedInFunction.count(P)) {
        PolyResult R = toPoly(RS->getIdx());
        if (R.affine()) {
          A.RowsOf = P->getNameAsString();
          A.Row = R.P;
        }
      }
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
    PolyResult P;
    if (Index[I]) {
      InSubscript = true;
      P = toPoly(Index[I]);
      InSubscript = false;
    }
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
  if (!A.Linear && !A.Indirect && !Index.empty() && llvm::all_of(Index, [](const Expr *X) {
        return X != nullptr;
      })) {
    for (const Expr *X : Index)
      if (std::optional<IntExpr> IE = intExpr(X, E, 0))
        A.IndexExprs.push_back(std::move(*IE));
    if (A.IndexExprs.size() != Index.size())
      A.IndexExprs.clear();
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
  if (!Frames.empty() && !Frames.back().Walked)
    A.Text = Frames.back().Result &&
                     E->IgnoreParenImpCasts() == Frames.back().Result->IgnoreParenImpCasts()
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
    if (std::optional<CounterBranch> B = counterBranch(If))
      Current->Branches.push_back(std::move(*B));
    else if (std::optional<CounterBranch> E = extremumBranch(If))
      Current->Branches.push_back(std::move(*E));
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

//===- LoopAnalyzer.h - Clang AST to KernelIR (internal) -------*- C++ -*-===//
//
// The walk from Clang's AST to KernelIR: loop headers (bounds, steps,
// exits), bodies (accesses, flops, calls), subscripts as polynomials of the
// counters, and the counters and pointers a nest steps by hand.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_LOOPANALYZER_H
#define PERFMODEL_LOOPANALYZER_H

#include "perfmodel/Frontend.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/StmtCXX.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace perfmodel {

/// Walks the functions of one translation unit and appends a LoopKernel per
/// innermost loop to the KernelIR.
class LoopAnalyzer {
public:
  LoopAnalyzer(clang::ASTContext &Ctx, KernelIR &IR) : Ctx(Ctx), IR(IR) {}

  void analyzeFunction(const clang::FunctionDecl *F);
  /// Values that the source gives parameters (macros, constants).
  /// Symbols that stand for values loaded from memory (rowptr[i]).
  const std::set<std::string> &dataSymbols() const { return DataSymbols; }
  /// Integer quotients of parameters in bounds and subscripts (N/2): each
  /// a symbol of its own, its numerator and divisor.
  const std::map<std::string, Quotient> &quotients() const { return Quotients; }
  /// Calls that return a size (domain.numElem() -> domain.m_numElem): the
  /// call's text, the size's name, so -D takes either.
  const std::map<std::string, std::string> &aliases() const { return Aliases; }
  const std::map<std::string, std::pair<int64_t, std::string>> &sourceValues() const {
    return SourceValues;
  }

private:
  struct PolyResult {
    Poly P;
    bool Indirect = false;
    std::string IndirectVia;
    std::string NonAffine;
    bool affine() const { return !Indirect && NonAffine.empty(); }
    void merge(const PolyResult &O) {
      if (O.Indirect && !Indirect) {
        Indirect = true;
        IndirectVia = O.IndirectVia;
      }
      if (NonAffine.empty())
        NonAffine = O.NonAffine;
    }
  };
  enum class Use { Read, Write, ReadWrite };

  // Walking statements and loops.
  void walk(const clang::Stmt *S);
  void handleFor(const clang::ForStmt *F);
  void handleRangeFor(const clang::CXXForRangeStmt *F);
  void handleOtherLoop(const clang::Stmt *Loop, const std::string &Reason);
  std::string parseForHeader(const clang::ForStmt *F, LoopLevel &L,
                             const clang::VarDecl *&IV);
  void analyzeInnermost(const clang::Stmt *Loop, const clang::Stmt *Body);
  /// The accesses of BODY's statements that hold no loop, appended to the
  /// OuterAccesses of the innermost loops recorded since FIRST.
  void collectOuterAccesses(const clang::Stmt *Body, size_t First);
  /// Whether S holds a loop: its own, or (THROUGHCALLS) one of a function
  /// it calls inside the nest (loopCall).
  bool containsLoop(const clang::Stmt *S, bool ThroughCalls = true) const;
  /// A statement of S that leaves the loop early (return, break, goto out,
  /// exit()), or a label a goto may enter it by (Enters).
  struct LoopExit {
    std::string Text; ///< "return at line 3"; empty when there is none
    bool Enters = false;
  };
  LoopExit findExit(const clang::Stmt *S, bool NestedLoop) const;
  /// LOOP's exit, where gotos between labels of its own body are neither
  /// exits nor entries, and a label is an entry only where a goto outside
  /// the loop names it.
  LoopExit loopExit(const clang::Stmt *Loop, const clang::Stmt *Body);
  /// The expression a scalar assigned in the nest holds at USE: its one
  /// assignment, a statement of the innermost body before USE that does not
  /// read it (j = i + 1); nullptr otherwise.
  const clang::Expr *bodyDefinition(const clang::VarDecl *V, const clang::Stmt *Use) const;
  /// A counter the nest steps by constants (k = 1 at the top of an
  /// enclosing body, ++k in the bodies inside it, none under a condition):
  /// its value at USE in the innermost body, in the nest's counters; nullopt
  /// where it is not such a counter.
  std::optional<PolyResult> steppedValue(const clang::VarDecl *V, const clang::Expr *Use);
  /// A subscript variable the nest only ever sets to one affine value of
  /// its counters (m = k in an arg-min, last = i): that value, with the
  /// assumption in the kernel's notes; nullopt otherwise.
  std::optional<PolyResult> followedValue(const clang::VarDecl *V);
  bool InSubscript = false; ///< toPoly is reading an access's subscript
  /// IF's condition as an IntExpr of counters and sizes, with its arms'
  /// lines; nullopt where it reads anything else (CounterBranches.cpp).
  std::optional<CounterBranch> counterBranch(const clang::IfStmt *If);
  /// IF's then-arm keeps a running minimum or maximum (CounterBranches.cpp).
  std::optional<CounterBranch> extremumBranch(const clang::IfStmt *If);
  /// IF's condition and arms' lines and its text (counterBranch's and
  /// extremumBranch's common part).
  CounterBranch branchLines(const clang::IfStmt *If) const;
  std::optional<IntExpr> intExpr(const clang::Expr *E, const clang::Stmt *At, unsigned Depth);
  const clang::Expr *valueInBody(const clang::VarDecl *V, const clang::Stmt *At) const;
  /// steppedValue's parts: the expression V starts from (the reset's or the
  /// initialiser's; null for a parameter, which starts at its own value)
  /// and the steps it has taken by USE.
  /// Where a counter V stepped in the nest starts: the level whose body
  /// resets it (nullopt: before the nest) and the value (null: a parameter's
  /// own); nullopt when it is written elsewhere (WRITES: its writes in the nest).
  struct CounterReset {
    std::optional<size_t> Level;
    const clang::Expr *Value = nullptr;
    bool IsDecl = false;
  };
  std::optional<CounterReset> counterReset(const clang::VarDecl *V, unsigned Writes);
  std::optional<std::pair<const clang::Expr *, Poly>> steppedCounter(const clang::VarDecl *V,
                                                                      const clang::Expr *Use);
  /// A pointer E the nest steps (A = a at the top of a body and A++, *y++
  /// of a parameter): the array it started in and its element offset there.
  std::optional<std::pair<const clang::Expr *, PolyResult>>
  steppedPointer(const clang::Expr *E);
  /// The constant V changes by where S writes it (++V, V -= 2, V = V + c);
  /// nullopt where S writes V otherwise.
  std::optional<Poly> stepOf(const clang::Stmt *S, const clang::VarDecl *V);
  const clang::Stmt *lastStatement(const clang::Stmt *Body) const;
  /// Whether BODY reads V before the statement that assigns it (or has none).
  bool readBeforeDefinition(const clang::VarDecl *V, const clang::Stmt *Body) const;
  std::set<const clang::LabelDecl *> InnerLabels; ///< loopExit's, for findExit

  // Expressions inside the innermost body.
  void visit(const clang::Stmt *S, Use U);
  void visitLValue(const clang::Expr *E, Use U);
  void visitIndicesOnly(const clang::Expr *E);
  void visitCall(const clang::CallExpr *C);
  /// OVERRIDEBYTES > 0: E may be a pointer (intrinsic load/store address)
  /// and the access moves that many bytes.
  bool recordAccess(const clang::Expr *E, Use U, unsigned OverrideBytes = 0,
                    bool AlignedByContract = false);
  /// Where an access's subscripts and base are: the subscripts outermost
  /// first (null for *(p - k): the negated right operand), the base, whether
  /// it is a dereference, element offsets folded out of the pointer.
  struct AccessShape {
    std::vector<const clang::Expr *> Index;
    const clang::Expr *Root = nullptr;
    bool IsDeref = false;
    Poly PeeledOffset;
  };
  /// An access to cost, one already recorded (a container's element), or no
  /// access at all.
  enum class ShapeKind { Access, Recorded, NotAnAccess };
  ShapeKind accessShape(const clang::Expr *E, const clang::Expr *Ref,
                        const clang::FieldDecl *Field, bool AddressMode, Use U, AccessShape &S);
  const clang::VarDecl *resolveBase(Access &A, const clang::Expr *Root, bool AlignedByContract,
                                    Poly &AliasOffset, bool &BaseLoaded);
  /// V, when a file-scope array of numbers, among the function's FileArrays.
  void noteFileArray(const clang::VarDecl *V);
  void linearise(Access &A, const AccessShape &S, const clang::Expr *E, const clang::Expr *Ref,
                 const clang::FieldDecl *Field, bool AddressMode, const clang::VarDecl *BaseVar,
                 const Poly &AliasOffset);
  bool visitIntrinsic(const clang::CallExpr *C, const std::string &Name);
  /// std::complex operators and functions: flops on the parts, accesses.
  bool visitComplexCall(const clang::CallExpr *C, const clang::FunctionDecl *FD);
  /// The flops of complex operator OP (BOTH: complex on both sides) or of
  /// function NAME, in element type E.
  void countComplexFlops(const clang::CallExpr *C, clang::QualType E,
                         clang::OverloadedOperatorKind Op, bool Both, llvm::StringRef Name);
  void mergeAccess(Access A, const std::string &Key);
  /// CONTAINER's element at COUNTER (a range-for variable, *it of an
  /// iterator counter), one element of BYTES per iteration.
  void recordElementAccess(const std::string &Container, const std::string &Text,
                           const std::string &Counter, unsigned Bytes,
                           clang::SourceLocation Where, Use U);
  void countFlop(const clang::Expr *E, clang::QualType T, char Op);
  bool countCalleeFlops(const clang::FunctionDecl *FD);

  // Affine analysis.
  PolyResult toPoly(const clang::Expr *E, unsigned Depth = 0);
  PolyResult variablePoly(const clang::DeclRefExpr *DR, unsigned Depth);
  PolyResult binaryPoly(const clang::BinaryOperator *BO, unsigned Depth);
  std::optional<PolyResult> macroConstant(const clang::Expr *E);
  std::optional<Poly> dimensionSize(const clang::VarDecl *VD, clang::QualType T,
                                    unsigned Level);

  // Helpers.
  SourceLoc loc(clang::SourceLocation L) const;
  std::string text(const clang::Stmt *S) const;
  unsigned sizeOf(clang::QualType T) const;
  bool isCounter(const std::string &Sym) const;
  bool isAssignedIn(const clang::VarDecl *V, const clang::Stmt *Scope) const;
  void collectAssigned(const clang::Stmt *S, std::set<const clang::VarDecl *> &Out) const;
  /// The value of a local without an initialiser that the function assigns
  /// once, before the nest and outside any loop; null otherwise.
  const clang::Expr *assignedOnceBeforeNest(const clang::VarDecl *V) const;
  FlopCounts &flopsFor(clang::QualType T, unsigned &Lanes);
  FlopCounts &opsFor(clang::QualType T); ///< the loop's operations of T's width
  void countContractible(clang::QualType T); ///< a multiply feeding an add of type T

  clang::ASTContext &Ctx;
  KernelIR &IR;

  // State of the function being walked.
  std::string FunctionName;
  void recordSignature(const clang::FunctionDecl *F);
  const clang::Stmt *FunctionBody = nullptr;
  std::set<const clang::VarDecl *> AssignedInFunction;
  std::set<const clang::VarDecl *> AssignedInNest; ///< in the outermost loop
  std::set<std::string> MembersAssignedInNest;     ///< fields written there (text)
  void collectAssignedMembers(const clang::Stmt *S, std::set<std::string> &Out) const;
  /// AssignedInNest and MembersAssignedInNest for the outermost loop ROOT.
  void collectWrittenInNest(const clang::Stmt *Root);
  /// A field (g.n, p->n, this->n) of an object the nest does not replace,
  /// that the nest does not write: a value fixed for the nest, like a
  /// parameter.
  bool invariantMember(const clang::MemberExpr *ME) const;
  /// *n of an integer pointer n that the nest neither moves nor writes
  /// through (*n = ..., n[k] = ...): a value fixed for the nest, like a
  /// parameter (bound with -D '*n=...').
  bool invariantDeref(const clang::UnaryOperator *UO) const;
  /// An integer call the nest cannot change (state.range(0),
  /// omp_get_max_threads(), a method of an object the nest does not write)
  /// whose arguments are sizes: a value fixed for the nest, bound by its
  /// text (-D 'state.range(0)=...').
  bool invariantCall(const clang::Expr *E);
  /// Rows a pointer array holds (za[j][k]) laid out as a 2D array, with
  /// the assumption in K's notes.
  void rowsEndToEnd(LoopKernel &K);
  const clang::Stmt *NestRoot = nullptr; ///< the outermost loop of the nest walked
  std::vector<LoopLevel> Nest;
  std::vector<const clang::ForStmt *> NestLoops; ///< Nest's loop statements
  std::map<const clang::VarDecl *, std::string> IVs;
  std::string PendingPragma;
  bool PendingForks = false; ///< PendingPragma is a parallel loop directive
  std::vector<std::string> NestNotes;
  /// Conditions on sizes of the if statements around the statement walked.
  std::vector<SizeGuard> Guards;
  /// COND's comparisons on sizes alone (split at &&), or nothing when it
  /// is anything else.
  std::vector<SizeGuard> sizeGuards(const clang::Expr *Cond);
  /// Range-for loop variables standing for the element they bind to.
  std::map<const clang::VarDecl *, std::pair<const clang::Expr *, std::string>> RangeVars;

  // State of the innermost loop being analysed.
  LoopKernel *Current = nullptr;
  const clang::Stmt *CurrentBody = nullptr;
  std::set<const clang::VarDecl *> AssignedInBody;
  std::map<std::string, size_t> AccessIndex;
  std::map<std::string, std::pair<int64_t, std::string>> SourceValues;
  std::map<std::string, Quotient> Quotients;
  std::map<std::string, std::string> Aliases;
  std::set<std::string> DataSymbols;
  std::set<const clang::FunctionDecl *> Inlining; ///< helpers being inlined

  /// A call to a short function or method (`double &at(int i, int j) {
  /// return d[i * n + j]; }`, `int idx(i, j)`, `operator()`; locals defined
  /// once before the return), read as its returned expression: its
  /// parameters stand for the call's arguments and its fields (implicit
  /// `this`) for the object's.
  struct InlineFrame {
    const clang::FunctionDecl *Def = nullptr;
    std::map<const clang::ParmVarDecl *, const clang::Expr *> Args;
    const clang::Expr *Object = nullptr; ///< g in g.at(..); p in p->at(..)
    bool ObjectIsPointer = false;
    const clang::Expr *Result = nullptr; ///< the returned expression (none: void)
    std::vector<const clang::Expr *> Locals; ///< initialisers of its locals
    std::vector<const clang::Expr *> Effects; ///< its expression statements
    std::string CallText;                ///< the call as written
    bool Walked = false; ///< a callee with loops, walked as part of the nest
  };
  std::vector<InlineFrame> Frames;
  /// Pointer counters (for (double *p = a; p != a + n; ++p)): the array they
  /// walk; the counter's symbol is the element offset from it.
  std::map<const clang::VarDecl *, const clang::Expr *> PointerIVs;
  /// Iterator counters (for (auto it = v.begin(); it != v.end(); ++it)):
  /// the container they walk; *it is its element at the counter.
  std::map<const clang::VarDecl *, const clang::Expr *> IteratorIVs;
  std::string parseIteratorHeader(const clang::ForStmt *F, LoopLevel &L,
                                  const clang::VarDecl *IV, const clang::Expr *Init);
  /// E as an array plus an element offset (a, a + k, &a[k], k + a).
  std::optional<std::pair<const clang::Expr *, PolyResult>> pointerOffset(const clang::Expr *E);
  /// The frame for C when it calls such a function (no frame otherwise).
  std::optional<InlineFrame> inlineFrame(const clang::Expr *C) const;
  /// The frame of any call to the user's code that can stand in for its
  /// body: parameters the callee does not write, bound to the arguments.
  std::optional<InlineFrame> callFrame(const clang::Expr *C) const;
  /// The frame of S when S calls a function of the file with a loop, whose
  /// loops join the nest around the call (no frame otherwise).
  std::optional<InlineFrame> loopCall(const clang::Stmt *S) const;
  /// Walks into the callee of C (F: its loopCall frame) as a statement of
  /// the nest.
  void walkCallee(const clang::CallExpr *C, InlineFrame F);
  /// FN() evaluated in the frames outside the one at OUTER (a parameter's
  /// argument is an expression of its caller).
  template <typename Fn> auto inOuterFrames(size_t Outer, Fn F) {
    std::vector<InlineFrame> Inner(Frames.begin() + Outer, Frames.end());
    Frames.resize(Outer);
    auto Value = F();
    Frames.insert(Frames.end(), Inner.begin(), Inner.end());
    return Value;
  }
  /// E's text, a field of the inlined method's object written as the
  /// object's (d -> g.d, n -> p->n).
  std::string exprText(const clang::Expr *E) const;
  /// The argument a parameter of an inlined call stands for, and the frames
  /// to evaluate it in (those outside its own).
  const clang::Expr *argumentFor(const clang::ParmVarDecl *P, size_t &Outer) const;
  bool visitInlined(const clang::Expr *C, Use U);
};

} // namespace perfmodel

#endif

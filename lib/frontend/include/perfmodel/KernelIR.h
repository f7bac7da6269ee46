//===- KernelIR.h - What the front end knows about loop nests --*- C++ -*-===//
//
// Plain data produced by the front end and read by every later stage. One
// LoopKernel per innermost source loop, with its enclosing nest.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_KERNELIR_H
#define PERFMODEL_KERNELIR_H

#include "perfmodel/Poly.h"

#include <cstdint>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfmodel {

struct SourceLoc {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
  std::string str() const; ///< "file:line:col"
};

/// One loop of a nest: for (Var = Lower; Var < Upper; Var += Step), with
/// Upper exclusive. Decreasing loops have Step < 0 and iterate Upper-1 .. Lower.
struct LoopLevel {
  std::string Var;
  Poly Lower;
  Poly Upper;
  int64_t Step = 1;
  /// A step a size gives (i += k): its name; Step is its value (the sign
  /// times what binds the size, -D k=4, else 1 with a note).
  std::string StepParam;
  /// How the loop can end before its bound ("return at line 3", "break at
  /// line 7"); empty when it cannot. Its iterations are priced as they are;
  /// how many run is the bound's (or --exit-fraction's) assumption.
  std::string Exit;
  SourceLoc Loc;
  std::string Pragma; ///< e.g. "omp parallel for", empty when none
  /// An OpenMP parallel loop (omp parallel for, compiled with -fopenmp): each
  /// execution of this level starts the threads, splits the iterations and
  /// waits for all of them, at a cost the iterations do not pay.
  bool ForksThreads = false;
};

/// An integer expression of the source over loop counters and sizes (a
/// branch's condition, `j / 4 + 1 < width`), kept to be evaluated at the
/// bound sizes. Sym names a counter (LoopLevel::Var) or a size.
struct IntExpr {
  enum class Op {
    Const, Sym, Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor,
    Lt, Le, Gt, Ge, Eq, Ne, LAnd, LOr, Not, Neg, BitNot, Select
  };
  Op K = Op::Const;
  int64_t Value = 0;
  std::string Name;
  std::vector<IntExpr> Args;
  /// Its value with the symbols of B; nullopt where one is unbound or a
  /// division is by zero.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &B) const;
  void symbols(std::set<std::string> &Out) const;
};

/// One distinct memory reference in the innermost loop body.
struct Access {
  std::string Array;  ///< base as written: "a", "s.x", "A", "pp[i]"
  std::string Text;   ///< the reference as written: "A[i][j]"
  unsigned ElementBytes = 0; ///< bytes moved per reference
  unsigned StrideBytes = 0;  ///< bytes per unit of the last subscript
  unsigned FieldOffset = 0;  ///< byte offset inside a struct element
  bool Read = false;
  bool Write = false;
  std::vector<Poly> Subscripts;           ///< per dimension, outermost first
  std::vector<std::optional<Poly>> Dims;  ///< extent of each dimension if known
  std::optional<Poly> Linear; ///< element offset from the base, when affine
  /// Without Linear: the subscripts as integer expressions, outermost
  /// first, where they read only counters, sizes and values computed from
  /// them (in[j / 4]): how far the access moves on average.
  std::vector<IntExpr> IndexExprs;
  bool Indirect = false;      ///< subscript or base depends on loaded data
  std::string IndirectVia;    ///< the index expression, e.g. "col[j]"
  std::string NonAffine;      ///< why the subscript is not affine, if it is not
  /// A row reached through a pointer the nest loads (za[j][k] over double
  /// **za): the pointer array ("za") and the row's index in it (j).
  std::string RowsOf;
  std::optional<Poly> Row;
  SourceLoc Loc;
  unsigned Occurrences = 1;   ///< references merged into this one
  unsigned ReadRefs = 0;      ///< of those, the ones that read (a += reads and writes)
  unsigned WriteRefs = 0;     ///< and the ones that write
  /// The code promises every address is a multiple of ElementBytes (aligned
  /// SIMD intrinsics such as _mm256_load_ps; vmovaps faults otherwise).
  bool AlignedByContract = false;
  /// Declared alignment of the base (an array variable), 0 when unknown
  /// (pointers): with the offsets it proves an access aligned.
  unsigned BaseAlignBytes = 0;
  /// OuterAccesses only: the nest level whose body holds the reference
  /// beside the inner loop (0: the outermost), and whether that body holds
  /// other inner loops as well (then the reference is no one loop's own).
  int OuterLevel = -1;
  bool SharedOuter = false;
};

/// Floating-point operations per source iteration of one precision.
struct FlopCounts {
  unsigned Add = 0;  ///< additions and subtractions
  unsigned Mul = 0;
  unsigned Div = 0;
  unsigned Sqrt = 0;
  unsigned Other = 0; ///< other math-library calls (exp, sin, pow, fmin, ...)
  /// Multiplies whose result feeds an add directly (a*b+c, s += a*b), or
  /// explicit fma() calls; each pair is already counted in Add and Mul.
  unsigned FmaContractible = 0;
  unsigned total() const { return Add + Mul + Div + Sqrt + Other; }
  FlopCounts &operator+=(const FlopCounts &O);
};

/// The same operations counted as written, one per operation whatever its
/// width, grouped by the number of lanes (1: scalar, 8: __m256): what a
/// compiler that translates the source literally issues.
using OpsByLanes = std::map<unsigned, FlopCounts>;

/// A condition on sizes alone that the nest runs under (`if (m == 4)`
/// around it, or the else of `if (m == 2)`): the nest runs at sizes where
/// LEFT OP RIGHT holds (is false, when NEGATED).
struct SizeGuard {
  enum class Op { Eq, Ne, Lt, Le, Gt, Ge } Cmp = Op::Eq;
  Poly Left, Right;
  bool Negated = false;
  std::string Text; ///< as written, e.g. "m == 4"
  unsigned Line = 0;
  /// Whether it holds with the sizes bound by B; nullopt when one is not.
  std::optional<bool> holds(const std::map<std::string, int64_t> &B) const;
};

/// A branch of the innermost body on counters and sizes only (an image's
/// edge columns: `if (x + 1 < width)` with x = j / 4): its arms' lines and
/// its condition, whose share of the nest's iterations at the bound sizes
/// (branchShare) says how often each arm runs.
struct CounterBranch {
  /// Counters: COND's share at the sizes. RunningExtremum: the then-arm
  /// takes a new minimum or maximum of the data (`if (x[k] < x[m]) m = k`),
  /// taken at the k-th iteration with probability 1/k for data in random
  /// order: H(n) / n of n iterations.
  enum class Kind { Counters, RunningExtremum } What = Kind::Counters;
  unsigned Line = 0, LastLine = 0;      ///< the condition's
  unsigned ThenFirst = 0, ThenLast = 0;
  unsigned ElseFirst = 0, ElseLast = 0; ///< 0: no else
  std::string Text;                     ///< the condition as written
  IntExpr Cond;
};

struct LoopKernel {
  std::string Function;
  SourceLoc Loc;                ///< the innermost loop's `for`
  unsigned EndLine = 0;         ///< last line of the innermost loop
  std::vector<LoopLevel> Nest;  ///< outermost first; the innermost is last
  bool Modelled = true;
  std::string Reason;           ///< why not, when !Modelled
  std::vector<Access> Accesses;
  /// Array references of the enclosing loops' bodies outside the innermost
  /// loop (s[i] = t after a row's reduction), once per iteration of their
  /// level: the traffic models count them at that rate (reads before the
  /// inner loop, writes after), and they size a timing harness's arrays.
  std::vector<Access> OuterAccesses;
  FlopCounts Single;            ///< float
  FlopCounts Double;            ///< double and long double
  OpsByLanes SingleOps;         ///< float operations by width
  OpsByLanes DoubleOps;
  std::vector<std::string> Reductions; ///< scalars carried across iterations
  /// Library math functions called per iteration (exp, sinf), once per call
  /// in the source: what the machine file's core.call_cy costs when the
  /// compiled loop is not analysed.
  std::vector<std::string> MathCalls;
  std::vector<std::string> Notes;
  /// Conditions on sizes around the nest: at sizes where one fails the
  /// nest does not run (nestIterations is 0).
  std::vector<SizeGuard> Guards;
  /// Branches of the innermost body on counters and sizes, in source order.
  std::vector<CounterBranch> Branches;

  const LoopLevel &innermost() const { return Nest.back(); }
  unsigned flops() const { return Single.total() + Double.total(); }
};

/// A derived size: NUMERATOR over DIVISOR, or over the value of BY (a size:
/// TSVC's iterations/LEN_2D), truncated as C divides.
struct Quotient {
  Poly Numerator;
  int64_t Divisor = 1;
  std::optional<Poly> By;
};

struct Parameter {
  std::string Name;
  std::optional<int64_t> Value;
  enum class Origin { CommandLine, Source, Default, Derived } From = Origin::Default;
  std::string Where; ///< for Source: "file:line"
  /// Derived: an integer quotient of other parameters (N/2, LEN >> 2):
  /// NUMERATOR's value over DIVISOR, truncated as C divides, whatever binds
  /// them (bindings() computes it).
  std::optional<Poly> Numerator;
  int64_t Divisor = 1;
  std::optional<Poly> DivisorSize; ///< a size's value divides instead
};

/// A value loaded from memory that a bound or subscript depends on.
struct DataRef {
  std::string Array; ///< e.g. "col"
  Poly Index;        ///< element index, affine in counters and parameters
  unsigned ElementBytes = 0;
};

/// A parameter of a function with loops, as far as a timing harness needs it.
struct FunctionParam {
  std::string Name;
  enum class Kind { Integer, Floating, Pointer, Other } What = Kind::Other;
  std::string Type;        ///< the parameter's type as C spells it: "const double *"
  std::string Pointee;     ///< for pointers: the element type, unqualified ("double")
  unsigned PointeeBytes = 0;
  bool PointeeIsFloating = false;
};

/// A file-scope array of numbers a function's loops access: a timing
/// harness fills it as it fills the arrays it passes (a program's data is
/// written before a loop reads it; never written, its pages are all the
/// operating system's one zero page).
struct FileArray {
  std::string Name;
  std::string Element; ///< the scalar element type as C spells it: "float"
  bool Floating = false;
};

/// The signature of a function that contains analysed loops.
struct FunctionInfo {
  std::string Name;  ///< as in LoopKernel::Function
  bool Callable = false; ///< a plain function a C harness can call by name
  std::string Why;   ///< when not callable
  std::vector<FunctionParam> Params;
  std::vector<FileArray> FileArrays; ///< in the order first accessed
};

struct KernelIR {
  std::string File;
  bool Cxx = false; ///< parsed as C++
  std::map<std::string, FunctionInfo> Functions; ///< by LoopKernel::Function
  std::vector<LoopKernel> Loops; ///< in source order
  std::map<std::string, Parameter> Parameters;
  /// Symbols in bounds and subscripts that are values loaded from memory
  /// (`rowptr[i]`), not size parameters.
  std::set<std::string> DataSymbols;
  /// For data symbols that are a plain array element: which one.
  std::map<std::string, DataRef> DataRefs;
  std::vector<std::string> Notes;

  /// Parameter values for evaluating polynomials, derived quotients
  /// included. Computed once per setting of Parameters (the later stages ask
  /// for them thousands of times per file); a reference stays valid for the
  /// life of this KernelIR and its copies, whatever Parameters become.
  const std::map<std::string, int64_t> &bindings() const;

  struct BindingsMemo;
  mutable std::shared_ptr<BindingsMemo> Memo; ///< bindings() per setting
};

/// Calls F on every source location of IR's loops (loop, levels, accesses).
void forEachLocation(KernelIR &IR, const std::function<void(SourceLoc &)> &F);

/// Iterations of the innermost body in one execution of the whole nest of K
/// at IR's bound sizes; nullopt when a bound depends on loaded data.
/// Iterations of level L with the symbols of its bounds bound by B (0 when
/// empty); nullopt when a bound is not known (an enclosing counter or
/// loaded data not in B).
std::optional<int64_t> tripCount(const LoopLevel &L, const std::map<std::string, int64_t> &B);

/// The share of K's iterations in which COND holds with the sizes of B:
/// the innermost level counted whole up to 4,096 iterations (evenly spread
/// points beyond), each outer level at 16 points, its first and last among
/// them, and again between two points whose counts differ (edge rows found
/// exactly); nullopt where a bound or the condition cannot be evaluated.
std::optional<double> branchShare(const LoopKernel &K, const IntExpr &Cond,
                                  const std::map<std::string, int64_t> &B);

/// The share of K's iterations that take BR's then-arm with the sizes of B
/// (branchShare of its condition, or H(n) / n for a running extremum over
/// the innermost level's n iterations); nullopt where it cannot be said.
std::optional<double> armShare(const LoopKernel &K, const CounterBranch &Br,
                               const std::map<std::string, int64_t> &B);

/// VALUES (index data by array) resolves bounds loaded from memory
/// (rowptr[i], rowptr[i + 1]).
std::optional<double>
nestIterations(const LoopKernel &K, const KernelIR &IR,
               const std::map<std::string, std::vector<int64_t>> *Values = nullptr);

/// Elements A moves per unit of counter VAR with the sizes bound by B: its
/// linear offset's coefficient; nullopt without a linear offset or where the
/// coefficient is no constant there.
std::optional<int64_t> elementsPerUnit(const Access &A, const std::string &Var,
                                       const std::map<std::string, int64_t> &B);

/// Bytes A moves per iteration of L (either way) with the sizes bound by
/// B; nullopt where elementsPerUnit is.
std::optional<int64_t> bytesPerIteration(const Access &A, const LoopLevel &L,
                                         const std::map<std::string, int64_t> &B);

/// A's element offset from its base: Linear, else the subscripts combined
/// with the extents (an indirect subscript stays a symbol of the loaded
/// value); nullopt with WHY when an extent is unknown or the base itself is
/// loaded from memory.
std::optional<Poly> elementOffset(const Access &A, std::string *Why = nullptr);

/// The lowest and highest value of OFF (an access's element offset) over
/// the corners of K's nest (each level at its first and last value, outer
/// levels substituted into inner bounds) at bindings B, with every value
/// loaded from an index array (IR.DataRefs) at either end of its array's
/// range in RANGES. Nullopt when a bound, a symbol or a range is unknown.
/// Exact for offsets affine in the counters and the loaded values.
std::optional<std::pair<int64_t, int64_t>>
offsetRange(const LoopKernel &K, const KernelIR &IR, const Poly &Off,
            const std::map<std::string, int64_t> &B,
            const std::map<std::string, std::pair<int64_t, int64_t>> *Ranges = nullptr);

} // namespace perfmodel

#endif

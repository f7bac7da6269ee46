// Front-end golden tests on examples/: flops, bytes and subscripts per
// iteration, derived by hand from the source next to each expectation.
#include "perfmodel/Frontend.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Roofline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace perfmodel;

namespace {

const std::string Src = PERFMODEL_SOURCE_DIR;

FrontendResult analyzeFile(const std::string &Rel,
                           std::map<std::string, int64_t> Defines = {},
                           std::vector<std::string> Args = {}, bool HasArgs = false) {
  FrontendOptions O;
  O.File = Src + "/" + Rel;
  O.Defines = std::move(Defines);
  O.CompileArgs = std::move(Args);
  O.HasCompileArgs = HasArgs;
  FrontendResult R = runFrontend(O);
  EXPECT_TRUE(R.Ok) << R.Error << "\n" << R.Diagnostics;
  return R;
}

/// Writes CODE to a temporary file with extension EXT and analyses it with
/// the -D sizes DEFINES.
FrontendResult analyzeCode(const std::string &Code, const std::string &Ext = "c",
                           std::map<std::string, int64_t> Defines = {},
                           double ExitFraction = 1.0) {
  llvm::SmallString<128> Path;
  llvm::sys::fs::createTemporaryFile("perfmodel-test", Ext, Path);
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Code;
  }
  FrontendOptions O;
  O.File = std::string(Path);
  O.HasCompileArgs = true;
  O.Defines = std::move(Defines);
  O.ExitFraction = ExitFraction;
  FrontendResult R = runFrontend(O);
  llvm::sys::fs::remove(Path);
  EXPECT_TRUE(R.Ok) << R.Error << "\n" << R.Diagnostics;
  return R;
}

const LoopKernel &loopIn(const FrontendResult &R, const std::string &Function,
                         unsigned Nth = 0) {
  for (const LoopKernel &K : R.IR.Loops)
    if (K.Function == Function && Nth-- == 0)
      return K;
  ADD_FAILURE() << "no loop in " << Function;
  static LoopKernel None;
  return None;
}

const Access *access(const LoopKernel &K, const std::string &Text) {
  for (const Access &A : K.Accesses)
    if (A.Text == Text)
      return &A;
  ADD_FAILURE() << "no access " << Text;
  return nullptr;
}

MachineModel haswell() {
  auto R = loadMachineModel(Src + "/machine-models/haswell-ep-e5-2680v3.yml");
  EXPECT_TRUE(R.ok());
  return *R.Model;
}

} // namespace

TEST(Frontend, StreamTriad) {
  // a[i] = b[i] + s*c[i]: 1 add + 1 mul (one FMA pair); 2 loads, 1 store.
  FrontendResult R = analyzeFile("examples/triad.c");
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  const LoopKernel &K = R.IR.Loops[0];
  EXPECT_TRUE(K.Modelled);
  EXPECT_EQ(K.Loc.Line, 6u);
  EXPECT_EQ(K.flops(), 2u);
  EXPECT_EQ(K.Double.Add, 1u);
  EXPECT_EQ(K.Double.Mul, 1u);
  EXPECT_EQ(K.Double.FmaContractible, 1u);
  ASSERT_EQ(K.Accesses.size(), 3u);
  const Access *A = access(K, "a[i]");
  ASSERT_TRUE(A);
  EXPECT_TRUE(A->Write);
  EXPECT_FALSE(A->Read);
  EXPECT_EQ(A->Linear, Poly::symbol("i"));
  NaiveTraffic T = naiveTraffic(K, haswell());
  EXPECT_EQ(T.LoadBytes, 16);
  EXPECT_EQ(T.StoreBytes, 8);
  EXPECT_EQ(T.l1Bytes(), 24);        // every reference once
  EXPECT_EQ(T.beyondL1Bytes(), 32);  // + write-allocate of a[i]
}

TEST(Frontend, WilliamsVectorMagnitude) {
  // sum += A[i]*A[i]: 2 flops; A[i] read twice but one reference of 8 B.
  // The chapter counts this kernel as 1 flop per element (AI 0.125 at DRAM);
  // counting the multiply and the add separately gives 2 flops, AI 0.25.
  FrontendResult R = analyzeFile("examples/williams-fig9.2.c");
  const LoopKernel &K = loopIn(R, "magnitude");
  EXPECT_EQ(K.flops(), 2u);
  ASSERT_EQ(K.Accesses.size(), 1u);
  EXPECT_EQ(K.Accesses[0].Occurrences, 2u);
  EXPECT_EQ(K.Accesses[0].ElementBytes, 8u);
  EXPECT_EQ(K.Reductions, std::vector<std::string>{"sum"});
  NaiveTraffic T = naiveTraffic(K, haswell());
  EXPECT_EQ(T.beyondL1Bytes(), 8);
  EXPECT_DOUBLE_EQ(K.flops() / T.beyondL1Bytes(), 0.25);
}

TEST(Frontend, WilliamsStencil) {
  // C[j][i] = c0*A[j][i] + c1*(4 neighbours): 4 adds + 2 muls = 6 flops.
  // Naive bytes: 5 loads of A (40 B), 1 store of C (8 B) + its write-allocate.
  FrontendResult R = analyzeFile("examples/williams-fig9.2.c");
  const LoopKernel &K = loopIn(R, "stencil");
  EXPECT_EQ(K.Double.Add, 4u);
  EXPECT_EQ(K.Double.Mul, 2u);
  EXPECT_EQ(K.flops(), 6u);
  ASSERT_EQ(K.Nest.size(), 2u);
  EXPECT_EQ(K.Nest[0].Var, "j");
  EXPECT_EQ(K.Nest[1].Lower, Poly::constant(1));
  EXPECT_EQ(K.Nest[1].Upper, Poly::symbol("N") - Poly::constant(1));
  ASSERT_EQ(K.Accesses.size(), 6u);
  // A[j-1][i] sits one row (N elements) before A[j][i].
  const Access *Up = access(K, "A[j - 1][i]");
  ASSERT_TRUE(Up && Up->Linear);
  Poly N = Poly::symbol("N"), J = Poly::symbol("j"), I = Poly::symbol("i");
  EXPECT_EQ(*Up->Linear, N * J + I - N);
  ASSERT_EQ(Up->Dims.size(), 2u);
  EXPECT_EQ(Up->Dims[1], N);
  NaiveTraffic T = naiveTraffic(K, haswell());
  EXPECT_EQ(T.LoadBytes, 40);
  EXPECT_EQ(T.StoreBytes, 8);
  EXPECT_EQ(T.WriteAllocateBytes, 8);
  // N comes from the #define in the file, and -D overrides it.
  ASSERT_TRUE(R.IR.Parameters.count("N"));
  EXPECT_EQ(R.IR.Parameters.at("N").Value, 2048);
  EXPECT_EQ(R.IR.Parameters.at("N").From, Parameter::Origin::Source);
  FrontendResult R2 = analyzeFile("examples/williams-fig9.2.c", {{"N", 4096}});
  EXPECT_EQ(R2.IR.Parameters.at("N").Value, 4096);
  EXPECT_EQ(R2.IR.Parameters.at("N").From, Parameter::Origin::CommandLine);
}

TEST(Frontend, WilliamsDgemm) {
  // C[i][j] += A[i][k]*B[k][j]: 2 flops, 3 loads and 1 store of 8 B; the
  // store needs no write-allocate (C[i][j] is read by the same statement).
  FrontendResult R = analyzeFile("examples/williams-fig9.2.c");
  const LoopKernel &K = loopIn(R, "dgemm");
  EXPECT_EQ(K.flops(), 2u);
  EXPECT_EQ(K.Double.FmaContractible, 1u);
  ASSERT_EQ(K.Nest.size(), 3u);
  EXPECT_EQ(K.innermost().Var, "k");
  const Access *C = access(K, "C[i][j]");
  ASSERT_TRUE(C);
  EXPECT_TRUE(C->Read && C->Write);
  Poly N = Poly::symbol("N");
  EXPECT_EQ(access(K, "B[k][j]")->Linear, N * Poly::symbol("k") + Poly::symbol("j"));
  // Stride of the innermost counter: 1 for A, N for B, 0 for C.
  EXPECT_EQ(access(K, "A[i][k]")->Linear->coefficientOf("k"), Poly::constant(1));
  EXPECT_EQ(access(K, "B[k][j]")->Linear->coefficientOf("k"), N);
  EXPECT_TRUE(C->Linear->coefficientOf("k").isZero());
  NaiveTraffic T = naiveTraffic(K, haswell());
  EXPECT_EQ(T.LoadBytes, 24);
  EXPECT_EQ(T.StoreBytes, 8);
  EXPECT_EQ(T.WriteAllocateBytes, 0);
}

TEST(Frontend, LinearisedMatmulAndAliases) {
  FrontendResult R = analyzeFile("examples/matmul.c");
  const LoopKernel &IJK = loopIn(R, "matmul_ijk");
  Poly n = Poly::symbol("n");
  EXPECT_EQ(access(IJK, "B[k * n + j]")->Linear->coefficientOf("k"), n);
  EXPECT_EQ(IJK.flops(), 2u);
  // ikj reaches C and B through local row pointers; they resolve to the arrays.
  const LoopKernel &IKJ = loopIn(R, "matmul_ikj");
  EXPECT_EQ(IKJ.innermost().Var, "j");
  const Access *C = access(IKJ, "Crow[j]");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Array, "C");
  EXPECT_EQ(C->Linear, Poly::symbol("i") * n + Poly::symbol("j"));
  EXPECT_EQ(access(IKJ, "Brow[j]")->Array, "B");
  EXPECT_EQ(IKJ.Accesses.size(), 2u); // a is a register
  EXPECT_EQ(R.IR.Parameters.at("n").From, Parameter::Origin::Default);
}

TEST(Frontend, IndirectSpMV) {
  // y[i] += val[j]*x[col[j]]: x is reached through the loaded col[j].
  FrontendResult R = analyzeFile("examples/spmv-csr.c");
  const LoopKernel &K = loopIn(R, "spmv_csr");
  EXPECT_TRUE(K.Modelled);
  EXPECT_EQ(K.flops(), 2u);
  const Access *X = access(K, "x[col[j]]");
  ASSERT_TRUE(X);
  EXPECT_TRUE(X->Indirect);
  EXPECT_EQ(X->IndirectVia, "col[j]");
  EXPECT_FALSE(X->Linear.has_value());
  const Access *Col = access(K, "col[j]");
  ASSERT_TRUE(Col);
  EXPECT_FALSE(Col->Indirect);
  EXPECT_EQ(Col->ElementBytes, 4u);
  EXPECT_FALSE(access(K, "val[j]")->Indirect);
  // The inner bounds are data, not size parameters.
  EXPECT_TRUE(R.IR.DataSymbols.count("rowptr[i + 1]"));
  EXPECT_FALSE(R.IR.Parameters.count("rowptr[i + 1]"));
  EXPECT_EQ(naiveTraffic(K, haswell()).LoadBytes, 20); // 8 + 8 + 4
}

// The range an access reaches over the nest's corners, with loaded values
// at the ends of their index data's range. By hand, i in [0, 100), j in
// [0, 8): a[10 * i + j] spans [0, 997]; x[idx[i] + 2] with idx in [5, 40]
// spans [7, 42]; b[2 * idx[i] - i] with idx in [5, 40]: [10 - 99, 80 - 0]
// = [-89, 80]. Without the range (or for a symbol not loaded from an
// index array), none.
TEST(Frontend, OffsetRangesReachTheEndsOfTheIndexData) {
  FrontendResult R = analyzeCode(R"(
void f(long n, double *restrict a, double *restrict x, double *restrict b,
       const int *restrict idx) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < 8; ++j)
      a[10 * i + j] += x[idx[i] + 2] + b[2 * idx[i] - i];
}
)");
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  const LoopKernel &K = R.IR.Loops[0];
  std::map<std::string, int64_t> B = {{"n", 100}};
  std::map<std::string, std::pair<int64_t, int64_t>> Ranges = {{"idx", {5, 40}}};
  std::map<std::string, std::pair<int64_t, int64_t>> Got;
  for (const Access &A : K.Accesses) {
    std::optional<Poly> Off = elementOffset(A);
    ASSERT_TRUE(Off.has_value()) << A.Text;
    if (auto Rg = offsetRange(K, R.IR, *Off, B, &Ranges))
      Got[A.Text] = *Rg;
    if (A.Indirect)
      EXPECT_FALSE(offsetRange(K, R.IR, *Off, B).has_value()) << A.Text;
  }
  EXPECT_EQ(Got["a[10 * i + j]"], std::make_pair(int64_t(0), int64_t(997)));
  EXPECT_EQ(Got["x[idx[i] + 2]"], std::make_pair(int64_t(7), int64_t(42)));
  EXPECT_EQ(Got["b[2 * idx[i] - i]"], std::make_pair(int64_t(-89), int64_t(80)));
  EXPECT_EQ(Got["idx[i]"], std::make_pair(int64_t(0), int64_t(99)));
}

TEST(Frontend, StdVectorLoops) {
  FrontendResult R = analyzeFile("examples/vector.cpp");
  const LoopKernel &Axpy = loopIn(R, "axpy");
  EXPECT_EQ(Axpy.flops(), 2u);
  EXPECT_TRUE(access(Axpy, "y[i]")->Read && access(Axpy, "y[i]")->Write);
  EXPECT_EQ(access(Axpy, "x[i]")->ElementBytes, 8u);
  EXPECT_EQ(Axpy.innermost().Upper, Poly::symbol("x.size()"));
  // Range-for over std::vector<float>: 1 single mul, 4 B read + written.
  const LoopKernel &Scale = loopIn(R, "scale");
  EXPECT_EQ(Scale.Single.Mul, 1u);
  EXPECT_EQ(Scale.Double.total(), 0u);
  ASSERT_EQ(Scale.Accesses.size(), 1u);
  EXPECT_EQ(Scale.Accesses[0].Array, "v");
  EXPECT_EQ(Scale.Accesses[0].ElementBytes, 4u);
}

TEST(Frontend, TemplateInstantiations) {
  FrontendResult R = analyzeFile("examples/template.cpp");
  const LoopKernel &F = loopIn(R, "saxpy<float>");
  const LoopKernel &D = loopIn(R, "saxpy<double>");
  EXPECT_EQ(F.Single.total(), 2u);
  EXPECT_EQ(D.Double.total(), 2u);
  EXPECT_EQ(access(F, "x[i]")->ElementBytes, 4u);
  EXPECT_EQ(access(D, "x[i]")->ElementBytes, 8u);
  EXPECT_EQ(loopIn(R, "dot<double>").Reductions, std::vector<std::string>{"s"});
  bool Noted = false;
  for (const std::string &N : R.IR.Notes)
    Noted |= N.find("'never_used'") != std::string::npos;
  EXPECT_TRUE(Noted);
}

// Integer fields of structs that the nest does not write are sizes like
// parameters (g.n, p->n, bound with -D g.n=...): the accesses they index are
// affine. A field the nest writes (s->k, counted up) is data, as before.
TEST(Frontend, StructFieldsTheNestDoesNotWriteAreSizes) {
  FrontendResult R = analyzeCode(R"(
struct grid { int n; double *d; };
void smooth(struct grid g, struct grid *h) {
  for (int i = 1; i < g.n - 1; ++i)
    for (int j = 1; j < g.n - 1; ++j)
      h->d[i * h->n + j] = 0.5 * (g.d[(i - 1) * g.n + j] + g.d[i * g.n + j + 1]);
}
struct counter { long k; double *v; };
void pack(long n, struct counter *s, const double *x) {
  for (long i = 0; i < n; ++i)
    s->v[s->k++] = x[i];
}
)");
  const LoopKernel &S = loopIn(R, "smooth");
  ASSERT_EQ(S.Nest.size(), 2u);
  EXPECT_EQ(S.Nest[0].Upper, Poly::symbol("g.n") - Poly::constant(1));
  Poly I = Poly::symbol("i"), J = Poly::symbol("j"), N = Poly::symbol("g.n");
  const Access *Up = access(S, "g.d[(i - 1) * g.n + j]");
  ASSERT_TRUE(Up && Up->Linear);
  EXPECT_FALSE(Up->Indirect);
  EXPECT_EQ(*Up->Linear, N * I - N + J);
  const Access *Out = access(S, "h->d[i * h->n + j]");
  ASSERT_TRUE(Out && Out->Linear);
  EXPECT_EQ(*Out->Linear, Poly::symbol("h->n") * I + J);
  // Bound with -D, the nest has a trip count.
  FrontendResult B = analyzeCode(R"(
struct grid { int n; double *d; };
double sum(struct grid g) {
  double s = 0;
  for (int i = 0; i < g.n; ++i)
    s += g.d[i];
  return s;
}
)");
  auto Trips = loopIn(B, "sum").Nest[0].Upper.substitute({{"g.n", 5000}}).evaluate({});
  EXPECT_EQ(Trips, std::optional<int64_t>(5000));
  const LoopKernel &P = loopIn(R, "pack");
  const Access *Packed = access(P, "s->v[s->k++]");
  ASSERT_TRUE(Packed);
  EXPECT_TRUE(Packed->Indirect || !Packed->Linear);
}

// Calls to one-line functions and methods of the file are read as what they
// return: a matrix class's at() and operator(), an index helper, a getter
// through a pointer. Their parameters stand for the arguments and their
// fields for the object's (d -> g.d, n -> g.n). Anything longer is still a
// call with unknown side effects.
TEST(Frontend, OneLineAccessorsAreReadAsWhatTheyReturn) {
  FrontendResult R = analyzeCode(R"(
#include <vector>
struct Grid {
  int n;
  std::vector<double> d;
  double &at(int i, int j) { return d[i * n + j]; }
  double operator()(int i, int j) const { return d[i * n + j]; }
};
inline long idx(long i, long j, long ld) { return i * ld + j; }
struct Vec { double *v; double get(long i) const { return 2.0 * v[i]; } };
void smooth(Grid &g, Grid &h) {
  for (int i = 1; i < g.n - 1; ++i)
    for (int j = 1; j < g.n - 1; ++j)
      h.at(i, j) = 0.5 * (g(i - 1, j) + g.at(i, j + 1));
}
void scale(long n, long ld, double *a, const Vec *x) {
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j)
      a[idx(i, j, ld)] = x->get(j);
}
double noisy(Grid &g, int k) { if (k > 0) return g.at(k, 0); return 0; }
double sum(Grid &g) {
  double s = 0;
  for (int i = 0; i < g.n; ++i)
    s += noisy(g, i);
  return s;
}
)", "cpp");
  const LoopKernel &S = loopIn(R, "smooth");
  ASSERT_TRUE(S.Modelled) << S.Reason;
  Poly I = Poly::symbol("i"), J = Poly::symbol("j");
  const Access *Out = access(S, "h.at(i, j)");
  ASSERT_TRUE(Out && Out->Linear);
  EXPECT_EQ(Out->Array, "h.d");
  EXPECT_TRUE(Out->Write && !Out->Read);
  EXPECT_EQ(*Out->Linear, Poly::symbol("h.n") * I + J);
  const Access *Up = access(S, "g(i - 1, j)");
  ASSERT_TRUE(Up && Up->Linear);
  EXPECT_EQ(Up->Array, "g.d");
  EXPECT_EQ(*Up->Linear, Poly::symbol("g.n") * I - Poly::symbol("g.n") + J);
  EXPECT_EQ(S.Accesses.size(), 3u); // no access for the sizes n
  EXPECT_EQ(S.Double.Add, 1u);
  EXPECT_EQ(S.Double.Mul, 1u);

  const LoopKernel &A = loopIn(R, "scale");
  ASSERT_TRUE(A.Modelled) << A.Reason;
  const Access *Ai = access(A, "a[idx(i, j, ld)]");
  ASSERT_TRUE(Ai && Ai->Linear);
  EXPECT_EQ(*Ai->Linear, I * Poly::symbol("ld") + J);
  const Access *X = access(A, "x->get(j): v[i]");
  ASSERT_TRUE(X && X->Linear);
  EXPECT_EQ(X->Array, "x->v");
  EXPECT_EQ(*X->Linear, J);
  EXPECT_EQ(A.Double.Mul, 1u); // the getter's 2.0 * v[i]

  const LoopKernel &N = loopIn(R, "sum");
  EXPECT_FALSE(N.Modelled);
  EXPECT_NE(N.Reason.find("call to 'noisy'"), std::string::npos) << N.Reason;
}

// A helper may define locals once before its return: they stand for their
// initialisers (r = i * n; v = d[r + j]; return 2.0 * v).
TEST(Frontend, ShortHelpersWithLocalsAreReadAsWhatTheyReturn) {
  FrontendResult R = analyzeCode(R"(
#include <vector>
struct M {
  long n;
  std::vector<double> d;
  double get(long i, long j) const { long r = i * n; double v = d[r + j]; return 2.0 * v; }
};
double sumall(const M &m) {
  double s = 0;
  for (long i = 0; i < m.n; ++i)
    for (long j = 0; j < m.n; ++j)
      s += m.get(i, j);
  return s;
}
)", "cpp");
  const LoopKernel &K = loopIn(R, "sumall");
  ASSERT_TRUE(K.Modelled) << K.Reason;
  ASSERT_EQ(K.Accesses.size(), 1u);
  EXPECT_EQ(K.Accesses[0].Array, "m.d");
  EXPECT_EQ(K.Accesses[0].Linear,
            std::optional<Poly>(Poly::symbol("i") * Poly::symbol("m.n") + Poly::symbol("j")));
  EXPECT_EQ(K.Double.Add, 1u);
  EXPECT_EQ(K.Double.Mul, 1u);
}

// Iterator counters over a container (begin() to end(), ++): *it is the
// container's element at the counter, as in a range-for; an iterator that
// ends in another container gives a reason.
TEST(Frontend, IteratorCountersWalkTheirContainer) {
  FrontendResult R = analyzeCode(R"(
#include <vector>
void scale(std::vector<double> &v, double a) {
  for (auto it = v.begin(); it != v.end(); ++it)
    *it *= a;
}
double sum(const std::vector<float> &v) {
  double s = 0;
  for (std::vector<float>::const_iterator it = v.cbegin(); it != v.cend(); it++)
    s += *it;
  return s;
}
void mixed(const std::vector<double> &x, std::vector<double> &y) {
  for (auto it = x.begin(); it != y.end(); ++it)
    ;
}
)", "cpp");
  const LoopKernel &S = loopIn(R, "scale");
  ASSERT_TRUE(S.Modelled) << S.Reason;
  EXPECT_EQ(S.Nest[0].Upper, Poly::symbol("v.size()"));
  const Access *A = access(S, "*it");
  ASSERT_TRUE(A && A->Linear);
  EXPECT_EQ(A->Array, "v");
  EXPECT_TRUE(A->Read && A->Write);
  EXPECT_EQ(A->ElementBytes, 8u);
  EXPECT_EQ(*A->Linear, Poly::symbol("it"));
  const LoopKernel &F = loopIn(R, "sum");
  ASSERT_TRUE(F.Modelled) << F.Reason;
  EXPECT_EQ(access(F, "*it")->ElementBytes, 4u);
  const LoopKernel &M = loopIn(R, "mixed");
  EXPECT_FALSE(M.Modelled);
  EXPECT_NE(M.Reason.find("does not run to the end() of the container it starts in"),
            std::string::npos)
      << M.Reason;
}

// Pointer counters walk an array: the counter is the element offset from it
// (for (double *p = a; p != a + n; ++p) is i in [0, n) over a[i]); p[k],
// p->x and p - a follow. Two pointers that are not offsets into one array
// have no trip count the front end can see.
TEST(Frontend, PointerCountersWalkTheirArray) {
  FrontendResult R = analyzeCode(R"(
struct pt { double x, y; };
void scale(double *a, long n, double f) {
  for (double *p = a; p != a + n; ++p)
    *p *= f;
}
double sumx(const struct pt *ps, long n) {
  double s = 0;
  for (const struct pt *p = ps; p < ps + n; p++)
    s += p->y;
  return s;
}
void diff(double *restrict d, const double *restrict a, long n) {
  const double *p;
  for (p = &a[1]; p < &a[n]; ++p)
    d[p - a] = p[0] - p[-1];
}
void twoptr(double *a, double *e, double f) {
  for (double *p = a; p != e; ++p)
    *p *= f;
}
)");
  Poly P = Poly::symbol("p"), N = Poly::symbol("n");
  const LoopKernel &S = loopIn(R, "scale");
  ASSERT_TRUE(S.Modelled) << S.Reason;
  EXPECT_EQ(S.Nest[0].Lower, Poly::constant(0));
  EXPECT_EQ(S.Nest[0].Upper, N);
  const Access *Ap = access(S, "*p");
  ASSERT_TRUE(Ap && Ap->Linear);
  EXPECT_EQ(Ap->Array, "a");
  EXPECT_TRUE(Ap->Read && Ap->Write);
  EXPECT_EQ(*Ap->Linear, P);
  const LoopKernel &X = loopIn(R, "sumx");
  const Access *Y = access(X, "p->y");
  ASSERT_TRUE(Y && Y->Linear);
  EXPECT_EQ(Y->Array, "ps");
  EXPECT_EQ(Y->FieldOffset, 8u);
  EXPECT_EQ(Y->StrideBytes, 16u);
  const LoopKernel &D = loopIn(R, "diff");
  ASSERT_TRUE(D.Modelled) << D.Reason;
  EXPECT_EQ(D.Nest[0].Lower, Poly::constant(1));
  EXPECT_EQ(D.Nest[0].Upper, N);
  EXPECT_EQ(access(D, "d[p - a]")->Linear, std::optional<Poly>(P));
  EXPECT_EQ(access(D, "p[-1]")->Linear, std::optional<Poly>(P - Poly::constant(1)));
  const LoopKernel &T = loopIn(R, "twoptr");
  EXPECT_FALSE(T.Modelled);
  EXPECT_NE(T.Reason.find("are not offsets into one array"), std::string::npos) << T.Reason;
}

TEST(Frontend, OpenMPLoops) {
  FrontendResult R = analyzeFile("examples/omp.c");
  const LoopKernel &J = loopIn(R, "jacobi");
  ASSERT_EQ(J.Nest.size(), 2u);
  EXPECT_EQ(J.Nest[0].Pragma, "omp parallel for");
  // The parallel loop starts and joins its threads; the loop inside does not.
  EXPECT_TRUE(J.Nest[0].ForksThreads);
  EXPECT_FALSE(J.Nest[1].ForksThreads);
  EXPECT_EQ(J.Double.Add, 3u);
  EXPECT_EQ(J.Double.Mul, 1u);
  // VLA parameter double (*in)[m]: rows are m elements apart.
  Poly m = Poly::symbol("m");
  EXPECT_EQ(access(J, "in[j + 1][i]")->Linear,
            Poly::symbol("j") * m + Poly::symbol("i") + m);
  const LoopKernel &S = loopIn(R, "sum");
  EXPECT_EQ(S.innermost().Pragma, "omp simd");
  EXPECT_FALSE(S.innermost().ForksThreads);
  // float loaded, accumulated in double: the add is double precision.
  EXPECT_EQ(S.Double.Add, 1u);
  EXPECT_EQ(access(S, "x[i]")->ElementBytes, 4u);
}

TEST(Frontend, UnsupportedLoopsAreReportedWithReasons) {
  FrontendResult R = analyzeFile("examples/unsupported.c");
  ASSERT_EQ(R.IR.Loops.size(), 4u);
  const LoopKernel &While = loopIn(R, "find");
  EXPECT_FALSE(While.Modelled);
  EXPECT_NE(While.Reason.find("while loop"), std::string::npos);
  const LoopKernel &Call = loopIn(R, "log_values");
  EXPECT_FALSE(Call.Modelled);
  EXPECT_NE(Call.Reason.find("call to 'printf'"), std::string::npos);
  // A goto out of the loop is an early exit: priced, with its assumption.
  const LoopKernel &Goto = loopIn(R, "first_negative");
  EXPECT_TRUE(Goto.Modelled) << Goto.Reason;
  EXPECT_EQ(Goto.Nest[0].Exit, "goto at line 19");
  EXPECT_TRUE(loopIn(R, "scale").Modelled);
}

// A branch on sizes decides whether the nests inside it run (llvm-test-
// suite's ordered dither: one of four nests under m == 2 ... m == 8 runs):
// with -D m=3 the nest of m == 2 and the one of the final else run 0
// iterations, m == 3's its n x n; a branch on data (x[0] > 0) or on a
// counter guards nothing; unbound, every nest is taken to run, with a note.
TEST(Frontend, BranchesOnCountersTakeTheShareTheSizesGive) {
  // tests/nest/counter-branches.c, shares derived by hand:
  // upscale at h = w = 256 (512 x 512 output points): x + 1 < w holds for
  // j < 510 (510 of 512 columns), y + 1 < h for 510 of 512 rows: the first
  // branch 510^2 / 512^2 = 0.99220, the else-if 510 / 512 = 0.99609
  // (unconditionally, as its condition reads). The rows are 512 at an outer
  // level sampled at 16 points: the last two rows are found between them.
  // thirds at n = 1000: i = 0, 3, ..., 999 is 334 of 1000. lower at n = 100:
  // d = j - i < 0 in sum(i) = 4950 of 10,000. positive's branch reads data.
  // argmin's update arm takes a new minimum: H(999) / 999 of its 999
  // iterations at n = 1000 (H summed here).
  FrontendOptions F;
  F.File = std::string(PERFMODEL_SOURCE_DIR) + "/tests/nest/counter-branches.c";
  F.Defines = {{"h", 256}, {"w", 256}, {"n", 1000}};
  FrontendResult R = runFrontend(F);
  ASSERT_TRUE(R.Ok) << R.Error;
  ASSERT_EQ(R.IR.Loops.size(), 7u);
  auto Shares = [&](const LoopKernel &K, const std::map<std::string, int64_t> &B) {
    std::vector<double> Out;
    for (const CounterBranch &Br : K.Branches)
      Out.push_back(branchShare(K, Br.Cond, B).value_or(-1));
    return Out;
  };
  std::map<std::string, int64_t> B = R.IR.bindings();
  std::vector<double> Up = Shares(R.IR.Loops[0], B);
  ASSERT_EQ(Up.size(), 2u);
  EXPECT_NEAR(Up[0], 510.0 * 510 / (512.0 * 512), 1e-12);
  EXPECT_NEAR(Up[1], 510.0 / 512, 1e-12);
  // The arms' lines: the then-arm from the line after the condition's.
  const CounterBranch &First = R.IR.Loops[0].Branches[0];
  EXPECT_EQ(First.ThenFirst, First.LastLine + 1);
  EXPECT_GT(First.ElseFirst, First.ThenLast);
  std::vector<double> Thirds = Shares(R.IR.Loops[1], B);
  ASSERT_EQ(Thirds.size(), 1u);
  EXPECT_NEAR(Thirds[0], 334.0 / 1000, 1e-12);
  B["n"] = 100;
  std::vector<double> Lower = Shares(R.IR.Loops[2], B);
  ASSERT_EQ(Lower.size(), 1u);
  EXPECT_NEAR(Lower[0], 4950.0 / 10000, 1e-12);
  EXPECT_TRUE(R.IR.Loops[3].Branches.empty());
  const LoopKernel &Argmin = R.IR.Loops[4];
  ASSERT_EQ(Argmin.Branches.size(), 1u);
  EXPECT_EQ(Argmin.Branches[0].What, CounterBranch::Kind::RunningExtremum);
  double H = 0;
  for (int K = 1; K <= 999; ++K)
    H += 1.0 / K;
  EXPECT_NEAR(armShare(Argmin, Argmin.Branches[0], R.IR.bindings()).value_or(-1), H / 999, 1e-7);
}

TEST(Frontend, BranchConditionsThatOverflowHaveNoShare) {
  // C leaves signed overflow undefined: a condition that overflows at some
  // iteration (i * 2^62 at i = 2) or does not fit 64 bits says no share,
  // and nothing crashes; i < n / 2 beside them is counted (500 of 1000).
  FrontendResult R = analyzeCode(R"(
void f(int n, float *restrict a) {
  for (long i = 0; i < n; i++) {
    if (i * 4611686018427387904L > 0) a[i] += 1;
    if (i < ((__int128)1 << 100)) a[i] += 2;
    if (i < n / 2) a[i] += 3;
  }
}
)", "c", {{"n", 1000}});
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  const LoopKernel &K = R.IR.Loops[0];
  std::vector<std::string> Found;
  double Half = -1;
  for (const CounterBranch &B : K.Branches) {
    Found.push_back(B.Text);
    std::optional<double> P = branchShare(K, B.Cond, R.IR.bindings());
    if (B.Text == "i < n / 2")
      Half = P.value_or(-2);
    else
      EXPECT_FALSE(P.has_value()) << B.Text;
  }
  EXPECT_NE(std::find(Found.begin(), Found.end(), "i < n / 2"), Found.end());
  EXPECT_DOUBLE_EQ(Half, 0.5);
}

TEST(Frontend, NestsUnderABranchOnSizesRunWhereItHolds) {
  const std::string Code = R"(
void pick(int n, int m, float *restrict x) {
  if (m == 2) {
    for (int i = 0; i < n; i++) x[i] = 2;
  } else if (m == 3) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) x[i * n + j] = 3;
  } else {
    for (int i = 0; i < n; i++) x[i] = 1;
  }
  if (n > 100 && m > 2)
    for (int i = 0; i < n; i++) x[i] += 1;
  if (x[0] > 0)
    for (int i = 0; i < n; i++) x[i] -= 1;
}
)";
  FrontendResult R = analyzeCode(Code, "c", {{"n", 200}, {"m", 3}});
  ASSERT_EQ(R.IR.Loops.size(), 5u);
  std::vector<double> Iters;
  for (const LoopKernel &K : R.IR.Loops)
    Iters.push_back(nestIterations(K, R.IR).value_or(-1));
  EXPECT_EQ(Iters, (std::vector<double>{0, 200 * 200, 0, 200, 200}));
  EXPECT_NE(llvm::join(R.IR.Loops[2].Notes, "|").find("in the else of 'm == 3'"), std::string::npos);
  FrontendResult Small = analyzeCode(Code, "c", {{"n", 50}, {"m", 3}});
  EXPECT_EQ(nestIterations(Small.IR.Loops[3], Small.IR).value_or(-1), 0);
  FrontendResult Unbound = analyzeCode(Code, "c", {{"n", 200}});
  for (size_t L = 0; L < 3; ++L) {
    EXPECT_GT(nestIterations(Unbound.IR.Loops[L], Unbound.IR).value_or(0), 0) << L;
    EXPECT_NE(llvm::join(Unbound.IR.Loops[L].Notes, "|").find("taken to run"), std::string::npos);
  }
}

TEST(Frontend, CompileFlagsAfterDashDash) {
  // -DN=64 given to the compiler changes the macro the source reads.
  FrontendResult R = analyzeFile("examples/williams-fig9.2.c", {}, {"-DN=64"}, true);
  EXPECT_EQ(R.IR.Parameters.at("N").Value, 64);
}

TEST(Frontend, LoopForms) {
  FrontendResult R = analyzeCode(R"(
    struct P { double x, y, z; };
    double g;
    static inline double sq(double v) { return v * v; }
    void opaque(double *);
    double sqrt(double);
    void forms(int n, double *a, const double *b, struct P *p, const int *idx) {
      for (int i = n - 1; i >= 0; --i) a[i] = b[i] / 3.0;         // down
      for (int i = 0; i <= n; i += 2) a[i] = sq(b[i + 1]);        // step 2, helper
      for (int i = 0; i < n; ++i) p[i].y = p[i].x * p[i].z;        // fields
      for (int i = 0; i < n; ++i) { int k = idx[i]; a[k] += g; }   // via local
      for (int i = 0; i < n; ++i) opaque(a + i);                   // unknown call
      for (int i = 0; i < n; ++i) { a[i] = 0; if (b[i] > 0) break; }
      for (int i = 0; i < n; i = i + 4) a[i] = sqrt(b[i]);
    }
  )");
  ASSERT_EQ(R.IR.Loops.size(), 7u);
  const auto &L = R.IR.Loops;
  // Decreasing: i from n-1 down to 0 covers [0, n).
  EXPECT_EQ(L[0].innermost().Step, -1);
  EXPECT_EQ(L[0].innermost().Lower, Poly::constant(0));
  EXPECT_EQ(L[0].innermost().Upper, Poly::symbol("n"));
  EXPECT_EQ(L[0].Double.Div, 1u);
  // i <= n step 2; sq() is inlined: 1 mul.
  EXPECT_EQ(L[1].innermost().Step, 2);
  EXPECT_EQ(L[1].innermost().Upper, Poly::symbol("n") + Poly::constant(1));
  EXPECT_EQ(L[1].Double.Mul, 1u);
  EXPECT_EQ(L[1].Accesses.size(), 2u);
  // Struct fields: 8 B each, 24 B apart, y at offset 8.
  const Access *Y = access(L[2], "p[i].y");
  ASSERT_TRUE(Y);
  EXPECT_EQ(Y->ElementBytes, 8u);
  EXPECT_EQ(Y->StrideBytes, 24u);
  EXPECT_EQ(Y->FieldOffset, 8u);
  EXPECT_TRUE(Y->Write && !Y->Read);
  // a[k] with k = idx[i] is indirect; g is a global scalar read from memory.
  const Access *AK = access(L[3], "a[k]");
  ASSERT_TRUE(AK);
  EXPECT_TRUE(AK->Indirect);
  EXPECT_EQ(AK->IndirectVia, "idx[i]");
  EXPECT_TRUE(access(L[3], "g"));
  EXPECT_FALSE(L[4].Modelled);
  EXPECT_NE(L[4].Reason.find("'opaque'"), std::string::npos);
  EXPECT_TRUE(L[5].Modelled); // an early exit, priced to its bound
  EXPECT_EQ(L[5].innermost().Exit, "break at line 13");
  EXPECT_EQ(L[6].innermost().Step, 4);
  EXPECT_EQ(L[6].Double.Sqrt, 1u);
}

TEST(Frontend, BadSourceFailsWithClangDiagnostics) {
  FrontendOptions O;
  O.File = Src + "/tests/bad-inputs/syntax-error.c";
  FrontendResult R = runFrontend(O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Diagnostics.find("syntax-error.c:3:18: error: expected expression"),
            std::string::npos)
      << R.Diagnostics;
  O.File = Src + "/no-such-file.c";
  R = runFrontend(O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("no such file"), std::string::npos);
}

TEST(Frontend, FindsClangBuiltinHeaders) {
  // immintrin.h and stddef.h come from Clang 19's resource directory.
  FrontendResult R = analyzeCode(R"(
    #include <immintrin.h>
    #include <stddef.h>
    void f(size_t n, double *a) { for (size_t i = 0; i < n; ++i) a[i] = 1.0; }
  )");
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  EXPECT_TRUE(R.IR.Loops[0].Modelled);
}

TEST(Frontend, CompileCommandsJsonIsFoundNextToTheFile) {
  // A project directory with its own compile_commands.json that defines N.
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perfmodel-ccdb", Dir));
  std::string File = std::string(Dir) + "/k.c";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    OS << "void k(double *a) { for (int i = 0; i < N; ++i) a[i] = 2.0 * a[i]; }\n";
    llvm::raw_fd_ostream DB(std::string(Dir) + "/compile_commands.json", EC);
    DB << "[{\"directory\": \"" << Dir << "\", \"file\": \"k.c\", "
       << "\"command\": \"cc -DN=77 -c k.c\"}]\n";
  }
  FrontendOptions O;
  O.File = File;
  FrontendResult R = runFrontend(O);
  ASSERT_TRUE(R.Ok) << R.Error << R.Diagnostics;
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  // Without the database N is undeclared and Clang would fail.
  EXPECT_EQ(R.IR.Parameters.at("N").Value, 77);
  // -p names the directory explicitly; -- flags bypass the database.
  O.CompileCommandsDir = std::string(Dir);
  R = runFrontend(O);
  EXPECT_EQ(R.IR.Parameters.at("N").Value, 77);
  O.HasCompileArgs = true;
  O.CompileArgs = {"-DN=5"};
  R = runFrontend(O);
  EXPECT_EQ(R.IR.Parameters.at("N").Value, 5);
  llvm::sys::fs::remove_directories(Dir);
}

TEST(Frontend, DotDotInThePathDoesNotBorrowAnotherDirectorysDatabase) {
  // build/compile_commands.json defines N = 77 for build/k.c; src/k.c named
  // as build/../src/k.c is in src/, which has no database: N stays unbound
  // (the default size), instead of taking build/'s command by inference.
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("perfmodel-dotdot", Dir));
  std::string Build = std::string(Dir) + "/build", SrcDir = std::string(Dir) + "/src";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Build));
  ASSERT_FALSE(llvm::sys::fs::create_directories(SrcDir));
  {
    std::error_code EC;
    const char *Text =
        "void k(double *a, long N) { for (long i = 0; i < N; ++i) a[i] = 2.0 * a[i]; }\n";
    llvm::raw_fd_ostream(Build + "/k.c", EC) << Text;
    llvm::raw_fd_ostream(SrcDir + "/k.c", EC) << Text;
    llvm::raw_fd_ostream DB(Build + "/compile_commands.json", EC);
    DB << "[{\"directory\": \"" << Build << "\", \"file\": \"k.c\", "
       << "\"command\": \"cc -DUNUSED=1 -c k.c\"}]\n";
  }
  FrontendOptions O;
  O.File = Build + "/../src/k.c";
  FrontendResult R = runFrontend(O);
  ASSERT_TRUE(R.Ok) << R.Error << R.Diagnostics;
  for (const std::string &A : R.CompileArgs)
    EXPECT_EQ(A.find("UNUSED"), std::string::npos) << A;
  O.File = Build + "/k.c"; // the database's own file still gets its command
  R = runFrontend(O);
  ASSERT_TRUE(R.Ok) << R.Error << R.Diagnostics;
  EXPECT_TRUE(std::any_of(R.CompileArgs.begin(), R.CompileArgs.end(), [](const std::string &A) {
    return A.find("UNUSED") != std::string::npos;
  }));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(Frontend, HostileConstructsNeverCrash) {
  // Every loop of the file is found; each is modelled or says why not.
  FrontendResult R = analyzeFile("tests/bad-inputs/hostile.cpp");
  ASSERT_EQ(R.IR.Loops.size(), 28u);
  for (const LoopKernel &K : R.IR.Loops)
    EXPECT_TRUE(K.Modelled || !K.Reason.empty()) << K.Loc.str();
  // Member array through implicit this: direct, 8 iterations, not indirect.
  const LoopKernel &Zero = loopIn(R, "Blk<double, 8>::zero");
  ASSERT_EQ(Zero.Accesses.size(), 1u);
  EXPECT_FALSE(Zero.Accesses[0].Indirect);
  EXPECT_EQ(Zero.innermost().Upper, Poly::constant(8));
  // a[i*j*k] multiplies counters: not affine, no linear offset.
  const Access *Prod = access(loopIn(R, "f19"), "a[(long)i * j * k]");
  ASSERT_TRUE(Prod);
  EXPECT_NE(Prod->NonAffine.find("multiplies loop counters"), std::string::npos);
  EXPECT_FALSE(Prod->Linear.has_value());
  // A recursive helper is not inlined (and does not recurse forever).
  EXPECT_NE(loopIn(R, "f16").Reason.find("call to 'rec'"), std::string::npos);
  // Row pointers of a vector of vectors are loaded; the rows of a double**
  // are laid end to end, as long as the columns reach (n), with a note.
  EXPECT_TRUE(access(loopIn(R, "f2"), "m[i][j]")->Indirect);
  const Access *T = access(loopIn(R, "f17"), "a[j][i]");
  ASSERT_TRUE(T);
  EXPECT_FALSE(T->Indirect);
  EXPECT_EQ(T->Array, "a[*]");
  EXPECT_EQ(T->Linear, Poly::symbol("j") * Poly::symbol("a[*].len") + Poly::symbol("i"));
  EXPECT_EQ(R.IR.Parameters.at("a[*].len").Numerator, Poly::symbol("n"));
  // sqrt + exp + pow + fma + 3 adds: 4 add, 1 mul, 1 sqrt, 2 other.
  const LoopKernel &Math = loopIn(R, "f22");
  EXPECT_EQ(Math.Double.Add, 4u);
  EXPECT_EQ(Math.Double.Mul, 1u);
  EXPECT_EQ(Math.Double.Sqrt, 1u);
  EXPECT_EQ(Math.Double.Other, 2u);
  // Integer arithmetic is not floating-point work.
  EXPECT_EQ(loopIn(R, "f26").flops(), 0u);
  // Loops in a lambda belong to the lambda.
  EXPECT_EQ(loopIn(R, "f8::lambda@19").Accesses.size(), 1u);
}

TEST(Frontend, AvxIntrinsics) {
  // 8 floats per __m256: the FMA is 8 adds + 8 muls per source iteration;
  // loads and stores move 32 B at &x[i] and y + i.
  FrontendResult R = analyzeCode(R"(
    #include <immintrin.h>
    void axpy8(int n, float a, const float *x, float *y) {
      __m256 va = _mm256_set1_ps(a);
      for (int i = 0; i < n; i += 8) {
        __m256 vx = _mm256_loadu_ps(&x[i]);
        __m256 vy = _mm256_loadu_ps(y + i);
        _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, vx, vy));
      }
    }
    double first(int n, const double *x, const float *k) {
      __m256d s = _mm256_setzero_pd();
      __m256 b = _mm256_setzero_ps();
      for (int i = 0; i < n; i += 4) {
        s = _mm256_add_pd(s, _mm256_load_pd(x + i));
        b = _mm256_mul_ps(b, _mm256_broadcast_ss(&k[i]));
        s = _mm256_sqrt_pd(_mm256_div_pd(s, s));
      }
      double r[4];
      _mm256_storeu_pd(r, s);
      return r[0] + b[0];
    }
  )");
  ASSERT_EQ(R.IR.Loops.size(), 2u);
  const LoopKernel &A = R.IR.Loops[0];
  EXPECT_TRUE(A.Modelled) << A.Reason;
  EXPECT_EQ(A.Single.Add, 8u);
  EXPECT_EQ(A.Single.Mul, 8u);
  EXPECT_EQ(A.Single.FmaContractible, 8u);
  ASSERT_EQ(A.Accesses.size(), 2u);
  const Access *Y = access(A, "*(y + i)");
  ASSERT_TRUE(Y);
  EXPECT_TRUE(Y->Read && Y->Write);
  EXPECT_EQ(Y->ElementBytes, 32u);
  EXPECT_EQ(Y->StrideBytes, 4u);
  EXPECT_EQ(Y->Linear, Poly::symbol("i"));
  EXPECT_EQ(access(A, "x[i]")->ElementBytes, 32u);
  // 4 double adds, 4 divs, 4 sqrts; 8 float muls; broadcast reads 4 B.
  const LoopKernel &B = R.IR.Loops[1];
  EXPECT_EQ(B.Double.Add, 4u);
  EXPECT_EQ(B.Double.Div, 4u);
  EXPECT_EQ(B.Double.Sqrt, 4u);
  EXPECT_EQ(B.Single.Mul, 8u);
  EXPECT_EQ(access(B, "k[i]")->ElementBytes, 4u);
  EXPECT_EQ(access(B, "*(x + i)")->ElementBytes, 32u);
}

TEST(Frontend, NestedPointerSumsAreOneAccess) {
  // *((in + i) + k): the PPR paper's convolution addresses its input as
  // IN + offset + l; the access is in[i + k + 1], not data loaded via in + i.
  FrontendResult R = analyzeCode(R"(
    #include <immintrin.h>
    void conv(int n, const float *in, const float *kr, float *out) {
      for (int i = 0; i < n; i += 8)
        for (int k = 0; k < 16; ++k)
          _mm256_storeu_ps(out + i, _mm256_fmadd_ps(_mm256_broadcast_ss(kr + k),
                                                    _mm256_loadu_ps(in + i + k + 1),
                                                    _mm256_loadu_ps(out + i)));
    }
  )");
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  const LoopKernel &K = R.IR.Loops[0];
  ASSERT_TRUE(K.Modelled) << K.Reason;
  const Access *In = access(K, "*(in + i + k + 1)");
  ASSERT_TRUE(In);
  EXPECT_FALSE(In->Indirect);
  EXPECT_EQ(In->Array, "in");
  EXPECT_EQ(In->ElementBytes, 32u);
  EXPECT_EQ(In->Linear, Poly::symbol("i") + Poly::symbol("k") + Poly::constant(1));
}

// Operations as written, by width, and what the source says about alignment
// (the counts --incore source schedules), by hand from the PPR convolutions:
//   scalar: 16 `tmp += in*kernel` per output: 16 scalar adds, muls, FMA pairs;
//   AVX: 32 _mm256_fmadd_ps per block: 32 8-lane FMAs; tap k's `in + i + k + 8`
//     is tap k+8's `in + i + k'` (k' = k + 8): one access, two references.
TEST(Frontend, OperationsByWidthAndAlignmentAsWritten) {
  FrontendResult N = analyzeFile("examples/ppr-conv1d/conv1d_naive.c");
  const LoopKernel &KN = loopIn(N, "conv1d_naive");
  ASSERT_EQ(KN.SingleOps.size(), 1u);
  const FlopCounts &S = KN.SingleOps.at(1);
  EXPECT_EQ(S.Add, 16u);
  EXPECT_EQ(S.Mul, 16u);
  EXPECT_EQ(S.FmaContractible, 16u);
  EXPECT_TRUE(KN.DoubleOps.empty());

  FrontendResult U = analyzeFile("examples/ppr-conv1d/conv1d_avx_unaligned.c", {},
                                 {"-mavx2", "-mfma"}, true);
  const LoopKernel &KU = loopIn(U, "conv1d_avx_unaligned");
  ASSERT_EQ(KU.SingleOps.count(8), 1u);
  EXPECT_EQ(KU.SingleOps.at(8).FmaContractible, 32u);
  EXPECT_EQ(KU.Single.FmaContractible, 256u); // flops count the lanes
  unsigned Reads = 0, Twice = 0;
  for (const Access &A : KU.Accesses)
    if (A.Array == "in") {
      Reads += A.ReadRefs;
      Twice += A.ReadRefs == 2;
      EXPECT_FALSE(A.AlignedByContract) << A.Text;
      EXPECT_EQ(A.BaseAlignBytes, 0u) << "a pointer's alignment is unknown";
    }
  EXPECT_EQ(Reads, 32u);
  EXPECT_EQ(Twice, 8u); // offsets i+8 .. i+15

  FrontendResult A = analyzeFile("examples/ppr-conv1d/conv1d_avx_aligned.c", {},
                                 {"-mavx2", "-mfma"}, true);
  for (const Access &X : loopIn(A, "conv1d_avx_aligned").Accesses)
    EXPECT_EQ(X.AlignedByContract, X.Array != "kernel") << X.Text; // broadcasts are scalar

  FrontendResult C = analyzeCode("_Alignas(64) double g[1024];\n"
                                 "void f(double *a, const double *b) {\n"
                                 "  for (int i = 0; i < 1000; ++i) { a[i] += b[i]; g[i] = a[i]; }\n"
                                 "}\n");
  const LoopKernel &KC = loopIn(C, "f");
  const Access *AI = access(KC, "a[i]");
  ASSERT_NE(AI, nullptr);
  EXPECT_EQ(AI->ReadRefs, 2u); // a[i] += reads; g[i] = a[i] reads again
  EXPECT_EQ(AI->WriteRefs, 1u);
  const Access *G = access(KC, "g[i]");
  ASSERT_NE(G, nullptr);
  EXPECT_EQ(G->BaseAlignBytes, 64u);
  EXPECT_EQ(G->ReadRefs, 0u);
  EXPECT_EQ(G->WriteRefs, 1u);
}

// PolyBench's heap arrays: `double (*B)[N][N] = malloc(...)`, used as
// (*B)[r][s]. `*B` is an lvalue of array type that decays to a pointer; it is
// not a load of the whole 8 MB array (which once made the simulator replay
// 125,000 lines per iteration). The access is the 8-byte element.
TEST(Frontend, PointerToArrayIsNotAnAccessOfTheWholeArray) {
  FrontendResult R = analyzeCode("void g(int n, double A[1000][1000]) {\n"
                                 "  double (*B)[1000][1000] = 0;\n"
                                 "  for (int t = 0; t < n; ++t)\n"
                                 "    for (int r = 0; r < n; ++r)\n"
                                 "      for (int s = 0; s < n; ++s)\n"
                                 "        (*B)[r][s] += A[r][t] * A[s][t];\n"
                                 "}\n");
  ASSERT_TRUE(R.Ok) << R.Error;
  ASSERT_EQ(R.IR.Loops.size(), 1u);
  const LoopKernel &K = R.IR.Loops[0];
  ASSERT_EQ(K.Accesses.size(), 3u);
  for (const Access &A : K.Accesses)
    EXPECT_EQ(A.ElementBytes, 8u) << A.Text;
  EXPECT_DOUBLE_EQ(K.flops(), 2);
}

// An integer quotient of sizes in a bound (N/2, LEN >> 2) is a size of its
// own, computed from its numerator whatever binds that: with N = 256 the
// loop over i runs 128 times; n / 4 with n = 4000 (bound later, as validate
// and sweep bind sizes after the front end) 1000 times; 255 / 2 is 127 as C
// divides. A quotient of a counter (a[i / 2]) stays not affine. These loops
// were declined ("bound 'N/2' is not affine").
TEST(Frontend, QuotientsOfSizesAreDerivedSizes) {
  FrontendResult R = analyzeCode(R"(#define N 256
float aa[N][N], bb[N][N];
void half(void) {
  for (int i = 0; i < N / 2; i++)
    for (int j = 0; j < N; j++)
      aa[i][j] = bb[i][j] * 2.0f;
}
void quarter(long n, double *restrict x, const double *restrict y) {
  for (long i = 0; i < n / 4; i++)
    x[i] = y[4 * i];
}
void odd(double *x) {
  for (int i = 0; i < 255 / 2; i++)
    x[i] = 0;
}
void byhalf(long n, double *restrict x, const double *restrict y) {
  for (long i = 0; i < n; i++)
    x[i] = y[i / 2];
}
)");
  const LoopKernel &Half = loopIn(R, "half");
  ASSERT_TRUE(Half.Modelled) << Half.Reason;
  auto B = R.IR.bindings();
  EXPECT_EQ(tripCount(Half.Nest[0], B), std::optional<int64_t>(128));
  ASSERT_TRUE(R.IR.Parameters.count("N / 2"));
  EXPECT_EQ(R.IR.Parameters.at("N / 2").From, Parameter::Origin::Derived);
  R.IR.Parameters["n"].Value = 4000;
  R.IR.Parameters["n"].From = Parameter::Origin::CommandLine;
  B = R.IR.bindings();
  const LoopKernel &Quarter = loopIn(R, "quarter");
  ASSERT_TRUE(Quarter.Modelled) << Quarter.Reason;
  EXPECT_EQ(tripCount(Quarter.Nest[0], B), std::optional<int64_t>(1000));
  EXPECT_EQ(tripCount(loopIn(R, "odd").Nest[0], B), std::optional<int64_t>(127));
  const LoopKernel &ByHalf = loopIn(R, "byhalf");
  EXPECT_TRUE(llvm::any_of(ByHalf.Accesses, [](const Access &A) {
    return A.Array == "y" && !A.NonAffine.empty();
  }));
}

// Loops that can end before their bound (return, break, goto out, exit())
// are priced: the iteration's cost is what it is; the trip is the bound's
// unless --exit-fraction gives a share (a derived size: n = 4000 at 0.25 is
// 1000, N/2 = 128 at 0.25 is 32, a constant 100 at 0.5 folds to 50). A bound
// that moves with an enclosing loop keeps its trip; a loop a goto can enter
// stays declined. A break out of an inner loop is no exit of the outer one.
TEST(Frontend, EarlyExitsArePricedWithTheirAssumption) {
  const std::string Code = R"(#include <stdlib.h>
#define N 256
float x[N];
int ret(const float *a, int n, float t) {
  for (int i = 0; i < n; i++)
    if (a[i] > t) return i;
  return -1;
}
int brk(const double *a, int n) {
  int i;
  for (i = 0; i < n; i++)
    if (a[i] < 0) break;
  return i;
}
void ex(double *a) {
  for (int i = 0; i < 100; i++) {
    if (a[i] < 0) exit(1);
    a[i] = 2 * a[i];
  }
}
int half(float t) {
  for (int i = 0; i < N/2; i++)
    if (x[i] > t) return i;
  return -1;
}
int tri(const double *a, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (a[j] < 0) return j;
  return 0;
}
double inner(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      if (a[j] < 0) break;
      s += a[j];
    }
  return s;
}
int enter(double *a, int n) {
  if (n < 0) goto inside;
  for (int i = 0; i < n; i++) {
  inside:
    a[i] = 0;
  }
  return 0;
}
void skip(double *a, int n) {
  for (int i = 0; i < n; i++) {
    if (a[i] < 0) goto next;
    a[i] = 2 * a[i];
  next:;
  }
}
)";
  for (double Fraction : {1.0, 0.25, 0.5}) {
    SCOPED_TRACE(Fraction);
    FrontendResult R = analyzeCode(Code, "c", {{"n", 4000}}, Fraction);
    ASSERT_TRUE(R.Ok) << R.Error;
    auto B = R.IR.bindings();
    auto Trip = [&](const char *F, size_t Level = 0) {
      const LoopKernel &K = loopIn(R, F);
      EXPECT_TRUE(K.Modelled) << F << ": " << K.Reason;
      return tripCount(K.Nest[Level], B).value_or(-1);
    };
    EXPECT_EQ(Trip("ret"), int64_t(4000 * Fraction));
    EXPECT_EQ(Trip("brk"), int64_t(4000 * Fraction));
    EXPECT_EQ(Trip("ex"), int64_t(100 * Fraction));
    EXPECT_EQ(Trip("half"), int64_t(128 * Fraction));
    EXPECT_EQ(loopIn(R, "ret").Nest[0].Exit, "return at line 6");
    EXPECT_EQ(loopIn(R, "brk").Nest[0].Exit, "break at line 12");
    EXPECT_EQ(loopIn(R, "ex").Nest[0].Exit, "call to 'exit' at line 17");
    // Both levels of tri exit with the return; the outer's trip takes the
    // share, the inner's bound moves with i and keeps its trip.
    const LoopKernel &Tri = loopIn(R, "tri");
    EXPECT_EQ(Tri.Nest[1].Exit, "return at line 29");
    EXPECT_EQ(Trip("tri", 0), int64_t(4000 * Fraction));
    EXPECT_TRUE(Tri.Nest[1].Upper == Poly::symbol("i"));
    if (Fraction < 1)
      EXPECT_TRUE(llvm::any_of(Tri.Notes, [](const std::string &N) {
        return N.find("does not apply to a bound that moves") != std::string::npos;
      }));
    const LoopKernel &Ret = loopIn(R, "ret");
    EXPECT_TRUE(llvm::any_of(Ret.Notes, [&](const std::string &N) {
      return N.find(Fraction < 1 ? "of its bound's iterations (--exit-fraction)"
                                 : "priced as running to its bound") != std::string::npos;
    }));
    const LoopKernel &Inner = loopIn(R, "inner");
    EXPECT_TRUE(Inner.Nest[0].Exit.empty());
    EXPECT_EQ(Inner.Nest[1].Exit, "break at line 36");
    EXPECT_EQ(Trip("inner", 0), 4000);
    const LoopKernel &Enter = loopIn(R, "enter");
    EXPECT_FALSE(Enter.Modelled);
    EXPECT_EQ(Enter.Reason, "a goto can enter the loop (label 'inside' at line 44)");
    // A goto to a label of the loop's own body (TSVC's `goto L20`) is
    // neither an exit nor an entry.
    const LoopKernel &Skip = loopIn(R, "skip");
    EXPECT_TRUE(Skip.Modelled) << Skip.Reason;
    EXPECT_TRUE(Skip.Nest[0].Exit.empty()) << Skip.Nest[0].Exit;
    EXPECT_EQ(Trip("skip"), 4000);
  }
}

// A size that is a step in one loop and a start in another (TSVC's s172,
// n3 = x->b: i += n3; elsewhere i = x->b - 1) defaults to a step's 1, with
// the step's note: as a size's 1000 the stepping loop ran 32 of its 32000
// iterations (-99 % against the timed run).
TEST(Frontend, ASizeThatIsAlsoAStepDefaultsToOne) {
  FrontendResult R = analyzeCode(R"(struct args { int a, b; };
float a[32000], b[32000];
void stepping(struct args *x) {
  int n3 = x->b;
  for (int i = 0; i < 32000; i += n3)
    a[i] += b[i];
}
void starting(struct args *x) {
  for (int i = x->b - 1; i < 32000; i++)
    a[i] = b[i];
}
)");
  ASSERT_TRUE(R.IR.Parameters.count("x->b"));
  EXPECT_EQ(R.IR.Parameters.at("x->b").Value, std::optional<int64_t>(1));
  auto B = R.IR.bindings();
  EXPECT_EQ(tripCount(loopIn(R, "stepping").Nest[0], B), std::optional<int64_t>(32000));
  EXPECT_TRUE(llvm::any_of(R.IR.Notes, [](const std::string &N) {
    return N.find("step 'x->b' has no value: assumed 1") != std::string::npos;
  }));
}

// TSVC's shapes: a bound 100*(iterations/LEN_2D) is a quotient of two sizes
// (10000 / 256 = 39, as C divides: 3900 iterations; it was "not affine",
// so the nl loop was dropped and its nest priced once instead of 3900
// times), and `j = i + 1; a[i] = a[j] + b[i]` reads a[i + 1] (j set at the
// top of each iteration: not carried). A j that steps itself by 2 from 0
// before the read holds 2 (i + 1) there.
TEST(Frontend, TsvcBoundsAndLocalsSetEachIteration) {
  FrontendResult R = analyzeCode(R"(#define iterations 10000
#define LEN_2D 256
#define LEN_1D 32000
float aa[LEN_2D][LEN_2D], a[LEN_1D], b[LEN_1D];
void s2102(void) {
  for (int nl = 0; nl < 100*(iterations/LEN_2D); nl++)
    for (int i = 0; i < LEN_2D; i++)
      aa[i][i] = 1;
}
void s121(void) {
  int j;
  for (int i = 0; i < LEN_1D - 1; i++) {
    j = i + 1;
    a[i] = a[j] + b[i];
  }
}
void steps(void) {
  int j = 0;
  for (int i = 0; i < LEN_1D / 2; i++) {
    j = j + 2;
    a[i] = a[j];
  }
}
)");
  auto B = R.IR.bindings();
  const LoopKernel &Q = loopIn(R, "s2102");
  ASSERT_TRUE(Q.Modelled) << Q.Reason;
  ASSERT_EQ(Q.Nest.size(), 2u);
  EXPECT_EQ(tripCount(Q.Nest[0], B), std::optional<int64_t>(3900));
  const LoopKernel &J = loopIn(R, "s121");
  const Access *AJ = access(J, "a[j]");
  ASSERT_TRUE(AJ);
  ASSERT_TRUE(AJ->Linear.has_value()) << AJ->NonAffine;
  EXPECT_EQ(*AJ->Linear, Poly::symbol("i") + Poly::constant(1));
  EXPECT_TRUE(J.Reductions.empty());
  const Access *Steps = access(loopIn(R, "steps"), "a[j]");
  ASSERT_TRUE(Steps);
  ASSERT_TRUE(Steps->Linear.has_value()) << Steps->NonAffine;
  EXPECT_EQ(*Steps->Linear, Poly::constant(2) * Poly::symbol("i") + Poly::constant(2));
}

// Counters a nest steps by constants, by hand:
// - TSVC s126: k = 1 at the top of each nl, ++k after the read in the j body
//   and once more after the j loop: an iteration of i steps it 255 + 1 = 256
//   times, one of j once, so at (i, j) k = 1 + 256 i + (j - 1) and flat[k-1]
//   is flat[256 i + j - 1];
// - int p = 0 before the nest, out[p++] in the j body: m steps an iteration
//   of i, the read before its own step: p = m i + j;
// - j = -1, then j++ before the first store and j += 2 before the second:
//   3 an iteration, a[3i] and a[3i + 2];
// - a step under a condition (packing), or a nest a loop around runs again
//   from where p was left: not followed;
// - pointers (TSVC s1351): A = pa at the top of each nl, *A read before
//   A++ in the i body: pa[i]; *y++ of a parameter: y[i]; p = x + 1 before
//   the loop, *p++: x[i + 1].
TEST(Frontend, CountersSteppedByConstantsAreFollowed) {
  FrontendResult R = analyzeCode(R"(float flat[65536], bb[256][256], cc[256][256];
void s126like(int reps) {
  int k;
  for (int nl = 0; nl < reps; nl++) {
    k = 1;
    for (int i = 0; i < 256; i++) {
      for (int j = 1; j < 256; j++) {
        bb[j][i] = bb[j - 1][i] + flat[k - 1] * cc[j][i];
        ++k;
      }
      ++k;
    }
  }
}
void pack(int n, int m, const double *a, double *out) {
  int p = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      out[p++] = 2 * a[i * m + j];
}
void twice(int n, const float *b, float *a) {
  int j = -1;
  for (int i = 0; i < n; i++) {
    j++;
    a[j] = b[i];
    j += 2;
    a[j] = -b[i];
  }
}
void conditional(int n, const float *b, float *a) {
  int j = -1;
  for (int i = 0; i < n; i++)
    if (b[i] > 0) {
      j++;
      a[j] = b[i];
    }
}
void again(int n, int reps, const float *b, float *a) {
  int p = 0;
  while (reps-- > 0)
    for (int i = 0; i < n; i++)
      a[p++] = b[i];
}
float pa[32000], pb[32000], pc[32000];
void s1351like(int reps) {
  for (int nl = 0; nl < reps; nl++) {
    float *__restrict__ A = pa;
    float *__restrict__ B = pb;
    for (int i = 0; i < 32000; i++) {
      *A = *B + 1;
      A++;
      B++;
    }
  }
}
void walk(int n, const double *x, double *y) {
  const double *p = x + 1;
  for (int i = 0; i < n; i++)
    *y++ = 2 * *p++;
}
)");
  Poly I = Poly::symbol("i"), J = Poly::symbol("j");
  const Access *Flat = access(loopIn(R, "s126like"), "flat[k - 1]");
  ASSERT_TRUE(Flat && Flat->Linear) << (Flat ? Flat->NonAffine : "no access");
  EXPECT_EQ(*Flat->Linear, Poly::constant(256) * I + J - Poly::constant(1));
  const Access *Out = access(loopIn(R, "pack"), "out[p++]");
  ASSERT_TRUE(Out && Out->Linear) << (Out ? Out->NonAffine : "no access");
  EXPECT_EQ(*Out->Linear, Poly::symbol("m") * I + J);
  std::vector<Poly> Twice;
  for (const Access &A : loopIn(R, "twice").Accesses)
    if (A.Array == "a" && A.Linear)
      Twice.push_back(*A.Linear);
  ASSERT_EQ(Twice.size(), 2u);
  EXPECT_EQ(Twice[0], Poly::constant(3) * I);
  EXPECT_EQ(Twice[1], Poly::constant(3) * I + Poly::constant(2));
  const Access *Packed = access(loopIn(R, "conditional"), "a[j]");
  ASSERT_TRUE(Packed);
  EXPECT_FALSE(Packed->Linear.has_value());
  const Access *Again = access(loopIn(R, "again"), "a[p++]");
  ASSERT_TRUE(Again);
  EXPECT_FALSE(Again->Linear.has_value());
  const Access *PA = access(loopIn(R, "s1351like"), "*A");
  ASSERT_TRUE(PA && PA->Linear) << (PA ? PA->NonAffine : "no access");
  EXPECT_EQ(PA->Array, "pa");
  EXPECT_EQ(*PA->Linear, I);
  const Access *Y = access(loopIn(R, "walk"), "*y++");
  const Access *X = access(loopIn(R, "walk"), "*p++");
  ASSERT_TRUE(Y && Y->Linear && X && X->Linear);
  EXPECT_EQ(Y->Array, "y");
  EXPECT_EQ(*Y->Linear, I);
  EXPECT_EQ(X->Array, "x");
  EXPECT_EQ(*X->Linear, I + Poly::constant(1));
}

// A step given by a size (i += k) takes the size's value, -D k=4: 250 of
// 1000 iterations; unbound, 1 with a note that says how to bind it. It was
// declined ("step 'k' is not a constant"); a step that is not a size stays
// declined.
TEST(Frontend, AStepGivenByASizeIsBound) {
  const std::string Code = R"(void stepk(long n, long k, double *a) {
  for (long i = 0; i < n; i += k)
    a[i] = 0;
}
void stepf(long n, double *a, const long *s) {
  for (long i = 0; i < n; i += s[0])
    a[i] = 0;
}
)";
  FrontendResult R = analyzeCode(Code, "c", {{"k", 4}, {"n", 1000}});
  const LoopKernel &K = loopIn(R, "stepk");
  ASSERT_TRUE(K.Modelled) << K.Reason;
  EXPECT_EQ(K.innermost().Step, 4);
  EXPECT_EQ(tripCount(K.innermost(), R.IR.bindings()), std::optional<int64_t>(250));
  EXPECT_FALSE(loopIn(R, "stepf").Modelled);
  R = analyzeCode(Code, "c", {{"n", 1000}});
  EXPECT_EQ(loopIn(R, "stepk").innermost().Step, 1);
  EXPECT_TRUE(llvm::any_of(R.IR.Notes, [](const std::string &N) {
    return N == "step 'k' has no value: assumed 1 (bind it with -D k=...)";
  }));
}

// A bound read through a pointer the nest neither moves nor writes through
// (i < *n) is a size like a field (s->len), bound with -D '*n=5000': 5000
// iterations. Through a pointer the nest writes (*m = ...), it stays a value
// read from memory, which the models cannot count.
TEST(Frontend, ABoundReadThroughAnUnwrittenPointerIsASize) {
  const std::string Code = R"(void byptr(const long *n, double *restrict a) {
  for (long i = 0; i < *n; i++)
    a[i] = 1.0;
}
void written(long *m, double *restrict a) {
  for (long i = 0; i < *m; i++) {
    a[i] = 1.0;
    *m = *m - 1;
  }
}
)";
  FrontendResult R = analyzeCode(Code, "c", {{"*n", 5000}});
  ASSERT_TRUE(R.IR.Parameters.count("*n"));
  EXPECT_EQ(R.IR.Parameters.at("*n").From, Parameter::Origin::CommandLine);
  EXPECT_EQ(tripCount(loopIn(R, "byptr").innermost(), R.IR.bindings()),
            std::optional<int64_t>(5000));
  EXPECT_FALSE(R.IR.Parameters.count("*m"));
  EXPECT_FALSE(tripCount(loopIn(R, "written").innermost(), R.IR.bindings()).has_value());
}

// A bound through an accessor that returns a field (domain.numElem() ->
// m_numElem) is the field's size, and -D takes the call as the report and
// the code name it: -D 'domain.numElem()=27000' binds domain.m_numElem (it
// was "no analysed loop uses a parameter named 'domain.numElem()'", and the
// loop ran at the default 1000); unbound, the note names both spellings.
TEST(Frontend, ASizeReturnedByAnAccessorIsBoundByTheCall) {
  const std::string Code = R"(class Domain {
public:
  long numElem() const { return m_numElem; }
  double *x;
private:
  long m_numElem;
};
void f(Domain &domain) {
  for (long i = 0; i < domain.numElem(); ++i)
    domain.x[i] *= 2.0;
}
)";
  FrontendResult R = analyzeCode(Code, "cpp", {{"domain.numElem()", 27000}});
  ASSERT_TRUE(R.IR.Parameters.count("domain.m_numElem"));
  EXPECT_EQ(R.IR.Parameters.at("domain.m_numElem").Value, std::optional<int64_t>(27000));
  EXPECT_EQ(tripCount(loopIn(R, "f").innermost(), R.IR.bindings()),
            std::optional<int64_t>(27000));
  EXPECT_FALSE(llvm::any_of(R.IR.Notes, [](const std::string &N) {
    return N.find("no analysed loop uses") != std::string::npos;
  }));
  R = analyzeCode(Code, "cpp");
  EXPECT_TRUE(llvm::any_of(R.IR.Notes, [](const std::string &N) {
    return N.find("bind it with -D domain.m_numElem=... or -D 'domain.numElem()=...'") !=
           std::string::npos;
  }));
}

// LCALS under Google Benchmark bounds its loops by state.range(0), a const
// method of a library class whose body perfmodel does not follow: the
// call's value is a size named by its text, bound with -D
// 'state.range(0)=5001' (the loop was declined: "'state.range(0)' is not
// affine"), and read in a body (k = state.range(0) - i) it is no call with
// side effects. A call of the counter (s.range(i)) stays unknown, and
// unbound the note quotes the -D the shell needs.
TEST(Frontend, AnInvariantCallBoundsALoopAndIsBoundByItsText) {
  const std::string Code = R"(struct State { long range(long pos) const; };
void fwd(State &state, double *a, const double *b) {
  for (long i = 0; i < state.range(0); i++)
    a[i] = b[i] + 1.0;
}
void back(State &state, double *a, const double *b) {
  for (long i = 1; i <= state.range(0); i++) {
    long k = state.range(0) - i;
    a[k] = 2.0 * b[k];
  }
}
void tri(State &state, double *a) {
  for (long i = 0; i < 8; i++)
    for (long j = 0; j < state.range(i); j++)
      a[j] += 1.0;
}
)";
  FrontendResult R = analyzeCode(Code, "cpp", {{"state.range(0)", 5001}});
  const LoopKernel &F = loopIn(R, "fwd");
  ASSERT_TRUE(F.Modelled) << F.Reason;
  EXPECT_EQ(tripCount(F.innermost(), R.IR.bindings()), std::optional<int64_t>(5001));
  const LoopKernel &B = loopIn(R, "back");
  ASSERT_TRUE(B.Modelled) << B.Reason;
  EXPECT_EQ(tripCount(B.innermost(), R.IR.bindings()), std::optional<int64_t>(5001));
  EXPECT_EQ(B.Double.Mul, 1u);
  const LoopKernel &T = loopIn(R, "tri");
  EXPECT_FALSE(T.Modelled);
  EXPECT_NE(T.Reason.find("'state.range(i)' is not affine"), std::string::npos) << T.Reason;
  R = analyzeCode(Code, "cpp");
  EXPECT_TRUE(llvm::any_of(R.IR.Notes, [](const std::string &N) {
    return N.find("size parameter 'state.range(0)' has no value: assumed 1000 (bind it with -D "
                  "'state.range(0)=...')") != std::string::npos;
  }));
}

// Google Benchmark's DoNotOptimize is empty inline assembly: a barrier that
// runs no instruction, so INNER_PROD's `DoNotOptimize(q += z[k] * x[k])` is
// the dot product (2 flops, 2 loads an iteration), not "a call with unknown
// side effects". A function with real assembly in it stays unknown.
TEST(Frontend, AnEmptyAsmBarrierIsNoCall) {
  FrontendResult R = analyzeCode(R"(template <class T> inline void DoNotOptimize(T &v) {
  asm volatile("" : "+r,m"(v) : : "memory");
}
inline void touch(double &v) { asm volatile("prefetcht0 %0" : : "m"(v)); }
double dot(const double *z, const double *x, long n) {
  double q = 0.0;
  for (long k = 0; k < n; k++)
    DoNotOptimize(q += z[k] * x[k]);
  return q;
}
void spin(double *a, long n) {
  for (long k = 0; k < n; k++) {
    touch(a[k]);
    a[k] = 0.0;
  }
}
)", "cpp");
  const LoopKernel &D = loopIn(R, "dot");
  ASSERT_TRUE(D.Modelled) << D.Reason;
  EXPECT_EQ(D.Double.Add, 1u);
  EXPECT_EQ(D.Double.Mul, 1u);
  EXPECT_EQ(D.Accesses.size(), 2u);
  const LoopKernel &S = loopIn(R, "spin");
  EXPECT_FALSE(S.Modelled);
  EXPECT_NE(S.Reason.find("call to 'touch'"), std::string::npos) << S.Reason;
}

// Rows through a pointer array (double **, LCALS's Real_ptr *): the row
// pointers are loaded, so the references were indirect and their traffic
// unknown (MAT_X_MAT predicted at 0.25 misses an iteration, 78.9 KiB of
// working set, for 2 MB of rows; 58 % too fast). They are now laid end to
// end as a 2D array "px[*]", each row as long as the columns reach: i and k
// run to 24, so 25 elements; INT_PREDICT's px[i][12] reaches column 12, so
// 13. -D 'px[*].len=25' gives the true length, and a pointer array the
// function moves keeps its rows unknown.
TEST(Frontend, RowsThroughAPointerArrayAreLaidEndToEnd) {
  const std::string Code = R"(void matx(double **px, double **cx, double **vy, long n) {
  for (long k = 0; k < 25; k++)
    for (long i = 0; i < 25; i++)
      for (long j = 0; j < n; j++)
        px[j][i] += vy[k][i] * cx[j][k];
}
void predict(double **px, long n) {
  for (long i = 0; i < n; i++)
    px[i][0] = 0.5 * px[i][12] + px[i][2];
}
void moved(double **a, long n) {
  a = a + 1;
  for (long i = 0; i < n; i++)
    a[i][0] = 1.0;
}
void gathered(double **b, const int *idx, long n) {
  for (long j = 0; j < 4; j++)
    for (long k = 0; k < n; k++)
      b[j][idx[k]] += 1.0;
}
)";
  FrontendResult R = analyzeCode(Code, "c", {{"n", 5001}});
  const LoopKernel &M = loopIn(R, "matx");
  ASSERT_TRUE(M.Modelled) << M.Reason;
  const Access *P = access(M, "px[j][i]");
  ASSERT_TRUE(P);
  EXPECT_FALSE(P->Indirect);
  EXPECT_EQ(P->Array, "px[*]");
  EXPECT_EQ(P->Linear, Poly::symbol("j") * Poly::symbol("px[*].len") + Poly::symbol("i"));
  const Access *C = access(M, "cx[j][k]");
  ASSERT_TRUE(C);
  EXPECT_EQ(C->Linear, Poly::symbol("j") * Poly::symbol("cx[*].len") + Poly::symbol("k"));
  auto B = R.IR.bindings();
  EXPECT_EQ(B.at("px[*].len"), 25);
  EXPECT_EQ(B.at("cx[*].len"), 25);
  EXPECT_EQ(B.at("vy[*].len"), 25);
  EXPECT_TRUE(llvm::any_of(M.Notes, [](const std::string &N) {
    return N.find("the rows px points to (px[j]) are taken as disjoint and laid end to end") !=
           std::string::npos;
  }));
  // predict and matx share px's length: the longer reach (25) holds.
  const Access *Q = access(loopIn(R, "predict"), "px[i][12]");
  ASSERT_TRUE(Q);
  EXPECT_EQ(Q->Linear, Poly::symbol("i") * Poly::symbol("px[*].len") + Poly::constant(12));
  EXPECT_TRUE(access(loopIn(R, "moved"), "a[i][0]")->Indirect);
  // A column read from data (idx[k]) gives the rows no length.
  EXPECT_TRUE(access(loopIn(R, "gathered"), "b[j][idx[k]]")->Indirect);
  EXPECT_FALSE(R.IR.Parameters.count("b[*].len"));

  // Alone, INT_PREDICT's rows reach column 12; -D binds the true length.
  const std::string Alone = Code.substr(Code.find("void predict"));
  R = analyzeCode(Alone, "c", {{"n", 5001}});
  EXPECT_EQ(R.IR.bindings().at("px[*].len"), 13);
  R = analyzeCode(Alone, "c", {{"n", 5001}, {"px[*].len", 25}});
  EXPECT_EQ(R.IR.bindings().at("px[*].len"), 25);
}

// LCALS's banded linear equations (Livermore loop 4) step the outer loop by
// a local defined once: m = (1001 - 7) / 2 = 497, so k = 6, 503, 1000:
// three iterations. The loop was "not modelled (step 'm' is not a constant
// or a size)" and the inner loop priced for one of them (-68 % on the
// Zen 5 VM).
TEST(Frontend, AStepFromALocalDefinedOnceByAConstant) {
  FrontendResult R = analyzeCode(R"(void band(double *x, const double *y, long n) {
  long m = (1001 - 7) / 2;
  for (long k = 6; k < 1001; k = k + m) {
    long lw = k - 6;
    double temp = x[k - 1];
    for (long j = 4; j < n; j = j + 5) {
      temp -= x[lw] * y[j];
      lw++;
    }
    x[k - 1] = y[4] * temp;
  }
}
)", "c", {{"n", 5001}});
  const LoopKernel &K = loopIn(R, "band");
  ASSERT_TRUE(K.Modelled) << K.Reason;
  ASSERT_EQ(K.Nest.size(), 2u);
  EXPECT_EQ(K.Nest[0].Step, 497);
  EXPECT_EQ(tripCount(K.Nest[0], R.IR.bindings()), std::optional<int64_t>(3));
  EXPECT_EQ(tripCount(K.Nest[1], R.IR.bindings()), std::optional<int64_t>(1000));
}

// TSVC's s151, s152 and s31111: a nest that calls a function of the same
// file. A callee with a loop adds its loop to the nest, its parameters
// standing for the call's arguments: `a[i + m]` of s151s(a, b, 1) is a at
// i + 1, `A[i]` of test(&a[4]) is a at i + 4 (by hand from the arguments).
// A callee of straight-line statements (s152s) is read in place: its
// `x[i] += y[i] * z[i]` reads and writes a[i], reads b[i] (which the caller
// writes: one reference, read and written) and c[i], and adds 2 flops to
// the caller's 1. Outside a nest the callee's loop is its own function's.
TEST(Frontend, ACallInANestBringsTheCalleesLoopsAndAccesses) {
  const std::string Code = R"(#define LEN 32000
float a[LEN], b[LEN], c[LEN], d[LEN], e[LEN];
void dummy(float *, float *, float);
void s151s(float a[LEN], float b[LEN], int m) {
  for (int i = 0; i < LEN - 1; i++)
    a[i] = a[i + m] + b[i];
}
void s151(int iterations) {
  for (int nl = 0; nl < 5 * iterations; nl++) {
    s151s(a, b, 1);
    dummy(a, b, 0.f);
  }
}
void s152s(float x[LEN], float y[LEN], float z[LEN], int i) { x[i] += y[i] * z[i]; }
void s152(int iterations) {
  for (int nl = 0; nl < iterations; nl++)
    for (int i = 0; i < LEN; i++) {
      b[i] = d[i] * e[i];
      s152s(a, b, c, i);
    }
}
float test(float *A) {
  float s = 0;
  for (int i = 0; i < 4; i++) s += A[i];
  return s;
}
float s31111(int iterations) {
  float sum = 0;
  for (int nl = 0; nl < iterations; nl++)
    sum += test(a) + test(&a[4]);
  return sum;
}
void init(void) { s151s(c, d, 2); }
)";
  FrontendResult R = analyzeCode(Code, "c", {{"iterations", 10}});
  const LoopKernel &Own = loopIn(R, "s151s");
  ASSERT_TRUE(Own.Modelled) << Own.Reason;
  EXPECT_EQ(Own.Nest.size(), 1u);
  const LoopKernel &K151 = loopIn(R, "s151");
  ASSERT_TRUE(K151.Modelled) << K151.Reason;
  ASSERT_EQ(K151.Nest.size(), 2u);
  EXPECT_EQ(K151.Nest[0].Var, "nl");
  EXPECT_EQ(tripCount(K151.innermost(), R.IR.bindings()), std::optional<int64_t>(31999));
  const Access *Ahead = access(K151, "a[i + m]");
  ASSERT_TRUE(Ahead && Ahead->Linear);
  EXPECT_EQ(Ahead->Array, "a");
  EXPECT_EQ(Ahead->Linear->str(), "i + 1");
  EXPECT_EQ(access(K151, "b[i]")->Array, "b");

  const LoopKernel &K152 = loopIn(R, "s152");
  ASSERT_TRUE(K152.Modelled) << K152.Reason;
  const Access *X = access(K152, "s152s(a, b, c, i): x[i]");
  ASSERT_TRUE(X && X->Linear);
  EXPECT_EQ(X->Array, "a");
  EXPECT_TRUE(X->Read && X->Write);
  EXPECT_EQ(X->Linear->str(), "i");
  const Access *B = access(K152, "b[i]");
  ASSERT_TRUE(B);
  EXPECT_TRUE(B->Read && B->Write);
  EXPECT_EQ(access(K152, "s152s(a, b, c, i): z[i]")->Array, "c");
  EXPECT_EQ(K152.Single.Mul, 2u);
  EXPECT_EQ(K152.Single.Add, 1u);

  const LoopKernel &First = loopIn(R, "s31111", 0), &Second = loopIn(R, "s31111", 1);
  ASSERT_TRUE(First.Modelled && Second.Modelled);
  EXPECT_EQ(First.Reductions, std::vector<std::string>{"s"});
  ASSERT_TRUE(access(First, "A[i]") && access(Second, "A[i]"));
  EXPECT_EQ(access(First, "A[i]")->Linear->str(), "i");
  EXPECT_EQ(access(Second, "A[i]")->Linear->str(), "i + 4");
  EXPECT_EQ(access(Second, "A[i]")->Array, "a");
  EXPECT_TRUE(llvm::any_of(First.Notes, [](const std::string &N) {
    return N.find("inside the call test(a)") != std::string::npos;
  }));
  // init's call is outside any loop: s151s's loop is reported once more
  // only where a nest repeats it.
  for (const LoopKernel &K : R.IR.Loops)
    EXPECT_NE(K.Function, "init");
}

// A local set once before the nest from memory (TSVC's s174: int M =
// *(int *)args) is a value the nest cannot change: a size named by the
// local, bound with -D M=..., not "bounds read from memory". One set
// inside the nest (a row's length, CSR) stays data. A loop counter named
// like a size elsewhere (k here, the parameter k of rowop there) gets a
// name of its own, so binding k does not bind the counter.
TEST(Frontend, ALocalSetOnceFromMemoryIsASize) {
  const std::string Code = R"(float a[64000], b[64000];
void s174(void *args, int iterations) {
  int M = *(int *)args;
  for (int nl = 0; nl < iterations; nl++)
    for (int i = 0; i < M; i++)
      a[i + M] = a[i] + b[i];
}
void csr(const int *rowptr, int n, float *y, const float *v) {
  for (int r = 0; r < n; r++) {
    int len = rowptr[r + 1] - rowptr[r];
    for (int j = 0; j < len; j++)
      y[r] += v[j];
  }
}
void rowop(float *x, int k) {
  for (int j = 0; j < 100; j++) x[j * k] += 1.0f;
}
void rows(float (*x)[256]) {
  for (int k = 0; k < 256; k++)
    for (int j = 0; j < 256; j++) x[k][j] += 1.0f;
}
)";
  FrontendResult R = analyzeCode(Code, "c", {{"M", 16000}, {"iterations", 10}, {"k", 3}});
  const LoopKernel &K = loopIn(R, "s174");
  ASSERT_TRUE(K.Modelled) << K.Reason;
  EXPECT_EQ(tripCount(K.innermost(), R.IR.bindings()), std::optional<int64_t>(16000));
  const Access *Ahead = access(K, "a[i + M]");
  ASSERT_TRUE(Ahead && Ahead->Linear);
  EXPECT_FALSE(Ahead->Indirect);
  EXPECT_EQ(Ahead->Linear->str(), "M + i");
  const LoopKernel &C = loopIn(R, "csr");
  EXPECT_FALSE(tripCount(C.innermost(), R.IR.bindings()).has_value());
  const LoopKernel &Rows = loopIn(R, "rows");
  ASSERT_TRUE(Rows.Modelled);
  EXPECT_EQ(Rows.Nest[0].Var, "k'");
  EXPECT_EQ(tripCount(Rows.Nest[0], R.IR.bindings()), std::optional<int64_t>(256));
  EXPECT_EQ(access(Rows, "x[k][j]")->Linear->str(), "j + 256*k'");
  EXPECT_EQ(access(loopIn(R, "rowop"), "x[j * k]")->Linear->str(), "j*k");
}

// LCALS's COUPLE: std::complex arithmetic is the operations of its
// definition on the parts, not a call with unknown side effects. By hand,
// per iteration of the loop below: s * a[i] (real x complex) 2 mul;
// c1 * b[i] 4 mul + 2 add (2 of them FMAs); zabs2 (the file's own) 2 mul +
// 1 add (1 FMA); z * r 2 mul; ireal * c1 4 mul + 2 add (2 FMAs); the
// difference 2 add: 14 mul, 7 add, 5 FMA-contractible. Elements are 16
// bytes; t0[i] is written (operator=), the others read.
TEST(Frontend, ComplexArithmeticIsCountedOnItsParts) {
  const std::string Code = R"(#include <complex>
typedef std::complex<double> C;
inline double zabs2(C c) { return real(c) * real(c) + imag(c) * imag(c); }
void mul(long n, C *__restrict t0, const C *__restrict a, const C *__restrict b, double s) {
  const C ireal(0.0, 1.0);
  for (long i = 0; i < n; i++) {
    C c1 = s * a[i];
    C z = c1 * b[i];
    double r = zabs2(c1);
    t0[i] = z * r - ireal * c1;
  }
}
)";
  FrontendResult R = analyzeCode(Code, "cpp", {{"n", 1000}});
  const LoopKernel &K = loopIn(R, "mul");
  ASSERT_TRUE(K.Modelled) << K.Reason;
  EXPECT_EQ(K.Double.Mul, 14u);
  EXPECT_EQ(K.Double.Add, 7u);
  EXPECT_EQ(K.Double.FmaContractible, 5u);
  const Access *T = access(K, "t0[i]");
  ASSERT_TRUE(T);
  EXPECT_TRUE(T->Write && !T->Read);
  EXPECT_EQ(T->ElementBytes, 16u);
  EXPECT_TRUE(access(K, "a[i]")->Read);
}

// LCALS's VOL3D sets eight pointers into one array by a macro, each
// assigned once before the loop (x2 = x0 + domain.jp): they are that array
// at offsets, so the loop reads 3 arrays and writes 1, not 25 streams (by
// hand: x at i, i + 1, i + jp, i + kp, ...), and an offset written inside
// the macro's body is named by its expression, not by the macro call.
TEST(Frontend, PointersAssignedOnceBeforeTheNestAreTheirArray) {
  const std::string Code = R"(struct Dom { long jp, kp, lo, hi; };
#define SET(v, v0, v1, v2, v3) \
  v0 = v;                      \
  v1 = v0 + 1;                 \
  v2 = v0 + d.jp;              \
  v3 = v1 + d.kp;
void vol(const Dom &d, double *x, double *vol) {
  double *x0, *x1, *x2, *x3;
  SET(x, x0, x1, x2, x3)
  for (long i = d.lo; i < d.hi; i++)
    vol[i] = x0[i] + x1[i] + x2[i] + x3[i];
}
void moved(double *x, double *y, long n) {
  double *p;
  p = x;
  for (long i = 0; i < n; i++) {
    y[i] = p[i];
    p = y;
  }
}
)";
  FrontendResult R = analyzeCode(Code, "cpp");
  const LoopKernel &K = loopIn(R, "vol");
  ASSERT_TRUE(K.Modelled) << K.Reason;
  for (const char *Ref : {"x0[i]", "x1[i]", "x2[i]", "x3[i]"})
    EXPECT_EQ(access(K, Ref)->Array, "x") << Ref;
  EXPECT_EQ(access(K, "x1[i]")->Linear->str(), "i + 1");
  EXPECT_EQ(access(K, "x2[i]")->Linear->str(), "d.jp + i");
  EXPECT_EQ(access(K, "x3[i]")->Linear->str(), "d.kp + i + 1");
  // Assigned again in the loop: not a fixed alias.
  EXPECT_NE(access(loopIn(R, "moved"), "p[i]")->Array, "x");
}

// The timing harness of `perfmodel validate`: arguments synthesised from the
// KernelIR sizes, checked against hand derivations of the arrays' extents.
#include "perfmodel/Frontend.h"
#include "perfmodel/Validate.h"

#include <gtest/gtest.h>

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>

using namespace perfmodel;

namespace {

const std::string Src = PERFMODEL_SOURCE_DIR;

KernelIR parse(const std::string &File, std::map<std::string, int64_t> Defines) {
  FrontendOptions O;
  O.File = Src + "/" + File;
  O.Defines = std::move(Defines);
  FrontendResult R = runFrontend(O);
  EXPECT_TRUE(R.Ok) << R.Error << R.Diagnostics;
  return R.IR;
}

const LoopKernel *loopIn(const KernelIR &IR, const std::string &Function) {
  for (const LoopKernel &K : IR.Loops)
    if (K.Function == Function)
      return &K;
  return nullptr;
}

// triad(n, a, b, c, s), n = 1000: a[i], b[i], c[i] for i < 1000 reach
// element 999, so each array needs 1000 elements, plus 64 of slack for
// vector remainders; s is a floating scalar (the harness sets it), n = 1000.
TEST(Validate, TriadHarness) {
  KernelIR IR = parse("examples/triad.c", {{"n", 1000}});
  const LoopKernel *K = loopIn(IR, "triad");
  ASSERT_TRUE(K);
  Harness H = makeHarness(IR, *K);
  ASSERT_TRUE(H.Ok) << H.Why;
  EXPECT_NE(H.Source.find("#include \"" + Src + "/examples/triad.c\""), std::string::npos);
  EXPECT_NE(H.Source.find("__typeof__(&triad) volatile perfmodel_kernel = &triad;"),
            std::string::npos)
      << H.Source;
  EXPECT_NE(H.Source.find(
                "perfmodel_kernel((size_t)a0, (void *)a1, (void *)a2, (void *)a3, (double)a4)"),
            std::string::npos)
      << H.Source;
  std::string Why;
  auto Args = harnessArgs(IR, *K, Why);
  ASSERT_TRUE(Args) << Why;
  EXPECT_EQ(*Args, (std::vector<std::string>{"1000", "1064", "1064", "1064", "0"}));
  EXPECT_EQ(nestIterations(*K, IR), std::optional<double>(1000));
}

// stencil(C[N][N], A[N][N], c0, c1) with N = 100: j and i run over [1, 98].
// C[j][i] reaches 100*98 + 98 = 9898 -> 9899 elements; A[j+1][i] reaches
// 100*99 + 98 = 9998 -> 9999 elements; A[j-1][i] starts at element 1 >= 0.
// Plus 64 elements of slack each; 98 x 98 = 9604 iterations.
TEST(Validate, StencilHarness) {
  KernelIR IR = parse("examples/williams-fig9.2.c", {{"N", 100}});
  const LoopKernel *K = loopIn(IR, "stencil");
  ASSERT_TRUE(K);
  Harness H = makeHarness(IR, *K);
  ASSERT_TRUE(H.Ok) << H.Why;
  // Two-dimensional parameters are allocated as their scalars.
  EXPECT_NE(H.Source.find("double *a0 = (double *)aligned_alloc"), std::string::npos) << H.Source;
  std::string Why;
  auto Args = harnessArgs(IR, *K, Why);
  ASSERT_TRUE(Args) << Why;
  EXPECT_EQ(*Args, (std::vector<std::string>{"9963", "10063", "0", "0"}));
  EXPECT_EQ(nestIterations(*K, IR), std::optional<double>(98 * 98));
}

// Triangular nests are counted exactly: sum over i < 100 of i = 4950.
TEST(Validate, TriangularIterations) {
  KernelIR IR;
  LoopKernel K;
  LoopLevel I, J;
  I.Var = "i";
  I.Lower = Poly::constant(0);
  I.Upper = Poly::symbol("n");
  J.Var = "j";
  J.Lower = Poly::constant(0);
  J.Upper = Poly::symbol("i");
  K.Nest = {I, J};
  Parameter P;
  P.Name = "n";
  P.Value = 100;
  IR.Parameters["n"] = P;
  EXPECT_EQ(nestIterations(K, IR), std::optional<double>(4950));
}

// Kernels whose arguments would have to be guessed are refused with the reason.
TEST(Validate, RefusesIndexData) {
  KernelIR IR = parse("examples/spmv-csr.c", {});
  ASSERT_FALSE(IR.Loops.empty());
  Harness H = makeHarness(IR, IR.Loops.front());
  EXPECT_FALSE(H.Ok);
  EXPECT_NE(H.Why.find("index data"), std::string::npos) << H.Why;
}

// Integer arrays whose values only flow into results are data the harness
// fills; one whose values index another array (idx of h[idx[i]]) or bound a
// loop (rowptr of CSR) decides what is timed and is still refused.
TEST(Validate, FillsIntegerDataButNotIndices) {
  KernelIR IR = parse("tests/validate/int-data.c", {});
  const LoopKernel *Data = loopIn(IR, "iaxpb"), *Hist = loopIn(IR, "hist");
  ASSERT_TRUE(Data && Hist);
  EXPECT_FALSE(indexesData(IR, *Data, "b"));
  EXPECT_TRUE(indexesData(IR, *Hist, "idx"));
  EXPECT_FALSE(indexesData(IR, *Hist, "h"));
  Harness H = makeHarness(IR, *Data);
  EXPECT_TRUE(H.Ok) << H.Why;
  EXPECT_NE(H.Source.find("(int)(1 + i % 7)"), std::string::npos) << H.Source;
  Harness G = makeHarness(IR, *Hist);
  EXPECT_FALSE(G.Ok);
  EXPECT_NE(G.Why.find("'idx' is an integer array (index data)"), std::string::npos) << G.Why;
  // Unsigned element types are integers too (were "cannot be synthesised").
  const LoopKernel *Bytes = loopIn(IR, "bytes_inc");
  ASSERT_TRUE(Bytes);
  EXPECT_TRUE(makeHarness(IR, *Bytes).Ok) << makeHarness(IR, *Bytes).Why;
  KernelIR Csr = parse("tests/validate/csr.c", {{"n", 100}});
  const LoopKernel *K = loopIn(Csr, "spmv_csr");
  ASSERT_TRUE(K);
  EXPECT_TRUE(indexesData(Csr, *K, "rowptr"));
  EXPECT_TRUE(indexesData(Csr, *K, "col"));
}

// CSR at n = 100 with rows of 8 (rowptr 0..800) and columns in [0, 99]:
// y reaches row 99, val and col entry 799 (the bounds' range), x column 99;
// rowptr, read by the bounds only, holds its 101 values; each with 64 of
// slack. The harness takes the two index arrays' files after the arguments.
TEST(Validate, CsrHarnessFromTheIndexData) {
  KernelIR IR = parse("tests/validate/csr.c", {{"n", 100}});
  const LoopKernel *K = loopIn(IR, "spmv_csr");
  ASSERT_TRUE(K);
  std::map<std::string, std::pair<int64_t, int64_t>> Ranges = {{"rowptr", {0, 800}},
                                                               {"col", {0, 99}}};
  std::map<std::string, size_t> Counts = {{"rowptr", 101}, {"col", 800}};
  std::string Why;
  auto Args = harnessArgs(IR, *K, Why, &Ranges, &Counts);
  ASSERT_TRUE(Args) << Why;
  EXPECT_EQ(*Args, (std::vector<std::string>{"100", "164", "864", "165", "864", "164"}));
  EXPECT_FALSE(harnessArgs(IR, *K, Why).has_value());
  Harness H = makeHarness(IR, *K, 5, 0.02, {"rowptr", "col"});
  ASSERT_TRUE(H.Ok) << H.Why;
  EXPECT_NE(H.Source.find("argc != 9"), std::string::npos);
}

} // namespace

// Samples taken while a neighbour shared the core (fewer independent adds
// per cycle) are left out. By hand: adds per cycle 3.5, 2.4, 3.4, 2.5, 3.6;
// the run's own reference is the second highest, 3.5, so the bar is 0.9 x
// 3.5 = 3.15 and the samples at 3.5, 3.4 and 3.6 count: 1.0, 1.1 and 0.9 us,
// median 1.0 us = 3000 cycles at 3 GHz (all five: 1.1 us). Against a
// reference of 4 (another run's) only 3.6 passes: 0.9 us. Against 5 none
// does: all five, and Kept says so.
TEST(Validate, SamplesOnASharedCoreAreLeftOut) {
  std::vector<Sample> S = {{1.0e-6, 3, 3.5}, {2.0e-6, 3, 2.4}, {1.1e-6, 3, 3.4},
                           {1.9e-6, 3, 2.5}, {0.9e-6, 3, 3.6}};
  EXPECT_DOUBLE_EQ(ownReference(S), 3.5);
  Timing Own = summariseSamples(S, {ownReference(S)});
  EXPECT_EQ(Own.Kept, 3u);
  EXPECT_EQ(Own.Total, 5u);
  EXPECT_DOUBLE_EQ(Own.Median, 1.0e-6);
  EXPECT_NEAR(Own.MedianCycles, 3000, 1e-6);
  EXPECT_DOUBLE_EQ(Own.Min, 0.9e-6);
  EXPECT_DOUBLE_EQ(Own.Max, 1.1e-6);
  Timing Run = summariseSamples(S, {4});
  EXPECT_EQ(Run.Kept, 1u);
  EXPECT_DOUBLE_EQ(Run.Median, 0.9e-6);
  // More than 1.15 x the reference is a disturbed clock chain, not a
  // faster core: against 3.1 the bar is 2.79 to 3.565, so 3.5 and 3.4 count
  // and 3.6 does not.
  EXPECT_EQ(summariseSamples(S, {3.1}).Kept, 2u);
  Timing None = summariseSamples(S, {5});
  EXPECT_EQ(None.Kept, 0u);
  EXPECT_DOUBLE_EQ(None.Median, 1.1e-6);
  EXPECT_NEAR(None.Share, 3.4 / 5, 1e-12);
}

// Three processes' samples of one size (validate --processes 3), against
// an adds reference of 3.5 (bar 3.15). By hand: process A's quiet samples
// 1.0 and 1.2 us (median 1.1), B's 1.4 us alone (its 2.0 us shared the
// core), C's none (both shared). 3 quiet samples >= --reps 3: the median of
// A's and B's medians, (1.1 + 1.4) / 2 = 1.25 us; C is left out, min 1.0
// and max 1.4 span A and B, Kept 3 of 6. With --reps 4 too few were quiet:
// every process's median over all its samples, A 1.1, B 1.7, C 2.5 -> 1.7.
TEST(Validate, ProcessesCombineAsTheMedianOfTheirMedians) {
  auto Run = [](std::vector<Sample> S) {
    Timing T;
    T.Samples = std::move(S);
    return T;
  };
  std::vector<Timing> Runs = {Run({{1.0e-6, 3, 3.5}, {1.2e-6, 3, 3.4}}),
                              Run({{1.4e-6, 3, 3.6}, {2.0e-6, 3, 2.0}}),
                              Run({{2.4e-6, 3, 2.2}, {2.6e-6, 3, 2.1}})};
  Timing Q = combineRuns(Runs, {3.5}, 3);
  EXPECT_NEAR(Q.Median, 1.25e-6, 1e-15);
  EXPECT_DOUBLE_EQ(Q.Min, 1.0e-6);
  EXPECT_DOUBLE_EQ(Q.Max, 1.4e-6);
  EXPECT_EQ(Q.Kept, 3u);
  EXPECT_EQ(Q.Total, 6u);
  EXPECT_NEAR(Q.MedianCycles, 3750, 1e-6); // 1.25 us at 3 GHz
  Timing All = combineRuns(Runs, {3.5}, 4);
  EXPECT_NEAR(All.Median, 1.7e-6, 1e-15);
  EXPECT_DOUBLE_EQ(All.Max, 2.6e-6);
  EXPECT_EQ(All.Kept, 3u);
}

// Memory rows also leave out samples whose memory probe found the bus busy.
// By hand: all five samples had the core (3.5 adds a cycle against 3.5);
// the probe read 20, 11, 19, 12, 21 GB/s: the run's own memory reference is
// the second highest, 20, the bar 0.9 x 20 = 18, so 20, 19 and 21 count:
// 3.0, 3.2, 2.9 us, median 3.0 us (all five: 3.2 us). Without a memory
// reference (cache rows) every sample counts.
TEST(Validate, MemorySamplesBesideABusyBusAreLeftOut) {
  std::vector<Sample> S = {{3.0e-6, 3, 3.5, 20}, {5.0e-6, 3, 3.5, 11}, {3.2e-6, 3, 3.5, 19},
                           {4.8e-6, 3, 3.5, 12}, {2.9e-6, 3, 3.5, 21}};
  EXPECT_DOUBLE_EQ(ownMemReference(S), 20);
  Timing Mem = summariseSamples(S, {3.5, ownMemReference(S)});
  EXPECT_EQ(Mem.Kept, 3u);
  EXPECT_DOUBLE_EQ(Mem.Median, 3.0e-6);
  EXPECT_DOUBLE_EQ(Mem.MemReference, 20);
  Timing Cache = summariseSamples(S, {3.5});
  EXPECT_EQ(Cache.Kept, 5u);
  EXPECT_DOUBLE_EQ(Cache.Median, 3.2e-6);
  // A sample quiet on the bus but not on the core still does not count.
  EXPECT_FALSE(isQuietSample({3.0e-6, 3, 2.0, 21}, {3.5, 20}));
  EXPECT_TRUE(isQuietSample({3.0e-6, 3, 3.5, 18}, {3.5, 20}));
}

// Samples whose FP adds ran slow beside them are left out too: a neighbour's
// FP work shares the FP pipes and leaves the integer adds alone. By hand: all
// five had the core (3.5 integer adds a cycle); FP adds 2.0, 1.2, 1.9, 1.3,
// 2.0 a cycle: the second highest, 2.0, is the reference, the bar 0.9 x 2 =
// 1.8 (and at most 1.15 x 2), so the first, third and fifth count: 3.0,
// 3.2, 2.9 us, median 3.0 us (all five 3.2 us). Without an FP reference
// (harnesses that did not measure it) every sample counts.
TEST(Validate, SamplesBesideBusyFpPipesAreLeftOut) {
  auto At = [](double Seconds, double Fp) {
    Sample X;
    X.Seconds = Seconds;
    X.ClockGHz = 3;
    X.AddsPerCycle = 3.5;
    X.FpAddsPerCycle = Fp;
    return X;
  };
  std::vector<Sample> S = {At(3.0e-6, 2.0), At(5.0e-6, 1.2), At(3.2e-6, 1.9), At(4.8e-6, 1.3),
                           At(2.9e-6, 2.0)};
  EXPECT_DOUBLE_EQ(ownFpReference(S), 2.0);
  Timing Fp = summariseSamples(S, {3.5, 0, ownFpReference(S)});
  EXPECT_EQ(Fp.Kept, 3u);
  EXPECT_DOUBLE_EQ(Fp.Median, 3.0e-6);
  EXPECT_DOUBLE_EQ(Fp.FpReference, 2.0);
  EXPECT_EQ(summariseSamples(S, {3.5}).Kept, 5u);
  EXPECT_FALSE(isQuietSample(At(3.0e-6, 1.2), {3.5, 0, 2.0}));
  EXPECT_TRUE(isQuietSample(At(3.0e-6, 1.2), {3.5}));
}

// ownReferences checks what was measured: the probe's repetitions carry
// integer and FP adds but no memory or L2 read beside them (0), so those two
// references are 0 and not checked. By hand as above: adds 3.5 in all five,
// FP adds 2.0, 1.2, 1.9, 1.3, 2.0: the first, third and fifth count.
TEST(Validate, OwnReferencesCheckWhatWasMeasured) {
  std::vector<Sample> S;
  for (double Fp : {2.0, 1.2, 1.9, 1.3, 2.0}) {
    Sample X;
    X.Seconds = 1e-6;
    X.ClockGHz = 3;
    X.AddsPerCycle = 3.5;
    X.FpAddsPerCycle = Fp;
    S.push_back(X);
  }
  QuietReferences R = ownReferences(S);
  EXPECT_DOUBLE_EQ(R.Adds, 3.5);
  EXPECT_DOUBLE_EQ(R.Fp, 2.0);
  EXPECT_DOUBLE_EQ(R.Mem, 0);
  EXPECT_DOUBLE_EQ(R.Cache, 0);
  EXPECT_EQ(std::count_if(S.begin(), S.end(),
                          [&](const Sample &X) { return isQuietSample(X, R); }),
            3);
}

// A neighbour on the core's load pipes, L1 or L2 slows cache-bound samples
// and leaves both kinds of adds alone. By hand: all five had the core and
// the FP pipes; the L2 read beside them ran at 100, 60, 98, 101, 70 GB/s:
// the second highest, 100, is the reference, the bar 0.9 x 100 = 90 (no
// ceiling: a faster read is no sign of a disturbed clock), so the first,
// third and fourth count: 3.0, 3.1, 2.9 us, median 3.0 us (all five 3.1).
// Without a cache reference every sample counts.
TEST(Validate, SamplesBesideABusyL2AreLeftOut) {
  auto At = [](double Seconds, double Cache) {
    Sample X;
    X.Seconds = Seconds;
    X.ClockGHz = 3;
    X.AddsPerCycle = 3.5;
    X.CacheGBs = Cache;
    return X;
  };
  std::vector<Sample> S = {At(3.0e-6, 100), At(4.5e-6, 60), At(3.1e-6, 98), At(2.9e-6, 101),
                           At(4.0e-6, 70)};
  EXPECT_DOUBLE_EQ(ownCacheReference(S), 100);
  Timing L2 = summariseSamples(S, {3.5, 0, 0, ownCacheReference(S)});
  EXPECT_EQ(L2.Kept, 3u);
  EXPECT_DOUBLE_EQ(L2.Median, 3.0e-6);
  EXPECT_DOUBLE_EQ(L2.CacheReference, 100);
  Timing All = summariseSamples(S, {3.5});
  EXPECT_EQ(All.Kept, 5u);
  EXPECT_DOUBLE_EQ(All.Median, 3.1e-6);
  EXPECT_FALSE(isQuietSample(At(3.0e-6, 85), {3.5, 0, 0, 100}));
  EXPECT_TRUE(isQuietSample(At(3.0e-6, 150), {3.5, 0, 0, 100}));
}

// An array written only outside the innermost loop (s[i] = t after a row's
// sum) is sized from that access: with n = 100, s reaches s[99] -> 100
// elements, A reaches A[99 * 100 + 99] -> 10000, each plus 64 of slack.
TEST(Validate, SizesArraysAccessedOutsideTheInnermostLoop) {
  KernelIR IR = parse("tests/validate/rowsum.c", {{"n", 100}});
  const LoopKernel *K = loopIn(IR, "rowsum");
  ASSERT_TRUE(K);
  ASSERT_EQ(K->OuterAccesses.size(), 1u);
  EXPECT_EQ(K->OuterAccesses[0].Array, "s");
  EXPECT_TRUE(K->OuterAccesses[0].Write);
  std::string Why;
  auto Args = harnessArgs(IR, *K, Why);
  ASSERT_TRUE(Args) << Why;
  EXPECT_EQ(*Args, (std::vector<std::string>{"100", "164", "10064"}));
}

// File-scope arrays are the program's data, written before its loops read
// them: the harness fills the float and double ones the function uses
// (untouched, every page of them is the system's one zero page, which reads
// at other speeds), leaves an index array (idx) and a const table as the
// file has them, and builds.
TEST(Validate, FillsFileScopeArrays) {
  KernelIR IR = parse("tests/validate/file-arrays.c", {});
  const LoopKernel *Saxpy = loopIn(IR, "saxpy_g"), *Gather = loopIn(IR, "gather_g"),
                   *Rows = loopIn(IR, "rows_g");
  ASSERT_TRUE(Saxpy && Gather && Rows);
  auto Fills = [](const Harness &H, const std::string &Name, const std::string &Type) {
    return H.Source.find(Type + " *p = (" + Type + " *)(void *)&" + Name + ";") !=
           std::string::npos;
  };
  Harness S = makeHarness(IR, *Saxpy);
  ASSERT_TRUE(S.Ok) << S.Why;
  EXPECT_TRUE(Fills(S, "x", "float") && Fills(S, "y", "float")) << S.Source;
  EXPECT_NE(S.Source.find("i < sizeof x / sizeof(float)"), std::string::npos) << S.Source;
  Harness G = makeHarness(IR, *Gather);
  ASSERT_TRUE(G.Ok) << G.Why;
  EXPECT_TRUE(Fills(G, "x", "float") && Fills(G, "y", "float")) << G.Source;
  EXPECT_FALSE(Fills(G, "idx", "int")) << G.Source;
  EXPECT_EQ(G.Source.find("&weights"), std::string::npos) << G.Source;
  Harness R = makeHarness(IR, *Rows);
  ASSERT_TRUE(R.Ok) << R.Why;
  EXPECT_TRUE(Fills(R, "grid", "double")) << R.Source;
  EXPECT_FALSE(Fills(R, "x", "float")) << R.Source; // another function's
  std::string Err;
  llvm::SmallString<128> Exe;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("harness", "", Exe));
  EXPECT_TRUE(buildHarness(G.Source, false, {"-O1"}, std::string(Exe), Err)) << Err;
  llvm::sys::fs::remove(Exe);
}

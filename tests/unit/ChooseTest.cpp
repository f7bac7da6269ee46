// perfmodel choose: BCSR block structure by hand, the out-of-order overlap
// of short inner loops by hand, and choices on matrices whose answer is
// known from their structure.
#include "perfmodel/Choose.h"
#include "perfmodel/Frontend.h"
#include "perfmodel/InCore.h"
#include "perfmodel/MachineModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

using namespace perfmodel;

namespace {

const std::string Src = PERFMODEL_SOURCE_DIR;

CsrPattern fromEntries(int64_t Rows, int64_t Cols, std::vector<std::pair<int64_t, int64_t>> E) {
  std::sort(E.begin(), E.end());
  E.erase(std::unique(E.begin(), E.end()), E.end());
  CsrPattern A;
  A.Rows = Rows;
  A.Cols = Cols;
  A.RowPtr.assign(size_t(Rows) + 1, 0);
  for (auto [I, J] : E) {
    ++A.RowPtr[size_t(I) + 1];
    A.Col.push_back(J);
  }
  for (int64_t I = 0; I < Rows; ++I)
    A.RowPtr[size_t(I) + 1] += A.RowPtr[size_t(I)];
  return A;
}

MachineModel machine(const std::string &File) {
  auto R = loadMachineModel(Src + "/machine-models/" + File);
  EXPECT_TRUE(R.ok());
  return *R.Model;
}

} // namespace

TEST(Bcsr, BlockCountsAndFillByHand) {
  // 4 x 4 with 6 nonzeros:   x x . .
  //                          . x . .
  //                          . . . x
  //                          . . x x
  CsrPattern A = fromEntries(4, 4, {{0, 0}, {0, 1}, {1, 1}, {2, 3}, {3, 2}, {3, 3}});
  // 2x2: one block in each block row (columns 0-1, then 2-3): 2 blocks, 8
  // stored values for 6 nonzeros.
  BlockPattern B = buildBlockPattern(A, 2, 2);
  EXPECT_EQ(B.BlockRows, 2);
  EXPECT_EQ(B.BlockCols, 2);
  EXPECT_EQ(B.RowPtr, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(B.Col, (std::vector<int64_t>{0, 1}));
  // 2x1: rows {0,1} touch columns 0 and 1, rows {2,3} columns 2 and 3: 4.
  EXPECT_EQ(buildBlockPattern(A, 2, 1).blocks(), 4);
  // 1x2: every row touches one column pair: 4.
  EXPECT_EQ(buildBlockPattern(A, 1, 2).blocks(), 4);
  // 3x3 (padded to 6 x 6): rows 0-2 touch block columns 0 and 1 (column 3),
  // row 3 block columns 0 and 1 (columns 2, 3): 4 blocks, 36 values, fill 6.
  BlockPattern B3 = buildBlockPattern(A, 3, 3);
  EXPECT_EQ(B3.BlockRows, 2);
  EXPECT_EQ(B3.BlockCols, 2);
  EXPECT_EQ(B3.blocks(), 4);
  std::vector<std::vector<int64_t>> N = countBlocks(A, 3, 3);
  EXPECT_EQ(N[0][0], 6);
  EXPECT_EQ(N[1][1], 2);
  EXPECT_EQ(N[1][0], 4);
  EXPECT_EQ(N[0][1], 4);
  EXPECT_EQ(N[2][2], 4);
}

TEST(Bcsr, CountsAgreeWithTheStructureOnARandomMatrix) {
  // Two independent counts (one pass per r over all c; one structure per
  // shape) must agree on every shape.
  std::mt19937 G(5);
  std::vector<std::pair<int64_t, int64_t>> E;
  for (int I = 0; I < 3000; ++I)
    E.push_back({G() % 301, G() % 257});
  CsrPattern A = fromEntries(301, 257, E);
  std::vector<std::vector<int64_t>> N = countBlocks(A, 8, 8);
  for (unsigned R = 1; R <= 8; ++R)
    for (unsigned C = 1; C <= 8; ++C)
      EXPECT_EQ(N[R - 1][C - 1], buildBlockPattern(A, R, C).blocks()) << R << "x" << C;
  EXPECT_EQ(N[0][0], A.nonzeros());
}

TEST(Bcsr, KernelSourceStoresBlocksColumnMajor) {
  std::string S = bcsrKernelSource({{2, 3}});
  // Row 1, column 2 of a 2 x 3 block: value 2 * 2 + 1 = 5 of the block.
  EXPECT_NE(S.find("y1 += val[6 * k + 1] * x[j + 0] + val[6 * k + 3] * x[j + 1] + "
                   "val[6 * k + 5] * x[j + 2];"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("void bcsr_2x3("), std::string::npos);
}

TEST(Overlap, ShortInnerLoopsOverlapInTheWindow) {
  // A loop of 5 uops, a 4-cycle chain reset per outer iteration, ports 1 cy.
  InCoreResult R;
  R.Ok = true;
  R.Uops = 5;
  R.RecurrenceBound = 4;
  R.PortBound = 1;
  R.FrontEndBound = 0.8;
  R.Cycles = 4;
  R.Bottleneck = InCoreBound::Recurrence;
  // 40 iterations per outer one; a 448-entry window holds 448 / 5 = 89.6
  // iterations, 2.24 outer iterations: the chain binds 4 / 2.24 = 1.786 cy.
  InCoreResult A = R;
  overlapOuterIterations(A, std::vector<int64_t>(100, 40), 448);
  EXPECT_NEAR(A.RecurrenceBound, 4 / 2.24, 1e-9);
  EXPECT_NEAR(A.Cycles, 4 / 2.24, 1e-9);
  // Half the window: 44.8 iterations, 1.12 outer iterations: 3.571 cy.
  InCoreResult H = R;
  overlapOuterIterations(H, std::vector<int64_t>(100, 40), 224);
  EXPECT_NEAR(H.Cycles, 4 / 1.12, 1e-9);
  // Rows of 10: 8.96 chains at once, 0.446 cy: the ports bind (1 cy).
  InCoreResult S = R;
  overlapOuterIterations(S, std::vector<int64_t>(100, 10), 448);
  EXPECT_NEAR(S.RecurrenceBound, 4 / 8.96, 1e-9);
  EXPECT_DOUBLE_EQ(S.Cycles, 1);
  EXPECT_EQ(S.Bottleneck, InCoreBound::Ports);
  // Rows longer than the window: nothing overlaps; no window size: as is.
  InCoreResult L = R;
  overlapOuterIterations(L, std::vector<int64_t>(100, 200), 448);
  EXPECT_DOUBLE_EQ(L.Cycles, 4);
  InCoreResult U = R;
  overlapOuterIterations(U, std::vector<int64_t>(100, 10), 0);
  EXPECT_DOUBLE_EQ(U.Cycles, 4);
  // Mixed rows weigh by their iterations: 50 rows of 10 and 50 of 200:
  // (50 x 10 x 0.446 + 50 x 200 x 4) / (50 x 210).
  InCoreResult X = R;
  std::vector<int64_t> Mixed(50, 10);
  Mixed.insert(Mixed.end(), 50, 200);
  overlapOuterIterations(X, Mixed, 448);
  EXPECT_NEAR(X.RecurrenceBound, (500 * 4 / 8.96 + 10000 * 4.0) / 10500, 1e-9);
}

TEST(ChooseBcsr, DenseThreeByThreeBlocksChooseADivisorOfThem) {
  // Block-tridiagonal matrix of dense 3 x 3 blocks (6,000 block rows): a
  // shape that divides 3 x 3 stores no explicit zero; any other pays fill.
  // Shapes up to 3 x 3: the 2-wide ones pay 11-26 % fill for nothing. (Up
  // to 4 x 4, 4x3 wins, predicted and timed on a Zen 5 host alike, 30.1 us
  // against 36.8 for 3x3 (bench/choose): four rows fill one 256-bit vector,
  // which outweighs a third more values.)
  std::vector<std::pair<int64_t, int64_t>> E;
  const int64_t NB = 6000;
  for (int64_t B = 0; B < NB; ++B)
    for (int64_t D = -1; D <= 1; ++D)
      if (B + D >= 0 && B + D < NB)
        for (int I = 0; I < 3; ++I)
          for (int J = 0; J < 3; ++J)
            E.push_back({3 * B + I, 3 * (B + D) + J});
  CsrPattern A = fromEntries(3 * NB, 3 * NB, E);
  MachineModel M = machine("haswell-ep-e5-2680v3.yml");
  ChooseOptions O;
  O.MaxR = 3;
  O.MaxC = 3;
  BcsrChoice Ch;
  std::string Err;
  ASSERT_TRUE(chooseBcsr(A, "tridiag3", M, O, Ch, Err)) << Err;
  ASSERT_EQ(Ch.Candidates.size(), 9u);
  const BcsrCandidate *Best = Ch.chosen();
  ASSERT_TRUE(Best);
  EXPECT_EQ(3 % Best->R, 0u) << Best->R << "x" << Best->C;
  EXPECT_EQ(3 % Best->C, 0u) << Best->R << "x" << Best->C;
  EXPECT_DOUBLE_EQ(Best->Fill, 1);
  EXPECT_GT(Ch.SpeedupOverCsr, 1.0);
  // 3x3 itself: 3 blocks per block row but the first and last.
  for (const BcsrCandidate &C : Ch.Candidates)
    if (C.R == 3 && C.C == 3)
      EXPECT_EQ(C.Blocks, 3 * NB - 2);
}

TEST(ChooseBcsr, RandomUnstructuredMatrixGainsNothingFromBlocks) {
  // 20,000 rows of 8 uniformly random columns: a 2-wide block almost never
  // holds two nonzeros, so every block shape multiplies the stored values.
  std::mt19937 G(17);
  std::vector<std::pair<int64_t, int64_t>> E;
  const int64_t N = 20000;
  for (int64_t I = 0; I < N; ++I)
    for (int K = 0; K < 8; ++K)
      E.push_back({I, int64_t(G() % N)});
  CsrPattern A = fromEntries(N, N, E);
  MachineModel M = machine("zen4-epyc-9654.yml");
  ChooseOptions O;
  O.MaxR = 4;
  O.MaxC = 4;
  BcsrChoice Ch;
  std::string Err;
  ASSERT_TRUE(chooseBcsr(A, "random", M, O, Ch, Err)) << Err;
  const BcsrCandidate *Best = Ch.chosen();
  ASSERT_TRUE(Best);
  EXPECT_TRUE((Best->R == 1 && Best->C == 1) || Ch.SpeedupOverCsr < 1.05)
      << Best->R << "x" << Best->C << " predicted " << Ch.SpeedupOverCsr << "x CSR";
}

namespace {

struct TripCounts {
  FrontendResult FR;
  std::vector<InCoreResult> InCore;
  MachineModel M = machine("haswell-ep-e5-2680v3.yml");
  TripCounts() {
    FrontendOptions F;
    F.File = Src + "/tests/choose/trip-counts.c";
    F.Defines["n"] = 100;
    FR = runFrontend(F);
    EXPECT_TRUE(FR.Ok) << FR.Error;
    InCore = analyzeKernelLoops(FR.IR, {}, inCoreOptionsFor(M));
  }
  std::vector<VariantInput> variants(std::vector<std::string> Fns) {
    std::vector<VariantInput> Vs;
    for (const std::string &Fn : Fns) {
      VariantInput V;
      V.Name = V.Function = Fn;
      V.IR = &FR.IR;
      V.InCore = &InCore;
      Vs.push_back(V);
    }
    return Vs;
  }
};

} // namespace

TEST(ChooseVariants, WinnerChangesWhereTheTripCountsCross) {
  // tests/choose/trip-counts.c: the same loop body (5 cy per iteration on
  // Haswell, the FMA latency) run 2n times (twice_n), n + 1000 times (n_plus)
  // and n + 1000 times in two loops (split). twice_n wins while 2n < n + 1000;
  // at n = 1000 the two tie and the first given keeps it; from n = 1001 on
  // n_plus wins, and split always ties with n_plus (a function's time is the
  // sum of its loops').
  TripCounts T;
  std::vector<VariantInput> Vs = T.variants({"twice_n", "n_plus", "split"});
  VariantOptions O;
  O.Param = "n";
  O.Values = {100, 1000, 10000};
  VariantChoice Ch;
  std::string Err;
  ASSERT_TRUE(chooseVariants(Vs, T.M, O, Ch, Err)) << Err;
  ASSERT_EQ(Ch.Points.size(), 3u);
  for (const VariantPoint &P : Ch.Points) {
    for (const VariantEstimate &E : P.Variants)
      ASSERT_TRUE(E.Ok) << E.Reason;
    double Twice = P.Variants[0].Seconds, Plus = P.Variants[1].Seconds;
    // Iterations by hand; 5 cy each at 2.7 GHz.
    EXPECT_NEAR(Twice, 2.0 * double(P.Value) * 5 / 2.7e9, 1e-9 * Twice) << P.Value;
    EXPECT_NEAR(Plus, (double(P.Value) + 1000) * 5 / 2.7e9, 1e-9 * Plus) << P.Value;
    EXPECT_NEAR(P.Variants[2].Seconds, Plus, 1e-9 * Plus) << P.Value;
  }
  EXPECT_EQ(Ch.Points[0].Winner, 0);
  EXPECT_EQ(Ch.Points[1].Winner, 0); // the tie at n = 1000
  EXPECT_EQ(Ch.Points[2].Winner, 1); // split ties with n_plus, given later
  ASSERT_EQ(Ch.Crossovers.size(), 1u);
  const VariantCrossover &X = Ch.Crossovers[0];
  EXPECT_EQ(X.From, 0);
  EXPECT_EQ(X.To, 1);
  // Bisection stops within 1 % of the lower end: 1000 <= Last < First <= 1011.
  EXPECT_GE(X.Last, 1000);
  EXPECT_LT(X.Last, X.First);
  EXPECT_LE(X.First, 1011);
  EXPECT_LE(double(X.First - X.Last), 0.01 * double(X.Last) + 1);
}

TEST(ChooseVariants, RefusesWhatCannotBeRanked) {
  TripCounts T;
  VariantOptions O;
  O.Param = "n";
  O.Values = {100, 1000};
  VariantChoice Ch;
  std::string Err;
  // fixed runs 1000 iterations whatever n is: sweeping n ranks nothing.
  std::vector<VariantInput> Vs = T.variants({"twice_n", "fixed"});
  EXPECT_FALSE(chooseVariants(Vs, T.M, O, Ch, Err));
  EXPECT_NE(Err.find("--variant fixed: its loops do not depend on 'n'"), std::string::npos)
      << Err;
  Vs = T.variants({"twice_n", "no_such"});
  EXPECT_FALSE(chooseVariants(Vs, T.M, O, Ch, Err));
  EXPECT_NE(Err.find("no function 'no_such' with loops (functions with loops: fixed, n_plus, "
                     "split, twice_n)"),
            std::string::npos)
      << Err;
  Vs = T.variants({"twice_n"});
  EXPECT_FALSE(chooseVariants(Vs, T.M, O, Ch, Err));
  EXPECT_NE(Err.find("at least two variants"), std::string::npos) << Err;
}

TEST(ChooseVariants, FastestAndWinnerChangesOnMeasuredTimes) {
  std::vector<VariantEstimate> E(3);
  E[0].Ok = E[1].Ok = E[2].Ok = true;
  E[0].Seconds = 2;
  E[1].Seconds = 1;
  E[2].Seconds = 1; // a tie with E[1]: the first given wins
  EXPECT_EQ(fastestVariant(E, false), 1);
  EXPECT_EQ(fastestVariant(E, true), -1); // nothing timed
  E[0].Measured = 0.5;
  E[2].Measured = 0.7;
  EXPECT_EQ(fastestVariant(E, true), 0);
  E[1].Ok = E[2].Ok = false;
  EXPECT_EQ(fastestVariant(E, false), 0);
  std::vector<VariantPoint> Ps(4);
  int Winners[] = {0, 0, 2, 1};
  for (int I = 0; I < 4; ++I) {
    Ps[I].Value = (I + 1) * 10;
    Ps[I].MeasuredWinner = Winners[I];
  }
  std::vector<VariantCrossover> X = winnerChanges(Ps, true);
  ASSERT_EQ(X.size(), 2u);
  EXPECT_EQ(X[0].Last, 20);
  EXPECT_EQ(X[0].First, 30);
  EXPECT_EQ(X[0].From, 0);
  EXPECT_EQ(X[0].To, 2);
  EXPECT_EQ(X[1].From, 2);
  EXPECT_EQ(X[1].To, 1);
  EXPECT_TRUE(winnerChanges(Ps, false).empty()); // no predicted winners
}

// The perfmodel command line: golden text/JSON output and bad-input exits.
// Regenerate the golden files with scripts/update-golden.sh after a change
// that is meant to alter the output, and review the diff.
#include "Run.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <regex>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>

namespace {

/// Replaces the checkout location so golden files do not depend on it.
std::string normalise(std::string S) {
  for (size_t P; (P = S.find(Src)) != std::string::npos;)
    S.replace(P, Src.size(), "$SRC");
  return S;
}

void expectGolden(const std::string &Args, const std::string &Golden) {
  CmdResult R = perfmodel(Args);
  ASSERT_EQ(R.Code, 0) << R.Err;
  std::string Expected = slurp(Src + "/tests/golden/" + Golden);
  ASSERT_FALSE(Expected.empty()) << "missing golden file " << Golden;
  EXPECT_EQ(normalise(R.Out), Expected) << "perfmodel " << Args;
}

} // namespace

TEST(Cli, GoldenTriadText) {
  expectGolden("analyze examples/triad.c -m hsw -D n=10000000", "triad.txt");
}
TEST(Cli, GoldenTriadJson) {
  expectGolden("analyze examples/triad.c -m hsw -D n=10000000 --format json",
               "triad.json");
}
TEST(Cli, GoldenWilliamsText) {
  expectGolden("analyze examples/williams-fig9.2.c -m hsw -D n=1000000",
               "williams-fig9.2.txt");
}
TEST(Cli, GoldenUnsupportedText) {
  expectGolden("analyze examples/unsupported.c -m hsw -D n=100", "unsupported.txt");
}
TEST(Cli, GoldenWilliamsCacheText) {
  // Layer conditions and the simulator side by side.
  expectGolden("analyze examples/williams-fig9.2.c -m hsw -D n=1000000 -D N=2048 "
               "--cache both --sim-accesses 4000000",
               "williams-fig9.2-cache.txt");
}
TEST(Cli, GoldenSpMVWithMatrixJson) {
  // "iterations": 4380, the nonzeros of the 5-point Laplacian on a 30 x 30
  // grid (5 * 900 - 4 * 30), counted from the row pointers --index gives.
  expectGolden("analyze examples/spmv-csr.c -m hsw "
               "--index rowptr=examples/matrices/laplace2d-30.mtx "
               "--index col=examples/matrices/laplace2d-30.mtx --format json",
               "spmv-mtx.json");
}
TEST(Cli, GoldenInCoreText) {
  expectGolden("incore tests/incore/fma-4acc.s -m hsw", "incore-fma-4acc-hsw.txt");
}
TEST(Cli, GoldenMachineShow) { expectGolden("machine show hsw", "machine-show-hsw.txt"); }

// machine show states the data TLB where the file has one (zen3: both levels
// with their costs; Haswell's file has none, and its golden output no line).
TEST(Cli, MachineShowStatesTheDataTlb) {
  CmdResult R = perfmodel("machine show zen3");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_NE(R.Out.find("data TLB:    2176 entries, fully associative, 4KiB pages; a miss walks "
                       "the page tables: 24 cy a load, 28.3 a store; first level 64 entries, "
                       "fully associative, a miss the last level holds 1 cy of the load/store "
                       "pipes a load, 0.5 a store"),
            std::string::npos)
      << R.Out;
  CmdResult Z = perfmodel("machine show zen4");
  ASSERT_EQ(Z.Code, 0) << Z.Err;
  EXPECT_NE(Z.Out.find("data TLB:    3072 entries, 12-way, 4KiB pages"), std::string::npos)
      << Z.Out;
  EXPECT_EQ(Z.Out.find("first level"), std::string::npos) << Z.Out;
}

TEST(Cli, JsonHasVersionAndParses) {
  CmdResult R = perfmodel("analyze examples/spmv-csr.c -m hsw --format json");
  ASSERT_EQ(R.Code, 0) << R.Err;
  auto V = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *O = V->getAsObject();
  EXPECT_EQ(O->getInteger("version"), 1);
  EXPECT_EQ(O->getString("schema"), "perfmodel-analysis");
  const llvm::json::Array *Loops = O->getArray("loops");
  ASSERT_TRUE(Loops && Loops->size() == 1);
  const llvm::json::Array *Acc = (*Loops)[0].getAsObject()->getArray("accesses");
  bool IndirectX = false;
  for (const llvm::json::Value &A : *Acc)
    if (A.getAsObject()->getString("array") == "x")
      IndirectX = *A.getAsObject()->getBoolean("indirect");
  EXPECT_TRUE(IndirectX);
}

/// Cycles per iteration per model and level of the first loop of a JSON report.
static std::map<std::string, std::vector<double>> cyclesPerModel(const std::string &Json) {
  std::map<std::string, std::vector<double>> Out;
  auto V = llvm::json::parse(Json);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return Out;
  }
  const llvm::json::Object *Loop = (*V->getAsObject()->getArray("loops"))[0].getAsObject();
  for (const llvm::json::Value &P : *Loop->getArray("predictions"))
    if (const llvm::json::Array *Levels = P.getAsObject()->getArray("levels"))
      for (const llvm::json::Value &L : *Levels)
        Out[P.getAsObject()->getString("model")->str()].push_back(
            L.getAsObject()->getNumber("cy_per_it").value_or(-1));
  return Out;
}

TEST(Cli, OpenMPParallelLoopsPayTheirStartAndJoin) {
  // examples/omp.c's jacobi at n = m = 202: one execution of its parallel
  // loop runs 200 x 200 = 40000 iterations. At 1.5 us a parallel loop on two
  // threads and 2 GHz that is 3000 cycles, 3000 / 40000 = 0.075 cy/it beside
  // the same machine without the cost, at every level of Roofline and ECM;
  // PPR, one core's time, adds it only on one core (0.5 us: 0.025 cy/it).
  const std::string Base =
      "analyze examples/omp.c -m hsw --set clock_ghz=2 -D n=202 -D m=202 --format json ";
  CmdResult With = perfmodel(Base + "--cores 2 --set core.parallel_loop_us.2=1.5");
  CmdResult Without = perfmodel(Base + "--cores 2 --set core.parallel_loop_us.2=0");
  ASSERT_EQ(With.Code, 0) << With.Err;
  ASSERT_EQ(Without.Code, 0) << Without.Err;
  auto A = cyclesPerModel(With.Out), B = cyclesPerModel(Without.Out);
  for (const char *Model : {"Roofline", "ECM", "PPR"}) {
    ASSERT_EQ(A[Model].size(), 4u) << Model;
    for (size_t L = 0; L < 4; ++L)
      EXPECT_NEAR(A[Model][L] - B[Model][L], std::string(Model) == "PPR" ? 0 : 0.075, 1e-4)
          << Model << " level " << L;
  }
  EXPECT_NE(With.Out.find("the OpenMP parallel loop at line 6 starts, splits and joins 2 "
                          "thread(s) at each execution: 1.5 us"),
            std::string::npos);
  CmdResult One = perfmodel(Base + "--set core.parallel_loop_us.1=0.5");
  CmdResult OneWithout = perfmodel(Base + "--set core.parallel_loop_us.1=0");
  auto C = cyclesPerModel(One.Out), D = cyclesPerModel(OneWithout.Out);
  for (const char *Model : {"Roofline", "ECM", "PPR"})
    EXPECT_NEAR(C[Model][0] - D[Model][0], 0.025, 1e-4) << Model;
  // Three threads where only one and two were measured: two's figure, said so.
  CmdResult Three = perfmodel(Base + "--cores 3 --set core.parallel_loop_us.1=0.5 "
                                     "--set core.parallel_loop_us.2=1.5");
  EXPECT_NE(Three.Out.find("1.5 us (core.parallel_loop_us, as measured on 2)"), std::string::npos)
      << Three.Out;
  // A machine that does not say: the loop is priced without it, and told.
  CmdResult Silent = perfmodel(Base + "--cores 2");
  EXPECT_NE(Silent.Out.find("does not say what that costs (core.parallel_loop_us): not counted"),
            std::string::npos);
}

TEST(Cli, OutputFilesAreWrittenAtomicallyAndNeverClobbered) {
  std::string Dir = "/tmp/perfmodel-cli-out";
  std::remove((Dir + "/r.txt").c_str());
  system(("mkdir -p " + Dir + " && cp examples/triad.c " + Dir + "/victim.c").c_str());
  CmdResult R = perfmodel("analyze examples/triad.c -m hsw --no-incore -o " + Dir + "/victim.c");
  EXPECT_EQ(R.Code, 1);
  EXPECT_NE(R.Err.find("refusing to overwrite a file that is not a perfmodel report"),
            std::string::npos);
  EXPECT_EQ(slurp(Dir + "/victim.c"), slurp(Src + "/examples/triad.c"));
  // Its own reports, text or JSON, are replaced.
  EXPECT_EQ(perfmodel("analyze examples/triad.c -m hsw --no-incore -o " + Dir + "/r.txt").Code, 0);
  EXPECT_EQ(perfmodel("analyze examples/triad.c -m hsw --no-incore --format json -o " + Dir +
                      "/r.txt").Code,
            0);
  EXPECT_EQ(perfmodel("analyze examples/triad.c -m hsw --no-incore -o " + Dir + "/r.txt").Code, 0);
  EXPECT_EQ(slurp(Dir + "/r.txt").rfind("perfmodel analyze", 0), 0u);
  // choose bcsr replaces its own reports too (text over JSON, JSON over text).
  std::string Choose = "choose bcsr examples/matrices/laplace2d-30.mtx -m hsw --max-block 2x2 ";
  EXPECT_EQ(perfmodel(Choose + "-o " + Dir + "/r.txt").Code, 0);
  EXPECT_EQ(perfmodel(Choose + "--format json -o " + Dir + "/r.txt").Code, 0);
  EXPECT_EQ(perfmodel(Choose + "-o " + Dir + "/r.txt").Code, 0);
  EXPECT_EQ(slurp(Dir + "/r.txt").rfind("perfmodel choose bcsr", 0), 0u);
  EXPECT_EQ(perfmodel(Choose + "-o " + Dir + "/victim.c").Code, 1);
  EXPECT_EQ(perfmodel("analyze examples/triad.c -m hsw -o " + Dir).Code, 1);
  EXPECT_EQ(perfmodel("analyze examples/triad.c -m hsw -o /proc/none/x.txt").Code, 1);
}

TEST(Cli, ChooseExplainsTheCandidateItRanked) {
  // --explain prints the analyze report of one block size, simulated on its
  // own block structure even where its bound would prune it: the headline of
  // that report is the candidate's cycles per block in the ranking.
  CmdResult R = perfmodel("choose bcsr examples/matrices/laplace2d-30.mtx -m hsw --max-block 2x2 "
                          "--explain 2x1 --format json");
  ASSERT_EQ(R.Code, 0) << R.Err;
  auto V = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *O = V->getAsObject();
  std::optional<llvm::StringRef> Text = O->getString("explanation");
  ASSERT_TRUE(Text.has_value());
  EXPECT_NE(Text->find("in bcsr_2x1"), llvm::StringRef::npos) << Text->str();
  EXPECT_EQ(Text->find("in bcsr_1x1"), llvm::StringRef::npos);
  std::optional<double> Cy;
  for (const llvm::json::Value &C : *O->getArray("candidates")) {
    const llvm::json::Object *CO = C.getAsObject();
    if (CO->getInteger("r") == 2 && CO->getInteger("c") == 1) {
      EXPECT_EQ(CO->getBoolean("pruned"), false);
      Cy = CO->getNumber("cy_per_block");
    }
  }
  ASSERT_TRUE(Cy.has_value());
  // "headline: ECM 1.23 cy/it, ..." in the explanation.
  size_t H = Text->find("headline: ECM ");
  ASSERT_NE(H, llvm::StringRef::npos) << Text->str();
  double Headline = 0;
  ASSERT_FALSE(Text->substr(H + 14).split(' ').first.getAsDouble(Headline));
  EXPECT_NEAR(Headline, *Cy, 0.006 * *Cy);
  // Without JSON the report follows the ranking.
  CmdResult T = perfmodel("choose bcsr examples/matrices/laplace2d-30.mtx -m hsw --max-block 2x2 "
                          "--explain 1x2");
  ASSERT_EQ(T.Code, 0) << T.Err;
  EXPECT_NE(T.Out.find("--- 1x2 as analyze reports it"), std::string::npos);
  EXPECT_NE(T.Out.find("in bcsr_1x2"), std::string::npos);
}

TEST(Cli, OversizedSourceIsRefused) {
  std::string Big = "/tmp/perfmodel-cli-big.c";
  std::remove(Big.c_str());
  ASSERT_EQ(system(("truncate -s 65M " + Big).c_str()), 0); // sparse: no disk used
  CmdResult R = perfmodel("analyze " + Big + " -m hsw");
  EXPECT_EQ(R.Code, 1);
  EXPECT_NE(R.Err.find("65 MiB is more source than perfmodel analyses"), std::string::npos)
      << R.Err;
  std::remove(Big.c_str());
}

TEST(Cli, DefaultMachineIsNamed) {
  CmdResult R = perfmodel("analyze examples/triad.c");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_NE(R.Out.find("note: machine: "), std::string::npos);
}

struct BadRun {
  const char *Args;
  int Code;
  const char *Stream; // "out" or "err"
  const char *Says;
};

void PrintTo(const BadRun &B, std::ostream *OS) { *OS << B.Args; }

class CliBad : public ::testing::TestWithParam<BadRun> {};

TEST_P(CliBad, ClearMessageAndExitCode) {
  const BadRun &B = GetParam();
  CmdResult R = perfmodel(B.Args);
  EXPECT_EQ(R.Code, B.Code) << B.Args << "\n" << R.Err;
  const std::string &Text = std::string(B.Stream) == "out" ? R.Out : R.Err;
  EXPECT_NE(Text.find(B.Says), std::string::npos) << B.Args << "\n" << Text;
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, CliBad,
    ::testing::Values(
        BadRun{"analyze no-such-file.c -m hsw", 1, "err", "no-such-file.c: no such file"},
        BadRun{"analyze examples -m hsw", 1, "err", "is a directory"},
        BadRun{"analyze tests/bad-inputs/syntax-error.c -m hsw", 1, "err",
               "syntax-error.c:3:18: error: expected expression"},
        BadRun{"analyze tests/bad-inputs/syntax-error.cpp -m hsw", 1, "err",
               "syntax-error.cpp:4:16: error: no member named 'q'"},
        BadRun{"analyze tests/bad-inputs/hostile.cpp -m hsw", 0, "out",
               "not modelled: do-while loop"},
        BadRun{"analyze examples/unsupported.c -m hsw", 0, "out",
               "not modelled: call to 'printf' with unknown side effects"},
        BadRun{"analyze examples/triad.c -m no-such-machine", 1, "err",
               "machine 'no-such-machine' is neither a file nor a known model"},
        BadRun{"analyze examples/triad.c -m tests/bad-inputs/malformed.yml", 1, "err",
               "malformed.yml:3:10: error: malformed YAML"},
        BadRun{"analyze examples/triad.c -m hsw --set caches.L2.ways=7", 1, "err",
               "--set caches.L2.ways=7: error: caches.L2.ways: 7 ways"},
        BadRun{"analyze examples/triad.c -m hsw -D n=lots", 2, "err",
               "-D n=lots: 'lots' is not an integer"},
        BadRun{"analyze examples/triad.c --format xml", 2, "err", "format"},
        BadRun{"analyze examples/spmv-csr.c -m hsw --index col=examples/triad.c", 1,
               "err", "triad.c:1: '/*' is not an integer"},
        BadRun{"analyze examples/spmv-csr.c -m hsw --index col=x.mtx", 1, "err",
               "x.mtx: cannot read"},
        BadRun{"analyze examples/spmv-csr.c -m hsw --index col", 1, "err",
               "expected NAME=FILE.mtx"},
        BadRun{"analyze examples/spmv-csr.c -m hsw --cache sim", 0, "out",
               "simulator: not run: lower bound of 'j' depends on the contents of 'rowptr'"},
        BadRun{"incore tests/incore/loads-5.s -m hsw", 0, "out",
               "bottleneck: port-bound on HWPort2, HWPort3 (2.5 cy per iteration)"},
        BadRun{"incore --hex 'c5 fd 58 c1' --mcpu skylake-avx512", 0, "out",
               "recurrence 4"},
        BadRun{"incore --hex 06 -m hsw", 1, "err", "invalid instruction bytes at offset 0"},
        BadRun{"incore --hex 'c5 fd 5' -m hsw", 2, "err", "--hex: odd number of hex digits"},
        BadRun{"incore no-such.s -m hsw", 1, "err", "no-such.s: no such file"},
        BadRun{"incore tests/bad-inputs/syntax-error.c -m hsw", 1, "err", "clang-19 failed"},
        BadRun{"incore -m hsw < /dev/null", 1, "err", "<stdin>: no instructions"},
        BadRun{"incore tests/incore/loads-5.s --hex 'c5 fd 58 c1' -m hsw", 2, "err",
               "incore takes one of"},
        BadRun{"analyze -m hsw", 2, "err", "analyze needs a source file, - for standard input"},
        BadRun{"analyze - -m hsw --no-incore < tests/bad-inputs/syntax-error.c", 1, "err",
               "<stdin>"},
        BadRun{"incore tests/incore/loads-5.s --mcpu pentium9", 1, "err",
               "does not know CPU 'pentium9'"},
        BadRun{"machine check tests/bad-inputs/malformed.yml", 1, "err",
               "malformed.yml:3:10: error: malformed YAML"},
        BadRun{"machine check tests/bad-inputs/unknown-key.yml", 1, "err",
               "unknown-key.yml:9:3: error: core.isue_width: unknown key 'isue_width' "
               "(did you mean 'issue_width'?)"},
        BadRun{"choose bcsr examples/matrices/laplace2d-30.mtx -m hsw --max-block 2x2 --explain 3x1",
               2, "err", "--explain 3x1: expected a block RxC within --max-block 2x2"},
        BadRun{"machine check tests/bad-inputs/front-ends-bad-unroll.yml", 1, "err",
               "front-ends-bad-unroll.yml:24:21: error: cores.haswell.lsd_unroll.2: expected a "
               "whole number >= 1"},
        BadRun{"machine check hsw", 0, "out", "ok (Intel Xeon E5-2680 v3 (Haswell-EP))"},
        BadRun{"frobnicate", 2, "err", "frobnicate"}));

// Every case of tests/bad-inputs/cases.txt: the exit code and the message.
TEST(Cli, HostileInputCorpus) {
  std::ifstream In(Src + "/tests/bad-inputs/cases.txt");
  ASSERT_TRUE(In.good());
  unsigned Cases = 0;
  for (std::string Line; std::getline(In, Line);) {
    if (Line.empty() || Line[0] == '#')
      continue;
    size_t A = Line.find('|'), B = Line.find('|', A + 1), C = Line.find('|', B + 1);
    ASSERT_NE(C, std::string::npos) << Line;
    int Exit = std::stoi(Line.substr(0, A));
    std::string Stream = Line.substr(A + 1, B - A - 1), Says = Line.substr(B + 1, C - B - 1);
    CmdResult R = perfmodel(Line.substr(C + 1));
    EXPECT_EQ(R.Code, Exit) << Line << "\n" << R.Err;
    EXPECT_NE((Stream == "out" ? R.Out : R.Err).find(Says), std::string::npos)
        << Line << "\n" << R.Out << R.Err;
    ++Cases;
  }
  EXPECT_GE(Cases, 25u);
}

namespace {

/// The JSON object of loop LOOP (0-based) of `perfmodel analyze ARGS --format json`.
llvm::json::Object loopJson(const std::string &Args, size_t Loop) {
  CmdResult R = perfmodel("analyze " + Args + " --format json");
  EXPECT_EQ(R.Code, 0) << R.Err;
  auto V = llvm::json::parse(R.Out);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return {};
  }
  const llvm::json::Array *Loops = V->getAsObject()->getArray("loops");
  if (!Loops || Loops->size() <= Loop) {
    ADD_FAILURE() << "no loop " << Loop << "\n" << R.Out;
    return {};
  }
  return *(*Loops)[Loop].getAsObject();
}

/// The "ecm" object of that loop.
llvm::json::Object ecmOf(const std::string &Args, size_t Loop) {
  llvm::json::Object L = loopJson(Args, Loop);
  if (const llvm::json::Object *E = L.getObject("ecm"))
    return *E;
  ADD_FAILURE() << "no ecm for loop " << Loop;
  return {};
}

std::vector<double> nums(const llvm::json::Object &O, llvm::StringRef Key) {
  std::vector<double> V;
  if (const llvm::json::Array *A = O.getArray(Key))
    for (const llvm::json::Value &X : *A)
      V.push_back(X.getAsNumber().value_or(-1));
  return V;
}

/// The hand derivation of one loop's ECM: T_OL, T_nOL, the transfers
/// {L1L2, L2L3, L3Mem} and the predictions {L1, L2, L3, Mem} in cy/CL.
struct EcmByHand {
  double TOL, TnOL;
  std::vector<double> Transfers, Predictions;
  int SaturationCores;
};

void expectEcm(const llvm::json::Object &E, const EcmByHand &H) {
  EXPECT_NEAR(E.getNumber("t_ol").value_or(0), H.TOL, 1e-9);
  EXPECT_NEAR(E.getNumber("t_nol").value_or(0), H.TnOL, 1e-9);
  std::vector<double> T = nums(E, "transfers_cy_per_cl"), P = nums(E, "predictions_cy_per_cl");
  ASSERT_EQ(T.size(), H.Transfers.size());
  for (size_t I = 0; I < T.size(); ++I)
    EXPECT_NEAR(T[I], H.Transfers[I], I + 1 < T.size() ? 1e-4 : 1e-3) << "transfer " << I;
  ASSERT_EQ(P.size(), H.Predictions.size());
  for (size_t I = 0; I < P.size(); ++I)
    EXPECT_NEAR(P[I], H.Predictions[I], I + 1 < P.size() ? 1e-4 : 1e-3) << "prediction " << I;
  EXPECT_EQ(E.getInteger("saturation_cores"), H.SaturationCores);
}

} // namespace

// STREAM triad a[i] = b[i] + s * c[i] on Haswell-EP, by hand, per cache line
// of work (8 iterations, 2 AVX vectors per stream):
//   T_OL  = 2 FMAs on ports 0/1                            = 1 cy
//   T_nOL = 4 loads on ports 2/3 = 2 cy; 2 stores on port 4 = 2 cy -> 2 cy
//   lines per CL on every link: b, c, a (write-allocate) in, a evicted = 4
//   T_L1L2 = 4 x 64 B / 64 B/cy = 4; T_L2L3 = 4 x 64 / 32 = 8;
//   T_L3Mem = 256 B at one core's 34.56 GB/s (memory.sustained_one_core_gbs)
//           = 256 / (34.56 / 2.7 = 12.8 B/cy) = 20 cy
//   predictions (overlap none): 2 ] 2+4 = 6 ] 6+8 = 14 ] 14+20 = 34
//   saturation at the socket's 42.6 GB/s: 256 / 15.78 = 16.22 cy per CL,
//   n_s = ceil(34 / 16.22) = 3 cores.
TEST(Cli, EcmTriadByHand) {
  llvm::json::Object E = ecmOf("examples/triad.c -m hsw -D n=10000000", 0);
  EXPECT_EQ(E.getNumber("iterations_per_cl"), 8);
  double Mem = 256 / (34.56 / 2.7);
  expectEcm(E, {1, 2, {4, 8, Mem}, {2, 6, 14, 14 + Mem}, 3});
  EXPECT_EQ(E.getString("notation"),
            "{ 1 || 2 | 4 | 8 | 20 } cy/CL -> { 2 ] 6 ] 14 ] 34 } cy/CL");
}

// 2D 5-point stencil C[j][i] = c0*A[j][i] + c1*(A[j][i-1] + A[j][i+1] +
// A[j-1][i] + A[j+1][i]), N = 2048 doubles per row, on Haswell-EP, by hand per
// CL (8 points, 2 AVX vectors), the steady state of the vector body (--incore steady):
//   per vector 3 adds (port 1 only), 1 mul and 1 FMA (ports 0/1): the add
//   port carries 6 adds per CL, the pair 10 ops / 2 -> T_OL = 6 cy
//   T_nOL = 5 streams x 2 loads / 2 ports = 5 cy (2 stores: 2 cy)
//   layer conditions: 3 rows of A (48 KiB) miss L1 but fit L2:
//     L1L2: 3 A lines + C write-allocate + C eviction = 5 lines -> 5 cy
//     L2L3: 1 A line + 2 C lines = 3 lines x 64 / 32 -> 6 cy
//     L3Mem: 3 lines = 192 B at one core's 34.56 GB/s (12.8 B/cy) -> 15 cy
//   predictions: max(6, 5) = 6 ] 5+5 = 10 ] 16 ] 31; at the socket's 42.6 GB/s
//   (15.78 B/cy) a CL takes 12.17 cy from memory: n_s = ceil(31 / 12.17) = 3.
TEST(Cli, EcmStencilByHand) {
  llvm::json::Object E = ecmOf("examples/williams-fig9.2.c -m hsw -D n=1000000 --incore steady", 1);
  double Mem = 192 / (34.56 / 2.7);
  expectEcm(E, {6, 5, {5, 6, Mem}, {6, 10, 16, 16 + Mem}, 3});
}

namespace {

/// The B/A ratios of `compare` rows, per model name, for the first loop.
std::map<std::string, double> compareRatios(const std::string &Out) {
  std::map<std::string, double> R;
  std::istringstream In(Out);
  for (std::string Line; std::getline(In, Line);) {
    std::istringstream W(Line);
    std::string Model, ALevel, AValue, BLevel, BValue, Ratio;
    W >> Model >> ALevel >> AValue >> BLevel >> BValue >> Ratio;
    if ((Model == "Roofline" || Model == "ECM" || Model == "PPR") && !R.count(Model) &&
        !Ratio.empty() && Ratio.back() == 'x')
      R[Model] = std::stod(Ratio.substr(0, Ratio.size() - 1));
  }
  return R;
}

} // namespace

// Doubling the memory bandwidth speeds the triad in memory up by what each
// model's sum or maximum makes of a halved memory term, and leaves a loop
// whose data is in L1 alone. By hand (Haswell, 32 B/it, 2.5 -> 1.25 cy/it of
// memory transfer): Roofline 2.5 / 1.25 = 2; ECM { 1 || 2 | 4 | 8 | 20 } ->
// T_L3Mem 10: 34 / 24 = 1.417; PPR 0.25 + 1.875 -> 0.25 + 0.9375: 2.125 /
// 1.1875 = 1.789 (the ratios are printed with three digits).
TEST(Cli, CompareDoubledMemoryBandwidth) {
  // Both the socket's and one core's figure: a single-core loop sees the latter.
  std::string Machines = " -m hsw -m hsw --set memory.bandwidth_gbs=85.2 --set "
                         "memory.sustained_one_core_gbs=69.12";
  CmdResult Mem = perfmodel("compare examples/triad.c -D n=10000000" + Machines);
  ASSERT_EQ(Mem.Code, 0) << Mem.Err;
  auto R = compareRatios(Mem.Out);
  ASSERT_EQ(R.size(), 3u) << Mem.Out;
  EXPECT_NEAR(R["Roofline"], 2, 1e-9) << Mem.Out; // purely bandwidth-bound
  EXPECT_NEAR(R["ECM"], 34.0 / 24, 0.005) << Mem.Out;
  EXPECT_NEAR(R["PPR"], 2.125 / 1.1875, 0.005) << Mem.Out;
  EXPECT_NE(Mem.Out.find("--set memory.bandwidth_gbs=85.2"), std::string::npos);
  CmdResult L1 = perfmodel("compare examples/triad.c -D n=1000" + Machines);
  ASSERT_EQ(L1.Code, 0) << L1.Err;
  for (const auto &[Model, Ratio] : compareRatios(L1.Out))
    EXPECT_EQ(Ratio, 1) << Model << "\n" << L1.Out;
  // One machine is not a comparison.
  EXPECT_EQ(perfmodel("compare examples/triad.c -m hsw").Code, 2);
  // The socket's figure alone does not reach one core bounded by its own:
  // the Roofline does not move, and the report says which key to set.
  CmdResult Socket = perfmodel("compare examples/triad.c -D n=10000000 --no-incore -m hsw "
                               "-m hsw --set memory.bandwidth_gbs=85.2");
  ASSERT_EQ(Socket.Code, 0) << Socket.Err;
  EXPECT_NEAR(compareRatios(Socket.Out)["Roofline"], 1, 1e-9) << Socket.Out;
  EXPECT_NE(Socket.Out.find("note: memory: one core stays bounded by "
                            "memory.sustained_one_core_gbs = 34.6 GB/s"),
            std::string::npos)
      << Socket.Out;
}

// Four real machines side by side on the triad in memory (n = 1e8, 32 B/it
// with the write-allocate, 2 flop/it, one core). By hand, the Roofline bound
// is the slowest link a core sees:
//   hsw:  memory, one core 34.56 GB/s   -> 2/32 x 34.56       = 2.16 GFLOP/s
//   skx:  L3->L2 16 B/cy at 2.2 GHz     -> 2/32 x 35.2        = 2.2
//   zen4: L2->L1 32 B/cy at 2.4 GHz     -> 2/32 x 76.8        = 4.8
//   grace: L3->L2 32 B/cy at 3.1 GHz    -> 2/32 x 99.2        = 6.2
// and the ratios are of times at each machine's own clock.
TEST(Cli, CompareFourMachinesOnTriad) {
  CmdResult R = perfmodel(
      "compare examples/triad.c -D n=100000000 -m hsw -m skx -m zen4 -m grace");
  ASSERT_EQ(R.Code, 0) << R.Err;
  for (const char *Name : {"Haswell-EP", "Skylake-SP", "Zen 4", "Neoverse V2"})
    EXPECT_NE(R.Out.find(Name), std::string::npos) << Name;
  std::istringstream In(R.Out);
  std::vector<std::string> Roof;
  for (std::string Line; std::getline(In, Line);) {
    std::istringstream W(Line);
    std::string First;
    W >> First;
    if (First == "Roofline")
      for (std::string T; W >> T;)
        Roof.push_back(T);
    if (!Roof.empty())
      break;
  }
  ASSERT_GE(Roof.size(), 11u) << R.Out;
  // [level, GF] for A, then [level, GF, ratio] for B, C, D.
  EXPECT_EQ(Roof[0], "MEM");
  EXPECT_NEAR(std::stod(Roof[1]), 2.16, 0.01);
  EXPECT_NEAR(std::stod(Roof[3]), 2.2, 0.01);
  EXPECT_NEAR(std::stod(Roof[4]), 2.2 / 2.16, 0.002);
  // zen4: one core fills lines at 26.2 GB/s and writes them back at 171
  // (both measured on a Zen 4 guest), the two times adding: per iteration
  // 24 B filled (b, c and a's write-allocate) and 8 B written back,
  // 24 / 26.2 + 8 / 171 = 0.96281 ns for 2 flops = 2.077 GFLOP/s, below its
  // L3's 32 B/cy x 2/32 at any clock from 2.4 GHz (on a Zen 4 host zen4 is
  // the host's model and runs at the measured clock the header states; the
  // memory roof does not move).
  size_t C = R.Out.find("[C]"), Ghz = R.Out.find(" GHz", C), Comma = R.Out.rfind(", ", Ghz);
  ASSERT_TRUE(C != std::string::npos && Ghz != std::string::npos && Comma > C) << R.Out;
  double ZenClock = std::stod(R.Out.substr(Comma + 2, Ghz - Comma - 2));
  if (R.Out.find("measured on this host") == std::string::npos)
    EXPECT_DOUBLE_EQ(ZenClock, 2.4);
  double ZenMem = 2 / (24 / 26.2 + 8 / 171.0);
  EXPECT_GT(2 * ZenClock, ZenMem);
  EXPECT_NEAR(std::stod(Roof[6]), ZenMem, 0.01);
  EXPECT_NEAR(std::stod(Roof[9]), 6.2, 0.01);
  EXPECT_NEAR(std::stod(Roof[10]), 6.2 / 2.16, 0.01);
  // The AArch64 machine's kernel was compiled and costed (in-core at L1).
  CmdResult L1 = perfmodel("analyze examples/triad.c -m grace");
  ASSERT_EQ(L1.Code, 0) << L1.Err;
  EXPECT_NE(L1.Out.find("in-core (neoverse-v2, data in L1)"), std::string::npos) << L1.Out;
  EXPECT_NE(L1.Out.find("(4 source iterations per trip)"), std::string::npos) << L1.Out;
}

// `machine diff` shows what a hypothetical change amounts to: doubling the
// memory bandwidth halves the ridge point, 518.4 / 42.6 = 12.17 -> 6.085.
TEST(Cli, MachineListAndDiff) {
  CmdResult L = perfmodel("machine list");
  ASSERT_EQ(L.Code, 0) << L.Err;
  for (const char *Alias : {"hsw", "skx", "icx", "spr", "zen3", "zen4", "zen5", "graviton3",
                            "grace", "barcelona"})
    EXPECT_NE(L.Out.find(std::string("\n") + Alias + " "), std::string::npos) << Alias;
  CmdResult D = perfmodel("machine diff hsw hsw --set-b memory.bandwidth_gbs=85.2");
  ASSERT_EQ(D.Code, 0) << D.Err;
  EXPECT_NE(D.Out.find("3 field(s) differ"), std::string::npos) << D.Out;
  EXPECT_NE(D.Out.find("12.17"), std::string::npos) << D.Out;
  EXPECT_NE(D.Out.find("6.085"), std::string::npos) << D.Out;
  CmdResult Same = perfmodel("machine diff hsw haswell");
  EXPECT_NE(Same.Out.find("no differences"), std::string::npos) << Same.Out;
  EXPECT_EQ(perfmodel("machine diff hsw").Code, 2);
  EXPECT_EQ(perfmodel("machine diff hsw no-such-machine").Code, 1);
}

// The SVG chart is well-formed XML, rasterises, and draws what the Roofline
// computed: the stencil of Williams' Figure 9.2 with data in memory (AI 1/4,
// bound 42.6 GB/s x 1/4 = 10.65 GFLOP/s on Haswell) sits on the MEM-L3
// diagonal, at the x of the "1/4" tick.
TEST(Cli, RooflineChartSvgAndHtml) {
  char Dir[] = "/tmp/perfmodel-chart-XXXXXX";
  ASSERT_NE(mkdtemp(Dir), nullptr);
  std::string Svg = std::string(Dir) + "/r.svg", Png = std::string(Dir) + "/r.png",
              Html = std::string(Dir) + "/r.html";
  CmdResult R = perfmodel("analyze examples/williams-fig9.2.c -m hsw --format svg -o " + Svg);
  ASSERT_EQ(R.Code, 0) << R.Err;
  std::string S = slurp(Svg);
  EXPECT_EQ(std::system(("python3 -c 'import sys, xml.etree.ElementTree as E; "
                         "E.parse(sys.argv[1])' " + Svg).c_str()),
            0)
      << "not well-formed XML";
  ASSERT_EQ(std::system(("rsvg-convert " + Svg + " -o " + Png).c_str()), 0);
  std::string P = slurp(Png);
  EXPECT_EQ(P.substr(1, 3), "PNG");
  EXPECT_GT(P.size(), 10000u) << "a blank raster is far smaller";
  for (const char *Label : {"peak 43.2 GFLOP/s", "no SIMD 10.8 GFLOP/s", "MEM-L3 34.6 GB/s",
                            "[2] MEM", "[1] magnitude:21", "[3] dgemm:36"})
    EXPECT_NE(S.find(Label), std::string::npos) << Label;

  // The MEM-L3 roof: the last thick diagonal.
  std::regex LineRe("<line x1=\"([0-9.]+)\" y1=\"([0-9.]+)\" x2=\"([0-9.]+)\" y2=\"([0-9.]+)\" "
                    "stroke=\"(#[0-9A-F]+)\" stroke-width=\"2\" class=\"roof\"/>");
  std::smatch M;
  double X1 = 0, Y1 = 0, X2 = 0, Y2 = 0;
  std::string Colour;
  for (auto It = std::sregex_iterator(S.begin(), S.end(), LineRe); It != std::sregex_iterator();
       ++It) {
    X1 = std::stod((*It)[1]), Y1 = std::stod((*It)[2]);
    X2 = std::stod((*It)[3]), Y2 = std::stod((*It)[4]);
    Colour = (*It)[5];
  }
  ASSERT_FALSE(Colour.empty());
  std::regex PointRe("data in MEM: 8.64 GFLOP/s at 0.25 flop/B[^<]*</title><circle "
                     "cx=\"([0-9.]+)\" cy=\"([0-9.]+)\" r=\"4.5\" fill=\"(#[0-9A-F]+)\"");
  ASSERT_TRUE(std::regex_search(S, M, PointRe)) << S.substr(0, 2000);
  double CX = std::stod(M[1]), CY = std::stod(M[2]);
  EXPECT_EQ(M[3], Colour) << "the point takes its link's colour";
  double Cross = (X2 - X1) * (CY - Y1) - (Y2 - Y1) * (CX - X1);
  EXPECT_LT(std::fabs(Cross) / std::hypot(X2 - X1, Y2 - Y1), 1.0) << "off the MEM roof";
  std::regex TickRe("<text x=\"([0-9.]+)\" y=\"[0-9.]+\" text-anchor=\"middle\">1/4</text>");
  ASSERT_TRUE(std::regex_search(S, M, TickRe));
  EXPECT_NEAR(std::stod(M[1]), CX, 0.11);

  CmdResult H = perfmodel("analyze examples/williams-fig9.2.c -m hsw --format html -o " + Html);
  ASSERT_EQ(H.Code, 0) << H.Err;
  std::string T = slurp(Html);
  EXPECT_NE(T.find("<svg"), std::string::npos);
  EXPECT_EQ(T.find("<?xml"), std::string::npos) << "inline SVG has no XML declaration";
  EXPECT_NE(T.find("<th>Roofline GFLOP/s</th>"), std::string::npos);
  EXPECT_NE(T.find("stencil"), std::string::npos);
  // A second run may replace its own output, never a foreign file.
  EXPECT_EQ(perfmodel("analyze examples/triad.c -m hsw --format svg -o " + Svg).Code, 0);
  EXPECT_NE(perfmodel("analyze examples/triad.c -m hsw --format svg -o " + Png).Code, 0);
  std::system(("rm -rf " + std::string(Dir)).c_str());
}

// The triad swept over n on Haswell-EP: 24 B per iteration of working set,
// so n = 1000 (23.4 KiB) is in L1 (32 KiB), 4000 (93.8 KiB) in L2 (256 KiB),
// 16000 .. 1024000 (23.4 MiB) in L3 (30 MiB), 4096000 in memory. Roofline by
// hand, 32 B/it beyond L1 (write-allocate), 2 flop/it at 2.7 GHz:
// L2 64 B/cy -> 0.5 cy/it -> 10.8; L3 32 B/cy -> 5.4; memory 42.6 GB/s ->
// 2/32 x 34.56 (one core) = 2.16 GFLOP/s.
TEST(Cli, SweepCrossesTheCacheLevels) {
  CmdResult R = perfmodel("sweep examples/triad.c -m hsw -D n=1e3:5e6:x4");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_EQ(R.Err, "") << "no progress bar when stderr is not a terminal";
  std::map<long, std::pair<std::string, double>> Rows; // n -> level, Roofline
  std::istringstream In(R.Out);
  for (std::string Line; std::getline(In, Line);) {
    std::istringstream W(Line);
    long N;
    std::string Size, Unit, Level, Roof;
    if (W >> N >> Size >> Unit >> Level >> Roof)
      Rows[N] = {Level, std::stod(Roof)};
  }
  ASSERT_EQ(Rows.size(), 7u) << R.Out;
  EXPECT_EQ(Rows[1000].first, "L1");
  EXPECT_EQ(Rows[4000].first, "L2");
  EXPECT_NEAR(Rows[4000].second, 10.8, 0.01);
  EXPECT_EQ(Rows[16000].first, "L3");
  EXPECT_NEAR(Rows[16000].second, 5.4, 0.01);
  EXPECT_EQ(Rows[1024000].first, "L3");
  EXPECT_EQ(Rows[4096000].first, "MEM");
  EXPECT_NEAR(Rows[4096000].second, 2.16, 0.01);

  char Dir[] = "/tmp/perfmodel-sweep-XXXXXX";
  ASSERT_NE(mkdtemp(Dir), nullptr);
  std::string Svg = std::string(Dir) + "/s.svg";
  ASSERT_EQ(perfmodel("sweep examples/triad.c -m hsw -D n=1e3:5e6:x4 --format svg -o " + Svg)
                .Code,
            0);
  EXPECT_EQ(std::system(("rsvg-convert " + Svg + " -o " + Svg + ".png").c_str()), 0);
  std::string S = slurp(Svg);
  EXPECT_EQ(std::count(S.begin(), S.end(), '\n') > 10, true);
  EXPECT_NE(S.find("class=\"model\""), std::string::npos);
  EXPECT_NE(S.find("L3 30 MiB"), std::string::npos);
  std::system(("rm -rf " + std::string(Dir)).c_str());

  // Bad ranges are usage errors that say what is expected.
  for (const char *Bad : {"-D n=1e3:1e8", "-D n=5e3:1e3:x2", "-D n=1e3:1e8:x1",
                          "-D n=1e3:1e9:+1", "-D q=1:10:x2", ""}) {
    CmdResult B = perfmodel(std::string("sweep examples/triad.c -m hsw ") + Bad);
    EXPECT_EQ(B.Code, 2) << Bad << ": " << B.Err;
    EXPECT_NE(B.Err.find("error:"), std::string::npos) << Bad;
  }
}


// A copy (fill) loop the compiler replaces with memcpy (memset) runs the C
// library's code: where the machine file states that function's measured
// rate, the Roofline and ECM predict the loop's written bytes at it. By hand:
// 8 B written per iteration; memcpy at 16 B/cy with the data in L2 (n =
// 8191: 128 KiB in Zen 3's 512 KiB L2, 32 pages over its 16 page colours
// of 8 pages, which keeps all but 0.01 % of them) is 0.5 cy/it; at n =
// 16383, 64 pages, 4 % of the lines would fall to L3 (a colour of more than
// 8 pages; keptShare). memset in memory at
// 10 GB/s and 2 GHz (n = 2^25: 256 MiB) is 8 x 2 / 10 = 1.6 cy/it. Without
// the keys the models cost their own bounds, and a rate for memory in the
// core's map is refused.
TEST(Cli, LibraryCopyAndFillLoopsAtTheirMeasuredRate) {
  const std::string Base = "analyze tests/validate/fill.c -m zen3 --set clock_ghz=2 ";
  CmdResult Copy = perfmodel(Base + "-D n=8191 --set core.memcpy_bytes_per_cy.L2=16");
  ASSERT_EQ(Copy.Code, 0) << Copy.Err << Copy.Out;
  EXPECT_NE(Copy.Out.find("headline: ECM 0.5 cy/it with data in L2; bound by the C library's "
                          "memcpy (16 B/cy with its data in L2, measured)"),
            std::string::npos)
      << Copy.Out;
  CmdResult Fill = perfmodel(Base + "-D n=33554432 --set memory.memset_one_core_gbs=10");
  ASSERT_EQ(Fill.Code, 0) << Fill.Err << Fill.Out;
  EXPECT_NE(Fill.Out.find("headline: ECM 1.6 cy/it with data in MEM; bound by the C library's "
                          "memset"),
            std::string::npos)
      << Fill.Out;
  // The library's zen3 states glibc 2.36's memcpy at 13.1 B/cy in L2:
  // 8 / 13.1 = 0.611 cy/it.
  CmdResult File = perfmodel(Base + "-D n=8191");
  ASSERT_EQ(File.Code, 0) << File.Err << File.Out;
  EXPECT_NE(File.Out.find("headline: ECM 0.611 cy/it with data in L2"), std::string::npos)
      << File.Out;
  // zen4 states no rate: its models' own bounds, not the library's.
  CmdResult Own = perfmodel("analyze tests/validate/fill.c -m zen4 --set clock_ghz=2 -D n=16383");
  ASSERT_EQ(Own.Code, 0) << Own.Err << Own.Out;
  EXPECT_NE(Own.Out.find("headline: ECM"), std::string::npos) << Own.Out;
  EXPECT_EQ(Own.Out.find("bound by the C library's"), std::string::npos) << Own.Out;
  CmdResult Bad = perfmodel(Base + "-D n=16383 --set core.memcpy_bytes_per_cy.MEM=3");
  EXPECT_NE(Bad.Code, 0) << Bad.Out;
  EXPECT_NE(Bad.Err.find("memory.memcpy_one_core_gbs"), std::string::npos) << Bad.Err;
}









TEST(Cli, ValidateFailsCleanly) {
  CmdResult Link = perfmodel("validate tests/validate/unlinkable.c --levels L1");
  EXPECT_EQ(Link.Code, 1) << Link.Out;
  EXPECT_NE(Link.Out.find("cannot build the timing harness"), std::string::npos) << Link.Out;
  EXPECT_NE(Link.Err.find("could be validated"), std::string::npos) << Link.Err;
  CmdResult Struct = perfmodel("validate tests/validate/struct-arg.c --levels L1");
  EXPECT_EQ(Struct.Code, 1);
  EXPECT_NE(Struct.Out.find("cannot be synthesised"), std::string::npos) << Struct.Out;
  EXPECT_EQ(perfmodel("validate examples/triad.c -m grace").Code, 1);
}

// One core cannot draw the socket's bandwidth: with one core's sustained
// memory bandwidth at a quarter of the socket's (10.65 of 42.6 GB/s, where
// the file says 34.56), the triad in memory is 34.56 / 10.65 times slower in
// the Roofline on one core, and on 4 cores min(4 x 10.65, 42.6) = 42.6 GB/s
// gives the socket's bound again.
TEST(Cli, OneCoreMemoryBandwidthBoundsOneCore) {
  std::string Machines = " -m hsw -m hsw --set memory.sustained_one_core_gbs=10.65";
  CmdResult One = perfmodel("compare examples/triad.c -D n=10000000 --no-incore" + Machines);
  ASSERT_EQ(One.Code, 0) << One.Err;
  EXPECT_NEAR(compareRatios(One.Out)["Roofline"], 10.65 / 34.56, 1e-3) << One.Out;
  CmdResult Four =
      perfmodel("compare examples/triad.c -D n=10000000 --no-incore --cores 4" + Machines);
  ASSERT_EQ(Four.Code, 0) << Four.Err;
  EXPECT_NEAR(compareRatios(Four.Out)["Roofline"], 1, 1e-9) << Four.Out;
  // Above the socket's figure it is an error naming the key.
  CmdResult Bad = perfmodel("machine show hsw --set memory.sustained_one_core_gbs=50");
  EXPECT_EQ(Bad.Code, 1);
  EXPECT_NE(Bad.Err.find("memory.sustained_one_core_gbs"), std::string::npos) << Bad.Err;
}

namespace {

/// The "incore" object of loop 0 of `perfmodel analyze ARGS --format json -- FLAGS`.
llvm::json::Object incoreOf(const std::string &Args, const std::string &Flags) {
  CmdResult R = perfmodel("analyze " + Args + " --format json -- " + Flags);
  EXPECT_EQ(R.Code, 0) << R.Err;
  auto V = llvm::json::parse(R.Out);
  if (!V) {
    llvm::consumeError(V.takeError());
    return {};
  }
  const llvm::json::Array *Loops = V->getAsObject()->getArray("loops");
  if (!Loops || Loops->empty() || !(*Loops)[0].getAsObject()->getObject("incore"))
    return {};
  return *(*Loops)[0].getAsObject()->getObject("incore");
}

} // namespace

// The PPR paper's convolutions (examples/ppr-conv1d) on Haswell, by hand from
// the code clang-19 emits (bench/RESULTS.md explains the paper's counts):
//   scalar: per output 16 FMAs on 2 FMA ports = 8 cy, but 17 loads (15 taps
//     in registers, one reloaded, 16 inputs) on 2 load ports = 8.5 cy; the tap
//     loop is unrolled into the loop over outputs: 1 output per trip.
//   AVX (aligned and unaligned): per block of 16 outputs 32 FMAs on 2 ports =
//     16 cy, the paper's compute figure; the loads do not exceed it.
// Those are the ports' bounds. The cycles are more: each output's 16 taps
// are one chain of FMAs (5 cy each on Haswell, 80 cy), and hiding it behind
// other outputs needs 80 / 8.5 outputs in flight, about 230 uops for the
// scalar loop's 24, more than Haswell's 192-entry reorder buffer: the
// window binds (BlockVerdict's rule) and the list schedule is the cycles.
// llvm-mca-19 -mcpu=haswell, which simulates that window, says 15.8 cy for
// the scalar loop (4748 cycles for 300 iterations of clang-19's loop), where
// the bounds say 8.5.
// These are the machine loop's steady state (--incore steady); as executed,
// each call also runs the function's code around the loop once.
TEST(Cli, PprConvolutionsInCore) {
  llvm::json::Object N =
      incoreOf("examples/ppr-conv1d/conv1d_naive.c -m hsw -D length=2048 --incore steady",
               "-O3 -fno-vectorize -fno-slp-vectorize");
  EXPECT_NEAR(N.getObject("bounds")->getNumber("ports").value_or(0), 8.5, 1e-9);
  EXPECT_NEAR(N.getNumber("t_ol").value_or(0), 8, 1e-9);   // 16 FMAs / 2 ports
  EXPECT_NEAR(N.getNumber("t_nol").value_or(0), 8.5, 1e-9); // 17 loads / 2 ports
  EXPECT_EQ(N.getNumber("source_iterations_per_trip"), 1);
  EXPECT_EQ(N.getString("bottleneck").value_or(""), "latency");
  EXPECT_GT(N.getNumber("cy_per_it").value_or(0), 8.5 * 1.2);
  EXPECT_LE(N.getNumber("cy_per_it").value_or(0), 15.8);
  // The cycles are the body's list schedule, which the report gives.
  EXPECT_NEAR(N.getNumber("cy_per_it").value_or(0),
              N.getObject("bounds")->getNumber("list_schedule").value_or(0), 1e-9);
  for (const char *V : {"avx_unaligned", "avx_aligned"}) {
    std::string File = std::string("examples/ppr-conv1d/conv1d_") + V +
                       ".c -m hsw -D length=2048 -D stride=2112";
    llvm::json::Object A = incoreOf(File + " --incore steady", "-O3 -mavx2 -mfma");
    EXPECT_NEAR(A.getObject("bounds")->getNumber("ports").value_or(0), 16, 1e-9) << V;
    EXPECT_NEAR(A.getNumber("t_ol").value_or(0), 16, 1e-9) << V; // 32 FMAs / 2 ports
    double Steady = A.getNumber("cy_per_it").value_or(0);
    EXPECT_EQ(A.getString("bottleneck").value_or(""), "latency") << V;
    EXPECT_GT(Steady, 16 * 1.2) << V;
    // As executed: 128 blocks per call, the call's own code on top (hidden
    // beside a body the window binds: its ports have room).
    llvm::json::Object E = incoreOf(File, "-O3 -mavx2 -mfma");
    const llvm::json::Object *Nest = E.getObject("nest");
    ASSERT_TRUE(Nest && Nest->getBoolean("per_call").value_or(false)) << V;
    // (length - 32) / 16 = 126 blocks per call.
    EXPECT_EQ(Nest->getNumber("iterations_per_outer_iteration"), 126) << V;
    EXPECT_GE(E.getNumber("cy_per_it").value_or(0), Steady) << V;
    EXPECT_LT(E.getNumber("cy_per_it").value_or(0), Steady * 1.05) << V;
  }
}

// dot<double>'s only call is discarded, so clang emits no loop for it: the
// in-core model says so, and PPR (which needs that schedule) gives the same
// reason instead of suggesting to drop a --no-incore nobody passed.
TEST(Cli, PprNamesWhyTheInCoreScheduleIsMissing) {
  CmdResult R = perfmodel("analyze examples/template.cpp -m zen4 --format json");
  ASSERT_EQ(R.Code, 0) << R.Err;
  auto V = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Array *Loops = V->getAsObject()->getArray("loops");
  ASSERT_TRUE(Loops && Loops->size() == 3);
  const llvm::json::Object &Dot = *(*Loops)[2].getAsObject();
  std::string InCore = Dot.getObject("incore")->getString("reason").value_or("").str();
  EXPECT_NE(InCore.find("no machine loop found for lines 13-14"), std::string::npos) << InCore;
  EXPECT_EQ(Dot.getObject("ppr")->getString("reason").value_or(""),
            "PPR needs the in-core schedule of the machine loop: " + InCore);
  R = perfmodel("analyze examples/template.cpp -m zen4 --no-incore --format json");
  EXPECT_NE(R.Out.find("PPR needs the in-core schedule of the machine loop (run without "
                       "--no-incore)"),
            std::string::npos);
}

// A loop that calls exp every iteration (tests/nest/calls.c): the machine
// loop is a load, the call, a store and the counter, 1 cy on the ports.
// Haswell's file has no call costs: the prediction says it is a lower bound
// and names the callee, and the in-core note says how clang calls libmvec's
// vector exp instead (with those flags the body calls _ZGVdN4v_exp four times
// a trip of 16 iterations). Zen 4's file costs exp at 16 cy a call (probe,
// core.call_cy): by hand 1 + 16 = 17 cy/it, bound by the calls (a harness
// timed this loop at 18.97 cy/it on the Zen 4 VM).
TEST(Cli, CallsInTheLoopAreCostedOrMakeThePredictionALowerBound) {
  auto Loop = [](const std::string &Args) {
    CmdResult R = perfmodel("analyze tests/nest/calls.c --format json " + Args);
    EXPECT_EQ(R.Code, 0) << R.Err;
    auto V = llvm::json::parse(R.Out);
    if (!V) {
      llvm::consumeError(V.takeError());
      return llvm::json::Object();
    }
    return *(*V->getAsObject()->getArray("loops"))[0].getAsObject();
  };
  llvm::json::Object L = Loop("-m hsw -- -O3 -march=haswell");
  const llvm::json::Object *P = L.getObject("prediction");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->getBoolean("lower_bound"), true);
  ASSERT_TRUE(P->getArray("uncosted_calls"));
  EXPECT_EQ((*P->getArray("uncosted_calls"))[0].getAsString().value_or(""), "exp");
  std::string Notes;
  for (const llvm::json::Value &N : *L.getObject("incore")->getArray("notes"))
    Notes += N.getAsString().value_or("").str() + "\n";
  EXPECT_NE(Notes.find("the loop calls exp every iteration"), std::string::npos) << Notes;
  EXPECT_NE(Notes.find("-fno-math-errno -fveclib=libmvec"), std::string::npos) << Notes;
  L = Loop("-m hsw -- -O3 -march=haswell -fno-math-errno -fveclib=libmvec");
  P = L.getObject("prediction");
  ASSERT_TRUE(P && P->getArray("uncosted_calls"));
  EXPECT_EQ(P->getArray("uncosted_calls")->size(), 4u);
  EXPECT_EQ(L.getObject("incore")->getNumber("source_iterations_per_trip"), 16);

  L = Loop("-m zen4");
  P = L.getObject("prediction");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->getBoolean("lower_bound"), false);
  const llvm::json::Object *I = L.getObject("incore");
  EXPECT_EQ(I->getString("bottleneck").value_or(""), "calls");
  EXPECT_NEAR(I->getObject("nest")->getNumber("steady_cy_per_it").value_or(0), 1 + 16.0, 0.01);
  EXPECT_NEAR(P->getNumber("cy_per_it").value_or(0), 17, 0.1);
  // Without the compiled loop (--no-incore, as the plugin): the source's
  // exp call, 16 cy, beside the flop mix: T_OL 8 x 16 = 128 cy/CL.
  L = Loop("-m zen4 --no-incore");
  EXPECT_NEAR(L.getObject("ecm")->getNumber("t_ol").value_or(0), 128, 1e-6);
  EXPECT_NEAR(L.getObject("prediction")->getNumber("cy_per_it").value_or(0), 16, 1e-6);
  EXPECT_NEAR(L.getObject("roofline")->getNumber("incore_cy_per_it").value_or(0), 16, 1e-6);
  // LCALS's PLANCKIAN (tests/nest/calls-divide.c): two vdivsd beside the
  // exp call. Zen 4's file puts each on the divider (Zn4FP1) for 5 cy: the
  // loop's own 10 cy. exp leaves the divider alone, so they run beside the
  // call; what adds to its 16 cy is the rest of the loop's work, the
  // busiest being the load-store pipes: 9 accesses on 3 (5 loads, 3
  // stores, the counter's compare with memory): 16 + 3 = 19 cy/it, where
  // adding all gave 26 (timed on the Zen 4 VM, 1,024 elements in L1: 19-20;
  // exp alone 18.5).
  CmdResult D = perfmodel("analyze tests/nest/calls-divide.c --format json -m zen4");
  auto DV = llvm::json::parse(D.Out);
  ASSERT_TRUE(bool(DV)) << D.Err;
  const llvm::json::Object *DL = (*DV->getAsObject()->getArray("loops"))[0].getAsObject();
  EXPECT_NEAR(DL->getObject("prediction")->getNumber("cy_per_it").value_or(0), 16 + 3, 0.05);
  EXPECT_NE(D.Out.find("run on the divider while the calls run"), std::string::npos);
  // A loop without calls is no lower bound.
  CmdResult T = perfmodel("analyze examples/triad.c -m zen4 --format json");
  EXPECT_NE(T.Out.find("\"lower_bound\": false"), std::string::npos);
}

// A port-bound body with a short trip: triad on zen4 at n = 100 runs 3 trips
// of the 32-iteration body (11.9 cy each: 761.6 L1 load bytes at 64 B/cy,
// 0.357 cy/it), 4 scalar remainder iterations and the call's code. The body
// binds (0.357 of 0.398 cy/it); the rest is the remainder and the code around
// the loop, which the advice states. It is not chains left unoverlapped
// (the bottleneck read "latency" while the nest exceeded the ports by 2 %).
TEST(Cli, AShortTripOfAPortBoundBodyStaysPortBound) {
  llvm::json::Object I = incoreOf("examples/triad.c -m zen4 -D n=100", "-O3 -march=znver4");
  EXPECT_EQ(I.getString("bottleneck").value_or(""), "ports");
  const llvm::json::Object *Nest = I.getObject("nest");
  ASSERT_TRUE(Nest);
  EXPECT_NEAR(Nest->getNumber("body").value_or(0), 3 * 761.6 / 64 / 100, 1e-3);
  EXPECT_NE(I.getString("advice").value_or("").find("the remainder loops and the code around "
                                                    "the loop add 10 %"),
            llvm::StringRef::npos)
      << I.getString("advice").value_or("").str();
}

// The PPR paper's predictions (Tables 4-6) from the sources of its three
// convolutions and the Haswell file, counting the source as written as the
// paper does (--incore source). Per block of 16 outputs (512 flops):
//   scalar:    S_DAG 128 / 128 cy; regular data 2 lines (16 inputs, 16 outputs
//              write-allocated) at 1 cy (L2, 64 B/cy), 2 cy (L3, 32 B/cy),
//              5 cy (memory, one core 34.56 GB/s) a line: 128 / 130 / 132 / 138 cy;
//   unaligned: S_DAG 16 / 32 cy (32 unaligned loads at 2 slots on 2 ports),
//              the same 2 lines: 32 / 34 / 36 / 42 cy;
//   aligned:   S_DAG 16 / 16 cy; 8 shifted copies of the input are 8 lines and
//              the output one more: 16 / 25 / 34 / 61 cy. The paper counts 8
//              lines ("the data grows 4x": its 2 lines x 4), so here L2, L3 and
//              memory are 4-8 % below its 57.60 / 43.20 / 24.69 (and within
//              0.1 %, 6 %, 9 % of its measured 55.27 / 43.15 / 20.86).
// GFLOP/s = 512 x 2.7 / cy. Each level is analysed with the data in it.
TEST(Cli, PprPaperConvolutionsFromTheSource) {
  struct Case {
    const char *Variant;
    long Sizes[4];
    double Expect[4];
    double Tolerance[4]; // relative
  };
  const double Paper = 0.02;
  Case Cases[] = {
      {"naive", {2048, 16384, 1048576, 16777216}, {10.80, 10.63, 10.47, 10.02},
       {Paper, Paper, Paper, Paper}},
      {"avx_unaligned", {2048, 16384, 1048576, 16777216}, {43.20, 40.66, 38.40, 32.91},
       {Paper, Paper, Paper, Paper}},
      {"avx_aligned", {512, 4096, 131072, 4194304},
       {86.40, 512 * 2.7 / 25, 512 * 2.7 / 34, 512 * 2.7 / 61}, {Paper, 1e-3, 1e-3, 1e-3}},
  };
  const char *Levels[] = {"L1", "L2", "L3", "MEM"};
  for (const Case &C : Cases)
    for (int L = 0; L < 4; ++L) {
      std::string Flags = std::string(C.Variant) == "naive"
                              ? "-O3 -fno-vectorize -fno-slp-vectorize"
                              : "-O3 -mavx2 -mfma";
      CmdResult R = perfmodel(std::string("analyze examples/ppr-conv1d/conv1d_") + C.Variant +
                              ".c -m hsw --incore source --format json -D length=" +
                              std::to_string(C.Sizes[L]) +
                              " -D stride=" + std::to_string(C.Sizes[L] + 64) + " -- " + Flags);
      ASSERT_EQ(R.Code, 0) << R.Err;
      auto V = llvm::json::parse(R.Out);
      ASSERT_TRUE(bool(V));
      const llvm::json::Object &Loop =
          *(*V->getAsObject()->getArray("loops"))[0].getAsObject();
      EXPECT_EQ(*Loop.getObject("incore")->getString("basis"), "source");
      std::set<std::string> Models;
      for (const llvm::json::Value &P : *Loop.getArray("predictions")) {
        const llvm::json::Object &O = *P.getAsObject();
        if (!O.getBoolean("ok").value_or(false))
          continue;
        std::string Model = O.getString("model")->str();
        Models.insert(Model);
        EXPECT_EQ(*O.getString("data_level"), Levels[L]) << C.Variant << " " << C.Sizes[L];
        if (Model != "PPR")
          continue;
        for (const llvm::json::Value &X : *O.getArray("levels"))
          if (*X.getAsObject()->getString("level") == Levels[L]) {
            double G = X.getAsObject()->getNumber("gflops").value_or(0);
            EXPECT_NEAR(G, C.Expect[L], C.Tolerance[L] * C.Expect[L])
                << C.Variant << " data in " << Levels[L];
          }
      }
      EXPECT_EQ(Models, (std::set<std::string>{"ECM", "PPR", "Roofline"})) << C.Variant;
    }
}

// A hypothetical Haswell whose unaligned vector loads cost what aligned ones
// do, counted from the source: the unaligned convolution's 32 loads per
// block then take 16 cycles instead of 32, the FMA pipes' 16 bind, and every
// model doubles in L1 (512 flop x 2.7 GHz / 16 cy = 86.4 GFLOP/s).
TEST(Cli, CompareUnalignedLoadCostFromTheSource) {
  CmdResult R = perfmodel("compare examples/ppr-conv1d/conv1d_avx_unaligned.c -m hsw -m hsw "
                          "--set core.unaligned_vector_cost=1 --incore source -D length=2048 "
                          "-- -O3 -mavx2 -mfma");
  ASSERT_EQ(R.Code, 0) << R.Err;
  auto Ratios = compareRatios(R.Out);
  ASSERT_EQ(Ratios.size(), 3u) << R.Out;
  for (const auto &[Model, Ratio] : Ratios)
    EXPECT_NEAR(Ratio, 2, 1e-9) << Model << "\n" << R.Out;
  EXPECT_NE(R.Out.find("PPR: B moves the bottleneck from load/store instructions (S_DAG(L,S)) "
                       "to compute instructions"),
            std::string::npos)
      << R.Out;
}

TEST(Cli, ChooseVariantsNamesTheCrossoverAndWritesJson) {
  // tests/choose/trip-counts.c: 2n iterations against n + 1000 of the same
  // body, so the fastest changes right after n = 1000 (by hand there).
  std::string Args = "choose tests/choose/trip-counts.c -m hsw --variant twice_n "
                     "--variant n_plus -D n=100:10000:x10";
  CmdResult R = perfmodel(Args);
  ASSERT_EQ(R.Code, 0) << R.Err;
  std::smatch M;
  ASSERT_TRUE(std::regex_search(
      R.Out, M, std::regex("chosen: twice_n up to n = (\\d+); n_plus from (\\d+)\n")))
      << R.Out;
  EXPECT_GE(std::stol(M[1]), 1000);
  EXPECT_LE(std::stol(M[2]), 1011);
  R = perfmodel(Args + " --format json");
  ASSERT_EQ(R.Code, 0) << R.Err;
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *O = V->getAsObject();
  ASSERT_NE(O, nullptr);
  EXPECT_EQ(O->getString("schema").value_or(""), "perfmodel-choose-variants");
  EXPECT_EQ(O->getString("param").value_or(""), "n");
  ASSERT_NE(O->getArray("points"), nullptr);
  EXPECT_EQ(O->getArray("points")->size(), 3u);
  ASSERT_NE(O->getArray("crossovers"), nullptr);
  EXPECT_EQ(O->getArray("crossovers")->size(), 1u);
  // Standard input, as analyze reads it.
  R = perfmodel("choose - -m hsw --variant twice_n --variant n_plus -D n=100:10000:x10 "
                "< tests/choose/trip-counts.c");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_EQ(R.Out.rfind("perfmodel choose <stdin>\n", 0), 0u) << R.Out;
  EXPECT_NE(R.Out.find("chosen: twice_n up to n = "), std::string::npos) << R.Out;
  // What cannot be ranked fails with a message, not a crash.
  R = perfmodel("choose tests/choose/trip-counts.c -m hsw --variant twice_n");
  EXPECT_EQ(R.Code, 2);
  EXPECT_NE(R.Err.find("needs two or more --variant"), std::string::npos) << R.Err;
  R = perfmodel("choose tests/choose/trip-counts.c -m hsw --variant twice_n --variant nope");
  EXPECT_EQ(R.Code, 1);
  EXPECT_NE(R.Err.find("no function 'nope' with loops"), std::string::npos) << R.Err;
  R = perfmodel("choose -m hsw --variant a --variant b");
  EXPECT_EQ(R.Code, 2);
  EXPECT_NE(R.Err.find("choose needs a source file"), std::string::npos) << R.Err;
}


TEST(Cli, AssumedAlignmentIsStatedAndMovesTheInCoreCost) {
  // tests/nest/align.c, scale16 on Haswell with split costs 2: 5 cy per trip
  // of 16 at the allocator's 16 bytes (InCore test derives it), 4 at 64.
  std::string Cmd = "analyze tests/nest/align.c -m hsw --model roofline --set "
                    "core.line_split_store_cost=2 --set core.line_split_load_cost=2 -D n=1000 "
                    "--incore steady";
  CmdResult A16 = perfmodel(Cmd);
  ASSERT_EQ(A16.Code, 0) << A16.Err;
  EXPECT_NE(A16.Out.find("alignment: a, b at 16 B (assumed; --assume-align); 25 % of the "
                         "32-byte loads and 25 % of the stores cross a cache line (2 and 2 "
                         "slots each)"),
            std::string::npos)
      << A16.Out;
  EXPECT_NE(A16.Out.find("5 cy per machine iteration = 0.312 cy/it"), std::string::npos)
      << A16.Out;
  // scale64's pointers come from __builtin_assume_aligned.
  EXPECT_NE(A16.Out.find("alignment: a, b at 64 B (declared); 0 % of the 32-byte loads"),
            std::string::npos)
      << A16.Out;
  CmdResult A64 = perfmodel(Cmd + " --assume-align 64");
  ASSERT_EQ(A64.Code, 0) << A64.Err;
  EXPECT_EQ(A64.Out.find("5 cy per machine iteration"), std::string::npos) << A64.Out;
  EXPECT_NE(A64.Out.find("4 cy per machine iteration = 0.25 cy/it"), std::string::npos)
      << A64.Out;
  CmdResult Bad = perfmodel(Cmd + " --assume-align 24");
  EXPECT_EQ(Bad.Code, 2) << Bad.Out;
  EXPECT_NE(Bad.Err.find("--assume-align"), std::string::npos) << Bad.Err;
}

namespace {

/// ECM's cycles per iteration for data in each level (L1, L2, L3, MEM).
std::vector<double> ecmCyPerIt(const std::string &Args, size_t Loop) {
  llvm::json::Object E = ecmOf(Args, Loop);
  std::vector<double> P = nums(E, "predictions_cy_per_cl");
  double PerCL = E.getNumber("iterations_per_cl").value_or(1);
  for (double &V : P)
    V /= PerCL;
  return P;
}

} // namespace


// The first-level data TLB on the zen3 file (64 entries, fully associative;
// 0.5 cy of the pipes per store that misses it, 1.0 per load; the last
// level's 2176 entries), by hand:
// - transpose at n = 271: b's column steps 271 x 8 = 2168 B, so a column of
//   271 stores spans 270 x 2168 / 4096 + 1 = 143.9 pages (143.4 on average
//   over the columns' offsets): more than 64, fewer than 2176. Every i brings
//   them back into the first level: 143.4 / 271 = 0.5291 misses per
//   iteration, less the first touches (271^2 x 8 B / 4 KiB over 271^2
//   iterations = 1/512): 0.5272 store misses, none of a's (its row stays on
//   one page for 512 iterations). The loop is bound by Zen 3's one FP store
//   a cycle (1 cy/it on the ports), so the misses add: 1 + 0.5272 x 0.5 =
//   1.2636 cy/it in core, at every level (no walks beyond the 2176 entries);
//   without the first level's costs, 1.
// - matmul ijk at n = 332: b's column steps 2656 B, 332 loads span 215.3
//   pages: 215.3 / 332 = 0.6485 load misses per iteration; the loop waits
//   on its FMA chain (one 3-4 cy FMA per iteration, 3.5 by the schedule),
//   far above its port cycles (about 1) plus 0.65: the prediction does not
//   move.
TEST(Cli, FirstLevelTlbMissesAddToAPortBoundLoopOnly) {
  std::string Zen3 = "tests/nest/tlb_l1.c -m zen3 --set clock_ghz=3 --model ecm ";
  std::string NoL1 = "--set tlb.l1_load_miss_cy=0 --set tlb.l1_store_miss_cy=0 ";
  llvm::json::Object T = loopJson(Zen3 + "-D n=271", 0);
  const llvm::json::Object *Tlb = T.getObject("tlb");
  ASSERT_TRUE(Tlb) << "no tlb";
  EXPECT_NEAR(Tlb->getNumber("l1_store_misses_per_it").value_or(-1), 0.5272, 0.002);
  EXPECT_NEAR(Tlb->getNumber("l1_load_misses_per_it").value_or(-1), 0, 1e-9);
  EXPECT_NEAR(Tlb->getNumber("l1_cycles_per_it").value_or(-1), 0.5272 * 0.5, 0.001);
  EXPECT_NEAR(Tlb->getNumber("store_misses_per_it").value_or(-1), 0, 1e-9) << "no walks";
  std::vector<double> With = ecmCyPerIt(Zen3 + "-D n=271", 0);
  std::vector<double> Without = ecmCyPerIt(Zen3 + NoL1 + "-D n=271", 0);
  ASSERT_EQ(With.size(), 4u);
  ASSERT_EQ(Without.size(), 4u);
  EXPECT_NEAR(Without[0], 1, 0.01);
  EXPECT_NEAR(With[0], 1.2636, 0.01);

  llvm::json::Object M = loopJson(Zen3 + "-D n=332", 1);
  const llvm::json::Object *MTlb = M.getObject("tlb");
  ASSERT_TRUE(MTlb) << "no tlb";
  EXPECT_NEAR(MTlb->getNumber("l1_load_misses_per_it").value_or(-1), 0.6485, 0.003);
  std::vector<double> MWith = ecmCyPerIt(Zen3 + "-D n=332", 1);
  std::vector<double> MWithout = ecmCyPerIt(Zen3 + NoL1 + "-D n=332", 1);
  ASSERT_EQ(MWith.size(), 4u);
  ASSERT_EQ(MWithout.size(), 4u);
  EXPECT_GT(MWith[0], 3);
  EXPECT_NEAR(MWith[0], MWithout[0], 1e-9);
}

// Latency-bound loads on Haswell-EP (issue 18), by hand from the machine
// file: memory 90 ns x 2.7 GHz = 243 cy, L3 34 cy, L2 11 cy, L1 4 cy; the
// L1's 10 fill buffers bound the misses in flight.
//
// Pointer chase j = next[j] (tests/nest/latency.c): clang unrolls it by 8,
// a chain of 8 dependent loads of 5 cy each (LLVM's Haswell load latency):
// 5 cy/it with the data in L1. Each chained load waits where its line lives
// instead of the L1's 4 cy: L2 5 + 11 - 4 = 12, L3 5 + 34 - 4 = 35,
// memory 5 + 243 - 4 = 244 cy/it; at 45 ns memory costs 5 + 121.5 - 4.
TEST(Cli, PointerChaseWaitsTheLatencyOfItsLevel) {
  std::string Args = "tests/nest/latency.c -m hsw -D n=10000000";
  std::vector<double> P = ecmCyPerIt(Args, 0);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(P[0], 5, 1e-3);
  EXPECT_NEAR(P[1], 12, 1e-6);
  EXPECT_NEAR(P[2], 35, 1e-6);
  EXPECT_NEAR(P[3], 244, 1e-6);
  std::vector<double> Half = ecmCyPerIt(Args + " --set memory.latency_ns=45", 0);
  ASSERT_EQ(Half.size(), 4u);
  EXPECT_NEAR(Half[3], 5 + 121.5 - 4, 1e-6);
  CmdResult R = perfmodel("analyze " + Args + " --format brief");
  EXPECT_NE(R.Out.find("chase: ECM 244 cy/it with data in MEM; bound by pointer chase: 8 "
                       "chained load(s)"),
            std::string::npos)
      << R.Out;
}

// a[9 * i]: every iteration a new line, 72 B on. Haswell's L1 stride
// prefetcher follows strides up to 2 KiB: the sum is bandwidth-bound,
// per iteration T_nOL 0.5 + one line on each link, 64/64 + 64/32 + 64/12.8
// (one core's 34.56 GB/s at 2.7 GHz) = 8.5 cy. Without it
// (prefetch_max_stride 0) each line waits the memory: 243 cy / 10 fill
// buffers = 24.3 cy/it; in L3 34 / 10 = 3.4 is below the 3.5 of the
// transfers, and in L2 1.1 below the 3-cycle add chain.
TEST(Cli, StridedMissesWaitUnlessAPrefetcherFollowsTheStride) {
  std::string Args = "tests/nest/latency.c -m hsw -D n=10000000";
  std::vector<double> P = ecmCyPerIt(Args, 2);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(P[3], 8.5, 1e-4); // iterations_per_cl is printed to 6 digits
  std::vector<double> N = ecmCyPerIt(Args + " --set caches.L1.prefetch_max_stride=0", 2);
  ASSERT_EQ(N.size(), 4u);
  EXPECT_NEAR(N[1], 3, 1e-4); // iterations_per_cl is printed to 6 digits
  EXPECT_NEAR(N[2], 3.5, 1e-4); // iterations_per_cl is printed to 6 digits
  EXPECT_NEAR(N[3], 24.3, 1e-4); // iterations_per_cl is printed to 6 digits
  // Twice the fill buffers, half the wait: 12.15 cy/it.
  std::vector<double> Q = ecmCyPerIt(Args + " --set caches.L1.prefetch_max_stride=0 "
                                            "--set caches.L1.misses_in_flight=20", 2);
  ASSERT_EQ(Q.size(), 4u);
  EXPECT_NEAR(Q[3], 12.15, 1e-4); // iterations_per_cl is printed to 6 digits
}

// a[16 * i]: a load per two lines. Only the L1's stride prefetcher follows
// it; with memory.stride_latency_ns 60 each line waits 60 ns x 2.7 GHz over
// the L1's 10 misses in flight = 16.2 cy/it in memory, above the 8.5 of
// the transfers (as a[9 * i] above). Without the key: the transfers, 8.5;
// a[9 * i] (72 B on, consecutive lines) stays at 8.5 with it.
TEST(Cli, StreamsOnlyTheStridePrefetcherFollowsWaitTheirLatency) {
  std::string Args = "tests/nest/latency.c -m hsw -D n=10000000";
  std::vector<double> P = ecmCyPerIt(Args, 3);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(P[3], 8.5, 1e-4); // iterations_per_cl is printed to 6 digits
  std::string Lat = Args + " --set memory.stride_latency_ns=60";
  std::vector<double> S = ecmCyPerIt(Lat, 3);
  ASSERT_EQ(S.size(), 4u);
  EXPECT_NEAR(S[3], 16.2, 1e-4);
  EXPECT_NEAR(S[2], P[2], 1e-9); // in the caches the prefetcher keeps up
  std::vector<double> S72 = ecmCyPerIt(Lat, 2);
  ASSERT_EQ(S72.size(), 4u);
  EXPECT_NEAR(S72[3], 8.5, 1e-4);
  CmdResult R = perfmodel("analyze " + Args);
  EXPECT_NE(R.Out.find("memory.stride_latency_ns is not given"), std::string::npos) << R.Out;
  // The advice names the layout, not the indices of an irregular gather.
  CmdResult B = perfmodel("analyze " + Lat + " --format brief");
  EXPECT_NE(B.Out.find("stride128: ECM 16.2 cy/it"), std::string::npos) << B.Out;
  EXPECT_NE(B.Out.find("only the L1's stride prefetcher follows it"), std::string::npos) << B.Out;
}

// a[8 * i] = 2 * b[8 * i] for Zen 4: clang-19 gathers b and scatters a,
// eight elements on eight lines each. Their lines train no stream
// prefetcher: two lines per iteration, each 148 ns (zen4's
// stride_latency_ns) x 2.4 GHz over the L1's 23 misses in flight:
// 2 x 355.2 / 23 = 30.887 cy/it in memory.
TEST(Cli, GathersAndScattersOfALinePerElementWaitTheStrideLatency) {
  std::string Args = "tests/nest/latency.c -m zen4 --set clock_ghz=2.4 -D n=10000000";
  CmdResult R = perfmodel("analyze " + Args);
  ASSERT_EQ(R.Code, 0) << R.Err;
  ASSERT_NE(R.Out.find("vgatherqpd"), std::string::npos) << R.Out;
  ASSERT_NE(R.Out.find("vscatterqpd"), std::string::npos) << R.Out;
  std::vector<double> P = ecmCyPerIt(Args, 4);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(P[3], 2 * 148 * 2.4 / 23, 1e-3);
  // Where the prefetchers follow gathered lines (Ice Lake-SP), the two
  // lines move at the bandwidth: 128 B of fills at 26.2 GB/s / 2.4 GHz =
  // 10.92 B/cy (11.725 cy) and 64 B written back at 171 / 2.4 = 71.25 B/cy
  // (0.898 cy): 12.623 cy/it. The stream two lines apart (scalar loads)
  // still waits its latency.
  std::vector<double> F = ecmCyPerIt(Args + " --set caches.L1.gathers_prefetched=true", 4);
  ASSERT_EQ(F.size(), 4u);
  EXPECT_NEAR(F[3], 128 / (26.2 / 2.4) + 64 / (171 / 2.4), 1e-3);
  std::vector<double> S = ecmCyPerIt(Args + " --set caches.L1.gathers_prefetched=true", 3);
  ASSERT_EQ(S.size(), 4u);
  EXPECT_NEAR(S[3], 148 * 2.4 / 23, 1e-3);
}

// s += x[idx[i]] with idx[i] = 64 i: every x access a line of its own,
// never reused, and 100,000 of them (6.1 MiB of lines, x spans 48.8 MiB)
// miss every level in the simulator (1 irregular L1, L2 and L3 miss per
// iteration). At memory: 243 cy / 10 in flight = 24.3 cy/it, far above the
// transfers (68 B/it at 12.8 B/cy = 5.3). The reorder buffer does not bind:
// 192 uops hold many more than 10 iterations. Half the latency: 12.15.
TEST(Cli, IndirectMissesOverlapUpToTheFillBuffers) {
  llvm::SmallString<128> Idx;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("stride-index", "txt", Idx));
  {
    std::ofstream Out(Idx.str().str());
    for (int I = 0; I < 100000; ++I)
      Out << 64 * I << "\n";
  }
  std::string Args = "tests/nest/latency.c -m hsw -D n=100000 --cache sim --index idx=" +
                     Idx.str().str();
  std::vector<double> P = ecmCyPerIt(Args, 1);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(P[3], 24.3, 1e-6);
  std::vector<double> H = ecmCyPerIt(Args + " --set memory.latency_ns=45", 1);
  ASSERT_EQ(H.size(), 4u);
  EXPECT_NEAR(H[3], 12.15, 1e-6);
  llvm::sys::fs::remove(Idx);
}

// ELLPACK SpMV (tests/nest/ell.c) on zen4-epyc-9654, vectorized across
// rows with the row's 8 iterations unrolled: val[8 i + k] is gathered along
// i, a line per row, which no stream prefetcher follows (a gather's
// elements on lines of their own), so in memory each row's line waits
// memory.stride_latency_ns: 0.125 lines per iteration. x has 64 elements
// (in L1). A trip of 8 rows (64 iterations) loads 8 gathers x 8 elements of
// val and of x, col's 8 x 8 ints in 4 zmm loads and y's 8 doubles in one:
// 133 loads, 2.078 per iteration. The load queue holds every element until
// its gather retires: 136 / 2.078 = 65.4 iterations, 8.18 of val's lines
// in flight (fewer than the L1's 23; with the reorder buffer raised to 2000
// uops so that it does not bind first). Each line waits 148 ns x 2.4 GHz =
// 355.2 cy: 0.125 x 355.2 / 8.18 = 355.2 x 2.078 / 136 = 5.428 cy/it. With
// the file's 320-uop reorder buffer (the 16 gathers are 49-50 uops each)
// fewer lines fit: more cycles.
TEST(Cli, GatheredRowsOfAnUnrolledLoopWaitInTheLoadQueue) {
  std::string Args = "tests/nest/ell.c -m zen4-epyc-9654 --set clock_ghz=2.4 -D n=1000000 "
                     "--index col=uniform:0:64";
  std::vector<double> P = ecmCyPerIt(Args + " --set core.reorder_buffer=2000", 0);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(P[3], 148 * 2.4 * (133.0 / 64) / 136, 0.01);
  CmdResult R = perfmodel("analyze " + Args + " --set core.reorder_buffer=2000");
  EXPECT_NE(R.Out.find("0.125 line(s) per iteration of streams only the stride prefetcher "
                       "follows"),
            std::string::npos)
      << R.Out;
  EXPECT_NE(R.Out.find("misses in the 136-entry load queue (2.08 loads per iteration"),
            std::string::npos)
      << R.Out;
  std::vector<double> Rob = ecmCyPerIt(Args, 0);
  ASSERT_EQ(Rob.size(), 4u);
  EXPECT_GT(Rob[3], P[3] * 1.5);
}

// Write-backs on a path of their own (bytes_per_cycle_to_next): the triad's
// L1-L2 link carries 3 lines in (b, c, the write-allocate of a) and 1 out
// per CL. Shared (Haswell's rule): 4 x 64 / 64 = 4 cy; with a 64 B/cy
// write-back path the link takes max(3 x 64 / 64, 64 / 64) = 3 cy and the
// L2 prediction 2 + 3 = 5 instead of 6; a 16 B/cy write path binds instead:
// 64 / 16 = 4 cy. The memory link, half-duplex DRAM, keeps in + out.
TEST(Cli, WriteBacksOnTheirOwnPath) {
  std::string Args = "examples/triad.c -m hsw -D n=10000000";
  llvm::json::Object E = ecmOf(Args + " --set caches.L1.bytes_per_cycle_to_next=64", 0);
  std::vector<double> T = nums(E, "transfers_cy_per_cl"), P = nums(E, "predictions_cy_per_cl");
  ASSERT_EQ(T.size(), 3u);
  ASSERT_EQ(P.size(), 4u);
  EXPECT_NEAR(T[0], 3, 1e-9);
  EXPECT_NEAR(T[1], 8, 1e-9);
  EXPECT_NEAR(P[1], 5, 1e-9);
  llvm::json::Object Slow = ecmOf(Args + " --set caches.L1.bytes_per_cycle_to_next=16", 0);
  EXPECT_NEAR(nums(Slow, "transfers_cy_per_cl")[0], 4, 1e-9);
  CmdResult R = perfmodel("analyze " + Args + " --set caches.L3.bytes_per_cycle_to_next=8");
  EXPECT_NE(R.Code, 0);
  EXPECT_NE(R.Err.find("the last level's write-backs go to memory"), std::string::npos) << R.Err;
}

// a[i:i+4] = s * b[i:i+4] on Haswell in memory, per CL of work (2 source
// iterations of 4 doubles): b brings 2 x 32 B in; with ordinary stores a's
// line is write-allocated too and written back: (64 + 64 + 64) B at one
// core's 12.8 B/cy = 15 cy. With _mm256_stream_pd (vmovntpd) the store goes
// out without the allocate: (64 + 64) / 12.8 = 10 cy.
TEST(Cli, NonTemporalStoresAllocateNoLine) {
  std::string Args = "tests/nest/nontemporal.c -m hsw -D n=100000000";
  llvm::json::Object NT = ecmOf(Args, 0), St = ecmOf(Args, 1);
  ASSERT_EQ(nums(NT, "transfers_cy_per_cl").size(), 3u);
  ASSERT_EQ(nums(St, "transfers_cy_per_cl").size(), 3u);
  EXPECT_NEAR(nums(NT, "transfers_cy_per_cl")[2], 10, 1e-6);
  EXPECT_NEAR(nums(St, "transfers_cy_per_cl")[2], 15, 1e-6);
  CmdResult R = perfmodel("analyze " + Args);
  EXPECT_NE(R.Out.find("every store is non-temporal (movnt): no write-allocate"),
            std::string::npos)
      << R.Out;
}

namespace {
/// ECM's T_L3Mem (cy/CL) and the Roofline's MEM bound (cy/it) of FUNCTION
/// in examples/validate/kernels.c at N on zen4 at 2.4 GHz with SETTINGS.
std::pair<double, double> memoryTimes(const std::string &Function, int N,
                                      const std::string &Settings) {
  CmdResult R = perfmodel("analyze examples/validate/kernels.c -m zen4 -D n=" +
                          std::to_string(N) + " --set clock_ghz=2.4 " + Settings +
                          " --format json");
  EXPECT_EQ(R.Code, 0) << R.Err;
  auto V = llvm::json::parse(R.Out);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError());
    return {0, 0};
  }
  for (const llvm::json::Value &L : *V->getAsObject()->getArray("loops")) {
    const llvm::json::Object *O = L.getAsObject();
    if (O->getString("function") != Function)
      continue;
    const llvm::json::Array *T = O->getObject("ecm")->getArray("transfers_cy_per_cl");
    const llvm::json::Array *Lv = O->getObject("roofline")->getArray("levels");
    return {*T->back().getAsNumber(),
            *Lv->back().getAsObject()->getNumber("bound_cy_per_it")};
  }
  ADD_FAILURE() << Function << " not found";
  return {0, 0};
}
} // namespace

// Lines the L1 refills from a cache while the rest streams from memory
// (memory.cache_line_cy, by hand): jacobi2d at n = 4096 keeps three rows of
// a (96 KiB) in L2, not in L1, so per CL of b the L1 fills 4 lines (a's
// rows j-1, j, j+1 and b's write-allocate: 32 B/it) and memory 2 (a's row
// j+1 and b: 16 B/it): 2 lines from the L2, x 4 cy = 8 cy/CL more in
// T_L3Mem and 8 / 8 it = 1 cy/it more in the Roofline's memory bound.
// triad's lines all come from memory: nothing added. ECM's `none` rule adds
// the lines' transfers already: nothing added there.
TEST(Cli, LinesFromTheCachesBesideMemoryStreams) {
  auto [Ecm0, Roof0] = memoryTimes("jacobi2d", 4096, "--set memory.cache_line_cy=0");
  auto [Ecm4, Roof4] = memoryTimes("jacobi2d", 4096, "--set memory.cache_line_cy=4");
  EXPECT_NEAR(Ecm4 - Ecm0, 8, 1e-3);
  EXPECT_NEAR(Roof4 - Roof0, 1, 1e-3);
  auto [TriadEcm0, TriadRoof0] = memoryTimes("triad", 1 << 24, "--set memory.cache_line_cy=0");
  auto [TriadEcm4, TriadRoof4] = memoryTimes("triad", 1 << 24, "--set memory.cache_line_cy=4");
  EXPECT_NEAR(TriadEcm4, TriadEcm0, 1e-9);
  EXPECT_NEAR(TriadRoof4, TriadRoof0, 1e-9);
  auto [None0, NoneRoof0] =
      memoryTimes("jacobi2d", 4096, "--set ecm.overlap=none --set memory.cache_line_cy=0");
  auto [None4, NoneRoof4] =
      memoryTimes("jacobi2d", 4096, "--set ecm.overlap=none --set memory.cache_line_cy=4");
  EXPECT_NEAR(None4, None0, 1e-9);
  EXPECT_NEAR(NoneRoof4 - NoneRoof0, 1, 1e-3);
}

// -o takes a device as it is (/dev/null stays a character device, written
// in place rather than replaced by a renamed temporary), and a path it
// must refuse is refused before the work: with a source that does not
// exist either, the message is about -o.
TEST(Cli, OutputToADeviceAndRefusedBeforeTheWork) {
  CmdResult Null = perfmodel("analyze examples/triad.c -m hsw --no-incore -o /dev/null");
  EXPECT_EQ(Null.Code, 0) << Null.Err;
  llvm::sys::fs::file_status St;
  ASSERT_FALSE(llvm::sys::fs::status("/dev/null", St));
  EXPECT_EQ(St.type(), llvm::sys::fs::file_type::character_file);
  CmdResult Early = perfmodel("analyze no-such-file.c -m hsw -o tests/bad-inputs/cases.txt");
  EXPECT_EQ(Early.Code, 1);
  EXPECT_NE(Early.Err.find("-o tests/bad-inputs/cases.txt: refusing to overwrite"),
            std::string::npos)
      << Early.Err;
  EXPECT_EQ(Early.Err.find("no-such-file"), std::string::npos) << Early.Err;
}

// A loop of multiplies alone, its data in L1, without the in-core model: the
// Roofline's flop mix binds. By hand (Haswell, AVX2: four doubles a vector,
// multiplies on ports 0 and 1): 7 multiplies per element / 8 a cycle =
// 0.875 cy/it, where the FMA peak (16 flop a cycle) would allow 7 / 16. The
// report calls it compute-bound by the mix, not bandwidth-bound (it once
// printed "bandwidth-bound on flop mix").
TEST(Cli, FlopMixBoundIsComputeBound) {
  CmdResult R = perfmodel("analyze tests/cli/flop-mix-muls.c -m hsw --no-incore -D n=100");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_NE(R.Out.find("bound: data in L1 -> 21.6 GFLOP/s (0.875 cy/it), compute-bound (the "
                       "loop's flop mix on the FP pipes)"),
            std::string::npos)
      << R.Out;
  EXPECT_EQ(R.Out.find("bandwidth-bound on flop mix"), std::string::npos) << R.Out;
}

// -D on a size the file takes as a guarded macro (#ifndef N) compiles the
// code with it: `analyze -D N=78` must cost the machine code a compile with
// -DN=78 makes (rows of 78 floats; at N = 256 the compiler merges the two
// loops into one of 16 zmm copies, 0.385 against 0.214 cy/it on Zen 5),
// with the arrays' extents at 78, and say so.
TEST(Cli, ASizeTheFileGuardsAsAMacroIsCompiledWithItsValue) {
  llvm::SmallString<128> Src;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("guarded-size", "c", Src));
  {
    std::ofstream Out(Src.str().str());
    Out << "#ifndef N\n#define N 256\n#endif\nfloat aa[N][N], bb[N][N];\n"
           "void half_bound(void) {\n  for (int i = 0; i < N / 2; i++)\n"
           "    for (int j = 0; j < N; j++)\n      aa[i][j] = bb[i][j] * 2.0f;\n}\n";
  }
  const std::string Base = "analyze " + Src.str().str() + " -m zen5 --format json";
  CmdResult Bound = perfmodel(Base + " -D N=78 -- -O3 -march=znver5");
  CmdResult Compiled = perfmodel(Base + " -- -O3 -march=znver5 -DN=78");
  CmdResult Default = perfmodel(Base + " -- -O3 -march=znver5");
  ASSERT_EQ(Bound.Code, 0) << Bound.Err;
  ASSERT_EQ(Compiled.Code, 0) << Compiled.Err;
  ASSERT_EQ(Default.Code, 0) << Default.Err;
  auto A = cyclesPerModel(Bound.Out), B = cyclesPerModel(Compiled.Out),
       C = cyclesPerModel(Default.Out);
  for (const char *Model : {"Roofline", "ECM", "PPR"}) {
    ASSERT_EQ(A[Model].size(), B[Model].size()) << Model;
    for (size_t L = 0; L < A[Model].size(); ++L)
      EXPECT_NEAR(A[Model][L], B[Model][L], 1e-9) << Model << " level " << L;
  }
  EXPECT_GT(std::fabs(A["ECM"][0] / C["ECM"][0] - 1), 0.05) << "the two sizes' code differ";
  EXPECT_NE(Bound.Out.find("N=78: a macro the file guards with #ifndef; compiled with -DN=78"),
            std::string::npos)
      << Bound.Out;
  std::remove(Src.c_str());
}

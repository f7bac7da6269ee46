// Checks that time this host through the command line: validate's timed
// harnesses, probe, the host model at its measured clock. Timings are not
// tests: each check is a limit no x86-64 host falls outside of, or a row's
// figures held to each other. Label "host" with HostProbeTest.cpp.
#include "../cli/Run.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <vector>

namespace {

/// A row of validate's table: its level, measured cy/it and the cells after
/// them (GFLOP/s, spread, the row's clock, then cy/it and error per model).
struct ValidateRow {
  std::string Line, Level;
  double Measured = 0;
  std::vector<std::string> Cells;
};

std::vector<ValidateRow> validateRows(const std::string &Out) {
  std::vector<ValidateRow> Rows;
  std::istringstream In(Out);
  for (std::string Line; std::getline(In, Line);) {
    std::istringstream W(Line);
    long N;
    std::string Size, Unit, Level, Measured;
    if (!(W >> N >> Size >> Unit >> Level >> Measured) ||
        (Level != "L1" && Level != "L2" && Level != "L3" && Level != "MEM"))
      continue;
    ValidateRow R{Line, Level, std::stod(Measured), {}};
    for (std::string C; W >> C;)
      R.Cells.push_back(C);
    Rows.push_back(R);
  }
  return Rows;
}

} // namespace

// `probe` measures this host and writes a model that validates; the figures
// must be physically plausible for any x86-64 core (timings are not tests:
// only ranges no real machine falls outside of are checked).
TEST(HostCli, ProbeWritesAValidModel) {
  char Dir[] = "/tmp/perfmodel-probe-XXXXXX";
  ASSERT_NE(mkdtemp(Dir), nullptr);
  std::string Out = std::string(Dir) + "/host.yml";
  CmdResult R = perfmodel("probe --quick --base none -o " + Out);
  ASSERT_EQ(R.Code, 0) << R.Err;
  CmdResult C = perfmodel("machine check " + Out);
  EXPECT_EQ(C.Code, 0) << C.Err;
  EXPECT_NE(C.Out.find(": ok ("), std::string::npos) << C.Out;
  EXPECT_EQ(C.Err.find("no entry in 'sources'"), std::string::npos) << C.Err;
  std::string Y = slurp(Out);
  std::smatch M;
  ASSERT_TRUE(std::regex_search(Y, M, std::regex("clock_ghz: ([0-9.]+)")));
  double GHz = std::stod(M[1]);
  EXPECT_GT(GHz, 0.5);
  EXPECT_LT(GHz, 8);
  ASSERT_TRUE(std::regex_search(Y, M, std::regex("double: ([0-9]+)")));
  EXPECT_GE(std::stoi(M[1]), 2); // SSE2 alone gives 2 flop/cy
  EXPECT_NE(Y.find("measured by perfmodel probe on "), std::string::npos);
  // The model is usable: analyze runs on it.
  CmdResult A = perfmodel("analyze examples/triad.c --no-incore -m " + Out);
  EXPECT_EQ(A.Code, 0) << A.Err;
  // The probed figures beside the library's for this CPU (or a statement
  // that the library has no model of it); the probed model's own latency
  // and misses-in-flight keys appear in the comparison.
  CmdResult D = perfmodel("probe --quick --diff");
  EXPECT_EQ(D.Code, 0) << D.Err;
  EXPECT_TRUE(D.Out.find("library model (A) vs this probe (B)") != std::string::npos ||
              D.Out.find("no library model matches") != std::string::npos)
      << D.Out;
  EXPECT_NE(Y.find("latency_ns: "), std::string::npos) << Y;
  // Over a library model: the file names it as its base, writes no cache
  // geometry of its own, loads fully sourced and runs.
  std::string Over = std::string(Dir) + "/over.yml";
  CmdResult B = perfmodel("probe --quick --base hsw -o " + Over);
  ASSERT_EQ(B.Code, 0) << B.Err;
  std::string O = slurp(Over);
  EXPECT_NE(O.find("base: haswell-ep-e5-2680v3\n"), std::string::npos) << O;
  EXPECT_EQ(O.find("size:"), std::string::npos) << O;
  EXPECT_NE(O.find("ecm: {overlap: "), std::string::npos) << O;
  CmdResult BC = perfmodel("machine check " + Over);
  EXPECT_EQ(BC.Code, 0) << BC.Err;
  EXPECT_EQ(BC.Err.find("no entry in 'sources'"), std::string::npos) << BC.Err;
  CmdResult BA = perfmodel("analyze examples/triad.c --no-incore -m " + Over);
  EXPECT_EQ(BA.Code, 0) << BA.Err;
  CmdResult Bad = perfmodel("probe --quick --base no-such-machine");
  EXPECT_EQ(Bad.Code, 1);
  EXPECT_NE(Bad.Err.find("--base no-such-machine: no such machine model"), std::string::npos)
      << Bad.Err;
  // An existing file is never overwritten.
  CmdResult Again = perfmodel("probe --quick -o " + Out);
  EXPECT_EQ(Again.Code, 1);
  EXPECT_NE(Again.Err.find("exists"), std::string::npos) << Again.Err;
  std::system(("rm -rf " + std::string(Dir)).c_str());
}

// `validate` times the triad on this host and prints measured beside
// predicted cycles per iteration with the error of each model. Timings are
// not tests: the shape of the output, the row's own arithmetic (GFLOP/s =
// 2 flops x GHz / cy/it, each error = predicted / measured - 1) and limits no
// x86-64 core falls outside of (an L1 triad of 2 loads and a store an
// iteration: more than 1/32 cy/it, which needs 512-bit vectors and 4 loads a
// cycle, and less than 10; a clock of 0.5 to 8 GHz) are checked.
TEST(HostCli, ValidateTriad) {
  llvm::SmallString<128> Rec;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("validate-triad", "json", Rec));
  llvm::sys::fs::remove(Rec);
  CmdResult R = perfmodel("validate examples/triad.c --levels L1,L2 --reps 3 --record " +
                          std::string(Rec));
  ASSERT_EQ(R.Code, 0) << R.Err << R.Out;
  EXPECT_NE(R.Out.find("measured cy/it"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find("Roofline cy/it"), std::string::npos) << R.Out;
  std::vector<ValidateRow> Rows = validateRows(R.Out);
  for (const ValidateRow &Row : Rows) {
    EXPECT_GT(Row.Measured, 0) << Row.Line;
    EXPECT_NE(Row.Line.find('%'), std::string::npos) << Row.Line;
    // GFLOP/s, spread, GHz, quiet samples, then (cy/it, error) for
    // Roofline, ECM, PPR and the headline, which is ECM's by the rule of
    // docs/models.md.
    ASSERT_EQ(Row.Cells.size(), 12u) << Row.Line;
    EXPECT_EQ(Row.Cells[10], Row.Cells[6]) << Row.Line;
    double GHz = std::stod(Row.Cells[2]), Cy = Row.Measured;
    EXPECT_GT(GHz, 0.5) << Row.Line;
    EXPECT_LT(GHz, 8) << Row.Line;
    if (Row.Level == "L1") {
      EXPECT_GT(Cy, 1.0 / 32) << Row.Line;
      EXPECT_LT(Cy, 10) << Row.Line;
    }
    // Three significant digits each: half a unit of the third, relative.
    EXPECT_NEAR(std::stod(Row.Cells[0]), 2 * GHz / Cy, 0.01 * 2 * GHz / Cy) << Row.Line;
    for (size_t P : {4, 6, 8, 10}) { // (cy/it, error %) per model
      double Predicted = std::stod(Row.Cells[P]);
      double Error = std::stod(Row.Cells[P + 1]); // "+12%" parses as 12
      EXPECT_NEAR(Error, (Predicted / Cy - 1) * 100, 1.5 + 0.01 * std::fabs(Error)) << Row.Line;
    }
  }
  EXPECT_EQ(Rows.size(), 2u) << R.Out;
  EXPECT_NE(R.Out.find("headline cy/it"), std::string::npos) << R.Out;
  // The recording predicted again off the host's measurements gives what
  // validate printed: the same code, machine file, clock and L3.
  CmdResult P = perfmodel("validate --replay " + std::string(Rec));
  EXPECT_EQ(P.Code, 0) << P.Err;
  EXPECT_NE(P.Out.find("2 of 2 headlines as validate predicted them when recording"),
            std::string::npos)
      << P.Out;
  llvm::sys::fs::remove(Rec);
#if defined(__x86_64__)
  // Every sample beside an L2 read too (the harness measured it).
  EXPECT_NE(R.Out.find("cache: quiet samples also had the load pipes, L1 and L2"),
            std::string::npos)
      << R.Out;
#endif
}

// A memory row on the host's own model is predicted with the host's memory
// measured beside it, and a recording keeps those figures with the row: the
// triad's Roofline in memory is (24 B in / fills + 8 B out / write-backs) x
// the row's clock (the socket set far out of the way), from the row's own
// figures; the replay gives what validate printed (with the Roofline
// alone, as asked: the recording keeps --model).
TEST(HostCli, ValidateMeasuresTheMemoryBesideAMemoryRow) {
  CmdResult Host = perfmodel("analyze examples/triad.c -D n=1000 --no-incore");
  if (Host.Out.find("(matched by CPUID)") == std::string::npos)
    GTEST_SKIP() << "no library model of this host: validate measures no memory";
  llvm::SmallString<128> Rec;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("validate-mem", "json", Rec));
  llvm::sys::fs::remove(Rec);
  CmdResult R = perfmodel("validate examples/triad.c --levels MEM --reps 1 --model roofline "
                          "--set memory.bandwidth_gbs=1000 --set memory.sustained_gbs=500 "
                          "--record " + std::string(Rec));
  ASSERT_EQ(R.Code, 0) << R.Err << R.Out;
  EXPECT_NE(R.Out.find("note: MEM row: memory: measured on this host now"), std::string::npos)
      << R.Out;
  std::string Text = slurp(std::string(Rec));
  auto V = llvm::json::parse(Text);
  ASSERT_TRUE(bool(V)) << Text;
  const llvm::json::Object &Run =
      *(*V->getAsObject()->getArray("runs"))[0].getAsObject();
  const llvm::json::Object &Row = *(*Run.getArray("rows"))[0].getAsObject();
  const llvm::json::Object *Mine = Row.getObject("measured");
  ASSERT_NE(Mine, nullptr) << Text;
  auto Figure = [&](llvm::StringRef Key) {
    if (auto X = Mine->getNumber(Key))
      return *X;
    return Run.getObject("measured")->getNumber(Key).value_or(0.0);
  };
  double Fill = Figure("memory.sustained_one_core_gbs");
  double Wb = Figure("memory.one_core_writeback_gbs");
  ASSERT_GT(Fill, 0) << Text;
  if (Wb > 0) {
    double Hand = (24 / Fill + 8 / Wb) * Row.getNumber("clock_ghz").value_or(0);
    double Roofline = Row.getObject("predicted")->getNumber("Roofline").value_or(0);
    EXPECT_NEAR(Roofline, Hand, 0.01 * Hand) << Text;
  }
  CmdResult P = perfmodel("validate --replay " + std::string(Rec));
  EXPECT_NE(P.Out.find("1 of 1 headlines as validate predicted them when recording"),
            std::string::npos)
      << P.Out;
  llvm::sys::fs::remove(Rec);
}

// A loop bounded by *n (a size read through a pointer) is timed with n
// holding the size validate varies: the row's size is *n, its working set
// the 8-byte elements of a up to it (half the L1: at most half its bytes).
// It was not validated ("array 'n' is not accessed in the loop nest").
TEST(HostCli, ValidateABoundReadThroughAPointer) {
  CmdResult R = perfmodel("validate tests/validate/deref-bound.c --levels L1 --reps 3");
  ASSERT_EQ(R.Code, 0) << R.Err << R.Out;
  EXPECT_TRUE(std::regex_search(R.Out, std::regex("\n +\\*n +working set"))) << R.Out;
  std::vector<ValidateRow> Rows = validateRows(R.Out);
  ASSERT_EQ(Rows.size(), 1u) << R.Out;
  EXPECT_GT(Rows[0].Measured, 0) << Rows[0].Line;
}

// A further machine predicted against the same timing: its columns follow
// the first machine's, and its error compares times, so by hand
// error_B = (cy_B / GHz_B - cy / GHz_A) / (cy / GHz_A). The Haswell model at
// its file clock beside the host's (or default) model at the measured one.
TEST(HostCli, ValidateAnotherMachineOnTheSameTiming) {
  CmdResult R =
      perfmodel("validate examples/triad.c --levels L1 --reps 3 --also-machine hsw");
  ASSERT_EQ(R.Code, 0) << R.Err << R.Out;
  std::smatch M;
  ASSERT_TRUE(std::regex_search(R.Out, M, std::regex("\nmachine B: .*Haswell.*, ([0-9.]+) GHz")))
      << R.Out;
  double GhzB = std::stod(M[1]);
  EXPECT_NE(R.Out.find("B:headline cy/it"), std::string::npos) << R.Out;
  std::vector<ValidateRow> Rows = validateRows(R.Out);
  ASSERT_EQ(Rows.size(), 1u) << R.Out;
  // GFLOP/s, spread, the row's clock (A's: the measured cycles and A's
  // predictions are at it), quiet samples, 4 x (cy/it, error) for A, then 4
  // for B.
  const std::vector<std::string> &Cells = Rows[0].Cells;
  ASSERT_EQ(Cells.size(), 20u) << Rows[0].Line;
  double GhzA = std::stod(Cells[2]);
  double Cy = Rows[0].Measured, CyB = std::stod(Cells[18]);
  double Expected = (CyB / GhzB - Cy / GhzA) / (Cy / GhzA) * 100;
  // The columns are rounded: both times to 3 significant digits (half a
  // unit of the third digit, relative), the error to 2 (half a unit).
  auto HalfUnit = [](double V) { return 0.5 * std::pow(10, std::floor(std::log10(V)) - 2) / V; };
  double Tolerance = 0.5 * std::pow(10, std::floor(std::log10(std::max(1.0, std::fabs(Expected)))) - 1) +
                     (100 + Expected) * (HalfUnit(Cy) + HalfUnit(CyB)) + 0.1;
  EXPECT_NEAR(std::stod(Cells[19]), Expected, Tolerance) << Rows[0].Line;
}

// Each process gets its own physical pages: --processes times each size in
// that many harness runs and reports the median of their medians; 0 is not
// a count.
TEST(HostCli, ValidateTimesEachSizeInSeveralProcesses) {
  CmdResult R = perfmodel("validate examples/triad.c --levels L1 --reps 3 --processes 3");
  ASSERT_EQ(R.Code, 0) << R.Err << R.Out;
  std::vector<ValidateRow> Rows = validateRows(R.Out);
  ASSERT_EQ(Rows.size(), 1u) << R.Out;
  EXPECT_GT(Rows[0].Measured, 0) << Rows[0].Line;
  CmdResult Bad = perfmodel("validate examples/triad.c --levels L1 --processes 0");
  EXPECT_EQ(Bad.Code, 2) << Bad.Out;
  EXPECT_NE(Bad.Err.find("--processes"), std::string::npos) << Bad.Err;
}

// An integer array given with --index holds the same data in the timed
// harness as in the simulator; its range sizes the gathered array (x of n
// elements for idx=uniform:0:n:n), so the working set is y, x and idx: 8 +
// 8 + 4 = 20 bytes per element, and the harness reads no element outside x.
TEST(HostCli, ValidateGathersWithTheSimulatedIndexData) {
  CmdResult R = perfmodel("validate tests/validate/gather.c --levels L1,L2 --reps 3 "
                          "--index idx=uniform:0:n:n");
  ASSERT_EQ(R.Code, 0) << R.Err << R.Out;
  std::vector<ValidateRow> Rows = validateRows(R.Out);
  ASSERT_EQ(Rows.size(), 2u) << R.Out;
  for (const ValidateRow &Row : Rows) {
    EXPECT_GT(Row.Measured, 0) << Row.Line;
    std::istringstream W(Row.Line);
    double N, Size;
    std::string Unit;
    ASSERT_TRUE(W >> N >> Size >> Unit) << Row.Line;
    double Bytes = Size * (Unit == "KiB" ? 1024 : Unit == "MiB" ? 1 << 20 : 1);
    EXPECT_NEAR(Bytes, 20 * N, 0.01 * 20 * N) << Row.Line;
  }
  // Without the data the harness would guess it: not validated, and said how.
  CmdResult G = perfmodel("validate tests/validate/gather.c --levels L1");
  EXPECT_EQ(G.Code, 1);
  EXPECT_NE(G.Out.find("give them with --index idx="), std::string::npos) << G.Out;
}

/// The cells of validate's first MEM row (n, working set in two, level,
/// measured, ..., then each model's cy/it and error); none without one.
static std::vector<std::string> memRowCells(const std::string &Out) {
  std::smatch Row;
  std::vector<std::string> Cells;
  if (!std::regex_search(Out, Row, std::regex(R"(\n *[0-9]+ +\S+ \S+ +MEM [^\n]*)")))
    return Cells;
  std::istringstream Line(Row.str());
  for (std::string C; Line >> C;)
    Cells.push_back(C);
  return Cells;
}

// validate predicts with the L3 this host keeps (the share its L3 rows are
// sized from), as it predicts at the host's clock; --model-l3 keeps the
// model's. A gather over x of 10^6 doubles (7.6 MiB) at memory size: in
// Haswell-EP's 30 MiB L3 each random x read waits the L3's 34 cycles, in a
// 2.5 MiB share (2048 sets of 20 ways) it goes to memory (90 ns, 243 cycles at 2.7 GHz), so the
// prediction grows by far more than 2x (the streams of y and idx and the
// in-core time are the same in both).
TEST(HostCli, ValidatePredictsWithTheL3TheHostKeeps) {
  const std::string Cmd = "validate tests/validate/gather.c -m hsw --levels MEM --reps 1 "
                          "--host-l3 2560KiB --index idx=uniform:0:1000000:n --model ecm";
  CmdResult Kept = perfmodel(Cmd);
  ASSERT_EQ(Kept.Code, 0) << Kept.Err << Kept.Out;
  EXPECT_NE(Kept.Out.find("the predictions use an L3 of 2560KiB (--model-l3: the model's)"),
            std::string::npos)
      << Kept.Out;
  CmdResult Model = perfmodel(Cmd + " --model-l3");
  ASSERT_EQ(Model.Code, 0) << Model.Err << Model.Out;
  EXPECT_EQ(Model.Out.find("the predictions use an L3 of"), std::string::npos) << Model.Out;
  // The row: n, working set, level, measured, GFLOP/s, spread, GHz, quiet,
  // ECM, error, headline, error.
  auto Predicted = [](const std::string &Out) {
    std::smatch M;
    if (!std::regex_search(Out, M, std::regex(R"(MEM\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+([0-9.]+))")))
      return 0.0;
    return std::stod(M[1]);
  };
  double K = Predicted(Kept.Out), P = Predicted(Model.Out);
  ASSERT_GT(P, 0) << Model.Out;
  EXPECT_GT(K, 2 * P) << Kept.Out << Model.Out;
  CmdResult Both = perfmodel(Cmd + " --model-l3 --kept-l3");
  EXPECT_EQ(Both.Code, 2) << Both.Out;
  // A further model predicted against the same timings sees the same L3:
  // its headline (the row's last prediction) is the first model's.
  CmdResult Also = perfmodel(Cmd + " --also-machine hsw");
  ASSERT_EQ(Also.Code, 0) << Also.Err << Also.Out;
  std::vector<std::string> Cells = memRowCells(Also.Out);
  ASSERT_GE(Cells.size(), 14u) << Also.Out;
  EXPECT_EQ(Cells[Cells.size() - 2], Cells[13]) << Also.Out; // B:headline, headline
  EXPECT_NEAR(std::stod(Cells[13]), K, 0.01 * K) << Also.Out;
}

// A further model of this host (a probed one) sees the memory measured
// beside each memory row, as it sees the row's clock. Here it is the host's
// own file with a memory of 4 GB/s and 900 ns: with the row's figures its
// headline is the first model's; with its own it would be several times
// slower (a probe's figures from minutes before are as stale as a file's).
TEST(HostCli, AFurtherModelOfThisHostTakesTheRowsMemory) {
  CmdResult Which = perfmodel("analyze examples/triad.c --no-incore --format json");
  ASSERT_EQ(Which.Code, 0) << Which.Err;
  auto J = llvm::json::parse(Which.Out);
  ASSERT_TRUE(bool(J)) << Which.Out;
  std::string File = J->getAsObject()->getObject("machine")->getString("file").value_or("").str();
  if (Which.Out.find("matched by CPUID") == std::string::npos)
    GTEST_SKIP() << "no library model of this host: " << File;
  llvm::SmallString<128> Slow;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("slow-memory", "yml", Slow));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Slow, EC);
    ASSERT_FALSE(EC);
    OS << "base: " << llvm::sys::path::stem(File) << "\nname: \"slow memory\"\n"
       << "memory: {latency_ns: 900, sustained_one_core_gbs: 4, one_core_writeback_gbs: 4}\n";
  }
  CmdResult V = perfmodel("validate examples/triad.c --levels MEM --reps 1 --model ecm "
                          "--also-machine " + std::string(Slow));
  llvm::sys::fs::remove(Slow);
  ASSERT_EQ(V.Code, 0) << V.Err << V.Out;
  std::vector<std::string> Cells = memRowCells(V.Out);
  ASSERT_GE(Cells.size(), 14u) << V.Out;
  EXPECT_EQ(Cells[Cells.size() - 2], Cells[13]) << V.Out; // B:headline, headline
}

// --host-l3 gives what the host keeps instead of measuring it, so that runs
// side by side see one L3: validate's L3 working sets are half of it (6 MiB
// -> triad's three arrays in 3 MiB), --kept-l3 predicts with it (whole sets
// of the model's L3 within 4 MiB), and a size that does not parse
// is a usage error.
TEST(HostCli, HostL3IsGivenNotMeasured) {
  CmdResult V = perfmodel("validate examples/triad.c --levels L3 --reps 3 --host-l3 6MiB");
  ASSERT_EQ(V.Code, 0) << V.Err << V.Out;
  // In whole sets of the model's L3: 6 MiB, or less than one set below it
  // where the ways are not a power of two (20 on Haswell-EP).
  std::smatch Kept;
  ASSERT_TRUE(std::regex_search(V.Out, Kept,
                                std::regex("keeps about ([0-9.]+)(B|KiB|MiB) of the")))
      << V.Out;
  double KeptBytes = std::stod(std::string(Kept[1])) *
                     (Kept[2] == "MiB" ? 1 << 20 : Kept[2] == "KiB" ? 1 << 10 : 1);
  EXPECT_LE(KeptBytes, double(6 << 20)) << V.Out;
  EXPECT_GT(KeptBytes, double(6 << 20) - 32 * 64) << V.Out;
  EXPECT_NE(V.Out.find("(--host-l3): the L3 working sets are half of that"), std::string::npos)
      << V.Out;
  std::smatch M;
  ASSERT_TRUE(std::regex_search(V.Out, M, std::regex("([0-9.]+) (KiB|MiB)  L3 ")));
  double Bytes = std::stod(M[1]) * (M[2] == "MiB" ? 1 << 20 : 1 << 10);
  EXPECT_LE(Bytes, 3.0 * (1 << 20)) << V.Out;
  EXPECT_GT(Bytes, 2.0 * (1 << 20)) << V.Out;
  CmdResult A = perfmodel("analyze examples/triad.c --no-incore --kept-l3 --host-l3 4MiB");
  ASSERT_EQ(A.Code, 0) << A.Err;
  // Whole sets: 4 MiB where the L3 is 16-way (Zen), 5461 sets of 12 ways,
  // 4194048 B, on Ice Lake-SP: less than one set below 4 MiB (allowed: up to
  // 32 ways of 64 B).
  std::smatch L3;
  if (A.Out.find("the machine model is not this host's") == std::string::npos) {
    ASSERT_TRUE(std::regex_search(A.Out, L3,
                                  std::regex("\\(--host-l3\\): the predictions use an L3 of "
                                             "([0-9.]+)(B|KiB|MiB)")))
        << A.Out;
    double Size = std::stod(std::string(L3[1])) *
                  (L3[2] == "MiB" ? 1 << 20 : L3[2] == "KiB" ? 1 << 10 : 1);
    EXPECT_LE(Size, double(4 << 20)) << A.Out;
    EXPECT_GT(Size, double(4 << 20) - 32 * 64) << A.Out;
  }
  CmdResult Bad = perfmodel("analyze examples/triad.c --no-incore --kept-l3 --host-l3 4Mx");
  EXPECT_EQ(Bad.Code, 2) << Bad.Out;
  EXPECT_NE(Bad.Err.find("--host-l3 4Mx"), std::string::npos) << Bad.Err;
}

// --host-memory: on the host's own model the note gives one core's fills F
// and write-backs W (GB/s) and the Roofline's memory bound of the triad is
// theirs: by hand 24 B in (b, c, a's write-allocate) and 8 out per
// iteration, (24 / F + 8 / W) ns x the measured clock. A socket --set stays
// (no "cores' triad" replaces it, nor the other all-core kernels: the set
// socket is every mix's); another CPU's model keeps its figures.
// The theoretical bandwidth is raised first: a sustained figure above it is
// rejected, and Zen 4's 460.8 GB/s is below the 500 set here.
TEST(HostCli, HostMemoryIsMeasuredAndPredictedWith) {
  // The caches' links (bytes a cycle) set out of the way: at a clock a busy
  // VM reads low (1.3 GHz once, under ctest -j2) the Granite Rapids VM's L3
  // link at 7.4 B/cy bound the memory row before the memory did.
  CmdResult R = perfmodel("analyze examples/triad.c -D n=16777216 --no-incore --host-memory "
                          "--model roofline --set memory.bandwidth_gbs=1000 "
                          "--set memory.sustained_gbs=500 "
                          "--set caches.L1.bytes_per_cycle_from_next=1000 "
                          "--set caches.L2.bytes_per_cycle_from_next=1000");
  ASSERT_EQ(R.Code, 0) << R.Err;
  if (R.Out.find("(matched by CPUID)") != std::string::npos) {
    std::smatch F, W, G, T;
    // Measured once: a model without a one-core figure (icelake-sp-8380)
    // gets no quick load stream first when --host-memory measures anyway.
    EXPECT_EQ(R.Out.find("the model gives no figure for one core"), std::string::npos) << R.Out;
    const std::string Note = "in place of the model's\\): ";
    ASSERT_TRUE(std::regex_search(
        R.Out, F, std::regex(Note + "one core's fills ([0-9.]+) GB/s")))
        << R.Out;
    std::string Fill = F[1];
    // Write-backs that cost nothing seen go at the socket's 500.
    ASSERT_TRUE(std::regex_search(
        R.Out, W, std::regex(Note + "[^\n]*its write-backs ([0-9.]+) GB/s")))
        << R.Out;
    double Wb = std::stod(std::string(W[1]));
    ASSERT_TRUE(std::regex_search(R.Out, G, std::regex("clock: ([0-9.]+) GHz measured")))
        << R.Out;
    ASSERT_TRUE(std::regex_search(R.Out, T, std::regex("MEM +MEM-L3 +[0-9.]+ +[0-9.]+ +[0-9.]+ "
                                                       "+[0-9.]+ +[0-9.]+ +([0-9.]+)")))
        << R.Out;
    double Hand = (24 / std::stod(Fill) + 8 / Wb) * std::stod(std::string(G[1]));
    EXPECT_NEAR(std::stod(std::string(T[1])), Hand, 0.01 * Hand) << R.Out;
    EXPECT_EQ(R.Out.find("cores' "), std::string::npos) << R.Out;
    EXPECT_EQ(R.Out.find("one core stays bounded by"), std::string::npos) << R.Out;
  }
  CmdResult H = perfmodel("analyze examples/triad.c -D n=1000 --no-incore --host-memory -m hsw");
  ASSERT_EQ(H.Code, 0) << H.Err;
  EXPECT_NE(H.Out.find("is not this host's model; its memory figures stand"), std::string::npos)
      << H.Out;
}

TEST(HostCli, TheHostsModelRunsAtTheMeasuredClock) {
  // On a host with a model of its own (CPUID), the clock is measured and the
  // report says so; --set clock_ghz keeps a fixed one, and another machine's
  // model keeps its file's clock.
  CmdResult R = perfmodel("analyze examples/triad.c -D n=1000 --no-incore");
  ASSERT_EQ(R.Code, 0) << R.Err;
  bool HostModel = R.Out.find("(matched by CPUID)") != std::string::npos;
  EXPECT_EQ(R.Out.find("GHz measured on this host") != std::string::npos, HostModel) << R.Out;
  R = perfmodel("analyze examples/triad.c -D n=1000 --no-incore --set clock_ghz=1.25");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_EQ(R.Out.find("measured on this host"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find(", 1.25 GHz, "), std::string::npos) << R.Out;
  R = perfmodel("analyze examples/triad.c -D n=1000 --no-incore -m hsw");
  ASSERT_EQ(R.Code, 0) << R.Err;
  EXPECT_EQ(R.Out.find("measured on this host"), std::string::npos) << R.Out;
}

// The driver's use of what a host measured of its memory now in place of a
// machine file's figures (validate's memory rows, analyze --host-memory).
#include "perfmodel/MachineModel.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Recording.h"
#include "perfmodel/Session.h"
#include "perfmodel/Frontend.h"
#include "perfmodel/InCore.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace perfmodel;

namespace {

MachineModel zen4Like() {
  MachineModel M;
  M.Name = "test";
  M.ClockGHz = 3.6;
  CacheLevel L1;
  L1.Name = "L1";
  L1.MissesInFlight = 23;
  M.Caches = {L1};
  M.Memory.LatencyNs = 219;
  M.Memory.StrideLatencyNs = 148;
  return M;
}

// One chase took 160 ns and 32 at once 8.16 ns a line: 19.6 misses in
// flight. An irregular miss costs latency / misses in flight: with the
// file's 23 beside the fresh 160 ns it would cost 6.96 ns a line, 15 %
// below the 8.16 measured. The pair replaces the file's pair: 160 ns and
// 20 in flight (8.0 ns). The file's strided streams cost 148 / 23 = 6.43 ns
// a line, as measured: their latency becomes 6.43 x 20 = 128.7 -> 129 ns.
TEST(HostMemory, MissesInFlightAreTakenWithTheLatencyTheyWereMeasuredBeside) {
  MachineModel M = zen4Like();
  HostMemory H;
  H.LatencyNs = 160;
  H.InFlight = 160 / 8.16;
  std::vector<std::string> Notes;
  std::map<std::string, double> Recorded;
  driver::useHostMemory(M, H, {}, Notes, Recorded);
  ASSERT_TRUE(M.Caches[0].MissesInFlight);
  EXPECT_EQ(*M.Caches[0].MissesInFlight, 20u);
  EXPECT_DOUBLE_EQ(*M.Memory.LatencyNs, 160);
  EXPECT_DOUBLE_EQ(*M.Memory.StrideLatencyNs, 129);
  EXPECT_DOUBLE_EQ(Recorded["caches.L1.misses_in_flight"], 20);
  EXPECT_DOUBLE_EQ(Recorded["memory.stride_latency_ns"], 129);
  ASSERT_FALSE(Notes.empty());
  EXPECT_NE(Notes.back().find("20 misses in flight"), std::string::npos) << Notes.back();
}

// A count given with --set stands, and so does the stride latency it goes
// with; the latency is still the host's.
TEST(HostMemory, AGivenMissesInFlightStands) {
  MachineModel M = zen4Like();
  HostMemory H;
  H.LatencyNs = 160;
  H.InFlight = 19.6;
  std::vector<std::string> Notes;
  std::map<std::string, double> Recorded;
  driver::useHostMemory(M, H, {"caches.L1.misses_in_flight=23"}, Notes, Recorded);
  EXPECT_EQ(*M.Caches[0].MissesInFlight, 23u);
  EXPECT_DOUBLE_EQ(*M.Memory.StrideLatencyNs, 148);
  EXPECT_DOUBLE_EQ(*M.Memory.LatencyNs, 160);
  EXPECT_EQ(Recorded.count("caches.L1.misses_in_flight"), 0u);
  EXPECT_EQ(Recorded.count("memory.stride_latency_ns"), 0u);
}

} // namespace

// A recorded row keeps where the harness placed the loop's function (its
// page offset): the replay predicts the loop's code lines as timed. Rows
// recorded before it have none and read as none.
TEST(Recording, ARowKeepsWhereTheHarnessPlacedItsCode) {
  using namespace perfmodel::driver;
  Recording R;
  R.Host.Vendor = "AuthenticAMD";
  R.Host.Family = 0x19;
  R.Host.Model = 0x11;
  RecordedRun Run;
  Run.File = "k.c";
  RecordedRow Row;
  Row.Function = "k";
  Row.Level = "L1";
  Row.MedianCy = Row.MinCy = Row.MaxCy = 2.19;
  Row.ClockGHz = 3.69;
  Row.CodeAt["k"] = 0x6b0;
  Run.Rows.push_back(Row);
  Row.CodeAt.clear();
  Run.Rows.push_back(Row);
  R.Runs.push_back(Run);
  Recording Back;
  std::string Err;
  ASSERT_TRUE(fromJson(toJson(R), Back, "k.json", Err)) << Err;
  ASSERT_EQ(Back.Runs.size(), 1u);
  ASSERT_EQ(Back.Runs[0].Rows.size(), 2u);
  EXPECT_EQ(Back.Runs[0].Rows[0].CodeAt, (std::map<std::string, uint64_t>{{"k", 0x6b0}}));
  EXPECT_TRUE(Back.Runs[0].Rows[1].CodeAt.empty());
}

// analyze parses the file once: the front end reads the AST of the in-core
// model's compile (one compile in this process for both), and its loops,
// sizes and notes are those of the front end's own parse. A file whose
// `#pragma omp` the flags leave undecided keeps the front end's parse (it
// reads OpenMP; the compile with the flags as given would not).
TEST(Session, TheFrontEndReadsTheInCoreCompilesParse) {
  const std::string Src = PERFMODEL_SOURCE_DIR;
  driver::AnalyzeArgs A;
  A.File = Src + "/examples/validate/kernels.c";
  A.Machine = Src + "/machine-models/zen5-epyc-9755.yml";
  A.Defines = {"n=4096"};
  driver::CompileCommand CC{{"-O3"}, true};
  compileInProcess(true);
  unsigned Before = inProcessCompiles();
  driver::Inputs In;
  ASSERT_EQ(driver::loadInputs(A, CC, In), 0);
  EXPECT_EQ(inProcessCompiles(), Before + 1);
  FrontendOptions FO;
  FO.File = A.File;
  FO.CompileArgs = CC.Args;
  FO.HasCompileArgs = true;
  FO.Defines = {{"n", 4096}};
  FrontendResult Own = runFrontend(FO);
  ASSERT_TRUE(Own.Ok) << Own.Error;
  const KernelIR &IR = In.FR->IR;
  ASSERT_EQ(IR.Loops.size(), Own.IR.Loops.size());
  EXPECT_GT(IR.Loops.size(), 20u);
  for (size_t I = 0; I < IR.Loops.size(); ++I) {
    EXPECT_EQ(IR.Loops[I].Loc.Line, Own.IR.Loops[I].Loc.Line);
    EXPECT_EQ(IR.Loops[I].Function, Own.IR.Loops[I].Function);
    EXPECT_EQ(IR.Loops[I].Accesses.size(), Own.IR.Loops[I].Accesses.size());
    EXPECT_EQ(IR.Loops[I].flops(), Own.IR.Loops[I].flops());
  }
  EXPECT_EQ(IR.bindings(), Own.IR.bindings());
  EXPECT_EQ(IR.Notes, Own.IR.Notes);
  EXPECT_EQ(In.FR->CompileArgs, Own.CompileArgs);
  // The in-core model takes that compile's object.
  std::vector<InCoreResult> R =
      analyzeKernelLoops(IR, In.FR->CompileArgs, inCoreOptionsFor(*In.Machine));
  EXPECT_EQ(inProcessCompiles(), Before + 1);
  EXPECT_TRUE(llvm::any_of(R, [](const InCoreResult &X) { return X.Ok; }));

  llvm::SmallString<128> Omp;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("perfmodel-omp", "c", Omp));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Omp, EC);
    OS << "void s(long n, double *a) {\n#pragma omp parallel for\n"
          "  for (long i = 0; i < n; ++i)\n    a[i] *= 2;\n}\n";
  }
  A.File = std::string(Omp);
  driver::Inputs OmpIn;
  ASSERT_EQ(driver::loadInputs(A, CC, OmpIn), 0);
  EXPECT_EQ(inProcessCompiles(), Before + 1); // the front end parsed it alone
  ASSERT_EQ(OmpIn.FR->IR.Loops.size(), 1u);
  EXPECT_TRUE(OmpIn.FR->IR.Loops[0].Nest[0].ForksThreads);
  llvm::sys::fs::remove(Omp);
  compileInProcess(false);
}

// validate's L3 fills measured now (l3FillsFromStream): an Ice Lake-SP-like
// model at 3.1 GHz (L1 fills 30 B/cy: 2.133 cy a line; 16-byte loads, two
// a cycle: 2 cy a line). A load stream in the L3 at 2.2 ns a line is 6.82
// cy a line, more than 1.33 x 2.133 = 2.84: the L3's link binds it, 64 /
// 6.82 = 9.384 B/cy. At 0.8 ns (2.48 cy) the L1's fills could be what
// binds: no figure. Nor where the model's transfers do not overlap (the
// stream's time would be their sum), nor without a shared L3.
TEST(HostL3, TheL3sFillsFromALoadStreamWhereThatLinkBindsIt) {
  MachineModel M;
  M.ClockGHz = 3.1;
  M.EcmOverlap = OverlapRule::Full;
  M.Core.LoadsPerCycle = 2;
  M.Core.LoadBytesPerCycle = 128;
  CacheLevel L1, L2, L3;
  L1.Name = "L1";
  L2.Name = "L2";
  L3.Name = "L3";
  L1.LineBytes = L2.LineBytes = L3.LineBytes = 64;
  L1.BytesPerCycleFromNext = 30;
  L2.BytesPerCycleFromNext = 9.8;
  L3.SharedBy = 40;
  M.Caches = {L1, L2, L3};
  EXPECT_NEAR(driver::l3FillsFromStream(M, 2.2, 128), 64 / (2.2 * 3.1), 1e-9);
  EXPECT_EQ(driver::l3FillsFromStream(M, 0.8, 128), 0);
  EXPECT_EQ(driver::l3FillsFromStream(M, 0, 128), 0);
  MachineModel None = M;
  None.EcmOverlap = OverlapRule::None;
  EXPECT_EQ(driver::l3FillsFromStream(None, 2.2, 128), 0);
  MachineModel Private = M;
  Private.Caches.back().SharedBy = 1;
  EXPECT_EQ(driver::l3FillsFromStream(Private, 2.2, 128), 0);
  // The loads' width: with the L1's fills at 64 B/cy (1 cy a line), 16-byte
  // loads two a cycle take 2 cy a line, so a stream at 0.645 ns (2.0 cy)
  // could be theirs (below 1.33 x 2); 64-byte loads take 0.5 cy, so the
  // L3's link binds it (2.0 >= 1.33 x 1): 64 / 2.0 = 32 B/cy.
  MachineModel Wide = M;
  Wide.Caches.front().BytesPerCycleFromNext = 64;
  EXPECT_EQ(driver::l3FillsFromStream(Wide, 2.0 / 3.1, 128), 0);
  EXPECT_NEAR(driver::l3FillsFromStream(Wide, 2.0 / 3.1, 512), 32, 1e-9);
}

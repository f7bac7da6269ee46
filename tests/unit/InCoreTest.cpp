// In-core model on assembly inputs, per CPU, against hand derivations.
// Latencies and port counts cited: Intel 64 and IA-32 Optimization Reference
// Manual (Haswell: FMA latency 5 on ports 0 and 1, loads on ports 2 and 3;
// Skylake-SP: FMA latency 4 on ports 0 and 1) and AMD's Zen 4 software
// optimisation guide (FMA latency 4; three load AGUs).
#include "perfmodel/Frontend.h"
#include "perfmodel/InCore.h"
#include "perfmodel/MachineModel.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace perfmodel;

namespace {

const std::string Src = PERFMODEL_SOURCE_DIR;

InCoreResult run(const std::string &File, const std::string &Cpu) {
  InCoreOptions O;
  O.Cpu = Cpu;
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/" + File, O);
  EXPECT_TRUE(R.Ok) << R.Reason;
  return R;
}

double portLoad(const InCoreResult &R, const std::string &Port) {
  auto It = std::find(R.Ports.begin(), R.Ports.end(), Port);
  EXPECT_NE(It, R.Ports.end()) << Port;
  return It == R.Ports.end() ? -1 : R.PortLoad[It - R.Ports.begin()];
}

} // namespace

TEST(InCore, HaswellOneAccumulatorIsLatencyBound) {
  // sum += x[i]*y[i] with one ymm accumulator: each FMA waits 5 cycles for
  // the previous one. The load operand does not delay the chain (it is read
  // early), so 5 cy per iteration, not 5 + load latency.
  InCoreResult R = run("fma-1acc.s", "haswell");
  EXPECT_DOUBLE_EQ(R.RecurrenceBound, 5);
  EXPECT_DOUBLE_EQ(R.Cycles, 5);
  EXPECT_EQ(R.Bottleneck, "recurrence");
  ASSERT_EQ(R.CriticalChain.size(), 1u);
  EXPECT_NE(R.Instrs[R.CriticalChain[0]].Text.find("vfmadd231pd ymm0"), std::string::npos);
  // Two loads on two load ports: 1 cy; fused uops: 4 (load, FMA+load,
  // add, cmp+jne) at 4 per cycle: 1 cy. 5 chains would reach that.
  EXPECT_DOUBLE_EQ(R.PortBound, 1);
  EXPECT_EQ(R.Uops, 4u);
  EXPECT_NE(R.Advice.find("use 5 independent chains"), std::string::npos) << R.Advice;
}

TEST(InCore, HaswellFourAccumulatorsAreStillLatencyBound) {
  // 4 independent FMA chains of 5 cy: 4 FMAs per 5 cycles (0.8 per cycle).
  // Saturating both FMA ports needs 2 x 5 = 10 chains. (The issue text calls
  // 4 accumulators port-bound; with a 5-cycle FMA that needs 10.)
  InCoreResult R = run("fma-4acc.s", "haswell");
  EXPECT_DOUBLE_EQ(R.Cycles, 5);
  EXPECT_EQ(R.Bottleneck, "recurrence");
  EXPECT_DOUBLE_EQ(R.PortBound, 2); // 4 FMAs on 2 ports
  EXPECT_NE(R.Advice.find("use 10 independent chains"), std::string::npos) << R.Advice;
}

TEST(InCore, HaswellTenAccumulatorsArePortBoundAtTwoFmaPerCycle) {
  InCoreResult R = run("fma-10acc.s", "haswell");
  EXPECT_DOUBLE_EQ(R.Cycles, 5); // 10 FMAs / 2 per cycle
  EXPECT_EQ(R.Bottleneck, "ports");
  EXPECT_DOUBLE_EQ(portLoad(R, "HWPort0"), 5);
  EXPECT_DOUBLE_EQ(portLoad(R, "HWPort1"), 5);
  EXPECT_NE(R.PortBottleneck.find("HWPort0"), std::string::npos);
}

TEST(InCore, HaswellFiveLoadsAreLoadPortBound) {
  // 5 loads over ports 2 and 3: 2.5 cy; the other 2 fused uops do not matter.
  InCoreResult R = run("loads-5.s", "haswell");
  EXPECT_DOUBLE_EQ(R.Cycles, 2.5);
  EXPECT_DOUBLE_EQ(portLoad(R, "HWPort2"), 2.5);
  EXPECT_DOUBLE_EQ(portLoad(R, "HWPort3"), 2.5);
  EXPECT_DOUBLE_EQ(R.TnOL, 2.5); // ECM: loads are data transfers
  EXPECT_LT(R.TOL, 1);
}

TEST(InCore, HaswellDivisionsAreDividerBound) {
  // vdivpd ymm is not pipelined: about 27-28 cycles each on Haswell
  // (uops.info measures 27; LLVM's model charges HWFPDivider 28).
  InCoreResult R = run("vdivpd.s", "haswell");
  EXPECT_EQ(R.Bottleneck, "ports");
  EXPECT_NE(R.PortBottleneck.find("Divider"), std::string::npos) << R.PortBottleneck;
  EXPECT_GE(R.Cycles, 2 * 25.0);
  EXPECT_LE(R.Cycles, 2 * 28.0);
}

TEST(InCore, SkylakeEightAccumulatorsSaturateTheFmaPorts) {
  // FMA latency 4 on 2 ports: 1 chain -> 4 cy; 8 chains -> 8 FMAs in 4 cy.
  InCoreResult One = run("fma-1acc.s", "skylake-avx512");
  EXPECT_DOUBLE_EQ(One.Cycles, 4);
  EXPECT_EQ(One.Bottleneck, "recurrence");
  InCoreResult Eight = run("fma-8acc.s", "skylake-avx512");
  EXPECT_DOUBLE_EQ(Eight.Cycles, 4);
  EXPECT_EQ(Eight.Bottleneck, "ports");
  EXPECT_DOUBLE_EQ(portLoad(Eight, "SKXPort0"), 4);
  InCoreResult Four = run("fma-4acc.s", "skylake-avx512");
  EXPECT_NE(Four.Advice.find("use 8 independent chains"), std::string::npos)
      << Four.Advice;
  // vdivpd ymm: 8 cycles per division on Skylake-SP's divider.
  InCoreResult Div = run("vdivpd.s", "skylake-avx512");
  EXPECT_DOUBLE_EQ(Div.Cycles, 16);
  InCoreResult Loads = run("loads-5.s", "skylake-avx512");
  EXPECT_DOUBLE_EQ(Loads.Cycles, 2.5);
}

TEST(InCore, Zen4LatencyAndThreeLoadPorts) {
  // FMA latency 4: one chain costs 4 cy per iteration. Loads: 3 AGUs, so
  // 5 loads take 5/3 cy.
  InCoreResult One = run("fma-1acc.s", "znver4");
  EXPECT_DOUBLE_EQ(One.RecurrenceBound, 4);
  InCoreResult Loads = run("loads-5.s", "znver4");
  EXPECT_NEAR(Loads.Cycles, 5.0 / 3, 1e-9);
  EXPECT_EQ(Loads.Bottleneck, "ports");
}

TEST(InCore, HexBlocksAndBadInput) {
  // vaddpd ymm0, ymm0, ymm1 (c5 fd 58 c1): a 3-cycle add chain on Haswell.
  std::string Err;
  auto Bytes = parseHex("c5 fd 58 c1", Err);
  ASSERT_TRUE(Bytes) << Err;
  InCoreOptions O;
  InCoreResult R = analyzeBlockBytes(*Bytes, O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_EQ(R.Instrs.size(), 1u);
  EXPECT_DOUBLE_EQ(R.RecurrenceBound, 3);
  EXPECT_FALSE(parseHex("c5 fd 5", Err));
  EXPECT_FALSE(parseHex("zz", Err));
  EXPECT_FALSE(parseHex("", Err));
  // 0x06 (push es) does not exist in 64-bit mode.
  InCoreResult Bad = analyzeBlockBytes({0x06}, O);
  EXPECT_FALSE(Bad.Ok);
  EXPECT_NE(Bad.Reason.find("invalid instruction bytes at offset 0"), std::string::npos);
  O.Cpu = "pentium9";
  EXPECT_FALSE(analyzeBlockBytes(*Bytes, O).Ok);
  EXPECT_FALSE(analyzeAssemblyFile(Src + "/no-such.s", InCoreOptions()).Ok);
}

TEST(InCore, FindsTheVectorBodyOfACompiledTriad) {
  // clang -O3 -march=haswell vectorises a[i] = b[i] + s*c[i] with 4 doubles
  // per ymm and unrolls by 4: 16 source iterations per trip. Per trip:
  // 8 loads (4 of them fused into the FMAs) and 4 stores; 1 store per cycle
  // (port 4) makes it 4 cy per trip = 0.25 cy per source iteration.
  FrontendOptions F;
  F.File = Src + "/examples/triad.c";
  FrontendResult FR = runFrontend(F);
  ASSERT_TRUE(FR.Ok);
  InCoreOptions O;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  ASSERT_EQ(R.size(), 1u);
  ASSERT_TRUE(R[0].Ok) << R[0].Reason;
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 16);
  EXPECT_DOUBLE_EQ(R[0].Cycles / R[0].SourceItersPerIter, 0.25);
  EXPECT_DOUBLE_EQ(R[0].PortLoad[std::find(R[0].Ports.begin(), R[0].Ports.end(),
                                           "HWPort4") -
                                 R[0].Ports.begin()],
                   4);
  EXPECT_NE(R[0].MachineLoop.find("triad"), std::string::npos);
  for (const InstrCost &C : R[0].Instrs)
    EXPECT_TRUE(C.Line == 6 || C.Line == 7) << C.Text << " line " << C.Line;
}

TEST(InCore, UnmodelledAndMissingLoopsSayWhy) {
  FrontendOptions F;
  F.File = Src + "/examples/unsupported.c";
  FrontendResult FR = runFrontend(F);
  ASSERT_TRUE(FR.Ok);
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, InCoreOptions());
  ASSERT_EQ(R.size(), FR.IR.Loops.size());
  for (size_t I = 0; I < R.size(); ++I) {
    if (!FR.IR.Loops[I].Modelled)
      EXPECT_EQ(R[I].Reason, "loop not modelled");
    else
      EXPECT_TRUE(R[I].Ok) << R[I].Reason;
  }
  // Flags that break the compile are reported, not fatal.
  std::vector<InCoreResult> Broken =
      analyzeKernelLoops(FR.IR, {"-fno-such-flag-for-clang"}, InCoreOptions());
  for (size_t I = 0; I < Broken.size(); ++I)
    if (FR.IR.Loops[I].Modelled)
      EXPECT_NE(Broken[I].Reason.find("cannot compile"), std::string::npos);
}

TEST(InCore, StackEngineBreaksPushPopChains) {
  // add rsp, 8; pop rbx; pop rbp; pop r12; pop r13 (BHive block): the stack
  // engine updates RSP for pops in the front end, so there is no 4 x 5-cycle
  // chain through RSP (llvm-mca-19 reports one); the 4 loads on 2 ports and
  // 5 fused uops at 4 per cycle bound it.
  std::string Err;
  auto Bytes = parseHex("4883c4085b5d415c415d", Err);
  ASSERT_TRUE(Bytes) << Err;
  InCoreResult R = analyzeBlockBytes(*Bytes, InCoreOptions());
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_LE(R.RecurrenceBound, 1);
  EXPECT_DOUBLE_EQ(R.Cycles, 2); // 4 pops (loads) on ports 2 and 3
}

TEST(InCore, StoreToLoadForwardingCarriesTheDependence) {
  // vaddsd xmm0, xmm1, [rdi]; vmovsd [rdi], xmm0: each iteration reads what
  // the previous one stored at the same address. Round trip through memory
  // (store forwarding, about a load latency: 5) plus the add (3): 8 cy. A
  // model without memory dependences would see only the 1-cycle counter.
  InCoreResult R = run("store-forward.s", "haswell");
  EXPECT_DOUBLE_EQ(R.RecurrenceBound, 8);
  EXPECT_EQ(R.Bottleneck, "recurrence");
  EXPECT_DOUBLE_EQ(R.ScheduledCycles, 8);
}

TEST(InCore, ListScheduleAgreesWithTheBoundsOnSimpleLoops) {
  // Port-bound, latency-bound and divider-bound loops: the cycle-driven
  // schedule over 120 iterations reaches the analytic bound (within the
  // rounding of its steady-state window).
  for (const char *F : {"fma-1acc.s", "fma-4acc.s", "fma-10acc.s", "loads-5.s", "vdivpd.s"}) {
    InCoreResult R = run(F, "haswell");
    EXPECT_NEAR(R.ScheduledCycles, R.Cycles, 0.02 * R.Cycles) << F;
  }
}

TEST(InCore, LatencyOverrideAppliesToTheOperationOfALoadOpForm) {
  // LLVM 19's znver5 model gives vaddsd 3 cycles (Zen 4's); Zen 5 adds in 2.
  // The override is the operation's latency: the chain through xmm0 is 2 cy
  // per iteration, not 2 + the load's part (LLVM's 7-cycle ReadAdvance).
  EXPECT_DOUBLE_EQ(run("addsd-1acc.s", "znver5").RecurrenceBound, 3);
  InCoreOptions O;
  O.Cpu = "znver5";
  InstructionOverride Ov;
  Ov.Form = "vaddsd";
  Ov.LatencyCy = 2;
  O.Overrides.push_back(Ov);
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/addsd-1acc.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_DOUBLE_EQ(R.RecurrenceBound, 2);
  EXPECT_DOUBLE_EQ(R.Cycles, 2);
}

// In-core model on assembly inputs, per CPU, against hand derivations.
// Latencies and port counts cited: Intel 64 and IA-32 Optimization Reference
// Manual (Haswell: FMA latency 5 on ports 0 and 1, loads on ports 2 and 3;
// Skylake-SP: FMA latency 4 on ports 0 and 1) and AMD's Zen 4 software
// optimisation guide (FMA latency 4; three load AGUs).
#include "Block.h"
#include "ObjectCode.h"
#include "perfmodel/Frontend.h"
#include "perfmodel/InCore.h"
#include "perfmodel/MachineModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

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

/// The front end's result for FILE, relative to the source tree, with the
/// -D sizes DEFINES.
FrontendResult frontendOfFile(const std::string &File,
                              std::map<std::string, int64_t> Defines = {}) {
  FrontendOptions F;
  F.File = Src + "/" + File;
  F.Defines = std::move(Defines);
  return runFrontend(F);
}

/// The compiled loop of tests/incore/FILE (its only one) for LLVM's CPU,
/// clang-19 -O3 -march=CPU, with the -D sizes DEFINES; STEP: its innermost
/// step.
InCoreResult cpuLoop(const std::string &Cpu, const std::string &File,
                     std::map<std::string, int64_t> Defines = {}, int64_t *Step = nullptr,
                     InCoreOptions O = {}) {
  FrontendResult FR = frontendOfFile("tests/incore/" + File, std::move(Defines));
  if (!FR.Ok || FR.IR.Loops.size() != 1) {
    ADD_FAILURE() << File << ": " << FR.Error << " (" << FR.IR.Loops.size() << " loops)";
    return {};
  }
  EXPECT_TRUE(FR.IR.Loops[0].Modelled) << FR.IR.Loops[0].Reason;
  if (Step)
    *Step = FR.IR.Loops[0].innermost().Step;
  O.Cpu = Cpu;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  EXPECT_EQ(R.size(), 1u);
  if (R.empty())
    return {};
  EXPECT_TRUE(R[0].Ok) << R[0].Reason;
  return R[0];
}

/// cpuLoop on Zen 5.
InCoreResult zen5Loop(const std::string &File, std::map<std::string, int64_t> Defines = {},
                      int64_t *Step = nullptr, InCoreOptions O = {}) {
  return cpuLoop("znver5", File, std::move(Defines), Step, std::move(O));
}

/// The nest's machine loops as source iterations per trip -> trips.
std::map<double, double> tripsByIterations(const NestResult &E) {
  std::map<double, double> Trips;
  for (const auto &[Iters, T] : E.Runs)
    Trips[Iters] += T;
  return Trips;
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
  EXPECT_EQ(R.Bottleneck, InCoreBound::Recurrence);
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
  EXPECT_EQ(R.Bottleneck, InCoreBound::Recurrence);
  EXPECT_DOUBLE_EQ(R.PortBound, 2); // 4 FMAs on 2 ports
  EXPECT_NE(R.Advice.find("use 10 independent chains"), std::string::npos) << R.Advice;
}

TEST(InCore, HaswellTenAccumulatorsArePortBoundAtTwoFmaPerCycle) {
  InCoreResult R = run("fma-10acc.s", "haswell");
  EXPECT_DOUBLE_EQ(R.Cycles, 5); // 10 FMAs / 2 per cycle
  EXPECT_EQ(R.Bottleneck, InCoreBound::Ports);
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
  EXPECT_EQ(R.Bottleneck, InCoreBound::Ports);
  EXPECT_NE(R.PortBottleneck.find("Divider"), std::string::npos) << R.PortBottleneck;
  EXPECT_GE(R.Cycles, 2 * 25.0);
  EXPECT_LE(R.Cycles, 2 * 28.0);
}

TEST(InCore, SkylakeEightAccumulatorsSaturateTheFmaPorts) {
  // FMA latency 4 on 2 ports: 1 chain -> 4 cy; 8 chains -> 8 FMAs in 4 cy.
  InCoreResult One = run("fma-1acc.s", "skylake-avx512");
  EXPECT_DOUBLE_EQ(One.Cycles, 4);
  EXPECT_EQ(One.Bottleneck, InCoreBound::Recurrence);
  InCoreResult Eight = run("fma-8acc.s", "skylake-avx512");
  EXPECT_DOUBLE_EQ(Eight.Cycles, 4);
  EXPECT_EQ(Eight.Bottleneck, InCoreBound::Ports);
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
  EXPECT_EQ(Loads.Bottleneck, InCoreBound::Ports);
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
  FrontendResult FR = frontendOfFile("examples/triad.c");
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

TEST(InCore, ACounterInTheAccumulatorGivesTheTripsSourceIterations) {
  // tests/incore/global-arrays.c on Zen 5: 20 zmm loads (folded into the
  // adds) and 20 zmm stores a trip, each 16 floats: 320 source iterations,
  // which `add rax, 320` (opcode 05, the accumulator form, whose register is
  // implicit) advances the element counter by, scaled by 4 in the
  // addresses. It was taken as 1 (a trip's cycles read as one iteration's).
  InCoreResult R = zen5Loop("global-arrays.c");
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 320);
  EXPECT_TRUE(llvm::any_of(R.Instrs, [](const InstrCost &C) {
    return llvm::StringRef(C.Text).trim() == "add rax, 320";
  }));
}

TEST(InCore, ACallToAFunctionOfTheFileRunsItsCode) {
  // tests/incore/same-file-call.c: twice() calls sq1 (vfmadd213ss from a
  // constant, ret) two times an iteration. The calls are costed with sq1's
  // instructions spliced in after each call: two FMAs and two returns in the
  // body, no callee left uncosted. With core.call_return_cy = 4 (the Zen 5
  // VM's measured pair, bench/incore/calls.c) the two pairs bound the body
  // at 2 x 4 = 8 cy, above its ports (two loads, two FMAs, a store, the
  // counter: about 2 cy): 8.04 cy timed there for this loop's shape.
  InCoreResult Plain = zen5Loop("same-file-call.c", {{"n", 2000}});
  auto Count = [](const InCoreResult &R, llvm::StringRef Text) {
    return llvm::count_if(R.Instrs, [&](const InstrCost &C) {
      return llvm::StringRef(C.Text).trim().starts_with(Text);
    });
  };
  EXPECT_EQ(Count(Plain, "vfmadd"), 2);
  EXPECT_EQ(Count(Plain, "ret"), 2);
  EXPECT_TRUE(Plain.UncostedCallees.empty());
  EXPECT_EQ(Plain.CallReturnBound, 0);
  EXPECT_LT(Plain.Cycles, 4);
  InCoreOptions O;
  O.CallReturnCycles = 4;
  InCoreResult Pairs = zen5Loop("same-file-call.c", {{"n", 2000}}, nullptr, O);
  EXPECT_DOUBLE_EQ(Pairs.CallReturnBound, 8);
  EXPECT_DOUBLE_EQ(Pairs.Cycles, 8);
  EXPECT_EQ(Pairs.Bottleneck, InCoreBound::FrontEnd);
  EXPECT_TRUE(llvm::StringRef(Pairs.Advice).starts_with("call-bound")) << Pairs.Advice;
}

TEST(InCore, AnIndexedPlaceStoredAndLoadedEveryIterationIsAChain) {
  // tests/incore/memory-accumulator.c on Zen 5: tmp[i] is loaded (folded
  // into the FMA) and stored every iteration at [base + 8*index], the index
  // fixed in the inner loop. Each FMA waits for the previous store's data:
  // store-to-load forwarding (5 cy) plus the FMA (4 cy) at least, 9 cy per
  // source iteration (PolyBench's gesummv, the same two chains side by side,
  // timed 12.4 cy/it on the Zen 5 VM). The address, base plus a variable
  // index, was not followed: no chain, 3 cy/it from the ports.
  InCoreResult R = zen5Loop("memory-accumulator.c", {{"n", 250}});
  ASSERT_GT(R.SourceItersPerIter, 0);
  double PerIt = R.RecurrenceBound / R.SourceItersPerIter;
  EXPECT_GE(PerIt, 9.0);
  EXPECT_LE(PerIt, 12.0);
}

TEST(InCore, ARegisterSteppedVectorLoopCountsItsLanes) {
  // tests/incore/runtime-step.c at n3 = 1 on Zen 5: clang's unit-step zmm
  // copy advances its addresses by a register, which no immediate tells.
  // Its memory operands: 4 zmm loads of a, 4 of b (folded into the adds)
  // and 4 zmm stores of a, 12 for the source's 3 references an iteration:
  // 4 copies of 16 floats, 64 source iterations a trip. It was taken as one
  // (7 cy/it for 64 iterations' work: TSVC s172 +4494 %, -24 % now).
  InCoreResult R = zen5Loop("runtime-step.c", {{"n3", 1}});
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 64);
}

TEST(InCore, ACounterSteppedTwiceAPassAdvancesByBoth) {
  // tests/incore/isamax-stride.c (TSVC's s318) on Zen 3: clang unrolls the
  // branching body 8 times, 7 copies then `add edi, 7` then the eighth and
  // `inc edi`; the loads advance by a register (the run-time inc), so the
  // counter alone tells the trip: 8 source iterations a pass, 16 for the
  // trip's two walks (one down each arm). The last step had been taken for
  // the whole pass: 1 a walk, 8 times the cycles per iteration (s318 +473 %
  // on the Zen 3 VM).
  InCoreResult R = cpuLoop("znver3", "isamax-stride.c", {{"inc", 1}});
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 16);
  EXPECT_TRUE(llvm::any_of(R.Instrs, [](const InstrCost &C) {
    return llvm::StringRef(C.Text).trim() == "add edi, 7";
  }));
}

TEST(InCore, AVectorCopyWhoseOverlapCheckFailsDoesNotRun) {
  // tests/incore/floyd-row.c on Zen 3: clang emits a ymm copy of the j loop
  // (64 iterations a trip) with path[i][k] hoisted, guarded by a check that
  // path[i][k] is not among the path[i][j] it writes; for every k in
  // [0, 500) it is, so the scalar copy (8 a trip) runs. The vector copy had
  // been costed: 0.34 cy/it where PolyBench's floyd-warshall (MEDIUM) timed
  // 2.0 on the Zen 3 VM (-83 %; the scalar copy's 1.67, -16 %).
  EXPECT_DOUBLE_EQ(cpuLoop("znver3", "floyd-row.c").SourceItersPerIter, 8);
  // tests/incore/elimination-row.c: a[i][k] beside a[i][j] for j from k + 1
  // lies outside the written range: the check passes and the vector copy,
  // 4 ymm of doubles a trip, runs.
  EXPECT_DOUBLE_EQ(cpuLoop("znver3", "elimination-row.c").SourceItersPerIter, 16);
}

TEST(InCore, GlobalsAddressedBeforeRelocationDoNotOverlap) {
  // tests/incore/global-rows.c on Zen 5: the loop (fully unrolled, 255
  // iterations) loads row 1 and stores row 0 through RIP-relative operands
  // whose displacements are relocations not yet applied. They had been
  // taken as the instructions' own addresses, so loads "partly overlapped"
  // earlier stores and waited for them: a 206 cy chain a trip (TSVC s132
  // +497 %). Nothing carries from one iteration to the next: the ports bind.
  InCoreResult R = zen5Loop("global-rows.c", {{"n", 1000}});
  ASSERT_GT(R.SourceItersPerIter, 0);
  EXPECT_LT(R.RecurrenceBound, R.PortBound);
  EXPECT_FALSE(llvm::any_of(R.Notes, [](const std::string &N) {
    return N.find("overlap an earlier store") != std::string::npos;
  }));
}

TEST(InCore, AFullyUnrolledVectorCopyDoesItsIterationsInTheNest) {
  // tests/incore/unrolled-vector-copy.c on Zen 5: per k, clang's zmm copy of
  // the j loop, unrolled into the k loop, stores c[j] 24 times 8 doubles:
  // 192 of the 220 iterations. The loop versions do the other 28: the
  // scalar loop 3 trips of 8, the one-iteration loop 4. They had been given
  // all 220 (1 cy/it, as if the scalar loop ran; PolyBench's gemm +298 %,
  // -10 % now on the Zen 5 VM).
  InCoreResult R = zen5Loop("unrolled-vector-copy.c", {{"nk", 240}});
  InCoreOptions O;
  O.Cpu = "znver5";
  executeNestTrips(R, 220, O);
  ASSERT_TRUE(R.Executed.Ok) << R.Executed.Reason;
  std::map<double, double> Trips = tripsByIterations(R.Executed);
  EXPECT_EQ(Trips[8], 3);
  EXPECT_EQ(Trips[1], 4);
  EXPECT_LT(R.Executed.Cycles, 0.5);
}

TEST(InCore, TheScalarFallbackOfAVersionedLoopDoesNotRunBesideIt) {
  // tests/incore/versioned-streams.c on Zen 3 (LCALS's MULADDSUB): a ymm
  // copy and a scalar copy unrolled as far cover 4 iterations a trip each;
  // the scalar one, which loads in1[i] and in2[i] for each statement, runs
  // only where a run-time check finds the arrays overlapping. The scalar
  // copy had won the tie (more instructions) and both had been given the
  // row's trips as copies of an unrolled outer loop: 3.67 cy/it at n = 171
  // where LCALS timed 1.07 on the Zen 3 VM. The ymm copy: 3 stores and 2
  // loads a trip, about 1 cy/it.
  InCoreResult R = cpuLoop("znver3", "versioned-streams.c", {{"reps", 100}, {"n", 171}});
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 4);
  EXPECT_TRUE(llvm::any_of(R.Instrs, [](const InstrCost &C) {
    return llvm::StringRef(C.Text).contains("ymm");
  }));
  InCoreOptions O;
  O.Cpu = "znver3";
  executeNestTrips(R, 171, O);
  ASSERT_TRUE(R.Executed.Ok) << R.Executed.Reason;
  std::map<double, double> Trips = tripsByIterations(R.Executed);
  EXPECT_EQ(Trips[4], 42); // the ymm copy alone: 168 of the 171
  EXPECT_EQ(Trips[1], 3);
  EXPECT_LT(R.Executed.Cycles, 1.3);
}

TEST(InCore, ASiblingsUnrolledCopyIsPricedOnceInItsOwnNest) {
  // tests/incore/sibling-unrolled.c on Zen 5 (PolyBench's gramschmidt): the
  // k loop holds the reduction loop, then the scaling loop's fully unrolled
  // zmm copy (25 vdivpd zmm, 3.9 cy each on the divider: at least 97 cy a
  // k, 0.49 cy per source iteration of 200) beside its scalar loop. The
  // copy is the scaling nest's work; the reduction's outer code is the k
  // loop's own: a square root, a store and the loop control, under 40 cy
  // even in series (0.2 cy/it). It had the copy too: 2.19 cy/it of outer
  // code, the copy counted in both nests (gramschmidt +29 %, +1 % now).
  FrontendResult FR = frontendOfFile("tests/incore/sibling-unrolled.c", {{"n", 240}});
  ASSERT_TRUE(FR.Ok) << FR.Error;
  ASSERT_EQ(FR.IR.Loops.size(), 2u);
  InCoreOptions O;
  O.Cpu = "znver5";
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  ASSERT_EQ(R.size(), 2u);
  for (InCoreResult &X : R) {
    ASSERT_TRUE(X.Ok) << X.Reason;
    executeNestTrips(X, 200, O);
    ASSERT_TRUE(X.Executed.Ok) << X.Executed.Reason;
  }
  EXPECT_LT(R[0].Executed.Overhead, 0.2);
  EXPECT_GE(R[1].Executed.Overhead, 0.49);
}

TEST(InCore, ARegisterSteppedScalarLoopCountsItsCounter) {
  // tests/incore/column-sum.c on Zen 5: 17 scalar loads of bb[j * R + i]
  // a trip, their addresses advanced by registers (R is a run-time row
  // length); the counter steps by 17. The trip was taken as one source
  // iteration: 33.5 cy/it where 17 iterations take the 34 cy of the add
  // chain (bench/memory/conflicts.c timed 1.48 cy/it at R = 272).
  InCoreResult R = zen5Loop("column-sum.c", {{"R", 272}});
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 17);
}

TEST(InCore, AContiguousCopyForARowOfOneDoesNotRunAtLongerRows) {
  // tests/incore/column-fill.c on Zen 5 at R = 272: clang's copy for R == 1
  // stores 248 floats in zmm and ymm stores, wider than aa[j * R + i] can
  // be at R = 272 (4 bytes, 1088 apart). It had been counted as doing 248
  // of the 255 iterations, the scalar loop (8 a trip) none. The scalar loop
  // runs 31 trips (248 iterations), its remainder 7.
  InCoreResult R = zen5Loop("column-fill.c", {{"R", 272}});
  InCoreOptions O;
  O.Cpu = "znver5";
  executeNestTrips(R, 255, O);
  ASSERT_TRUE(R.Executed.Ok) << R.Executed.Reason;
  std::map<double, double> Trips = tripsByIterations(R.Executed);
  EXPECT_EQ(Trips[8], 31);
  EXPECT_EQ(Trips[1], 7);
}

TEST(InCore, AVectorStoreIsNotTheTripOfAReferenceThatSkipsElements) {
  // tests/incore/gather-stride8.c on Zen 5: four zmm gathers of b[8 * i] and
  // four zmm stores of a[i] a trip, 8 doubles each: 32 source iterations.
  // The stores' register advances 256 bytes, 32 of a's 8-byte stride and 4
  // of b's 64-byte one; a 64-byte store cannot be b's (8-byte elements 64
  // bytes apart), so only a's counts. It was a tie, taken as 4 (8.48 cy/it
  // where the trip's 33.9 cy cover 32: 1.06).
  InCoreResult R = zen5Loop("gather-stride8.c");
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 32);
  EXPECT_EQ(llvm::count_if(R.Instrs,
                           [](const InstrCost &C) {
                             return llvm::StringRef(C.Text).contains("vgatherqpd zmm");
                           }),
            4);
}

TEST(InCore, AStepBoundToASizeCostsTheVersionThatRunsAtIt) {
  // tests/incore/step-size.c with k = 4: a[i] and b[i] are 32 bytes apart
  // an iteration, 8-byte elements. The version clang made for k == 1 moves
  // them in 64-byte zmm accesses, which neither reference can be at k = 4;
  // the scalar version (one load, one store an iteration) is the one that
  // runs: 1 source iteration a trip, no zmm access. It was the zmm copy, 4
  // cy/it (timed 1.1 at L1 on the Zen 5 VM; now 0.98).
  int64_t Step = 0;
  InCoreResult R = zen5Loop("step-size.c", {{"k", 4}, {"n", 100000}}, &Step);
  EXPECT_EQ(Step, 4);
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 1);
  EXPECT_FALSE(llvm::any_of(R.Instrs, [](const InstrCost &C) {
    return llvm::StringRef(C.Text).contains("zmm");
  }));
}

TEST(InCore, ARecurrenceWithoutAccessesIsUnrolledByItsCounterStep) {
  // s = s * 1.0001 + 1.0 contracts to one vfmadd213sd per iteration; clang
  // -O3 -march=haswell unrolls by 8 (`add rcx, -8`), a chain of 8 FMAs of
  // 5 cy each (uops.info, Haswell) = 40 cy per trip. With no access to tell
  // the unrolling, the counter's step does: 8 source iterations per trip,
  // 5 cy per source iteration (it was taken as 1 and read 40).
  FrontendResult FR = frontendOfFile("tests/choose/trip-counts.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, InCoreOptions());
  ASSERT_EQ(R.size(), FR.IR.Loops.size());
  for (size_t I = 0; I < R.size(); ++I) {
    ASSERT_TRUE(R[I].Ok) << FR.IR.Loops[I].Function << ": " << R[I].Reason;
    EXPECT_DOUBLE_EQ(R[I].Cycles / R[I].SourceItersPerIter, 5) << FR.IR.Loops[I].Function;
  }
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 8);
}

TEST(InCore, UnmodelledAndMissingLoopsSayWhy) {
  FrontendResult FR = frontendOfFile("examples/unsupported.c");
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
  EXPECT_EQ(R.Bottleneck, InCoreBound::Recurrence);
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

TEST(InCore, FractionalUnitCyclesCarryOverInTheListSchedule) {
  // A measured 1.27 cycles of FP1 per vpermpd (machine-models/zen3, probe):
  // FP1 carries 4 x 1.27 = 5.08 cy per iteration, the unpacks go to FP2 (4
  // cy), so both the bound and the schedule are 5.08 (timed: 5.3). Had the
  // schedule rounded each permute up to whole cycles it would need 8.
  InCoreOptions O;
  O.Cpu = "znver3";
  InstructionOverride Ov;
  Ov.Form = "vpermpd ymm";
  Ov.Ports["Zn3FP1"] = 1.27;
  O.Overrides.push_back(Ov);
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/vpermpd-unpck.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_NEAR(R.PortBound, 5.08, 1e-9);
  EXPECT_NEAR(R.ScheduledCycles, 5.08, 0.05);
  // LLVM 19's one cycle each: 4 on FP1 beside 4 unpacks on FP2.
  InCoreResult L = run("vpermpd-unpck.s", "znver3");
  EXPECT_NEAR(L.PortBound, 4, 1e-9);
}

//===----------------------------------------------------------------------===//
// Counting the source as written (--incore source), by hand.
//===----------------------------------------------------------------------===//

namespace {

MachineModel machineFile(const std::string &Name, std::vector<std::string> Sets = {}) {
  MachineLoadResult R = loadMachineModel(Src + "/machine-models/" + Name, Sets);
  EXPECT_TRUE(R.ok());
  return R.ok() ? *R.Model : MachineModel();
}

/// Loop 0 of FILE (relative to the source tree) counted from the source.
InCoreResult fromSource(const std::string &File, const MachineModel &M,
                        std::vector<std::string> Args = {"-mavx2", "-mfma"}) {
  FrontendOptions F;
  F.File = Src + "/" + File;
  F.CompileArgs = std::move(Args);
  F.HasCompileArgs = true;
  FrontendResult FR = runFrontend(F);
  EXPECT_TRUE(FR.Ok) << FR.Error;
  if (!FR.Ok || FR.IR.Loops.empty())
    return {};
  InCoreResult R = sourceInCore(FR.IR.Loops[0], M, nullptr);
  EXPECT_TRUE(R.Ok) << R.Reason;
  return R;
}

/// CODE written to a temporary C file and run through the front end; the
/// file is removed unless KEEP (then KEEP names it, for compiling it too).
FrontendResult frontendOf(const std::string &Code, std::vector<std::string> Args = {},
                          std::string *Keep = nullptr) {
  llvm::SmallString<128> Path;
  llvm::sys::fs::createTemporaryFile("perfmodel-source", "c", Path);
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Code;
  }
  FrontendOptions F;
  F.File = std::string(Path);
  F.CompileArgs = std::move(Args);
  F.HasCompileArgs = true;
  FrontendResult FR = runFrontend(F);
  if (Keep)
    *Keep = std::string(Path);
  else
    llvm::sys::fs::remove(Path);
  EXPECT_TRUE(FR.Ok) << FR.Error;
  return FR;
}

} // namespace

TEST(InCore, FmasAndFpStoresShareASlotOnZen3) {
  // machine-models/zen3: half a cycle of the store-data unit (Zn3FPSt, one
  // store a cycle) per FMA. 24 FMAs and 8 ymm stores: 24 x 0.5 + 8 = 20 cy
  // (timed 18.8-20.0); the FMA pipes alone 24 / 2 = 12 (LLVM 19's figure).
  // Multiplies instead of FMAs take no store slot: 12.
  InCoreOptions O;
  O.Cpu = "znver3";
  O.Overrides = machineFile("zen3-epyc-7763.yml").Core.Overrides;
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/fma-stores.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_NEAR(R.PortBound, 20, 1e-9);
  EXPECT_NEAR(R.ScheduledCycles, 20, 0.05);
  InCoreResult M = analyzeAssemblyFile(Src + "/tests/incore/mul-stores.s", O);
  ASSERT_TRUE(M.Ok) << M.Reason;
  EXPECT_NEAR(M.PortBound, 12, 1e-9);
  EXPECT_NEAR(run("fma-stores.s", "znver3").PortBound, 12, 1e-9);
}

// Destinations read as sources, by hand from LLVM 19's latencies:
// - tests/incore/bsr-chain.s: bsr rax, r11 waits for rax's last write (bsr
//   keeps the destination when the source is zero): bsr 3 + xor 1 + sub 1 =
//   5 cy a trip on Skylake and Haswell (BHive measures 4.99 for the block on
//   Skylake), where the ports alone (5 uops) give 1.25; on Zen 3 bsr takes 4:
//   6.
// - tests/incore/popcnt-chain.s: popcnt rbx, r12 then add rbx, 1: popcnt 3 +
//   add 1 = 4 cy on Haswell and Skylake (LLVM's false-deps-popcnt); no chain
//   through rbx on Zen 3 (the loop counter's 1 cy).
TEST(InCore, BsrAndFalseDependencePopcntReadTheirDestination) {
  for (const char *Cpu : {"skylake", "haswell"}) {
    InCoreResult B = run("bsr-chain.s", Cpu);
    EXPECT_NEAR(B.RecurrenceBound, 5, 1e-9) << Cpu;
    EXPECT_NEAR(B.PortBound, 1.25, 1e-9) << Cpu;
    EXPECT_NEAR(run("popcnt-chain.s", Cpu).RecurrenceBound, 4, 1e-9) << Cpu;
  }
  EXPECT_NEAR(run("bsr-chain.s", "znver3").RecurrenceBound, 6, 1e-9);
  EXPECT_NEAR(run("popcnt-chain.s", "znver3").RecurrenceBound, 1, 1e-9);
}

// The PPR paper's counts (section 5) follow from its three algorithms and the
// Haswell file (2 FMA pipes, 2 load ports of 32 B, 1 store port, unaligned
// vector accesses at 2 slots):
//   scalar, per output: 16 multiply-adds -> 16 FMAs / 2 = 8 cy; 16 input loads
//     (the 16 taps do not move with i: registers) / 2 = 8 cy; 1 store.
//   AVX unaligned, per block of 16 outputs: 32 FMAs / 2 = 16 cy; 32
//     _mm256_loadu_ps of `in` (no alignment known) x 2 slots / 2 ports = 32 cy;
//     2 unaligned stores x 2 slots on 1 port = 4 cy.
//   AVX aligned: 32 _mm256_load_ps (aligned by contract) / 2 = 16 cy.
TEST(InCore, SourceCountsReproduceThePprPapersInstructionCosts) {
  MachineModel Hsw = machineFile("haswell-ep-e5-2680v3.yml");
  InCoreResult N = fromSource("examples/ppr-conv1d/conv1d_naive.c", Hsw);
  EXPECT_EQ(N.Basis, InCoreBasis::Source);
  EXPECT_DOUBLE_EQ(N.TOL, 8);
  EXPECT_DOUBLE_EQ(N.TnOL, 8);
  EXPECT_DOUBLE_EQ(N.Classes.Fma, 16);
  EXPECT_DOUBLE_EQ(N.Classes.Add + N.Classes.Mul, 0);
  EXPECT_DOUBLE_EQ(N.Classes.Load, 16);
  EXPECT_DOUBLE_EQ(N.Classes.Store, 1);
  InCoreResult U = fromSource("examples/ppr-conv1d/conv1d_avx_unaligned.c", Hsw);
  EXPECT_DOUBLE_EQ(U.TOL, 16);
  EXPECT_DOUBLE_EQ(U.TnOL, 32);
  EXPECT_DOUBLE_EQ(U.Classes.Load, 32);
  EXPECT_DOUBLE_EQ(portLoad(U, "ST0"), 4);
  EXPECT_NE(U.Advice.find("34 vector accesses are not known to be aligned"), std::string::npos)
      << U.Advice;
  InCoreResult A = fromSource("examples/ppr-conv1d/conv1d_avx_aligned.c", Hsw);
  EXPECT_DOUBLE_EQ(A.TOL, 16);
  EXPECT_DOUBLE_EQ(A.TnOL, 16);
  // Without the unaligned cost the unaligned loads take one slot: 16 cy.
  MachineModel Plain = machineFile("haswell-ep-e5-2680v3.yml", {"core.unaligned_vector_cost=1"});
  EXPECT_DOUBLE_EQ(fromSource("examples/ppr-conv1d/conv1d_avx_unaligned.c", Plain).TnOL, 16);
}

// Which pipe runs what decides the compute time: Haswell adds only on port 1,
// K10 (Opteron 2356) adds on one pipe and multiplies on the other.
//   x[i] = a[i] + b[i] + c[i] + d[i] (3 adds, scalar double):
//     Haswell 3 adds on 1 pipe = 3 cy; K10: 3 cy.
//   y[i] = a[i] * b[i] + c[i] * d[i] (2 mul + 1 add, one pair contracts):
//     Haswell FMA 1 + mul 1 on 2 pipes = 1 cy; K10 (no FMA) 2 mul on the mul
//     pipe = 2 cy, 1 add on the add pipe.
// The 4-5 loads per iteration on 2 ports take 2-2.5 cy.
TEST(InCore, SourceCountsUseTheMachineFilesPipes) {
  FrontendResult FR = frontendOf(
      "void adds(long n, double *restrict x, const double *a, const double *b,\n"
      "          const double *c, const double *d) {\n"
      "  for (long i = 0; i < n; ++i) x[i] = a[i] + b[i] + c[i] + d[i];\n}\n"
      "void muls(long n, double *restrict y, const double *a, const double *b,\n"
      "          const double *c, const double *d) {\n"
      "  for (long i = 0; i < n; ++i) y[i] = a[i] * b[i] + c[i] * d[i];\n}\n");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  ASSERT_EQ(FR.IR.Loops.size(), 2u);
  MachineModel Hsw = machineFile("haswell-ep-e5-2680v3.yml");
  MachineModel K10 = machineFile("opteron-2356-barcelona.yml");
  InCoreResult HA = sourceInCore(FR.IR.Loops[0], Hsw, nullptr);
  ASSERT_TRUE(HA.Ok) << HA.Reason;
  EXPECT_DOUBLE_EQ(HA.TOL, 3);
  EXPECT_DOUBLE_EQ(portLoad(HA, "FP1"), 3);
  EXPECT_DOUBLE_EQ(HA.TnOL, 2);
  InCoreResult HM = sourceInCore(FR.IR.Loops[1], Hsw, nullptr);
  EXPECT_DOUBLE_EQ(HM.TOL, 1);
  EXPECT_DOUBLE_EQ(HM.Classes.Fma, 1);
  EXPECT_DOUBLE_EQ(HM.Classes.Mul, 1);
  InCoreResult KA = sourceInCore(FR.IR.Loops[0], K10, nullptr);
  ASSERT_TRUE(KA.Ok) << KA.Reason;
  EXPECT_DOUBLE_EQ(KA.TOL, 3);
  InCoreResult KM = sourceInCore(FR.IR.Loops[1], K10, nullptr);
  EXPECT_DOUBLE_EQ(KM.TOL, 2);
  EXPECT_DOUBLE_EQ(KM.Classes.Fma, 0);
}

// Alignment is proven from a declared array's alignment and the offsets
// every iteration takes: `alignas(32) float x[]` read with _mm256_loadu_ps at
// x + i (i = 0, 8, 16, ...) is aligned; at x + i + 4 it is not; through a
// pointer parameter nothing is known. Unaligned loads cost 2 slots of 2 ports:
//   aligned:   1 load  -> 0.5 cy;  offset 4: 2 slots -> 1 cy;  pointer: 1 cy.
TEST(InCore, SourceCountsProveAlignmentFromDeclarationsAndOffsets) {
  FrontendResult FR = frontendOf(
      "#include <immintrin.h>\n"
      "_Alignas(32) float x[4096];\n"
      "float s0(void) { __m256 a = _mm256_setzero_ps();\n"
      "  for (long i = 0; i < 4000; i += 8) a = _mm256_add_ps(a, _mm256_loadu_ps(x + i));\n"
      "  return a[0]; }\n"
      "float s4(void) { __m256 a = _mm256_setzero_ps();\n"
      "  for (long i = 0; i < 4000; i += 8) a = _mm256_add_ps(a, _mm256_loadu_ps(x + i + 4));\n"
      "  return a[0]; }\n"
      "float sp(const float *p) { __m256 a = _mm256_setzero_ps();\n"
      "  for (long i = 0; i < 4000; i += 8) a = _mm256_add_ps(a, _mm256_loadu_ps(p + i));\n"
      "  return a[0]; }\n",
      {"-mavx2"});
  ASSERT_TRUE(FR.Ok) << FR.Error;
  ASSERT_EQ(FR.IR.Loops.size(), 3u);
  MachineModel Hsw = machineFile("haswell-ep-e5-2680v3.yml");
  double Expect[] = {0.5, 1, 1};
  for (size_t I = 0; I < 3; ++I) {
    InCoreResult R = sourceInCore(FR.IR.Loops[I], Hsw, nullptr);
    ASSERT_TRUE(R.Ok) << R.Reason;
    EXPECT_DOUBLE_EQ(R.TnOL, Expect[I]) << FR.IR.Loops[I].Function;
    EXPECT_DOUBLE_EQ(R.TOL, 1); // one vector add on Haswell's one add pipe
  }
}

// `a[i] = sqrt(b[i])` without -fno-math-errno: clang-19 -O3 for Haswell
// unrolls by 8 and tests each input; a negative one calls sqrt (errno). The
// calls sit in the loop's address range and the hot vsqrtsd blocks after it.
// The costed body must be the hot path: 8 loads, 8 vsqrtsd, 8 stores, no
// call; LLVM 19's Haswell model holds the divider 14 cycles per vsqrtsd:
// 8 x 14 = 112 cy per trip, 14 cy per element.
TEST(InCore, ColdCallsAreLeftOutAndOutOfLineHotBlocksCounted) {
  std::string File;
  FrontendResult FR = frontendOf("#include <math.h>\n"
                                 "void root(long n, double *restrict a, const double *restrict b) {\n"
                                 "  for (long i = 0; i < n; ++i)\n"
                                 "    a[i] = sqrt(b[i]);\n"
                                 "}\n",
                                 {}, &File);
  ASSERT_EQ(FR.IR.Loops.size(), 1u);
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, InCoreOptions());
  llvm::sys::fs::remove(File);
  ASSERT_EQ(R.size(), 1u);
  ASSERT_TRUE(R[0].Ok) << R[0].Reason;
  unsigned Sqrt = 0, Calls = 0, Loads = 0;
  for (const InstrCost &C : R[0].Instrs) {
    Sqrt += llvm::StringRef(C.Text).starts_with("vsqrtsd");
    Calls += llvm::StringRef(C.Text).starts_with("call");
    Loads += C.MayLoad;
  }
  EXPECT_EQ(Sqrt, 8u);
  EXPECT_EQ(Calls, 0u);
  EXPECT_EQ(Loads, 8u);
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 8);
  EXPECT_DOUBLE_EQ(portLoad(R[0], "HWFPDivider"), 112);
  EXPECT_DOUBLE_EQ(R[0].Cycles / R[0].SourceItersPerIter, 14);
  EXPECT_NE(R[0].MachineLoop.find(", 0x"), std::string::npos) << "out-of-line piece: "
                                                               << R[0].MachineLoop;
}

// A measured divider throughput (what `perfmodel probe` writes) replaces the
// cycles LLVM charges to the named resource and keeps the rest: two vdivpd
// ymm at 5 cycles of HWFPDivider each = 10 cy per iteration (LLVM: 2 x 28),
// and the folded load of the first still occupies the load ports (0.5 + 0.5).
TEST(InCore, PortOverrideReplacesOnlyTheNamedResource) {
  InCoreOptions O;
  O.Cpu = "haswell";
  InstructionOverride Ov;
  Ov.Form = "vdivpd ymm";
  Ov.Ports = {{"HWFPDivider", 5}};
  O.Overrides = {Ov};
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/vdivpd-load.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_DOUBLE_EQ(portLoad(R, "HWFPDivider"), 10);
  EXPECT_DOUBLE_EQ(portLoad(R, "HWPort2") + portLoad(R, "HWPort3"), 1);
  EXPECT_DOUBLE_EQ(R.Cycles, 10);
}

TEST(InCore, ListingOfAWholeFunctionIsCostedByItsLargestInnermostLoop) {
  // listing-dot.s is fma-1acc.s's loop inside its function: prologue, the
  // vector loop (20 bytes), the horizontal reduction and a scalar remainder
  // loop (18 bytes). The vector loop alone: 4 fused uops, 5 cy of FMA chain
  // on Haswell. Costing the listing whole would count its 21 instructions and
  // both chains.
  InCoreResult Whole = run("listing-dot.s", "haswell");
  InCoreResult Loop = run("fma-1acc.s", "haswell");
  EXPECT_EQ(Whole.Uops, 4u);
  EXPECT_DOUBLE_EQ(Whole.Cycles, 5);
  EXPECT_EQ(Whole.Instrs.size(), 5u);
  EXPECT_EQ(Whole.Uops, Loop.Uops);
  EXPECT_DOUBLE_EQ(Whole.Cycles, Loop.Cycles);
  ASSERT_FALSE(Whole.Notes.empty());
  EXPECT_NE(Whole.Notes[0].find("2 innermost loop(s); costed the largest"), std::string::npos)
      << Whole.Notes[0];
  // A bare loop body (one loop that is the whole listing) gets no such note.
  for (const std::string &N : Loop.Notes)
    EXPECT_EQ(N.find("innermost loop"), std::string::npos) << N;
}

TEST(InCore, GlobOverridesReachEveryFormTheyName) {
  // LLVM 19's znver5 (Zen 4's model) charges each scalar FMA and each
  // 512-bit FMA a cycle on both Zn4FP0 and Zn4FP1: 16 FMAs, 16 cy. The Zen 5
  // files' two globs halve that for every FMA variant, scalar single and
  // double, folded load or not: 16 x 0.5 = 8 cy on each pipe, and 8 cy per
  // iteration (two FMAs per cycle, as measured on the Zen 5 VM).
  InCoreOptions O;
  O.Cpu = "znver5";
  InCoreResult Base = analyzeAssemblyFile(Src + "/tests/incore/fma-scalar-zmm.s", O);
  ASSERT_TRUE(Base.Ok) << Base.Reason;
  EXPECT_DOUBLE_EQ(portLoad(Base, "Zn4FP0"), 16);
  EXPECT_DOUBLE_EQ(Base.Cycles, 16);
  InstructionOverride Scalar, Zmm;
  Scalar.Form = "vf*[0-9]s[sd] ";
  Zmm.Form = "vf*[0-9]p[sd] zmm";
  Scalar.Ports = Zmm.Ports = {{"Zn4FP0", 0.5}, {"Zn4FP1", 0.5}};
  O.Overrides = {Scalar, Zmm};
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/fma-scalar-zmm.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_DOUBLE_EQ(portLoad(R, "Zn4FP0"), 8);
  EXPECT_DOUBLE_EQ(portLoad(R, "Zn4FP1"), 8);
  EXPECT_DOUBLE_EQ(R.Cycles, 8);
  EXPECT_TRUE(overrideMatches("vf*[0-9]s[sd] ", "vfnmsub132ss xmm1, xmm2, xmm3"));
  EXPECT_FALSE(overrideMatches("vf*[0-9]s[sd] ", "vfmadd231ps xmm1, xmm2, xmm3"));
  EXPECT_TRUE(overrideMatches("vdivpd ymm", "vdivpd ymm0, ymm1, ymm2")); // a plain prefix
}

TEST(InCore, AZeroPortOverrideTakesTheStoreOffTheLoadPipes) {
  // LLVM 19's Zen 4/5 model charges FP loads and stores to FP45 (2 units)
  // and stores also to the one-unit FPSt: two loads and a store bind FP45 at
  // 3 / 2 = 1.5 cy. The Zen 5 files take stores off FP45 (0 cycles) and give
  // FPSt two per cycle, as measured: FP45 2 / 2 = 1 cy, FPSt 0.5 (the front
  // end: 5 fused uops / 8 = 0.625).
  InCoreOptions O;
  O.Cpu = "znver5";
  InCoreResult Llvm = analyzeAssemblyFile(Src + "/tests/incore/fp-load-store.s", O);
  ASSERT_TRUE(Llvm.Ok) << Llvm.Reason;
  EXPECT_DOUBLE_EQ(portLoad(Llvm, "Zn4FP45"), 3);
  EXPECT_DOUBLE_EQ(Llvm.Cycles, 1.5);
  O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/fp-load-store.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_DOUBLE_EQ(portLoad(R, "Zn4FP45"), 2);
  EXPECT_DOUBLE_EQ(portLoad(R, "Zn4FPSt"), 0.5);
  EXPECT_DOUBLE_EQ(R.Cycles, 1);
}

// The same on the Zen 4 file, whose figures bench/incore/fp_memory.c measured
// on a Zen 4 guest: two xmm loads and a store in 1.0 cy (stores off FP45,
// FPSt one a cycle: FP45 2 / 2 units = 1), and for zmm two 64-byte loads and
// a 64-byte store in 2.51 cy: a zmm load takes both 256-bit load paths
// (FP45 2 unit-cycles), a zmm store two store-path cycles and one load-path
// cycle: per line FP45 (2 + 2 + 1) / 2 = 2.5, FPSt 2; two lines 5 cy.
TEST(InCore, Zen4FpLoadsAndStoresOnTheirDataPaths) {
  InCoreOptions O = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  InCoreResult X = analyzeAssemblyFile(Src + "/tests/incore/fp-load-store.s", O);
  ASSERT_TRUE(X.Ok) << X.Reason;
  EXPECT_DOUBLE_EQ(portLoad(X, "Zn4FP45"), 2);
  EXPECT_DOUBLE_EQ(portLoad(X, "Zn4FPSt"), 1);
  EXPECT_DOUBLE_EQ(X.Cycles, 1);
  InCoreResult Z = analyzeAssemblyFile(Src + "/tests/incore/zmm-load-store.s", O);
  ASSERT_TRUE(Z.Ok) << Z.Reason;
  EXPECT_DOUBLE_EQ(portLoad(Z, "Zn4FP45"), 10);
  EXPECT_DOUBLE_EQ(portLoad(Z, "Zn4FPSt"), 4);
  EXPECT_NEAR(Z.Cycles, 5, 0.05);
}

// Zen 4 loads integer registers three a cycle and vector registers two
// 32-byte parts a cycle, and beside each other their times add: each part
// takes 1.5 of the three load slots (bench/incore/load_mix.sh on a Zen 4
// guest: 12 integer loads 4.15 cy, 6 zmm 6.2, 6 zmm + 12 integer 10.3). By
// hand: 12 integer loads + 6 zmm x 2 parts x 1.5 slots = 30 slots / 3 =
// 10 cy, where the ports and the L1's bytes alone say 7.5 (6 x 64 + 12 x 8
// = 480 B at 64 B/cy); 12 integer loads alone keep 12 / 3 = 4.
TEST(InCore, Zen4IntegerAndVectorLoadsShareTheLoadPipes) {
  InCoreOptions O = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  ASSERT_EQ(O.VectorLoadSlots, 1.5);
  ASSERT_EQ(O.LoadSlotsPerCycle, 3);
  InCoreResult Mix = analyzeAssemblyFile(Src + "/tests/incore/int-beside-vector-loads.s", O);
  ASSERT_TRUE(Mix.Ok) << Mix.Reason;
  EXPECT_NEAR(Mix.Cycles, 10, 0.01);
  InCoreResult Int = analyzeAssemblyFile(Src + "/tests/incore/int-loads.s", O);
  ASSERT_TRUE(Int.Ok) << Int.Reason;
  EXPECT_NEAR(Int.Cycles, 4, 0.01);
  O.VectorLoadSlots = 0; // a core whose file does not say
  InCoreResult Free = analyzeAssemblyFile(Src + "/tests/incore/int-beside-vector-loads.s", O);
  ASSERT_TRUE(Free.Ok) << Free.Reason;
  EXPECT_NEAR(Free.Cycles, 7.5, 0.02);
}

// Zen 4's AVX-512 gathers are microcoded: bench/incore/gather_contention.c on
// a Zen 4 guest measured a chain through vgatherqpd zmm (the gathered values
// are the next indices) at 24.1-24.4 cy per gather, and four vgatherdpd zmm
// beside 32 eliminated register moves each at 13.94 cy per gather, against
// 5.35 for the moves alone: 8.6 cy of dispatch, 51 of its six slots a cycle
// for the kxnorw, vxorpd and gather (zen4: 49 uops for the gather). LLVM 19
// charges 5 cy and one uop: the chain 9.4 (its load pipes), the moves 35.9.
// By hand from the file: the chain 24; the moves 4 x (1 + 1 + 49 + 32) uops
// + the fused loop branch = 333 at 6 a cycle = 55.5 cy (measured 55.8).
TEST(InCore, Zen4GathersAreLongAndTakeManyDispatchSlots) {
  InCoreOptions O = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  InCoreResult Chain = analyzeAssemblyFile(Src + "/tests/incore/gather-chain.s", O);
  ASSERT_TRUE(Chain.Ok) << Chain.Reason;
  EXPECT_DOUBLE_EQ(Chain.RecurrenceBound, 24);
  EXPECT_DOUBLE_EQ(Chain.Cycles, 24);
  InCoreResult Moves = analyzeAssemblyFile(Src + "/tests/incore/gathers-beside-moves.s", O);
  ASSERT_TRUE(Moves.Ok) << Moves.Reason;
  EXPECT_EQ(Moves.Bottleneck, InCoreBound::FrontEnd);
  EXPECT_EQ(Moves.Uops, 333u);
  EXPECT_DOUBLE_EQ(Moves.Cycles, 333.0 / 6);
}

TEST(InCore, AFoldedLoadDoesNotDelayItsRegisterOperand) {
  // tests/incore/load-op-chain.s on znver3: vaddsd (3) -> vaddsd with a
  // folded load (10 with the load; its register operand is read 7 cycles
  // late, LLVM's ReadAdvance) -> vmulsd (3). The load starts before the
  // chain's value is ready: 3 + 3 + 3 = 9 cycles a trip, as timed; clamping
  // the edge into the load-op at 0 gave 3 + 10 = 13 (llvm-mca-19's figure).
  InCoreOptions O;
  O.Cpu = "znver3";
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/load-op-chain.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_DOUBLE_EQ(R.RecurrenceBound, 9);
  EXPECT_DOUBLE_EQ(R.Cycles, 9);
}

TEST(InCore, AnAddsResultLeavesItsBypassGroupACycleLater) {
  // dev-vm-zen5: vsubsd and vaddsd take 2 cycles to an add
  // (bypass_group: fadd), 3 to anything else (latency_cy_outside); vmulsd 3.
  // tests/incore/fp-bypass.s: sub (3, to the multiply) + mul (3) = 6 a
  // trip; tests/incore/fp-add-chain.s: 4 x 2 = 8. Without the group the
  // first would be 5.
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  InCoreResult Cross = analyzeAssemblyFile(Src + "/tests/incore/fp-bypass.s", O);
  ASSERT_TRUE(Cross.Ok) << Cross.Reason;
  EXPECT_DOUBLE_EQ(Cross.RecurrenceBound, 6);
  InCoreResult Adds = analyzeAssemblyFile(Src + "/tests/incore/fp-add-chain.s", O);
  ASSERT_TRUE(Adds.Ok) << Adds.Reason;
  EXPECT_DOUBLE_EQ(Adds.RecurrenceBound, 8);
  // The same files without the groups: the adds' 2 cycles everywhere.
  MachineModel M = machineFile("dev-vm-zen5.yml");
  for (InstructionOverride &Ov : M.Core.Overrides)
    Ov.BypassGroup.clear();
  InCoreResult Plain = analyzeAssemblyFile(Src + "/tests/incore/fp-bypass.s", inCoreOptionsFor(M));
  ASSERT_TRUE(Plain.Ok) << Plain.Reason;
  EXPECT_DOUBLE_EQ(Plain.RecurrenceBound, 5);
}

namespace {

/// The in-core results of FILE's loops with the nest executed at BIND.
std::vector<InCoreResult> nestAt(const std::string &File,
                                 const std::map<std::string, int64_t> &Bind,
                                 const InCoreOptions &O) {
  FrontendResult FR = frontendOfFile("tests/nest/" + File);
  EXPECT_TRUE(FR.Ok) << FR.Error;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  for (size_t I = 0; I < R.size(); ++I)
    executeNest(R[I], FR.IR.Loops[I], Bind, O);
  return R;
}

} // namespace

namespace {

/// tests/incore/idiv-chain.s's recurrence (cdq, idiv, and a trip) and
/// idiv-independent.s's cycles (four divides) with machine file FILE.
void expectDivides(const std::string &File, double ChainCy, double FourCy) {
  InCoreOptions O = inCoreOptionsFor(machineFile(File));
  InCoreResult Chain = analyzeAssemblyFile(Src + "/tests/incore/idiv-chain.s", O);
  ASSERT_TRUE(Chain.Ok) << Chain.Reason;
  EXPECT_DOUBLE_EQ(Chain.RecurrenceBound, ChainCy) << File;
  InCoreResult Four = analyzeAssemblyFile(Src + "/tests/incore/idiv-independent.s", O);
  ASSERT_TRUE(Four.Ok) << Four.Reason;
  EXPECT_DOUBLE_EQ(Four.Cycles, FourCy) << File;
}

} // namespace

TEST(InCore, IntegerDividesTakeTheZen5FilesFigures) {
  // dev-vm-zen5: a 32-bit divide holds the divider 6 cycles and its quotient
  // comes 10 cycles later (int-divide-zen5-vm). The chain cdq, idiv, and is
  // 1 + 10 + 1 = 12 cycles a trip; four independent divides 4 x 6 = 24.
  expectDivides("dev-vm-zen5.yml", 12, 24);
}

TEST(InCore, IntegerDividesTakeTheZen4FilesFigures) {
  // zen4-epyc-9654: a 32-bit divide holds the divider 6 cycles and its
  // quotient comes 8 cycles later (int-divide-zen4-vm: timed 6.0 and a
  // 9.9-10.0-cycle chain). The chain cdq, idiv, and is 1 + 8 + 1 = 10 cycles
  // a trip; four independent divides 4 x 6 = 24, where LLVM 19's 13 cycles
  // made them 52.
  expectDivides("zen4-epyc-9654.yml", 10, 24);
}

TEST(InCore, ScalarConversionsTakeTheZen5FilesFigures) {
  // dev-vm-zen5: a scalar float -> int conversion and an int -> float one
  // from memory take half a cycle of FP2 and of FP3 each (fp-convert-zen5-vm,
  // timed 0.50-0.55 cy a conversion): tests/incore/fp-convert.s's eight are
  // 8 x 0.5 = 4 cycles a trip. LLVM 19's znver5 charges 4 x 2.5 + 4 x 1 = 14.
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/fp-convert.s",
                                       inCoreOptionsFor(machineFile("dev-vm-zen5.yml")));
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_DOUBLE_EQ(R.Cycles, 4);
}

TEST(InCore, ArmsOfBranchesOnCountersRunAsOftenAsTheSizesSay) {
  // tests/nest/counter-branches.c's upscale, clang-19 -O3 -march=znver5
  // (objdump): clang unswitches y + 1 < h out of the j loop; the copy for
  // the rows below the last (upscale+0x1b0) is unrolled by 2 (two stores a
  // pass) and branches on x + 1 < w, which holds in 126 of 128 columns at
  // h = w = 64 (the first branch: 126^2 / 128^2 = 96.9 %); two copies for
  // the last two rows hold only the else-arms (2 x 126 / 128^2 = 1.5 % of
  // the iterations) and are not costed. The trip is four walks, each down
  // the blend (round(4 x 0.969) = 4): 8 source iterations. Timed
  // on the Zen 5 VM at h = w = 64 (clang-19 -O3 -march=native, best of 300
  // calls, three runs): 3.35 cy/it. Before: half the iterations down the
  // edge arm, and a trip of 2 walks of one iteration each (the counter
  // steps through `mov r14, r8` ... `lea r8, [r14 + 1]`).
  FrontendResult FR = frontendOfFile("tests/nest/counter-branches.c",
                                     {{"h", 64}, {"w", 64}, {"n", 1000}});
  ASSERT_TRUE(FR.Ok) << FR.Error;
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  O.Cpu = "znver5";
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  ASSERT_GE(R.size(), 1u);
  ASSERT_TRUE(R[0].Ok) << R[0].Reason;
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 8);
  std::string Notes = llvm::join(R[0].Notes, "|");
  EXPECT_NE(Notes.find("taken in 96.9 %"), std::string::npos) << Notes;
  EXPECT_NE(Notes.find("2 version(s)"), std::string::npos) << Notes;
  double PerIt = R[0].Cycles / R[0].SourceItersPerIter;
  EXPECT_NEAR(PerIt, 3.35, 0.1 * 3.35);
  // zoom (the file's sixth loop): a pass of the machine loop is 4 columns
  // (one x = j / 4: `add r13, 4` over the input's bytes, four stores); its
  // input references move a quarter of an element a column, so only they
  // explain the loads' 4 bytes a pass as 4 iterations (the output's 4
  // bytes a column made it 1). Four walks: 16 a trip.
  ASSERT_GE(R.size(), 6u);
  ASSERT_TRUE(R[5].Ok) << R[5].Reason;
  EXPECT_DOUBLE_EQ(R[5].SourceItersPerIter, 16);
  // argminVolatile: `if (x[k] < x[m]) m = k;` on one line, unrolled by 8
  // with a branch a copy; the update (a store of k, the if's line alone) is
  // told from the way around it (to the latch's line) and runs in none of
  // the four walks (H(999) / 999 = 0.75 % at n = 1000): 32 a trip.
  ASSERT_GE(R.size(), 7u);
  ASSERT_TRUE(R[6].Ok) << R[6].Reason;
  std::string Arg = llvm::join(R[6].Notes, "|");
  EXPECT_NE(Arg.find("takes a new minimum or maximum"), std::string::npos) << Arg;
  EXPECT_NE(Arg.find("costed in their shares"), std::string::npos) << Arg;
  EXPECT_DOUBLE_EQ(R[6].SourceItersPerIter, 32);
}

TEST(InCore, WindowLoopsUnrolledIntoAVectorColumnLoopCountTheirWholeWindow) {
  // tests/nest/window-loops.c, clang-19 -O3 -march=znver5 (objdump): box5's
  // machine loop steps its column register by 16 ints (`add rax, 0x10`, one
  // zmm of int) with all 5 x 5 window loads unrolled inside: 16 x 25 = 400
  // source iterations a trip (it was taken as the loop over k: 5). rowmax3's
  // vector copy steps 256 B (`add rax, 0x100`: 64 columns) with its 3 rows
  // unrolled: 192 a trip; its accesses skip rows along k, so the copy had
  // been ruled out and the scalar copy with the row tests (6 a trip, both
  // arms) was costed, about 12x too slow.
  // cubic4's machine loop over j steps its counter by one (`inc r14`), the
  // 4 x 4 copy unrolled inside among the polynomials' code: 16 a trip; its
  // copy's lines are too few of the loop's for it to be found before ("no
  // machine loop found").
  FrontendResult FR = frontendOfFile("tests/nest/window-loops.c", {{"n", 256}, {"m", 256}});
  ASSERT_TRUE(FR.Ok) << FR.Error;
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {"-O3", "-march=znver5"}, O);
  ASSERT_EQ(R.size(), 3u);
  ASSERT_TRUE(R[2].Ok) << R[2].Reason;
  EXPECT_DOUBLE_EQ(R[2].SourceItersPerIter, 16);
  ASSERT_TRUE(R[0].Ok) << R[0].Reason;
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 400);
  EXPECT_TRUE(llvm::any_of(R[0].Notes, [](const std::string &N) {
    return N.find("the loops over l and k (5 x 5 iterations) are fully unrolled into the loop "
                  "over j") != std::string::npos;
  }));
  ASSERT_TRUE(R[1].Ok) << R[1].Reason;
  EXPECT_DOUBLE_EQ(R[1].SourceItersPerIter, 192);
}

TEST(InCore, TheRemainderLoopOfAShortStencilRowIsPaidInEveryRow) {
  // clang-19 -O3 -march=haswell: the vector body covers 8 iterations per trip
  // with 6 vaddpd (port 1 only on Haswell), 2 vmulpd (port 0); the scalar
  // remainder 3 vaddsd and 1 vmulsd per iteration; the outer loop's code is
  // integer work (ports 0156) and reloads. At n = 49 a row has 47 inner
  // iterations: 5 body trips + 7 remainder iterations, and port 1 carries
  // 5 x 6 + 7 x 3 = 51 cy per row = 51 / 47 = 1.0851 cy/it (ports 0, 5, 6
  // take the integer work). The steady state of the body alone says
  // 6 / 8 = 0.75. At n = 50 (48 = 6 trips, no remainder) it is 36 / 48 = 0.75.
  InCoreOptions O; // haswell
  O.Rob = 192;
  std::vector<InCoreResult> R = nestAt("jacobi2d.c", {{"n", 49}}, O);
  ASSERT_EQ(R.size(), 1u);
  ASSERT_TRUE(R[0].Executed.Ok) << R[0].Executed.Reason;
  const NestResult &E = R[0].Executed;
  EXPECT_DOUBLE_EQ(E.TripsPerOuter, 47);
  ASSERT_EQ(E.Runs.size(), 2u);
  EXPECT_EQ(E.Runs[0], std::make_pair(8.0, 5.0));
  EXPECT_EQ(E.Runs[1], std::make_pair(1.0, 7.0));
  EXPECT_NEAR(E.Cycles, 51.0 / 47, 1e-3);
  EXPECT_NEAR(R[0].Cycles / R[0].SourceItersPerIter, 51.0 / 47, 1e-3);
  EXPECT_DOUBLE_EQ(E.Steady, 0.75);
  EXPECT_NEAR(E.Body, 5 * 6 / 47.0, 1e-9);      // 5 trips at 6 cy
  EXPECT_NEAR(E.Remainder, 7 * 3 / 47.0, 1e-9); // 7 iterations at 3 cy (port 1)
  EXPECT_NEAR(E.Body + E.Remainder + E.Overhead - E.Overlap, E.Cycles, 1e-9);

  std::vector<InCoreResult> Even = nestAt("jacobi2d.c", {{"n", 50}}, O);
  ASSERT_TRUE(Even[0].Executed.Ok);
  EXPECT_EQ(Even[0].Executed.Runs[1].second, 0);
  EXPECT_NEAR(Even[0].Executed.Cycles, 36.0 / 48, 1e-3);
  EXPECT_DOUBLE_EQ(Even[0].Executed.Remainder, 0);
}

TEST(InCore, TheWindowOverlapsShortReductionRowsAsFarAsItHoldsThem) {
  // clang-19 -O3 -march=haswell unrolls the row's chain by 8: 8 loads and 8
  // vfmadd with a memory operand (one fused uop each), add/cmp/jne; the
  // row's trip of the outer loop adds 13 instructions (the store of c[i],
  // counter and pointer updates, the zeroing vxorpd, the trip checks and an
  // alignment nop): 8 x 19 + 13 = 165 uops per row at m = 64. The chain is
  // 64 FMAs of 5 cy on the accumulator (Haswell), and the last FMA completes
  // 5 cy later still (its load: LLVM's latency of the memory form is 10), so
  // a row takes 64 x 5 + 5 = 325 cy from its first uop's entry to its last
  // one's completion. A row enters the window only when the row q + 1
  // places before it has retired, with q = ROB / 165 rows in the window
  // behind it: q + 1 rows overlap, 325 / (q + 1) cy per row.
  //   ROB 330 (2 rows): 325 / 3 = 108.3 cy per row = 1.693 cy/it
  //   ROB 165 (halved): 325 / 2 = 162.5 cy per row = 2.539 cy/it
  // (ports: 2 loads per iteration on ports 2 and 3 need only 1 cy/it; the
  // steady state of the body alone is the chain, 5 cy/it). This is the
  // reorder buffer alone; Haswell's 60-entry reservation station holds the
  // waiting FMAs of the rows in flight too, and binds before 330 uops.
  InCoreOptions O;
  O.SchedulerQueues = false;
  O.Rob = 330;
  std::vector<InCoreResult> Two = nestAt("rows.c", {{"n", 1000}, {"m", 64}}, O);
  O.Rob = 165;
  std::vector<InCoreResult> One = nestAt("rows.c", {{"n", 1000}, {"m", 64}}, O);
  ASSERT_EQ(Two.size(), 1u);
  ASSERT_TRUE(Two[0].Executed.Ok) << Two[0].Executed.Reason;
  ASSERT_TRUE(One[0].Executed.Ok) << One[0].Executed.Reason;
  EXPECT_DOUBLE_EQ(Two[0].Executed.Steady, 5);
  EXPECT_NEAR(Two[0].Executed.Cycles, 325.0 / 3 / 64, 0.01 * 325.0 / 3 / 64);
  EXPECT_NEAR(One[0].Executed.Cycles, 325.0 / 2 / 64, 0.01 * 325.0 / 2 / 64);
  EXPECT_GT(Two[0].Executed.Overlap, 0);
  // With the reservation station: rows still overlap (below one row's 325
  // cy), less than the 330-uop buffer alone lets them.
  InCoreOptions Rs;
  Rs.Rob = 330;
  double WithRs = nestAt("rows.c", {{"n", 1000}, {"m", 64}}, Rs)[0].Executed.Cycles;
  EXPECT_GT(WithRs, Two[0].Executed.Cycles * 1.02);
  EXPECT_LT(WithRs, 325.0 / 64);
  // Unbounded window: the ports bind (1 cy/it plus the outer code's loads).
  O.Rob = 0;
  std::vector<InCoreResult> Free = nestAt("rows.c", {{"n", 1000}, {"m", 64}}, O);
  EXPECT_LT(Free[0].Executed.Cycles, 1.1);
}

TEST(InCore, ALongRowIsPricedFromItsPartsWithTheOuterCodeUnderItsChain) {
  // tests/nest/rows.c as above (Haswell's code, 330-uop buffer alone): a
  // trip of 8 iterations is 18 uops as issued (cmp and jne fuse) and 8 FMAs
  // of 5 cy on one accumulator, so the window holds 330 / 18 = 18.3 trips,
  // and what scheduling a row with its neighbours could move is at most the
  // outer code's few cycles plus the chains in one window, 18.3 x 40 = 733
  // cy. A row of m = 16000 (2000 trips, 80000 cy) is 109 windows long and
  // 733 x 64 < 80000: it is
  // priced from its parts, the chain's 5 cy/it, the outer code (integer
  // work on ports the chain leaves idle) hidden under it. A row of m = 640
  // (80 trips, 3200 cy) is below that and is scheduled.
  InCoreOptions O;
  O.SchedulerQueues = false;
  O.Rob = 330;
  std::vector<InCoreResult> Long = nestAt("rows.c", {{"n", 1000}, {"m", 16000}}, O);
  ASSERT_EQ(Long.size(), 1u);
  const NestResult &E = Long[0].Executed;
  ASSERT_TRUE(E.Ok) << E.Reason;
  EXPECT_NEAR(E.RowWindows, 2000 / (330.0 / 18), 1e-6);
  EXPECT_DOUBLE_EQ(E.Steady, 5);
  EXPECT_NEAR(E.Cycles, 5, 1e-12);
  EXPECT_GT(E.Overhead, 0);
  EXPECT_NEAR(E.Overlap, E.Overhead, 1e-12); // all of it under the chain
  EXPECT_EQ(E.Joins, 0);
  EXPECT_EQ(Long[0].Bottleneck, InCoreBound::Recurrence);
  std::vector<InCoreResult> Short = nestAt("rows.c", {{"n", 1000}, {"m", 640}}, O);
  ASSERT_TRUE(Short[0].Executed.Ok);
  EXPECT_EQ(Short[0].Executed.RowWindows, 0);
  EXPECT_LT(Short[0].Executed.Cycles, 5); // the window overlaps neighbouring rows' chains
}

TEST(InCore, ABodysDeferredListScheduleIsTheOneItsCostingWouldHaveRun) {
  // tests/nest/rows.c as above (Haswell's code, a 330-uop window): with the
  // body's list schedule deferred, a row of m = 640 is a scheduled trace, so
  // executeNest schedules the body first and gets what costing it with the
  // schedule gave (its trace is set against it: the same nest cycles); a
  // row of m = 16000 is priced from its parts and nothing schedules it.
  InCoreOptions O;
  O.SchedulerQueues = false;
  O.Rob = 330;
  InCoreOptions Deferred = O;
  Deferred.DeferBodySchedule = true;
  std::vector<InCoreResult> Eager = nestAt("rows.c", {{"n", 1000}, {"m", 640}}, O);
  std::vector<InCoreResult> Short = nestAt("rows.c", {{"n", 1000}, {"m", 640}}, Deferred);
  ASSERT_TRUE(Eager[0].Executed.Ok && Short[0].Executed.Ok);
  EXPECT_TRUE(Short[0].BodyScheduled);
  EXPECT_GT(Eager[0].ScheduledCycles, 0);
  EXPECT_DOUBLE_EQ(Short[0].ScheduledCycles, Eager[0].ScheduledCycles);
  EXPECT_DOUBLE_EQ(Short[0].Executed.Cycles, Eager[0].Executed.Cycles);
  std::vector<InCoreResult> Long = nestAt("rows.c", {{"n", 1000}, {"m", 16000}}, Deferred);
  ASSERT_TRUE(Long[0].Executed.Ok);
  EXPECT_GT(Long[0].Executed.RowWindows, 0);
  EXPECT_FALSE(Long[0].BodyScheduled);
  // The costing set the schedule up; scheduleBody runs that, not the
  // costing again.
  EXPECT_TRUE(Long[0].Pending != nullptr);
  scheduleBody(Long[0]); // a caller that wants the check runs it
  EXPECT_TRUE(Long[0].BodyScheduled);
  EXPECT_TRUE(Long[0].Pending == nullptr);
  EXPECT_DOUBLE_EQ(Long[0].ScheduledCycles, Eager[0].ScheduledCycles); // the same body
}

TEST(InCore, TheLoadQueueHoldsLoadsUntilTheyRetire) {
  // tests/nest/rows.c as in the test above (Haswell's code): a row of m = 64
  // has 128 loads (8 vmovsd and 8 vfmadd with a memory operand per trip of
  // 8) and none in the outer code. A load keeps its queue entry until it
  // retires, i.e. until the chain of its row has passed it, so the load
  // queue bounds the rows in flight as the reorder buffer does: with the
  // window otherwise unbounded, q = LQ / 128 rows fit behind the oldest one
  // and q + 1 overlap, 325 / (q + 1) cy per row (325 cy: one row's chain).
  //   LQ 256: 325 / 3 = 108.3 cy per row = 1.693 cy/it
  //   LQ 128: 325 / 2 = 162.5 cy per row = 2.539 cy/it
  // Released at the start (as a scheduler entry), the same queue would not
  // bind: loads start as soon as their address is known.
  InCoreOptions O;
  O.SchedulerQueues = false;
  O.Rob = 100000;
  O.LoadQueue = 256;
  std::vector<InCoreResult> Two = nestAt("rows.c", {{"n", 1000}, {"m", 64}}, O);
  O.LoadQueue = 128;
  std::vector<InCoreResult> One = nestAt("rows.c", {{"n", 1000}, {"m", 64}}, O);
  ASSERT_TRUE(Two[0].Executed.Ok) << Two[0].Executed.Reason;
  ASSERT_TRUE(One[0].Executed.Ok) << One[0].Executed.Reason;
  EXPECT_EQ(Two[0].Executed.LoadQueue, 256u);
  EXPECT_NEAR(Two[0].Executed.Cycles, 325.0 / 3 / 64, 0.01 * 325.0 / 3 / 64);
  EXPECT_NEAR(One[0].Executed.Cycles, 325.0 / 2 / 64, 0.01 * 325.0 / 2 / 64);
  // One store per row: a store queue of 4 holds four rows' stores, more
  // rows than the 128-load queue lets in, so it changes nothing.
  O.StoreQueue = 4;
  EXPECT_NEAR(nestAt("rows.c", {{"n", 1000}, {"m", 64}}, O)[0].Executed.Cycles,
              One[0].Executed.Cycles, 1e-9);
}

TEST(InCore, RowsUnrolledIntoTheirOuterLoopCoverTheirIterations) {
  // tests/nest/ell.c: the row's 8 iterations are unrolled into the loop over
  // rows. znver4 vectorizes that loop 8 rows to a zmm register: val, col and
  // x are gathered (val and col skip 8 elements per row), only y[i] advances
  // a register (r += 8 elements, 64 bytes a trip): 8 rows x 8 = 64 source
  // iterations a trip; the gathered references' strides (64 and 32 bytes a
  // row) would have claimed 1 or 2 rows. znver3 interleaves two rows a trip
  // instead, loading the elements one by one (vmovsd/vmovhpd pairs, one row
  // per lane): val[8 * i + k] at [rdx + 8 * r9 + 8 k] and col[8 * i + k] at
  // [rcx + 4 * r9 + 4 k] with `add r9, 16` advance 128 bytes = 2 rows of 64
  // and 64 = 2 rows of 32: 2 x 8 = 16; y's 8-byte stride alone (as for
  // gathers) said 8 or 16 rows, 64 or 128. icelake-server gathers 4 rows to
  // a ymm register (y[i] at [rsi + 8 * r9], `add r9, 4`: 32 bytes, 4 rows a
  // trip, 32 iterations); the row's own strides (val 8, col 4 bytes an
  // iteration) claimed 4 iterations, under one row, and the scalar
  // remainder loop (one row, 8) was costed instead.
  for (const auto &[Cpu, Iters] : {std::pair<std::string, double>{"znver4", 64},
                                   {"znver3", 16},
                                   {"icelake-server", 32}}) {
    InCoreOptions O;
    O.Cpu = Cpu;
    std::vector<InCoreResult> R = nestAt("ell.c", {{"n", 4096}}, O);
    ASSERT_EQ(R.size(), 1u);
    ASSERT_TRUE(R[0].Ok) << Cpu << ": " << R[0].Reason;
    EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, Iters) << Cpu;
  }
}

TEST(InCore, AnOutermostLoopIsExecutedOneCallAtATime) {
  // examples/triad.c on Haswell, clang-19 -O3 -march=haswell: the vector body
  // covers 16 iterations per trip (4 ymm stores: port 4 binds at 4 cy); the
  // scalar remainder runs one iteration in 5 fused uops (vmovsd, vfmadd213sd
  // with its load, vmovsd store, inc, cmp+jne), from the loop stream
  // detector, which unrolls a 5-uop loop 6 times: 30 uops issue 4 a cycle in
  // 8 cycles, 8 / 6 cy per iteration. At n = 1000: 62 trips + 8 remainder
  // iterations per call, 248 + 64 / 6 cy, plus the function's own code
  // (checks, the broadcast, vzeroupper, ret) once.
  InCoreOptions O;
  O.Rob = 192;
  FrontendResult FR = frontendOfFile("examples/triad.c");
  ASSERT_TRUE(FR.Ok);
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  executeNest(R[0], FR.IR.Loops[0], {{"n", 1000}}, O);
  const NestResult &E = R[0].Executed;
  ASSERT_TRUE(E.Ok) << E.Reason;
  EXPECT_TRUE(E.PerCall);
  EXPECT_DOUBLE_EQ(E.TripsPerOuter, 1000);
  ASSERT_EQ(E.Runs.size(), 2u);
  EXPECT_EQ(E.Runs[0], std::make_pair(16.0, 62.0));
  EXPECT_EQ(E.Runs[1], std::make_pair(1.0, 8.0));
  EXPECT_NEAR(E.Body, 248 / 1000.0, 1e-12);
  EXPECT_NEAR(E.Remainder, 64.0 / 6 / 1000.0, 1e-12);
  EXPECT_GT(E.Overhead, 0);
  EXPECT_GE(E.Cycles, (248 + 64.0 / 6) / 1000.0);
  EXPECT_LE(E.Cycles, E.Body + E.Remainder + E.Overhead + 1e-12);
  // Unbound sizes: the trip count is unknown.
  std::vector<InCoreResult> S = nestAt("rows.c", {}, O);
  EXPECT_FALSE(S[0].Executed.Ok);
  EXPECT_NE(S[0].Executed.Reason.find("-D"), std::string::npos);
}

TEST(InCore, RowStartsDecideWhichVectorAccessesSplitALine) {
  // jacobi2d at n = 50, bases 64-byte aligned: a row is 400 B, 400 mod 64 =
  // 16, so row starts step through 4 residues 16 apart from the reference's
  // constant offset c (i starts at 1):
  //   b[j*n+i]      c = 8        residues 8, 24, 40, 56
  //   a[j*n+i-1]    c = 0        0, 16, 32, 48
  //   a[j*n+i+1]    c = 16       the same set
  //   a[(j-1)*n+i]  c = 8 - 400  56, 8, 24, 40
  //   a[(j+1)*n+i]  c = 408 = 24 (mod 64), 24, 40, 56, 8
  // A W-byte stream from a residue that is not a multiple of W splits W/64
  // of its accesses. 32 B: the store 1 x 1/2; the loads 1/2 x 1/2 twice and
  // 1 x 1/2 twice: 0.375. 64 B: store 1; loads (3/4 + 3/4 + 1 + 1) / 4. 16 B:
  // residues 8 mod 16 only: store 1/4; loads (0 + 0 + 1/4 + 1/4) / 4.
  FrontendResult FR = frontendOfFile("tests/nest/jacobi2d.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  ASSERT_EQ(FR.IR.Loops.size(), 1u);
  LineSplits S = lineSplitsOf(FR.IR.Loops[0], {{"n", 50}}, 64, 64);
  EXPECT_DOUBLE_EQ(S.Store[32], 0.5);
  EXPECT_DOUBLE_EQ(S.Load[32], 0.375);
  EXPECT_DOUBLE_EQ(S.Store[64], 1);
  EXPECT_DOUBLE_EQ(S.Load[64], 0.875);
  EXPECT_DOUBLE_EQ(S.Store[16], 0.25);
  EXPECT_DOUBLE_EQ(S.Load[16], 0.125);
  // n = 48: rows of 384 B keep every residue where it is; b's c = 8 still
  // splits half its 32-byte stores, a[j*n+i-1] never.
  S = lineSplitsOf(FR.IR.Loops[0], {{"n", 48}}, 64, 64);
  EXPECT_DOUBLE_EQ(S.Store[32], 0.5);
  EXPECT_DOUBLE_EQ(S.Load[32], (0 + 0.5 + 0.5 + 0.5) / 4);
}

// BCSR 2x1 (tests/nest/bcsr2x1.c), bases 16-byte aligned: val[2*k] and
// val[2*k + 1] are one stream of 16 bytes per k (the vectoriser loads them
// together); k starts at browptr[I], anything, so the stream's starts are 0,
// 16, 32, 48 mod 64: a 16-byte load never splits, a 32-byte one from the
// starts 16 and 48 splits half the time: 2/4 x 1/2 = 0.25. bcol is an int
// stream (4 B, starts at every multiple of 4): 16-byte loads split from 12
// of 16 starts, 1/4 of the time: 0.1875. A packed-double move takes val's
// figure, not bcol's (the mix of both: 0.0625).
TEST(InCore, ConsecutiveReferencesAreOneStreamAndElementsKeepTheirOwn) {
  FrontendResult FR = frontendOfFile("tests/nest/bcsr2x1.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  ASSERT_EQ(FR.IR.Loops.size(), 1u);
  LineSplits S = lineSplitsOf(FR.IR.Loops[0], {}, 16, 64);
  auto Of = [&](unsigned W, unsigned E) { return S.LoadOfElement[std::make_pair(W, E)]; };
  EXPECT_DOUBLE_EQ(Of(16, 8), 0);
  EXPECT_DOUBLE_EQ(Of(32, 8), 0.25);
  EXPECT_DOUBLE_EQ(Of(16, 4), 0.1875);
  EXPECT_DOUBLE_EQ(S.Load[16], 0.1875 / 3);
}

TEST(InCore, SplitStoresOfSixteenByteAlignedArraysCostTheirSecondSlot) {
  // Haswell, split costs 2 (as --set would give): 4 ymm stores on port 4
  // bind the scale loop at 4 cy per trip of 16 iterations when the arrays
  // are 64-byte aligned (__builtin_assume_aligned). At the allocator's 16
  // bytes a stream starts at 0, 16, 32 or 48 mod 64: half of the starts are
  // not a multiple of 32, and from those half of the ymm accesses cross a
  // line: 1/4 of the stores take port 4 twice, 4 x 1.25 = 5 cy per trip
  // (the loads: 4 x 1.25 on ports 2 and 3 with the stores' addresses on
  // 2, 3, 7: 10 / 3 < 5).
  InCoreOptions O; // haswell
  O.Splits.LoadCost = 2;
  O.Splits.StoreCost = 2;
  std::vector<InCoreResult> R = nestAt("align.c", {}, O);
  ASSERT_EQ(R.size(), 3u);
  ASSERT_TRUE(R[0].Ok && R[1].Ok) << R[0].Reason << R[1].Reason;
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 16);
  EXPECT_DOUBLE_EQ(R[1].SourceItersPerIter, 16);
  EXPECT_NEAR(R[0].Cycles, 5, 1e-9);
  EXPECT_NEAR(R[1].Cycles, 4, 1e-9);
  EXPECT_DOUBLE_EQ(R[0].Splits.Store[32], 0.25);
  EXPECT_DOUBLE_EQ(R[1].Splits.Store[32], 0);
  // Splits free (a file without the keys), or every base assumed 64-byte
  // aligned (--assume-align 64): both loops at 4.
  InCoreOptions Free; // haswell
  EXPECT_NEAR(nestAt("align.c", {}, Free)[0].Cycles, 4, 1e-9);
  InCoreOptions Aligned = O;
  Aligned.Splits.AssumedAlign = 64;
  EXPECT_NEAR(nestAt("align.c", {}, Aligned)[0].Cycles, 4, 1e-9);

  // Zen 3: a ymm store takes one of two store units, one of two FP45 pipes
  // and the one FP store-data pipe (Zn3FPSt), which binds the aligned loop
  // at 4 cy per trip (the 4 vmulpd with their loads: FP45 (4 + 4) / 2 = 4,
  // the loads' 3 load units 4 / 3). The split store's second write goes
  // through that pipe too: 4 x 1.25 = 5 cy (charged to the store units
  // alone, 4 x 1.25 / 2, it would leave the loop at 4).
  InCoreOptions Zen3 = O;
  Zen3.Cpu = "znver3";
  std::vector<InCoreResult> Z = nestAt("align.c", {}, Zen3);
  ASSERT_EQ(Z.size(), 3u);
  ASSERT_TRUE(Z[0].Ok && Z[1].Ok) << Z[0].Reason << Z[1].Reason;
  EXPECT_NEAR(Z[0].Cycles, 5, 1e-9);
  EXPECT_NEAR(Z[1].Cycles, 4, 1e-9);
}

TEST(InCore, AlignmentPromisedWhereAPointerIsDeclaredIsKnown) {
  FrontendResult FR = frontendOfFile("tests/nest/align.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  ASSERT_EQ(FR.IR.Loops.size(), 3u);
  for (const Access &A : FR.IR.Loops[0].Accesses)
    EXPECT_EQ(A.BaseAlignBytes, 0u) << A.Text; // parameters: nothing said
  for (const Access &A : FR.IR.Loops[1].Accesses)
    EXPECT_EQ(A.BaseAlignBytes, 64u) << A.Text; // __builtin_assume_aligned
  for (const Access &A : FR.IR.Loops[2].Accesses)
    EXPECT_EQ(A.BaseAlignBytes, 64u) << A.Text; // aligned_alloc
}
TEST(InCore, TheReservationStationLimitsHowFarLongRowsOverlap) {
  // rows.c on Haswell with a reorder buffer too large to matter: the rows'
  // FMA chains (5 cy a link) wait in the 60-entry reservation station of
  // LLVM's model. A row's FMAs issue in order as entries free; when its last
  // FMA has issued, the station holds the row's last 60 FMAs, and every link
  // that completes lets one instruction of the next row in, whose chain then
  // runs beside the tail: rows of m FMAs overlap by about 60 links,
  // 5 (m - 60) cy per row (a few cycles more: the row's store of c[i] waits
  // in the station too, and the last FMA's load adds 5).
  for (long M : {256L, 512L}) {
    InCoreOptions O;
    O.Rob = 100000;
    std::vector<InCoreResult> R = nestAt("rows.c", {{"n", 1000}, {"m", M}}, O);
    ASSERT_TRUE(R[0].Executed.Ok) << R[0].Executed.Reason;
    double Row = R[0].Executed.Cycles * double(M);
    EXPECT_NEAR(Row, 5.0 * double(M - 60), 0.02 * 5.0 * double(M - 60)) << M;
    // Half the station (core.scheduler_queues: {HWPortAny: 30}): the tail
    // that overlaps the next row is 30 links.
    InCoreOptions Half = O;
    Half.QueueSizes = {{"HWPortAny", 30}};
    double HalfRow =
        nestAt("rows.c", {{"n", 1000}, {"m", M}}, Half)[0].Executed.Cycles * double(M);
    EXPECT_NEAR(HalfRow, 5.0 * double(M - 30), 0.02 * 5.0 * double(M - 30)) << M;
    // Without the station the same buffer overlaps far more.
    O.SchedulerQueues = false;
    std::vector<InCoreResult> Free = nestAt("rows.c", {{"n", 1000}, {"m", M}}, O);
    EXPECT_LT(Free[0].Executed.Cycles * double(M), 0.75 * Row) << M;
  }
}

TEST(InCore, GathersAndScattersCoverTheirLanesAndCostWhatTheFileSays) {
  // strided8 on the Zen 5 file: one vgatherqpd zmm and one vscatterqpd zmm
  // per trip, no address register that advances: the 8 lanes of each are 8
  // source iterations (two strided references, two gather/scatter ops). The
  // file charges them 23.7 and 26.8 cycles of the 3-unit load/store unit
  // (measured 7.9 and 8.9 cy each, no overlap between the two): 50.5 / 3 =
  // 16.83 cy per trip, 2.1 cy per source iteration.
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  FrontendResult FR = frontendOfFile("tests/nest/strided.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O); // the steady state
  ASSERT_EQ(R.size(), 1u);
  ASSERT_TRUE(R[0].Ok) << R[0].Reason;
  EXPECT_DOUBLE_EQ(R[0].SourceItersPerIter, 8);
  EXPECT_NEAR(R[0].PortBound, 50.5 / 3, 1e-9);
  EXPECT_NEAR(R[0].Cycles, 50.5 / 3, 1e-9);
}

TEST(InCore, SizesThatMoveRowAlignmentReCostTheLoop) {
  // jacobi2d on the Zen 5 file (splits cost 2). Costed at the default size
  // (n = 1000: rows of 8000 B keep their offset in the line) and moved to
  // n = 50 (rows of 400 B step through four offsets), it must cost what
  // the loop costs when analysed at n = 50 in the first place. Bases 64-byte
  // aligned (at the allocator's 16 bytes every row size looks alike).
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  O.Splits.AssumedAlign = 64;
  FrontendOptions F;
  F.File = Src + "/tests/nest/jacobi2d.c";
  FrontendResult At1000 = runFrontend(F);
  F.Defines = {{"n", 50}};
  FrontendResult At50 = runFrontend(F);
  ASSERT_TRUE(At1000.Ok && At50.Ok);
  InCoreResult Moved = analyzeKernelLoops(At1000.IR, {}, O)[0];
  InCoreResult Direct = analyzeKernelLoops(At50.IR, {}, O)[0];
  ASSERT_TRUE(Moved.Ok && Direct.Ok);
  ASSERT_NE(Moved.Splits.Load, Direct.Splits.Load);
  splitsAtSizes(Moved, At1000.IR.Loops[0], {{"n", 50}}, O);
  EXPECT_EQ(Moved.Splits.Load, Direct.Splits.Load);
  EXPECT_EQ(Moved.Splits.Store, Direct.Splits.Store);
  EXPECT_DOUBLE_EQ(Moved.Cycles, Direct.Cycles);
  EXPECT_DOUBLE_EQ(Moved.SourceItersPerIter, Direct.SourceItersPerIter);
  EXPECT_EQ(Moved.MachineLoop, Direct.MachineLoop);
}

TEST(InCore, ALoopTheCompilerTurnedIntoMemcpyIsReportedAsSuch) {
  FrontendResult FR = frontendOfFile("tests/nest/copy.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  InCoreOptions O; // haswell
  InCoreResult Call = analyzeKernelLoops(FR.IR, {}, O)[0];
  EXPECT_FALSE(Call.Ok);
  EXPECT_NE(Call.Reason.find("a call to memcpy"), std::string::npos) << Call.Reason;
  InCoreResult Loop = analyzeKernelLoops(FR.IR, {"-O3", "-fno-builtin"}, O)[0];
  EXPECT_TRUE(Loop.Ok) << Loop.Reason;
}

TEST(InCore, RowsOfTheirOwnLengthAreEachExecutedAndTheirChangingExitsMispredicted) {
  // jacobi2d.c on Haswell as above: a row of 47 inner iterations costs 51 cy
  // (5 body trips of 6 cy on port 1, 7 remainder iterations of 3 cy), a row
  // of 48 costs 36 (6 trips, no remainder). Rows 47, 48, 47, 48 in order: the
  // body loop's trip count (5, 6, 5, 6) and the remainder's (7, 0, 7, 0)
  // change at every row, 2 mispredicted exits x 3 changes = 6, at 20 cy:
  // (2 x 51 + 2 x 36 + 6 x 20) / (2 x 47 + 2 x 48) = 294 / 190 cy/it.
  // A row of 47 is replayed as one of 31 (the longest of its remainder class
  // up to 4 body trips: 3 trips and 7 iterations, 39 cy) plus 16 iterations
  // at the body's steady state (0.75): 39 + 12 = 51, the same.
  InCoreOptions O;
  O.Rob = 192;
  FrontendResult FR = frontendOfFile("tests/nest/jacobi2d.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  ASSERT_EQ(R.size(), 1u);
  InCoreResult Mixed = R[0];
  executeNestRows(Mixed, {47, 48, 47, 48}, O, 20);
  ASSERT_TRUE(Mixed.Executed.Ok);
  EXPECT_NEAR(Mixed.Executed.Cycles, 294.0 / 190, 2e-3);
  EXPECT_NEAR(Mixed.Cycles / Mixed.SourceItersPerIter, 294.0 / 190, 2e-3);
  EXPECT_NEAR(Mixed.Executed.TripsPerOuter, 47.5, 1e-9);
  // Without a misprediction cost: 174 / 190.
  InCoreResult Free = R[0];
  executeNestRows(Free, {47, 48, 47, 48}, O, 0);
  EXPECT_NEAR(Free.Executed.Cycles, 174.0 / 190, 2e-3);
  // Repeated passes over the same rows: a predictor that learns 6 outcomes
  // learns all 6 changes (174 / 190); one that learns 3, half of them:
  // (174 + 3 x 20) / 190.
  InCoreResult Learned = R[0];
  executeNestRows(Learned, {47, 48, 47, 48}, O, 20, 6);
  EXPECT_NEAR(Learned.Executed.Cycles, 174.0 / 190, 2e-3);
  InCoreResult Half = R[0];
  executeNestRows(Half, {47, 48, 47, 48}, O, 20, 3);
  EXPECT_NEAR(Half.Executed.Cycles, 234.0 / 190, 2e-3);
  // Rows of one length: no exit changes, the nest as executed at that size.
  InCoreResult Same = R[0];
  executeNestRows(Same, std::vector<int64_t>(10, 47), O, 20);
  EXPECT_NEAR(Same.Executed.Cycles, 51.0 / 47, 1e-3);
  EXPECT_EQ(nestMachineTrips(R[0].Nest, 47), (std::vector<double>{5, 7}));
  EXPECT_EQ(nestMachineTrips(R[0].Nest, 48), (std::vector<double>{6, 0}));
}

// Zen 4 and Zen 5 keep FP store data in their FP scheduler (bench/incore/
// fp_store_window.c; LLVM 19 models it outside). A chain of 128 FMAs a j,
// each storing its result, overlaps the next j's chain only as far as the
// 64-entry FP queue reaches: with the store's data inside, two entries wait
// per link (the FMA and its store), so the nest runs as with a 32-entry
// queue and the data outside. Timed: 2.99 cy a link on the Zen 5 VM, 3.17-3.31
// on the Zen 4 VM; the list schedule gives 2.12 (Zen 5) and 2.21 (Zen 4) with
// the data outside, about 3.0 inside, below the 4-cycle FMA chain.
TEST(InCore, FpStoreDataWaitsInTheFpQueueOnZen4AndZen5) {
  for (auto [File, Cpu] : {std::pair{"dev-vm-zen5.yml", "znver5"},
                           std::pair{"zen4-epyc-9654.yml", "znver4"}}) {
    SCOPED_TRACE(File);
    auto Nest = [Cpu = std::string(Cpu)](InCoreOptions O) {
      InCoreResult R = cpuLoop(Cpu, "fp-store-chain.c", {{"n", 128}, {"m", 190}}, nullptr, O);
      O.Cpu = Cpu;
      executeNestTrips(R, 128, O);
      EXPECT_TRUE(R.Executed.Ok) << R.Executed.Reason;
      return R.Executed.Cycles;
    };
    InCoreOptions Inside = inCoreOptionsFor(machineFile(File));
    ASSERT_EQ(Inside.QueueAlsoHolds["Zn4FP"], std::vector<std::string>{"Zn4FPSt"});
    InCoreOptions Outside = Inside, Halved = Inside;
    Outside.QueueAlsoHolds.clear();
    Halved.QueueAlsoHolds.clear();
    Halved.QueueSizes["Zn4FP"] = 32;
    double Out = Nest(Outside), In = Nest(Inside), Half = Nest(Halved);
    EXPECT_GT(In, 1.3 * Out) << Out << " " << In;
    EXPECT_NEAR(In, Half, 0.05 * Half);
    EXPECT_LT(In, 4);
  }
}

TEST(InCore, TheCopyThatKeepsStoresInRegistersRuns) {
  // tests/incore/adi-sweep.c on Zen 4: two copies of the j loop, 3 source
  // iterations a trip each, one width (scalar doubles). The one that runs
  // (no overlap) carries p[i][j-1] in a register: vfmadd213sd (4) then
  // vdivsd (13, LLVM's znver4) = 17 cy per source iteration. The fallback
  // reloads it: 17 + the store's forwarding to the load (Zen 4: 8.9 from a
  // vector register) and it had been costed, 25 cy/it where PolyBench's adi
  // runs its sweeps at 17.0 on the Zen 4 VM.
  InCoreOptions O = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  InCoreResult R = cpuLoop("znver4", "adi-sweep.c", {}, nullptr, O);
  ASSERT_DOUBLE_EQ(R.SourceItersPerIter, 3);
  EXPECT_NEAR(R.RecurrenceBound / R.SourceItersPerIter, 17, 0.5);
  EXPECT_LT(R.Cycles / R.SourceItersPerIter, 19);
}

TEST(InCore, RowsThroughPointersAdvanceByTheirSubscript) {
  // tests/incore/pointer-rows.c (Livermore loop 23 over double **za) on Zen
  // 5: the accesses za[j][k] are indirect through the row pointers za[j],
  // which do not move with k; within a row k advances 8 bytes an iteration.
  // Without a stride the trip was taken from the counter's step (8 bytes,
  // "8 source iterations"): 1.58 cy/it where LCALS's IMP_HYDRO_2D runs
  // 13.5. clang unrolls the loop by 4 (4 stores of za[j][k] a trip), and the
  // trip carries za[j][k - 1] through 4 x (vfmadd231sd 4 + vaddsd 3 +
  // vsubsd 3 + vfmadd132sd 4) = 56 cycles at LLVM's znver5 latencies.
  InCoreResult R = zen5Loop("pointer-rows.c", {{"n", 5000}});
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 4);
  EXPECT_NEAR(R.RecurrenceBound, 56, 0.5);
}

TEST(InCore, EachArmOfABranchRunsInHalfTheIterations) {
  // tests/incore/branch-arms.c on Zen 5: clang unrolls the loop by 8 and
  // keeps each if/else as branches (sqrt may set errno); the light arm
  // stores 0, the heavy one divides, takes a square root and divides. One
  // iteration runs one arm, but every block of the body was costed every
  // iteration: both arms, the divider's cycles of the heavy arm each
  // iteration for any data. llvm-mca-19 -mcpu=znver5 charges the heavy
  // arm's vdivsd, vsqrtsd, vdivsd 5 + 9 + 5 = 19 cycles of Zn4FP1. Timed on
  // the Zen 5 VM (1000 elements in L1, the machine file's divider): d > 0
  // throughout 1.07 cy/it, d < 0 throughout 15.9, half and half (each half
  // one run) 8.48 (the model: 15.5 before, 7.76 now). Two walks take each
  // arm once: a trip of 16 iterations with the heavy arm in 8 of them,
  // 8 x 19 / 16 = 9.5 cy a source iteration, not 19.
  InCoreResult R = zen5Loop("branch-arms.c", {{"n", 1000}});
  EXPECT_DOUBLE_EQ(R.SourceItersPerIter, 16);
  EXPECT_NEAR(R.Cycles / R.SourceItersPerIter, 8 * 19.0 / 16, 0.2) << R.Cycles;
}

TEST(InCore, BranchesOnTheDataAreChargedAtTheMissRateAsked) {
  // tests/incore/count-if.c on Zen 4: one branch on a[i] per element (the
  // body's branches decide between storing or not; clang unrolls by 8, two
  // walks a trip). Charged at miss rate m, each costs m x the file's 17.5
  // cy a misprediction: 8.75 cy an element at 0.5. Timed on the Zen 4 VM
  // (bench/RESULTS.md, 2026-12-07; random ints, 2 M elements, beyond what
  // the predictor learns): 11.1-11.6 cy an element at half taken, 0.56 none
  // taken; the model 1 + 8.75 = 9.75. A loop without such a branch (the
  // adds of global-arrays.c) has none to charge.
  InCoreResult R = cpuLoop("znver4", "count-if.c", {{"n", 2000000}});
  ASSERT_TRUE(R.Ok);
  ASSERT_GT(R.SourceItersPerIter, 0);
  EXPECT_DOUBLE_EQ(R.DataBranchLines.size() / R.SourceItersPerIter, 1);
  for (unsigned L : R.DataBranchLines)
    EXPECT_EQ(L, 7u);
  InCoreResult Predicted = R;
  chargeDataBranches(Predicted, 0, 17.5);
  EXPECT_DOUBLE_EQ(Predicted.Cycles, R.Cycles);
  EXPECT_TRUE(llvm::any_of(Predicted.Notes, [](const std::string &N) {
    return N.find("taken as predicted") != std::string::npos &&
           N.find("would add 8.75 cy/it") != std::string::npos;
  }));
  InCoreResult Random = R;
  chargeDataBranches(Random, 0.5, 17.5);
  EXPECT_NEAR(Random.Cycles / R.SourceItersPerIter, R.Cycles / R.SourceItersPerIter + 8.75,
              1e-9);
  EXPECT_NEAR(Random.TOL - R.TOL, 8.75 * R.SourceItersPerIter, 1e-9);
  EXPECT_EQ(Random.Bottleneck, InCoreBound::Branches);
  InCoreResult Few = R;
  chargeDataBranches(Few, 0.05, 17.5);
  EXPECT_NEAR(Few.Cycles - R.Cycles, 0.05 * 17.5 * R.SourceItersPerIter, 1e-9);
  EXPECT_NE(Few.Bottleneck, InCoreBound::Branches); // 0.875 cy beside the body's
  InCoreResult T = cpuLoop("znver4", "global-arrays.c");
  EXPECT_TRUE(T.DataBranchLines.empty());
}

TEST(InCore, AnIndexSteppedByLeaMovesTheNextIterationsAccesses) {
  // tests/incore/lea-step.s: an 8-byte load and store at rcx x 4 and rcx + 1
  // by `lea 1(rcx), r15; mov rcx, r15`. Each load overlaps half of the last
  // iteration's store, so forwarding fails every iteration: the chain is the
  // failed forward's 21.2 cy (zen4-epyc-9654.yml) plus vpaddd and vpmaxsd
  // and the store, as with `add 1, rcx` (tests/incore/add-step.s). lea's
  // address operand is not typed as memory in LLVM's tables, so the index
  // looked new each iteration and the chain was 2 cy. Floyd-Steinberg's
  // loop (ImageProcessing) went from -42..-44 % to +6.5..+10.8 % so.
  InCoreOptions O = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  InCoreResult L = analyzeAssemblyFile(Src + "/tests/incore/lea-step.s", O);
  InCoreResult A = analyzeAssemblyFile(Src + "/tests/incore/add-step.s", O);
  ASSERT_TRUE(L.Ok && A.Ok) << L.Reason << A.Reason;
  EXPECT_GE(L.RecurrenceBound, 21.2 + 2);
  EXPECT_LE(L.RecurrenceBound, 30);
  EXPECT_DOUBLE_EQ(L.RecurrenceBound, A.RecurrenceBound);
  EXPECT_TRUE(llvm::any_of(L.Notes, [](const std::string &N) {
    return N.find("partly overlap an earlier store") != std::string::npos;
  }));
}

TEST(InCore, AMaskFromAGeneralRegisterTakesItsMeasuredCycles) {
  // The select clang makes of TSVC s318's `if (|a[k]| > max) max = ...`
  // with AVX-512: vucomiss -> setb -> kmovd k1, r8d -> vmovss {k1}, a chain
  // through max. bench/incore/kmask_chain.c timed it at 13.7-14.4 cy a link
  // on the Zen 5 VM (and kmovd k, r32 -> kmovd r32, k at 8.6-9.0) where
  // LLVM 19's znver5 model has 4 + 1 + 1 + 1 = 7 (s318 was predicted at
  // half its time, -52 %). The Zen 5 file states 8 cycles for a mask
  // written from a general register: 4 + 1 + 8 + 1 = 14.
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/kmask-select.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_NEAR(R.RecurrenceBound, 14, 1e-9);
  InCoreOptions Llvm;
  Llvm.Cpu = "znver5";
  InCoreResult L = analyzeAssemblyFile(Src + "/tests/incore/kmask-select.s", Llvm);
  ASSERT_TRUE(L.Ok) << L.Reason;
  EXPECT_NEAR(L.RecurrenceBound, 7, 1e-9); // LLVM's figures alone
}

TEST(InCore, LoopsMergedIntoOneMachineLoopShareItsTrip) {
  // tests/incore/two-calls.c: the two calls' 4-iteration loops are fully
  // unrolled into the loop over nl, so one machine loop is the match of
  // both. A trip runs 4 iterations of each, 8 source iterations in all:
  // each loop is charged the trip's cycles over 8, and the two together
  // the trip once (each had been charged the whole trip per 4 iterations,
  // the trip twice; TSVC's s31111 with 8 calls, 8 times).
  FrontendResult FR = frontendOfFile("tests/incore/two-calls.c", {{"n", 1000}});
  ASSERT_TRUE(FR.Ok) << FR.Error;
  InCoreOptions O;
  O.Cpu = "znver5";
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  std::vector<const InCoreResult *> Twice;
  for (size_t I = 0; I < FR.IR.Loops.size(); ++I)
    if (FR.IR.Loops[I].Function == "twice") {
      ASSERT_TRUE(R[I].Ok) << R[I].Reason;
      Twice.push_back(&R[I]);
    }
  ASSERT_EQ(Twice.size(), 2u);
  EXPECT_EQ(Twice[0]->MachineLoop, Twice[1]->MachineLoop);
  for (const InCoreResult *X : Twice) {
    EXPECT_DOUBLE_EQ(X->SourceItersPerIter, 8);
    EXPECT_TRUE(llvm::any_of(X->Notes, [](const std::string &N) {
      return N.find("also runs 1 other loop") != std::string::npos;
    }));
  }
  double PerTrip = 4 * Twice[0]->Cycles / Twice[0]->SourceItersPerIter +
                   4 * Twice[1]->Cycles / Twice[1]->SourceItersPerIter;
  EXPECT_NEAR(PerTrip, Twice[0]->Cycles, 1e-9);
}

TEST(InCore, AScalarCompareRunsOnTheAddPipes) {
  // bench/incore/fp_compare.c on the Zen 5 VM: 8 independent vmulsd take
  // 4.0 cycles with or without 4 vucomisd beside them (8 vaddsd 4.0, with
  // the compares 6.0): the compare is one uop on the add pipes FP2/FP3.
  // LLVM 19's znver5 model (llvm-mca-19 agrees) puts it on FP0 and FP1, a
  // cycle each: the multiplies' pipes, 8 / 2 + 4 x 2 / 2 = 8 cycles. The
  // Zen 5 file's override: 8 / 2 = 4 on FP0/FP1, 4 / 2 = 2 on FP2/FP3.
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  InCoreResult R = analyzeAssemblyFile(Src + "/tests/incore/fp-compare.s", O);
  ASSERT_TRUE(R.Ok) << R.Reason;
  EXPECT_NEAR(R.PortBound, 4, 1e-9);
  EXPECT_EQ(R.Uops, 12u);
  InCoreOptions Llvm;
  Llvm.Cpu = "znver5";
  InCoreResult L = analyzeAssemblyFile(Src + "/tests/incore/fp-compare.s", Llvm);
  ASSERT_TRUE(L.Ok) << L.Reason;
  EXPECT_NEAR(L.PortBound, 8, 1e-9);
}

TEST(InCore, AValueThroughMemoryComesBackAtTheForwardingLatency) {
  // bench/incore/store_forward.c on the Zen 5 VM: a double kept in memory
  // (vaddsd from the slot, vmovsd back: what DoNotOptimize(q += ...) makes
  // of LCALS's INNER_PROD) takes 11.8-12.1 cy a link, and 12.2-12.4 with a
  // plain load before the add; with vfmadd and vdivsd between (adi's
  // p[i][j]) 25.0-26.2, where the same chain in registers takes 16.5-17.4.
  // So the forwarding adds 8.5-8.8 and a round trip through memory takes
  // at least 12: the Zen 5 file states 8.6 and 12. By hand: the add chain
  // max(2 + 8.6, 12) = 12; the division chain 8.6 + 4 + 13 + 1 (the store)
  // = 26.6. An integer (mov, add 1, mov) 1.00: Zen 5 renames the memory,
  // the add alone (store_forward_cy 0). The Zen 4 VM the same (1.00-1.03)
  // and 8.9 for a vector register (vaddsd's link 11.85-12.03): 3 + 8.9 =
  // 11.9. Unstated (no machine file says), 5 for both: 5 + 1 = 6. The
  // list schedule agrees with the chain (the load runs ahead of the store
  // it reads, its consumers wait for the store's input).
  InCoreOptions O = inCoreOptionsFor(machineFile("dev-vm-zen5.yml"));
  InCoreResult Sum = analyzeAssemblyFile(Src + "/tests/incore/sum-in-memory.s", O);
  ASSERT_TRUE(Sum.Ok) << Sum.Reason;
  EXPECT_NEAR(Sum.RecurrenceBound, 12, 1e-9);
  InCoreResult Div = analyzeAssemblyFile(Src + "/tests/incore/div-in-memory.s", O);
  ASSERT_TRUE(Div.Ok) << Div.Reason;
  EXPECT_NEAR(Div.RecurrenceBound, 26.6, 1e-9);
  InCoreResult Count = analyzeAssemblyFile(Src + "/tests/incore/count-in-memory.s", O);
  ASSERT_TRUE(Count.Ok) << Count.Reason;
  EXPECT_NEAR(Count.RecurrenceBound, 1, 1e-9);
  EXPECT_NEAR(Count.ScheduledCycles, 1, 0.05);
  InCoreOptions Z4 = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  InCoreResult Zen4 = analyzeAssemblyFile(Src + "/tests/incore/count-in-memory.s", Z4);
  ASSERT_TRUE(Zen4.Ok) << Zen4.Reason;
  EXPECT_NEAR(Zen4.RecurrenceBound, 1, 1e-9);
  InCoreResult Zen4Sum = analyzeAssemblyFile(Src + "/tests/incore/sum-in-memory.s", Z4);
  ASSERT_TRUE(Zen4Sum.Ok) << Zen4Sum.Reason;
  EXPECT_NEAR(Zen4Sum.RecurrenceBound, 11.9, 1e-9);
  InCoreOptions None = Z4;
  None.StoreForward.reset();
  None.StoreForwardVector.reset();
  InCoreResult Unstated = analyzeAssemblyFile(Src + "/tests/incore/count-in-memory.s", None);
  ASSERT_TRUE(Unstated.Ok) << Unstated.Reason;
  EXPECT_NEAR(Unstated.RecurrenceBound, 6, 1e-9);
}

TEST(InCore, AChainThroughAnArmCountsWhereTheDataTakesItEveryTime) {
  // tests/incore/pack-positive.c (TSVC s341): clang unrolls by 8 and keeps
  // each if as a branch; the storing arm increments j, a 1-cycle chain. The
  // two walks of a trip take each arm half the time and find 4.5 cy a pass
  // of 8 iterations; where the data takes the storing arm every time (TSVC's
  // data, above 0 throughout; s341 timed 1.14 cy/it on the Zen 5 VM) the
  // chain is 8 x 1 = 8 cy a pass: 1 cy an iteration, above the ports' 0.63.
  // LCALS DISC_ORD's three divisions in a row likewise: 59 cy/it, timed 64.
  InCoreResult R = zen5Loop("pack-positive.c", {{"n", 1000}});
  ASSERT_DOUBLE_EQ(R.SourceItersPerIter, 16);
  EXPECT_NEAR(R.RecurrenceBound, 2 * 8.0, 1e-9); // a trip is two passes
  // LLVM's figures alone (no machine file): the front end ties at 16.2.
  EXPECT_NEAR(R.Cycles / R.SourceItersPerIter, 1.0, 0.02) << R.Cycles;
  EXPECT_TRUE(llvm::any_of(R.Notes, [](const std::string &N) {
    return N.find("the data takes the arms that carry it") != std::string::npos;
  }));
}

TEST(InCore, TheCompileInThisProcessGivesClangsOwnCode) {
  // The tool runs clang-19's driver and cc1 in its own process; a clang-19
  // process is the reference: the same functions, bytes and line tables for
  // the same flags (the driver's resolution of -march=native and the
  // resource directory included), and a failing compile says why.
  const std::string File = Src + "/tests/incore/global-rows.c";
  const std::vector<std::string> Args = {"-march=native", "-ffast-math"};
  auto Compile = [&](bool InProcess, const std::string &Source, ObjectFileBytes &Obj,
                     std::string &Error) {
    compileInProcess(InProcess);
    bool Ok = compileKernel(Source, Args, "x86_64-unknown-linux-gnu", "znver5", Obj, Error);
    compileInProcess(false);
    return Ok;
  };
  ObjectFileBytes Here, There;
  std::string Error;
  unsigned Before = inProcessCompiles();
  ASSERT_TRUE(Compile(false, File, There, Error)) << Error;
  EXPECT_EQ(inProcessCompiles(), Before);
  ASSERT_TRUE(Compile(true, File, Here, Error)) << Error;
  EXPECT_EQ(inProcessCompiles(), Before + 1);
  ASSERT_FALSE(There.Functions.empty());
  ASSERT_EQ(Here.Functions.size(), There.Functions.size());
  for (size_t I = 0; I < Here.Functions.size(); ++I) {
    EXPECT_EQ(Here.Functions[I].Name, There.Functions[I].Name);
    EXPECT_EQ(Here.Functions[I].Bytes, There.Functions[I].Bytes) << Here.Functions[I].Name;
    EXPECT_EQ(Here.Functions[I].Lines, There.Functions[I].Lines) << Here.Functions[I].Name;
  }

  llvm::SmallString<128> Bad;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("perfmodel-bad", "c", Bad));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Bad, EC);
    OS << "void f(double *a) { a[0] = undeclared; }\n";
  }
  ObjectFileBytes None;
  std::string Why;
  EXPECT_FALSE(Compile(true, std::string(Bad), None, Why));
  EXPECT_NE(Why.find("clang-19 failed"), std::string::npos) << Why;
  EXPECT_NE(Why.find("undeclared"), std::string::npos) << Why;
  llvm::sys::fs::remove(Bad);
}

TEST(InCore, ALoopsIterationTakesACyclePerLineOfItsCode) {
  // Zen 4 (core.fetch_line_bytes 64): the op cache delivers one 64-byte line
  // a cycle. short-rows.c at n = 26 runs its rows in clang's scalar
  // remainder loop (vmovsd, vfmadd213sd, vmovsd, inc, cmp, jne: 26 bytes,
  // about a cycle an iteration on the ports). Placed 48 bytes into a line it
  // spans two lines: 2 cycles an iteration, so a row of 26 takes 52 or more
  // and the nest at least 2 cy per source iteration; placed at a line's
  // start it spans one and the ports' cycle stands (under 1.5).
  InCoreOptions O = inCoreOptionsFor(machineFile("zen4-epyc-9654.yml"));
  ASSERT_EQ(O.FetchLineBytes, 64u);
  FrontendResult FR = frontendOfFile("tests/nest/short-rows.c");
  ASSERT_TRUE(FR.Ok) << FR.Error;
  std::vector<InCoreResult> R = analyzeKernelLoops(FR.IR, {}, O);
  ASSERT_EQ(R.size(), 1u);
  ASSERT_TRUE(R[0].Ok) << R[0].Reason;
  // The remainder loops (the pieces that are loops but not the body), and
  // where the first begins in the function.
  const NestCode &N = R[0].Nest;
  std::optional<uint64_t> At;
  for (const NestCode::Piece &P : N.Pieces)
    if (P.Loop >= 0 && P.Loop != N.Body && N.LoopIters[P.Loop] == 1 && !P.Ranges.empty()) {
      ASSERT_EQ(P.Ranges.size(), 1u);
      uint64_t Length = P.Ranges[0].second - P.Ranges[0].first;
      EXPECT_LE(Length, 32u);
      EXPECT_GT(Length, 16u);
      At = At ? At : P.Ranges[0].first;
    }
  ASSERT_TRUE(At);
  auto PlacedAt = [&](uint64_t Offset) {
    InCoreOptions P = O;
    P.FunctionAddresses[R[0].Code.Function] = (Offset + 64 * 4 - *At % 64) % 64;
    InCoreResult X = R[0];
    executeNest(X, FR.IR.Loops[0], {{"n", 26}}, P);
    return X;
  };
  InCoreResult Across = PlacedAt(48), Within = PlacedAt(0);
  ASSERT_TRUE(Across.Executed.Ok) << Across.Executed.Reason;
  ASSERT_TRUE(Within.Executed.Ok) << Within.Executed.Reason;
  EXPECT_GE(Across.Executed.Cycles, 2.0);
  EXPECT_GT(Across.Executed.Fetch, 0);
  EXPECT_EQ(Across.Bottleneck, InCoreBound::FrontEnd);
  EXPECT_LT(Within.Executed.Cycles, 1.5);
  // Unplaced: the object leaves four places open (a 16-byte aligned
  // .text); the note lists them and the prediction is the likeliest, the
  // one-line cycles (three places of four keep the loop in one line).
  InCoreResult Open = R[0];
  executeNest(Open, FR.IR.Loops[0], {{"n", 26}}, O);
  EXPECT_NEAR(Open.Executed.Cycles, Within.Executed.Cycles, 0.1 * Within.Executed.Cycles);
  EXPECT_TRUE(llvm::any_of(Open.Notes, [](const std::string &S) {
    return S.find("code placement") != std::string::npos && S.find("(4 places)") != std::string::npos;
  }));
}

// core.port_units replaces LLVM's unit counts (a hypothetical core, or a
// real one LLVM models with another's numbers). Eight loads and four stores
// of general registers on LLVM 19's znver5 (Zen 4's model): three
// load/store pipes (Zn4LSU), a load takes one of their cycles and a store
// two, so (8 + 4 x 2) / 3 = 5.33 cy. With four pipes: 16 / 4 = 4, where the
// three AGUs (12 / 3) and the two store units (4 x 2 / 2) bind as well.
TEST(InCore, PortUnitsReplaceLLVMsCounts) {
  InCoreOptions O;
  O.Cpu = "znver5";
  const std::string File = Src + "/tests/incore/loads-8-stores-4.s";
  InCoreResult Three = analyzeAssemblyFile(File, O);
  ASSERT_TRUE(Three.Ok) << Three.Reason;
  EXPECT_NEAR(Three.PortBound, 16.0 / 3, 1e-9);
  O.PortUnits = {{"Zn4LSU", 4}};
  InCoreResult Four = analyzeAssemblyFile(File, O);
  ASSERT_TRUE(Four.Ok) << Four.Reason;
  EXPECT_NEAR(Four.PortBound, 4, 1e-9);
  EXPECT_NEAR(Four.Cycles, 4, 0.1);
  auto Units = [&](const std::string &Port) {
    auto It = std::find(Four.Ports.begin(), Four.Ports.end(), Port);
    return It == Four.Ports.end() ? 0u : Four.PortUnits[It - Four.Ports.begin()];
  };
  EXPECT_EQ(Units("Zn4LSU"), 4u);
  EXPECT_EQ(Units("Zn4Load"), 3u);
  EXPECT_EQ(Units("Zn4Store"), 2u);
}

TEST(InCore, AnOverridesFormMatchesTheTextsItsGlobDoes) {
  // Each form checks a text for its longest plain run before its glob: the
  // run must be one every matching text has ("div r", "s", ", zmmword ptr").
  struct Case {
    const char *Form, *Text;
    bool Matches;
  } Cases[] = {
      {"*div r[0-9]", "div r9", true},
      {"*div r[0-9]", "idiv r10", true},
      {"*div r[0-9]", "div rcx", false},
      {"*div r[0-9]", "vdivpd zmm0, zmm1, zmm2", false},
      {"vf*[0-9]s[sd] ", "vfmadd231sd xmm0, xmm1, xmm2", true},
      {"vf*[0-9]s[sd] ", "vfmadd231pd xmm0, xmm1, xmm2", false},
      {"v* zmm*, zmmword ptr*", "vaddpd zmm0, zmm1, zmmword ptr [rax]", true},
      {"v* zmm*, zmmword ptr*", "vaddpd zmm0, zmm1, zmm2", false},
      {"[ab]mov x", "bmov x1", true},
      {"[ab]mov x", "cmov x1", false},
      {"a[]]b?", "a]bc", true},
      {"a[]]b?", "a]c", false},
      {"vmovsd qword", "vmovsd qword ptr [rax], xmm0", true},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(block::FormMatcher(C.Form).matches(C.Text), C.Matches) << C.Form << " / " << C.Text;
}

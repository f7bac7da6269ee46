// Naive hierarchical Roofline on the Haswell-EP model, derived by hand:
//   clock 2.7 GHz, peak 16 DP flop/cy = 43.2 GFLOP/s;
//   L1: 64 B/cy loads, 32 B/cy stores; L2->L1 64 B/cy; L3->L2 32 B/cy;
//   memory 42.6 GB/s = 15.78 B/cy.
#include "perfmodel/MachineModel.h"
#include "perfmodel/Model.h"
#include "perfmodel/Ecm.h"
#include "perfmodel/InCore.h"
#include "perfmodel/Ppr.h"
#include "perfmodel/Roofline.h"

#include <gtest/gtest.h>

using namespace perfmodel;

namespace {

MachineModel haswell() {
  auto R = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                            "/machine-models/haswell-ep-e5-2680v3.yml");
  EXPECT_TRUE(R.ok());
  return *R.Model;
}

Access ref(const char *Name, unsigned Bytes, bool Read, bool Write) {
  Access A;
  A.Array = A.Text = Name;
  A.ElementBytes = A.StrideBytes = Bytes;
  A.Read = Read;
  A.Write = Write;
  return A;
}

LoopKernel triad() {
  LoopKernel K;
  K.Double.Add = 1;
  K.Double.Mul = 1;
  K.Double.FmaContractible = 1; // a[i] = b[i] + s * c[i]
  K.Accesses = {ref("a", 8, false, true), ref("b", 8, true, false),
                ref("c", 8, true, false)};
  return K;
}

} // namespace

TEST(Roofline, TriadOnHaswellIsBandwidthBoundAtEveryLevel) {
  RooflineResult R = naiveRoofline(triad(), haswell());
  EXPECT_EQ(R.Precision, "double");
  EXPECT_NEAR(R.PeakGFlops, 43.2, 1e-9);
  // One core draws 34.56 GB/s (the paper's 5 cy per line from memory).
  EXPECT_NEAR(R.RidgeIntensity, 43.2 / 34.56, 1e-9);
  ASSERT_EQ(R.Levels.size(), 4u);
  // L1: loads 16 B / 64 = 0.25 cy, store 8 B / 32 = 0.25 cy, overlapped.
  EXPECT_EQ(R.Levels[0].Link, "L1-reg");
  EXPECT_NEAR(R.Levels[0].CyclesPerIt, 0.25, 1e-12);
  EXPECT_NEAR(R.Levels[0].BoundGFlops, 2 / 0.25 * 2.7, 1e-9); // 21.6
  EXPECT_EQ(R.Levels[0].Binding, "L1-reg");
  // L2: 32 B (with write-allocate) / 64 B/cy = 0.5 cy -> 10.8 GFLOP/s.
  EXPECT_NEAR(R.Levels[1].BoundGFlops, 10.8, 1e-9);
  EXPECT_EQ(R.Levels[1].Binding, "L2-L1");
  EXPECT_NEAR(R.Levels[1].Intensity, 2.0 / 32, 1e-12);
  // L3: 32 B / 32 B/cy = 1 cy -> 5.4 GFLOP/s.
  EXPECT_NEAR(R.Levels[2].BoundGFlops, 5.4, 1e-9);
  // Memory: AI 1/16 x 34.56 GB/s (one core) = 2.16 GFLOP/s.
  EXPECT_EQ(R.Levels[3].Level, "MEM");
  EXPECT_NEAR(R.Levels[3].BoundGFlops, 34.56 / 16, 1e-9);
  EXPECT_NEAR(R.Levels[3].BoundCyclesPerIt, 32 / (34.56 / 2.7), 1e-9);
  EXPECT_EQ(R.Levels[3].Binding, "MEM-L3");
}

TEST(Roofline, FlopHeavyLoopIsComputeBound) {
  // 128 flops (64 FMAs) on 8 B: 8 cy at 16 flop/cy beats 0.51 cy of memory traffic.
  LoopKernel K;
  K.Double.Add = 64;
  K.Double.Mul = 64;
  K.Double.FmaContractible = 64;
  K.Accesses = {ref("x", 8, true, false)};
  RooflineResult R = naiveRoofline(K, haswell());
  for (const RooflineLink &L : R.Levels) {
    EXPECT_EQ(L.Binding, "compute peak") << L.Level;
    EXPECT_NEAR(L.BoundGFlops, 43.2, 1e-9);
    EXPECT_NEAR(L.BoundCyclesPerIt, 8, 1e-12);
  }
}

TEST(Roofline, SinglePrecisionUsesTheSinglePeak) {
  LoopKernel K;
  K.Single.Add = 64;
  K.Single.Mul = 64;
  K.Single.FmaContractible = 64;
  K.Accesses = {ref("x", 4, true, false)};
  RooflineResult R = naiveRoofline(K, haswell());
  EXPECT_EQ(R.Precision, "single");
  EXPECT_NEAR(R.PeakGFlops, 86.4, 1e-9);
  EXPECT_NEAR(R.Levels.back().BoundGFlops, 86.4, 1e-9); // 4 cy vs 0.25 cy
}

TEST(Roofline, HypotheticalBandwidthMovesOnlyTheMemoryBound) {
  auto R = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                                "/machine-models/haswell-ep-e5-2680v3.yml",
                            {"memory.bandwidth_gbs=85.2",
                             "memory.sustained_one_core_gbs=69.12"});
  ASSERT_TRUE(R.ok());
  RooflineResult Base = naiveRoofline(triad(), haswell());
  RooflineResult Fast = naiveRoofline(triad(), *R.Model);
  EXPECT_NEAR(Fast.Levels[3].BoundGFlops, 2 * Base.Levels[3].BoundGFlops, 1e-9);
  EXPECT_NEAR(Fast.Levels[0].BoundGFlops, Base.Levels[0].BoundGFlops, 1e-12);
}

TEST(Roofline, UncontractedAddsWaitForHaswellsOneAddPort) {
  // 64 adds + 64 muls that do not form FMAs: adds run on port 1 only, muls
  // on ports 0 and 1. Busiest port: {add, mul} on 2 ports = 64 vector ops,
  // {add} on 1 port = 64 ops; 64 ops of 4 lanes on 4-wide AVX = 16 cy per
  // iteration -> 128 / 16 x 2.7 = 21.6 GFLOP/s, half the peak.
  LoopKernel K;
  K.Double.Add = 64;
  K.Double.Mul = 64;
  K.Accesses = {ref("x", 8, true, false)};
  RooflineResult R = naiveRoofline(K, haswell());
  EXPECT_NEAR(R.MixCyclesPerIt, 16, 1e-12);
  EXPECT_EQ(R.Levels.back().Binding, "flop mix");
  EXPECT_NEAR(R.Levels.back().BoundGFlops, 21.6, 1e-9);
  // Only adds: one port, 64 / 4 = 16 cy for 64 flops -> 10.8 GFLOP/s; with
  // FMAs: 64 / 2 ports / 4 lanes = 8 cy for 128 flops -> the peak.
  K.Double.Mul = 0;
  EXPECT_NEAR(naiveRoofline(K, haswell()).Levels.back().BoundGFlops, 10.8, 1e-9);
}

// Williams, "The Roofline Model" (../shared/seeds/roofline-chapter-williams.txt),
// Figure 9.3 and sections 9.4.2-9.4.3, on machine-models/opteron-2356-barcelona.yml
// with all 8 cores: peak 8 x 2.3 GHz x 4 flop/cy = 73.6 GFLOP/s, Stream 16.6
// GB/s, ridge 73.6 / 16.6 = 4.43 flop/B. Separate add and multiply pipes of
// 2 doubles each: an add-only code reaches half the peak with SIMD (36.8) and
// a quarter without (18.4).
TEST(Roofline, WilliamsOpteronBounds) {
  auto ML = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                             "/machine-models/opteron-2356-barcelona.yml");
  ASSERT_TRUE(ML.ok());
  const MachineModel &M = *ML.Model;
  // Kernel 1 of Figure 9.3: intensity 1 (4 adds + 4 muls per 8 B loaded).
  LoopKernel K1;
  K1.Double.Add = 4;
  K1.Double.Mul = 4;
  K1.Accesses = {ref("x", 8, true, false)};
  RooflineResult R = roofline(K1, M, nullptr, 0, 8);
  EXPECT_NEAR(R.PeakGFlops, 73.6, 1e-9);
  EXPECT_NEAR(R.RidgeIntensity, 73.6 / 16.6, 1e-9);
  EXPECT_NEAR(R.RidgeIntensity, 4.4, 0.05);
  ASSERT_EQ(R.Levels.back().Level, "MEM");
  EXPECT_NEAR(R.Levels.back().Intensity, 1, 1e-12);
  EXPECT_NEAR(R.Levels.back().BoundGFlops, 16.6, 1e-9);
  EXPECT_EQ(R.Levels.back().Binding, "MEM-L3");
  // Kernel 3: intensity 16 is compute-bound at the peak (balanced adds and muls).
  K1.Double.Add = K1.Double.Mul = 64;
  EXPECT_NEAR(roofline(K1, M, nullptr, 0, 8).Levels.back().BoundGFlops, 73.6, 1e-9);

  // Figure 9.6: only adds. Intensity 16 so memory does not bind.
  LoopKernel Adds;
  Adds.Double.Add = 128;
  Adds.Accesses = {ref("b", 8, true, false)};
  RooflineResult A = roofline(Adds, M, nullptr, 0, 8);
  auto Ceiling = [&](const char *Name) {
    for (const ComputeCeiling &C : A.Ceilings)
      if (C.Name == Name)
        return C.GFlops;
    ADD_FAILURE() << "no ceiling " << Name;
    return 0.0;
  };
  EXPECT_NEAR(Ceiling("loop mix, SIMD"), 36.8, 1e-9);
  EXPECT_NEAR(Ceiling("loop mix, scalar"), 18.4, 1e-9);
  EXPECT_NEAR(Ceiling("no SIMD"), 36.8, 1e-9); // peak / 2 lanes, balanced code
  EXPECT_NEAR(A.Levels.back().BoundGFlops, 36.8, 1e-9);
  EXPECT_EQ(A.Levels.back().Binding, "flop mix");
  // One core: everything per core, the memory of one socket.
  RooflineResult One = roofline(K1, M, nullptr, 0, 1);
  EXPECT_NEAR(One.PeakGFlops, 9.2, 1e-9);
  EXPECT_NEAR(One.RidgeIntensity, 9.2 / 8.3, 1e-9);
}

// Cores running one loop split its iterations: each core's slice stays in
// its own private caches, a shared cache holds all of it once per group of
// cores that share it. Haswell-EP: 32 KiB L1 and 256 KiB L2 per core, a 30
// MiB L3 shared by the socket's 12 cores (shared_by 12). By hand, 48 KiB is
// in L2 on one core and in L1 on two (2 x 32 KiB); 400 KiB in L3 on one
// core, in L2 on two (2 x 256 KiB); 40 MiB in memory on 12 cores (one L3)
// and in L3 on 24 (two sockets' L3s, 60 MiB).
TEST(Roofline, CoresPlaceTheirSlicesInTheirOwnCaches) {
  MachineModel M = haswell();
  ASSERT_EQ(M.cache("L3")->SharedBy, 12u);
  EXPECT_EQ(residentLevel(M, 48.0 * 1024, 1), "L2");
  EXPECT_EQ(residentLevel(M, 48.0 * 1024, 2), "L1");
  EXPECT_EQ(residentLevel(M, 400.0 * 1024, 1), "L3");
  EXPECT_EQ(residentLevel(M, 400.0 * 1024, 2), "L2");
  EXPECT_EQ(residentLevel(M, 40.0 * 1024 * 1024, 12), "MEM");
  EXPECT_EQ(residentLevel(M, 40.0 * 1024 * 1024, 24), "L3");
  EXPECT_DOUBLE_EQ(levelCapacity(*M.cache("L2"), 3), 3 * 256.0 * 1024);
}

// Random pages in a cache whose way spans several pages (page colours), by
// hand. Two colours of one page (8 KiB, 1 way, 4 KiB pages) and two pages:
// half the time they share a colour and both are lost to a sweep, half the
// time each has its own: 50 % kept. Two colours of two pages (16 KiB, 2
// ways) and three pages: only all three in one colour (1/4) loses them:
// 75 %. Two pages in the 16 KiB cache never crowd a colour: all kept. A
// way of one page (Zen 5's L1: 48 KiB, 12 ways) and a shared cache keep
// what their bytes hold.
TEST(Residence, RandomPagesCrowdSomeColoursOfACache) {
  CacheLevel C;
  C.Name = "C";
  C.LineBytes = 64;
  C.SizeBytes = 8192;
  C.Ways = 1;
  EXPECT_NEAR(keptShare(C, 8192, 4096), 0.5, 1e-12);
  C.SizeBytes = 16384;
  C.Ways = 2;
  EXPECT_NEAR(keptShare(C, 12288, 4096), 0.75, 1e-12);
  EXPECT_DOUBLE_EQ(keptShare(C, 8192, 4096), 1);
  C.SharedBy = 2;
  EXPECT_DOUBLE_EQ(keptShare(C, 12288, 4096, 1), 1);
  EXPECT_DOUBLE_EQ(keptShare(C, 20000, 4096, 1), 0);
  CacheLevel L1;
  L1.SizeBytes = 48 * 1024;
  L1.Ways = 12;
  L1.LineBytes = 64;
  EXPECT_DOUBLE_EQ(keptShare(L1, 48 * 1024, 4096), 1);
  EXPECT_DOUBLE_EQ(keptShare(L1, 49 * 1024, 4096), 0);
}

// Where a set lives, and a row mixed by the lines each level serves. On
// the Zen 5 VM's model (4 KiB pages; a 1 MiB L2 of 16 ways: 16 colours of
// 16 pages): 512 KiB is in L2 whole (128 pages: a colour of 17 is a
// 0.36 % chance per page); 1 MiB (256 pages, 16 a colour on average) keeps
// under half its lines in L2: in L3, the rest from L2; 768 KiB keeps most
// (86 % by the binomial; bench/memory/l2edge.c timed 85 % on the VM): in
// L2, the rest from L3. 1.5 MiB is beyond the L2's bytes: in L3 alone. On
// Haswell, whose file states no pages, the bytes decide (as before). Rows
// L1 1, L2 2, L3 4 cy/it mixed for a quarter of the lines from L2 with data
// in L3: 0.25 x 2 + 0.75 x 4 = 3.5 cy/it, the GFLOP/s 4 / 3.5 as high.
TEST(Residence, ASetAtTheL2sEdgeIsPartlyKept) {
  auto Z = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) + "/machine-models/dev-vm-zen5.yml");
  ASSERT_TRUE(Z.ok());
  const MachineModel &M = *Z.Model;
  const CacheLevel &L2 = M.Caches[1];
  Residence Half = residence(M, 512.0 * 1024);
  EXPECT_EQ(Half.Level, 1u);
  EXPECT_EQ(Half.OtherShare, 0);
  Residence Full = residence(M, 1024.0 * 1024);
  EXPECT_EQ(Full.Level, 2u);
  EXPECT_EQ(Full.Other, 1u);
  double Kept = keptShare(L2, 1024.0 * 1024, 4096);
  EXPECT_GT(Kept, 0.3);
  EXPECT_LT(Kept, 0.5);
  EXPECT_DOUBLE_EQ(Full.OtherShare, Kept);
  Residence Most = residence(M, 768.0 * 1024);
  EXPECT_EQ(Most.Level, 1u);
  EXPECT_EQ(Most.Other, 2u);
  EXPECT_NEAR(1 - Most.OtherShare, 0.86, 0.01);
  EXPECT_EQ(residentLevel(M, 768.0 * 1024), "L2");
  Residence Beyond = residence(M, 1536.0 * 1024);
  EXPECT_EQ(Beyond.Level, 2u);
  EXPECT_EQ(Beyond.OtherShare, 0);
  EXPECT_EQ(residence(haswell(), 250.0 * 1024).OtherShare, 0);

  Prediction P;
  P.Kind = ModelKind::Ecm;
  P.Ok = true;
  P.Levels = {{"L1", 1, 8}, {"L2", 2, 4}, {"L3", 4, 2}, {"MEM", 8, 1}};
  P.DataLevel = "L3";
  Residence R;
  R.Level = 2;
  R.Other = 1;
  R.OtherShare = 0.25;
  std::vector<std::string> Notes;
  mixKeptLines(P, R, Notes);
  EXPECT_DOUBLE_EQ(P.Levels[2].CyclesPerIt, 3.5);
  EXPECT_DOUBLE_EQ(P.Levels[2].GFlops, 2 * 4 / 3.5);
  EXPECT_DOUBLE_EQ(P.Levels[1].CyclesPerIt, 2);
  ASSERT_EQ(Notes.size(), 1u);
  EXPECT_NE(Notes[0].find("25 % of the working set's lines stay in L2"), std::string::npos)
      << Notes[0];
}

// Fills of streams that run downwards at their own rate, by hand on the
// Haswell file (L1 from L2: 64 B/cy; a 256 KiB L2) with 24 B/cy stated for
// descending streams: a[i] = b[i] + 1 with i running down over 8-byte
// elements is all descending (link rate 24), with b read upwards (b[n - i])
// half (1 / (0.5 / 64 + 0.5 / 24) = 34.9 B/cy); at a set beyond the L2 the
// flat rate stands. A line of copy moves 128 B in and 64 B out on one path:
// (128 + 64) / 24 = 8 cy per line, all descending.
TEST(Roofline, DescendingStreamsFillAtTheirOwnRate) {
  MachineModel M = haswell();
  M.Caches[0].FromNextDescending = 24;
  auto Stream = [](const char *Name, int64_t Coefficient, bool Write) {
    Access A = ref(Name, 8, !Write, Write);
    A.Linear = Poly::symbol("i") * Poly::constant(Coefficient);
    return A;
  };
  LoopKernel Down;
  LoopLevel Level;
  Level.Var = "i";
  Level.Upper = Poly::symbol("n");
  Level.Step = -1;
  Down.Nest.push_back(Level);
  Down.Accesses = {Stream("a", 1, true), Stream("b", 1, false)};
  LoopKernel Mixed = Down;
  Mixed.Accesses[1] = Stream("b", -1, false);
  auto Use = [&](const LoopKernel &K, double Set) {
    ModelInput In;
    In.Loop = &K;
    In.Machine = &M;
    In.WorkingSetBytes = Set;
    return linkUseOf(In);
  };
  EXPECT_DOUBLE_EQ(Use(Down, 128 << 10).Descending, 1);
  EXPECT_DOUBLE_EQ(Use(Mixed, 128 << 10).Descending, 0.5);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, Use(Down, 128 << 10)), 24);
  EXPECT_NEAR(M.fromNextBytesPerCycle(0, Use(Mixed, 128 << 10)), 1 / (0.5 / 64 + 0.5 / 24), 1e-9);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, Use(Down, 1 << 20)), 64);
  EXPECT_NEAR(linkCycles(M, 0, 128, 64, 1, true, Use(Down, 128 << 10)), 8, 1e-9);
}

// Lines of strided streams at their own rate, by hand on the Haswell file
// (L1 from L2: 64 B/cy) with 32 B/cy stated for them: a link whose 144 B
// an iteration are 128 B of column lines and 16 B of a sequential stream
// fills at 1 / (16/144 / 64 + 128/144 / 32) = 34.0 B/cy (144 B in 4.25
// cy: 2 cy for 64 B at 32 twice, 0.25 for 16 B at 64); a link without
// strided bytes, or a file without the rate, keeps 64. Beside descending
// bytes (24 B/cy for all of the rest) the two mix: 16 / 24 + 128 / 32 =
// 4.67 cy. A loop compiled to gathers takes none of it.
TEST(Roofline, StridedLinesFillAtTheirOwnRate) {
  MachineModel M = haswell();
  LoopKernel K = triad();
  TrafficResult T;
  T.Ok = true;
  T.Links.resize(M.Caches.size());
  T.Links[0].LoadBytesPerIt = 144;
  T.Links[0].StridedLoadBytesPerIt = 128;
  ModelInput In;
  In.Loop = &K;
  In.Machine = &M;
  In.Traffic = &T;
  LinkUse U = linkUseOf(In);
  ASSERT_EQ(U.Strided.size(), M.Caches.size());
  EXPECT_NEAR(U.Strided[0], 128.0 / 144, 1e-12);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, U), 64) << "no strided rate stated";
  M.Caches[0].FromNextStrided = 32;
  EXPECT_NEAR(144 / M.fromNextBytesPerCycle(0, U), 4.25, 1e-9);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(1, U), M.fromNextBytesPerCycle(1));
  M.Caches[0].FromNextDescending = 24;
  U.WorkingSet = 128 << 10;
  U.Descending = 1;
  EXPECT_NEAR(144 / M.fromNextBytesPerCycle(0, U), 16.0 / 24 + 4, 1e-9);
  // A compiled loop that gathers asks for a vector's lines at once: its
  // strided lines fill as streams do.
  InCoreResult Gathers;
  Gathers.Ok = true;
  Gathers.Instrs.resize(1);
  Gathers.Instrs[0].GatherScatter = true;
  In.InCore = &Gathers;
  EXPECT_TRUE(linkUseOf(In).Strided.empty());
  Gathers.Instrs[0].GatherScatter = false;
  EXPECT_EQ(linkUseOf(In).Strided.size(), M.Caches.size());
}

// The L1's loads and stores waiting for a share of the transfers (Zen 5:
// bench/memory/overlap.c), by hand on the Haswell file's triad without an
// in-core model (8 iterations a CL) and with the L1 loading 16 B/cy: T_nOL
// = 2 lines loaded at 16 B/cy (one stored at 32 B/cy beside them): 8 cy;
// T_L1L2 = 4 lines (b, c, a's write-allocate in, a out) at 64 B/cy: 4 cy;
// T_L2L3 at 32 B/cy: 8 cy. Full overlap: {8 ] 8 ] 8 ] T_L3Mem}. With all of
// the L2's transfers and half the L3's waiting where they overlap T_nOL:
// L2 8 + min(4, 8) = 12, L3 8 + 4 + 0.5 x min(8, 8) = 16; memory (no share
// stated) max(T_L3Mem, 16). With the L1 at its 64 B/cy (T_nOL 2) the L2
// row is 2 + min(4, 2) = 4, no more than the widest transfer: a loop with
// little L1 work does not wait. Under none the shares do not apply.
TEST(Ecm, LoadsAndStoresWaitForTheirShareOfTheTransfers) {
  MachineModel M = haswell();
  double L1Load = M.Core.LoadBytesPerCycle;
  M.Core.LoadBytesPerCycle = 16;
  LoopKernel K = triad();
  LoopLevel Level;
  Level.Var = "i";
  Level.Upper = Poly::symbol("n");
  K.Nest.push_back(Level);
  ModelInput In;
  In.Loop = &K;
  In.Machine = &M;
  M.EcmOverlap = OverlapRule::Full;
  EcmResult Full = ecm(In);
  ASSERT_TRUE(Full.Ok) << Full.Reason;
  EXPECT_NEAR(Full.TnOL, 8, 1e-9);
  ASSERT_EQ(Full.Transfers.size(), 3u);
  EXPECT_NEAR(Full.Transfers[0], 4, 1e-9);
  EXPECT_NEAR(Full.Transfers[1], 8, 1e-9);
  EXPECT_NEAR(Full.Predictions[1], 8, 1e-9);
  EXPECT_NEAR(Full.Predictions[2], 8, 1e-9);
  double Mem = Full.Transfers[2];
  EXPECT_GT(Mem, 16);

  M.EcmTnolSerialShare = {{"L2", 1}, {"L3", 0.5}};
  EcmResult Shared = ecm(In);
  ASSERT_TRUE(Shared.Ok);
  EXPECT_EQ(Shared.SerialShares, (std::vector<double>{1, 0.5, 0}));
  EXPECT_NEAR(Shared.Predictions[0], Full.Predictions[0], 1e-9);
  EXPECT_NEAR(Shared.Predictions[1], 12, 1e-9);
  EXPECT_NEAR(Shared.Predictions[2], 16, 1e-9);
  EXPECT_NEAR(Shared.Predictions[3], Mem, 1e-9);
  EXPECT_NE(Shared.Summary.Levels[2].Bottleneck.find("T_nOL 8 + 8 = 16 cy/CL"),
            std::string::npos)
      << Shared.Summary.Levels[2].Bottleneck;

  M.Core.LoadBytesPerCycle = L1Load;
  EcmResult Light = ecm(In);
  EXPECT_NEAR(Light.TnOL, 2, 1e-9);
  EXPECT_NEAR(Light.Predictions[1], 4, 1e-9);
  EXPECT_NEAR(Light.Predictions[2], 8, 1e-9);

  M.EcmOverlap = OverlapRule::None;
  EcmResult None = ecm(In);
  EXPECT_EQ(None.SerialShares, (std::vector<double>{1, 1, 1}));
  EXPECT_NEAR(None.Predictions[2], 2 + 4 + 8, 1e-9);
}

// A loop bound by a loop-carried chain (the in-core model's 16 cy a CL:
// sum1's eight dependent adds of 2 cy) against the same triad's transfers:
// under full overlap each level's prediction is max(16, data). With
// ecm.recurrence_serial_share.MEM = 0.75 the memory row adds 0.75 x the
// smaller of the two, the chain waiting for its lines: max(16, T) + 0.75 x
// min(16, T); the L2 and L3 rows (no share stated) keep max(16, data) = 16.
// A loop the ports bind (the same body with no chain) takes no share.
TEST(Ecm, AChainBoundLoopWaitsForItsShareOfTheLinesInMemory) {
  MachineModel M = haswell();
  M.EcmOverlap = OverlapRule::Full;
  LoopKernel K = triad();
  LoopLevel Level;
  Level.Var = "i";
  Level.Upper = Poly::symbol("n");
  K.Nest.push_back(Level);
  InCoreResult IC;
  IC.Ok = true;
  IC.SourceItersPerIter = 8;
  IC.TOL = 4;
  IC.TnOL = 2;
  IC.Cycles = 16;
  IC.RecurrenceBound = 16;
  IC.Bottleneck = InCoreBound::Recurrence;
  ModelInput In;
  In.Loop = &K;
  In.Machine = &M;
  In.InCore = &IC;
  EcmResult Plain = ecm(In);
  ASSERT_TRUE(Plain.Ok) << Plain.Reason;
  EXPECT_NEAR(Plain.TOL, 16, 1e-9);
  ASSERT_EQ(Plain.Predictions.size(), 4u);
  double T = Plain.Transfers.back();
  EXPECT_NEAR(Plain.Predictions[3], std::max(16.0, T), 1e-9);

  M.EcmRecurrenceSerialShare = {{"MEM", 0.75}};
  EcmResult Waits = ecm(In);
  ASSERT_TRUE(Waits.Ok);
  EXPECT_NEAR(Waits.Predictions[1], Plain.Predictions[1], 1e-9);
  EXPECT_NEAR(Waits.Predictions[2], Plain.Predictions[2], 1e-9);
  EXPECT_NEAR(Waits.Predictions[3], std::max(16.0, T) + 0.75 * std::min(16.0, T), 1e-9);
  EXPECT_NE(Waits.Summary.Levels[3].Bottleneck.find("ecm.recurrence_serial_share"),
            std::string::npos)
      << Waits.Summary.Levels[3].Bottleneck;

  IC.Bottleneck = InCoreBound::Ports;
  IC.Cycles = IC.TOL;
  EcmResult Ports = ecm(In);
  EXPECT_NEAR(Ports.Predictions[3], std::max(4.0, T), 1e-9);
}

// PPR's S_DAG(A, M, I_FMA) on a chain-bound body (tests/nest/rows.c's
// reduction, per machine iteration of 8 source iterations): the compute
// ports need 8 cy, the FMA chain within the body 32 cy. A nest as executed
// that overlaps rows leaves 0.1 cy of chain across executions
// (RecurrenceBound) and runs at 28.8 cy: S_DAG is 28.8 / 8 = 3.6 cy/it, and
// what bounds it is the chain (32 > 8), not the compute instructions, so
// the advice is the in-core model's (more accumulators), not "vectorize".
// Without the executed nest the body's 32 cy are S_DAG: 4 cy/it.
TEST(Ppr, AChainBoundBodyIsChainBoundWhenTheNestOverlapsItsExecutions) {
  MachineModel M = haswell();
  LoopKernel K = triad();
  K.Accesses = {ref("a", 8, true, false)};
  InCoreResult IC;
  IC.Ok = true;
  IC.SourceItersPerIter = 8;
  IC.Classes.Fma = 8;
  IC.Classes.Load = 8;
  IC.TOL = 8;
  IC.TnOL = 4;
  IC.RecurrenceBound = 0.1;
  IC.Cycles = 28.8;
  IC.Advice = "use 4 independent chains";
  IC.Executed.Ok = true;
  IC.Executed.SteadyRecurrence = 32;
  ModelInput In;
  In.Loop = &K;
  In.Machine = &M;
  In.InCore = &IC;
  In.WorkingSetBytes = 8 << 10;
  PprResult R = ppr(In);
  ASSERT_TRUE(R.Summary.Ok) << R.Reason;
  EXPECT_NEAR(R.ComputeCy, 3.6, 1e-12);
  EXPECT_EQ(R.Summary.Levels[0].Kind, BoundKind::Chain);
  EXPECT_EQ(R.Summary.Advice, "use 4 independent chains");

  IC.Executed.Ok = false;
  IC.RecurrenceBound = 32;
  R = ppr(In);
  EXPECT_NEAR(R.ComputeCy, 4, 1e-12);
  EXPECT_EQ(R.Summary.Levels[0].Kind, BoundKind::Chain);
}

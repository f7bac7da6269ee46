// Machine-model loading and validation: every problem names file:line:key.
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Model.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

using namespace perfmodel;

namespace {

const std::string HaswellFile =
    std::string(PERFMODEL_SOURCE_DIR) + "/machine-models/haswell-ep-e5-2680v3.yml";

std::string haswellText() {
  std::ifstream In(HaswellFile);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

/// The Haswell file with FROM replaced by TO (which must occur).
std::string edited(const std::string &From, const std::string &To) {
  std::string T = haswellText();
  size_t P = T.find(From);
  EXPECT_NE(P, std::string::npos) << From;
  if (P != std::string::npos)
    T.replace(P, From.size(), To);
  return T;
}

const MachineDiag *firstError(const MachineLoadResult &R) {
  for (const MachineDiag &D : R.Diags)
    if (D.Severity == MachineDiag::Kind::Error)
      return &D;
  return nullptr;
}

} // namespace

TEST(Machine, HaswellLoadsWithThePaperValues) {
  MachineLoadResult R = loadMachineModel(HaswellFile);
  ASSERT_TRUE(R.ok()) << (R.Diags.empty() ? "" : R.Diags[0].str());
  const MachineModel &M = *R.Model;
  // PPR paper, Table 1.
  EXPECT_DOUBLE_EQ(M.ClockGHz, 2.7);
  EXPECT_EQ(M.Cpu, "haswell");
  ASSERT_EQ(M.Caches.size(), 3u);
  EXPECT_EQ(M.Caches[0].SizeBytes, 32u * 1024);
  EXPECT_EQ(M.Caches[0].Ways, 8u);
  EXPECT_EQ(M.Caches[0].sets(), 64u); // 32 KiB / (8 x 64 B)
  EXPECT_EQ(M.Caches[1].SizeBytes, 256u * 1024);
  EXPECT_EQ(M.Caches[2].SizeBytes, 30u * 1024 * 1024);
  EXPECT_EQ(M.Caches[2].Ways, 20u);
  EXPECT_EQ(M.Caches[2].sets(), 24576u); // 30 MiB / (20 x 64 B)
  EXPECT_DOUBLE_EQ(*M.Caches[0].BytesPerCycleFromNext, 64);
  EXPECT_DOUBLE_EQ(*M.Caches[1].BytesPerCycleFromNext, 32);
  EXPECT_DOUBLE_EQ(M.Memory.BandwidthGBs, 42.6);
  EXPECT_DOUBLE_EQ(M.Core.LoadBytesPerCycle, 64);
  EXPECT_DOUBLE_EQ(M.Core.StoreBytesPerCycle, 32);
  EXPECT_DOUBLE_EQ(M.peakFlopsPerCycle(8), 16);
  EXPECT_DOUBLE_EQ(M.peakFlopsPerCycle(4), 32);
  // Every number in the shipped file names a source: no warnings at all.
  for (const MachineDiag &D : R.Diags)
    ADD_FAILURE() << D.str();
}

TEST(Machine, ByteSizesNeedBinaryUnits) {
  std::string Err;
  EXPECT_EQ(parseByteSize("32KiB", Err), 32768u);
  EXPECT_EQ(parseByteSize("1.5MiB", Err), 1572864u);
  EXPECT_EQ(parseByteSize("64B", Err), 64u);
  EXPECT_FALSE(parseByteSize("32768", Err));
  EXPECT_NE(Err.find("needs a unit"), std::string::npos);
  EXPECT_FALSE(parseByteSize("32KB", Err));
  EXPECT_NE(Err.find("binary units"), std::string::npos);
  EXPECT_FALSE(parseByteSize("0.3B", Err));
  EXPECT_FALSE(parseByteSize("lots", Err));
  EXPECT_EQ(formatByteSize(30u << 20), "30MiB");
  EXPECT_EQ(formatByteSize(1000), "1000B");
}

struct BadCase {
  const char *Name;
  std::string Text;
  unsigned Line; // expected line of the first error (0: not checked)
  const char *Key;
  const char *Says;
};

void PrintTo(const BadCase &C, std::ostream *OS) { *OS << C.Name; }

class MachineBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(MachineBad, NamesFileLineAndKey) {
  const BadCase &C = GetParam();
  MachineLoadResult R = parseMachineModel(C.Text, "bad.yml");
  EXPECT_FALSE(R.ok());
  const MachineDiag *D = firstError(R);
  ASSERT_NE(D, nullptr);
  EXPECT_EQ(D->File, "bad.yml");
  if (C.Line)
    EXPECT_EQ(D->Line, C.Line) << D->str();
  EXPECT_EQ(D->Key, C.Key) << D->str();
  EXPECT_NE(D->str().find(C.Says), std::string::npos) << D->str();
}

// Line numbers refer to machine-models/haswell-ep-e5-2680v3.yml (core.reorder_buffer is line 15).
INSTANTIATE_TEST_SUITE_P(
    Validation, MachineBad,
    ::testing::Values(
        BadCase{"MissingKey", edited("clock_ghz: 2.7\n", ""), 0, "clock_ghz",
                "required key is missing"},
        BadCase{"WrongType", edited("clock_ghz: 2.7", "clock_ghz: fast"), 10,
                "clock_ghz", "expected a number, got 'fast'"},
        BadCase{"Negative", edited("cores_per_socket: 12", "cores_per_socket: -12"), 11,
                "cores_per_socket", "greater than zero"},
        BadCase{"ZeroSize", edited("size: 256KiB", "size: 0KiB"), 38, "caches.L2.size",
                "greater than zero"},
        BadCase{"WaysDoNotDivide", edited("size: 256KiB, ways: 8", "size: 256KiB, ways: 6"),
                38, "caches.L2.ways", "do not divide"},
        BadCase{"UnknownKeyTypo", edited("  simd_bits: 256", "  simd_bit: 256"), 16,
                "core.simd_bit", "did you mean 'simd_bits'"},
        BadCase{"UnknownLLVMCpu", edited("cpu: haswell}", "cpu: haswel}"), 7, "llvm.cpu",
                "does not know CPU 'haswel'"},
        BadCase{"SustainedAboveTheoretical",
                edited("bandwidth_gbs: 42.6,", "bandwidth_gbs: 42.6, sustained_gbs: 50,"),
                47, "memory.sustained_gbs", "exceeds"},
        BadCase{"UnalignedCheaperThanAligned",
                edited("unaligned_vector_cost: 2", "unaligned_vector_cost: 0.5"), 29,
                "core.unaligned_vector_cost", "cannot cost fewer port slots"},
        BadCase{"SplitCheaperThanInLine",
                edited("unaligned_vector_cost: 2",
                       "unaligned_vector_cost: 2\n  line_split_store_cost: 0.8"),
                30, "core.line_split_store_cost", "cannot cost fewer port slots"},
        BadCase{"UnknownSchedulerQueue",
                edited("unaligned_vector_cost: 2",
                       "unaligned_vector_cost: 2\n  scheduler_queues: {HWPortAll: 30}"),
                30, "core.scheduler_queues.HWPortAll", "has: HWPortAny (60)"},
        // A group of ports (HWPort23: the two load ports) is not a port.
        BadCase{"PortUnitsOfAGroup",
                edited("unaligned_vector_cost: 2",
                       "unaligned_vector_cost: 2\n  port_units: {HWPort23: 3}"),
                30, "core.port_units.HWPort23", "has no port 'HWPort23' (it has: HWDivider (1)"},
        // An override's ports are resources of LLVM's model of the file's
        // CPU: another core's name (Ice Lake's divider in a Haswell file)
        // would charge nothing.
        BadCase{"OverridePortOfAnotherCore",
                edited("unaligned_vector_cost: 2",
                       "unaligned_vector_cost: 2\n  instruction_overrides:\n"
                       "    - {form: vdivpd ymm, ports: {ICXFPDivider: 8}}"),
                31, "core.instruction_overrides.0.ports",
                "LLVM 19's model of haswell has no resource 'ICXFPDivider'"},
        BadCase{"CpuidFeaturesNotAList",
                edited("models: [0x3f]}", "models: [0x3f], features: avx2}"), 52,
                "cpuid.features", "expected a list of LLVM feature names"},
        BadCase{"PortUnitsZero",
                edited("unaligned_vector_cost: 2",
                       "unaligned_vector_cost: 2\n  port_units: {HWPort2: 0}"),
                30, "core.port_units.HWPort2", "greater than zero"},
        BadCase{"FpUnitsDisagreeWithFmaUnits",
                edited("[[fma, mul], [fma, mul, add]]", "[[fma, mul], [mul, add]]"), 24,
                "core.fp_units", "1 of these pipes run FMA, but core.fma_units is 2"},
        // 2 FMA pipes x 4 lanes x 2 = 16 double flop/cycle, not the 12 stated.
        BadCase{"FpUnitsDisagreeWithPeak",
                edited("{double: 16, single: 32}", "{double: 12, single: 32}"), 24,
                "core.fp_units", "give 16 double flop/cycle"},
        BadCase{"PipeWiderThanRegisters",
                edited("simd_bits: 256", "simd_bits: 256\n  fp_pipe_bits: 512"), 17,
                "core.fp_pipe_bits", "cannot be wider"},
        BadCase{"FetchLineNotAPowerOfTwo",
                edited("simd_bits: 256", "simd_bits: 256\n  fetch_line_bytes: 48"), 17,
                "core.fetch_line_bytes", "a power of two"},
        BadCase{"UnknownFpOperation",
                edited("[[fma, mul], [fma, mul, add]]", "[[fma, mul], [fma, div]]"), 24,
                "core.fp_units.1", "among add, mul, fma"},
        BadCase{"NotANumberSize", edited("size: 32KiB", "size: 32KB"), 35,
                "caches.L1.size", "binary units"},
        BadCase{"Malformed", "name: x\nllvm: {triple: a\nclock_ghz: 1\n", 3, "",
                "malformed YAML"},
        BadCase{"Empty", "", 0, "", "the file is empty"},
        BadCase{"NaN", edited("clock_ghz: 2.7", "clock_ghz: .nan"), 10, "clock_ghz",
                "expected a number, got '.nan'"},
        BadCase{"Huge", edited("clock_ghz: 2.7", "clock_ghz: 1e308"), 10, "clock_ghz",
                "out of range"}),
    [](const auto &Info) { return std::string(Info.param.Name); });

TEST(Machine, NonexistentFileIsAnError) {
  MachineLoadResult R = loadMachineModel("/nonexistent/machine.yml");
  ASSERT_FALSE(R.ok());
  EXPECT_NE(R.Diags[0].str().find("/nonexistent/machine.yml"), std::string::npos);
  EXPECT_NE(R.Diags[0].Message.find("No such file"), std::string::npos);
}

TEST(Machine, NumberWithoutSourceIsReported) {
  std::string T = edited("memory: {bandwidth_gbs: 42.6, sustained_one_core_gbs: 34.56, channels: 4,",
                         "memory: {bandwidth_gbs: 42.6, sustained_one_core_gbs: 34.56, channels: 4, "
                         "sustained_gbs: 40,");
  MachineLoadResult R = parseMachineModel(T, "m.yml");
  ASSERT_TRUE(R.ok());
  ASSERT_EQ(R.Diags.size(), 1u);
  EXPECT_EQ(R.Diags[0].Severity, MachineDiag::Kind::Warning);
  EXPECT_EQ(R.Diags[0].Key, "memory.sustained_gbs");
  EXPECT_EQ(R.Diags[0].Line, 47u);
}

// The same for zen3 from its keys measured on a Zen 3 guest (zen3-vm-probe):
// the L1 keeps 16 line misses in flight, memory answers in 200 ns:
// 16 x 64 B / 200 ns = 5.12 GB/s. That is what a stream no prefetcher
// follows gets; prefetched streams fill at the measured 19.5 GB/s (the L2's
// own queue, not in the file, keeps more lines outstanding), which wins.
TEST(Machine, Zen3OneCoreBandwidthByLittlesLawFromItsMeasuredKeys) {
  MachineLoadResult R = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                                         "/machine-models/zen3-epyc-7763.yml");
  ASSERT_TRUE(R.ok());
  const MemoryModel &M = R.Model->Memory;
  ASSERT_TRUE(M.LittleGBs.has_value());
  EXPECT_NEAR(*M.LittleGBs, 16 * 64 / 200.0, 1e-9);
  EXPECT_NE(M.LittleBasis.find("16 misses in flight (caches.L1) x 64 B / 200 ns"),
            std::string::npos)
      << M.LittleBasis;
  EXPECT_DOUBLE_EQ(*M.oneCoreGBs(), 19.5);
}

// One core's memory bandwidth by Little's law, by hand from the Haswell
// file's sourced keys: the L2's super queue keeps 16 line misses in flight,
// memory answers in 90 ns: 16 x 64 B / 90 ns = 11.38 GB/s. The file's own
// one-core figure (the PPR paper's 34.56 GB/s) wins where it is given.
TEST(Machine, OneCoreMemoryBandwidthByLittlesLaw) {
  MachineLoadResult Stated = loadMachineModel(HaswellFile);
  ASSERT_TRUE(Stated.ok());
  const MemoryModel &S = Stated.Model->Memory;
  ASSERT_TRUE(S.LittleGBs.has_value());
  EXPECT_NEAR(*S.LittleGBs, 16 * 64 / 90.0, 1e-9);
  EXPECT_NE(S.LittleBasis.find("16 misses in flight (caches.L2) x 64 B / 90 ns"),
            std::string::npos)
      << S.LittleBasis;
  EXPECT_DOUBLE_EQ(*S.oneCoreGBs(), 34.56);

  std::string NoStated = edited("sustained_one_core_gbs: 34.56, ", "");
  MachineLoadResult L = parseMachineModel(NoStated, "m.yml");
  ASSERT_TRUE(L.ok());
  const MemoryModel &M = L.Model->Memory;
  EXPECT_NEAR(M.gbsFor(1, 1), 11.378, 1e-3);
  EXPECT_EQ(M.oneCoreSource().rfind("Little's law", 0), 0u) << M.oneCoreSource();
  // Four cores would draw 45.5 GB/s: the socket's 42.6 bounds them.
  EXPECT_DOUBLE_EQ(M.gbsFor(4, 1), 42.6);
  EXPECT_NEAR(M.gbsFor(3, 1), 3 * 1024 / 90.0, 1e-9);

  // Without the L2's queue the L1's 10 fill buffers bound: 640 B / 90 ns.
  std::string L1Only = edited(", misses_in_flight: 16}", "}");
  L1Only.replace(L1Only.find("sustained_one_core_gbs: 34.56, "), 31, "");
  MachineLoadResult F = parseMachineModel(L1Only, "m.yml");
  ASSERT_TRUE(F.ok());
  EXPECT_NEAR(F.Model->Memory.gbsFor(1, 1), 640 / 90.0, 1e-9);

  // A latency of 10 ns would let one core draw 102 GB/s: capped at 42.6.
  std::string Fast = NoStated;
  Fast.replace(Fast.find("latency_ns: 90"), 14, "latency_ns: 10");
  MachineLoadResult C = parseMachineModel(Fast, "m.yml");
  ASSERT_TRUE(C.ok());
  EXPECT_DOUBLE_EQ(C.Model->Memory.gbsFor(1, 1), 42.6);
  EXPECT_NE(C.Model->Memory.oneCoreSource().find("capped by the socket"), std::string::npos);

  // No latency, no Little's law: a core draws the socket's bandwidth.
  std::string NoLatency = NoStated;
  NoLatency.replace(NoLatency.find(",\n         latency_ns: 90"), 25, "");
  MachineLoadResult N = parseMachineModel(NoLatency, "m.yml");
  ASSERT_TRUE(N.ok());
  EXPECT_FALSE(N.Model->Memory.oneCoreGBs().has_value());
  EXPECT_DOUBLE_EQ(N.Model->Memory.gbsFor(1, 1), 42.6);
}

// The socket's rate per mix of fills (kerncraft's nearest benchmark kernel),
// on the Haswell file with the triad's (3/4 fills) sustained rate set at
// its socket's 42.6 GB/s, a load-only rate of 20 and an update's (1/2) of 40. A read-only loop
// (16 B in a core, two cores) takes the load's: 32 / 20 = 1.6 ns where the
// triad's figure said 32 / 42.6 = 0.75; copy (16 in, 8 out: 2/3, nearer
// 3/4 than 1/2) keeps the triad's; a fill loop (8 in, 8 out) the
// update's, 16 / 40 ns (the two cores' own 2 x 34.56 would take 16 / 69.12).
// A copy rate then takes copy's mix. Unset, every mix has the socket's.
TEST(Machine, EachMixOfFillsTakesTheNearestAllCoreKernel) {
  MachineLoadResult Plain = loadMachineModel(HaswellFile);
  ASSERT_TRUE(Plain.ok());
  for (double Share : {0.0, 0.5, 0.75, 1.0})
    EXPECT_DOUBLE_EQ(Plain.Model->Memory.socketGBs(Share), 42.6);
  MachineLoadResult R =
      loadMachineModel(HaswellFile, {"memory.sustained_gbs=42.6", "memory.sustained_load_gbs=20",
                                     "memory.sustained_update_gbs=40"});
  ASSERT_TRUE(R.ok());
  const MemoryModel &M = R.Model->Memory;
  std::string Key;
  EXPECT_DOUBLE_EQ(M.socketGBs(1, &Key), 20);
  EXPECT_EQ(Key, "memory.sustained_load_gbs");
  EXPECT_DOUBLE_EQ(M.socketGBs(0.75, &Key), 42.6);
  EXPECT_EQ(Key, "memory.sustained_gbs");
  EXPECT_DOUBLE_EQ(M.socketGBs(0.5), 40);
  EXPECT_NEAR(M.transferNs(32, 0, 2, 1), 32 / 20.0, 1e-12);
  EXPECT_NEAR(Plain.Model->Memory.transferNs(32, 0, 2, 1), 32 / 42.6, 1e-12);
  EXPECT_NEAR(M.transferNs(16, 8, 2, 1), 24 / 42.6, 1e-12);
  EXPECT_NEAR(M.transferNs(8, 8, 2, 1), 16 / 40.0, 1e-12);
  MachineLoadResult C =
      loadMachineModel(HaswellFile, {"memory.sustained_gbs=42.6", "memory.sustained_load_gbs=20",
                                     "memory.sustained_copy_gbs=30"});
  ASSERT_TRUE(C.ok());
  EXPECT_NEAR(C.Model->Memory.transferNs(16, 8, 2, 1), 24 / 30.0, 1e-12);
  // Above the theoretical bandwidth: an error, as the triad's.
  EXPECT_FALSE(loadMachineModel(HaswellFile, {"memory.sustained_load_gbs=100"}).ok());
}

// One core's fills and write-backs at their own rates, by hand on the
// Haswell file (one core 34.56 GB/s, socket 42.6) with a write-back rate of
// 40 GB/s added: copy moves per iteration 16 B in (b and a's
// write-allocate) and 8 B out. One core: 16 / 34.56 + 8 / 40 = 0.66296 ns
// (one bandwidth for both: 24 / 34.56 = 0.69444).
TEST(Machine, WritebacksOfOneCoreAddAtTheirOwnRate) {
  MachineLoadResult Plain = loadMachineModel(HaswellFile);
  ASSERT_TRUE(Plain.ok());
  EXPECT_NEAR(Plain.Model->Memory.transferNs(16, 8, 1, 1), 24 / 34.56, 1e-12);
  MachineLoadResult R = loadMachineModel(HaswellFile, {"memory.one_core_writeback_gbs=40"});
  ASSERT_TRUE(R.ok());
  const MemoryModel &M = R.Model->Memory;
  EXPECT_NEAR(M.transferNs(16, 8, 1, 1), 16 / 34.56 + 8 / 40.0, 1e-12);
  // Two cores at their rates would move the 24 B of an iteration each in
  // 16 / 69.12 + 8 / 80 = 0.3315 ns; the socket needs 24 / 42.6 = 0.5634.
  EXPECT_NEAR(M.transferNs(16, 8, 2, 1), 24 / 42.6, 1e-12);
  // ECM's link into memory per CL of copy (8 iterations) at 2.7 GHz:
  // (128 / 34.56 + 64 / 40) x 2.7 = 14.32 cy (one bandwidth: 15.0).
  EXPECT_NEAR(linkCycles(*R.Model, R.Model->Caches.size() - 1, 128, 64, 1, true),
              (128 / 34.56 + 64 / 40.0) * 2.7, 1e-9);
  EXPECT_NEAR(linkCycles(*Plain.Model, Plain.Model->Caches.size() - 1, 128, 64, 1, true),
              192 / 34.56 * 2.7, 1e-9);

  // A write-back rate above the socket's, or without a fill rate, is an error.
  MachineLoadResult High = loadMachineModel(HaswellFile, {"memory.one_core_writeback_gbs=50"});
  EXPECT_FALSE(High.ok());
  std::string NoFill = edited("sustained_one_core_gbs: 34.56, ", "one_core_writeback_gbs: 20, ");
  NoFill.replace(NoFill.find(",\n         latency_ns: 90"), 25, "");
  MachineLoadResult N = parseMachineModel(NoFill, "m.yml");
  ASSERT_FALSE(N.ok());
  bool Named = false;
  for (const MachineDiag &D : N.Diags)
    Named |= D.Key == "memory.one_core_writeback_gbs" &&
             D.Message.find("needs its fill rate") != std::string::npos;
  EXPECT_TRUE(Named);
}

// The TLB: entries a multiple of the ways, a power-of-two page, both miss
// costs; a wrong one names the key.
TEST(Machine, TlbKeysAreChecked) {
  auto Load = [](const std::string &Tlb) {
    return parseMachineModel(haswellText() + "\ntlb: " + Tlb + "\n", "m.yml");
  };
  MachineLoadResult Good =
      Load("{entries: 1536, ways: 12, page: 4KiB, load_miss_cy: 20, store_miss_cy: 10}");
  ASSERT_TRUE(Good.ok());
  ASSERT_TRUE(Good.Model->Tlb.has_value());
  EXPECT_EQ(Good.Model->Tlb->Entries, 1536u);
  EXPECT_EQ(Good.Model->Tlb->PageBytes, 4096u);
  EXPECT_DOUBLE_EQ(Good.Model->Tlb->StoreMissCy, 10);
  auto Names = [](const MachineLoadResult &R, const char *Key) {
    for (const MachineDiag &D : R.Diags)
      if (D.Key == Key)
        return true;
    return false;
  };
  MachineLoadResult Ways =
      Load("{entries: 1000, ways: 12, page: 4KiB, load_miss_cy: 20, store_miss_cy: 10}");
  EXPECT_FALSE(Ways.ok());
  EXPECT_TRUE(Names(Ways, "tlb.ways"));
  MachineLoadResult Page =
      Load("{entries: 1536, ways: 12, page: 3KiB, load_miss_cy: 20, store_miss_cy: 10}");
  EXPECT_FALSE(Page.ok());
  EXPECT_TRUE(Names(Page, "tlb.page"));
  MachineLoadResult Missing = Load("{entries: 1536, ways: 12, page: 4KiB}");
  EXPECT_FALSE(Missing.ok());
  EXPECT_TRUE(Names(Missing, "tlb.load_miss_cy"));

  // The first level: optional; fully associative unless l1_ways says
  // otherwise; fewer entries than the last level; costs not negative.
  std::string Last = "{entries: 1536, ways: 12, page: 4KiB, load_miss_cy: 20, store_miss_cy: 10, ";
  EXPECT_EQ(Good.Model->Tlb->L1Entries, 0u);
  MachineLoadResult L1 = Load(Last + "l1_entries: 64, l1_load_miss_cy: 1, l1_store_miss_cy: 0.5}");
  ASSERT_TRUE(L1.ok());
  EXPECT_EQ(L1.Model->Tlb->L1Entries, 64u);
  EXPECT_EQ(L1.Model->Tlb->L1Ways, 64u);
  EXPECT_DOUBLE_EQ(L1.Model->Tlb->L1LoadMissCy, 1);
  EXPECT_DOUBLE_EQ(L1.Model->Tlb->L1StoreMissCy, 0.5);
  MachineLoadResult L1Ways = Load(Last + "l1_entries: 64, l1_ways: 5}");
  EXPECT_FALSE(L1Ways.ok());
  EXPECT_TRUE(Names(L1Ways, "tlb.l1_ways"));
  MachineLoadResult L1Big = Load(Last + "l1_entries: 2048}");
  EXPECT_FALSE(L1Big.ok());
  EXPECT_TRUE(Names(L1Big, "tlb.l1_entries"));
  MachineLoadResult L1Neg = Load(Last + "l1_entries: 64, l1_load_miss_cy: -1}");
  EXPECT_FALSE(L1Neg.ok());
  EXPECT_TRUE(Names(L1Neg, "tlb.l1_load_miss_cy"));
}

// memory.cache_line_cy: optional, zero allowed (the lines overlap), not
// negative nor implausible, and `machine show` states it.
TEST(Machine, CacheLineCyIsChecked) {
  std::string File = std::string(PERFMODEL_SOURCE_DIR) + "/machine-models/haswell-ep-e5-2680v3.yml";
  MachineLoadResult None = loadMachineModel(File);
  ASSERT_TRUE(None.ok());
  EXPECT_FALSE(None.Model->Memory.CacheLineCy.has_value());
  for (const char *V : {"0", "4.2"}) {
    MachineLoadResult R = loadMachineModel(File, {std::string("memory.cache_line_cy=") + V});
    ASSERT_TRUE(R.ok()) << V;
    EXPECT_EQ(R.Model->Memory.CacheLineCy, std::optional<double>(std::stod(V)));
  }
  for (const char *V : {"-1", "2000"}) {
    MachineLoadResult R = loadMachineModel(File, {std::string("memory.cache_line_cy=") + V});
    EXPECT_FALSE(R.ok()) << V;
    bool Named = false;
    for (const MachineDiag &D : R.Diags)
      Named |= D.Key == "memory.cache_line_cy";
    EXPECT_TRUE(Named) << V;
  }
}

TEST(Machine, SetDerivesAHypotheticalMachine) {
  MachineLoadResult R = loadMachineModel(
      HaswellFile, {"caches.L2.size=2MiB", "memory.bandwidth_gbs=85.2"});
  ASSERT_TRUE(R.ok());
  EXPECT_EQ(R.Model->Caches[1].SizeBytes, 2u << 20);
  EXPECT_DOUBLE_EQ(R.Model->Memory.BandwidthGBs, 85.2);
  EXPECT_EQ(R.Model->Overrides.size(), 2u);
  // Overridden values need no source of their own.
  EXPECT_TRUE(R.Diags.empty());
}

TEST(Machine, SetErrorsNameTheOverride) {
  struct {
    const char *Set, *Key, *Says;
  } Cases[] = {
      {"caches.L4.size=2MiB", "caches.L4", "no entry named 'L4' (have: L1, L2, L3)"},
      {"caches.L2.size=lots", "caches.L2.size", "expected a size"},
      {"caches.L2.ways=7", "caches.L2.ways", "do not divide"},
      {"memory.bandwith_gbs=80", "memory.bandwith_gbs", "did you mean 'bandwidth_gbs'"},
      {"clock_ghz", "", "expected key.path=value"},
  };
  for (const auto &C : Cases) {
    MachineLoadResult R = loadMachineModel(HaswellFile, {C.Set});
    EXPECT_FALSE(R.ok()) << C.Set;
    const MachineDiag *D = firstError(R);
    ASSERT_NE(D, nullptr) << C.Set;
    EXPECT_EQ(D->File, std::string("--set ") + C.Set);
    EXPECT_EQ(D->Key, C.Key) << D->str();
    EXPECT_NE(D->str().find(C.Says), std::string::npos) << D->str();
  }
}

TEST(Machine, LLVMCpuNames) {
  std::string Err;
  EXPECT_TRUE(checkLLVMCpu("x86_64-unknown-linux-gnu", "skylake-avx512", Err));
  EXPECT_TRUE(checkLLVMCpu("x86_64-unknown-linux-gnu", "znver4", Err));
  EXPECT_TRUE(checkLLVMCpu("aarch64-unknown-linux-gnu", "neoverse-v2", Err));
  EXPECT_FALSE(checkLLVMCpu("x86_64-unknown-linux-gnu", "pentium9", Err));
  EXPECT_FALSE(checkLLVMCpu("nonsense-arch", "haswell", Err));
}

TEST(Machine, ResolvesByStemAndAlias) {
  EXPECT_EQ(resolveMachine("hsw"), HaswellFile);
  EXPECT_EQ(resolveMachine("haswell-ep-e5-2680v3"), HaswellFile);
  EXPECT_EQ(resolveMachine("no-such-machine"), "");
  HostCpu H{"GenuineIntel", 6, 0x3f, "test"};
  EXPECT_EQ(machineForHost(H), HaswellFile);
  H.Model = 0x55;
  EXPECT_EQ(machineForHost(H), resolveMachine("skx"));
  H.Model = 0x0e; // Core Duo: no model in the library
  EXPECT_EQ(machineForHost(H), "");
  HostCpu Milan{"AuthenticAMD", 0x19, 0x01, "test"};
  EXPECT_EQ(machineForHost(Milan), resolveMachine("zen3"));
}

TEST(Machine, AnOverrideFormThatIsNotAGlobIsAnError) {
  // After line 15 of the Haswell file: the list on 16, its entry on 17.
  std::string T = edited("  reorder_buffer: 192\n",
                         "  reorder_buffer: 192\n  instruction_overrides:\n"
                         "    - {form: \"vf[0-9\", ports: {HWPort0: 0.5}}\n");
  MachineLoadResult R = parseMachineModel(T, "m.yml");
  const MachineDiag *D = firstError(R);
  ASSERT_NE(D, nullptr);
  EXPECT_EQ(D->Key, "core.instruction_overrides.0.form") << D->str();
  EXPECT_EQ(D->Line, 17u) << D->str();
  EXPECT_NE(D->Message.find("'vf[0-9' is not a valid glob"), std::string::npos) << D->str();
}

// A file with `base:` is the base model with its own keys merged over it:
// scalars replaced, caches matched by name, its sources listed before the
// base's (and covering what it adds), its instruction_overrides after the
// base's. Written next to this test so the relative path resolves.
TEST(Machine, BaseModelWithKeysMergedOver) {
  std::string Dir = ::testing::TempDir();
  std::string File = Dir + "/derived.yml";
  {
    std::ofstream Out(File);
    Out << "base: haswell-ep-e5-2680v3\n"
           "name: derived\n"
           "clock_ghz: 3.1\n"
           "core:\n"
           "  instruction_overrides:\n"
           "    - {form: vaddpd, latency_cy: 4}\n"
           "caches:\n"
           "  - {name: L2, latency_cy: 13, bytes_per_cycle_from_next: 20}\n"
           "memory: {latency_ns: 80}\n"
           "ecm: {overlap: full}\n"
           "sources:\n"
           "  - {id: mine, cite: measured, covers: [clock_ghz, core.instruction_overrides,\n"
           "     caches.L2.latency_cy, caches.L2.bytes_per_cycle_from_next,\n"
           "     memory.latency_ns, ecm.overlap]}\n";
  }
  MachineLoadResult R = loadMachineModel(File);
  ASSERT_TRUE(R.ok()) << (R.Diags.empty() ? "" : R.Diags[0].str());
  for (const MachineDiag &D : R.Diags)
    ADD_FAILURE() << D.str(); // the merged file is fully sourced
  MachineLoadResult H = loadMachineModel(HaswellFile);
  ASSERT_TRUE(H.ok());
  const MachineModel &M = *R.Model, &B = *H.Model;
  EXPECT_EQ(M.Name, "derived");
  EXPECT_DOUBLE_EQ(M.ClockGHz, 3.1);
  EXPECT_EQ(M.Cpu, B.Cpu);
  EXPECT_EQ(M.CoresPerSocket, B.CoresPerSocket);
  ASSERT_EQ(M.Caches.size(), B.Caches.size());
  EXPECT_EQ(M.Caches[1].Name, "L2");
  EXPECT_DOUBLE_EQ(M.Caches[1].LatencyCy, 13);
  EXPECT_EQ(M.Caches[1].BytesPerCycleFromNext, std::optional<double>(20));
  EXPECT_EQ(M.Caches[1].SizeBytes, B.Caches[1].SizeBytes); // the base's geometry
  EXPECT_EQ(M.Caches[1].MissesInFlight, B.Caches[1].MissesInFlight);
  EXPECT_DOUBLE_EQ(M.Caches[0].LatencyCy, B.Caches[0].LatencyCy);
  EXPECT_EQ(M.Memory.LatencyNs, std::optional<double>(80));
  EXPECT_DOUBLE_EQ(M.Memory.BandwidthGBs, B.Memory.BandwidthGBs);
  EXPECT_EQ(M.EcmOverlap, OverlapRule::Full);
  ASSERT_EQ(M.Core.Overrides.size(), B.Core.Overrides.size() + 1);
  EXPECT_EQ(M.Core.Overrides.back().Form, "vaddpd");
  ASSERT_EQ(M.Sources.size(), B.Sources.size() + 1);
  EXPECT_EQ(M.Sources.front().Id, "mine");
  ASSERT_EQ(M.Bases.size(), 1u);
  EXPECT_EQ(M.Bases[0], HaswellFile);
}

// Merging keeps each value's position: an error in the derived file names its
// line there, one in a base names the base file and its line (a merged copy
// used to report both at 1:1 of the derived file).
TEST(Machine, BaseKeysKeepTheirFileAndLine) {
  std::string Dir = ::testing::TempDir();
  {
    std::ofstream Out(Dir + "/kept-base.yml");
    Out << "base: haswell-ep-e5-2680v3\n"
           "name: kept-base\n"
           "memory:\n"
           "  latency_ns: -3\n";
  }
  {
    std::ofstream Out(Dir + "/kept-derived.yml");
    Out << "base: ./kept-base.yml\n"
           "name: kept-derived\n"
           "caches:\n"
           "  - {name: L1, misses_in_flight: 0}\n";
  }
  MachineLoadResult R = loadMachineModel(Dir + "/kept-derived.yml");
  ASSERT_FALSE(R.ok());
  std::vector<std::string> Errors;
  for (const MachineDiag &D : R.Diags)
    if (D.Severity == MachineDiag::Kind::Error)
      Errors.push_back(D.str());
  ASSERT_EQ(Errors.size(), 2u);
  auto Has = [&](const std::string &Text) {
    return std::any_of(Errors.begin(), Errors.end(), [&](const std::string &E) {
      return E.find(Text) != std::string::npos;
    });
  };
  EXPECT_TRUE(Has("/kept-base.yml:4:15: error: memory.latency_ns:")) << Errors[0] << Errors[1];
  EXPECT_TRUE(Has("/kept-derived.yml:4:34: error: caches.L1.misses_in_flight:"))
      << Errors[0] << Errors[1];
}

// core.call_cy: cycles per call by symbol, each a positive number.
TEST(Machine, CallCyclesByFunction) {
  MachineLoadResult R = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                                         "/machine-models/zen4-epyc-9654.yml");
  ASSERT_TRUE(R.ok());
  EXPECT_GT(R.Model->Core.CallCycles.at("exp"), 1.0);
  R = parseMachineModel("base: zen4\ncore: {call_cy: {exp: -2}}\n", "bad.yml");
  ASSERT_FALSE(R.ok());
  EXPECT_NE(firstError(R)->str().find("bad.yml:2:23: error: core.call_cy.exp:"), std::string::npos)
      << firstError(R)->str();
}

TEST(Machine, BaseErrorsNameTheFileAndKey) {
  MachineLoadResult R = parseMachineModel("base: no-such-model\nname: x\n", "d.yml");
  ASSERT_FALSE(R.ok());
  const MachineDiag *E = firstError(R);
  ASSERT_NE(E, nullptr);
  EXPECT_EQ(E->str(), "d.yml:1:7: error: base: no machine model 'no-such-model' (see "
                      "`perfmodel machine list`)");
  // A file that is its own base.
  std::string File = ::testing::TempDir() + "/self.yml";
  {
    std::ofstream Out(File);
    Out << "base: ./self.yml\nname: x\n";
  }
  R = loadMachineModel(File);
  ASSERT_FALSE(R.ok());
  E = firstError(R);
  ASSERT_NE(E, nullptr);
  EXPECT_NE(E->Message.find("leads back to a model already in the chain"), std::string::npos)
      << E->str();
}

// Refills of lines crowding a few sets, by hand: {1: 8, 4: 4, 16: 2}: at 2
// sets half way in log2 from 8 to 4, 6; at 8 sets 3; below the first the
// first's; beyond 16 sets none. The stores' table, {2: 30, 8: 10}, alike:
// at 4 sets 20, at 1 the first's 30, beyond 8 none; for a column stored
// alone, {2: 8, 8: 2}: at 4 sets 5. Keys that are no set
// count: errors naming the table.
TEST(Machine, ConflictRefillsFollowTheSetsReached) {
  MachineLoadResult R = parseMachineModel(
      edited("bytes_per_cycle_from_next: 64, misses_in_flight: 10,",
             "bytes_per_cycle_from_next: 64, misses_in_flight: 10,\n"
             "     conflict_miss_cy_by_sets: {16: 2, 1: 8, 4: 4},\n"
             "     conflict_store_cy_by_sets: {8: 10, 2: 30},\n"
             "     conflict_store_alone_cy_by_sets: {8: 2, 2: 8},"),
      "m.yml");
  ASSERT_TRUE(R.ok());
  const CacheLevel &L1 = R.Model->Caches[0];
  EXPECT_DOUBLE_EQ(L1.conflictMissCycles(1).value_or(0), 8);
  EXPECT_DOUBLE_EQ(L1.conflictMissCycles(2).value_or(0), 6);
  EXPECT_DOUBLE_EQ(L1.conflictMissCycles(8).value_or(0), 3);
  EXPECT_DOUBLE_EQ(L1.conflictMissCycles(16).value_or(0), 2);
  EXPECT_FALSE(L1.conflictMissCycles(32));
  EXPECT_FALSE(R.Model->Caches[1].conflictMissCycles(1));
  EXPECT_DOUBLE_EQ(L1.conflictStoreCycles(4).value_or(0), 20);
  EXPECT_DOUBLE_EQ(L1.conflictStoreCycles(1).value_or(0), 30);
  EXPECT_FALSE(L1.conflictStoreCycles(16));
  EXPECT_FALSE(R.Model->Caches[1].conflictStoreCycles(2));
  EXPECT_DOUBLE_EQ(L1.conflictStoreCycles(4, /*Alone=*/true).value_or(0), 5);
  EXPECT_DOUBLE_EQ(L1.conflictStoreCycles(4, /*Alone=*/false).value_or(0), 20);
  for (const char *Key : {"conflict_miss_cy_by_sets", "conflict_store_cy_by_sets",
                          "conflict_store_alone_cy_by_sets"})
    for (const char *Bad : {"{few: 3}", "{0: 3}", "{4: 3, 04: 2}", "{4: -1}", "[3]"}) {
      MachineLoadResult B = parseMachineModel(
          edited("bytes_per_cycle_from_next: 64, misses_in_flight: 10,",
                 std::string("bytes_per_cycle_from_next: 64, misses_in_flight: 10, ") + Key +
                     ": " + Bad + ","),
          "m.yml");
      ASSERT_FALSE(B.ok()) << Key << " " << Bad;
      const MachineDiag *E = firstError(B);
      ASSERT_NE(E, nullptr);
      EXPECT_NE(E->Key.find(std::string("caches.L1.") + Key), std::string::npos)
          << Bad << ": " << E->str();
    }
}

// A fill rate by working set, by hand on the Haswell file (L1 from L2 at
// 64 B/cy, a private 256 KiB L2) with {64KiB: 32, 128KiB: 48} added: below
// and at 64 KiB 32; at 64 x sqrt(2) KiB, half way in log2, 40; from 128 KiB
// to the L2's size 48; beyond the L2 (data further out) the flat 64. Two
// cores each hold half the set in their own L2. A link with fills and
// write-backs on one path at 90.5 KiB: (128 + 64) / 40 = 4.8 cy per line
// of copy (flat: 3).
TEST(Machine, FillRateFollowsTheWorkingSetWhereTheFileStatesIt) {
  MachineLoadResult R = parseMachineModel(
      edited("bytes_per_cycle_from_next: 64, misses_in_flight: 10,",
             "bytes_per_cycle_from_next: 64, misses_in_flight: 10,\n"
             "     bytes_per_cycle_from_next_by_set: {128KiB: 48, 64KiB: 32},"),
      "m.yml");
  ASSERT_TRUE(R.ok());
  const MachineModel &M = *R.Model;
  const double KiB = 1024, Mid = 64 * std::sqrt(2.0) * KiB;
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, {32 * KiB}), 32);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, {64 * KiB}), 32);
  EXPECT_NEAR(M.fromNextBytesPerCycle(0, {Mid}), 40, 1e-9);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, {200 * KiB}), 48);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, {256 * KiB}), 48);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0, {300 * KiB}), 64);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(0), 64);
  EXPECT_NEAR(M.fromNextBytesPerCycle(0, {2 * Mid, 2}), 40, 1e-9);
  EXPECT_DOUBLE_EQ(M.fromNextBytesPerCycle(1, {64 * KiB}), 32); // L2's own: flat
  EXPECT_NEAR(linkCycles(M, 0, 128, 64, 1, true, {Mid}), 4.8, 1e-9);
  EXPECT_NEAR(linkCycles(M, 0, 128, 64, 1, true), 3, 1e-9);

  // On the last level, with a key that is no size, or twice one set: errors.
  MachineLoadResult Last = parseMachineModel(
      edited("latency_cy: 34, shared_by: 12,",
             "latency_cy: 34, shared_by: 12, bytes_per_cycle_from_next_by_set: {1MiB: 9},"),
      "m.yml");
  EXPECT_FALSE(Last.ok());
  for (const char *Bad : {"{fast: 48}", "{64KiB: 32, 65536: 30}", "{64KiB: -1}", "[48]"}) {
    MachineLoadResult B = parseMachineModel(
        edited("bytes_per_cycle_from_next: 64, misses_in_flight: 10,",
               std::string("bytes_per_cycle_from_next: 64, misses_in_flight: 10, "
                           "bytes_per_cycle_from_next_by_set: ") +
                   Bad + ","),
        "m.yml");
    ASSERT_FALSE(B.ok()) << Bad;
    const MachineDiag *E = firstError(B);
    ASSERT_NE(E, nullptr);
    EXPECT_NE(E->Key.find("caches.L1.bytes_per_cycle_from_next_by_set"), std::string::npos)
        << Bad << ": " << E->str();
  }
}

// bytes_per_cycle_from_next_strided: a positive rate on a cache that fills
// from another (the Zen 5 VM's L1 and L2 state theirs), an error on the last
// level (memory's bandwidth) or where it is not a positive number.
TEST(Machine, StridedFillRatesAreChecked) {
  MachineLoadResult Vm = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                                          "/machine-models/dev-vm-zen5.yml");
  ASSERT_TRUE(Vm.ok());
  EXPECT_DOUBLE_EQ(Vm.Model->Caches[0].FromNextStrided.value_or(0), 31.5);
  EXPECT_DOUBLE_EQ(Vm.Model->Caches[1].FromNextStrided.value_or(0), 23);
  EXPECT_FALSE(Vm.Model->Caches[2].FromNextStrided);
  MachineLoadResult Last = parseMachineModel(
      edited("latency_cy: 34, shared_by: 12,",
             "latency_cy: 34, shared_by: 12, bytes_per_cycle_from_next_strided: 9,"),
      "m.yml");
  EXPECT_FALSE(Last.ok());
  MachineLoadResult Zero = parseMachineModel(
      edited("bytes_per_cycle_from_next: 64, misses_in_flight: 10,",
             "bytes_per_cycle_from_next: 64, misses_in_flight: 10, "
             "bytes_per_cycle_from_next_strided: 0,"),
      "m.yml");
  ASSERT_FALSE(Zero.ok());
  const MachineDiag *E = firstError(Zero);
  ASSERT_NE(E, nullptr);
  EXPECT_NE(E->Key.find("caches.L1.bytes_per_cycle_from_next_strided"), std::string::npos)
      << E->str();
}

// ecm.tnol_serial_share names the level a link fills from (a cache beyond
// the first, or MEM) and a share of at most 1; the Zen 5 VM's measured
// shares load, and under `none` every link's share is 1.
TEST(Machine, TnolSerialSharesAreChecked) {
  MachineLoadResult Vm = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                                          "/machine-models/dev-vm-zen5.yml");
  ASSERT_TRUE(Vm.ok());
  EXPECT_DOUBLE_EQ(Vm.Model->tnolSerialShare(0), 0.42);
  EXPECT_DOUBLE_EQ(Vm.Model->tnolSerialShare(1), 0.29);
  EXPECT_DOUBLE_EQ(Vm.Model->tnolSerialShare(2), 0);
  EXPECT_EQ(Vm.Model->tnolSerialShareText(), "L2 0.42, L3 0.29");
  MachineLoadResult Gnr = loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                                           "/machine-models/dev-vm-gnr.yml");
  ASSERT_TRUE(Gnr.ok());
  EXPECT_EQ(Gnr.Model->EcmRecurrenceSerialShare,
            (std::map<std::string, double>{{"MEM", 0.75}}));

  MachineLoadResult Ok = loadMachineModel(
      HaswellFile, {"ecm.overlap=full", "ecm.tnol_serial_share.MEM=1", "ecm.tnol_serial_share.L3=0"});
  ASSERT_TRUE(Ok.ok()) << (Ok.Diags.empty() ? "" : Ok.Diags[0].str());
  EXPECT_DOUBLE_EQ(Ok.Model->tnolSerialShare(2), 1);
  EXPECT_DOUBLE_EQ(Ok.Model->tnolSerialShare(1), 0);
  MachineLoadResult None = loadMachineModel(HaswellFile, {"ecm.tnol_serial_share.L2=0.5"});
  ASSERT_TRUE(None.ok());
  EXPECT_DOUBLE_EQ(None.Model->tnolSerialShare(0), 1) << "none: every transfer waits whole";
  EXPECT_EQ(None.Model->tnolSerialShareText(), "");

  for (auto [Set, Key, Says] :
       {std::tuple{"ecm.tnol_serial_share.L1=0.5", "ecm.tnol_serial_share.L1", "no link fills from"},
        std::tuple{"ecm.tnol_serial_share.L9=0.5", "ecm.tnol_serial_share.L9", "no link fills from"},
        std::tuple{"ecm.tnol_serial_share.L2=1.5", "ecm.tnol_serial_share.L2", "at most 1"},
        std::tuple{"ecm.tnol_serial_share.L2=-1", "ecm.tnol_serial_share.L2", "negative"},
        std::tuple{"ecm.recurrence_serial_share.L1=0.5", "ecm.recurrence_serial_share.L1",
                   "no data level beyond the first is 'L1'"},
        std::tuple{"ecm.recurrence_serial_share.MEM=2", "ecm.recurrence_serial_share.MEM",
                   "at most 1"}}) {
    MachineLoadResult R = loadMachineModel(HaswellFile, {"ecm.overlap=full", Set});
    const MachineDiag *E = firstError(R);
    ASSERT_NE(E, nullptr) << Set;
    EXPECT_EQ(E->Key, Key) << Set;
    EXPECT_NE(E->Message.find(Says), std::string::npos) << E->Message;
  }
}

// A run parses a file without a base once (loadMachineModel keeps it), but
// a file rewritten in between is read as it is now: the kept parse is the
// text's, not the path's. A base file rewritten under a derived one is read
// anew too (files with a base are not kept).
TEST(Machine, AFileRewrittenBetweenLoadsIsReadAsItIsNow) {
  std::string Dir = ::testing::TempDir();
  std::string File = Dir + "/rewritten.yml";
  auto Write = [&](const std::string &Path, const std::string &Text) {
    std::ofstream Out(Path);
    Out << Text;
  };
  Write(File, edited("clock_ghz: 2.7", "clock_ghz: 2.9"));
  MachineLoadResult A = loadMachineModel(File);
  ASSERT_TRUE(A.ok());
  EXPECT_DOUBLE_EQ(A.Model->ClockGHz, 2.9);
  EXPECT_DOUBLE_EQ(loadMachineModel(File).Model->ClockGHz, 2.9);
  Write(File, edited("clock_ghz: 2.7", "clock_ghz: 3.3"));
  MachineLoadResult B = loadMachineModel(File);
  ASSERT_TRUE(B.ok());
  EXPECT_DOUBLE_EQ(B.Model->ClockGHz, 3.3);
  // --set is part of what was parsed.
  MachineLoadResult C = loadMachineModel(File, {"clock_ghz=1.5"});
  ASSERT_TRUE(C.ok());
  EXPECT_DOUBLE_EQ(C.Model->ClockGHz, 1.5);
  EXPECT_DOUBLE_EQ(loadMachineModel(File).Model->ClockGHz, 3.3);

  std::string Base = Dir + "/rewritten-base.yml", Derived = Dir + "/rewritten-derived.yml";
  Write(Base, edited("clock_ghz: 2.7", "clock_ghz: 2.2"));
  Write(Derived, "base: ./rewritten-base.yml\nname: derived-of-rewritten\n");
  MachineLoadResult D = loadMachineModel(Derived);
  ASSERT_TRUE(D.ok()) << (D.Diags.empty() ? "" : D.Diags[0].str());
  EXPECT_DOUBLE_EQ(D.Model->ClockGHz, 2.2);
  Write(Base, edited("clock_ghz: 2.7", "clock_ghz: 2.4"));
  MachineLoadResult E = loadMachineModel(Derived);
  ASSERT_TRUE(E.ok());
  EXPECT_DOUBLE_EQ(E.Model->ClockGHz, 2.4);
}

/// A directory of machine files that PERFMODEL_MACHINE_PATH names while it
/// lives (the library's own are then not found).
class MachineDir {
public:
  explicit MachineDir(const std::string &Name) : Dir(::testing::TempDir() + "/" + Name) {
    EXPECT_FALSE(llvm::sys::fs::create_directories(Dir));
    if (const char *Old = std::getenv("PERFMODEL_MACHINE_PATH"))
      Saved = Old;
    setenv("PERFMODEL_MACHINE_PATH", Dir.c_str(), 1);
  }
  ~MachineDir() {
    if (Saved)
      setenv("PERFMODEL_MACHINE_PATH", Saved->c_str(), 1);
    else
      unsetenv("PERFMODEL_MACHINE_PATH");
  }
  /// Writes TEXT as file NAME; its path.
  std::string write(const std::string &Name, const std::string &Text) const {
    std::ofstream Out(Dir + "/" + Name);
    Out << Text;
    return Dir + "/" + Name;
  }

private:
  std::string Dir;
  std::optional<std::string> Saved;
};

TEST(Machine, AnAliasIsReadFromTheAliasesEntryInEachForm) {
  // resolveMachine reads a file's `aliases:` entry alone before loading it:
  // a block sequence, a flow sequence over two lines, and a name that only a
  // comment mentions (not an alias).
  MachineDir D("aliases");
  const std::string Flow = "aliases: [hsw, haswell, haswell-ep, e5-2680v3]";
  std::string Comment =
      D.write("a-comment.yml", "# not qwerty9, not qwerty8\n" + edited(Flow, "aliases: [hswa]"));
  std::string Block = D.write("b-block.yml", edited(Flow, "aliases:\n  - hswb\n  - qwerty9\n"));
  std::string FlowFile = D.write("c-flow.yml", edited(Flow, "aliases: [hswc,\n  qwerty9, qwerty8]"));
  EXPECT_EQ(resolveMachine("qwerty9"), Block);
  EXPECT_EQ(resolveMachine("qwerty8"), FlowFile);
  EXPECT_EQ(resolveMachine("hswa"), Comment);
  EXPECT_EQ(resolveMachine("not"), "");
}

TEST(Machine, TheHostsModelIsFoundFromTheCpuidEntryInEachForm) {
  // machineForHost reads a file's `cpuid:` entry alone and loads only the
  // files it may match: a block map, a flow map over two lines, one whose
  // models list another CPU, and a file whose entry is not valid alone but
  // is in the whole (an anchor): loaded to decide, as before.
  MachineDir D("cpuids");
  const std::string Flow = "cpuid: {vendor: GenuineIntel, family: 6, models: [0x3f]}";
  std::string Other = D.write(
      "a-other.yml", edited(Flow, "cpuid: {vendor: GenuineIntel, family: 6, models: [0x8f]}"));
  std::string Block = D.write("b-block.yml", edited(Flow, "cpuid:\n  vendor: AuthenticAMD\n"
                                                          "  family: 25\n  models:\n    - 0x61\n"));
  std::string FlowFile = D.write(
      "c-flow.yml", edited(Flow, "cpuid: {vendor: AuthenticAMD, family: 26,\n  models: [0x44]}"));
  std::string Anchored = edited(Flow, "cpuid: {vendor: *v, family: 24, models: [0x1]}");
  Anchored.replace(Anchored.find("name: "), 6, "name: &v ");
  std::string Anchor = D.write("d-anchor.yml", Anchored);
  EXPECT_EQ(machineForHost({"AuthenticAMD", 0x19, 0x61, "t"}), Block);
  EXPECT_EQ(machineForHost({"AuthenticAMD", 0x1a, 0x44, "t"}), FlowFile);
  EXPECT_EQ(machineForHost({"GenuineIntel", 6, 0x8f, "t"}), Other);
  EXPECT_EQ(machineForHost({"Intel Xeon E5-2680 v3 (Haswell-EP)", 0x18, 0x1, "t"}), Anchor);
  EXPECT_EQ(machineForHost({"AuthenticAMD", 0x19, 0x62, "t"}), "");
}

TEST(Machine, AGuestReportingAnotherCoresModelIsTellingByItsFeatures) {
  // A Granite Rapids VM reports Rocket Lake's model 0xa7: the file for the
  // guest lists features a Rocket Lake lacks, and a Rocket Lake host (no
  // AMX, no AVX10) goes past it to the desktop part's file.
  MachineDir D("features");
  const std::string Flow = "cpuid: {vendor: GenuineIntel, family: 6, models: [0x3f]}";
  std::string Guest = D.write("a-guest.yml",
                              edited(Flow, "cpuid: {vendor: GenuineIntel, family: 6, models: "
                                           "[0xa7], features: [amx-tile, avx10.1-256]}"));
  std::string Desktop = D.write(
      "b-desktop.yml", edited(Flow, "cpuid: {vendor: GenuineIntel, family: 6, models: [0xa7]}"));
  HostCpu Gnr{"GenuineIntel", 6, 0xa7, "Intel(R) Xeon(R) Processor",
              {"amx-tile", "avx10.1-256", "avx512f"}};
  HostCpu Rkl{"GenuineIntel", 6, 0xa7, "11th Gen Intel(R) Core(TM) i9-11900K", {"avx512f"}};
  HostCpu OnlyAmx = Rkl;
  OnlyAmx.Features.push_back("amx-tile");
  EXPECT_EQ(machineForHost(Gnr), Guest);
  EXPECT_EQ(machineForHost(Rkl), Desktop);
  EXPECT_EQ(machineForHost(OnlyAmx), Desktop); // every listed feature, not one
  MachineLoadResult L = loadMachineModel(Guest);
  ASSERT_TRUE(L.ok());
  EXPECT_EQ(L.Model->Cpuid->Features, (std::vector<std::string>{"amx-tile", "avx10.1-256"}));
}

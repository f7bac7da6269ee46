// Invariants every shipped machine model must satisfy (issue 9), checked on
// every file in machine-models/, and the generated table of
// docs/machine-models.md kept in step with the files.
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/Report.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace perfmodel;

namespace {

const std::string Dir = std::string(PERFMODEL_SOURCE_DIR) + "/machine-models";

std::vector<std::string> modelFiles() {
  std::vector<std::string> Out;
  for (const auto &E : std::filesystem::directory_iterator(Dir))
    if (E.path().extension() == ".yml" || E.path().extension() == ".yaml")
      Out.push_back(E.path().string());
  std::sort(Out.begin(), Out.end());
  return Out;
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryModel, LoadsAndKeepsItsInvariants) {
  MachineLoadResult R = loadMachineModel(GetParam());
  for (const MachineDiag &D : R.Diags) {
    // Unknown link bandwidths are allowed (reported as such); unsourced
    // numbers and errors are not.
    EXPECT_EQ(D.Message.find("no entry in 'sources'"), std::string::npos) << D.str();
    EXPECT_NE(D.Severity, MachineDiag::Kind::Error) << D.str();
  }
  ASSERT_TRUE(R.ok());
  const MachineModel &M = *R.Model;
  SCOPED_TRACE(M.Name);
  EXPECT_FALSE(M.Aliases.empty()) << "a short name for -m";
  EXPECT_FALSE(M.Sources.empty());

  // Caches: size = ways x sets x line, whole sets; an inclusive level holds
  // at least the inner caches of the cores sharing it (a victim L3 may be
  // smaller per core than the L2, as on Sapphire Rapids).
  ASSERT_FALSE(M.Caches.empty());
  const CacheLevel *Inner = nullptr;
  for (const CacheLevel &L : M.Caches) {
    SCOPED_TRACE(L.Name);
    ASSERT_GT(L.Ways, 0u);
    ASSERT_GT(L.LineBytes, 0u);
    EXPECT_EQ(L.SizeBytes % (uint64_t(L.Ways) * L.LineBytes), 0u);
    EXPECT_EQ(uint64_t(L.Ways) * L.sets() * L.LineBytes, L.SizeBytes);
    EXPECT_EQ(L.LineBytes & (L.LineBytes - 1), 0u) << "line is a power of two";
    if (Inner && L.Policy == CachePolicy::Inclusive)
      EXPECT_GE(double(L.SizeBytes),
                double(Inner->SizeBytes) * L.SharedBy / Inner->SharedBy)
          << "an inclusive level smaller than the caches it includes";
    Inner = &L;
    EXPECT_LE(L.SharedBy, M.CoresPerSocket);
  }

  // Peak flop/cycle = FMA units x lanes per pipe x 2 (double and single),
  // or one operation per add/mul pipe per lane on cores without FMA.
  const CoreModel &C = M.Core;
  for (unsigned Bytes : {8u, 4u}) {
    double Lanes = C.pipeBits() / (8.0 * Bytes);
    double Expect = C.FmaUnits ? C.FmaUnits * Lanes * 2 : C.FpUnits.size() * Lanes;
    if (!C.FmaUnits && C.FpUnits.empty())
      continue; // not stated
    EXPECT_DOUBLE_EQ(M.peakFlopsPerCycle(Bytes), Expect) << Bytes << "-byte elements";
  }
  EXPECT_LE(C.pipeBits(), C.SimdBits);
  EXPECT_GE(C.LoadBytesPerCycle, C.SimdBits / 8.0 * 1) << "at least one full vector load";

  // Memory: sustained never above theoretical.
  EXPECT_GT(M.Memory.BandwidthGBs, 0);
  if (M.Memory.SustainedGBs)
    EXPECT_LE(*M.Memory.SustainedGBs, M.Memory.BandwidthGBs);

  // The LLVM CPU exists for the triple in LLVM 19's target registry.
  std::string Err;
  EXPECT_TRUE(checkLLVMCpu(M.Triple, M.Cpu, Err)) << Err;
}

INSTANTIATE_TEST_SUITE_P(Library, EveryModel, ::testing::ValuesIn(modelFiles()),
                         [](const ::testing::TestParamInfo<std::string> &I) {
                           std::string S = std::filesystem::path(I.param).stem().string();
                           for (char &C : S)
                             if (!isalnum(static_cast<unsigned char>(C)))
                               C = '_';
                           return S;
                         });

TEST(MachineLibrary, FrontEndTableIsSourcedAndNamesLlvmCpus) {
  // Every number of the Intel front-end table has a source and every LLVM
  // CPU it names exists in LLVM 19 (a misspelt name would silently leave a
  // core without its front end).
  std::string File = Dir + "/cores/intel-front-ends.yml";
  for (const MachineDiag &D : checkFrontEndTable(File))
    ADD_FAILURE() << D.str();
  for (const char *Cpu : {"sandybridge", "ivybridge", "haswell", "broadwell", "skylake", "cooperlake",
                          "skylake-avx512", "cascadelake", "icelake-server", "tigerlake"})
    EXPECT_TRUE(libraryFrontEnd(Cpu)) << Cpu;
  EXPECT_FALSE(libraryFrontEnd("znver4"));
  EXPECT_FALSE(libraryFrontEnd("sapphirerapids"));
  std::ifstream In(File);
  std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  for (size_t At = Text.find("llvm_cpus: ["); At != std::string::npos;
       At = Text.find("llvm_cpus: [", At + 1)) {
    size_t Open = At + 12, Close = Text.find(']', Open);
    std::stringstream Names(Text.substr(Open, Close - Open));
    for (std::string Cpu; std::getline(Names, Cpu, ',');) {
      Cpu.erase(0, Cpu.find_first_not_of(' '));
      std::string Err;
      EXPECT_TRUE(checkLLVMCpu("x86_64-unknown-linux-gnu", Cpu, Err)) << Err;
    }
  }
}

TEST(MachineLibrary, CoversTheIssuesMachines) {
  // Issue 9's list: each by a short name.
  for (const char *Name : {"hsw", "skx", "icx", "spr", "zen3", "zen4", "zen5", "graviton3",
                           "grace", "barcelona"})
    EXPECT_FALSE(resolveMachine(Name).empty()) << Name;
}

TEST(MachineLibrary, ShortNamesAreUnambiguous) {
  std::map<std::string, std::string> Owner;
  for (const std::string &F : modelFiles()) {
    MachineLoadResult R = loadMachineModel(F);
    ASSERT_TRUE(R.ok()) << F;
    std::set<std::string> Names(R.Model->Aliases.begin(), R.Model->Aliases.end());
    Names.insert(std::filesystem::path(F).stem().string());
    for (const std::string &N : Names) {
      auto [It, New] = Owner.emplace(N, F);
      EXPECT_TRUE(New) << N << " names both " << It->second << " and " << F;
      EXPECT_EQ(resolveMachine(N), F) << N;
    }
  }
}

TEST(MachineLibrary, DocsTableIsGeneratedFromTheFiles) {
  std::vector<MachineModel> Ms;
  for (const std::string &F : modelFiles()) {
    MachineLoadResult R = loadMachineModel(F);
    ASSERT_TRUE(R.ok()) << F;
    Ms.push_back(*R.Model);
  }
  std::string Table;
  llvm::raw_string_ostream OS(Table);
  printMachineList(OS, Ms, /*Markdown=*/true);
  OS.flush();
  std::ifstream In(std::string(PERFMODEL_SOURCE_DIR) + "/docs/machine-models.md");
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Doc = SS.str();
  const std::string Begin = "<!-- machine-list:begin -->\n", End = "<!-- machine-list:end -->";
  size_t B = Doc.find(Begin), E = Doc.find(End);
  ASSERT_NE(B, std::string::npos);
  ASSERT_NE(E, std::string::npos);
  EXPECT_EQ(Doc.substr(B + Begin.size(), E - B - Begin.size()), Table)
      << "regenerate with scripts/update-machine-docs.sh";
}

} // namespace

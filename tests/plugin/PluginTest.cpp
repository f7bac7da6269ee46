// The Clang plugin in real compilations: remarks at the loops with the same
// numbers as `perfmodel analyze`, identical objects, never a failed build.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace {

const std::string Src = PERFMODEL_SOURCE_DIR;
const std::string Plugin = PERFMODEL_PLUGIN;

struct CmdResult {
  int Code = -1;
  std::string Out; ///< stdout and stderr together
};

CmdResult sh(const std::string &Cmd) {
  CmdResult R;
  std::string Full = "cd '" + Src + "' && PERFMODEL_MACHINE_PATH='" + Src +
                     "/machine-models' " + Cmd + " 2>&1";
  FILE *P = popen(Full.c_str(), "r");
  std::array<char, 4096> Buf;
  size_t N;
  while ((N = fread(Buf.data(), 1, Buf.size(), P)) > 0)
    R.Out.append(Buf.data(), N);
  int S = pclose(P);
  R.Code = WIFEXITED(S) ? WEXITSTATUS(S) : -1;
  return R;
}

std::string clang(const std::string &Args) {
  return "clang-19 -fplugin='" + Plugin + "' " + Args;
}

std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

} // namespace

TEST(Plugin, RemarksMatchAnalyze) {
  CmdResult R = sh(clang("-fplugin-arg-perfmodel-machine=hsw -Rpass-analysis=perfmodel "
                         "-fplugin-arg-perfmodel-D=n=10000000 "
                         "-O2 -c examples/triad.c -o /tmp/perfmodel-plugin-t.o"));
  ASSERT_EQ(R.Code, 0) << R.Out;
  EXPECT_NE(R.Out.find("examples/triad.c:6:3: remark: perfmodel: 2 flop/it, 24 B/it at L1"),
            std::string::npos)
      << R.Out;
  // The same memory bound as the command line tool prints.
  CmdResult A = sh(std::string(PERFMODEL_BINARY) +
                   " analyze examples/triad.c -m hsw --no-incore -D n=10000000");
  ASSERT_EQ(A.Code, 0);
  size_t P = A.Out.find("data in memory -> ");
  ASSERT_NE(P, std::string::npos);
  std::string Bound = A.Out.substr(P + 18, A.Out.find(" GFLOP/s", P) - P - 18);
  EXPECT_NE(R.Out.find("memory-bound (data in MEM): " + Bound + " GFLOP/s at 34.6 GB/s"),
            std::string::npos)
      << Bound << "\n" << R.Out;
  // and the ECM contributions of the command line's report.
  size_t E = A.Out.find("ECM (overlap none, 8 it/CL): ");
  ASSERT_NE(E, std::string::npos);
  std::string Ecm = A.Out.substr(E + 29, A.Out.find(" cy/CL", E) - E - 29);
  EXPECT_NE(R.Out.find("ECM " + Ecm + " cy/CL"), std::string::npos) << Ecm << "\n" << R.Out;
}

TEST(Plugin, ObjectsAreIdenticalWithAndWithoutIt) {
  // Same flags but -fplugin. (-Rpass-analysis by itself changes the source
  // location strings clang embeds for OpenMP regions, plugin or not, so both
  // builds carry it.)
  for (const char *F : {"triad.c", "williams-fig9.2.c", "matmul.c", "spmv-csr.c",
                        "unsupported.c", "omp.c"}) {
    std::string Base = "/tmp/perfmodel-plugin-" + std::string(F);
    CmdResult Without = sh("clang-19 -Rpass-analysis=perfmodel -O2 -fopenmp -c examples/" +
                           std::string(F) + " -o " + Base + ".0.o");
    CmdResult With = sh(clang("-fplugin-arg-perfmodel-machine=hsw -Rpass-analysis=perfmodel "
                              "-O2 -fopenmp -c examples/" +
                              std::string(F) + " -o " + Base + ".1.o"));
    ASSERT_EQ(Without.Code, 0) << Without.Out;
    ASSERT_EQ(With.Code, 0) << With.Out;
    EXPECT_EQ(slurp(Base + ".0.o"), slurp(Base + ".1.o")) << F;
    std::remove((Base + ".0.o").c_str());
    std::remove((Base + ".1.o").c_str());
  }
}

TEST(Plugin, WerrorBuildsStillPassAndRemarksNeedTheirFlag) {
  CmdResult R = sh(clang("-fplugin-arg-perfmodel-machine=hsw -Rpass-analysis=perfmodel "
                         "-Wall -Wextra -Werror -c examples/unsupported.c -o /dev/null"));
  EXPECT_EQ(R.Code, 0) << R.Out;
  EXPECT_NE(R.Out.find("unsupported.c:12:3: remark: perfmodel: not modelled: call to "
                       "'printf' with unknown side effects"),
            std::string::npos)
      << R.Out;
  EXPECT_EQ(R.Out.find("error"), std::string::npos) << R.Out;
  CmdResult Quiet = sh(clang("-fplugin-arg-perfmodel-machine=hsw -c examples/triad.c -o /dev/null"));
  EXPECT_EQ(Quiet.Code, 0);
  EXPECT_EQ(Quiet.Out, "");
}

TEST(Plugin, FaultsBecomeOneRemarkAndTheBuildSucceeds) {
  struct {
    const char *Args, *Says;
  } Cases[] = {
      {"-fplugin-arg-perfmodel-machine=/nonexistent.yml",
       "machine model '/nonexistent.yml' not found; no analysis (the build is unaffected)"},
      {"-fplugin-arg-perfmodel-machine=tests/bad-inputs/malformed.yml",
       "malformed.yml is not valid"},
      {"-fplugin-arg-perfmodel-fault=internal",
       "internal error: fault injected by fault=internal (the build is unaffected)"},
      {"-fplugin-arg-perfmodel-bogus=1", "ignoring unknown option"},
      {"-fplugin-arg-perfmodel-D=n", "expected D=NAME=INTEGER"},
  };
  for (const auto &C : Cases) {
    CmdResult R = sh(clang(std::string(C.Args) +
                           " -Rpass-analysis=perfmodel -Werror -c examples/triad.c -o /dev/null"));
    EXPECT_EQ(R.Code, 0) << C.Args << "\n" << R.Out;
    EXPECT_NE(R.Out.find(C.Says), std::string::npos) << C.Args << "\n" << R.Out;
  }
  // A file that does not compile fails as it would without the plugin.
  CmdResult Bad = sh(clang("-Rpass-analysis=perfmodel -c tests/bad-inputs/syntax-error.c "
                           "-o /dev/null"));
  EXPECT_NE(Bad.Code, 0);
  EXPECT_EQ(Bad.Out.find("perfmodel"), std::string::npos) << Bad.Out;
}

TEST(Plugin, OptimizationRecordsLoadInOptViewer) {
  std::string Yaml = "/tmp/perfmodel-plugin-test.opt.yaml";
  std::remove(Yaml.c_str());
  CmdResult R = sh(clang("-fplugin-arg-perfmodel-machine=hsw -fplugin-arg-perfmodel-yaml=" +
                         Yaml + " -c examples/williams-fig9.2.c -o /dev/null"));
  ASSERT_EQ(R.Code, 0) << R.Out;
  EXPECT_EQ(R.Out, ""); // records only, no remarks asked for
  std::string Text = slurp(Yaml);
  EXPECT_NE(Text.find("--- !Analysis\nPass:            perfmodel\nName:            LoopModel"),
            std::string::npos);
  EXPECT_NE(Text.find("Line: 28, Column: 5"), std::string::npos); // the stencil
  CmdResult V = sh("rm -rf /tmp/perfmodel-ov && python3 "
                   "/usr/lib/llvm-19/share/opt-viewer/opt-viewer.py " +
                   Yaml + " -o /tmp/perfmodel-ov --source-dir / && ls /tmp/perfmodel-ov");
  EXPECT_EQ(V.Code, 0) << V.Out;
  EXPECT_NE(V.Out.find("index.html"), std::string::npos) << V.Out;
}

TEST(Plugin, WrapperWorksAsCC) {
  CmdResult R = sh(std::string(PERFMODEL_CC) +
                   " -fplugin-arg-perfmodel-machine=hsw -O2 -c examples/matmul.c -o /dev/null");
  EXPECT_EQ(R.Code, 0) << R.Out;
  EXPECT_NE(R.Out.find("matmul.c:5:7: remark: perfmodel:"), std::string::npos) << R.Out;
}

// Without machine=, the remark's machine is the library model of the CPU the
// build targets, and the remark says where it came from.
TEST(Plugin, MachineFollowsTheTargetCpu) {
  struct Case {
    std::string Flags, Says;
  };
  for (const Case &C : {
           Case{"-march=haswell", "(Roofline on hsw, haswell, from -march/-mcpu haswell)"},
           Case{"-march=skylake-avx512",
                "(Roofline on skx, skylake-avx512, from -march/-mcpu skylake-avx512)"},
           // On a Zen 3 host the remark adds "(this host, model matched by CPUID)".
           Case{"-mtune=znver3", "(Roofline on zen3, znver3, from -mtune znver3"},
           Case{"-march=haswell -fplugin-arg-perfmodel-machine=zen4",
                "(Roofline on zen4, znver4, from machine=zen4)"},
           Case{"-march=btver2", "from no library model for -march/-mcpu btver2; machine: "},
       }) {
    CmdResult R = sh(clang("-Rpass-analysis=perfmodel -O2 " + C.Flags +
                           " -c examples/triad.c -o /tmp/perfmodel-plugin-march.o"));
    EXPECT_EQ(R.Code, 0) << C.Flags << "\n" << R.Out;
    EXPECT_NE(R.Out.find(C.Says), std::string::npos) << C.Flags << "\n" << R.Out;
  }
  // The figures are that model's: Haswell-EP's one-core memory bandwidth.
  CmdResult R = sh(clang("-Rpass-analysis=perfmodel -O2 -march=haswell "
                         "-fplugin-arg-perfmodel-D=n=10000000 -c examples/triad.c "
                         "-o /tmp/perfmodel-plugin-march.o"));
  EXPECT_NE(R.Out.find("GFLOP/s at 34.6 GB/s"), std::string::npos) << R.Out;
}

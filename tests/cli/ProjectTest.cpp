// Project mode (-p BUILD_DIR), SARIF, standard input and the Compiler
// Explorer invocations of the perfmodel command line.
#include "Run.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <vector>

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string tempDir() {
  char Dir[] = "/tmp/perfmodel-project-XXXXXX";
  return mkdtemp(Dir) ? std::string(Dir) : std::string();
}

void writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream(Path) << Text;
}

/// A compilation database listing FILES (paths under the source tree).
std::string makeDatabase(const std::vector<std::string> &Files) {
  std::string Dir = tempDir();
  std::string J = "[\n";
  for (size_t I = 0; I < Files.size(); ++I)
    J += std::string(I ? ",\n" : "") + "{\"directory\": \"" + Src + "\", \"file\": \"" + Src +
         "/" + Files[I] + "\", \"arguments\": [\"clang-19\", \"-O2\", \"-c\", \"" + Files[I] +
         "\", \"-o\", \"/dev/null\"]}";
  writeFile(Dir + "/compile_commands.json", J + "\n]\n");
  return Dir;
}

Value parse(const std::string &Text) {
  auto V = llvm::json::parse(Text);
  if (!V) {
    ADD_FAILURE() << llvm::toString(V.takeError()) << "\n" << Text.substr(0, 400);
    return nullptr;
  }
  return std::move(*V);
}

CmdResult validateSarif(const std::string &Path) {
  return shell("/usr/bin/python3 '" + Src + "/tests/sarif/validate.py' '" + Src +
               "/tests/sarif/sarif-2.1.0-subset.schema.json' '" + Path + "'");
}

const std::vector<std::string> ProjectFiles = {"examples/williams-fig9.2.c", "examples/triad.c",
                                               "examples/matmul.c", "examples/unsupported.c"};

} // namespace

// The project run gives each file the report a run on that file alone gives,
// in path order, and nothing depends on how many files run at once.
TEST(Project, SameLoopsAsPerFileRunsForAnyJobs) {
  std::string Db = makeDatabase(ProjectFiles);
  std::string Common = "-p " + Db + " -m hsw -D n=4096 --format json";
  CmdResult J1 = perfmodel("analyze -j 1 " + Common);
  CmdResult J2 = perfmodel("analyze -j 2 " + Common);
  ASSERT_EQ(J1.Code, 0) << J1.Err;
  ASSERT_EQ(J2.Code, 0) << J2.Err;
  EXPECT_EQ(J1.Out, J2.Out);
  CmdResult T1 = perfmodel("analyze -j 1 -p " + Db + " -m hsw -D n=4096");
  CmdResult T2 = perfmodel("analyze -j 2 -p " + Db + " -m hsw -D n=4096");
  EXPECT_EQ(T1.Out, T2.Out);
  EXPECT_NE(T1.Out.find("project summary: 4 file(s), 4 analysed"), std::string::npos) << T1.Out;

  Value Root = parse(J1.Out);
  const Object *R = Root.getAsObject();
  ASSERT_TRUE(R);
  EXPECT_EQ(R->getString("schema").value_or(""), "perfmodel-project");
  const Array *Files = R->getArray("files");
  ASSERT_TRUE(Files);
  ASSERT_EQ(Files->size(), ProjectFiles.size());
  std::vector<std::string> Sorted;
  for (const std::string &F : ProjectFiles)
    Sorted.push_back(Src + "/" + F);
  std::sort(Sorted.begin(), Sorted.end());
  size_t Loops = 0;
  for (size_t I = 0; I < Files->size(); ++I) {
    const Object *F = (*Files)[I].getAsObject();
    ASSERT_TRUE(F);
    EXPECT_EQ(F->getString("file").value_or(""), Sorted[I]);
    EXPECT_EQ(F->getString("status").value_or(""), "ok");
    CmdResult One = perfmodel("analyze " + Sorted[I] + " -p " + Db + " -m hsw -D n=4096 "
                              "--format json");
    ASSERT_EQ(One.Code, 0) << One.Err;
    Value Alone = parse(One.Out);
    ASSERT_TRUE(F->get("report"));
    EXPECT_EQ(*F->get("report"), Alone) << Sorted[I];
    if (const Array *L = F->getObject("report")->getArray("loops"))
      Loops += L->size();
  }
  EXPECT_GE(Loops, 7u);

  // The ranking: descending predicted time, shares adding up to one, and
  // the triad by hand. n = 4096: 3 x 4096 x 8 B = 96 KiB lives in L2 (32 KiB
  // L1, 256 KiB L2); ECM with overlap none: T_nOL + T_L1L2 = 2 + 4 = 6 cy/CL,
  // 8 iterations per line: 0.75 cy/it; 4096 iterations at 2.7 GHz: 1.1378 us.
  const Object *Sum = R->getObject("summary");
  ASSERT_TRUE(Sum);
  const Array *ByTime = Sum->getArray("by_time");
  ASSERT_TRUE(ByTime);
  double Prev = INFINITY, Shares = 0;
  bool SawTriad = false;
  for (const Value &V : *ByTime) {
    const Object *L = V.getAsObject();
    double S = L->getNumber("seconds").value_or(-1);
    EXPECT_LE(S, Prev);
    Prev = S;
    Shares += L->getNumber("share").value_or(0);
    if (L->getString("function").value_or("") == "triad") {
      SawTriad = true;
      EXPECT_EQ(L->getString("data_level").value_or(""), "L2");
      // The call's own code (once per 4096 iterations) adds well under 0.1 %.
      EXPECT_NEAR(L->getNumber("cy_per_it").value_or(0), 0.75, 0.75e-3);
      EXPECT_NEAR(L->getNumber("seconds").value_or(0), 0.75 * 4096 / 2.7e9,
                  0.75e-3 * 4096 / 2.7e9);
    }
  }
  EXPECT_TRUE(SawTriad);
  EXPECT_NEAR(Shares, 1.0, 1e-3);
  shell("rm -rf '" + Db + "'");
}

TEST(Project, FailedFilesAreReportedAndTheRunFails) {
  std::string Db = makeDatabase({"examples/triad.c", "tests/bad-inputs/syntax-error.c"});
  CmdResult T = perfmodel("analyze -p " + Db + " -m hsw --no-incore");
  EXPECT_EQ(T.Code, 1);
  EXPECT_NE(T.Out.find("2 file(s), 1 analysed, 1 failed"), std::string::npos) << T.Out;
  EXPECT_NE(T.Out.find("syntax-error.c:3:18: error: expected expression"), std::string::npos)
      << T.Out;
  EXPECT_NE(T.Out.find("[1] examples/triad.c:6:3  in triad"), std::string::npos) << T.Out;
  std::string Sarif = Db + "/out.sarif";
  CmdResult S = perfmodel("analyze -p " + Db + " -m hsw --no-incore --format sarif -o " + Sarif);
  EXPECT_EQ(S.Code, 1);
  CmdResult V = validateSarif(Sarif);
  EXPECT_EQ(V.Code, 0) << V.Out << V.Err;
  EXPECT_NE(slurp(Sarif).find("\"executionSuccessful\": false"), std::string::npos);
  CmdResult Usage = perfmodel("analyze -p " + Db + " -m hsw --format svg");
  EXPECT_EQ(Usage.Code, 2);
  EXPECT_NE(Usage.Err.find("project mode writes text"), std::string::npos) << Usage.Err;
  // A file past its time bound is reported as timed out; the others stand.
  // Not a timing: dgemm at N = 8192 with a replay budget of 1e11 accesses
  // (5.5e11 in the nest) cannot finish in 4 s on any machine (it would take
  // minutes at a billion accesses a second), while the triad at n = 1000
  // (3000 accesses, no compile with --no-incore) takes milliseconds even
  // under a sanitizer beside ctest -j2. A --time-limit of 1 s must not stop
  // the run.
  std::string Slow = makeDatabase({"examples/triad.c", "examples/williams-fig9.2.c"});
  CmdResult TO = perfmodel("--time-limit 1 analyze -p " + Slow + " -m hsw --no-incore --cache sim "
                           "-D N=8192 -D n=1000 --sim-accesses 100000000000 "
                           "--file-time-limit 4 --format json");
  EXPECT_EQ(TO.Code, 1);
  Value TJ = parse(TO.Out);
  const Array *TF = TJ.getAsObject() ? TJ.getAsObject()->getArray("files") : nullptr;
  ASSERT_TRUE(TF && TF->size() == 2) << TO.Out;
  EXPECT_EQ((*TF)[0].getAsObject()->getString("status").value_or(""), "ok");
  EXPECT_EQ((*TF)[1].getAsObject()->getString("status").value_or(""), "timed out");
  EXPECT_NE((*TF)[1].getAsObject()->getString("error").value_or("").find("time limit of 4 s"),
            llvm::StringRef::npos);
  shell("rm -rf '" + Slow + "'");
  CmdResult None = perfmodel("analyze -p " + Db + " -m hsw --files '*/nothing*'");
  EXPECT_EQ(None.Code, 1);
  EXPECT_NE(None.Err.find("matches --files"), std::string::npos) << None.Err;
  shell("rm -rf '" + Db + "'");
}

// The SARIF log of one file passes the schema check, carries one result per
// loop with the headline of the JSON report, and the check is not vacuous.
TEST(Sarif, ValidatesAgainstTheSchemaAndCarriesTheHeadline) {
  std::string Dir = tempDir();
  for (const char *File : {"examples/williams-fig9.2.c", "examples/unsupported.c"}) {
    std::string Out = Dir + "/log.sarif";
    CmdResult S = perfmodel(std::string("analyze ") + File + " -m hsw -D n=1000000 --format "
                                                             "sarif -o " + Out);
    ASSERT_EQ(S.Code, 0) << S.Err;
    CmdResult V = validateSarif(Out);
    EXPECT_EQ(V.Code, 0) << File << "\n" << V.Out << V.Err;
    CmdResult J = perfmodel(std::string("analyze ") + File + " -m hsw -D n=1000000 --format json");
    Value Log = parse(slurp(Out)), Report = parse(J.Out);
    const Array *Results =
        (*Log.getAsObject()->getArray("runs"))[0].getAsObject()->getArray("results");
    const Array *Loops = Report.getAsObject()->getArray("loops");
    ASSERT_TRUE(Results && Loops);
    ASSERT_EQ(Results->size(), Loops->size()) << File;
    for (size_t I = 0; I < Loops->size(); ++I) {
      const Object *L = (*Loops)[I].getAsObject(), *Res = (*Results)[I].getAsObject();
      std::string Text = Res->getObject("message")->getString("text").value_or("").str();
      const Object *Loc = L->getObject("location");
      const Object *Region = (*Res->getArray("locations"))[0]
                                 .getAsObject()
                                 ->getObject("physicalLocation")
                                 ->getObject("region");
      EXPECT_EQ(Region->getInteger("startLine"), Loc->getInteger("line"));
      if (const Object *P = L->getObject("prediction")) {
        EXPECT_EQ(Res->getString("ruleId").value_or(""), "perfmodel.prediction");
        EXPECT_NE(Text.find(P->getString("bottleneck").value_or("?").str()), std::string::npos)
            << Text;
        EXPECT_NE(Text.find(P->getString("model").value_or("?").str() + " "), std::string::npos);
      } else {
        EXPECT_EQ(Res->getString("ruleId").value_or(""), "perfmodel.not-modelled");
        EXPECT_NE(Text.find(L->getString("reason").value_or("?").str()), std::string::npos);
      }
    }
  }
  // A log that breaks the standard fails: an unknown level, a URI with a space.
  std::string Good = slurp(Dir + "/log.sarif");
  std::string Bad = Good;
  Bad.replace(Bad.find("\"level\": \"note\""), 15, "\"level\": \"info\"");
  writeFile(Dir + "/bad.sarif", Bad);
  EXPECT_EQ(validateSarif(Dir + "/bad.sarif").Code, 1);
  Bad = Good;
  Bad.replace(Bad.find("examples/unsupported.c"), 8, "exa mple");
  writeFile(Dir + "/bad.sarif", Bad);
  EXPECT_EQ(validateSarif(Dir + "/bad.sarif").Code, 1);
  shell("rm -rf '" + Dir + "'");
}

// As llvm-mca: incore without a file reads standard input; analyze - too.
TEST(Stdin, SameResultsAsTheFile) {
  CmdResult File = perfmodel("incore tests/incore/fma-4acc.s -m hsw");
  CmdResult In = perfmodel("incore -m hsw < tests/incore/fma-4acc.s");
  CmdResult Dash = perfmodel("incore - -m hsw < tests/incore/fma-4acc.s");
  ASSERT_EQ(File.Code, 0) << File.Err;
  EXPECT_EQ(In.Out, File.Out);
  EXPECT_EQ(Dash.Out, File.Out);

  CmdResult A = perfmodel("analyze examples/triad.c -m hsw -D n=100000 -- -O3");
  CmdResult B = perfmodel("analyze - -m hsw -D n=100000 < examples/triad.c -- -O3");
  ASSERT_EQ(A.Code, 0) << A.Err;
  ASSERT_EQ(B.Code, 0) << B.Err;
  std::string Renamed = B.Out;
  for (size_t P; (P = Renamed.find("<stdin>")) != std::string::npos;)
    Renamed.replace(P, 7, "examples/triad.c");
  EXPECT_EQ(Renamed, A.Out);
  EXPECT_NE(B.Out.find("[1] <stdin>:6:3  in triad"), std::string::npos) << B.Out;
}

// The commands Compiler Explorer runs (docs/compiler-explorer.md): a tool is
// run as `exe OPTIONS... USER-ARGS... INPUT` in INPUT's directory; analyze
// gets the source (independent tool), incore the filtered assembly that the
// osaca-tool class writes beside the compiler's output (postcompilation).
TEST(CompilerExplorer, ToolInvocations) {
  std::string Dir = tempDir();
  std::string Source = Dir + "/example.cpp";
  writeFile(Source, "void daxpy(double *y, const double *x, double a, int n) {\n"
                    "  for (int i = 0; i < n; ++i)\n"
                    "    y[i] += a * x[i];\n"
                    "}\n");
  std::string Bin = PERFMODEL_BINARY;
  std::string Env = "PERFMODEL_MACHINE_PATH='" + Src + "/machine-models' ";
  CmdResult A = shell("cd '" + Dir + "' && " + Env + "'" + Bin +
                      "' analyze --format brief -m hsw -D n=2000 '" + Source + "'");
  ASSERT_EQ(A.Code, 0) << A.Err;
  // Compiler Explorer links "<file>:line:col:" at the start of a line.
  EXPECT_EQ(A.Out.rfind(Source + ":2:3: note: perfmodel: daxpy: ECM", 0), 0u) << A.Out;

  // The assembly as Compiler Explorer shows it: directives and comments
  // filtered out, labels kept.
  CmdResult S = shell("clang-19 -O3 -march=haswell -S -o - '" + Source +
                      "' | grep -v -E '^[[:space:]]+[.]|^[[:space:]]*#|^[.]Lfunc_end' > '" +
                      Dir + "/output.s.osaca'");
  ASSERT_EQ(S.Code, 0) << S.Err;
  CmdResult I = shell("cd '" + Dir + "' && " + Env + "'" + Bin + "' incore -m hsw '" + Dir +
                      "/output.s.osaca'");
  EXPECT_EQ(I.Code, 0) << I.Err;
  EXPECT_NE(I.Out.find("in-core (haswell"), std::string::npos) << I.Out;
  EXPECT_NE(I.Out.find("vfmadd"), std::string::npos) << I.Out;
  shell("rm -rf '" + Dir + "'");
}

// On the host's own model the project run measures the clock once and every
// file converts cycles at it (measured per file under the others' load, the
// files would each get a slightly different clock).
TEST(Project, EveryFileRunsAtTheClockTheProjectMeasured) {
  std::string Db = makeDatabase(ProjectFiles);
  CmdResult R = perfmodel("analyze -j 2 -p " + Db + " --no-incore -D n=1000");
  ASSERT_EQ(R.Code, 0) << R.Err;
  std::set<std::string> Machines, Clocks;
  std::istringstream In(R.Out);
  for (std::string Line; std::getline(In, Line);) {
    if (Line.rfind("machine: ", 0) == 0)
      Machines.insert(Line);
    if (Line.rfind("note: clock: ", 0) == 0)
      Clocks.insert(Line);
  }
  EXPECT_EQ(Machines.size(), 1u) << R.Out;
  // The files get -m FILE from the project run; a plain run says whether
  // this host has a model of its own.
  CmdResult One = perfmodel("analyze examples/triad.c --no-incore");
  ASSERT_EQ(One.Code, 0) << One.Err;
  bool HostModel = One.Out.find("(matched by CPUID)") != std::string::npos;
  EXPECT_EQ(Clocks.size(), HostModel ? 1u : 0u) << R.Out;
  shell("rm -rf '" + Db + "'");
}

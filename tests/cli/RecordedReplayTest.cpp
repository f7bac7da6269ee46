// The recorded timings of every host kind the project has met
// (bench/validate/recorded/), predicted again with this build: no
// recording's headline MAPE at any level may rise more than a point above
// the baseline checked in beside them (bench/validate/replay-baseline.json).
// A change that improves a host lowers the baseline in the same commit:
//   perfmodel validate --replay bench/validate/recorded/*.json --format json \
//     -o bench/validate/replay-baseline.json
// One test per recording, so ctest can spread them over the cores (the
// baseline holds each recording's figures on their own).
#include "Run.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

std::vector<std::string> recordings() {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Src + "/bench/validate/recorded", EC), End;
       !EC && It != End; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".json")
      Files.push_back(llvm::sys::path::filename(It->path()).str());
  std::sort(Files.begin(), Files.end());
  return Files;
}

class RecordedReplay : public testing::TestWithParam<std::string> {};

TEST_P(RecordedReplay, NoWorseThanItsBaseline) {
  CmdResult R = perfmodel("validate --replay 'bench/validate/recorded/" + GetParam() +
                          "' --baseline bench/validate/replay-baseline.json --max-rise 1");
  EXPECT_EQ(R.Code, 0) << R.Err << "\n" << R.Out;
  EXPECT_EQ(R.Out.find("not predicted:"), std::string::npos) << R.Out;
}

INSTANTIATE_TEST_SUITE_P(Recordings, RecordedReplay, testing::ValuesIn(recordings()),
                         [](const testing::TestParamInfo<std::string> &I) {
                           std::string N = llvm::sys::path::stem(I.param).str();
                           for (char &C : N)
                             if (!std::isalnum(static_cast<unsigned char>(C)))
                               C = '_';
                           return N;
                         });

// Every recording has baseline figures and every baseline figure a
// recording: a file left out of either would go unchecked.
TEST(RecordedReplayBaseline, NamesEveryRecording) {
  std::vector<std::string> Files = recordings();
  ASSERT_FALSE(Files.empty()) << "no recordings in bench/validate/recorded";
  std::ifstream In(Src + "/bench/validate/replay-baseline.json");
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Baseline = SS.str();
  ASSERT_FALSE(Baseline.empty());
  size_t Named = 0;
  for (size_t P = 0; (P = Baseline.find("\"name\": \"", P)) != std::string::npos; ++Named)
    P += 9;
  EXPECT_EQ(Named, Files.size());
  for (const std::string &F : Files)
    EXPECT_NE(Baseline.find("\"name\": \"" + F + "\""), std::string::npos) << F;
}

} // namespace

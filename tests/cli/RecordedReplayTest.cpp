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
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
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
  auto Buf = llvm::MemoryBuffer::getFile(Src + "/bench/validate/replay-baseline.json");
  ASSERT_TRUE(Buf) << Buf.getError().message();
  llvm::Expected<llvm::json::Value> V = llvm::json::parse((*Buf)->getBuffer());
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  const llvm::json::Object *O = V->getAsObject();
  const llvm::json::Array *Recs = O ? O->getArray("recordings") : nullptr;
  ASSERT_NE(Recs, nullptr);
  std::vector<std::string> Named;
  for (const llvm::json::Value &R : *Recs)
    if (const llvm::json::Object *RO = R.getAsObject())
      Named.push_back(RO->getString("name").value_or("").str());
  std::sort(Named.begin(), Named.end());
  EXPECT_EQ(Named, Files);
}

} // namespace

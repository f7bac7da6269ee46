// The recorded timings of every host kind the project has met
// (bench/validate/recorded/), predicted again with this build: no host's
// headline MAPE at any level may rise more than a point above the baseline
// checked in beside them (bench/validate/replay-baseline.json). A change that
// improves a host lowers the baseline in the same commit:
//   perfmodel validate --replay bench/validate/recorded/*.json --format json \
//     -o bench/validate/replay-baseline.json
#include "Run.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

TEST(RecordedReplay, NoHostWorseThanItsBaseline) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Src + "/bench/validate/recorded", EC), End;
       !EC && It != End; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".json")
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  ASSERT_FALSE(Files.empty()) << "no recordings in bench/validate/recorded";
  std::string Args = "validate --replay";
  for (const std::string &F : Files)
    Args += " '" + F + "'";
  CmdResult R = perfmodel(Args + " --baseline bench/validate/replay-baseline.json --max-rise 1");
  EXPECT_EQ(R.Code, 0) << R.Err << "\n" << R.Out;
  EXPECT_EQ(R.Out.find("not predicted:"), std::string::npos) << R.Out;
}

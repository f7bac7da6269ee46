// libFuzzer: the Matrix Market reader.
#include "perfmodel/Traffic.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::vector<int64_t> RowPtr, Col;
  int64_t Rows = 0, Cols = 0;
  std::string Err;
  (void)perfmodel::parseMatrixMarket(
      llvm::StringRef(reinterpret_cast<const char *>(Data), Size), "fuzz.mtx", RowPtr, Col,
      Rows, Cols, Err);
  return 0;
}

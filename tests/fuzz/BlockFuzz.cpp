// libFuzzer: the in-core model on raw machine code, and the hex reader.
#include "perfmodel/InCore.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 512) // one loop body; keeps each input's time bounded
    return 0;
  std::vector<uint8_t> Bytes(Data, Data + Size);
  perfmodel::InCoreOptions O;
  (void)perfmodel::analyzeBlockBytes(Bytes, O);
  std::string Err;
  (void)perfmodel::parseHex(std::string(Data, Data + Size), Err);
  return 0;
}

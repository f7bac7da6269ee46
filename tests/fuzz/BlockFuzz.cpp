// libFuzzer: the in-core model on raw machine code (as a loop, and unrolled
// with BHive's registers), and the hex reader.
#include "perfmodel/InCore.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 512) // one loop body; keeps each input's time bounded
    return 0;
  std::vector<uint8_t> Bytes(Data, Data + Size);
  perfmodel::InCoreOptions O;
  (void)perfmodel::analyzeBlockBytes(Bytes, O);
  // As BHive's unrolled blocks: the legacy decoders, aliased registers.
  O.Unrolled = O.SameInitialRegisters = true;
  O.Cpu = Size % 2 ? "ivybridge" : "skylake";
  (void)perfmodel::analyzeBlockBytes(Bytes, O);
  std::string Err;
  (void)perfmodel::parseHex(std::string(Data, Data + Size), Err);
  return 0;
}

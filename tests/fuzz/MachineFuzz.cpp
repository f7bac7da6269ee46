// libFuzzer: machine-model YAML, with --set overrides after a "%%SET" line.
#include "perfmodel/MachineModel.h"

#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string In(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::string> Sets;
  size_t Split = In.find("\n%%SET\n");
  if (Split != std::string::npos) {
    std::istringstream Lines(In.substr(Split + 7));
    for (std::string L; std::getline(Lines, L);)
      Sets.push_back(L);
    In.resize(Split);
  }
  perfmodel::MachineLoadResult R = perfmodel::parseMachineModel(In, "fuzz.yml", Sets);
  for (const perfmodel::MachineDiag &D : R.Diags)
    (void)D.str();
  return 0;
}

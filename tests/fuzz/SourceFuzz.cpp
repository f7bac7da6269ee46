// libFuzzer: the front end and the analytic models on mutated C sources.
#include "perfmodel/Frontend.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Roofline.h"
#include "perfmodel/Traffic.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size > 16384)
    return 0;
  static std::string Path = [] {
    llvm::SmallString<128> P;
    llvm::sys::fs::createTemporaryFile("perfmodel-fuzz", "c", P);
    return std::string(P);
  }();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS.write(reinterpret_cast<const char *>(Data), Size);
  }
  static perfmodel::MachineModel M = *perfmodel::loadMachineModel(
      std::string(PERFMODEL_SOURCE_DIR) + "/machine-models/haswell-ep-e5-2680v3.yml").Model;
  perfmodel::FrontendOptions O;
  O.File = Path;
  O.HasCompileArgs = true;
  O.CompileArgs = {"-ferror-limit=1", "-w"};
  O.DefaultSize = 64; // small sizes keep the simulator's replay short
  perfmodel::FrontendResult R = perfmodel::runFrontend(O);
  if (!R.Ok)
    return 0;
  perfmodel::SimOptions S;
  S.MaxAccesses = 20000;
  for (const perfmodel::LoopKernel &K : R.IR.Loops) {
    if (!K.Modelled)
      continue;
    perfmodel::TrafficResult T = perfmodel::layerConditionTraffic(K, R.IR, M);
    (void)perfmodel::roofline(K, M, T.Ok ? &T : nullptr);
    (void)perfmodel::simulateTraffic(K, R.IR, M, S);
  }
  return 0;
}

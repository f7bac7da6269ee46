//===- FrontEnds.cpp - Intel cores' legacy decode pipelines as data ------===//
//
// The front-end parameters of Intel cores (predecoder, decoders, loop stream
// detector, uop cache, x86 rules that differ by core) read from the library's
// table machine-models/cores/intel-front-ends.yml by LLVM CPU name, and a
// machine file's core.front_end merged over its CPU's entry.
//
//===----------------------------------------------------------------------===//
#include "MachineYaml.h"
#include "perfmodel/MachineRegistry.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <mutex>

using namespace perfmodel;

namespace perfmodel::machine_yaml {

namespace {
const std::initializer_list<const char *> FrontEndKeys = {
    "predecode_width", "predecode_block_bytes", "lcp_penalty_cy", "decoders",
    "instruction_queue", "predecode_to_decode_cy", "rename_width",
    "fast_pointer_chase_below", "store_forward_cy", "locked_rmw_cy", "lsd_uops",
    "lsd_unroll", "uop_cache_width", "uop_cache_window_bytes",
    "fusible_in_last_decoder", "unlaminate_all_indexed", "move_elimination"};
} // namespace

void readFrontEnd(Reader &R, const YAML::Node &N, const std::string &P, FrontEndModel &F,
                  const std::string &AllBecause, std::initializer_list<const char *> Extra) {
  std::vector<const char *> Allowed(FrontEndKeys);
  Allowed.insert(Allowed.end(), Extra);
  if (!R.checkMap(N, P, Allowed))
    return;
  if (!AllBecause.empty()) {
    std::string Missing;
    for (const char *Key : FrontEndKeys)
      if (!N[Key].IsDefined())
        Missing += std::string(Missing.empty() ? "" : ", ") + Key;
    if (!Missing.empty())
      R.error(N, P, "every front-end key is needed " + AllBecause + "; missing: " + Missing);
  }
  auto Count = [&](const char *Key, unsigned &Out, Reader::Range Rg = Reader::Positive) {
    if (auto V = R.count(N, Key, P, false, Rg))
      Out = *V;
  };
  auto Num = [&](const char *Key, double &Out) {
    if (auto V = R.num(N, Key, P, false))
      Out = *V;
  };
  auto Bool = [&](const char *Key, bool &Out) {
    if (auto V = R.boolean(N, Key, P))
      Out = *V;
  };
  Count("predecode_width", F.PredecodeWidth);
  Count("predecode_block_bytes", F.PredecodeBlock);
  Count("lcp_penalty_cy", F.LcpPenalty, Reader::NonNegative);
  Count("decoders", F.Decoders);
  Count("instruction_queue", F.IqSize);
  Count("predecode_to_decode_cy", F.PredecodeDecodeDelay, Reader::NonNegative);
  Count("rename_width", F.IssueWidth);
  Count("fast_pointer_chase_below", F.FastChaseBelow, Reader::NonNegative);
  Num("store_forward_cy", F.StoreForward);
  Num("locked_rmw_cy", F.LockedCycles);
  Count("lsd_uops", F.LsdUops, Reader::NonNegative);
  Count("uop_cache_width", F.DsbWidth);
  Count("uop_cache_window_bytes", F.DsbWindowBytes);
  Bool("fusible_in_last_decoder", F.FusibleInLastDecoder);
  Bool("unlaminate_all_indexed", F.UnlaminateAllIndexed);
  Bool("move_elimination", F.MoveElimination);
  // lsd_unroll: the unrolling of a loop of 1, 2, ... uops (1 beyond the list).
  if (YAML::Node U = N["lsd_unroll"]; U.IsDefined() && !U.IsNull()) {
    std::string Path = Reader::join(P, "lsd_unroll");
    if (!U.IsSequence()) {
      R.error(U, Path, "expected a list: the unrolling of a loop of 1, 2, ... uops");
    } else {
      F.LsdUnroll.assign(1, 0);
      for (size_t I = 0; I < U.size(); ++I) {
        // Element I: the unrolling of a loop of I + 1 uops.
        std::string At = Path + "." + std::to_string(I + 1);
        unsigned V = 0;
        if (!U[I].IsScalar() || llvm::StringRef(U[I].Scalar()).getAsInteger(10, V) || V < 1)
          R.error(U[I], At, "expected a whole number >= 1 (times the loop is unrolled)");
        else
          R.NumericPaths.emplace_back(At, U[I]);
        F.LsdUnroll.push_back(std::max(V, 1u));
      }
    }
  }
}

/// Reads a front-end table (TEXT from FILE): `defaults` with every key, and
/// `cores`, one entry per core named by its `llvm_cpus`, over the defaults.
std::map<std::string, FrontEndModel> readFrontEndTable(const std::string &Text,
                                                       const std::string &File,
                                                       std::vector<MachineDiag> &Diags) {
  std::map<std::string, FrontEndModel> Out;
  Reader R(File, Diags);
  YAML::Node Root;
  try {
    Root = YAML::Load(Text);
  } catch (const YAML::Exception &E) {
    Diags.push_back({MachineDiag::Kind::Error, File, unsigned(E.mark.line + 1),
                     unsigned(E.mark.column + 1), "", std::string("not valid YAML: ") + E.msg});
    return Out;
  }
  if (!R.checkMap(Root, "", {"defaults", "cores", "sources"}))
    return Out;
  FrontEndModel Defaults;
  readFrontEnd(R, R.child(Root, "defaults", "", true), "defaults", Defaults,
               "in the defaults", {});
  YAML::Node Cores = R.child(Root, "cores", "", true);
  if (Cores.IsMap()) {
    for (const auto &KV : Cores) {
      std::string P = "cores." + KV.first.Scalar();
      FrontEndModel F = Defaults;
      readFrontEnd(R, KV.second, P, F, "", {"llvm_cpus"});
      YAML::Node Cpus = R.child(KV.second, "llvm_cpus", P, true);
      if (!Cpus.IsSequence() || Cpus.size() == 0) {
        R.error(Cpus, P + ".llvm_cpus", "expected a list of LLVM CPU names");
        continue;
      }
      for (const auto &C : Cpus)
        if (!Out.emplace(C.Scalar(), F).second)
          R.error(C, P + ".llvm_cpus", "'" + C.Scalar() + "' has an entry already");
    }
  } else if (Cores.IsDefined()) {
    R.error(Cores, "cores", "expected a mapping of core names to their front ends");
  }
  std::vector<SourceRef> Sources;
  if (YAML::Node S = R.child(Root, "sources", "", true); S.IsDefined() && !S.IsNull())
    readSources(R, S, Sources);
  for (const auto &[P, Node] : R.NumericPaths) {
    bool Covered = false;
    for (const SourceRef &S : Sources)
      for (const std::string &Pat : S.Covers)
        Covered |= matchesPattern(Pat, P);
    if (!Covered)
      R.warning(Node, P, "no entry in 'sources' covers this number");
  }
  if (R.failed())
    Out.clear();
  return Out;
}

} // namespace perfmodel::machine_yaml

std::string perfmodel::frontEndTableFile() {
  for (const std::string &Dir : machineSearchPath()) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, "cores", "intel-front-ends.yml");
    if (llvm::sys::fs::exists(P))
      return std::string(P);
  }
  return "";
}

std::vector<MachineDiag> perfmodel::checkFrontEndTable(const std::string &File) {
  std::vector<MachineDiag> Diags;
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf) {
    Diags.push_back({MachineDiag::Kind::Error, File, 0, 0, "",
                     "cannot read: " + Buf.getError().message()});
    return Diags;
  }
  machine_yaml::readFrontEndTable((*Buf)->getBuffer().str(), File, Diags);
  return Diags;
}

bool perfmodel::isFrontEndTable(const std::string &File) {
  try {
    YAML::Node Root = YAML::LoadFile(File);
    return Root.IsMap() && Root["defaults"] && Root["cores"];
  } catch (const YAML::Exception &) {
    return false;
  }
}

std::optional<FrontEndModel> perfmodel::libraryFrontEnd(const std::string &LlvmCpu) {
  static std::once_flag Once;
  static std::map<std::string, FrontEndModel> Table;
  std::call_once(Once, [] {
    std::string File = frontEndTableFile();
    if (File.empty())
      return;
    auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
    if (!Buf)
      return;
    std::vector<MachineDiag> Diags;
    Table = machine_yaml::readFrontEndTable((*Buf)->getBuffer().str(), File, Diags);
  });
  auto It = Table.find(LlvmCpu);
  if (It == Table.end())
    return std::nullopt;
  return It->second;
}

//===- MachineLoad.cpp - Load and validate a machine file ----------------===//
//
// A machine file parsed: its `base:` chain merged, --set overrides applied
// to the tree before validation (values they introduce have no line in the
// file, so their messages name the override), then each section read.
//
//===----------------------------------------------------------------------===//
#include "MachineYaml.h"
#include "perfmodel/MachineRegistry.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"
#include <yaml-cpp/yaml.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

using namespace perfmodel;
using namespace perfmodel::machine_yaml;

namespace perfmodel::machine_yaml {

/// Applies one --set override to the tree. Caches are addressed by name.
bool applySet(Reader &R, YAML::Node Root, const std::string &Set) {
  std::vector<std::string> Path;
  std::string Value;
  MachineDiag D;
  D.File = "--set " + Set;
  if (!splitSet(Set, Path, Value)) {
    D.Message = "expected key.path=value, e.g. caches.L2.size=2MiB";
    R.Diags.push_back(D);
    ++R.Errors;
    return false;
  }
  YAML::Node ValueNode;
  try {
    ValueNode = YAML::Load(Value);
  } catch (const YAML::Exception &E) {
    D.Message = "value is not valid YAML: " + E.msg;
    R.Diags.push_back(D);
    ++R.Errors;
    return false;
  }
  YAML::Node Cur = Root;
  std::string Dotted;
  for (size_t I = 0; I < Path.size(); ++I) {
    const std::string &Seg = Path[I];
    Dotted = Reader::join(Dotted, Seg);
    bool Last = I + 1 == Path.size();
    if (Cur.IsSequence()) {
      YAML::Node Found;
      bool HaveFound = false; // a default yaml-cpp Node counts as defined
      std::string Names;
      for (YAML::Node E : Cur) {
        if (E.IsMap() && E["name"].IsScalar()) {
          if (E["name"].Scalar() == Seg && !HaveFound) {
            Found.reset(E);
            HaveFound = true;
          }
          Names += (Names.empty() ? "" : ", ") + E["name"].Scalar();
        }
      }
      if (!HaveFound) {
        D.Key = Dotted;
        D.Message = "no entry named '" + Seg + "' (have: " + Names + ")";
        R.Diags.push_back(D);
        ++R.Errors;
        return false;
      }
      if (Last) {
        D.Key = Dotted;
        D.Message = "cannot replace a whole list entry; set one of its keys";
        R.Diags.push_back(D);
        ++R.Errors;
        return false;
      }
      Cur.reset(Found);
      continue;
    }
    if (!Cur.IsMap()) {
      D.Key = Dotted;
      D.Message = "'" + Dotted.substr(0, Dotted.size() - Seg.size() - (I ? 1 : 0)) +
                  "' has no keys to set";
      R.Diags.push_back(D);
      ++R.Errors;
      return false;
    }
    if (Last) {
      Cur[Seg] = ValueNode;
    } else {
      YAML::Node Next = Cur[Seg];
      if (!Next.IsDefined() || Next.IsNull())
        Cur[Seg] = YAML::Node(YAML::NodeType::Map);
      YAML::Node Tmp = Cur[Seg];
      Cur.reset(Tmp);
    }
  }
  R.SetOrigins[Dotted] = Set;
  return true;
}

/// Merges DERIVED over BASE: maps key by key; `caches` entries by name (a new
/// name is appended); `sources` concatenated with DERIVED's first, so its
/// citation is the one shown where both cover a key; `instruction_overrides`
/// concatenated with DERIVED's last, so they apply after the base's; any other
/// value replaced. Nodes are shared with the inputs, not cloned: each keeps
/// the position it was read at, so a diagnostic names the file and line the
/// value came from (a clone has none).
YAML::Node mergeOver(const YAML::Node &Base, const YAML::Node &Derived, const std::string &Key) {
  if (!Base.IsDefined() || Base.IsNull())
    return Derived;
  if (Base.IsMap() && Derived.IsMap()) {
    YAML::Node Out(YAML::NodeType::Map);
    // Keys are inserted as the inputs' own key nodes (lookup by identity), one
    // per name: the derived one where both have it.
    for (const auto &KV : Base) {
      std::string K = KV.first.Scalar();
      bool Merged = false;
      for (const auto &DKV : Derived)
        if (!Merged && DKV.first.Scalar() == K) {
          Out[DKV.first] = mergeOver(KV.second, DKV.second, K);
          Merged = true;
        }
      if (!Merged)
        Out[KV.first] = KV.second;
    }
    for (const auto &DKV : Derived)
      if (!Base[DKV.first.Scalar()].IsDefined())
        Out[DKV.first] = DKV.second;
    return Out;
  }
  if (Base.IsSequence() && Derived.IsSequence()) {
    YAML::Node Out(YAML::NodeType::Sequence);
    if (Key == "sources" || Key == "instruction_overrides") {
      const YAML::Node &First = Key == "sources" ? Derived : Base;
      const YAML::Node &Second = Key == "sources" ? Base : Derived;
      for (const auto &E : First)
        Out.push_back(E);
      for (const auto &E : Second)
        Out.push_back(E);
      return Out;
    }
    if (Key == "caches") {
      auto NameOf = [](const YAML::Node &E) {
        return E.IsMap() && E["name"].IsScalar() ? E["name"].Scalar() : std::string();
      };
      std::set<std::string> Used;
      for (const auto &B : Base) {
        YAML::Node Merged = B;
        for (const auto &D : Derived)
          if (!NameOf(B).empty() && NameOf(D) == NameOf(B)) {
            Merged = mergeOver(B, D, "");
            Used.insert(NameOf(B));
          }
        Out.push_back(Merged);
      }
      for (const auto &D : Derived)
        if (!Used.count(NameOf(D)))
          Out.push_back(D);
      return Out;
    }
  }
  return Derived;
}

/// Replaces ROOT by its `base:` model with ROOT's keys merged over it,
/// following the base's own base. A base is a library name or alias, or a
/// path relative to the file that names it. False (with a diagnostic) when a
/// base cannot be had.
bool resolveBase(YAML::Node &Root, const std::string &FileName, std::vector<MachineDiag> &Diags,
                 std::vector<std::string> &Chain,
                 std::vector<std::pair<YAML::Node, std::string>> &Origins) {
  const YAML::Node &Const = Root;
  YAML::Node B = Const["base"];
  if (!B.IsDefined())
    return true;
  MachineDiag D;
  D.File = FileName;
  D.Key = "base";
  D.Line = B.Mark().line >= 0 ? B.Mark().line + 1 : 0;
  D.Column = B.Mark().column >= 0 ? B.Mark().column + 1 : 0;
  if (!B.IsScalar() || B.Scalar().empty()) {
    D.Message = "expected a library model name (e.g. zen4) or a path to a machine file";
    Diags.push_back(D);
    return false;
  }
  std::string Name = B.Scalar(), File;
  if (Name.find('/') != std::string::npos && !llvm::sys::path::is_absolute(Name)) {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(FileName));
    llvm::sys::path::append(P, Name);
    File = llvm::sys::fs::exists(P) ? std::string(P) : std::string();
  } else {
    File = resolveMachine(Name);
  }
  if (File.empty()) {
    D.Message = "no machine model '" + Name + "' (see `perfmodel machine list`)";
    Diags.push_back(D);
    return false;
  }
  // One spelling per file, so that a loop (./self.yml naming ./self.yml) is
  // found as one.
  if (llvm::SmallString<256> Real; !llvm::sys::fs::real_path(File, Real))
    File = std::string(Real);
  if (std::find(Chain.begin(), Chain.end(), File) != Chain.end() || Chain.size() >= 8) {
    D.Message = Chain.size() >= 8
                    ? "'" + Name + "' is a ninth base in a row; at most 8 are followed"
                    : "'" + Name + "' leads back to a model already in the chain of bases";
    Diags.push_back(D);
    return false;
  }
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  YAML::Node BaseRoot;
  try {
    if (Buf)
      BaseRoot = YAML::Load((*Buf)->getBuffer().str());
  } catch (const YAML::Exception &E) {
    D.Message = "base '" + File + "' is not valid YAML: " + E.msg;
    Diags.push_back(D);
    return false;
  }
  if (!Buf || !BaseRoot.IsMap()) {
    D.Message = "cannot read base '" + File + "' as a machine model";
    Diags.push_back(D);
    return false;
  }
  Chain.push_back(File);
  // ROOT's own keys in a map of their own (sharing its nodes), remembered
  // with the file they were read from.
  YAML::Node Own(YAML::NodeType::Map);
  for (const auto &KV : Const)
    if (KV.first.Scalar() != "base")
      Own[KV.first] = KV.second;
  Origins.emplace_back(Own, FileName);
  size_t Before = Origins.size();
  if (!resolveBase(BaseRoot, File, Diags, Chain, Origins))
    return false;
  if (Origins.size() == Before) // the last base: its document as read
    Origins.emplace_back(BaseRoot, File);
  Root = mergeOver(BaseRoot, Own, "");
  return true;
}

} // namespace perfmodel::machine_yaml

namespace {
/// The library's front end for LLVM CPU Cpu with core.front_end's keys over
/// it; a CPU the library does not list needs every key.
std::optional<FrontEndModel> frontEndOf(Reader &R, const YAML::Node &Core, const std::string &Cpu) {
  std::optional<FrontEndModel> F = libraryFrontEnd(Cpu);
  YAML::Node Keys = Core["front_end"];
  if (!Keys.IsDefined() || Keys.IsNull())
    return F;
  FrontEndModel Over = F.value_or(FrontEndModel{});
  readFrontEnd(R, Keys, "core.front_end", Over,
               F ? "" : "(the library has no front end for LLVM CPU '" + Cpu + "' to start from)",
               {});
  return Over;
}

/// core.queue_also_holds names LLVM's queues and resources of M's CPU.
void checkQueueAlsoHolds(Reader &R, const YAML::Node &Core, const MachineModel &M) {
  std::map<std::string, unsigned> Queues = llvmSchedulerQueues(M.Triple, M.Cpu);
  std::vector<std::string> Resources = llvmResourceNames(M.Triple, M.Cpu);
  for (const auto &[Q, Also] : M.Core.QueueAlsoHolds) {
    std::string Path = "core.queue_also_holds." + Q;
    if (!Queues.count(Q)) {
      R.error(Core["queue_also_holds"][Q], Path,
              "LLVM 19's model of " + M.Cpu + " has no scheduler queue '" + Q + "'");
      continue;
    }
    for (const std::string &Name : Also)
      if (!llvm::is_contained(Resources, Name))
        R.error(Core["queue_also_holds"][Q], Path,
                "LLVM 19's model of " + M.Cpu + " has no resource '" + Name + "'");
  }
}

/// core.instruction_overrides' ports name resources of LLVM's model of M's
/// CPU (a probe run on a guest whose CPUID names another core once wrote
/// Ice Lake's divider into a Sapphire Rapids model, where it charged nothing).
void checkOverridePorts(Reader &R, const YAML::Node &Core, const MachineModel &M) {
  std::vector<std::string> Resources;
  for (size_t I = 0; I < M.Core.Overrides.size(); ++I)
    for (const auto &Entry : M.Core.Overrides[I].Ports) {
      if (Resources.empty())
        Resources = llvmResourceNames(M.Triple, M.Cpu);
      if (!llvm::is_contained(Resources, Entry.first))
        R.error(Core["instruction_overrides"][I]["ports"],
                "core.instruction_overrides." + std::to_string(I) + ".ports",
                "LLVM 19's model of " + M.Cpu + " has no resource '" + Entry.first + "'");
    }
}

/// Every name GIVEN under core.KEY is one of KNOWN, the WHAT (scheduler
/// queues, ports) of LLVM's model of CPU; an unknown one is an error that
/// lists them with their sizes.
void checkKnownNames(Reader &R, const YAML::Node &Core, const std::string &Key,
                     const std::string &What, const std::map<std::string, unsigned> &Given,
                     const std::map<std::string, unsigned> &Known, const std::string &Cpu) {
  std::string Names;
  for (const auto &[Name, Size] : Known)
    Names += (Names.empty() ? "" : ", ") + Name + " (" + std::to_string(Size) + ")";
  for (const auto &Entry : Given)
    if (!Known.count(Entry.first))
      R.error(Core[Key][Entry.first], "core." + Key + "." + Entry.first,
              "LLVM 19's model of " + Cpu + " has no " + What + " '" + Entry.first +
                  "' (it has: " + (Names.empty() ? "none" : Names) + ")");
}

/// ecm.KEY: {LEVEL: share in [0, 1]} by a level beyond the first (a
/// cache, or MEM) into OUT. tnol_serial_share (by the level a link fills
/// from) is used under full overlap only: under none every transfer waits
/// for T_nOL whole (a file derived from one with shares may switch the rule
/// and cannot remove them). recurrence_serial_share is by the level the data
/// are in.
void readSerialShares(Reader &R, const YAML::Node &E, const char *Key, const char *NotALevel,
                      MachineModel &M, std::map<std::string, double> &Out) {
  YAML::Node Q = R.child(E, Key, "ecm", false);
  if (!Q.IsDefined() || Q.IsNull())
    return;
  const std::string Path = std::string("ecm.") + Key;
  if (!Q.IsMap()) {
    R.error(Q, Path, "expected a mapping of the level a link fills from to a share, e.g. "
                     "{L2: 0.4, L3: 0.3}");
    return;
  }
  for (const auto &KV : Q) {
    std::string Level = KV.first.as<std::string>();
    const CacheLevel *C = M.cache(Level);
    if (!isMemoryLevel(Level) && (!C || C == &M.Caches.front())) {
      R.error(Q[Level], Path + "." + Level,
              NotALevel + ("'" + Level) + "': name a cache level beyond the first, or MEM");
      continue;
    }
    if (auto V = R.num(Q, Level.c_str(), Path, true, Reader::NonNegative)) {
      if (*V > 1)
        R.error(Q[Level], Path + "." + Level,
                "a share of a transfer's time is at most 1, got " + Q[Level].Scalar());
      else
        Out[Level] = *V;
    }
  }
}
} // namespace

MachineLoadResult perfmodel::parseMachineModel(const std::string &Text,
                                               const std::string &FileName,
                                               const std::vector<std::string> &Sets) {
  MachineLoadResult Result;
  Reader R(FileName, Result.Diags);
  YAML::Node Root;
  try {
    Root = YAML::Load(Text);
  } catch (const YAML::ParserException &E) {
    MachineDiag D;
    D.File = FileName;
    D.Line = E.mark.line >= 0 ? E.mark.line + 1 : 0;
    D.Column = E.mark.column >= 0 ? E.mark.column + 1 : 0;
    D.Message = "malformed YAML: " + E.msg;
    Result.Diags.push_back(D);
    return Result;
  } catch (const YAML::Exception &E) {
    MachineDiag D;
    D.File = FileName;
    D.Message = "malformed YAML: " + E.msg;
    Result.Diags.push_back(D);
    return Result;
  }
  if (!Root.IsMap()) {
    MachineDiag D;
    D.File = FileName;
    D.Message = Root.IsNull() ? "the file is empty; expected a machine model "
                                "mapping (name, llvm, clock_ghz, core, caches, "
                                "memory, sources)"
                              : "expected a mapping at the top level";
    Result.Diags.push_back(D);
    return Result;
  }

  MachineModel M;
  M.File = FileName;
  try {
    std::vector<std::string> Chain;
    if (!resolveBase(Root, FileName, Result.Diags, Chain, R.Origins))
      return Result;
    M.Bases = Chain;
    for (const std::string &S : Sets)
      if (applySet(R, Root, S))
        M.Overrides.push_back(S);
    if (R.failed())
      return Result;

    R.checkMap(Root, "", {"name", "aliases", "llvm", "clock_ghz", "base_clock_ghz",
                          "cores_per_socket", "sockets", "core", "caches",
                          "memory", "tlb", "ecm", "cpuid", "sources"});
    M.Name = R.str(Root, "name", "", true).value_or("");
    if (YAML::Node A = R.child(Root, "aliases", "", false); A.IsDefined() && !A.IsNull()) {
      if (!A.IsSequence())
        R.error(A, "aliases", "expected a list of short names");
      else
        for (const auto &E : A)
          if (E.IsScalar())
            M.Aliases.push_back(E.Scalar());
    }
    YAML::Node L = R.child(Root, "llvm", "", true);
    if (L.IsDefined() && !L.IsNull() && R.checkMap(L, "llvm", {"triple", "cpu"})) {
      M.Triple = R.str(L, "triple", "llvm", true).value_or("");
      M.Cpu = R.str(L, "cpu", "llvm", true).value_or("");
      std::string Err;
      if (!M.Triple.empty() && !M.Cpu.empty() && !checkLLVMCpu(M.Triple, M.Cpu, Err))
        R.error(L["cpu"], "llvm.cpu", Err);
    }
    M.ClockGHz = R.num(Root, "clock_ghz", "", true).value_or(0);
    M.BaseClockGHz = R.num(Root, "base_clock_ghz", "", false);
    M.CoresPerSocket = R.count(Root, "cores_per_socket", "", true).value_or(0);
    M.Sockets = R.count(Root, "sockets", "", false).value_or(1);
    if (YAML::Node C = R.child(Root, "core", "", true); C.IsDefined() && !C.IsNull()) {
      readCore(R, C, M.Core);
      M.Core.FrontEnd = frontEndOf(R, C, M.Cpu);
      if (!M.Triple.empty() && !M.Cpu.empty()) {
        if (!M.Core.SchedulerQueues.empty())
          checkKnownNames(R, C, "scheduler_queues", "scheduler queue", M.Core.SchedulerQueues,
                          llvmSchedulerQueues(M.Triple, M.Cpu), M.Cpu);
        if (!M.Core.QueueAlsoHolds.empty())
          checkQueueAlsoHolds(R, C, M);
        checkOverridePorts(R, C, M);
        if (!M.Core.PortUnits.empty())
          checkKnownNames(R, C, "port_units", "port", M.Core.PortUnits,
                          llvmPorts(M.Triple, M.Cpu), M.Cpu);
      }
    }
    if (YAML::Node C = R.child(Root, "caches", "", true); C.IsDefined() && !C.IsNull())
      readCaches(R, C, M.Caches);
    // The library's streaming rates name the file's cache levels.
    for (const char *Fn : {"memcpy", "memset"}) {
      std::string Key = std::string(Fn) + "_bytes_per_cy";
      for (const auto &[Level, V] : std::string_view(Fn) == "memcpy"
                                        ? M.Core.MemcpyBytesPerCycle
                                        : M.Core.MemsetBytesPerCycle)
        if (!M.cache(Level))
          R.error(Root["core"][Key][Level], "core." + Key + "." + Level,
                  isMemoryLevel(Level) ? "memory is not a cache level: memory." + std::string(Fn) +
                                       "_one_core_gbs (GB/s) gives it"
                                 : "no cache level '" + Level + "' in caches");
    }
    YAML::Node Mem = R.child(Root, "memory", "", true);
    readMemory(R, Mem, M);
    readTlb(R, Root, M);
    deriveLittle(M);
    if (M.Memory.OneCoreWritebackGBs && !M.Memory.oneCoreGBs())
      R.error(Mem["one_core_writeback_gbs"], "memory.one_core_writeback_gbs",
              "a write-back rate of one core needs its fill rate: sustained_one_core_gbs, or "
              "latency_ns with a cache's misses_in_flight (Little's law)");
    if (YAML::Node E = R.child(Root, "ecm", "", false); E.IsDefined() && !E.IsNull()) {
      if (R.checkMap(E, "ecm", {"overlap", "tnol_serial_share", "recurrence_serial_share"})) {
        if (auto O = R.choice<OverlapRule>(E, "overlap", "ecm",
                                           {{"none", OverlapRule::None}, {"full", OverlapRule::Full}}))
          M.EcmOverlap = *O;
        readSerialShares(R, E, "tnol_serial_share", "no link fills from ", M,
                         M.EcmTnolSerialShare);
        readSerialShares(R, E, "recurrence_serial_share", "no data level beyond the first is ",
                         M, M.EcmRecurrenceSerialShare);
      }
    }
    readCpuid(R, Root, M);
    if (YAML::Node S = R.child(Root, "sources", "", true); S.IsDefined() && !S.IsNull())
      readSources(R, S, M.Sources);
  } catch (const YAML::Exception &E) {
    MachineDiag D;
    D.File = FileName;
    D.Message = std::string("malformed machine model: ") + E.what();
    Result.Diags.push_back(D);
    return Result;
  }

  // Every number must name its source; overridden values are hypothetical and
  // are covered by the override itself.
  for (const auto &[P, Node] : R.NumericPaths) {
    if (R.overrideFor(P))
      continue;
    bool Covered = false;
    for (const SourceRef &S : M.Sources)
      for (const std::string &Pat : S.Covers)
        Covered |= matchesPattern(Pat, P);
    if (!Covered)
      R.warning(Node, P, "no entry in 'sources' covers this number");
  }

  if (!R.failed())
    Result.Model = std::move(M);
  return Result;
}

MachineLoadResult perfmodel::loadMachineModel(const std::string &File,
                                              const std::vector<std::string> &Sets) {
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf) {
    MachineLoadResult R;
    R.Diags.push_back({MachineDiag::Kind::Error, File, 0, 0, "",
                       "cannot read machine file: " + Buf.getError().message()});
    return R;
  }
  std::string Text = (*Buf)->getBuffer().str();
  // One run reads a file more than once (the host's model is found by its
  // CPUID, then loaded; an alias is looked for in each file that names it):
  // a file without a base is parsed once per text and overrides. One with
  // a base is parsed each time, as its base may have changed meanwhile.
  static std::mutex Mutex;
  static std::map<std::string, MachineLoadResult> Parsed;
  std::string Key = File + '\0' + Text;
  for (const std::string &S : Sets)
    Key += '\0' + S;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (auto It = Parsed.find(Key); It != Parsed.end())
      return It->second;
  }
  MachineLoadResult R = parseMachineModel(Text, File, Sets);
  if (R.ok() && R.Model->Bases.empty()) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Parsed.size() >= 64) // a sweep over many generated files
      Parsed.clear();
    Parsed.emplace(std::move(Key), R);
  }
  return R;
}

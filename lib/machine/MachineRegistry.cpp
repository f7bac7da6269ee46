//===- MachineRegistry.cpp - Find machine files --------------------------===//
//
// Where machine files are found (PERFMODEL_MACHINE_PATH, the installed and
// the source tree's machine-models), by path, stem, alias, LLVM CPU or the
// host's CPUID; the default when nothing matches.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/MachineRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

#include "yaml-cpp/yaml.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace perfmodel;

std::optional<HostCpu> perfmodel::detectHostCpu() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned A, B, C, D;
  if (!__get_cpuid(0, &A, &B, &C, &D))
    return std::nullopt;
  HostCpu H;
  char Vendor[13] = {};
  memcpy(Vendor, &B, 4);
  memcpy(Vendor + 4, &D, 4);
  memcpy(Vendor + 8, &C, 4);
  H.Vendor = Vendor;
  __get_cpuid(1, &A, &B, &C, &D);
  unsigned BaseFamily = (A >> 8) & 0xf, BaseModel = (A >> 4) & 0xf;
  unsigned ExtFamily = (A >> 20) & 0xff, ExtModel = (A >> 16) & 0xf;
  H.Family = BaseFamily == 0xf ? BaseFamily + ExtFamily : BaseFamily;
  H.Model = (BaseFamily == 0x6 || BaseFamily == 0xf) ? (ExtModel << 4) | BaseModel
                                                      : BaseModel;
  unsigned MaxExt = __get_cpuid_max(0x80000000, nullptr);
  if (MaxExt >= 0x80000004) {
    char Brand[49] = {};
    for (unsigned I = 0; I < 3; ++I) {
      __get_cpuid(0x80000002 + I, &A, &B, &C, &D);
      memcpy(Brand + 16 * I, &A, 4);
      memcpy(Brand + 16 * I + 4, &B, 4);
      memcpy(Brand + 16 * I + 8, &C, 4);
      memcpy(Brand + 16 * I + 12, &D, 4);
    }
    H.Brand = llvm::StringRef(Brand).trim().str();
  }
  for (const auto &F : llvm::sys::getHostCPUFeatures())
    if (F.second)
      H.Features.push_back(F.first().str());
  llvm::sort(H.Features);
  return H;
#else
  return std::nullopt;
#endif
}

std::vector<std::string> perfmodel::machineSearchPath() {
  std::vector<std::string> Dirs;
  if (const char *Env = std::getenv("PERFMODEL_MACHINE_PATH")) {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(Env).split(Parts, ':', -1, false);
    for (llvm::StringRef P : Parts)
      Dirs.push_back(P.str());
  }
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (!Exe.empty()) {
    llvm::SmallString<256> Share(llvm::sys::path::parent_path(
        llvm::sys::path::parent_path(Exe)));
    llvm::sys::path::append(Share, "share", "perfmodel", "machine-models");
    Dirs.push_back(std::string(Share));
  }
#ifdef PERFMODEL_SOURCE_MACHINE_DIR
  Dirs.push_back(PERFMODEL_SOURCE_MACHINE_DIR);
#endif
  return Dirs;
}

std::vector<std::string> perfmodel::listMachineFiles() {
  std::vector<std::string> Files;
  std::set<std::string> Stems;
  for (const std::string &Dir : machineSearchPath()) {
    std::error_code EC;
    std::vector<std::string> Here;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; !EC && It != End;
         It.increment(EC)) {
      llvm::StringRef P = It->path();
      if (P.ends_with(".yml") || P.ends_with(".yaml"))
        Here.push_back(P.str());
    }
    std::sort(Here.begin(), Here.end());
    for (const std::string &F : Here)
      if (Stems.insert(llvm::sys::path::stem(F).str()).second)
        Files.push_back(F);
  }
  return Files;
}

namespace {
/// TEXT's top-level entry KEY read from that entry alone (parsing a whole
/// file costs about twenty times as much, and finding the host's model or
/// `-m NAME` looked at every file). Null where the file has no such line;
/// nullopt where the entry is not readable alone (the full load decides).
std::optional<YAML::Node> topLevelEntry(llvm::StringRef Text, llvm::StringRef Key) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Text.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (!Lines[I].starts_with(Key) || !Lines[I].substr(Key.size()).starts_with(":"))
      continue;
    // The entry and its continuation: a block's items, or a flow
    // collection broken over lines.
    std::string Entry = Lines[I].str() + "\n";
    for (size_t J = I + 1; J < Lines.size() && !Lines[J].empty() &&
                           (Lines[J].front() == ' ' || Lines[J].front() == '\t' ||
                            Lines[J].front() == '-');
         ++J)
      Entry += Lines[J].str() + "\n";
    try {
      return YAML::Load(Entry)[Key.str()];
    } catch (const YAML::Exception &) {
      return std::nullopt;
    }
  }
  return YAML::Node(YAML::NodeType::Null);
}

/// The aliases TEXT's top-level `aliases:` entry lists.
std::vector<std::string> listedAliases(llvm::StringRef Text) {
  std::vector<std::string> Names;
  std::optional<YAML::Node> List = topLevelEntry(Text, "aliases");
  if (List && List->IsSequence())
    for (const YAML::Node &N : *List)
      if (N.IsScalar())
        Names.push_back(N.Scalar());
  return Names;
}

/// Whether TEXT's `cpuid:` entry may match HOST: false only where the entry
/// read alone is clear that it does not (or there is none).
bool mayMatchHost(llvm::StringRef Text, const HostCpu &Host) {
  if (!Text.contains("cpuid"))
    return false;
  std::optional<YAML::Node> C = topLevelEntry(Text, "cpuid");
  if (!C || !C->IsDefined())
    return true;
  if (C->IsNull())
    return !Text.contains("\ncpuid"); // not a plain top-level line: the full load decides
  if (!C->IsMap())
    return true;
  try {
    CpuidMatch Id;
    YAML::Node Family = (*C)["family"];
    unsigned long long F;
    if (!Family.IsScalar() || llvm::StringRef(Family.Scalar()).getAsInteger(0, F))
      return true;
    Id.Vendor = (*C)["vendor"].as<std::string>("");
    Id.Family = unsigned(F);
    for (const YAML::Node &E : (*C)["models"]) {
      unsigned long long V;
      if (!E.IsScalar() || llvm::StringRef(E.Scalar()).getAsInteger(0, V))
        return true;
      Id.Models.push_back(unsigned(V));
    }
    return cpuidMatches(Id, Host);
  } catch (const YAML::Exception &) {
    return true;
  }
}

/// The first of FILES that lists NAME among its aliases, or "".
std::string fileWithAlias(const std::vector<std::string> &Files, const std::string &Name) {
  for (const std::string &F : Files) {
    auto Text = llvm::MemoryBuffer::getFile(F, /*IsText=*/true);
    if (!Text || !(*Text)->getBuffer().contains(Name))
      continue;
    std::vector<std::string> Listed = listedAliases((*Text)->getBuffer());
    if (std::find(Listed.begin(), Listed.end(), Name) == Listed.end())
      continue;
    // Only a valid model is meant (kept: the load that follows reuses it).
    if (loadMachineModel(F).ok())
      return F;
  }
  return "";
}
} // namespace

std::string perfmodel::resolveMachine(const std::string &NameOrPath) {
  if (llvm::sys::fs::exists(NameOrPath))
    return NameOrPath;
  // A path-like name that does not exist is not looked up by alias.
  if (NameOrPath.find('/') != std::string::npos)
    return "";
  std::vector<std::string> Files = listMachineFiles();
  for (const std::string &F : Files)
    if (llvm::sys::path::stem(F) == NameOrPath)
      return F;
  return fileWithAlias(Files, NameOrPath);
}

bool perfmodel::cpuidMatches(const std::optional<CpuidMatch> &Id, const HostCpu &Host) {
  return Id && Id->Vendor == Host.Vendor && Id->Family == Host.Family &&
         llvm::is_contained(Id->Models, Host.Model) &&
         llvm::all_of(Id->Features,
                      [&](const std::string &F) { return llvm::is_contained(Host.Features, F); });
}

std::string perfmodel::machineForHost(const HostCpu &Host) {
  for (const std::string &F : listMachineFiles()) {
    auto Text = llvm::MemoryBuffer::getFile(F, /*IsText=*/true);
    if (Text && !mayMatchHost((*Text)->getBuffer(), Host))
      continue;
    MachineLoadResult R = loadMachineModel(F);
    if (R.ok() && cpuidMatches(R.Model->Cpuid, Host))
      return F;
  }
  return "";
}

std::string perfmodel::defaultMachine(std::string &Note) {
  std::string HostDesc = "unknown CPU";
  if (auto Host = detectHostCpu()) {
    if (std::string F = machineForHost(*Host); !F.empty()) {
      Note = "machine: host model " + llvm::sys::path::filename(F).str() +
             " (matched by CPUID)";
      return F;
    }
    char Buf[64];
    snprintf(Buf, sizeof(Buf), "family 0x%x model 0x%x", Host->Family, Host->Model);
    HostDesc = (Host->Brand.empty() ? Host->Vendor : Host->Brand) + ", " + Buf;
  }
  Note = "machine: no model for this host (" + HostDesc +
         "); using Haswell-EP E5-2680 v3. Choose one with -m.";
  return resolveMachine("haswell-ep-e5-2680v3");
}

std::string perfmodel::machineForLlvmCpu(const std::string &Cpu) {
  if (Cpu.empty() || Cpu.find('/') != std::string::npos)
    return "";
  std::vector<std::string> Files = listMachineFiles();
  // A model that names the CPU among its aliases is the one meant for it
  // (zen5 for znver5, not the development VM that also runs znver5).
  if (std::string F = fileWithAlias(Files, Cpu); !F.empty())
    return F;
  for (const std::string &F : Files) {
    MachineLoadResult R = loadMachineModel(F);
    if (R.ok() && R.Model->Cpu == Cpu)
      return F;
  }
  return "";
}

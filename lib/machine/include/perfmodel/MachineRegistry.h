//===- MachineRegistry.h - Find machine files by name or host --*- C++ -*-===//
//
// Finding machine files by name, alias, LLVM CPU or the host's CPUID, and
// the library's table of Intel front ends.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_MACHINEREGISTRY_H
#define PERFMODEL_MACHINEREGISTRY_H

#include "perfmodel/MachineModel.h"

#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

struct HostCpu {
  std::string Vendor;
  unsigned Family = 0; ///< display family (base + extended)
  unsigned Model = 0;  ///< display model (base + extended)
  std::string Brand;
  std::vector<std::string> Features; ///< LLVM's names of the features it has
};

/// Reads CPUID on x86-64; nullopt elsewhere.
std::optional<HostCpu> detectHostCpu();

/// Directories searched for machine files, in order: $PERFMODEL_MACHINE_PATH
/// (colon separated), the installed share directory, the source tree.
std::vector<std::string> machineSearchPath();

/// All *.yml / *.yaml files on the search path (first occurrence of a name wins).
std::vector<std::string> listMachineFiles();

/// Resolves -m NAME: an existing path, a file stem ("haswell-ep-e5-2680v3"),
/// or an alias listed in a file ("hsw"). Empty when nothing matches.
std::string resolveMachine(const std::string &NameOrPath);

/// Whether a model's cpuid block names HOST's vendor, family and model, and
/// HOST has every feature the block lists.
bool cpuidMatches(const std::optional<CpuidMatch> &Id, const HostCpu &Host);

/// The machine file whose cpuid block matches HOST, if any.
std::string machineForHost(const HostCpu &Host);

/// The library model for an LLVM CPU name (what -march/-mcpu select): one
/// listing it among its aliases, else one whose llvm_cpu it is. Empty when
/// the library has none.
std::string machineForLlvmCpu(const std::string &Cpu);

/// The library's table of Intel front ends (cores/intel-front-ends.yml on
/// the search path); empty when there is none.
std::string frontEndTableFile();
/// The table's front end for an LLVM CPU name; nullopt for a CPU it does not
/// list (AMD and Arm cores, Atoms, newer Intel cores).
std::optional<FrontEndModel> libraryFrontEnd(const std::string &LlvmCpu);
/// The table checked (`machine check`): unknown keys, missing ones, sources.
std::vector<MachineDiag> checkFrontEndTable(const std::string &File);
/// Whether FILE holds a front-end table (top-level `defaults` and `cores`)
/// rather than a machine model.
bool isFrontEndTable(const std::string &File);

/// The file used when the user names none: the host's model when one exists,
/// otherwise Haswell-EP. Note is set to a one-line explanation of the choice.
std::string defaultMachine(std::string &Note);

} // namespace perfmodel

#endif

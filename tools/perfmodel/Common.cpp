//===- Common.cpp - What the perfmodel subcommands share -------------------===//
//
// The option groups each subcommand takes (machine, source, models, the kept
// L3) and --format by name.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

using namespace perfmodel;
using namespace perfmodel::tool;

void perfmodel::tool::addMachineOptions(CLI::App *C, AnalyzeArgs &A) {
  C->add_option("-m,--machine", A.Machine,
                "machine model: file or name (default: the host's, else Haswell-EP)");
  C->add_option("--set", A.Sets, "override a machine value, e.g. caches.L2.size=2MiB")
      ->allow_extra_args(false);
}

void perfmodel::tool::addKeptL3Option(CLI::App *C, AnalyzeArgs &A) {
  C->add_flag("--kept-l3", A.KeptL3,
              "predict with the L3 capacity this host keeps now (pointer chases, about a "
              "second; a VM's share of a shared L3), not the model's, where it keeps less "
              "(validate does so unless --model-l3)");
  C->add_option("--host-l3", A.HostL3,
                "what this host keeps of its L3 (e.g. 6MiB), given instead of measured: for "
                "runs side by side that must see one L3 (--kept-l3; validate's L3 sizes and "
                "predictions)");
}

void perfmodel::tool::addHostMemoryOption(CLI::App *C, AnalyzeArgs &A) {
  C->add_flag("--host-memory", A.HostMemory,
              "predict with this host's memory as it is now (one core's fills and "
              "write-backs, latency, all cores' bandwidth; several seconds), not the "
              "model's figures, where the model is this host's (validate always does)");
}

void perfmodel::tool::addSourceOptions(CLI::App *C, AnalyzeArgs &A, bool FileRequired) {
  CLI::Option *F = C->add_option("file", A.File, "C or C++ source file (- reads standard input)");
  if (FileRequired)
    F->required();
  C->add_option("-D,--define", A.Defines, "bind a size parameter, e.g. -D N=4096")
      ->allow_extra_args(false);
  C->add_option("-p,--compile-commands", A.CompileCommandsDir,
                "build directory with compile_commands.json");
  C->add_option("--exit-fraction", A.ExitFraction,
                "loops that can exit early (return, break, goto out): the share of "
                "their bound's iterations they run, e.g. 0.5 for a search that "
                "stops half way on average (default 1: the exit is not taken)")
      ->check(CLI::Range(1e-6, 1.0));
  C->add_option("--branch-miss-rate", A.BranchMissRate,
                "branches on the data inside a loop body (if (a[i] > t) kept as a branch): "
                "the share of their outcomes mispredicted, each at core.branch_mispredict_cy, "
                "e.g. 0.5 for outcomes at random (default 0: predicted)")
      ->check(CLI::Range(0.0, 0.5));
}

void perfmodel::tool::addModelOptions(CLI::App *C, AnalyzeArgs &A) {
  C->add_option("--model", A.ModelNames,
                "models to report: roofline, ecm, ppr or all (default all; "
                "comma-separated or repeated)")
      ->allow_extra_args(false);
  C->add_option("--cores", A.Models.Cores,
                "cores running the loop (Roofline peaks and bandwidths, ECM "
                "scaling; default 1)")
      ->check(CLI::Range(1u, 4096u));
  C->add_option("--cache", A.Cache,
                "traffic beyond L1: auto (layer conditions, simulator where they "
                "do not apply), lc, sim, both, or none (naive)")
      ->check(CLI::IsMember({"auto", "lc", "sim", "both", "none"}));
  C->add_option("--index", A.Index,
                "contents of an index array for the simulator: NAME=FILE.mtx, "
                "NAME=uniform:LO:HI[:COUNT[:SEED]], NAME=banded:WIDTH or NAME=FILE")
      ->allow_extra_args(false);
  C->add_flag("--no-incore", A.NoInCore, "skip the in-core model (no compilation of the kernel)");
  C->add_option("--incore", A.InCoreBasis,
                "what the in-core model costs: compiled (the compiled loop nest as "
                "it executes at the bound sizes: vector body, remainder loops and the "
                "outer loop's code, default), steady (the machine loop's steady state "
                "alone) or source (the operations as written, the PPR paper's "
                "counting, on the machine file's ports)")
      ->check(CLI::IsMember({"compiled", "steady", "source"}));
  C->add_option("--assume-align", A.AssumeAlign,
                "alignment in bytes of arrays whose alignment the source does not "
                "give (pointers not from aligned_alloc, _mm_malloc or "
                "__builtin_assume_aligned); decides which vector accesses cross cache "
                "lines (default 16: glibc's malloc)")
      ->check(CLI::IsMember({1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u, 512u, 1024u, 2048u, 4096u}));
  C->add_flag("--prefetch", A.Prefetch,
              "simulate the machine's prefetchers (next-line on demand misses of "
              "levels whose prefetch is not none)");
  C->add_option("--sim-accesses", A.SimAccesses,
                "replay budget of the cache simulator (larger nests are sliced)")
      ->check(CLI::Range(uint64_t(1000), uint64_t(1) << 40));
}

CLI::Option *perfmodel::tool::addFormatOption(CLI::App *C, ReportFormat &Out,
                                              std::initializer_list<ReportFormat> Allowed,
                                              const std::string &Help) {
  std::vector<std::string> Names;
  for (ReportFormat F : Allowed)
    Names.push_back(reportFormatName(F));
  // The name is checked before the callback converts it.
  return C
      ->add_option_function<std::string>(
          "--format", [&Out](const std::string &Name) { Out = *reportFormatNamed(Name); }, Help)
      ->check(CLI::IsMember(Names));
}

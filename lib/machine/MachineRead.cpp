//===- MachineRead.cpp - A machine file's sections read ------------------===//
//
// Each section of a machine file read and checked: the core (widths,
// queues, ports, instruction overrides, call costs), the caches, the memory,
// the sources; a one-core bandwidth derived by Little's law where the file
// gives the misses in flight and the latency.
//
//===----------------------------------------------------------------------===//
#include "MachineYaml.h"
#include "perfmodel/MachineRegistry.h"

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
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <tuple>

using namespace perfmodel;

namespace perfmodel::machine_yaml {

void readFpUnits(Reader &R, const YAML::Node &N, CoreModel &C);
void readOverrides(Reader &R, const YAML::Node &N, CoreModel &C);

void readCore(Reader &R, const YAML::Node &N, CoreModel &C) {
  const std::string P = "core";
  if (!R.checkMap(N, P, {"issue_width", "reorder_buffer", "simd_bits", "fp_pipe_bits", "fma_units",
                         "peak_flops_per_cycle", "loads_per_cycle",
                         "load_bytes_per_cycle", "vector_load_slots", "stores_per_cycle",
                         "store_bytes_per_cycle", "l1_bytes_per_cycle", "fp_units",
                         "unaligned_vector_cost", "line_split_load_cost",
                         "line_split_store_cost", "scheduler_queues", "queue_also_holds", "port_units", "load_queue", "store_queue",
                         "branch_mispredict_cy", "branch_pattern_capacity",
                         "instruction_overrides", "call_cy", "call_return_cy", "parallel_loop_us",
                         "masked_stores_forward", "forward_fail_cy", "store_forward_cy",
                         "store_forward_vector_cy", "vector_memory_round_trip_cy",
                         "memcpy_bytes_per_cy",
                         "memset_bytes_per_cy", "front_end", "fetch_line_bytes"}))
    return;
  C.IssueWidth = R.count(N, "issue_width", P, true).value_or(0);
  C.ReorderBuffer = R.count(N, "reorder_buffer", P, false).value_or(0);
  C.LoadQueue = R.count(N, "load_queue", P, false).value_or(0);
  C.StoreQueue = R.count(N, "store_queue", P, false).value_or(0);
  C.BranchMispredictCycles = R.num(N, "branch_mispredict_cy", P, false).value_or(0);
  C.BranchPatternCapacity = R.num(N, "branch_pattern_capacity", P, false).value_or(0);
  C.CallReturnCycles = R.num(N, "call_return_cy", P, false).value_or(0);
  C.FetchLineBytes =
      R.count(N, "fetch_line_bytes", P, false, Reader::NonNegative).value_or(0);
  if (C.FetchLineBytes && (C.FetchLineBytes & (C.FetchLineBytes - 1)))
    R.error(R.child(N, "fetch_line_bytes", P, false), "core.fetch_line_bytes",
            "expected a power of two (the bytes of the aligned line the front end delivers "
            "from in a cycle)");
  C.MaskedStoresForward = R.boolean(N, "masked_stores_forward", P).value_or(true);
  C.ForwardFailCycles = R.num(N, "forward_fail_cy", P, false).value_or(0);
  C.StoreForwardCycles = R.num(N, "store_forward_cy", P, false, Reader::NonNegative);
  C.StoreForwardVectorCycles = R.num(N, "store_forward_vector_cy", P, false, Reader::NonNegative);
  C.VectorMemoryRoundTrip = R.num(N, "vector_memory_round_trip_cy", P, false).value_or(0);
  C.SimdBits = R.count(N, "simd_bits", P, true).value_or(0);
  C.FmaUnits = R.count(N, "fma_units", P, true, Reader::NonNegative).value_or(0);
  C.FpPipeBits = R.count(N, "fp_pipe_bits", P, false).value_or(0);
  if (C.FpPipeBits && C.SimdBits && C.FpPipeBits > C.SimdBits)
    R.error(R.child(N, "fp_pipe_bits", P, false), "core.fp_pipe_bits",
            "a pipe (" + std::to_string(C.FpPipeBits) +
                " bits) cannot be wider than the widest register (simd_bits " +
                std::to_string(C.SimdBits) + ")");
  YAML::Node Peak = R.child(N, "peak_flops_per_cycle", P, true);
  if (Peak.IsDefined() && !Peak.IsNull() &&
      R.checkMap(Peak, "core.peak_flops_per_cycle", {"double", "single"})) {
    C.PeakFlopsPerCycleDouble =
        R.num(Peak, "double", "core.peak_flops_per_cycle", true).value_or(0);
    C.PeakFlopsPerCycleSingle =
        R.num(Peak, "single", "core.peak_flops_per_cycle", true).value_or(0);
  }
  C.LoadsPerCycle = R.count(N, "loads_per_cycle", P, true).value_or(0);
  C.LoadBytesPerCycle = R.num(N, "load_bytes_per_cycle", P, true).value_or(0);
  C.VectorLoadSlots = R.num(N, "vector_load_slots", P, false, Reader::NonNegative).value_or(0);
  C.StoresPerCycle = R.count(N, "stores_per_cycle", P, true).value_or(0);
  C.StoreBytesPerCycle = R.num(N, "store_bytes_per_cycle", P, true).value_or(0);
  C.L1BytesPerCycle = R.num(N, "l1_bytes_per_cycle", P, false).value_or(0);
  C.UnalignedVectorCost = R.num(N, "unaligned_vector_cost", P, false).value_or(1);
  if (C.UnalignedVectorCost < 1)
    R.error(R.child(N, "unaligned_vector_cost", P, false), "core.unaligned_vector_cost",
            "an unaligned access cannot cost fewer port slots than an aligned one (>= 1)");

  for (const char *Key : {"line_split_load_cost", "line_split_store_cost"}) {
    double V = R.num(N, Key, P, false).value_or(0);
    if (V != 0 && V < 1)
      R.error(R.child(N, Key, P, false), std::string("core.") + Key,
              "an access that crosses a cache line cannot cost fewer port slots than one "
              "that does not (>= 1)");
    (std::string_view(Key) == "line_split_load_cost" ? C.LineSplitLoadCost
                                                     : C.LineSplitStoreCost) = V;
  }

  // Mappings of names to values: each entry read by READ (map, name, path).
  auto Named = [&](const char *Key, const char *Expected, auto Read) {
    YAML::Node Q = R.child(N, Key, P, false);
    if (!Q.IsDefined() || Q.IsNull())
      return;
    std::string Path = Reader::join(P, Key);
    if (!Q.IsMap()) {
      R.error(Q, Path, std::string("expected a mapping ") + Expected);
      return;
    }
    for (const auto &KV : Q)
      Read(Q, KV.first.Scalar(), Path);
  };
  Named("parallel_loop_us", "threads: microseconds, e.g. {1: 0.3, 2: 0.7}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          unsigned Threads = 0;
          if (llvm::StringRef(Name).getAsInteger(10, Threads) || Threads == 0)
            R.error(Q[Name], Path + "." + Name, "expected a number of threads (1, 2, ...)");
          else if (auto V = R.num(Q, Name.c_str(), Path, true, Reader::NonNegative))
            C.ParallelLoopUs[Threads] = *V;
        });
  Named("call_cy", "function: cycles, e.g. {exp: 18}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          if (auto V = R.num(Q, Name.c_str(), Path, true))
            C.CallCycles[Name] = *V;
        });
  for (auto [Key, Rates] : {std::pair{"memcpy_bytes_per_cy", &C.MemcpyBytesPerCycle},
                            std::pair{"memset_bytes_per_cy", &C.MemsetBytesPerCycle}})
    Named(Key, "cache level: bytes per cycle, e.g. {L1: 40, L2: 24}",
          [&, Rates = Rates](const YAML::Node &Q, const std::string &Name,
                             const std::string &Path) {
            if (auto V = R.num(Q, Name.c_str(), Path, true))
              (*Rates)[Name] = *V;
          });
  Named("scheduler_queues", "queue: entries, e.g. {Zn4FP: 64}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          if (auto V = R.count(Q, Name.c_str(), Path, true))
            C.SchedulerQueues[Name] = *V;
        });
  Named("port_units", "port: units, e.g. {Zn4LSU: 4}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          if (auto V = R.count(Q, Name.c_str(), Path, true))
            C.PortUnits[Name] = *V;
        });
  Named("queue_also_holds", "queue: [resources], e.g. {Zn4FP: [Zn4FPSt]}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          const YAML::Node L = Q[Name];
          std::string At = Reader::join(Path, Name);
          if (!L.IsSequence() || L.size() == 0) {
            R.error(L, At, "expected a list of LLVM resource names, e.g. [Zn4FPSt]");
            return;
          }
          for (const YAML::Node &E : L)
            if (E.IsScalar() && !E.Scalar().empty())
              C.QueueAlsoHolds[Name].push_back(E.Scalar());
            else
              R.error(E, At, "expected an LLVM resource name");
        });


  readFpUnits(R, N, C);
  readOverrides(R, N, C);
}

/// core.fp_units: which vector operations each floating-point pipe starts
/// (it decides the compute ceiling of an add/mul/FMA mix), checked against
/// the stated FMA units and peak.
void readFpUnits(Reader &R, const YAML::Node &N, CoreModel &C) {
  const std::string P = "core";
  if (YAML::Node U = R.child(N, "fp_units", P, false); U.IsDefined() && !U.IsNull()) {
    if (!U.IsSequence() || U.size() == 0) {
      R.error(U, "core.fp_units", "expected a list of pipes, each a list of "
                                  "operations, e.g. [[fma, mul], [fma, mul, add]]");
    } else {
      for (size_t I = 0; I < U.size(); ++I) {
        const YAML::Node E = U[I];
        FpUnit Unit;
        bool Good = E.IsSequence() && E.size() > 0;
        for (size_t J = 0; Good && J < E.size(); ++J) {
          std::string Op = E[J].IsScalar() ? E[J].Scalar() : "";
          if (Op == "add")
            Unit.Add = true;
          else if (Op == "mul")
            Unit.Mul = true;
          else if (Op == "fma")
            Unit.Fma = true;
          else
            Good = false;
        }
        if (!Good) {
          R.error(E, "core.fp_units." + std::to_string(I),
                  "expected a list of operations among add, mul, fma");
          continue;
        }
        C.FpUnits.push_back(Unit);
      }
      // The pipes must give the stated peak, counted the vendors' way: the
      // FMA pipes at two flops per lane when there are any (Zen's extra add
      // pipes do not raise the quoted peak), otherwise every add/mul pipe.
      unsigned FmaPipes = 0;
      for (const FpUnit &F : C.FpUnits)
        FmaPipes += F.Fma;
      if (FmaPipes && C.FmaUnits && FmaPipes != C.FmaUnits)
        R.error(U, "core.fp_units",
                std::to_string(FmaPipes) + " of these pipes run FMA, but core.fma_units is " +
                    std::to_string(C.FmaUnits));
      unsigned Bits = C.pipeBits();
      if (C.FpUnits.size() == U.size() && Bits >= 64)
        for (auto [Key, Bytes, Peak] :
             {std::tuple<const char *, unsigned, double>{"double", 8, C.PeakFlopsPerCycleDouble},
              {"single", 4, C.PeakFlopsPerCycleSingle}}) {
          double Lanes = Bits / (8.0 * Bytes);
          double FromUnits = FmaPipes ? 2.0 * FmaPipes * Lanes : C.FpUnits.size() * Lanes;
          if (Peak > 0 && std::fabs(FromUnits - Peak) > 1e-9)
            R.error(U, "core.fp_units",
                    "these pipes give " + shortNumber(FromUnits) + " " + Key +
                        " flop/cycle at " + std::to_string(Bits) +
                        " bits per pipe, but core.peak_flops_per_cycle." + Key + " is " +
                        shortNumber(Peak));
        }
    }
  }
}

/// core.instruction_overrides: forms (a prefix or a glob of the disassembly)
/// with the latency, uops or port cycles that replace LLVM's.
void readOverrides(Reader &R, const YAML::Node &N, CoreModel &C) {
  const std::string P = "core";
  YAML::Node Ov = R.child(N, "instruction_overrides", P, false);
  if (!Ov.IsDefined() || Ov.IsNull())
    return;
  if (!Ov.IsSequence()) {
    R.error(Ov, "core.instruction_overrides", "expected a list");
    return;
  }
  for (size_t I = 0; I < Ov.size(); ++I) {
    std::string IP = "core.instruction_overrides." + std::to_string(I);
    const YAML::Node E = Ov[I];
    if (!R.checkMap(E, IP,
                    {"form", "latency_cy", "uops", "ports", "bypass_group", "latency_cy_outside"}))
      continue;
    InstructionOverride O;
    O.Form = R.str(E, "form", IP, true).value_or("");
    if (O.Form.find_first_of("*?[") != std::string::npos) {
      llvm::Expected<llvm::GlobPattern> G = llvm::GlobPattern::create(O.Form);
      if (!G) {
        R.error(E, IP + ".form", "'" + O.Form + "' is not a valid glob: " +
                                     llvm::toString(G.takeError()));
        continue;
      }
    }
    O.LatencyCy = R.num(E, "latency_cy", IP, false, Reader::NonNegative);
    O.Uops = R.num(E, "uops", IP, false, Reader::NonNegative);
    O.BypassGroup = R.str(E, "bypass_group", IP, false).value_or("");
    O.LatencyOutsideCy = R.num(E, "latency_cy_outside", IP, false, Reader::NonNegative);
    if (O.LatencyOutsideCy && (O.BypassGroup.empty() || !O.LatencyCy))
      R.error(E, IP + ".latency_cy_outside",
              "needs latency_cy and bypass_group: the latency inside the group and the group");
    YAML::Node Ports = R.child(E, "ports", IP, false);
    if (Ports.IsDefined() && !Ports.IsNull()) {
      if (!Ports.IsMap()) {
        R.error(Ports, IP + ".ports", "expected a mapping port: cycles");
      } else {
        for (const auto &KV : Ports) {
          std::string Port = KV.first.Scalar();
          // 0: the form does not use that port at all.
          if (auto V = R.num(Ports, Port.c_str(), IP + ".ports", true, Reader::NonNegative))
            O.Ports[Port] = *V;
        }
      }
    }
    C.Overrides.push_back(std::move(O));
  }
}

/// One core's memory bandwidth by Little's law: the lines the outermost
/// private cache that states misses_in_flight keeps outstanding (the
/// prefetched streams' fills queue there), times the line, over the memory
/// latency. Without both keys there is no figure.
void deriveLittle(MachineModel &M) {
  M.Memory.LittleGBs.reset();
  M.Memory.LittleBasis.clear();
  if (!M.Memory.LatencyNs || *M.Memory.LatencyNs <= 0)
    return;
  const CacheLevel *Q = nullptr;
  for (const CacheLevel &C : M.Caches)
    if (C.MissesInFlight && *C.MissesInFlight > 0 && (!Q || C.SharedBy <= 1))
      Q = &C;
  if (!Q || !Q->LineBytes)
    return;
  M.Memory.LittleGBs = double(*Q->MissesInFlight) * Q->LineBytes / *M.Memory.LatencyNs;
  M.Memory.LittleBasis = std::to_string(*Q->MissesInFlight) + " misses in flight (caches." +
                         Q->Name + ") x " + std::to_string(Q->LineBytes) + " B / " +
                         shortNumber(*M.Memory.LatencyNs) + " ns = " +
                         shortNumber(std::round(*M.Memory.LittleGBs * 100) / 100) + " GB/s";
}

/// The mapping at E's KEY (EXPECTED says its form when it is none) into
/// OUT, sorted by key: PARSE reads a key (nullopt and its error otherwise),
/// TWICE names a key given twice.
template <typename Key, typename Parse, typename Twice>
static void readTable(Reader &R, const YAML::Node &E, const std::string &P, const char *KeyName,
                      const std::string &Expected, Parse ParseKey, Twice TwiceMessage,
                      std::vector<std::pair<Key, double>> &Out) {
  YAML::Node Q = R.child(E, KeyName, P, false);
  if (!Q.IsDefined() || Q.IsNull())
    return;
  std::string Path = Reader::join(P, KeyName);
  if (!Q.IsMap() || Q.size() == 0) {
    R.error(Q, Path, Expected);
    return;
  }
  for (const auto &KV : Q) {
    std::string Text = KV.first.Scalar(), Err;
    std::optional<Key> K = ParseKey(Text, Err);
    if (!K) {
      R.error(KV.first, Reader::join(Path, Text), Err);
      continue;
    }
    if (auto V = R.num(Q, Text.c_str(), Path, true))
      Out.push_back({*K, *V});
  }
  llvm::sort(Out);
  for (size_t I = 1; I < Out.size(); ++I)
    if (Out[I].first == Out[I - 1].first)
      R.error(Q, Path, TwiceMessage(Out[I].first));
}

/// bytes_per_cycle_from_next_by_set: {96KiB: 46, 512KiB: 61.4}, sorted by set.
static void readFromNextBySet(Reader &R, const YAML::Node &E, const std::string &P,
                              CacheLevel &C) {
  readTable<uint64_t>(
      R, E, P, "bytes_per_cycle_from_next_by_set",
      "expected a mapping of working set to bytes per cycle, e.g. {128KiB: 46, 512KiB: 61.4}",
      [](const std::string &Set, std::string &Err) -> std::optional<uint64_t> {
        std::optional<uint64_t> Bytes = parseByteSize(Set, Err);
        if (Bytes && *Bytes)
          return Bytes;
        if (Err.empty())
          Err = "expected a size";
        return std::nullopt;
      },
      [](uint64_t Set) { return "two rates for the working set " + formatByteSize(Set); },
      C.FromNextBySet);
}

/// conflict_miss_cy_by_sets: {1: 8.5, 4: 3.3, 16: 2.1} (cycles per line)
/// and conflict_store_cy_by_sets (per store), sorted by sets.
static void readConflictTable(Reader &R, const YAML::Node &E, const std::string &P,
                              const char *Key, const char *Unit,
                              std::vector<std::pair<unsigned, double>> &Out) {
  readTable<unsigned>(
      R, E, P, Key,
      std::string("expected a mapping of sets reached to cycles per ") + Unit +
          ", e.g. {1: 8.5, 4: 3.3, 16: 2.1}",
      [](const std::string &Sets, std::string &Err) -> std::optional<unsigned> {
        char *End = nullptr;
        unsigned long N = std::strtoul(Sets.c_str(), &End, 10);
        if (!Sets.empty() && !*End && N && N <= (1u << 20))
          return unsigned(N);
        Err = "expected a number of sets (1, 2, 4...)";
        return std::nullopt;
      },
      [](unsigned Sets) { return "two figures for " + std::to_string(Sets) + " sets"; }, Out);
}

void readCaches(Reader &R, const YAML::Node &N, std::vector<CacheLevel> &Out) {
  if (!N.IsSequence() || N.size() == 0) {
    R.error(N, "caches", "expected a non-empty list of cache levels, L1 first");
    return;
  }
  std::set<std::string> Seen;
  for (size_t I = 0; I < N.size(); ++I) {
    const YAML::Node E = N[I];
    CacheLevel C;
    std::string P = "caches." + std::to_string(I);
    if (E.IsMap() && E["name"].IsScalar())
      P = "caches." + E["name"].Scalar();
    if (!R.checkMap(E, P, {"name", "size", "ways", "line", "latency_cy",
                           "bytes_per_cycle_from_next", "shared_by", "policy",
                           "prefetch", "write_allocate", "misses_in_flight",
                           "prefetch_max_stride", "gathers_prefetched",
                           "bytes_per_cycle_to_next",
                           "bytes_per_cycle_from_next_by_set",
                           "bytes_per_cycle_from_next_descending",
                           "bytes_per_cycle_from_next_strided",
                           "conflict_miss_cy_by_sets", "conflict_store_cy_by_sets",
                           "conflict_store_alone_cy_by_sets"}))
      continue;
    C.Name = R.str(E, "name", P, true).value_or("");
    if (!C.Name.empty() && !Seen.insert(C.Name).second)
      R.error(E["name"], P + ".name", "duplicate cache level '" + C.Name + "'");
    auto Size = R.size(E, "size", P, true);
    auto Ways = R.count(E, "ways", P, true);
    auto Line = R.count(E, "line", P, true);
    C.LatencyCy = R.num(E, "latency_cy", P, false).value_or(0); // 0: unknown
    C.BytesPerCycleFromNext = R.num(E, "bytes_per_cycle_from_next", P, false);
    C.BytesPerCycleToNext = R.num(E, "bytes_per_cycle_to_next", P, false);
    if (I + 1 < N.size()) {
      readFromNextBySet(R, E, P, C);
      C.FromNextDescending = R.num(E, "bytes_per_cycle_from_next_descending", P, false);
      C.FromNextStrided = R.num(E, "bytes_per_cycle_from_next_strided", P, false);
      readConflictTable(R, E, P, "conflict_miss_cy_by_sets", "line", C.ConflictMissCyBySets);
      readConflictTable(R, E, P, "conflict_store_cy_by_sets", "store", C.ConflictStoreCyBySets);
      readConflictTable(R, E, P, "conflict_store_alone_cy_by_sets", "store",
                        C.ConflictStoreAloneCyBySets);
    }
    // The last level's link is memory's, whose bandwidth memory states.
    for (auto [Key, What] : {std::pair{"bytes_per_cycle_to_next", "write-backs go to"},
                             std::pair{"bytes_per_cycle_from_next_by_set", "fills come from"},
                             std::pair{"bytes_per_cycle_from_next_descending", "fills come from"},
                             std::pair{"bytes_per_cycle_from_next_strided", "fills come from"},
                             std::pair{"conflict_miss_cy_by_sets", "refills come from"},
                             std::pair{"conflict_store_cy_by_sets", "refills come from"},
                             std::pair{"conflict_store_alone_cy_by_sets", "refills come from"}})
      if (I + 1 == N.size() && E[Key] && !E[Key].IsNull())
        R.error(E[Key], P + "." + Key,
                std::string("the last level's ") + What + " memory, whose bandwidth is memory's");
    C.SharedBy = R.count(E, "shared_by", P, false).value_or(1);
    C.Policy = R.choice<CachePolicy>(E, "policy", P,
                                     {{"inclusive", CachePolicy::Inclusive},
                                      {"non-inclusive", CachePolicy::NonInclusive},
                                      {"victim", CachePolicy::Victim}})
                   .value_or(CachePolicy::Inclusive);
    C.Prefetch = R.choice<PrefetchKind>(E, "prefetch", P,
                                        {{"none", PrefetchKind::None},
                                         {"next-line", PrefetchKind::NextLine},
                                         {"stream", PrefetchKind::Stream}})
                     .value_or(PrefetchKind::None);
    C.WriteAllocate = R.boolean(E, "write_allocate", P).value_or(true);
    C.MissesInFlight = R.count(E, "misses_in_flight", P, false);
    C.PrefetchMaxStride = R.count(E, "prefetch_max_stride", P, false, Reader::NonNegative).value_or(0);
    C.GathersPrefetched = R.boolean(E, "gathers_prefetched", P).value_or(false);
    if (Line && (*Line & (*Line - 1)))
      R.error(E["line"], P + ".line", "line size must be a power of two, got " +
                                          std::to_string(*Line));
    if (Size && Ways && Line) {
      uint64_t WayBytes = uint64_t(*Ways) * *Line;
      if (*Size % WayBytes != 0)
        R.error(E["ways"], P + ".ways",
                std::to_string(*Ways) + " ways of " + std::to_string(*Line) +
                    " B lines do not divide the size " + formatByteSize(*Size) +
                    " into whole sets");
      C.SizeBytes = *Size;
      C.Ways = *Ways;
      C.LineBytes = *Line;
    }
    if (I + 1 < N.size() && !C.BytesPerCycleFromNext)
      R.warning(E, P + ".bytes_per_cycle_from_next",
                "not given: the bandwidth from the next level into " + C.Name +
                    " is unknown, so Roofline and ECM leave that link unbounded");
    Out.push_back(std::move(C));
  }
  for (size_t I = 1; I < Out.size(); ++I) {
    if (Out[I].SizeBytes && Out[I].SizeBytes <= Out[I - 1].SizeBytes)
      R.warning(N[I]["size"], "caches." + Out[I].Name + ".size",
                "is not larger than " + Out[I - 1].Name);
    if (Out[I].LineBytes && Out[0].LineBytes && Out[I].LineBytes != Out[0].LineBytes)
      R.warning(N[I]["line"], "caches." + Out[I].Name + ".line",
                "differs from L1's line size; traffic is counted in " +
                    std::to_string(Out[0].LineBytes) + " B lines");
  }
}

void readSources(Reader &R, const YAML::Node &N, std::vector<SourceRef> &Out) {
  if (!N.IsSequence() || N.size() == 0) {
    R.error(N, "sources", "expected a non-empty list; every number needs a source");
    return;
  }
  for (size_t I = 0; I < N.size(); ++I) {
    const YAML::Node E = N[I];
    std::string P = "sources." + std::to_string(I);
    if (!R.checkMap(E, P, {"id", "cite", "covers"}))
      continue;
    SourceRef S;
    S.Id = R.str(E, "id", P, true).value_or("");
    S.Cite = R.str(E, "cite", P, true).value_or("");
    YAML::Node Cov = R.child(E, "covers", P, true);
    if (Cov.IsDefined() && !Cov.IsNull()) {
      if (!Cov.IsSequence()) {
        R.error(Cov, P + ".covers", "expected a list of key paths");
      } else {
        for (const auto &C : Cov)
          if (C.IsScalar())
            S.Covers.push_back(C.Scalar());
          else
            R.error(C, P + ".covers", "expected a key path such as caches.L1.size");
      }
    }
    Out.push_back(std::move(S));
  }
}

/// memory: the socket's and one core's bandwidths, the write-back rate, the
/// latency, a line from a cache beside memory streams, the library's rates.
void readMemory(Reader &R, const YAML::Node &Mem, MachineModel &M) {
  if (Mem.IsDefined() && !Mem.IsNull() &&
      R.checkMap(Mem, "memory", {"bandwidth_gbs", "sustained_gbs", "sustained_load_gbs",
                                 "sustained_update_gbs", "sustained_copy_gbs",
                                 "sustained_one_core_gbs", "one_core_writeback_gbs",
                                 "cache_line_cy", "latency_ns", "stride_latency_ns",
                                 "channels", "memcpy_one_core_gbs", "memset_one_core_gbs"})) {
    M.Memory.MemcpyOneCoreGBs = R.num(Mem, "memcpy_one_core_gbs", "memory", false);
    M.Memory.MemsetOneCoreGBs = R.num(Mem, "memset_one_core_gbs", "memory", false);
    M.Memory.BandwidthGBs = R.num(Mem, "bandwidth_gbs", "memory", true).value_or(0);
    M.Memory.SustainedGBs = R.num(Mem, "sustained_gbs", "memory", false);
    for (const SustainedKernel &K : sustainedKernels()) {
      std::optional<double> &Field = M.Memory.*K.Field;
      Field = R.num(Mem, K.Key, "memory", false);
      if (Field && *Field > M.Memory.BandwidthGBs)
        R.error(Mem[K.Key], std::string("memory.") + K.Key,
                "sustained bandwidth exceeds the theoretical bandwidth_gbs");
    }
    M.Memory.OneCoreGBs = R.num(Mem, "sustained_one_core_gbs", "memory", false);
    if (M.Memory.OneCoreGBs && *M.Memory.OneCoreGBs > M.Memory.effectiveGBs())
      R.error(Mem["sustained_one_core_gbs"], "memory.sustained_one_core_gbs",
              "one core's bandwidth exceeds the socket's (sustained_gbs, else bandwidth_gbs)");
    M.Memory.OneCoreWritebackGBs = R.num(Mem, "one_core_writeback_gbs", "memory", false);
    if (M.Memory.OneCoreWritebackGBs && *M.Memory.OneCoreWritebackGBs > M.Memory.effectiveGBs())
      R.error(Mem["one_core_writeback_gbs"], "memory.one_core_writeback_gbs",
              "one core's write-back rate exceeds the socket's bandwidth (sustained_gbs, else "
              "bandwidth_gbs)");
    M.Memory.CacheLineCy = R.num(Mem, "cache_line_cy", "memory", false, Reader::NonNegative);
    if (M.Memory.CacheLineCy && *M.Memory.CacheLineCy > 1000)
      R.error(Mem["cache_line_cy"], "memory.cache_line_cy",
              "more than 1000 cycles for a line from a cache: not a plausible figure");
    M.Memory.LatencyNs = R.num(Mem, "latency_ns", "memory", false);
    M.Memory.StrideLatencyNs = R.num(Mem, "stride_latency_ns", "memory", false);
    M.Memory.Channels = R.count(Mem, "channels", "memory", false);
    if (M.Memory.SustainedGBs && *M.Memory.SustainedGBs > M.Memory.BandwidthGBs)
      R.error(Mem["sustained_gbs"], "memory.sustained_gbs",
              "sustained bandwidth exceeds the theoretical bandwidth_gbs");
  }
}

/// tlb: the last level's entries, ways, page and miss costs, and the first
/// level's where the file gives them.
void readTlb(Reader &R, const YAML::Node &Root, MachineModel &M) {
  if (YAML::Node T = R.child(Root, "tlb", "", false); T.IsDefined() && !T.IsNull() &&
      R.checkMap(T, "tlb",
                 {"entries", "ways", "page", "load_miss_cy", "store_miss_cy", "l1_entries",
                  "l1_ways", "l1_load_miss_cy", "l1_store_miss_cy"})) {
    TlbModel Tlb;
    Tlb.Entries = R.count(T, "entries", "tlb", true).value_or(0);
    Tlb.Ways = R.count(T, "ways", "tlb", true).value_or(0);
    Tlb.PageBytes = R.size(T, "page", "tlb", true).value_or(4096);
    Tlb.LoadMissCy = R.num(T, "load_miss_cy", "tlb", true).value_or(0);
    Tlb.StoreMissCy = R.num(T, "store_miss_cy", "tlb", true).value_or(0);
    Tlb.L1Entries = R.count(T, "l1_entries", "tlb", false).value_or(0);
    Tlb.L1Ways = R.count(T, "l1_ways", "tlb", false).value_or(Tlb.L1Entries);
    Tlb.L1LoadMissCy = R.num(T, "l1_load_miss_cy", "tlb", false, Reader::NonNegative).value_or(0);
    Tlb.L1StoreMissCy =
        R.num(T, "l1_store_miss_cy", "tlb", false, Reader::NonNegative).value_or(0);
    if (Tlb.L1Entries && (!Tlb.L1Ways || Tlb.L1Entries % Tlb.L1Ways))
      R.error(T["l1_ways"], "tlb.l1_ways", "l1_entries must be a multiple of l1_ways");
    else if (Tlb.L1Entries && Tlb.L1Entries >= Tlb.Entries)
      R.error(T["l1_entries"], "tlb.l1_entries",
              "the first-level TLB must hold fewer entries than the last level (entries)");
    else if (Tlb.Ways && Tlb.Entries % Tlb.Ways)
      R.error(T["ways"], "tlb.ways", "entries must be a multiple of ways");
    else if (Tlb.PageBytes & (Tlb.PageBytes - 1))
      R.error(T["page"], "tlb.page", "the page size must be a power of two");
    else if (Tlb.Entries && Tlb.Ways)
      M.Tlb = Tlb;
  }
}

/// cpuid: the vendor, family and models a host must report to match, and
/// the features it must have.
void readCpuid(Reader &R, const YAML::Node &Root, MachineModel &M) {
  if (YAML::Node C = R.child(Root, "cpuid", "", false); C.IsDefined() && !C.IsNull()) {
    if (R.checkMap(C, "cpuid", {"vendor", "family", "models", "features"})) {
      CpuidMatch Match;
      Match.Vendor = R.str(C, "vendor", "cpuid", true).value_or("");
      Match.Family = R.count(C, "family", "cpuid", true).value_or(0);
      YAML::Node Models = R.child(C, "models", "cpuid", true);
      if (Models.IsSequence()) {
        for (const auto &E : Models) {
          unsigned long long V;
          if (E.IsScalar() && !llvm::StringRef(E.Scalar()).getAsInteger(0, V))
            Match.Models.push_back(unsigned(V));
          else
            R.error(E, "cpuid.models", "expected an integer such as 0x3f");
        }
      } else if (Models.IsDefined()) {
        R.error(Models, "cpuid.models", "expected a list of model numbers");
      }
      if (YAML::Node F = R.child(C, "features", "cpuid", false); F.IsDefined()) {
        if (F.IsSequence())
          for (const auto &E : F)
            if (E.IsScalar() && !E.Scalar().empty())
              Match.Features.push_back(E.Scalar());
            else
              R.error(E, "cpuid.features", "expected an LLVM feature name such as avx10.1-256");
        else
          R.error(F, "cpuid.features", "expected a list of LLVM feature names");
      }
      M.Cpuid = Match;
    }
  }
}

} // namespace perfmodel::machine_yaml

//===- MachineViews.cpp - Machine list and diff views ---------------------===//
//
// Read-only views of loaded machine models: the one-line-per-model table of
// `machine list` (also the Markdown table of docs/machine-models.md) and the
// field-by-field `machine diff`.
//
//===----------------------------------------------------------------------===//
#include "ViewHelpers.h"
#include "perfmodel/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace perfmodel;
using perfmodel::views::fromNextBySetText;

namespace {

std::string cacheSummary(const CacheLevel &L) {
  std::string S = formatBytes(double(L.SizeBytes));
  if (L.SharedBy > 1)
    S += "/" + std::to_string(L.SharedBy);
  return S;
}

/// A by-sets table as the file writes it: "{1: 8.1, 4: 3.37}".
std::string bySetsText(const std::vector<std::pair<unsigned, double>> &T) {
  std::string S;
  for (const auto &[Sets, Cy] : T)
    S += (S.empty() ? "{" : ", ") + std::to_string(Sets) + ": " + formatNumber(Cy, 4);
  return S.empty() ? "unstated" : S + "}";
}

std::string opt(const std::optional<double> &V, const char *Unit) {
  return V ? formatNumber(*V, 4) + Unit : "unknown";
}

} // namespace

std::vector<std::vector<std::string>>
perfmodel::machineListRows(const std::vector<MachineModel> &Ms) {
  std::vector<std::vector<std::string>> Rows = {
      {"model", "name", "GHz", "cores", "SIMD", "DP flop/cy", "DP GFLOP/s core",
       "DP GFLOP/s node", "caches (per instance/shared by)", "memory GB/s", "LLVM CPU",
       "file"}};
  std::vector<const MachineModel *> Sorted;
  for (const MachineModel &M : Ms)
    Sorted.push_back(&M);
  std::stable_sort(Sorted.begin(), Sorted.end(), [](const MachineModel *A, const MachineModel *B) {
    return llvm::sys::path::filename(A->File) < llvm::sys::path::filename(B->File);
  });
  for (const MachineModel *MP : Sorted) {
    const MachineModel &M = *MP;
    unsigned Cores = M.CoresPerSocket * M.Sockets;
    double Core = M.Core.PeakFlopsPerCycleDouble * M.ClockGHz;
    std::string Caches;
    for (const CacheLevel &L : M.Caches)
      Caches += (Caches.empty() ? "" : ", ") + L.Name + " " + cacheSummary(L);
    std::string Mem = formatNumber(M.Memory.BandwidthGBs * M.Sockets, 4);
    if (M.Memory.SustainedGBs)
      Mem += " (" + formatNumber(*M.Memory.SustainedGBs * M.Sockets, 4) + " sust.)";
    std::string Simd = std::to_string(M.Core.SimdBits);
    if (M.Core.pipeBits() != M.Core.SimdBits)
      Simd += "/" + std::to_string(M.Core.pipeBits());
    Rows.push_back({M.Aliases.empty() ? llvm::sys::path::stem(M.File).str() : M.Aliases[0],
                    M.Name, formatNumber(M.ClockGHz, 4),
                    std::to_string(M.CoresPerSocket) + (M.Sockets > 1 ? "x" + std::to_string(M.Sockets) : ""),
                    Simd, formatNumber(M.Core.PeakFlopsPerCycleDouble, 4),
                    formatNumber(Core, 4), formatNumber(Core * Cores, 4), Caches, Mem, M.Cpu,
                    llvm::sys::path::filename(M.File).str()});
  }
  return Rows;
}

void perfmodel::printMachineList(llvm::raw_ostream &OS, const std::vector<MachineModel> &Ms,
                                 bool Markdown) {
  std::vector<std::vector<std::string>> Rows = machineListRows(Ms);
  if (!Markdown) {
    printTextTable(OS, Rows, 0);
    return;
  }
  for (size_t R = 0; R < Rows.size(); ++R) {
    OS << "|";
    for (const std::string &C : Rows[R])
      OS << " " << (R && &C == &Rows[R].back() ? "`" + C + "`" : C) << " |";
    OS << "\n";
    if (R == 0) {
      OS << "|";
      for (size_t C = 0; C < Rows[0].size(); ++C)
        OS << (C >= 2 && C <= 7 ? "---:|" : "---|");
      OS << "\n";
    }
  }
}

std::vector<std::pair<std::string, std::string>>
perfmodel::machineFields(const MachineModel &M) {
  std::vector<std::pair<std::string, std::string>> F;
  auto N = [](double V) { return formatNumber(V, 6); };
  F.push_back({"name", M.Name});
  F.push_back({"llvm.triple", M.Triple});
  F.push_back({"llvm.cpu", M.Cpu});
  F.push_back({"clock_ghz", N(M.ClockGHz)});
  F.push_back({"base_clock_ghz", opt(M.BaseClockGHz, "")});
  F.push_back({"cores_per_socket", std::to_string(M.CoresPerSocket)});
  F.push_back({"sockets", std::to_string(M.Sockets)});
  const CoreModel &C = M.Core;
  F.push_back({"core.issue_width", std::to_string(C.IssueWidth)});
  F.push_back({"core.reorder_buffer",
               C.ReorderBuffer ? std::to_string(C.ReorderBuffer) : std::string("unknown")});
  F.push_back({"core.load_queue",
               C.LoadQueue ? std::to_string(C.LoadQueue) : std::string("unstated")});
  F.push_back({"core.store_queue",
               C.StoreQueue ? std::to_string(C.StoreQueue) : std::string("unstated")});
  F.push_back({"core.branch_mispredict_cy",
               C.BranchMispredictCycles ? N(C.BranchMispredictCycles) : std::string("unstated")});
  F.push_back({"core.branch_pattern_capacity",
               C.BranchPatternCapacity ? N(C.BranchPatternCapacity) : std::string("unstated")});
  F.push_back({"core.simd_bits", std::to_string(C.SimdBits)});
  F.push_back({"core.fp_pipe_bits", std::to_string(C.pipeBits())});
  F.push_back({"core.fma_units", std::to_string(C.FmaUnits)});
  F.push_back({"core.peak_flops_per_cycle.double", N(C.PeakFlopsPerCycleDouble)});
  F.push_back({"core.peak_flops_per_cycle.single", N(C.PeakFlopsPerCycleSingle)});
  std::string Pipes;
  for (const FpUnit &U : C.FpUnits) {
    std::string Ops = std::string(U.Fma ? " fma" : "") + (U.Mul ? " mul" : "") +
                      (U.Add ? " add" : "");
    Pipes += "[" + Ops.substr(1) + "]";
  }
  F.push_back({"core.fp_units", Pipes.empty() ? "unstated" : Pipes});
  F.push_back({"core.loads_per_cycle", std::to_string(C.LoadsPerCycle)});
  F.push_back({"core.load_bytes_per_cycle", N(C.LoadBytesPerCycle)});
  F.push_back({"core.vector_load_slots", C.VectorLoadSlots ? N(C.VectorLoadSlots) : "unstated"});
  F.push_back({"core.stores_per_cycle", std::to_string(C.StoresPerCycle)});
  F.push_back({"core.store_bytes_per_cycle", N(C.StoreBytesPerCycle)});
  F.push_back({"core.l1_bytes_per_cycle", C.L1BytesPerCycle ? N(C.L1BytesPerCycle) : "unstated"});
  F.push_back({"core.unaligned_vector_cost", N(C.UnalignedVectorCost)});
  F.push_back({"core.line_split_load_cost",
               C.LineSplitLoadCost ? N(C.LineSplitLoadCost) : "unstated"});
  F.push_back({"core.line_split_store_cost",
               C.LineSplitStoreCost ? N(C.LineSplitStoreCost) : "unstated"});
  for (const auto &[Q, Size] : llvmSchedulerQueues(M.Triple, M.Cpu)) {
    auto Given = C.SchedulerQueues.find(Q);
    F.push_back({"core.scheduler_queues." + Q,
                 Given != C.SchedulerQueues.end() ? std::to_string(Given->second)
                                                  : std::to_string(Size) + " (LLVM)"});
    if (auto Also = C.QueueAlsoHolds.find(Q); Also != C.QueueAlsoHolds.end())
      F.push_back({"core.queue_also_holds." + Q, llvm::join(Also->second, ", ")});
  }
  for (const auto &[Port, Units] : C.PortUnits)
    F.push_back({"core.port_units." + Port, std::to_string(Units)});
  for (const auto &[Symbol, Cy] : C.CallCycles)
    F.push_back({"core.call_cy." + Symbol, N(Cy)});
  F.push_back({"core.call_return_cy", C.CallReturnCycles ? N(C.CallReturnCycles) : "unstated"});
  if (C.ParallelLoopUs.empty())
    F.push_back({"core.parallel_loop_us", "unstated"});
  for (const auto &[Threads, Us] : C.ParallelLoopUs)
    F.push_back({"core.parallel_loop_us." + std::to_string(Threads), N(Us)});
  if (const std::optional<FrontEndModel> &E = C.FrontEnd) {
    auto B = [](bool V) { return std::string(V ? "true" : "false"); };
    std::string Unroll;
    for (size_t I = 1; I < E->LsdUnroll.size(); ++I)
      Unroll += (I > 1 ? " " : "") + std::to_string(E->LsdUnroll[I]);
    const std::string P = "core.front_end.";
    for (const auto &[K, V] : std::vector<std::pair<const char *, std::string>>{
             {"predecode_width", std::to_string(E->PredecodeWidth)},
             {"predecode_block_bytes", std::to_string(E->PredecodeBlock)},
             {"lcp_penalty_cy", std::to_string(E->LcpPenalty)},
             {"decoders", std::to_string(E->Decoders)},
             {"instruction_queue", std::to_string(E->IqSize)},
             {"predecode_to_decode_cy", std::to_string(E->PredecodeDecodeDelay)},
             {"rename_width", std::to_string(E->IssueWidth)},
             {"fast_pointer_chase_below", std::to_string(E->FastChaseBelow)},
             {"store_forward_cy", N(E->StoreForward)},
             {"locked_rmw_cy", N(E->LockedCycles)},
             {"lsd_uops", std::to_string(E->LsdUops)},
             {"lsd_unroll", Unroll.empty() ? "none" : Unroll},
             {"uop_cache_width", std::to_string(E->DsbWidth)},
             {"uop_cache_window_bytes", std::to_string(E->DsbWindowBytes)},
             {"fusible_in_last_decoder", B(E->FusibleInLastDecoder)},
             {"unlaminate_all_indexed", B(E->UnlaminateAllIndexed)},
             {"move_elimination", B(E->MoveElimination)}})
      F.push_back({P + K, V});
  } else {
    F.push_back({"core.front_end", "none (not an Intel core the library lists)"});
  }
  for (const CacheLevel &L : M.Caches) {
    std::string P = "caches." + L.Name + ".";
    F.push_back({P + "size", formatByteSize(L.SizeBytes)});
    F.push_back({P + "ways", std::to_string(L.Ways)});
    F.push_back({P + "line", std::to_string(L.LineBytes)});
    F.push_back({P + "latency_cy", L.LatencyCy > 0 ? N(L.LatencyCy) : "unknown"});
    F.push_back({P + "bytes_per_cycle_from_next", opt(L.BytesPerCycleFromNext, "")});
    if (!L.FromNextBySet.empty())
      F.push_back({P + "bytes_per_cycle_from_next_by_set", fromNextBySetText(L)});
    F.push_back({P + "shared_by", std::to_string(L.SharedBy)});
    F.push_back({P + "policy", cachePolicyName(L.Policy)});
    F.push_back({P + "prefetch", prefetchName(L.Prefetch)});
    F.push_back({P + "write_allocate", L.WriteAllocate ? "true" : "false"});
    F.push_back({P + "misses_in_flight",
                 L.MissesInFlight ? std::to_string(*L.MissesInFlight) : "unstated"});
    if (L.PrefetchMaxStride)
      F.push_back({P + "prefetch_max_stride", std::to_string(L.PrefetchMaxStride)});
    if (L.GathersPrefetched)
      F.push_back({P + "gathers_prefetched", "true"});
    if (!L.ConflictMissCyBySets.empty() || !L.ConflictStoreCyBySets.empty()) {
      F.push_back({P + "conflict_miss_cy_by_sets", bySetsText(L.ConflictMissCyBySets)});
      F.push_back({P + "conflict_store_cy_by_sets", bySetsText(L.ConflictStoreCyBySets)});
    }
  }
  F.push_back({"memory.bandwidth_gbs", N(M.Memory.BandwidthGBs)});
  F.push_back({"memory.sustained_gbs", opt(M.Memory.SustainedGBs, "")});
  for (const SustainedKernel &K : sustainedKernels())
    if (const std::optional<double> &V = M.Memory.*K.Field)
      F.push_back({std::string("memory.") + K.Key, formatNumber(*V, 4)});
  F.push_back({"memory.sustained_one_core_gbs", opt(M.Memory.OneCoreGBs, "")});
  F.push_back({"memory.one_core_writeback_gbs",
               M.Memory.OneCoreWritebackGBs ? formatNumber(*M.Memory.OneCoreWritebackGBs, 4)
                                            : "as the fills"});
  F.push_back({"memory.cache_line_cy",
               M.Memory.CacheLineCy ? formatNumber(*M.Memory.CacheLineCy, 4) : "overlapped"});
  F.push_back({"memory.channels",
               M.Memory.Channels ? std::to_string(*M.Memory.Channels) : "unknown"});
  F.push_back({"memory.latency_ns", opt(M.Memory.LatencyNs, "")});
  F.push_back({"memory.stride_latency_ns", opt(M.Memory.StrideLatencyNs, "")});
  F.push_back({"ecm.overlap", overlapRuleName(M.EcmOverlap)});
  std::string Shares = M.tnolSerialShareText();
  F.push_back({"ecm.tnol_serial_share", Shares.empty() ? "none" : Shares});
  std::string Chain;
  for (const auto &[Level, Share] : M.EcmRecurrenceSerialShare)
    Chain += (Chain.empty() ? "" : ", ") + Level + " " + formatNumber(Share);
  F.push_back({"ecm.recurrence_serial_share", Chain.empty() ? "none" : Chain});
  // Derived figures, so a diff also shows what the changes amount to.
  double Node = C.PeakFlopsPerCycleDouble * M.ClockGHz * M.CoresPerSocket * M.Sockets;
  auto D = [](double V) { return formatNumber(V, 4); };
  F.push_back({"derived: DP GFLOP/s per core", D(C.PeakFlopsPerCycleDouble * M.ClockGHz)});
  F.push_back({"derived: DP GFLOP/s per node", D(Node)});
  F.push_back({"derived: memory GB/s per node", D(M.Memory.effectiveGBs() * M.Sockets)});
  F.push_back({"derived: memory GB/s of one core",
               M.Memory.oneCoreGBs() ? D(*M.Memory.oneCoreGBs()) + " (" +
                                           M.Memory.oneCoreSource() + ")"
                                     : "the socket's (no measured figure, no Little's law inputs)"});
  if (M.Memory.effectiveGBs() > 0)
    F.push_back({"derived: ridge flop/B (node, DP)",
                 D(Node / (M.Memory.effectiveGBs() * M.Sockets))});
  return F;
}

unsigned perfmodel::printMachineDiff(llvm::raw_ostream &OS, const MachineModel &A,
                                     const MachineModel &B) {
  auto FA = machineFields(A), FB = machineFields(B);
  std::vector<std::vector<std::string>> Rows = {
      {"field", "A: " + llvm::sys::path::filename(A.File).str(),
       "B: " + llvm::sys::path::filename(B.File).str()}};
  auto Find = [](const std::vector<std::pair<std::string, std::string>> &F,
                 const std::string &K) -> std::string {
    for (const auto &[Key, V] : F)
      if (Key == K)
        return V;
    return "-";
  };
  // Keys of A in order, then those only B has (caches A lacks).
  std::vector<std::string> Keys;
  for (const auto &[K, V] : FA)
    Keys.push_back(K);
  for (const auto &[K, V] : FB)
    if (std::find(Keys.begin(), Keys.end(), K) == Keys.end())
      Keys.push_back(K);
  unsigned Differ = 0;
  for (const std::string &K : Keys) {
    std::string VA = Find(FA, K), VB = Find(FB, K);
    if (VA == VB)
      continue;
    ++Differ;
    Rows.push_back({K, VA, VB});
  }
  OS << "A: " << A.Name << "\nB: " << B.Name << "\n";
  for (const MachineModel *M : {&A, &B})
    for (const std::string &S : M->Overrides)
      OS << (M == &A ? "A" : "B") << ": --set " << S << "\n";
  if (!Differ) {
    OS << "no differences\n";
    return 0;
  }
  printTextTable(OS, Rows, 2);
  OS << Differ << " field(s) differ\n";
  return Differ;
}

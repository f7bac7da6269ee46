//===- BlockVerdict.cpp - The list schedule and what bounds a block -------===//
//
// The last steps: the cycles per iteration (the largest bound), the list
// schedule over the core's queues, the bottleneck and the advice that goes
// with it, and the PPR paper's instruction classes.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace perfmodel;
using namespace perfmodel::block;

namespace perfmodel::block {

/// PPR's classes of the instructions (their FP class from decode).
InstrClasses instrClasses(const std::vector<InstrCost> &Instrs) {
  InstrClasses K;
  for (const InstrCost &C : Instrs) {
    K.Fma += C.Fp == InstrCost::FpOp::Fma;
    K.Add += C.Fp == InstrCost::FpOp::Add;
    K.Mul += C.Fp == InstrCost::FpOp::Mul;
    K.Load += C.MayLoad;
    K.Store += C.MayStore;
  }
  return K;
}

/// The FP class by mnemonic: x86 (v)add/sub/mul/fmadd.. on ss/sd/ps/pd,
/// AArch64 fadd/fsub/fmul/fmla/fmadd...
InstrCost::FpOp fpClass(StringRef Text) {
  using FpOp = InstrCost::FpOp;
  StringRef Mn = Text.split(' ').first;
  bool X86Fp = Mn.ends_with("ps") || Mn.ends_with("pd") || Mn.ends_with("ss") ||
               Mn.ends_with("sd");
  StringRef Op = X86Fp && Mn.starts_with("v") ? Mn.drop_front() : Mn;
  if (X86Fp ? (Op.starts_with("fmadd") || Op.starts_with("fmsub") ||
               Op.starts_with("fnmadd") || Op.starts_with("fnmsub"))
            : (Mn == "fmla" || Mn == "fmls" || Mn == "fmadd" || Mn == "fmsub" ||
               Mn == "fnmadd" || Mn == "fnmsub"))
    return FpOp::Fma;
  if (X86Fp ? (Op.starts_with("add") || Op.starts_with("sub")) : (Mn == "fadd" || Mn == "fsub"))
    return FpOp::Add;
  if (X86Fp ? Op.starts_with("mul") : Mn == "fmul")
    return FpOp::Mul;
  return FpOp::None;
}

/// The cycles per iteration (the largest bound) and the list schedule over
/// the core's scheduler, load and store queues, noted when it needs more.
void Block::schedule() {
  const size_t N = Insts.size();
  R.Cycles = std::max({R.PortBound, R.FrontEndBound, R.RecurrenceBound});
  // An iteration's own dependence chain (no loop-carried edge in it) that
  // the bounds leave to the overlap of iterations: the overlap needs about
  // chain / bound iterations in flight, their uops in the reorder buffer.
  // Where that is more than it holds (Little's law: chain x uops / ROB
  // above the bound), the window binds, which only the list schedule sees
  // (a 9 x 9 convolution's 81 serial adds a pixel). A loop body's, costed
  // per instruction; a trace's whole-row figures are set against their own
  // bodies (executeNest).
  const double Chain = FiguresOnly || !O.Rob || !R.Uops ? 0 : iterationChain();
  const bool WindowBinds = Chain * R.Uops / O.Rob > R.Cycles * (1 + 1e-9);
  if (!O.ListSchedule && !O.DeferBodySchedule) {
    R.ScheduledCycles = 0; // bounds alone: nothing to schedule, now or later
    R.BodyScheduled = false;
    return;
  }
  SchedQueues Q;
  if (O.Rob && O.SchedulerQueues) { // the window model: queues next to the ROB
    std::vector<std::vector<unsigned>> Leaves;
    for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I)
      if (const MCProcResourceDesc *D = SM.getProcResource(I); D->BufferSize > 0) {
        auto Given = O.QueueSizes.find(D->Name);
        Q.Size.push_back(Given != O.QueueSizes.end() ? Given->second : unsigned(D->BufferSize));
        Q.UntilRetire.push_back(false);
        Leaves.push_back(PM.Leaves.at(I));
        // Resources whose operations the file says wait here too.
        if (auto Also = O.QueueAlsoHolds.find(D->Name); Also != O.QueueAlsoHolds.end())
          for (unsigned J = 1; J < SM.getNumProcResourceKinds(); ++J)
            if (llvm::is_contained(Also->second, SM.getProcResource(J)->Name))
              for (unsigned L : PM.Leaves.at(J))
                if (!llvm::is_contained(Leaves.back(), L))
                  Leaves.back().push_back(L);
        llvm::sort(Leaves.back());
      }
    Q.Schedulers = !Q.Size.empty();
    Q.Of.resize(N);
    for (size_t I = 0; I < N; ++I)
      for (size_t B = 0; B < Leaves.size(); ++B)
        if (std::any_of(R.Instrs[I].Demands.begin(), R.Instrs[I].Demands.end(),
                        [&](const auto &D) { return subset(D.first, Leaves[B]); }))
          Q.Of[I].push_back(unsigned(B));
  }
  if (O.Rob) { // the load and store queues, entries held until retirement
    Q.Of.resize(N);
    for (auto [Size, Store] : {std::pair{O.LoadQueue, false}, std::pair{O.StoreQueue, true}}) {
      if (!Size)
        continue;
      unsigned B = unsigned(Q.Size.size());
      Q.Size.push_back(Size);
      Q.UntilRetire.push_back(true);
      for (size_t I = 0; I < N; ++I)
        if (Store ? R.Instrs[I].MayStore : R.Instrs[I].MayLoad)
          Q.Of[I].push_back(B);
    }
  }
  if (!O.ListSchedule && !WindowBinds) {
    R.ScheduledCycles = 0;
    R.BodyScheduled = false; // until scheduleBody runs what is set up here
    // Kept for scheduleBody: what the schedule reads, owned.
    auto P = std::make_shared<PendingSchedule>();
    P->Instrs.resize(N);
    for (size_t I = 0; I < N; ++I) {
      P->Instrs[I].Latency = R.Instrs[I].Latency;
      P->Instrs[I].Demands = R.Instrs[I].Demands;
    }
    P->PortUnits = R.PortUnits;
    P->In = In;
    P->Queues = std::move(Q);
    P->Issue = Issue;
    P->Deliver = Delivered;
    P->Width = Width;
    P->Rob = O.Rob;
    P->Cycles = R.Cycles;
    if (!R.Notes.empty())
      P->NoteBefore = R.Notes.back();
    R.Pending = std::move(P);
    return;
  }
  ScheduleInput SI;
  SI.Instrs = &R.Instrs;
  SI.PortUnits = &R.PortUnits;
  SI.In = &In;
  SI.Width = Width;
  SI.Rob = O.Rob;
  SI.Queues = &Q;
  SI.Issue = &Issue;
  SI.Deliver = Delivered.empty() ? nullptr : &Delivered;
  R.ScheduledCycles = listSchedule(SI);
  R.BodyScheduled = true; // run now (the window binds): nothing left for scheduleBody
  if (WindowBinds && R.ScheduledCycles > R.Cycles * (1 + 1e-9)) {
    R.Notes.push_back("an iteration's own dependence chain is " + shortNumber(Chain) +
                      " cy; to overlap it, the " + std::to_string(R.Uops) +
                      "-uop iterations would need about " +
                      shortNumber(Chain * R.Uops / R.Cycles) +
                      " uops in flight, more than the " + std::to_string(O.Rob) +
                      "-uop reorder buffer holds: the list schedule's " +
                      shortNumber(R.ScheduledCycles) + " cy per iteration, not the bounds' " +
                      shortNumber(R.Cycles));
    R.Cycles = R.ScheduledCycles;
    WindowBound = true;
    return;
  }
  if (std::string Note = listScheduleNote(R.ScheduledCycles, R.Cycles); !Note.empty())
    R.Notes.push_back(std::move(Note));
}

double Block::iterationChain() const {
  // Longest path through the edges within one iteration (producers at
  // positions N and above in the second iteration's inputs), from the
  // first start to the last completion.
  const size_t N = Insts.size();
  std::vector<double> Start(N, 0);
  double Longest = 0;
  for (size_t I = 0; I < N; ++I) {
    for (const Edge &E : In[N + I])
      if (E.From >= N && E.From - N < I)
        Start[I] = std::max(Start[I], Start[E.From - N] + E.Lat);
    Longest = std::max(Longest, Start[I] + std::max(1.0, R.Instrs[I].Latency));
  }
  return Longest;
}

/// The bottleneck and the advice for it. On a tie the ports win: more
/// independent chains would not help.
void Block::verdict() {
  const size_t N = Insts.size();
  if (WindowBound) {
    R.Bottleneck = InCoreBound::Latency;
    R.Advice = "an iteration's own dependence chain, which the reorder buffer cannot "
               "overlap with enough other iterations: split it into independent chains "
               "(partial sums, reassociation) or shorten it";
    return;
  }
  if (R.Cycles == R.RecurrenceBound && R.RecurrenceBound > R.PortBound &&
      R.RecurrenceBound > 0) {
    R.Bottleneck = InCoreBound::Recurrence;
    std::string Chain;
    for (unsigned Idx : R.CriticalChain)
      Chain += (Chain.empty() ? "" : " -> ") + R.Instrs[Idx].Text;
    double Other = std::max(R.PortBound, R.FrontEndBound);
    // Parallel chains like the critical one (same instruction, same cycle
    // length): together they need Chains x Rec / Other independent chains.
    unsigned Chains = 0;
    if (!R.CriticalChain.empty()) {
      StringRef Head = StringRef(R.Instrs[R.CriticalChain.front()].Text).split(' ').first;
      for (size_t I = 0; I < N; ++I)
        if (std::fabs(OwnCycle[I] - R.RecurrenceBound) < 1e-9 &&
            StringRef(R.Instrs[I].Text).split(' ').first == Head)
          ++Chains;
    }
    // Instructions of that kind on the critical cycle itself are one chain.
    unsigned OnChain = 0;
    if (!R.CriticalChain.empty()) {
      StringRef Head = StringRef(R.Instrs[R.CriticalChain.front()].Text).split(' ').first;
      for (unsigned Idx : R.CriticalChain)
        OnChain += StringRef(R.Instrs[Idx].Text).split(' ').first == Head;
    }
    Chains = std::max(1u, OnChain ? Chains / OnChain : Chains);
    unsigned Needed =
        Other > 0 ? unsigned(std::ceil(Chains * R.RecurrenceBound / Other - 1e-9)) : 0;
    R.Advice = "loop-carried dependence chain of " + shortNumber(R.RecurrenceBound) +
               " cy per iteration (" + Chain + ")";
    bool ThroughLock = llvm::any_of(R.CriticalChain, [&](unsigned I) { return Locked[I]; });
    bool ThroughStore =
        !ThroughLock && llvm::any_of(R.CriticalChain, [&](unsigned I) { return ThroughMemory[I]; });
    if (ThroughStore) {
      Needed = 0;
      R.Advice += ": the chain goes through memory (a store and a load of the same place "
                  "every iteration); keep the value in a register";
    }
    if (ThroughLock) {
      Needed = 0; // more chains do not help: every locked instruction waits for the last
      R.Advice += ": locked instructions serialise memory; keep partial results per "
                  "thread and combine them once instead of a locked update per iteration";
    }
    if (Chains > 1)
      R.Advice += ", " + std::to_string(Chains) + " such chains in parallel";
    if (Needed > Chains)
      R.Advice += ": use " + std::to_string(Needed) +
                  " independent chains (accumulators) to reach the " + shortNumber(Other) +
                  " cy per iteration the " +
                  (R.PortBound >= R.FrontEndBound ? "ports allow" : "front end allows");
  } else if (R.Cycles == R.PortBound) {
    R.Bottleneck = InCoreBound::Ports;
    R.Advice = "port-bound on " + R.PortBottleneck + " (" + shortNumber(R.PortBound) +
               " cy per iteration): remove work from " +
               (R.PortBottleneck.find(',') != std::string::npos ? "these ports" : "this port");
    if (R.PortKind == InCoreResult::PortLimit::L1Bytes)
      R.Advice = "bound by the " + R.PortBottleneck + ": " + shortNumber(R.PortBound) +
                 " cy per iteration; fewer bytes moved per iteration (narrower types, "
                 "values kept in registers) help, wider vectors do not";
    else if (R.PortKind == InCoreResult::PortLimit::LoadPipes)
      R.Advice = "bound by the " + R.PortBottleneck + ": " + shortNumber(R.PortBound) +
                 " cy per iteration; integer loads beside vector loads take their slots: "
                 "fewer reloads (spilled pointers and counters, loop-invariant values kept "
                 "in registers) or fewer vector bytes loaded help";
  } else {
    R.Bottleneck = InCoreBound::FrontEnd;
    R.Advice = "issue-bound: " + std::to_string(R.Uops) + " uops at " +
               std::to_string(Width) + " per cycle; fewer instructions per iteration help";
    if (R.CallReturnBound > 0 && R.CallReturnBound >= R.FrontEndBound - 1e-9)
      R.Advice = "call-bound: each call and return takes " + shortNumber(O.CallReturnCycles) +
                 " cy; let the compiler inline the callee (no noinline, static inline or "
                 "visible at the call) or call it once for many elements";
    else if (R.DecodeBound > 0 && R.DecodeBound >= R.FrontEndBound - 1e-9)
      R.Advice = "decode-bound: the legacy decoders need " + shortNumber(R.DecodeBound) +
                 " cy per iteration" +
                 (Lcps.empty() ? std::string(": fewer or shorter instructions (16 bytes are "
                                             "predecoded a cycle)")
                               : ": length-changing prefixes stall the predecoder; use "
                                 "32-bit operations or 8-bit immediates instead of 16-bit "
                                 "immediates");
  }
}

} // namespace perfmodel::block

const char *perfmodel::inCoreBoundName(InCoreBound B) {
  switch (B) {
  case InCoreBound::None:
    return "";
  case InCoreBound::Ports:
    return "ports";
  case InCoreBound::FrontEnd:
    return "front end";
  case InCoreBound::Recurrence:
    return "recurrence";
  case InCoreBound::Calls:
    return "calls";
  case InCoreBound::Nest:
    return "nest";
  case InCoreBound::Latency:
    return "latency";
  case InCoreBound::PortsAndTlb:
    return "ports and first-level TLB misses";
  case InCoreBound::Branches:
    return "branch mispredictions";
  }
  return "";
}

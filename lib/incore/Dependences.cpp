//===- Dependences.cpp - Register and memory dependences, recurrence ------===//
//
// The dependence graph over two iterations laid out in program order:
// register edges (read-advance, fast pointer chasing), memory edges
// (store-to-load forwarding, failed and masked forwarding, locked
// instructions), and the longest loop-carried cycle through them.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "MemoryDeps.h"

#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"

#include <algorithm>
#include <map>

using namespace llvm;
using namespace perfmodel;
using namespace perfmodel::block;

namespace perfmodel::block {

/// Register dependences over two iterations laid out in program order: each
/// use's edge from the last writer of an overlapping register, less the
/// consumer's read-advance.
void Block::registerEdges() {
  const size_t N = Insts.size();
  In.assign(2 * N, {});
  // Fast pointer chasing (Sandy Bridge to Skylake): a load whose address is
  // a register plus a small displacement, the register loaded by a plain
  // load, returns a cycle early (uiCA's rule, from measurements).
  std::vector<unsigned> FastChase(N, 0); // the base register of such a load
  std::vector<bool> ChaseSource(N, false);
  if (Legacy && Legacy->FastChaseBelow)
    for (size_t I = 0; I < N; ++I) {
      StringRef Nm = TB.MII->getName(Insts[I].getOpcode());
      ChaseSource[I] = Nm == "MOV64rm" || Nm == "MOV32rm" || Nm == "MOVSX64rm32" || Nm == "POP64r";
      if (!R.Instrs[I].MayLoad)
        continue;
      if (const std::optional<MemRef> &M = Mem[I];
          M && M->Base && !M->Index && !M->Segment && M->Disp >= 0 && M->Disp < int64_t(Legacy->FastChaseBelow))
        FastChase[I] = M->Base;
    }
  {
    // The last writer of an overlapping register before each use: the
    // latest definition of any of its register units (a long nest trace
    // would make a backward search per use quadratic).
    std::map<unsigned, std::pair<size_t, size_t>> LastDef; // unit -> (position, def)
    for (size_t Pos = 0; Pos < 2 * N; ++Pos) {
      size_t I = Pos % N;
      for (const RegUse &U : Uses[I]) {
        const std::pair<size_t, size_t> *Last = nullptr;
        for (MCRegUnit Unit : TB.MRI->regunits(U.Reg)) {
          auto It = LastDef.find(Unit);
          if (It != LastDef.end() && (!Last || It->second.first > Last->first))
            Last = &It->second;
        }
        if (!Last)
          continue;
        const RegDef &D = Defs[Last->first % N][Last->second];
        double Lat = D.Latency;
        if (Classes[I])
          Lat -= TB.STI->getReadAdvanceCycles(Classes[I], U.UseIdx, D.WriteResID);
        if (FastChase[I] && U.Reg == FastChase[I] && ChaseSource[Last->first % N])
          Lat -= 1;
        // A result leaving its bypass group (an FP add feeding a multiply)
        // takes the longer path.
        if (size_t P = Last->first % N; Group[P] >= 0 && Group[I] != Group[P])
          Lat += OutsideShift[P];
        // A folded load's ReadAdvance may exceed its producer's latency
        // (a 3-cycle add feeding `vaddsd xmm1, xmm1, [mem]`, 7 on znver3):
        // the load starts before the register is ready and the operation
        // follows the register by its own latency, so the edge may be
        // negative; the consumer still waits for its dispatch and ports.
        In[Pos].push_back({Last->first, Lat});
      }
      for (size_t DI = 0; DI < Defs[I].size(); ++DI)
        for (MCRegUnit Unit : TB.MRI->regunits(Defs[I][DI].Reg))
          LastDef[Unit] = {Pos, DI};
    }
  }
}

/// Whether a store (Intel syntax: "vmovsd qword ptr [rsp + 8], xmm1") writes
/// a vector register's data.
static bool vectorStore(llvm::StringRef Text) {
  size_t Close = Text.find(']');
  return Close != llvm::StringRef::npos && Text.drop_front(Close).contains("mm");
}

/// The latest load, among those FORWARDED from a vector register's store,
/// that the store at STORE waits for through register edges: the previous
/// link of a value the loop keeps going round through memory.
std::optional<size_t> Block::previousLink(size_t Store, const std::vector<bool> &Forwarded) {
  if (LinkSeen.size() < In.size())
    LinkSeen.assign(In.size(), 0);
  if (++LinkWalk == 0) { // wrapped: no walk has seen anything
    std::fill(LinkSeen.begin(), LinkSeen.end(), 0);
    LinkWalk = 1;
  }
  std::vector<size_t> &Work = LinkWork;
  Work.assign(1, Store);
  LinkSeen[Store] = LinkWalk;
  std::optional<size_t> Latest;
  while (!Work.empty()) {
    size_t X = Work.back();
    Work.pop_back();
    for (const SchedEdge &E : In[X]) {
      if (LinkSeen[E.From] == LinkWalk)
        continue;
      LinkSeen[E.From] = LinkWalk;
      // (a load of the first iteration by its second's: the first has no
      // store before it to read)
      size_t N = Insts.size();
      bool Was = Forwarded[E.From] || (E.From < N && Forwarded[E.From + N]);
      if (Was && R.Instrs[E.From % N].MayLoad)
        Latest = std::max(Latest.value_or(0), E.From);
      else
        Work.push_back(E.From);
    }
  }
  return Latest;
}

/// A load (position POS of the second iteration) whose value comes LAT < 0
/// cycles after the store at PPOS would let it start (memory renaming: sooner
/// than the load takes): its consumers wait for the store's inputs instead
/// of for the load, which may run ahead (a list schedule starts nothing
/// before its producers, so an edge into the load would hold the chain
/// back). False, and nothing changed, where an edge would reach further
/// back than the previous iteration.
bool Block::renameThroughMemory(size_t Pos, size_t PPos, double Lat) {
  const size_t N = Insts.size();
  // The store's inputs, as positions of the two iterations (a store in the
  // previous iteration: its template's inputs one iteration further back).
  const std::vector<SchedEdge> &Inputs = In[PPos >= N ? PPos : PPos + N];
  if (Inputs.empty())
    return false;
  std::vector<std::pair<size_t, SchedEdge>> Added;
  for (size_t Q = N; Q < 2 * N; ++Q)
    for (const SchedEdge &Use : In[Q]) {
      if (Use.From != Pos && Use.From + N != Pos)
        continue;
      size_t Back = (Use.From == Pos ? 0 : N) + (PPos >= N ? 0 : N);
      for (const SchedEdge &E : Inputs) {
        if (E.From < Back)
          return false;
        Added.push_back({Q, {E.From - Back, E.Lat + Lat + Use.Lat}});
      }
    }
  for (const auto &[Q, E] : Added)
    In[Q].push_back(E);
  return true;
}

/// Memory: a load whose bytes a store in this or the previous iteration
/// wrote gets them by store-to-load forwarding when the store covers it
/// (the value StoreForward cycles after the store's data), else after the
/// store commits (ForwardFail). A read-modify-write instruction's data is
/// ready a load and an operation after it starts. ForwardFail counts from
/// when the store can commit.
void Block::memoryEdges() {
  const size_t N = Insts.size();
  std::vector<MemAccess> Access =
      X86 ? abstractAccesses(Insts, R.Instrs, TB, O.SameInitialRegisters)
          : std::vector<MemAccess>(2 * N);
  unsigned Forwarded = 0, Failed = 0, MaskedFailed = 0;
  ThroughMemory.assign(N, false); // loads that read a store of the block
  std::vector<bool> ForwardedAt(2 * N, false); // positions so far that did
  double StoreForward = O.StoreForward.value_or(Legacy ? Legacy->StoreForward : 5);
  double VectorForward = O.StoreForwardVector.value_or(StoreForward);
  // Stores by the base of their address, in program order: a load looks
  // only at stores of its own base (nest traces have thousands of accesses).
  std::map<int64_t, std::vector<size_t>> StoresOf;
  for (size_t Pos = 0; Pos < 2 * N; ++Pos)
    if (R.Instrs[Pos % N].MayStore && Access[Pos].Known)
      StoresOf[Access[Pos].Base].push_back(Pos);
  for (size_t Pos = 0; Pos < 2 * N; ++Pos) {
    size_t I = Pos % N;
    if (!R.Instrs[I].MayLoad || !Access[Pos].Known)
      continue;
    auto Same = StoresOf.find(Access[Pos].Base);
    if (Same == StoresOf.end())
      continue;
    const std::vector<size_t> &Stores = Same->second;
    for (auto It = std::lower_bound(Stores.begin(), Stores.end(), Pos); It != Stores.begin();) {
      size_t PPos = *--It, P = PPos % N;
      if (Pos - PPos > N)
        break; // beyond the previous iteration
      if (!overlaps(Access[PPos], Access[Pos], O.SameInitialRegisters))
        continue;
      bool Masked = Access[PPos].Masked && !O.MaskedStoresForward;
      bool Covered = !Masked && covers(Access[PPos], Access[Pos], O.SameInitialRegisters);
      MaskedFailed += Masked && Pos >= N;
      double DataDelay = R.Instrs[P].MayLoad ? LoadLatency + 1 : 0;
      // A vector forwarding latency the machine states is to the data in a
      // vector register, which the loading instruction charges at a vector
      // load's latency.
      bool Vector = vectorStore(R.Instrs[P].Text);
      double Forward = Vector ? VectorForward : StoreForward;
      double Replaced = Vector && O.StoreForwardVector ? VectorLoadLatency : LoadLatency;
      double Lat = DataDelay + (Covered ? Forward : O.ForwardFail) - Replaced;
      // A value going round through memory: no sooner than the core's
      // least round trip after the previous link's load.
      ForwardedAt[Pos] = Covered && Vector;
      if (Covered && Vector && O.VectorMemoryRoundTrip > 0 && Pos >= N)
        if (std::optional<size_t> Prev = previousLink(PPos, ForwardedAt))
          In[Pos].push_back({*Prev, O.VectorMemoryRoundTrip});
      // LAT may be negative: a forwarded value can arrive sooner than the
      // load-use latency the load's consumers are charged. Where the core
      // renames memory (a stated store_forward_cy below a load's), a plain
      // load (mov, movzx, vmovsd) hands the value on unchanged and may run
      // ahead of the store (renameThroughMemory); a load-op's own operation
      // waits for it, and elsewhere a faster forward still waits for the
      // store (Skylake's 4 cycles).
      bool Bypassed = false;
      llvm::StringRef Text = R.Instrs[I].Text;
      bool PlainLoad = (Text.starts_with("mov") || Text.starts_with("vmov")) && !R.Instrs[I].MayStore;
      if (Lat < 0 && Covered && Pos >= N && PlainLoad && O.StoreForward)
        Bypassed = renameThroughMemory(Pos, PPos, Lat);
      if (!Bypassed)
        In[Pos].push_back({PPos, Lat});
      // The store commits only once every older instruction has completed.
      if (!Covered)
        for (size_t X = Pos >= N ? Pos - N : 0; X < PPos; ++X)
          In[Pos].push_back(
              {X, std::max(0.0, R.Instrs[X % N].Latency + O.ForwardFail - LoadLatency)});
      ThroughMemory[I] = true;
      bool Once = Pos >= N; // each pair once: the load in the second iteration
      (Covered ? Forwarded : Failed) += Once;
      break;
    }
  }
  // Locked read-modify-writes (lock-prefixed, xchg with memory) are full
  // barriers: each waits for the one before to complete.
  unsigned Locks = unsigned(std::count(Locked.begin(), Locked.end(), true));
  if (Locks && Legacy) {
    for (size_t Pos = 0; Pos < 2 * N; ++Pos) {
      if (!Locked[Pos % N])
        continue;
      for (size_t Back = 1; Back <= N && Back <= Pos; ++Back)
        if (Locked[(Pos - Back) % N]) {
          In[Pos].push_back({Pos - Back, Legacy->LockedCycles});
          break;
        }
    }
    R.Notes.push_back(std::to_string(Locks) + " locked instruction(s) (lock prefix, xchg with "
                      "memory): each a barrier of " + shortNumber(Legacy->LockedCycles) + " cy");
  }
  if (Forwarded)
    R.Notes.push_back(std::to_string(Forwarded) +
                      " load(s) read what a store in the loop wrote to the same "
                      "address: store-to-load forwarding, " + shortNumber(StoreForward) +
                      (VectorForward != StoreForward
                           ? " cy from a general register's data, " + shortNumber(VectorForward) +
                                 " from a vector register's"
                           : std::string(" cy from the store's data")));
  if (Failed > MaskedFailed)
    R.Notes.push_back(std::to_string(Failed - MaskedFailed) +
                      " load(s) partly overlap an earlier store: forwarding fails, the load "
                      "waits " + shortNumber(O.ForwardFail) + " cy for the store to commit");
  if (MaskedFailed)
    R.Notes.push_back(std::to_string(MaskedFailed) +
                      " load(s) read what a masked store wrote: masked stores do not forward "
                      "on this core (core.masked_stores_forward), the load waits " +
                      shortNumber(O.ForwardFail) + " cy for the store to commit");
}

/// Loop-carried recurrence: the longest path from each instruction to its
/// copy in the next iteration, over register and memory dependences.
void Block::recurrence() {
  const size_t N = Insts.size();
  OwnCycle.assign(N, 0);
  // Only an instruction whose value reaches the next iteration at all can
  // reach its own copy there (a nest trace's loads and stores mostly do
  // not): edges go forward, so one backward sweep finds them.
  std::vector<bool> ReachesNext(2 * N, false);
  for (size_t Pos = 2 * N; Pos-- > 0;) {
    if (Pos >= N)
      ReachesNext[Pos] = true;
    if (ReachesNext[Pos])
      for (const Edge &E : In[Pos])
        ReachesNext[E.From] = true;
  }
  // Nor can one whose copy no value of the previous iteration reaches
  // (what a trace recomputes from scratch each iteration).
  std::vector<bool> FromPrevious(2 * N, false);
  for (size_t Pos = N; Pos < 2 * N; ++Pos)
    for (const Edge &E : In[Pos])
      if (E.From < N || FromPrevious[E.From]) {
        FromPrevious[Pos] = true;
        break;
      }
  // Longest paths pushed forward from the positions reached (edges go
  // forward, so a position is final when it is reached in order); on a tie
  // the edge listed first in In wins, as a pull over In would pick it.
  struct Out {
    size_t To, Index; ///< the consumer's position; the edge's place in In[To]
    double Lat;
  };
  std::vector<std::vector<Out>> Outs(2 * N);
  for (size_t Pos = 0; Pos < 2 * N; ++Pos)
    for (size_t K = 0; K < In[Pos].size(); ++K)
      Outs[In[Pos][K].From].push_back({Pos, K, In[Pos][K].Lat});
  // Which copies in the second iteration each position reaches (bit J: the
  // position N + J), by one backward sweep: a start's walk follows only
  // edges into positions that reach its own copy. In a trace most of what an
  // induction register feeds (loads, arithmetic, stores) leads elsewhere,
  // and no path to the copy runs through a position that cannot reach it,
  // so the distances and predecessors on those paths are as a full walk
  // finds them.
  const size_t Words = (N + 63) / 64;
  std::vector<uint64_t> ReachBits(2 * N * Words, 0);
  for (size_t Pos = 2 * N; Pos-- > 0;) {
    uint64_t *Mine = &ReachBits[Pos * Words];
    if (Pos >= N)
      Mine[(Pos - N) / 64] |= uint64_t(1) << ((Pos - N) % 64);
    for (const Out &E : Outs[Pos]) {
      const uint64_t *Theirs = &ReachBits[E.To * Words];
      for (size_t W = 0; W < Words; ++W)
        Mine[W] |= Theirs[W];
    }
  }
  auto ReachesCopy = [&](size_t Pos, size_t Start) {
    return (ReachBits[Pos * Words + Start / 64] >> (Start % 64)) & 1;
  };
  // Per start, the positions reached as bits: the sweep visits those, not
  // every position up to the copy (a trace's start reaches few of them).
  std::vector<double> Dist(2 * N, -1);
  std::vector<size_t> Prev(2 * N, SIZE_MAX), PrevIndex(2 * N, SIZE_MAX);
  std::vector<uint64_t> Reached((2 * N + 63) / 64 + 1, 0);
  auto IsReached = [&](size_t Pos) { return (Reached[Pos / 64] >> (Pos % 64)) & 1; };
  for (size_t Start = 0; Start < N; ++Start) {
    if (!ReachesNext[Start] || !FromPrevious[Start + N] || !ReachesCopy(Start, Start))
      continue; // no path to its copy: OwnCycle 0, no chain
    std::fill(Reached.begin() + Start / 64, Reached.begin() + (Start + N) / 64 + 1, 0);
    Reached[Start / 64] |= uint64_t(1) << (Start % 64);
    Dist[Start] = 0;
    Prev[Start] = SIZE_MAX;
    for (size_t W = Start / 64; W <= (Start + N - 1) / 64; ++W)
      // Bits of this word set while it is walked (edges within it go
      // forward) are picked up by re-reading it past the last position.
      for (uint64_t Bits = Reached[W]; Bits;) {
        size_t Pos = W * 64 + size_t(__builtin_ctzll(Bits));
        if (Pos >= Start + N)
          break;
        // A value ready before the start (an edge of negative latency)
        // leads nowhere, as when -1 marked the unreached.
        if (Dist[Pos] >= 0)
          for (const Out &E : Outs[Pos]) {
            if (E.To > Start + N || !ReachesCopy(E.To, Start))
              continue;
            double Via = Dist[Pos] + E.Lat;
            bool Longer = IsReached(E.To) ? Via > Dist[E.To] || (Via == Dist[E.To] &&
                                                                  Prev[E.To] != SIZE_MAX &&
                                                                  E.Index < PrevIndex[E.To])
                                          : Via > -1;
            if (!Longer)
              continue;
            Reached[E.To / 64] |= uint64_t(1) << (E.To % 64);
            Dist[E.To] = Via;
            Prev[E.To] = Pos;
            PrevIndex[E.To] = E.Index;
          }
        Bits = Pos % 64 == 63 ? 0 : Reached[W] & (~uint64_t(0) << (Pos % 64 + 1));
      }
    if (!IsReached(Start + N))
      continue;
    OwnCycle[Start] = std::max(0.0, Dist[Start + N]);
    if (Dist[Start + N] > R.RecurrenceBound) {
      R.RecurrenceBound = Dist[Start + N];
      R.CriticalChain.clear();
      for (size_t Pos = Prev[Start + N]; Pos != SIZE_MAX && Pos >= Start; Pos = Prev[Pos]) {
        R.CriticalChain.push_back(unsigned(Pos % N));
        if (Pos == Start)
          break;
      }
      std::reverse(R.CriticalChain.begin(), R.CriticalChain.end());
    }
  }

  // Loads the chain reaches through their address registers.
  for (size_t K = 0; K < R.CriticalChain.size(); ++K) {
    unsigned Cur = R.CriticalChain[K];
    unsigned Prev = R.CriticalChain[(K + R.CriticalChain.size() - 1) % R.CriticalChain.size()];
    if (!R.Instrs[Cur].MayLoad || !Mem[Cur])
      continue;
    bool Feeds = false;
    for (const RegDef &D : Defs[Prev])
      Feeds |= (Mem[Cur]->Base && TB.MRI->regsOverlap(D.Reg, Mem[Cur]->Base)) ||
               (Mem[Cur]->Index && TB.MRI->regsOverlap(D.Reg, Mem[Cur]->Index));
    R.ChainAddressLoads += Feeds;
  }
}

} // namespace perfmodel::block

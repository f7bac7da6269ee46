//===- CacheSim.cpp - Multi-level set-associative cache simulator ---------===//
#include "perfmodel/CacheSim.h"

#include <algorithm>
#include <stdexcept>

using namespace perfmodel;

std::vector<CacheLevelConfig> CacheSim::fromMachine(const MachineModel &M,
                                                    bool Prefetch) {
  std::vector<CacheLevelConfig> Out;
  for (const CacheLevel &C : M.Caches) {
    CacheLevelConfig L;
    L.Name = C.Name;
    L.SizeBytes = C.SizeBytes;
    L.Ways = C.Ways;
    L.LineBytes = C.LineBytes;
    L.Policy = C.Policy;
    L.NextLinePrefetch = Prefetch && C.Prefetch != PrefetchKind::None;
    L.WriteAllocate = C.WriteAllocate;
    Out.push_back(L);
  }
  return Out;
}

CacheSim::CacheSim(std::vector<CacheLevelConfig> Levels) : Config(std::move(Levels)) {
  if (Config.empty())
    throw std::invalid_argument("cache simulator needs at least one level");
  unsigned Line = Config[0].LineBytes;
  LineShift = 0;
  while ((1u << LineShift) < Line)
    ++LineShift;
  for (const CacheLevelConfig &C : Config) {
    Level Lv;
    Lv.Ways = std::max(1u, C.Ways);
    Lv.Sets = std::max<uint64_t>(1, C.SizeBytes / (uint64_t(Lv.Ways) * Line));
    Lv.Tags.assign(Lv.Sets * Lv.Ways, 0);
    Lv.Dirty.assign(Lv.Sets * Lv.Ways, 0);
    L.push_back(std::move(Lv));
  }
  Stats.resize(Config.size());
}

void CacheSim::resetStats() {
  for (CacheLevelStats &S : Stats)
    S = CacheLevelStats();
}

void CacheSim::flush() {
  for (size_t I = 0; I < L.size(); ++I) {
    Level &Lv = L[I];
    for (size_t Slot = 0; Slot < Lv.Tags.size(); ++Slot) {
      if (!Lv.Tags[Slot] || !Lv.Dirty[Slot])
        continue;
      Lv.Dirty[Slot] = 0;
      uint64_t Line = Lv.Tags[Slot] - 1;
      ++Stats[I].WriteBacks;
      // The data lands in the next level that holds the line, or in memory.
      for (size_t J = I + 1; J < L.size(); ++J) {
        Level &Nx = L[J];
        uint64_t Base = (Line % Nx.Sets) * Nx.Ways;
        bool Found = false;
        for (unsigned W = 0; W < Nx.Ways && !Found; ++W)
          if (Nx.Tags[Base + W] == Line + 1) {
            Nx.Dirty[Base + W] = 1;
            Found = true;
          }
        if (Found)
          break;
        ++Stats[J].WriteBacks; // passes through level J on its way out
      }
    }
  }
}

bool CacheSim::present(unsigned I, uint64_t Line) const {
  const Level &Lv = L[I];
  const uint64_t *Set = &Lv.Tags[(Line % Lv.Sets) * Lv.Ways];
  for (unsigned W = 0; W < Lv.Ways; ++W)
    if (Set[W] == Line + 1)
      return true;
  return false;
}

int64_t CacheSim::lookup(unsigned I, uint64_t Line) {
  Level &Lv = L[I];
  uint64_t Base = (Line % Lv.Sets) * Lv.Ways;
  uint64_t *Set = &Lv.Tags[Base];
  uint8_t *D = &Lv.Dirty[Base];
  for (unsigned W = 0; W < Lv.Ways; ++W) {
    if (Set[W] != Line + 1)
      continue;
    // Move to MRU (position 0), keeping the others in recency order.
    uint8_t Dy = D[W];
    for (unsigned K = W; K > 0; --K) {
      Set[K] = Set[K - 1];
      D[K] = D[K - 1];
    }
    Set[0] = Line + 1;
    D[0] = Dy;
    return int64_t(Base);
  }
  return -1;
}

int64_t CacheSim::insert(unsigned I, uint64_t Line, bool IsDirty) {
  Level &Lv = L[I];
  uint64_t Base = (Line % Lv.Sets) * Lv.Ways;
  uint64_t *Set = &Lv.Tags[Base];
  uint8_t *D = &Lv.Dirty[Base];
  uint64_t Victim = Set[Lv.Ways - 1];
  bool VictimDirty = D[Lv.Ways - 1];
  for (unsigned K = Lv.Ways - 1; K > 0; --K) {
    Set[K] = Set[K - 1];
    D[K] = D[K - 1];
  }
  Set[0] = Line + 1;
  D[0] = IsDirty;
  if (Victim)
    evicted(I, Victim - 1, VictimDirty);
  return int64_t(Base);
}

void CacheSim::invalidateInner(unsigned I, uint64_t Line) {
  // Inclusion: a line leaving level I leaves every level closer to the core.
  for (unsigned J = 0; J < I; ++J) {
    Level &Lv = L[J];
    uint64_t Base = (Line % Lv.Sets) * Lv.Ways;
    for (unsigned W = 0; W < Lv.Ways; ++W) {
      if (Lv.Tags[Base + W] != Line + 1)
        continue;
      if (Lv.Dirty[Base + W])
        ++Stats[J].WriteBacks; // written straight to memory
      for (unsigned K = W; K + 1 < Lv.Ways; ++K) {
        Lv.Tags[Base + K] = Lv.Tags[Base + K + 1];
        Lv.Dirty[Base + K] = Lv.Dirty[Base + K + 1];
      }
      Lv.Tags[Base + Lv.Ways - 1] = 0;
      Lv.Dirty[Base + Lv.Ways - 1] = 0;
      break;
    }
  }
  if (LastLine == Line)
    LastLine = ~0ull;
}

void CacheSim::evicted(unsigned I, uint64_t Line, bool IsDirty) {
  ++Stats[I].Evictions;
  if (I == 0 && LastLine == Line)
    LastLine = ~0ull;
  unsigned Next = I + 1;
  if (Next < L.size() && Config[Next].Policy == CachePolicy::Victim) {
    // A victim cache takes every line the level above evicts.
    if (IsDirty)
      ++Stats[I].WriteBacks;
    int64_t Slot = lookup(Next, Line);
    if (Slot >= 0)
      L[Next].Dirty[Slot] |= IsDirty;
    else
      insert(Next, Line, IsDirty);
    return;
  }
  if (Next == L.size() && Config[I].Policy == CachePolicy::Inclusive && I > 0)
    invalidateInner(I, Line);
  if (!IsDirty)
    return;
  ++Stats[I].WriteBacks;
  if (Next < L.size()) {
    int64_t Slot = lookup(Next, Line);
    if (Slot >= 0)
      L[Next].Dirty[Slot] = 1;
    else
      insert(Next, Line, true); // non-inclusive: the write-back allocates
  }
}

void CacheSim::fill(unsigned I, uint64_t Line, bool Prefetch) {
  // Bring LINE into level I from I+1 (or memory).
  ++Stats[I].LinesIn;
  if (Prefetch)
    ++Stats[I].Prefetches;
  unsigned Next = I + 1;
  if (Next < L.size()) {
    if (Config[Next].Policy == CachePolicy::Victim) {
      // Exclusive: a hit in the victim cache moves the line up.
      Level &V = L[Next];
      uint64_t Base = (Line % V.Sets) * V.Ways;
      bool Hit = false, WasDirty = false;
      for (unsigned W = 0; W < V.Ways; ++W)
        if (V.Tags[Base + W] == Line + 1) {
          Hit = true;
          WasDirty = V.Dirty[Base + W];
          for (unsigned K = W; K + 1 < V.Ways; ++K) {
            V.Tags[Base + K] = V.Tags[Base + K + 1];
            V.Dirty[Base + K] = V.Dirty[Base + K + 1];
          }
          V.Tags[Base + V.Ways - 1] = 0;
          V.Dirty[Base + V.Ways - 1] = 0;
          break;
        }
      if (!Prefetch) {
        ++Stats[Next].Loads;
        ++(Hit ? Stats[Next].Hits : Stats[Next].Misses);
      }
      if (!Hit)
        ++Stats[Next].LinesIn; // from memory, through the victim level
      insert(I, Line, WasDirty);
      return;
    }
    if (lookup(Next, Line) >= 0) {
      if (!Prefetch) {
        ++Stats[Next].Loads;
        ++Stats[Next].Hits;
      }
    } else {
      if (!Prefetch) {
        ++Stats[Next].Loads;
        ++Stats[Next].Misses;
      }
      fill(Next, Line, Prefetch);
      if (!Prefetch && Config[Next].NextLinePrefetch && !present(Next, Line + 1))
        fill(Next, Line + 1, true);
    }
  }
  insert(I, Line, false);
}

void CacheSim::accessLine(uint64_t Line, bool Write) {
  CacheLevelStats &S0 = Stats[0];
  ++(Write ? S0.Stores : S0.Loads);
  if (Line == LastLine) { // still the MRU line of its L1 set
    ++S0.Hits;
    if (Write)
      L[0].Dirty[(Line % L[0].Sets) * L[0].Ways] = 1;
    return;
  }
  int64_t Slot = lookup(0, Line);
  if (Slot >= 0) {
    ++S0.Hits;
  } else {
    ++S0.Misses;
    if (Write && !Config[0].WriteAllocate) {
      // Write-around: the store goes to the next level as a write-back.
      ++S0.WriteBacks;
      LastLine = ~0ull;
      return;
    }
    fill(0, Line, false);
    if (Config[0].NextLinePrefetch && !present(0, Line + 1))
      fill(0, Line + 1, true);
    Slot = int64_t((Line % L[0].Sets) * L[0].Ways);
  }
  if (Write)
    L[0].Dirty[Slot] = 1;
  LastLine = Line;
}

//===- CacheSim.cpp - Multi-level set-associative cache simulator ---------===//
//
// Each set is a small array of entries in recency order (MRU first); an entry
// packs the line number and its dirty bit so that the LRU shift moves one
// word per way.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/CacheSim.h"

#include <algorithm>
#include <stdexcept>

using namespace perfmodel;

namespace {
inline uint64_t entryFor(uint64_t Line, bool Dirty) { return (Line + 1) << 1 | Dirty; }
inline uint64_t lineOf(uint64_t Entry) { return (Entry >> 1) - 1; }
inline bool isLine(uint64_t Entry, uint64_t Line) { return (Entry >> 1) == Line + 1; }
} // namespace

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
    if ((Lv.Sets & (Lv.Sets - 1)) == 0)
      Lv.Mask = Lv.Sets - 1;
    else
      Lv.FastMod = ~uint64_t(0) / Lv.Sets + 1;
    Lv.Tags.resize(Lv.Sets * Lv.Ways); // zero (ZeroedAllocator)
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
    for (uint64_t &E : L[I].Tags) {
      if (!E || !(E & 1))
        continue;
      E &= ~uint64_t(1);
      uint64_t Line = lineOf(E);
      ++Stats[I].WriteBacks;
      // The data lands in the next level that holds the line, or in memory.
      for (size_t J = I + 1; J < L.size(); ++J) {
        if (uint64_t *Held = entry(unsigned(J), Line)) {
          *Held |= 1;
          break;
        }
        ++Stats[J].WriteBacks; // passes through level J on its way out
      }
    }
  }
}

std::vector<uint64_t> CacheSim::flushWriteBacks() const {
  // flush() writes a dirty line back once at each level from the lowest
  // that holds it dirty to the last (it marks the copy the next level holds,
  // or passes through a level that holds none): so at level J, the distinct
  // lines dirty at J or below. Counted as the lines dirty at a level and at
  // none below it, summed upwards.
  std::vector<uint64_t> Out(L.size(), 0);
  uint64_t Sum = 0;
  for (size_t J = 0; J < L.size(); ++J) {
    for (uint64_t E : L[J].Tags) {
      if (!E || !(E & 1))
        continue;
      uint64_t Line = lineOf(E);
      bool Below = false;
      for (size_t I = 0; I < J && !Below; ++I) {
        const uint64_t *Held = entry(unsigned(I), Line);
        Below = Held && (*Held & 1);
      }
      Sum += !Below;
    }
    Out[J] = Sum;
  }
  return Out;
}

const uint64_t *CacheSim::entry(unsigned I, uint64_t Line) const {
  const Level &Lv = L[I];
  const uint64_t *Set = &Lv.Tags[Lv.setBase(Line)];
  for (unsigned W = 0; W < Lv.Ways; ++W)
    if (isLine(Set[W], Line))
      return &Set[W];
  return nullptr;
}

int64_t CacheSim::lookup(unsigned I, uint64_t Line) {
  Level &Lv = L[I];
  uint64_t Base = Lv.setBase(Line);
  uint64_t *Set = &Lv.Tags[Base];
  const uint64_t Want = Line + 1;
  if ((Set[0] >> 1) == Want) // the common case: already MRU
    return int64_t(Base);
  for (unsigned W = 1; W < Lv.Ways; ++W) {
    if ((Set[W] >> 1) != Want)
      continue;
    // Move to MRU (position 0), keeping the others in recency order.
    uint64_t E = Set[W];
    for (unsigned K = W; K > 0; --K)
      Set[K] = Set[K - 1];
    Set[0] = E;
    return int64_t(Base);
  }
  return -1;
}

int64_t CacheSim::insert(unsigned I, uint64_t Line, bool IsDirty) {
  Level &Lv = L[I];
  uint64_t Base = Lv.setBase(Line);
  uint64_t *Set = &Lv.Tags[Base];
  uint64_t Victim = Set[Lv.Ways - 1];
  for (unsigned K = Lv.Ways - 1; K > 0; --K)
    Set[K] = Set[K - 1];
  Set[0] = entryFor(Line, IsDirty);
  if (Victim)
    evicted(I, lineOf(Victim), Victim & 1);
  return int64_t(Base);
}

/// Removes LINE from level LV if present; returns its entry (0 if absent).
static uint64_t removeLine(uint64_t *Tags, uint64_t Base, unsigned Ways,
                           uint64_t Line) {
  for (unsigned W = 0; W < Ways; ++W) {
    if (!isLine(Tags[Base + W], Line))
      continue;
    uint64_t E = Tags[Base + W];
    for (unsigned K = W; K + 1 < Ways; ++K)
      Tags[Base + K] = Tags[Base + K + 1];
    Tags[Base + Ways - 1] = 0;
    return E;
  }
  return 0;
}

void CacheSim::invalidateInner(unsigned I, uint64_t Line) {
  // Inclusion: a line leaving level I leaves every level closer to the core.
  for (unsigned J = 0; J < I; ++J) {
    Level &Lv = L[J];
    uint64_t E = removeLine(Lv.Tags.data(), Lv.setBase(Line), Lv.Ways, Line);
    if (E & 1)
      ++Stats[J].WriteBacks; // written straight to memory
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
      L[Next].Tags[Slot] |= IsDirty;
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
      L[Next].Tags[Slot] |= 1;
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
      uint64_t E = removeLine(V.Tags.data(), V.setBase(Line), V.Ways, Line);
      if (!Prefetch) {
        ++Stats[Next].Loads;
        ++(E ? Stats[Next].Hits : Stats[Next].Misses);
      }
      if (!E)
        ++Stats[Next].LinesIn; // from memory, through the victim level
      insert(I, Line, E & 1);
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
  Level &L0 = L[0];
  if (Line == LastLine) { // still the MRU line of its L1 set
    ++S0.Hits;
    L0.Tags[L0.setBase(Line)] |= Write;
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
    Slot = int64_t(L0.setBase(Line));
  }
  L0.Tags[Slot] |= Write;
  LastLine = Line;
}

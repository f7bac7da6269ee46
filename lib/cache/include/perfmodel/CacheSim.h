//===- CacheSim.h - Multi-level set-associative cache simulator -*- C++ -*-===//
//
// Address-level simulation, independent of the front end: feed it loads and
// stores, read per-level statistics. LRU per set, write-allocate, write-back;
// the last level may be inclusive (evictions invalidate the inner levels),
// non-inclusive, or a victim cache filled by the evictions of the level above.
// Optional next-line prefetch on demand misses of a level.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_CACHESIM_H
#define PERFMODEL_CACHESIM_H

#include "perfmodel/MachineModel.h"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

namespace perfmodel {

struct CacheLevelConfig {
  std::string Name;
  uint64_t SizeBytes = 0;
  unsigned Ways = 1;
  unsigned LineBytes = 64;
  CachePolicy Policy = CachePolicy::Inclusive;
  bool NextLinePrefetch = false;
  bool WriteAllocate = true;
};

struct CacheLevelStats {
  uint64_t Loads = 0, Stores = 0;   ///< demand accesses reaching this level
  uint64_t Hits = 0, Misses = 0;    ///< demand lookups
  uint64_t LinesIn = 0;    ///< lines brought in from the next level (incl. prefetch)
  uint64_t WriteBacks = 0; ///< dirty lines written to the next level
  uint64_t Evictions = 0;  ///< all lines evicted (clean or dirty)
  uint64_t Prefetches = 0; ///< lines brought in by the prefetcher
};

class CacheSim {
public:
  explicit CacheSim(std::vector<CacheLevelConfig> Levels);
  /// Configures the levels from a machine model (prefetch per its `prefetch`).
  static std::vector<CacheLevelConfig> fromMachine(const MachineModel &M,
                                                   bool Prefetch);

  void load(uint64_t Addr, unsigned Bytes) { access(Addr, Bytes, false); }
  void store(uint64_t Addr, unsigned Bytes) { access(Addr, Bytes, true); }
  /// An access of BYTES may straddle two lines; each line is one lookup.
  void access(uint64_t Addr, unsigned Bytes, bool Write) {
    uint64_t First = Addr >> LineShift, Last = (Addr + (Bytes ? Bytes : 1) - 1) >> LineShift;
    for (uint64_t L = First; L <= Last; ++L)
      accessLine(L, Write);
  }
  void resetStats();
  /// Writes every dirty line back, level by level, as the end of a program
  /// would eventually; the write-backs are counted.
  void flush();
  /// Per level, the write-backs flush() would add now, without flushing.
  std::vector<uint64_t> flushWriteBacks() const;
  const std::vector<CacheLevelStats> &stats() const { return Stats; }
  const std::vector<CacheLevelConfig> &levels() const { return Config; }
  unsigned lineBytes() const { return 1u << LineShift; }

private:
  /// Entries from calloc, left as it gives them (zero): a last level of
  /// 32 MiB has 4 MiB of tags, and a loop touches few of their pages, where
  /// writing the zeros took every page afresh for each simulated loop.
  struct ZeroedAllocator {
    using value_type = uint64_t;
    template <typename> struct rebind {
      using other = ZeroedAllocator;
    };
    ZeroedAllocator() = default;
    uint64_t *allocate(size_t N) {
      if (void *P = std::calloc(N, sizeof(uint64_t)))
        return static_cast<uint64_t *>(P);
      throw std::bad_alloc();
    }
    void deallocate(uint64_t *P, size_t) { std::free(P); }
    /// Default-initialised: calloc's zeros stay, unwritten.
    void construct(uint64_t *) {}
    void construct(uint64_t *P, uint64_t V) { *P = V; }
    bool operator==(const ZeroedAllocator &) const { return true; }
    bool operator!=(const ZeroedAllocator &) const { return false; }
  };
  struct Level {
    uint64_t Sets = 0;
    unsigned Ways = 0;
    uint64_t Mask = 0;    ///< Sets - 1 when Sets is a power of two, else 0
    uint64_t FastMod = 0; ///< Lemire's constant for Line % Sets on 32-bit lines
    /// First slot of LINE's set.
    uint64_t setBase(uint64_t Line) const {
      uint64_t Set;
      if (Mask || Sets == 1)
        Set = Line & Mask;
      else if (Line < (uint64_t(1) << 32))
        Set = uint64_t((static_cast<unsigned __int128>(FastMod * Line) * Sets) >> 64);
      else
        Set = Line % Sets;
      return Set * Ways;
    }
    /// Sets x Ways entries, MRU first: (line + 1) << 1 | dirty; 0 = empty.
    std::vector<uint64_t, ZeroedAllocator> Tags;
  };
  void accessLine(uint64_t Line, bool Write);
  /// Looks LINE up in level I; on a hit moves it to MRU. Returns its slot or -1.
  int64_t lookup(unsigned I, uint64_t Line);
  /// Inserts LINE as MRU in level I; handles the victim. Returns the slot.
  int64_t insert(unsigned I, uint64_t Line, bool Dirty);
  /// Brings LINE into level I (and the levels beyond, as the policy says).
  void fill(unsigned I, uint64_t Line, bool Prefetch);
  void evicted(unsigned I, uint64_t Line, bool Dirty);
  void invalidateInner(unsigned I, uint64_t Line);
  /// LINE's entry in level I, without touching its recency; null if absent.
  const uint64_t *entry(unsigned I, uint64_t Line) const;
  uint64_t *entry(unsigned I, uint64_t Line) {
    return const_cast<uint64_t *>(static_cast<const CacheSim *>(this)->entry(I, Line));
  }
  bool present(unsigned I, uint64_t Line) const { return entry(I, Line) != nullptr; }

  std::vector<CacheLevelConfig> Config;
  std::vector<Level> L;
  std::vector<CacheLevelStats> Stats;
  unsigned LineShift = 6;
  uint64_t LastLine = ~0ull; ///< fast path: repeated access to the MRU line of L1
};

} // namespace perfmodel

#endif

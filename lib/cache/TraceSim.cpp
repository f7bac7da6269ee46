//===- TraceSim.cpp - Replay a loop nest's addresses through the caches ---===//
//
// The nest is executed abstractly at the bound sizes: counters run over their
// bounds, each innermost iteration issues its loads then its stores, and an
// enclosing loop's own references run around the loops inside it. Arrays
// get page-aligned, disjoint address ranges. Values that addresses or bounds
// depend on (col[j], rowptr[i]) come from user-supplied index data. Nests
// larger than the replay budget are sliced: a warm-up part, then a measured
// part, reported per iteration.
//
//===----------------------------------------------------------------------===//
#include "NestGeometry.h"
#include "perfmodel/CacheSim.h"
#include "perfmodel/StageTimes.h"
#include "perfmodel/Traffic.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

using namespace perfmodel;

namespace {

/// A linear form in the nest counters and loaded values, in integer units.
struct Lin {
  int64_t Const = 0;
  std::vector<int64_t> Coef;                   ///< per nest level
  std::vector<std::pair<size_t, int64_t>> Data; ///< (data slot, coefficient)
};

struct DataSlot {
  std::string Name;  ///< "col[j]"
  std::string Array; ///< "col"
  const std::vector<int64_t> *Values = nullptr;
  Lin Index; ///< must not itself depend on data
};

struct CompiledAccess {
  const Access *A = nullptr;
  std::string Array;
  uint64_t Base = 0;
  Lin Offset; ///< bytes from the array base
  bool Write = false;
  bool Irregular = false; ///< data-dependent, or innermost stride beyond a line
  bool Indirect = false;  ///< its address depends on loaded data
};

/// The stream prefetchers' view of indirect accesses. A prefetcher sees
/// addresses, not how they were computed: x[col[j]] of a banded matrix
/// misses line after line within a page, as a stream does, and is fetched
/// ahead like one. A miss counts as streamed when the previous or the one
/// before the previous miss in its 4 KiB page (prefetchers stop at page
/// boundaries) was an adjacent line, in one of the most recently missed
/// pages (the streams a prefetcher tracks: Intel's L2 streamer keeps 32,
/// Optimization Reference Manual; the same count is taken for every machine).
class StreamTracker {
public:
  explicit StreamTracker(unsigned LineBytes) : LineBytes(std::max(LineBytes, 1u)) {}
  /// Whether a miss at ADDR continues a stream; records it either way.
  bool streamed(uint64_t Addr) {
    uint64_t Line = Addr / LineBytes, Page = Addr / 4096;
    ++Clock;
    Entry *Victim = &Entries[0];
    for (Entry &E : Entries) {
      if (E.Stamp && E.Page == Page) {
        bool Adjacent = E.Last[0] + 1 == Line || Line + 1 == E.Last[0] ||
                        (E.Seen > 1 && (E.Last[1] + 1 == Line || Line + 1 == E.Last[1]));
        E.Last[1] = E.Last[0];
        E.Last[0] = Line;
        E.Seen = std::min(E.Seen + 1, 2u);
        E.Stamp = Clock;
        return Adjacent;
      }
      if (E.Stamp < Victim->Stamp)
        Victim = &E;
    }
    *Victim = Entry{Page, {Line, Line}, 1, Clock};
    return false;
  }

private:
  uint64_t LineBytes;
  struct Entry {
    uint64_t Page = 0;
    uint64_t Last[2] = {0, 0};
    unsigned Seen = 0;
    uint64_t Stamp = 0; ///< 0: free
  };
  Entry Entries[32];
  uint64_t Clock = 0;
};

/// Whether a rate per 1000 iterations has not moved: to 0.2 %, or two
/// lines per million iterations.
bool settled(double Now, double Before) {
  return std::fabs(Now - Before) <= 0.002 * std::max(Now, 1.0);
}

class Replayer {
public:
  Replayer(const LoopKernel &K, const KernelIR &IR, const SimOptions &O)
      : K(K), IR(IR), O(O), B(IR.bindings()) {
    for (const LoopLevel &L : K.Nest)
      Level[L.Var] = Level.size();
  }

  std::string Error;

  /// P as a linear form; data symbols become slots.
  bool compile(const Poly &P, int64_t Scale, Lin &Out, const std::string &What) {
    Out.Coef.assign(K.Nest.size(), 0);
    Poly Bound = P.substitute(B);
    for (const auto &[Mon, C] : Bound.terms()) {
      int64_t V = C * Scale;
      if (Mon.empty()) {
        Out.Const += V;
        continue;
      }
      if (Mon.size() != 1) {
        Error = What + " is not linear in the counters and loaded values";
        return false;
      }
      auto L = Level.find(Mon[0]);
      if (L != Level.end()) {
        Out.Coef[L->second] += V;
        continue;
      }
      size_t Slot;
      if (!dataSlot(Mon[0], Slot, What))
        return false;
      Out.Data.push_back({Slot, V});
    }
    return true;
  }

  bool dataSlot(const std::string &Sym, size_t &Slot, const std::string &What) {
    for (size_t I = 0; I < Slots.size(); ++I)
      if (Slots[I].Name == Sym) {
        Slot = I;
        return true;
      }
    auto Ref = IR.DataRefs.find(Sym);
    if (Ref == IR.DataRefs.end()) {
      Error = What + " depends on '" + Sym + "', which is not a plain array element";
      return false;
    }
    const std::vector<int64_t> *Values = nullptr;
    if (O.Index) {
      auto It = O.Index->Arrays.find(Ref->second.Array);
      if (It != O.Index->Arrays.end())
        Values = &It->second;
    }
    if (!Values) {
      Error = What + " depends on the contents of '" + Ref->second.Array +
              "': give them with --index " + Ref->second.Array +
              "=FILE.mtx or --index " + Ref->second.Array + "=uniform:LO:HI";
      return false;
    }
    DataSlot D;
    D.Name = Sym;
    D.Array = Ref->second.Array;
    D.Values = Values;
    if (!compile(Ref->second.Index, 1, D.Index, Sym))
      return false;
    if (!D.Index.Data.empty()) {
      Error = Sym + ": an index that depends on loaded data twice is not replayed";
      return false;
    }
    Slots.push_back(std::move(D));
    Slot = Slots.size() - 1;
    return true;
  }

  /// The element offset of A as a polynomial that may contain data symbols.
  bool elementOffset(const Access &A, Poly &Out) {
    std::optional<Poly> P = perfmodel::elementOffset(A, &Error);
    if (P)
      Out = *P;
    return P.has_value();
  }

  int64_t eval(const Lin &L) {
    int64_t V = L.Const;
    for (size_t I = 0; I < L.Coef.size(); ++I)
      V += L.Coef[I] * IV[I];
    for (const auto &[Slot, C] : L.Data)
      V += C * value(Slot);
    return V;
  }

  int64_t value(size_t Slot) {
    const DataSlot &D = Slots[Slot];
    int64_t Idx = eval(D.Index);
    if (Idx < 0 || size_t(Idx) >= D.Values->size()) {
      if (Error.empty())
        Error = D.Name + " reads element " + std::to_string(Idx) + " of '" + D.Array +
                "', but the index data has " + std::to_string(D.Values->size()) +
                " values";
      Stop = true;
      return 0;
    }
    return (*D.Values)[Idx];
  }

  bool prepare(const MachineModel &M) {
    for (const LoopLevel &L : K.Nest) {
      Lower.emplace_back();
      Upper.emplace_back();
      if (!compile(L.Lower, 1, Lower.back(), "lower bound of '" + L.Var + "'") ||
          !compile(L.Upper, 1, Upper.back(), "upper bound of '" + L.Var + "'"))
        return false;
    }
    // Loads first, then stores, in source order within each.
    for (int Pass = 0; Pass < 2; ++Pass)
      for (const Access &A : K.Accesses) {
        if (Pass == 0 ? !A.Read : !A.Write)
          continue;
        // A subscript the loop rewrites from values it does not know (j =
        // next[j]) cannot be replayed: every step would read one element.
        if (!A.Linear && !A.Indirect && !A.NonAffine.empty()) {
          Error = A.Text + ": " + A.NonAffine + "; its addresses cannot be replayed";
          return false;
        }
        CompiledAccess C;
        if (!compileAccess(A, Pass == 1, C))
          return false;
        int64_t Stride = C.Offset.Coef.empty() ? 0 : C.Offset.Coef.back() * K.Nest.back().Step;
        C.Indirect = !C.Offset.Data.empty();
        C.Irregular = C.Indirect || M.unprefetchedStride(uint64_t(Stride < 0 ? -Stride : Stride));
        Accesses.push_back(std::move(C));
      }
    // The enclosing loops' references, once per iteration of their level:
    // reads before the loops inside, writes after (y[i] = sum).
    Outer.resize(K.Nest.size());
    for (const Access &A : K.OuterAccesses) {
      if (!ownOuterReference(A, K) || !A.Linear || A.Indirect)
        continue;
      for (int Pass = 0; Pass < 2; ++Pass) {
        if (Pass == 0 ? !A.Read : !A.Write)
          continue;
        CompiledAccess C;
        if (!compileAccess(A, Pass == 1, C))
          return false;
        Outer[size_t(A.OuterLevel)].push_back(std::move(C));
      }
    }
    return layout();
  }

  /// A's load (WRITE false) or store: its byte offset from the array base.
  bool compileAccess(const Access &A, bool Write, CompiledAccess &C) {
    C.A = &A;
    C.Array = A.Array;
    C.Write = Write;
    Poly Off;
    if (!elementOffset(A, Off) || !compile(Off, A.StrideBytes, C.Offset, A.Text))
      return false;
    C.Offset.Const += A.FieldOffset;
    return true;
  }

  /// Disjoint, page-aligned address ranges per array.
  bool layout() {
    NestGeometry G(K, IR);
    std::map<std::string, std::pair<double, double>> Extent;
    std::vector<std::string> Order;
    std::vector<CompiledAccess *> All;
    for (CompiledAccess &C : Accesses)
      All.push_back(&C);
    for (std::vector<CompiledAccess> &Level : Outer)
      for (CompiledAccess &C : Level)
        All.push_back(&C);
    for (const CompiledAccess *CP : All) {
      const CompiledAccess &C = *CP;
      double Lo = 0, Hi = 0;
      if (auto R = G.ok() ? G.byteRange(*C.A) : std::nullopt) {
        Lo = double(R->first);
        Hi = double(R->second + C.A->ElementBytes);
      } else {
        // Unknown range (indirect, data bounds): bound it by the index data.
        double MaxIdx = 0;
        for (const auto &[Slot, Coef] : C.Offset.Data)
          for (int64_t V : *Slots[Slot].Values)
            MaxIdx = std::max(MaxIdx, double(V) * double(Coef));
        double Counters = 0;
        for (size_t I = 0; I < C.Offset.Coef.size(); ++I)
          Counters += double(C.Offset.Coef[I]) * 1e6; // generous: 1e6 per counter
        Hi = double(C.Offset.Const) + MaxIdx + std::max(0.0, Counters) +
             C.A->ElementBytes;
      }
      if (!Extent.count(C.Array)) {
        Extent[C.Array] = {Lo, Hi};
        Order.push_back(C.Array);
      } else {
        Extent[C.Array].first = std::min(Extent[C.Array].first, Lo);
        Extent[C.Array].second = std::max(Extent[C.Array].second, Hi);
      }
    }
    uint64_t Cursor = uint64_t(1) << 32;
    std::map<std::string, uint64_t> Base;
    for (const std::string &Name : Order) {
      auto [Lo, Hi] = Extent[Name];
      // No address space holds more than 2^47 bytes (128 TiB).
      if (!(Hi - Lo < double(uint64_t(1) << 47)) || !(std::fabs(Lo) < double(uint64_t(1) << 47))) {
        Error = Name + " spans more than 2^47 bytes at these sizes: nothing to simulate";
        return false;
      }
      uint64_t Start = (Cursor + 4095) & ~uint64_t(4095);
      Base[Name] = Start - int64_t(Lo);
      Cursor = Start + uint64_t(Hi - Lo) + 4096;
    }
    for (CompiledAccess *C : All)
      C->Base = Base[C->Array];
    return true;
  }

  /// What a replay of the prepared nest reads of it, as text: its bounds,
  /// steps and every access's address form, width and kind (empty where
  /// index data feeds it: that is not kept). Two nests with the same key
  /// replay the same addresses.
  std::string key() const {
    if (!Slots.empty())
      return "";
    std::string Out;
    auto Num = [&](int64_t V) { Out += std::to_string(V) + ','; };
    auto Form = [&](const Lin &L) {
      Num(L.Const);
      for (int64_t C : L.Coef)
        Num(C);
      Out += ';';
    };
    auto Ref = [&](const CompiledAccess &C) {
      Num(int64_t(C.Base));
      Form(C.Offset);
      Num(C.A->ElementBytes);
      Num(C.Write + 2 * C.Irregular + 4 * C.Indirect);
    };
    for (size_t D = 0; D < K.Nest.size(); ++D) {
      Form(Lower[D]);
      Form(Upper[D]);
      Num(K.Nest[D].Step);
    }
    Out += '|';
    for (const CompiledAccess &C : Accesses)
      Ref(C);
    for (const std::vector<CompiledAccess> &Level : Outer) {
      Out += '|';
      for (const CompiledAccess &C : Level)
        Ref(C);
    }
    return Out;
  }

  /// Bounds that no counter or loaded value moves, and addresses without
  /// loaded values: every outermost iteration does the same, shifted.
  bool rectangular() const {
    auto Plain = [](const Lin &L) {
      return L.Data.empty() && std::all_of(L.Coef.begin(), L.Coef.end(),
                                           [](int64_t C) { return C == 0; });
    };
    return std::all_of(Lower.begin(), Lower.end(), Plain) &&
           std::all_of(Upper.begin(), Upper.end(), Plain) && Slots.empty() &&
           std::none_of(Accesses.begin(), Accesses.end(),
                        [](const CompiledAccess &C) { return C.Indirect; });
  }

  /// The outermost iterations after which every access is at the same
  /// offset within its line again (a column walk a[i][j] over j takes a new
  /// line every 8 doubles): windows are whole multiples of it.
  uint64_t outerPeriod(unsigned LineBytes) const {
    uint64_t P = 1;
    auto Take = [&](const CompiledAccess &C) {
      int64_t Move = C.Offset.Coef.empty() ? 0 : C.Offset.Coef[0] * K.Nest[0].Step;
      uint64_t G = std::gcd(uint64_t(Move < 0 ? -Move : Move), uint64_t(LineBytes));
      P = std::max<uint64_t>(P, LineBytes / std::max<uint64_t>(G, 1));
    };
    std::for_each(Accesses.begin(), Accesses.end(), Take);
    for (const std::vector<CompiledAccess> &Level : Outer)
      std::for_each(Level.begin(), Level.end(), Take);
    return P;
  }

  void run(CacheSim &Sim, uint64_t WarmupAccesses, uint64_t Limit) {
    IV.assign(K.Nest.size(), 0);
    LevelStart.assign(K.Nest.size(), Count);
    LevelSize.assign(K.Nest.size(), 0);
    std::function<void(size_t)> Loop = [&](size_t D) {
      int64_t Lo = eval(Lower[D]), Hi = eval(Upper[D]);
      int64_t Step = K.Nest[D].Step;
      bool Last = D + 1 == K.Nest.size();
      if (Last)
        startRow(D, Lo, Hi, Step);
      auto Iteration = [&](int64_t I) {
        IV[D] = I;
        if (Last)
          return body(Sim, WarmupAccesses, Limit);
        LevelStart[D] = Count;
        outer(Sim, D, false);
        Loop(D + 1);
        outer(Sim, D, true);
        LevelSize[D] = Count - LevelStart[D];
        checkpoint(Sim, D);
        if (D == 0 && MayExtrapolate)
          settle(Sim);
      };
      if (Step > 0) {
        for (int64_t I = Lo; I < Hi && !Stop; I += Step)
          Iteration(I);
      } else {
        for (int64_t I = Hi - 1; I >= Lo && !Stop; I += Step)
          Iteration(I);
      }
    };
    if (!K.Nest.empty())
      Loop(0);
  }

  /// Level D's own references: its reads (WRITES false) or its writes.
  void outer(CacheSim &Sim, size_t D, bool Writes) {
    if (D >= Outer.size())
      return;
    for (const CompiledAccess &C : Outer[D])
      if (C.Write == Writes) {
        Sim.access(C.Base + uint64_t(eval(C.Offset)), C.A->ElementBytes, C.Write);
        ++Count;
      }
  }

  /// The innermost level's row starts: each access without loaded values in
  /// its address moves by a constant from one iteration to the next, so its
  /// offset is kept and stepped instead of evaluated (most of a replay).
  void startRow(size_t D, int64_t Lo, int64_t Hi, int64_t Step) {
    IV[D] = Step > 0 ? Lo : Hi - 1;
    Offsets.resize(Accesses.size());
    Steps.resize(Accesses.size());
    for (size_t I = 0; I < Accesses.size(); ++I) {
      const Lin &L = Accesses[I].Offset;
      Offsets[I] = L.Data.empty() ? eval(L) : 0;
      Steps[I] = L.Data.empty() && D < L.Coef.size() ? L.Coef[D] * Step : 0;
    }
  }

  void body(CacheSim &Sim, uint64_t WarmupCap, uint64_t Measure) {
    for (size_t I = 0; I < Accesses.size(); ++I) {
      const CompiledAccess &C = Accesses[I];
      int64_t Off = C.Offset.Data.empty() ? Offsets[I] : eval(C.Offset);
      Offsets[I] += Steps[I];
      if (!C.Irregular) {
        Sim.access(C.Base + uint64_t(Off), C.A->ElementBytes, C.Write);
        continue;
      }
      const auto &S = Sim.stats();
      for (size_t I = 0; I < S.size(); ++I)
        Before[I] = S[I].Misses;
      uint64_t Addr = C.Base + uint64_t(Off);
      Sim.access(Addr, C.A->ElementBytes, C.Write);
      if (S.empty() || S[0].Misses == Before[0])
        continue;
      // An indirect miss that continues a stream is fetched ahead like one.
      if (C.Indirect && Streams && Streams->streamed(Addr))
        continue;
      for (size_t I = 0; I < S.size(); ++I)
        IrregularMisses[I] += S[I].Misses - Before[I];
    }
    Count += Accesses.size();
    ++Iterations;
    if (!Warm && (Iterations & 63) == 0)
      warmUp(Sim, WarmupCap, Measure);
    if (Warm && Count >= MeasureEnd)
      Stop = true;
  }

  /// Warm when the last level has taken in 1.25 times its capacity (every
  /// level then evicts at its steady rate), or when it has taken in nothing
  /// for as many accesses as it took to take in what it holds (the nest's
  /// data fits, and has been gone over again at least once), or at the cap.
  /// The quiet span is 2^16 accesses at least: early on, a stream's gap
  /// between new lines is longer than all that came before it.
  void warmUp(CacheSim &Sim, uint64_t WarmupCap, uint64_t Measure) {
    uint64_t Intake = Sim.stats().back().LinesIn;
    if (Intake != LastIntake) {
      LastIntake = Intake;
      LastGrowth = Count;
    }
    bool Filled = Intake >= WarmLines;
    bool Refilled =
        Intake > 0 && Count - LastGrowth >= std::max<uint64_t>(LastGrowth, uint64_t(1) << 16);
    if (!Filled && !Refilled && Count < WarmupCap)
      return;
    WarmedByCap = !Filled && !Refilled;
    startMeasuring(Sim, Measure);
  }

  /// After an iteration of level D: where it is the period of the nest (the
  /// outermost level whose iterations are a small part of the budget) and
  /// the measured part has doubled since the last check, stop when the
  /// traffic per iteration has not moved: the second half agreed with the
  /// first. Whole periods are measured, so a repeated sweep stops after two.
  void checkpoint(CacheSim &Sim, size_t D) {
    if (!Warm || Stop || Count < NextCheck)
      return;
    uint64_t Small = std::max<uint64_t>((MeasureEnd - MeasuredCount) / 16, 1);
    if (LevelSize[D] > Small)
      return;
    for (size_t Up = 0; Up < D; ++Up)
      if (std::max(LevelSize[Up], Count - LevelStart[Up]) <= Small)
        return; // an enclosing level is the period
    std::vector<double> Rate = rates(Sim);
    bool Agree = !LastRate.empty();
    for (size_t I = 0; Agree && I < Rate.size(); ++I)
      Agree = settled(Rate[I], LastRate[I]);
    if (Agree) {
      Stop = true;
      Converged = true;
      return;
    }
    LastRate = std::move(Rate);
    NextCheck = MeasuredCount + 2 * (Count - MeasuredCount);
  }

  /// Per level, four counts since the statistics began: the lines taken
  /// in, the write-backs, the misses and the irregular misses.
  std::vector<double> counts(const CacheSim &Sim) const {
    std::vector<double> T;
    for (size_t I = 0; I < Sim.stats().size(); ++I)
      for (uint64_t V : {Sim.stats()[I].LinesIn, Sim.stats()[I].WriteBacks,
                         Sim.stats()[I].Misses, IrregularMisses[I]})
        T.push_back(double(V));
    return T;
  }

  /// counts(), with the write-backs the nest has caused so far: those done,
  /// and the dirty lines a flush would write back now (a flush adds nothing
  /// else).
  std::vector<double> totals(const CacheSim &Sim) const {
    std::vector<double> T = counts(Sim);
    std::vector<uint64_t> Flushed = Sim.flushWriteBacks();
    for (size_t I = 0; I < Flushed.size(); ++I)
      T[4 * I + 1] += double(Flushed[I]);
    return T;
  }

  /// A whole replay of a rectangular nest without loaded values in its
  /// addresses repeats one outermost iteration shifted in memory, so its
  /// traffic per iteration settles once the caches hold what the next
  /// iteration reuses. After outermost iterations 1, 2, 4, 8, ...: stop when
  /// the last two windows (each of 2^16 accesses at least) agree to 0.2 %,
  /// and take the rest at the last window's rate (counting write-backs with
  /// what a flush would add, so that the lines still dirty are not lost).
  void settle(CacheSim &Sim) {
    if (++OuterDone < NextSample)
      return;
    NextSample *= 2;
    if (Count < (uint64_t(1) << 16) || OuterDone < Period)
      return; // each window of 2^16 accesses and a whole period at least
    Samples.push_back({Count, Iterations, totals(Sim)});
    size_t N = Samples.size();
    if (N < 3 || OuterDone < 8)
      return; // the windows after outermost iterations 2..4 and 4..8 first
    const Sample &A = Samples[N - 3], &B = Samples[N - 2], &C = Samples[N - 1];
    double Wa = double(B.Iterations - A.Iterations), Wb = double(C.Iterations - B.Iterations);
    for (size_t I = 0; I < C.Totals.size(); ++I) {
      double Ra = (B.Totals[I] - A.Totals[I]) / Wa * 1000,
             Rb = (C.Totals[I] - B.Totals[I]) / Wb * 1000;
      if (!settled(Rb, Ra))
        return;
    }
    Stop = true;
    Extrapolated = true;
  }

  /// Lines in and written back at each level, and its irregular misses, per
  /// iteration measured (in 1/1000 of a line, so that the agreement above
  /// is 0.2 % or two lines per million iterations).
  std::vector<double> rates(const CacheSim &Sim) const {
    double Its = double(std::max<uint64_t>(Iterations - MeasuredFrom, 1)) / 1000;
    std::vector<double> R;
    for (size_t I = 0; I < Sim.stats().size(); ++I) {
      R.push_back(double(Sim.stats()[I].LinesIn) / Its);
      R.push_back(double(Sim.stats()[I].WriteBacks) / Its);
      R.push_back(double(IrregularMisses[I]) / Its);
    }
    return R;
  }

  /// Counts from here on: the caches stay as they are, the statistics start
  /// at zero and MEASURE accesses are replayed.
  void startMeasuring(CacheSim &Sim, uint64_t Measure) {
    Sim.resetStats();
    std::fill(IrregularMisses.begin(), IrregularMisses.end(), 0);
    Warm = true;
    MeasuredFrom = Iterations;
    MeasuredCount = Count;
    MeasureEnd = Count + Measure;
    // The first check after one of the spans that took in the data (2^15
    // accesses at least), so that the earliest stop, at the second, has
    // measured two such spans and set their second half against the first.
    NextCheck = Count + std::min<uint64_t>(Measure, std::max<uint64_t>(LastGrowth, 1 << 15));
    LastRate.clear();
  }

  const LoopKernel &K;
  const KernelIR &IR;
  const SimOptions &O;
  std::map<std::string, int64_t> B;
  std::map<std::string, size_t> Level;
  std::vector<DataSlot> Slots;
  std::vector<Lin> Lower, Upper;
  std::vector<CompiledAccess> Accesses;
  std::vector<std::vector<CompiledAccess>> Outer; ///< per nest level, its own references
  std::vector<int64_t> IV;
  /// The innermost row's current offset of each access and its step.
  std::vector<int64_t> Offsets, Steps;
  std::vector<uint64_t> IrregularMisses, Before; ///< per level
  /// Set when the machine has a stream prefetcher at some level.
  std::optional<StreamTracker> Streams;
  uint64_t Count = 0, Iterations = 0, MeasuredFrom = 0, MeasuredCount = 0;
  uint64_t WarmLines = 0, MeasureEnd = ~uint64_t(0);
  bool Stop = false, Warm = false, WarmedByCap = false, Converged = false;
  /// The warm-up: the last level's intake and the access count it last grew.
  uint64_t LastIntake = 0, LastGrowth = 0;
  /// Per nest level: the access count its current iteration began at, and
  /// the accesses of its last whole iteration.
  std::vector<uint64_t> LevelStart, LevelSize;
  /// The convergence check: when next, and the rates at the last one.
  uint64_t NextCheck = ~uint64_t(0);
  std::vector<double> LastRate;
  /// The extrapolation of a whole replay (settle): samples of totals() after
  /// outermost iterations 1, 2, 4, ...
  struct Sample {
    uint64_t Count = 0, Iterations = 0;
    std::vector<double> Totals;
  };
  bool MayExtrapolate = false, Extrapolated = false;
  uint64_t OuterDone = 0, NextSample = 1, Period = 1;
  std::vector<Sample> Samples;
};

/// What a replay found: the traffic per iteration and how it was measured
/// (or why it could not be).
struct Replayed {
  std::string Reason;
  std::vector<LinkTraffic> Links;
  std::vector<double> MissesPerIt, IrregularMissesPerIt;
  uint64_t SimulatedIterations = 0, RatedIterations = 0;
  std::vector<std::string> Notes;
};

/// Runs RP's prepared nest through M's caches: sliced (a warm-up capped at
/// WARMUPCAP accesses, then MEASURE) or whole; the traffic per iteration.
Replayed replay(Replayer &Rp, const MachineModel &M, const SimOptions &O, bool Sliced,
                uint64_t WarmupCap, uint64_t Measure, double Total, bool Streams) {
  Replayed Out;
  CacheSim Sim(CacheSim::fromMachine(M, O.Prefetch));
  Rp.IrregularMisses.assign(M.Caches.size(), 0);
  Rp.Before.assign(M.Caches.size(), 0);
  if (Streams)
    Rp.Streams.emplace(Sim.lineBytes());
  Rp.run(Sim, WarmupCap, Measure);
  // A nest of unknown size (data-dependent bounds) may end inside the
  // warm-up: then it was replayed whole, like a small nest.
  if (Sliced && !Rp.Stop && Rp.MeasuredFrom == 0 && !Rp.Warm)
    Sliced = false;
  bool Twice = false;
  if (O.Repeated && !Sliced && Rp.Error.empty()) {
    // The first execution warmed the caches; measure the next one (up to
    // the budget), as a loop that is run again and again sees it.
    Rp.Stop = false;
    Rp.startMeasuring(Sim, std::max<uint64_t>(O.MaxAccesses, 1));
    Rp.NextCheck = ~uint64_t(0); // the whole execution is the period
    Rp.run(Sim, 0, 0);
    Twice = true;
  }
  if (!Sliced && !Twice && !Rp.Extrapolated)
    Sim.flush(); // every stored line reaches memory once per execution
  if (!Rp.Error.empty()) {
    Out.Reason = Rp.Error;
    return Out;
  }
  uint64_t Measured = Rp.Iterations - Rp.MeasuredFrom;
  if (Measured == 0) {
    Out.Reason = "the loop nest has no iterations at the bound sizes";
    return Out;
  }
  double Its = double(Measured);
  unsigned Line = Sim.lineBytes();
  std::vector<double> Totals; // as Replayer::counts lays them out
  if (Rp.Extrapolated) {
    const auto &B = Rp.Samples[Rp.Samples.size() - 2], &C = Rp.Samples.back();
    double Rest = (Total - double(C.Iterations)) / double(C.Iterations - B.Iterations);
    for (size_t I = 0; I < C.Totals.size(); ++I)
      Totals.push_back(C.Totals[I] + (C.Totals[I] - B.Totals[I]) * Rest);
    Its = Total;
  } else {
    Totals = Rp.counts(Sim);
  }
  for (size_t I = 0; I < M.Caches.size(); ++I) {
    LinkTraffic L;
    L.Inner = M.Caches[I].Name;
    L.Outer = M.levelName(I + 1);
    L.LoadBytesPerIt = Totals[4 * I] * Line / Its;
    L.EvictBytesPerIt = Totals[4 * I + 1] * Line / Its;
    Out.Links.push_back(L);
    Out.MissesPerIt.push_back(Totals[4 * I + 2] / Its);
    Out.IrregularMissesPerIt.push_back(Totals[4 * I + 3] / Its);
  }
  Out.SimulatedIterations = Measured;
  Out.RatedIterations = uint64_t(Its);
  if (Sliced && Rp.WarmedByCap)
    Out.Notes.push_back("the warm-up stopped at its cap before " + M.Caches.back().Name +
                        " was filled: its traffic may be below the steady state "
                        "(raise --sim-accesses)");
  if (Sliced)
    Out.Notes.push_back("simulated a slice: " + std::to_string(Measured) +
                        " iterations measured after " + std::to_string(Rp.MeasuredFrom) +
                        " of warm-up" +
                        (Rp.Converged ? ", when its traffic per iteration had settled" : "") +
                        (std::isfinite(Total)
                             ? " (the nest has " + std::to_string(uint64_t(Total)) + ")"
                             : ""));
  else if (Twice)
    Out.Notes.push_back("simulated the nest twice and measured the second execution (" +
                        std::to_string(Measured) + " iterations" +
                        (Rp.Stop ? ", to the replay budget" : "") +
                        "): caches warm from the first, dirty lines left in them");
  else if (Rp.Extrapolated)
    Out.Notes.push_back("simulated the nest from cold caches until its traffic per iteration "
                        "had settled (" + std::to_string(Measured) + " of its " +
                        std::to_string(uint64_t(Total)) +
                        " iterations), the rest at that rate, dirty lines written back at the end");
  else
    Out.Notes.push_back("simulated the whole nest once from cold caches (" +
                        std::to_string(Measured) +
                        " iterations), dirty lines written back at the end");
  return Out;
}

} // namespace

TrafficResult perfmodel::simulateTraffic(const LoopKernel &K, const KernelIR &IR,
                                         const MachineModel &M, const SimOptions &O) {
  StageScope Timed(Stage::Simulator);
  TrafficResult R = startTraffic(TrafficSource::Simulator, K, M);
  if (!R.Reason.empty())
    return R;
  Replayer Rp(K, IR, O);
  if (!Rp.prepare(M)) {
    R.Reason = Rp.Error;
    return R;
  }
  if (Rp.Accesses.empty()) {
    R.Reason = "the loop touches no memory";
    return R;
  }
  NestGeometry G(K, IR);
  double Total = G.ok() ? G.totalIterations() : std::numeric_limits<double>::infinity();
  double PerIt = double(Rp.Accesses.size());
  // Small nests are replayed whole from cold caches. Larger ones are sliced:
  // a warm-up (see Replayer::body), then half the budget measured.
  bool Sliced = Total * PerIt > double(O.MaxAccesses);
  uint64_t WarmupCap = 0, Measure = ~uint64_t(0);
  if (Sliced) {
    const CacheLevel &LLC = M.Caches.back();
    Rp.WarmLines = (LLC.SizeBytes / LLC.LineBytes) * 5 / 4;
    WarmupCap = 4 * O.MaxAccesses;
    Measure = std::max<uint64_t>(O.MaxAccesses / 2, 1);
  } else {
    Rp.Warm = true;
    Rp.MayExtrapolate = O.Settle && !O.Repeated && K.Nest.size() >= 2 && Rp.rectangular() &&
                        Total * PerIt > double(uint64_t(1) << 20);
  }
  if (Rp.MayExtrapolate)
    Rp.Period = Rp.outerPeriod(CacheSim::fromMachine(M, O.Prefetch).front().LineBytes);
  bool Streams = std::any_of(M.Caches.begin(), M.Caches.end(), [](const CacheLevel &C) {
    return C.Prefetch == PrefetchKind::Stream;
  });
  // A file's copies of one nest over the same sizes (a generated file's 45
  // stencils) replay the same addresses: one replay each, kept for the
  // process, keyed by the nest's addresses and the caches and options that
  // replay them.
  std::string Key = Rp.key();
  if (!Key.empty()) {
    for (const CacheLevelConfig &C : CacheSim::fromMachine(M, O.Prefetch))
      Key += '|' + std::to_string(C.SizeBytes) + ',' + std::to_string(C.Ways) + ',' +
             std::to_string(C.LineBytes) + ',' + std::to_string(int(C.Policy)) + ',' +
             std::to_string(C.NextLinePrefetch) + ',' + std::to_string(C.WriteAllocate);
    for (uint64_t V : {uint64_t(Sliced), WarmupCap, Measure, uint64_t(Rp.Warm),
                       uint64_t(Rp.MayExtrapolate), Rp.Period, Rp.WarmLines, uint64_t(Streams),
                       uint64_t(O.Repeated), O.MaxAccesses})
      Key += ',' + std::to_string(V);
    Key += ',' + std::to_string(Total);
  }
  static std::mutex Lock;
  static std::unordered_map<std::string, Replayed> Memo;
  std::optional<Replayed> Got;
  if (!Key.empty()) {
    std::lock_guard<std::mutex> Guard(Lock);
    if (auto It = Memo.find(Key); It != Memo.end())
      Got = It->second;
  }
  if (!Got) {
    Got = replay(Rp, M, O, Sliced, WarmupCap, Measure, Total, Streams);
    if (!Key.empty()) {
      std::lock_guard<std::mutex> Guard(Lock);
      if (Memo.size() > 10'000)
        Memo.clear();
      Memo.emplace(std::move(Key), *Got);
    }
  }
  if (!Got->Reason.empty()) {
    R.Reason = Got->Reason;
    return R;
  }
  R.Links = Got->Links;
  R.MissesPerIt = Got->MissesPerIt;
  R.IrregularMissesPerIt = Got->IrregularMissesPerIt;
  R.SimulatedIterations = Got->SimulatedIterations;
  R.RatedIterations = Got->RatedIterations;
  outerL1Bytes(K, G, R);
  R.TotalIterations = std::isfinite(Total) && Total < 1.8e19 ? uint64_t(Total) : 0;
  R.Notes = Got->Notes;
  if (O.Index)
    for (const auto &[Name, Desc] : O.Index->Origin)
      R.Notes.push_back("index data: " + Name + " from " + Desc);
  R.Ok = true;
  return R;
}

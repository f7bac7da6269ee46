//===- MemoryDeps.cpp - Which loads read what a store wrote ---------------===//
//
// Which loads read what a store of the block wrote: each access's address as
// a symbolic base plus offset, tracked through the registers over two
// iterations (BHive's aliasing of pages and registers where asked), so that
// store-to-load forwarding carries a dependence in the schedule.
//
//===----------------------------------------------------------------------===//
#include "MemoryDeps.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCInstrDesc.h"

#include <map>
#include <tuple>

using namespace perfmodel;
using namespace llvm;

namespace {

constexpr int64_t InitBase = 0;  // BHive's one initial value
constexpr int64_t ConstBase = 1; // an absolute constant
constexpr int64_t RipBase = 2;   // the code's own address

struct Value {
  int64_t Base = 0, Offset = 0;
};

} // namespace

unsigned perfmodel::accessBytes(StringRef Text) {
  static const std::pair<const char *, unsigned> Widths[] = {
      {"zmmword ptr", 64}, {"ymmword ptr", 32}, {"xmmword ptr", 16}, {"qword ptr", 8},
      {"dword ptr", 4},    {"tbyte ptr", 10},   {"word ptr", 2},     {"byte ptr", 1}};
  for (const auto &[Key, Bytes] : Widths)
    if (Text.contains(Key))
      return Bytes;
  return 8;
}

namespace {

/// What the tracker reads of an opcode's name, decided once per opcode: a
/// nest trace runs four passes over a thousand instructions, and matching
/// names each time cost more than the tracking.
struct OpFacts {
  enum Kind : uint8_t {
    Other,
    MovRR,    ///< mov r64/r32, r
    MovRI,    ///< mov r, imm
    AddSubRI, ///< add/sub r, imm
    IncDec,
    Lea,
    ZeroCand, ///< xor/sub r, r (a zero idiom when both are the same)
    LoadVal,  ///< mov r, [m] and pop r: the value memory holds
  };
  Kind K = Other;
  bool Known = false;
  bool Wide = false;     ///< names a 64- or 32-bit form
  bool Plus = false;     ///< add (not sub), inc (not dec), push (not pop)
  bool Masked = false;   ///< a masked store
  bool PushPop64 = false, Pop64 = false, PushPop = false;
  bool StoreReg = false; ///< mov [m], r and push r: store a register's value
};

OpFacts opFacts(StringRef Name) {
  OpFacts F;
  F.Known = true;
  F.Wide = Name.contains("64") || Name.contains("32");
  F.Masked = Name.ends_with("mrk") || (Name.contains("MASKMOV") && Name.ends_with("mr"));
  F.Pop64 = Name.starts_with("POP64");
  F.PushPop64 = Name.starts_with("PUSH64") || F.Pop64;
  F.PushPop = Name.starts_with("PUSH") || Name.starts_with("POP");
  F.StoreReg = Name == "MOV64mr" || Name == "MOV32mr" || Name == "PUSH64r";
  if (Name.starts_with("MOV64rr") || Name.starts_with("MOV32rr"))
    F.K = OpFacts::MovRR;
  else if (Name.starts_with("MOV64ri") || Name.starts_with("MOV32ri"))
    F.K = OpFacts::MovRI;
  else if (Name.starts_with("ADD64ri") || Name.starts_with("ADD32ri") ||
           Name.starts_with("SUB64ri") || Name.starts_with("SUB32ri"))
    F.K = OpFacts::AddSubRI;
  else if (Name == "INC64r" || Name == "INC32r" || Name == "DEC64r" || Name == "DEC32r")
    F.K = OpFacts::IncDec;
  else if (Name == "LEA64r" || Name == "LEA64_32r" || Name == "LEA32r")
    F.K = OpFacts::Lea;
  else if (Name.starts_with("XOR64rr") || Name.starts_with("XOR32rr") ||
           Name.starts_with("SUB64rr") || Name.starts_with("SUB32rr"))
    F.K = OpFacts::ZeroCand;
  else if (Name == "MOV64rm" || Name == "MOV32rm" || Name == "POP64r")
    F.K = OpFacts::LoadVal;
  if (F.K == OpFacts::AddSubRI || F.K == OpFacts::IncDec)
    F.Plus = Name.starts_with("ADD") || Name.starts_with("INC");
  else if (F.PushPop)
    F.Plus = Name.starts_with("PUSH");
  return F;
}

/// The facts of a target's opcodes, kept by the thread across blocks.
std::vector<OpFacts> &factsOf(const MCInstrInfo &MII) {
  thread_local const MCInstrInfo *Of = nullptr;
  thread_local std::vector<OpFacts> Facts;
  if (Of != &MII || Facts.size() != MII.getNumOpcodes()) {
    Of = &MII;
    Facts.assign(MII.getNumOpcodes(), OpFacts());
  }
  return Facts;
}

class Tracker {
  const TargetBundle &TB;
  bool SameInit;
  std::vector<OpFacts> &Facts; ///< by opcode, filled as met
  unsigned Rsp = 0, Rbp = 0, Rip = 0;
  /// By 64-bit general-purpose register number; Have says which are set.
  std::vector<Value> Regs;
  std::vector<bool> Have;
  int64_t Fresh = 1'000'000;
  /// base + scale x index with both symbolic: one symbol per combination
  /// (y[i] through [r15 + 8*rdx], rdx fixed in the loop: the same place
  /// each iteration, a chain through memory).
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> Combined;

public:
  Tracker(const TargetBundle &TB, bool SameInit)
      : TB(TB), SameInit(SameInit), Facts(factsOf(*TB.MII)), Regs(TB.MRI->getNumRegs()),
        Have(TB.MRI->getNumRegs()) {
    for (unsigned R = 1; R < TB.MRI->getNumRegs(); ++R) {
      StringRef Name = TB.MRI->getName(R);
      (Name == "RSP" ? Rsp : Name == "RBP" ? Rbp : Name == "RIP" ? Rip : R) = R;
    }
  }

  const OpFacts &facts(unsigned Opcode) {
    if (!Facts[Opcode].Known)
      Facts[Opcode] = opFacts(TB.MII->getName(Opcode));
    return Facts[Opcode];
  }

  void set(unsigned Reg, Value V) {
    Regs[Reg] = V;
    Have[Reg] = true;
  }

  /// The 64-bit general-purpose register REG is part of, or 0.
  unsigned gpr(unsigned Reg) const { return Reg ? TB.gpr64(Reg) : 0; }
  bool isStackPointer(unsigned Reg) const { return Reg && Reg == Rsp; }

  Value get(unsigned Reg) {
    if (Have[Reg])
      return Regs[Reg];
    Value V;
    if (SameInit) {
      // BHive's harness: rsp in the middle of the page, rbp 16 bytes below
      // (aligned to 32 bytes, less 16).
      V = {InitBase, Reg == Rsp ? 2048 : Reg == Rbp ? 2032 : 0};
    } else {
      V = {int64_t(1000 + Reg), 0};
    }
    set(Reg, V);
    return V;
  }
  Value fresh() { return {Fresh++, 0}; }
  /// What memory holds: the value each store wrote, by base and start
  /// (modulo a page for BHive's one physical page). Cells never overlap:
  /// a store removes every cell it meets. Ordered, so that the cells a
  /// load meets are found by their start (a nest trace stores to hundreds
  /// of places).
  struct Cell {
    unsigned Size;
    Value V;
  };
  std::map<std::pair<int64_t, int64_t>, Cell> Memory;
  int64_t Widest = 1; ///< the widest cell stored
  int64_t key(const MemAccess &A) const {
    if (!SameInit || A.Base != InitBase)
      return A.Offset;
    return ((A.Offset % 4096) + 4096) % 4096;
  }
  /// The first cell that may meet A, and A's start.
  std::pair<std::map<std::pair<int64_t, int64_t>, Cell>::iterator, int64_t>
  firstNear(const MemAccess &A) {
    int64_t K = key(A);
    return {Memory.lower_bound({A.Base, K - Widest + 1}), K};
  }
  /// A load's value: what a store of the same place and size wrote, a new
  /// value where stores wrote part of it, else the initial contents (BHive
  /// fills its page with the initial value).
  Value loaded(const MemAccess &A) {
    if (!A.Known)
      return fresh();
    auto [It, K] = firstNear(A);
    for (; It != Memory.end() && It->first.first == A.Base && It->first.second < K + int64_t(A.Size);
         ++It)
      if (K < It->first.second + int64_t(It->second.Size))
        return It->first.second == K && It->second.Size == A.Size ? It->second.V : fresh();
    return SameInit ? Value{InitBase, 0} : fresh();
  }
  void stored(const MemAccess &A, Value V) {
    if (!A.Known)
      return;
    auto [It, K] = firstNear(A);
    while (It != Memory.end() && It->first.first == A.Base && It->first.second < K + int64_t(A.Size))
      It = K < It->first.second + int64_t(It->second.Size) ? Memory.erase(It) : std::next(It);
    Memory[{A.Base, K}] = {A.Size, V};
    Widest = std::max(Widest, int64_t(A.Size));
  }

  /// The access of I (before I changes any register).
  MemAccess access(const MCInst &I, const InstrCost &C, uint64_t NextAddress) {
    MemAccess A;
    A.Load = C.MayLoad;
    A.Store = C.MayStore;
    A.Any = A.Load || A.Store;
    if (!A.Any)
      return A;
    A.Size = C.AccessBytes;
    const OpFacts &F = facts(I.getOpcode());
    A.Masked = A.Store && F.Masked;
    const MCInstrDesc &D = TB.MII->get(I.getOpcode());
    if (F.PushPop64) {
      unsigned Sp = 0;
      for (MCPhysReg R : D.implicit_uses())
        if (isStackPointer(R))
          Sp = R;
      if (Sp && (F.Pop64 || D.getNumOperands() <= 1 ||
                 !StringRef(C.Text).contains("ptr"))) {
        Value V = get(gpr(Sp));
        A.Known = true;
        A.Base = V.Base;
        A.Offset = V.Offset - (F.Pop64 ? 0 : 8);
        A.Size = 8;
        return A;
      }
    }
    for (unsigned K = 0; K + 4 < I.getNumOperands() && K < D.getNumOperands(); ++K) {
      // lea's address operand is not typed as memory (lea64mem is a plain
      // Operand in LLVM's tables): without it an induction variable stepped
      // by `lea 2(rcx), r15; mov rcx, r15` looked new every iteration.
      if (D.operands()[K].OperandType != MCOI::OPERAND_MEMORY &&
          !(K == 1 && F.K == OpFacts::Lea))
        continue;
      const MCOperand &B = I.getOperand(K), &S = I.getOperand(K + 1), &X = I.getOperand(K + 2),
                      &Dp = I.getOperand(K + 3), &Sg = I.getOperand(K + 4);
      if (!B.isReg() || !S.isImm() || !X.isReg() || !Dp.isImm() || !Sg.isReg() || Sg.getReg())
        return A; // symbolic displacement, fs/gs: unknown
      Value V;
      if (!B.getReg())
        V = {ConstBase, 0};
      else if (B.getReg() == Rip && Rip) {
        // A compiled object's globals: the displacement is a relocation not
        // applied yet (0), so the places are unknown; BHive's are real.
        if (!SameInit)
          return A;
        V = {RipBase, int64_t(NextAddress)};
      }
      else if (unsigned G = gpr(B.getReg()))
        V = get(G);
      else
        return A;
      if (X.getReg()) {
        unsigned G = gpr(X.getReg());
        if (!G)
          return A;
        Value Ix = get(G);
        if (Ix.Base != ConstBase) {
          auto Key = std::make_tuple(V.Base, Ix.Base, int64_t(S.getImm()));
          auto [It, New] = Combined.try_emplace(Key, 0);
          if (New)
            It->second = 2'000'000'000 + int64_t(Combined.size());
          V.Base = It->second;
        }
        V.Offset += S.getImm() * Ix.Offset;
      }
      A.Known = true;
      A.Base = V.Base;
      A.Offset = V.Offset + Dp.getImm();
      return A;
    }
    return A;
  }

  /// Follows I's effect on the registers.
  void step(const MCInst &I, const InstrCost &C, const MemAccess &A) {
    const OpFacts &F = facts(I.getOpcode());
    const MCInstrDesc &D = TB.MII->get(I.getOpcode());
    auto Imm = [&]() -> std::optional<int64_t> {
      for (unsigned K = I.getNumOperands(); K-- > 0;)
        if (I.getOperand(K).isImm())
          return I.getOperand(K).getImm();
      return std::nullopt;
    };
    unsigned Dst = D.getNumDefs() && I.getNumOperands() && I.getOperand(0).isReg()
                       ? gpr(I.getOperand(0).getReg())
                       : 0;
    const bool Wide = F.Wide;
    std::optional<Value> New;
    if (Dst && Wide && F.K == OpFacts::MovRR) {
      if (unsigned Src = gpr(I.getOperand(1).getReg()))
        New = get(Src);
    } else if (Dst && F.K == OpFacts::MovRI) {
      if (auto V = Imm())
        New = Value{ConstBase, *V};
    } else if (Dst && Wide && F.K == OpFacts::AddSubRI) {
      if (auto V = Imm()) {
        Value Old = get(Dst);
        New = Value{Old.Base, Old.Offset + (F.Plus ? *V : -*V)};
      }
    } else if (auto Acc = accumulatorStep(I, *TB.MII, *TB.MRI); Acc && gpr(Acc->first)) {
      Value Old = get(gpr(Acc->first));
      Dst = gpr(Acc->first);
      New = Value{Old.Base, Old.Offset + Acc->second};
    } else if (Dst && F.K == OpFacts::IncDec) {
      Value Old = get(Dst);
      New = Value{Old.Base, Old.Offset + (F.Plus ? 1 : -1)};
    } else if (Dst && F.K == OpFacts::Lea) {
      InstrCost Probe; // lea computes an address without accessing it
      Probe.MayLoad = true;
      MemAccess Lea = access(I, Probe, 0);
      if (Lea.Known)
        New = Value{Lea.Base, Lea.Offset};
    } else if (Dst && Wide && F.K == OpFacts::ZeroCand &&
               I.getNumOperands() >= 3 && I.getOperand(1).isReg() && I.getOperand(2).isReg() &&
               I.getOperand(1).getReg() == I.getOperand(2).getReg()) {
      New = Value{ConstBase, 0}; // zero idiom
    } else if (Dst && C.MayLoad && !C.MayStore &&
               F.K == OpFacts::LoadVal) {
      New = loaded(A);
    }
    if (C.MayStore) {
      // mov [m], reg and push reg store a register's value; anything else
      // a new one.
      Value V = fresh();
      if (F.StoreReg &&
          I.getNumOperands() && I.getOperand(I.getNumOperands() - 1).isReg())
        if (unsigned Src = gpr(I.getOperand(I.getNumOperands() - 1).getReg()))
          V = get(Src);
      stored(A, V);
    }
    // Every register the instruction writes; the stack pointer moves by 8
    // with push and pop.
    for (unsigned K = 0; K < D.getNumDefs() && K < I.getNumOperands(); ++K)
      if (I.getOperand(K).isReg())
        if (unsigned G = gpr(I.getOperand(K).getReg()))
          set(G, fresh());
    for (MCPhysReg R : D.implicit_defs())
      if (unsigned G = gpr(R)) {
        if (isStackPointer(G) && F.PushPop) {
          Value Old = get(G);
          set(G, {Old.Base, Old.Offset + (F.Plus ? -8 : 8)});
        } else {
          set(G, fresh());
        }
      }
    if (New && Dst)
      set(Dst, *New);
  }
};

bool sameBase(const MemAccess &A, const MemAccess &B) {
  return A.Any && B.Any && A.Known && B.Known && A.Base == B.Base;
}

/// B's start relative to A's, modulo a page for the shared initial value.
int64_t delta(const MemAccess &A, const MemAccess &B, bool PageAlias) {
  int64_t D = B.Offset - A.Offset;
  if (PageAlias && A.Base == InitBase) {
    D %= 4096;
    if (D < 0)
      D += 4096;
    if (D >= 4096 - int64_t(B.Size)) // B starts below A on the page
      D -= 4096;
  }
  return D;
}

} // namespace

std::vector<MemAccess> perfmodel::abstractAccesses(const std::vector<MCInst> &Insts,
                                                   const std::vector<InstrCost> &Costs,
                                                   const TargetBundle &TB, bool SameInit) {
  size_t N = Insts.size();
  std::vector<MemAccess> Out(2 * N);
  Tracker T(TB, SameInit);
  // Two iterations set registers and memory up the way every later one
  // finds them; the next two are recorded.
  for (unsigned It = 0; It < 4; ++It)
    for (size_t I = 0; I < N; ++I) {
      uint64_t Next = I + 1 < N ? Costs[I + 1].Address : Costs[I].Address + 1;
      MemAccess A = T.access(Insts[I], Costs[I], Next);
      if (It >= 2)
        Out[(It - 2) * N + I] = A;
      T.step(Insts[I], Costs[I], A);
    }
  return Out;
}

bool perfmodel::overlaps(const MemAccess &A, const MemAccess &B, bool PageAlias) {
  if (!sameBase(A, B))
    return false;
  int64_t D = delta(A, B, PageAlias);
  return D < int64_t(A.Size) && D + int64_t(B.Size) > 0;
}

bool perfmodel::covers(const MemAccess &A, const MemAccess &B, bool PageAlias) {
  if (!sameBase(A, B))
    return false;
  int64_t D = delta(A, B, PageAlias);
  return D >= 0 && D + int64_t(B.Size) <= int64_t(A.Size);
}

//===- KernelLoops.cpp - Find and cost the machine loop of a source loop --===//
//
// The file is compiled once. Machine loops are backward branches inside a
// function; the innermost ones whose instructions mostly carry the source
// loop's lines (DWARF) are its candidates. When the compiler emitted several
// (vector body, scalar remainder), the one that covers the most source
// iterations per trip is the hot body.
//
//===----------------------------------------------------------------------===//
#include "MemoryDeps.h"
#include "ObjectCode.h"
#include "TargetBundle.h"
#include "perfmodel/InCore.h"
#include "perfmodel/StageTimes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

using namespace perfmodel;
using namespace llvm;

namespace {

struct Decoded {
  uint64_t Off, Size;
  MCInst Inst;
};
struct Block {
  size_t First = 0, Last = 0; ///< instruction indices, inclusive
  std::vector<size_t> Succs, Preds;
  bool Calls = false;
};
/// A function's decoded instructions, basic blocks and natural loops
/// (header -> blocks), kept for the nest around a machine loop.
struct FunctionCFG {
  const FunctionCode *F = nullptr;
  std::vector<Decoded> All;
  std::vector<Block> Blocks;
  std::map<size_t, std::set<size_t>> Body;
};

struct MachineLoop {
  const FunctionCode *F = nullptr;
  const FunctionCFG *Cfg = nullptr;
  size_t Header = 0;
  std::set<size_t> Kept; ///< the costed blocks
  uint64_t Begin = 0, End = 0; ///< byte offsets in the function: the first and last piece
  /// The costed blocks as byte ranges in address order: the loop's blocks
  /// minus avoidable ones that call out (errno paths), including hot blocks
  /// the compiler placed out of line.
  std::vector<std::pair<uint64_t, uint64_t>> Pieces;
  unsigned ColdBlocks = 0; ///< blocks with calls left out
  std::vector<MCInst> Insts;

  template <typename Fn> void forEachByte(Fn F) const {
    for (const auto &[B, E] : Pieces)
      for (uint64_t O = B; O < E; ++O)
        F(O);
  }
};

/// Functions of the object a loop's call to them is costed through: code
/// without a branch or call before its first return (f's x * x + 1.0f), at
/// most 256 bytes, by symbol. Their instructions are what a call runs.
struct StraightCallees {
  std::map<std::string, std::pair<const FunctionCode *, uint64_t>> Code; ///< bytes to the ret
};

StraightCallees straightCallees(const ObjectFileBytes &Obj, TargetBundle &TB) {
  StraightCallees C;
  if (!TB.MIA)
    return C;
  for (const FunctionCode &F : Obj.Functions)
    for (uint64_t Off = 0; Off < F.Bytes.size() && Off < 256;) {
      MCInst Inst;
      uint64_t Size = 0;
      if (TB.Dis->getInstruction(Inst, Size, ArrayRef<uint8_t>(F.Bytes).slice(Off), Off,
                                 nulls()) != MCDisassembler::Success ||
          !Size)
        break;
      Off += Size;
      if (TB.MIA->isReturn(Inst)) {
        C.Code[F.Name] = {&F, Off};
        break;
      }
      if (TB.MIA->isBranch(Inst) || TB.MIA->isCall(Inst) || TB.MIA->isIndirectBranch(Inst))
        break;
    }
  return C;
}

/// Appends F's byte at offset O (and its line); when it ends a call (E8
/// rel32) to a straight-line function of the object, that function's code
/// follows, as the core runs it. SPLICED collects the callees' names.
void appendExecuted(const FunctionCode &F, uint64_t O, const StraightCallees &C,
                    std::vector<uint8_t> &Bytes, std::vector<unsigned> &Lines,
                    std::vector<std::string> *Spliced = nullptr) {
  Bytes.push_back(F.Bytes[O]);
  Lines.push_back(F.Lines[O]);
  if (O < 4 || F.Bytes[O - 4] != 0xE8)
    return;
  auto Sym = F.Symbols.find(O - 3);
  if (Sym == F.Symbols.end())
    return;
  auto Callee = C.Code.find(Sym->second);
  if (Callee == C.Code.end())
    return;
  const auto &[Code, Length] = Callee->second;
  Bytes.insert(Bytes.end(), Code->Bytes.begin(), Code->Bytes.begin() + Length);
  Lines.insert(Lines.end(), Code->Lines.begin(), Code->Lines.begin() + Length);
  if (Spliced)
    Spliced->push_back(Sym->second);
}

/// The innermost natural loops of F's control-flow graph (back edges to a
/// block that dominates their source). A block inside a loop that calls out
/// is left out when the loop's latches stay reachable without it: the
/// compiler's cold paths (sqrt's errno call) are not the steady state.
std::vector<MachineLoop> findLoops(const FunctionCode &F, TargetBundle &TB,
                                   FunctionCFG &Cfg) {
  Cfg.F = &F;
  std::vector<Decoded> &All = Cfg.All;
  for (uint64_t Off = 0; Off < F.Bytes.size();) {
    MCInst Inst;
    uint64_t Size = 0;
    if (TB.Dis->getInstruction(Inst, Size, ArrayRef<uint8_t>(F.Bytes).slice(Off), Off,
                               nulls()) != MCDisassembler::Success ||
        Size == 0) {
      ++Off;
      continue;
    }
    All.push_back({Off, Size, Inst});
    Off += Size;
  }
  if (All.empty() || !TB.MIA)
    return {};
  auto Target = [&](const Decoded &D) -> std::optional<uint64_t> {
    uint64_t T;
    if (TB.MIA->isBranch(D.Inst) && TB.MIA->evaluateBranch(D.Inst, D.Off, D.Size, T) &&
        T < F.Bytes.size())
      return T;
    return std::nullopt;
  };
  auto EndsBlock = [&](const Decoded &D) {
    return TB.MIA->isBranch(D.Inst) || TB.MIA->isReturn(D.Inst) ||
           TB.MIA->isIndirectBranch(D.Inst);
  };

  // Basic blocks: leaders are the entry, branch targets and the instruction
  // after a branch or return.
  std::set<uint64_t> Leaders = {All.front().Off};
  for (size_t I = 0; I < All.size(); ++I) {
    if (auto T = Target(All[I]))
      Leaders.insert(*T);
    if (EndsBlock(All[I]) && I + 1 < All.size())
      Leaders.insert(All[I + 1].Off);
  }
  std::vector<Block> &Blocks = Cfg.Blocks;
  std::map<uint64_t, size_t> BlockAt;
  for (size_t I = 0; I < All.size(); ++I) {
    if (Leaders.count(All[I].Off) || Blocks.empty()) {
      BlockAt[All[I].Off] = Blocks.size();
      Blocks.push_back({I, I, {}, {}, false});
    }
    Blocks.back().Last = I;
    Blocks.back().Calls |= TB.MIA->isCall(All[I].Inst);
  }
  for (size_t B = 0; B < Blocks.size(); ++B) {
    const Decoded &L = All[Blocks[B].Last];
    bool FallsThrough = !TB.MIA->isReturn(L.Inst) && !TB.MIA->isIndirectBranch(L.Inst) &&
                        !TB.MIA->isUnconditionalBranch(L.Inst);
    if (auto T = Target(L); T && BlockAt.count(*T))
      Blocks[B].Succs.push_back(BlockAt[*T]);
    if (FallsThrough && B + 1 < Blocks.size())
      Blocks[B].Succs.push_back(B + 1);
  }
  for (size_t B = 0; B < Blocks.size(); ++B)
    for (size_t S : Blocks[B].Succs)
      Blocks[S].Preds.push_back(B);

  // Dominators (Cooper, Harvey, Kennedy) over the blocks reachable from the entry.
  std::vector<size_t> Order; // reverse post-order
  std::vector<int> Rpo(Blocks.size(), -1);
  {
    std::vector<char> Seen(Blocks.size(), 0);
    std::vector<std::pair<size_t, size_t>> Stack = {{0, 0}};
    Seen[0] = 1;
    std::vector<size_t> Post;
    while (!Stack.empty()) {
      auto &[B, NextSucc] = Stack.back();
      if (NextSucc < Blocks[B].Succs.size()) {
        size_t S = Blocks[B].Succs[NextSucc++];
        if (!Seen[S]) {
          Seen[S] = 1;
          Stack.push_back({S, 0});
        }
        continue;
      }
      Post.push_back(B);
      Stack.pop_back();
    }
    Order.assign(Post.rbegin(), Post.rend());
    for (size_t I = 0; I < Order.size(); ++I)
      Rpo[Order[I]] = int(I);
  }
  std::vector<int> Idom(Blocks.size(), -1);
  Idom[0] = 0;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B : Order) {
      if (B == 0)
        continue;
      int New = -1;
      for (size_t P : Blocks[B].Preds) {
        if (Idom[P] < 0)
          continue;
        if (New < 0) {
          New = int(P);
          continue;
        }
        int X = int(P), Y = New;
        while (X != Y) {
          while (Rpo[X] > Rpo[Y])
            X = Idom[X];
          while (Rpo[Y] > Rpo[X])
            Y = Idom[Y];
        }
        New = X;
      }
      if (New >= 0 && Idom[B] != New) {
        Idom[B] = New;
        Changed = true;
      }
    }
  }
  auto Dominates = [&](size_t H, size_t B) {
    if (Rpo[B] < 0 || Rpo[H] < 0)
      return false;
    for (int X = int(B);; X = Idom[X]) {
      if (size_t(X) == H)
        return true;
      if (X == 0)
        return false;
    }
  };

  // Natural loops, one per header.
  std::map<size_t, std::set<size_t>> &Body = Cfg.Body;
  std::map<size_t, std::vector<size_t>> Latches;
  for (size_t B = 0; B < Blocks.size(); ++B)
    for (size_t H : Blocks[B].Succs)
      if (Dominates(H, B)) {
        Latches[H].push_back(B);
        std::set<size_t> &L = Body[H];
        L.insert(H);
        std::vector<size_t> Work = {B};
        while (!Work.empty()) {
          size_t X = Work.back();
          Work.pop_back();
          if (!L.insert(X).second && X != B)
            continue;
          if (X == H)
            continue;
          for (size_t P : Blocks[X].Preds)
            if (!L.count(P) && Rpo[P] >= 0) // not alignment padding after a jump
              Work.push_back(P);
        }
      }

  std::vector<MachineLoop> Out;
  for (const auto &[H, L] : Body) {
    bool Innermost = true;
    for (const auto &[H2, L2] : Body)
      if (H2 != H && L.count(H2))
        Innermost = false;
    if (!Innermost)
      continue;
    // Leave out calls the loop can go around: keep the blocks on a path
    // from the header to a latch that avoids every calling block.
    std::set<size_t> Kept = L;
    unsigned Cold = 0;
    if (!Blocks[H].Calls) {
      std::set<size_t> Fwd = {H}, Bwd;
      std::vector<size_t> Work = {H};
      while (!Work.empty()) {
        size_t X = Work.back();
        Work.pop_back();
        for (size_t S : Blocks[X].Succs)
          if (L.count(S) && !Blocks[S].Calls && Fwd.insert(S).second)
            Work.push_back(S);
      }
      for (size_t Lt : Latches.at(H))
        if (Fwd.count(Lt) && Bwd.insert(Lt).second)
          Work.push_back(Lt);
      while (!Work.empty()) {
        size_t X = Work.back();
        Work.pop_back();
        if (X == H)
          continue;
        for (size_t P : Blocks[X].Preds)
          if (Fwd.count(P) && Bwd.insert(P).second)
            Work.push_back(P);
      }
      if (Bwd.count(H)) {
        std::set<size_t> Hot;
        for (size_t X : L)
          if (Fwd.count(X) && Bwd.count(X))
            Hot.insert(X);
        for (size_t X : L)
          Cold += Blocks[X].Calls;
        Kept = std::move(Hot);
      }
    }
    MachineLoop M;
    M.F = &F;
    M.Cfg = &Cfg;
    M.Header = H;
    M.Kept = Kept;
    M.ColdBlocks = Cold;
    for (size_t X : Kept) { // std::set: address order
      uint64_t B = All[Blocks[X].First].Off,
               E = All[Blocks[X].Last].Off + All[Blocks[X].Last].Size;
      if (!M.Pieces.empty() && M.Pieces.back().second == B)
        M.Pieces.back().second = E;
      else
        M.Pieces.push_back({B, E});
      for (size_t I = Blocks[X].First; I <= Blocks[X].Last; ++I)
        M.Insts.push_back(All[I].Inst);
    }
    M.Begin = M.Pieces.front().first;
    M.End = M.Pieces.back().second;
    Out.push_back(std::move(M));
  }
  return Out;
}

/// Source iterations per machine iteration, from the self-increments of
/// registers that address memory: `add rax, 16` with `[rdx + 8*rax]` moves
/// 128 B per trip; at 8 B per source iteration that is 16 iterations. Each
/// memory operand votes for every k its advance is a whole multiple of some
/// source access's stride; the k most operands agree on wins (dgemm's
/// `add r11, 65536` is 4 rows of B, not 8192 elements of A).
/// Lanes of an x86 gather or scatter opcode (VGATHERQPDZrm: 8), 0 for
/// anything else: the register width over the wider of index and element.
unsigned gatherLanes(StringRef Name) {
  size_t At = Name.find("GATHER");
  if (At == StringRef::npos)
    At = Name.find("SCATTER");
  if (At == StringRef::npos || !Name.starts_with("V"))
    return 0;
  StringRef T = Name.substr(Name.find_first_of("DQ", At + 6));
  if (T.size() < 3)
    return 0;
  unsigned Index = T[0] == 'Q' ? 8 : 4;
  StringRef Elem = T.substr(1);
  unsigned Data = Elem.starts_with("PD") || Elem.starts_with("Q") ? 8 : 4;
  StringRef Rest = Elem.drop_front(Elem.starts_with("P") ? 2 : 1);
  unsigned Bits = Rest.starts_with("Z256") ? 256 : Rest.starts_with("Z128") ? 128
                  : Rest.starts_with("Z")  ? 512 : Rest.starts_with("Y") ? 256 : 128;
  return Bits / (8 * std::max(Index, Data));
}

double estimateIterations(const MachineLoop &L, TargetBundle &TB,
                          const std::vector<double> &Strides, int64_t SourceStep = 1,
                          unsigned Gathered = 0, unsigned *Explained = nullptr,
                          const std::map<double, unsigned> *Skipping = nullptr,
                          unsigned *Impossible = nullptr,
                          std::pair<unsigned, unsigned> RefsAndElement = {0, 0}) {
  if (Explained)
    *Explained = 0;
  std::map<unsigned, int64_t> Increments; // register -> bytes or elements per trip
  for (const MCInst &I : L.Insts) {
    StringRef Name = TB.MII->getName(I.getOpcode());
    const MCInstrDesc &D = TB.MII->get(I.getOpcode());
    if (auto Acc = accumulatorStep(I, *TB.MII, *TB.MRI)) {
      Increments[Acc->first] = Acc->second;
      continue;
    }
    if (D.getNumDefs() != 1 || I.getNumOperands() < 2 || !I.getOperand(0).isReg())
      continue;
    unsigned Reg = I.getOperand(0).getReg();
    int64_t Imm = 0;
    bool Found = false;
    if ((Name.starts_with("ADD") || Name.starts_with("SUB")) && I.getNumOperands() >= 3 &&
        I.getOperand(1).isReg() && I.getOperand(1).getReg() == Reg &&
        I.getOperand(2).isImm()) {
      Imm = I.getOperand(2).getImm();
      if (Name.starts_with("SUB"))
        Imm = -Imm;
      Found = true;
    } else if ((Name.starts_with("INC") || Name.starts_with("DEC")) &&
               I.getOperand(1).isReg() && I.getOperand(1).getReg() == Reg) {
      Imm = Name.starts_with("INC") ? 1 : -1;
      Found = true;
    } else if (Name.starts_with("LEA") && I.getNumOperands() >= 6 &&
               I.getOperand(1).isReg() && I.getOperand(1).getReg() == Reg &&
               I.getOperand(3).isReg() && I.getOperand(3).getReg() == 0 &&
               I.getOperand(4).isImm()) {
      Imm = I.getOperand(4).getImm();
      Found = true;
    }
    // AArch64 post-indexed access, `ldr q0, [x9], #32`: operand 0 is the
    // written-back base, the last operand the increment.
    if (!Found && Name.contains("post") && I.getOperand(I.getNumOperands() - 1).isImm()) {
      Imm = I.getOperand(I.getNumOperands() - 1).getImm();
      Found = true;
    }
    if (Found && Imm != 0)
      Increments[Reg] = Imm;
  }
  // `lea rbx, [r11 + 4]` ... `mov r11, rbx`: the counter advances through a
  // copy (clang's rotated loops).
  std::map<unsigned, std::pair<unsigned, int64_t>> LeaFrom; // dst -> (src, imm)
  for (const MCInst &I : L.Insts) {
    StringRef Name = TB.MII->getName(I.getOpcode());
    if (Name.starts_with("LEA") && I.getNumOperands() >= 6 && I.getOperand(0).isReg() &&
        I.getOperand(1).isReg() && I.getOperand(3).isReg() && I.getOperand(3).getReg() == 0 &&
        I.getOperand(4).isImm() && I.getOperand(4).getImm() != 0)
      LeaFrom[I.getOperand(0).getReg()] = {I.getOperand(1).getReg(), I.getOperand(4).getImm()};
  }
  for (const MCInst &I : L.Insts) {
    StringRef Name = TB.MII->getName(I.getOpcode());
    if ((Name == "MOV64rr" || Name == "MOV32rr") && I.getNumOperands() == 2 &&
        I.getOperand(0).isReg() && I.getOperand(1).isReg()) {
      auto It = LeaFrom.find(I.getOperand(1).getReg());
      if (It != LeaFrom.end() && It->second.first == I.getOperand(0).getReg() &&
          !Increments.count(It->second.first))
        Increments[It->second.first] = It->second.second;
    }
  }
  // `imul r11, r10, 1448` with r10 a counter: r11 advances 1448 times as far
  // (a row index scaled to bytes).
  for (const MCInst &I : L.Insts) {
    StringRef Name = TB.MII->getName(I.getOpcode());
    if (Name.starts_with("IMUL64rri") && I.getNumOperands() >= 3 && I.getOperand(0).isReg() &&
        I.getOperand(1).isReg() && I.getOperand(2).isImm()) {
      auto It = Increments.find(I.getOperand(1).getReg());
      if (It != Increments.end() && !Increments.count(I.getOperand(0).getReg()))
        Increments[I.getOperand(0).getReg()] = It->second * I.getOperand(2).getImm();
    }
  }
  // Post-indexed forms define the base as well as the data register.
  for (const MCInst &I : L.Insts) {
    StringRef Name = TB.MII->getName(I.getOpcode());
    if (Name.contains("post") && I.getNumOperands() >= 3 && I.getOperand(0).isReg() &&
        I.getOperand(I.getNumOperands() - 1).isImm() &&
        I.getOperand(I.getNumOperands() - 1).getImm() != 0)
      Increments[I.getOperand(0).getReg()] = I.getOperand(I.getNumOperands() - 1).getImm();
  }
  if (Strides.empty()) {
    // No access advances with the loop (a recurrence in registers): the
    // counter itself tells the unrolling, when every register that advances
    // by a constant advances by the same amount (`add rcx, -8` for eight
    // source iterations of i += 1).
    std::set<int64_t> Steps;
    for (const auto &[Reg, Imm] : Increments)
      Steps.insert(std::llabs(Imm));
    int64_t S = std::llabs(SourceStep ? SourceStep : 1);
    if (Steps.size() == 1 && *Steps.begin() % S == 0)
      return double(*Steps.begin() / S);
    return 1;
  }
  std::map<long, unsigned> Votes;
  // An operand advancing BYTES per trip votes for every k that is a whole
  // number of some access's stride.
  // WIDTH: the bytes the instruction moves. A vector access wider than an
  // element of a reference that skips elements (b[8 * i]: 64 bytes apart,
  // 8 wide) is not that reference's (a gather or scalar loads are).
  // IMPOSSIBLE counts the vector accesses no reference can be: wider than
  // the elements of every reference that skips elements, with no other
  // reference to be (the loop clang versioned for a unit step, i += k).
  if (Impossible)
    *Impossible = 0;
  auto Vote = [&](double Bytes, unsigned Width) {
    std::set<long> Ks;
    bool Excluded = false, Possible = false;
    for (double S : Strides) {
      if (Skipping && Skipping->count(S) && Width > Skipping->at(S)) {
        Excluded = true;
        continue;
      }
      Possible = true;
      double K2 = Bytes / S;
      if (Bytes > 0 && K2 >= 1 && std::fabs(K2 - std::round(K2)) < 1e-9)
        Ks.insert(long(std::round(K2)));
    }
    for (long Kx : Ks)
      ++Votes[Kx];
    if (Impossible && Excluded && !Possible)
      ++*Impossible;
  };
  for (const MCInst &I : L.Insts) {
    const MCInstrDesc &D = TB.MII->get(I.getOpcode());
    if (!D.mayLoad() && !D.mayStore())
      continue;
    bool Voted = false;
    for (unsigned K = 0; K + 2 < I.getNumOperands() && K < D.getNumOperands(); ++K) {
      if (D.operands()[K].OperandType != MCOI::OPERAND_MEMORY || !I.getOperand(K).isReg())
        continue;
      unsigned Base = I.getOperand(K).getReg();
      int64_t Scale = I.getOperand(K + 1).isImm() ? I.getOperand(K + 1).getImm() : 1;
      unsigned Index = I.getOperand(K + 2).isReg() ? I.getOperand(K + 2).getReg() : 0;
      double Bytes = 0;
      if (Increments.count(Index))
        Bytes = double(std::llabs(Increments[Index])) * double(Scale);
      else if (Increments.count(Base))
        Bytes = double(std::llabs(Increments[Base]));
      // Gathers and scatters are how vectors reach references that skip.
      unsigned Width = 0;
      if (Skipping && !Skipping->empty() && !gatherLanes(TB.MII->getName(I.getOpcode())))
        Width = accessBytes(TB.text(I));
      Vote(Bytes, Width);
      Voted = true;
      break; // one memory operand per instruction on x86
    }
    // Targets without memory operand types (AArch64): the address is the
    // first incremented register the instruction reads, `[x9, #-16]`.
    for (unsigned K = D.getNumDefs(); !Voted && K < I.getNumOperands(); ++K) {
      if (!I.getOperand(K).isReg() || !Increments.count(I.getOperand(K).getReg()))
        continue;
      Vote(double(std::llabs(Increments[I.getOperand(K).getReg()])), 0);
      Voted = true;
    }
  }
  long Best = 1;
  unsigned BestVotes = 0;
  for (const auto &[K, V] : Votes)
    if (V > BestVotes) { // on a tie the smaller k (map order) stays
      Best = K;
      BestVotes = V;
    }
  if (Explained)
    *Explained = BestVotes;
  if (Votes.empty() && Gathered) {
    // Only gathers and scatters move data (strided or indirect accesses,
    // addressed through a vector of indices): each covers its lanes of
    // source iterations for one access; more of them than accesses are
    // unrolled copies.
    unsigned Lanes = 0, Ops = 0;
    for (const MCInst &I : L.Insts)
      if (unsigned G = gatherLanes(TB.MII->getName(I.getOpcode()))) {
        Lanes = std::max(Lanes, G);
        ++Ops;
      }
    if (Lanes)
      return double(Lanes) * std::max(1.0, std::floor(double(Ops) / Gathered));
  }
  if (Votes.empty() && !Gathered && RefsAndElement.first && RefsAndElement.second) {
    // The addresses advance by a register (a step known only at run time,
    // TSVC's i += n3 at n3 = 1): the vector accesses tell the trip, their
    // lanes of the element times the copies of the source's references.
    unsigned Widest = 0, Ops = 0;
    for (const MCInst &I : L.Insts) {
      const MCInstrDesc &D = TB.MII->get(I.getOpcode());
      if (!D.mayLoad() && !D.mayStore())
        continue;
      std::string Text = TB.text(I);
      if (!StringRef(Text).contains(" ptr"))
        continue;
      unsigned W = accessBytes(Text);
      Ops = W > Widest ? 1 : Ops + (W == Widest);
      Widest = std::max(Widest, W);
    }
    if (Widest > RefsAndElement.second)
      return double(Widest / RefsAndElement.second) *
             std::max(1.0, std::floor(double(Ops) / RefsAndElement.first));
  }
  return double(Best);
}

/// Bytes each access advances per source iteration (distinct, nonzero);
/// the smallest is the unit of cycles per cache line. CONTIGUOUSONLY: only
/// accesses that advance by their own width (no gather needed).
std::vector<double> accessStrides(const LoopKernel &K, const KernelIR &IR,
                                  const LoopLevel &In, bool ContiguousOnly = false) {
  auto B = IR.bindings();
  std::vector<double> Out;
  for (const Access &A : K.Accesses) {
    auto C = elementsPerUnit(A, In.Var, B);
    if (!C || *C == 0)
      continue;
    double Bytes = std::fabs(double(*C * In.Step)) * A.StrideBytes;
    if (ContiguousOnly && Bytes > A.ElementBytes)
      continue;
    if (std::find(Out.begin(), Out.end(), Bytes) == Out.end())
      Out.push_back(Bytes);
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// The strides (bytes per iteration of IN) of the references that skip
/// elements there, each with its element's bytes: b[8 * i] alone, not
/// a[2 * i] beside a[2 * i + 1] (together they read every element, and one
/// vector load serves both).
std::map<double, unsigned> skippingStrides(const LoopKernel &K, const KernelIR &IR,
                                           const LoopLevel &In) {
  auto B = IR.bindings();
  struct Group {
    std::set<int64_t> Offsets; ///< bytes, modulo the stride
    unsigned ElementBytes = 0;
  };
  std::map<std::pair<std::string, double>, Group> Groups; // (array, stride)
  for (const Access &A : K.Accesses) {
    if (!A.Linear)
      continue;
    Poly Index = A.Linear->substitute(B);
    auto C = Index.coefficientOf(In.Var).evaluate(B);
    if (!C || *C == 0)
      continue;
    double Bytes = std::fabs(double(*C * In.Step)) * A.StrideBytes;
    Group &G = Groups[{A.Array, Bytes}];
    int64_t S = std::max<int64_t>(1, int64_t(Bytes));
    G.Offsets.insert(((Index.constantTerm() * int64_t(A.StrideBytes)) % S + S) % S);
    G.ElementBytes = std::max(G.ElementBytes, A.ElementBytes);
  }
  std::map<double, unsigned> Out;
  std::set<double> Contiguous;
  for (const auto &[Key, G] : Groups) {
    if (double(G.Offsets.size() * G.ElementBytes) < Key.second)
      Out[Key.second] = std::max(Out[Key.second], G.ElementBytes);
    else
      Contiguous.insert(Key.second);
  }
  for (double S : Contiguous) // a contiguous reference of that stride votes
    Out.erase(S);
  return Out;
}

std::vector<std::string> withMachineFlags(const InCoreOptions &O,
                                          const std::vector<std::string> &Args) {
  std::vector<std::string> All = O.CompileFlags;
  All.insert(All.end(), Args.begin(), Args.end());
  return All;
}

/// Natural loops of its function that contain L's header (L included).
size_t loopDepth(const MachineLoop &L) {
  size_t D = 0;
  for (const auto &[H, B] : L.Cfg->Body)
    D += B.count(L.Header);
  return D;
}

/// One trip of the machine loop enclosing BODY, as pieces: the inner machine
/// loops of the same source loop (CANDS, with their source iterations per
/// trip) where they start, and the enclosing loop's own blocks. Blocks of
/// other inner loops (other source loops) and blocks that call out are left
/// out. WHOLEFUNCTION (an outermost source loop): the function's reachable
/// blocks are the trip, one call.
NestCode nestAround(const MachineLoop &Body, const std::vector<const MachineLoop *> &Cands,
                    const std::vector<double> &CandIters, bool WholeFunction,
                    const std::map<std::string, double> &CallCycles,
                    const StraightCallees &Straight, TargetBundle &TB,
                    std::pair<unsigned, unsigned> BodyLines, double StoredPerIt) {
  NestCode N;
  const FunctionCFG &C = *Body.Cfg;
  const std::set<size_t> &Inner = C.Body.at(Body.Header);
  const std::set<size_t> *Parent = nullptr;
  size_t ParentHeader = 0;
  for (const auto &[H, L] : C.Body)
    if (H != Body.Header && L.count(Body.Header) && L.size() > Inner.size() &&
        (!Parent || L.size() < Parent->size())) {
      Parent = &L;
      ParentHeader = H;
    }
  std::set<size_t> Reachable;
  if (!Parent && WholeFunction && !C.Blocks.empty()) {
    // From the entry; alignment padding between blocks is never reached.
    std::vector<size_t> Work = {0};
    Reachable.insert(0);
    while (!Work.empty()) {
      size_t X = Work.back();
      Work.pop_back();
      for (size_t S : C.Blocks[X].Succs)
        if (Reachable.insert(S).second)
          Work.push_back(S);
    }
    Parent = &Reachable;
    ParentHeader = SIZE_MAX;
    N.WholeFunction = true;
  }
  if (!Parent) {
    N.Reason = "no machine loop encloses the loop's machine code (an outermost loop, or "
               "the loops around it were unrolled or are in the caller)";
    return N;
  }
  // Inner machine loops of this source loop inside the parent.
  std::vector<const MachineLoop *> Mine;
  for (size_t I = 0; I < Cands.size(); ++I)
    if (Cands[I]->Cfg == &C && Parent->count(Cands[I]->Header)) {
      Mine.push_back(Cands[I]);
      N.LoopIters.push_back(CandIters[I]);
      if (Cands[I] == &Body)
        N.Body = int(Mine.size() - 1);
    }
  auto LoopOf = [&](size_t X) -> int {
    for (size_t I = 0; I < Mine.size(); ++I)
      if (C.Body.at(Mine[I]->Header).count(X))
        return int(I);
    return -1;
  };
  auto InOtherLoop = [&](size_t X) {
    for (const auto &[H, L] : C.Body)
      if (H != ParentHeader && Parent->count(H) && L.count(X))
        return true;
    return false;
  };
  auto Bytes = [&](size_t X, NestCode::Piece &P) {
    const Block &B = C.Blocks[X];
    uint64_t Begin = C.All[B.First].Off, End = C.All[B.Last].Off + C.All[B.Last].Size;
    for (uint64_t O = Begin; O < End; ++O) {
      appendExecuted(*C.F, O, Straight, P.Bytes, P.Lines);
      // A call's relocated target the machine file costs (core.call_cy).
      if (auto Sym = C.F->Symbols.find(O); Sym != C.F->Symbols.end())
        if (auto Cy = CallCycles.find(Sym->second); Cy != CallCycles.end())
          P.CallCycles += Cy->second;
    }
  };
  std::set<int> Placed;
  size_t StraightBytes = 0;
  for (size_t X : *Parent) { // block order is address order
    int L = LoopOf(X);
    if (L >= 0) {
      if (!Placed.insert(L).second)
        continue;
      NestCode::Piece P;
      P.Loop = L;
      for (size_t Y : Mine[L]->Kept)
        Bytes(Y, P);
      N.Pieces.push_back(std::move(P));
      continue;
    }
    if (InOtherLoop(X) || C.Blocks[X].Calls)
      continue;
    NestCode::Piece P;
    Bytes(X, P);
    StraightBytes += P.Bytes.size();
    // Stores of the inner loop's body here are a fully unrolled copy of it
    // (gemm's vector j loop at a constant nj, beside its loop versions):
    // the bytes they write over the bytes an iteration stores are the
    // iterations it does.
    if (StoredPerIt > 0)
      for (size_t I = C.Blocks[X].First; I <= C.Blocks[X].Last; ++I) {
        unsigned Line = C.F->Lines[C.All[I].Off];
        if (Line <= BodyLines.first || Line > BodyLines.second ||
            !TB.MII->get(C.All[I].Inst.getOpcode()).mayStore())
          continue;
        P.Iters += accessBytes(TB.text(C.All[I].Inst)) / StoredPerIt;
      }
    std::vector<size_t> Succs;
    for (size_t S : C.Blocks[X].Succs)
      if (Parent->count(S))
        Succs.push_back(S);
    if (Succs.size() == 1)
      for (size_t I = 0; I < Mine.size(); ++I)
        if (Succs[0] == Mine[I]->Header)
          P.EntersLoop = int(I);
    int From = -2;
    for (size_t Q : C.Blocks[X].Preds) {
      int LQ = Parent->count(Q) ? LoopOf(Q) : -1;
      From = From == -2 || From == LQ ? LQ : -1;
    }
    P.LeavesLoop = From >= 0 ? From : -1;
    N.Pieces.push_back(std::move(P));
  }
  if (StraightBytes > 16384 || N.Body < 0) {
    N.Pieces.clear();
    N.LoopIters.clear();
    N.Body = -1;
    N.Reason = "the enclosing machine loop is too large to replay";
    return N;
  }
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "+0x%llx..0x%llx",
           (unsigned long long)C.All[C.Blocks[*Parent->begin()].First].Off,
           (unsigned long long)(C.All[C.Blocks[*Parent->rbegin()].Last].Off +
                                C.All[C.Blocks[*Parent->rbegin()].Last].Size));
  N.Where = demangle(C.F->Name) + (N.WholeFunction ? std::string(" (one call)") : Buf);
  return N;
}

std::string baseName(const std::string &Mangled) {
  std::string D = demangle(Mangled);
  size_t Paren = D.find('(');
  return Paren == std::string::npos ? D : D.substr(0, Paren);
}

} // namespace

namespace {

/// The machine loops whose code is mostly on lines FIRST..LAST of K, in K's
/// function if any is (else inlined elsewhere); none with R.Reason set when
/// there is none (a library call in its place, or no loop at all).
std::vector<const MachineLoop *> candidatesFor(const LoopKernel &K, unsigned First, unsigned Last,
                                               const std::vector<MachineLoop> &Loops,
                                               const ObjectFileBytes &Obj, InCoreResult &R) {
  auto InLoop = [&](const MachineLoop &L) {
    unsigned Inside = 0, Known = 0;
    L.forEachByte([&](uint64_t B) {
      unsigned Line = L.F->Lines[B];
      if (!Line)
        return;
      ++Known;
      Inside += Line >= First && Line <= Last;
    });
    return Known && Inside * 2 >= Known;
  };
  std::vector<const MachineLoop *> Cands;
  for (const MachineLoop &L : Loops)
    if (InLoop(L) && StringRef(baseName(L.F->Name)).ends_with(K.Function))
      Cands.push_back(&L);
  if (Cands.empty()) // inlined into a caller: any function will do
    for (const MachineLoop &L : Loops)
      if (InLoop(L))
        Cands.push_back(&L);
  if (!Cands.empty())
    return Cands;
  // clang turns copy and fill loops into library calls.
  for (const FunctionCode &F : Obj.Functions)
    for (const auto &[Off, Sym] : F.Symbols)
      if ((Sym == "memcpy" || Sym == "memset" || Sym == "memmove") && Off < F.Lines.size() &&
          F.Lines[Off] >= First && F.Lines[Off] <= Last && R.Reason.empty()) {
        R.Reason = "the compiler replaced the loop with a call to " + Sym +
                   " (the C library's code, not modelled; -fno-builtin keeps "
                   "the loop)";
        R.LibraryCall = Sym;
      }
  if (R.Reason.empty())
    R.Reason = "no machine loop found for lines " + std::to_string(First) + "-" +
               std::to_string(Last) +
               " (fully unrolled, removed as dead code, or not a loop in "
               "the object code)";
  return Cands;
}

/// The candidate that runs K: each one's source iterations per trip
/// (CANDITERS, without the versions that cannot run), the one covering the
/// most, and that number in BESTK.
const MachineLoop *pickLoop(const LoopKernel &K, const KernelIR &IR, TargetBundle &TB,
                            std::vector<const MachineLoop *> &Cands,
                            std::vector<double> &CandIters, double &BestK) {
  std::vector<double> Strides = accessStrides(K, IR, K.innermost());
  std::map<double, unsigned> Skipping = skippingStrides(K, IR, K.innermost());
  // References a vector loop reaches through gathers or scatters: indirect
  // ones and those that skip elements.
  unsigned Gathered = 0;
  for (const Access &A : K.Accesses) {
    auto C = elementsPerUnit(A, K.innermost().Var, IR.bindings());
    Gathered += A.Indirect || (C && std::llabs(*C * K.innermost().Step) *
                                            int64_t(A.StrideBytes) >
                                        int64_t(A.ElementBytes));
  }
  // Each version's source iterations per trip. Versions whose vector
  // accesses no reference can be (clang's copy for a unit step when the
  // step is a size bound to more) do not run here.
  // The source's references per iteration and their one element size
  // (0 when they differ): a register-stepped vector loop's fallback.
  unsigned Refs = 0, Elem = 0;
  for (const Access &A : K.Accesses) {
    Refs += A.ReadRefs + A.WriteRefs;
    Elem = !Elem || Elem == A.ElementBytes ? A.ElementBytes : ~0u;
  }
  std::pair<unsigned, unsigned> RefsAndElement = {Refs, Elem == ~0u ? 0 : Elem};
  std::vector<unsigned> Impossible(Cands.size());
  for (size_t C = 0; C < Cands.size(); ++C)
    CandIters.push_back(estimateIterations(*Cands[C], TB, Strides, K.innermost().Step,
                                           Gathered, nullptr, &Skipping, &Impossible[C],
                                           RefsAndElement));
  if (llvm::is_contained(Impossible, 0u)) {
    std::vector<const MachineLoop *> Running;
    std::vector<double> RunningIters;
    for (size_t C = 0; C < Cands.size(); ++C)
      if (!Impossible[C]) {
        Running.push_back(Cands[C]);
        RunningIters.push_back(CandIters[C]);
      }
    Cands = std::move(Running);
    CandIters = std::move(RunningIters);
  }
  const MachineLoop *Best = nullptr;
  BestK = 0;
  for (size_t C = 0; C < Cands.size(); ++C) {
    const MachineLoop *L = Cands[C];
    double Kx = CandIters[C];
    // On a tie the copy inside more loops runs more often (clang peels an
    // odd outer iteration into a copy outside the unrolled outer loop).
    if (!Best || Kx > BestK ||
        (Kx == BestK && (L->Insts.size() > Best->Insts.size() ||
                         (L->Insts.size() == Best->Insts.size() &&
                          loopDepth(*L) > loopDepth(*Best))))) {
      Best = L;
      BestK = Kx;
    }
  }
  return Best;
}

/// A machine loop that also runs code of the enclosing loop's body (lines
/// outside the innermost loop) is the enclosing loop with the innermost
/// one fully unrolled: a trip covers all of the innermost iterations. Then
/// BESTK becomes that and the note saying so is returned; else "".
std::string unrolledInto(const LoopKernel &K, const KernelIR &IR, TargetBundle &TB,
                         const MachineLoop &Best, unsigned First, unsigned Last,
                         double &BestK) {
  if (K.Nest.size() < 2)
    return "";
  const LoopLevel &Inner = K.innermost(), &Outer = K.Nest[K.Nest.size() - 2];
  bool OuterCode = false;
  Best.forEachByte([&](uint64_t B) {
    unsigned Line = Best.F->Lines[B];
    OuterCode |= Line && Line >= Outer.Loc.Line && (Line < First || Line > Last);
  });
  auto Bind = IR.bindings();
  auto Lo = Inner.Lower.evaluate(Bind), Hi = Inner.Upper.evaluate(Bind);
  bool Fixed = Lo && Hi && !Inner.Lower.symbols().count(Outer.Var) &&
               !Inner.Upper.symbols().count(Outer.Var);
  if (!OuterCode || !Fixed || *Hi <= *Lo)
    return "";
  int64_t Step = std::abs(Inner.Step ? Inner.Step : 1);
  int64_t Trips = (*Hi - *Lo + Step - 1) / Step;
  // Vectorized across the outer loop, references that skip elements
  // there (val[8 * i + k]) or go through data are gathered: only the
  // contiguous ones advance a register by their stride.
  unsigned GatheredOuter = 0;
  for (const Access &A : K.Accesses) {
    auto C = elementsPerUnit(A, Outer.Var, Bind);
    GatheredOuter += A.Indirect || (C && std::llabs(*C * Outer.Step) *
                                                 int64_t(A.StrideBytes) >
                                             int64_t(A.ElementBytes));
  }
  std::vector<double> OuterStrides = accessStrides(K, IR, Outer, GatheredOuter > 0);
  if (OuterStrides.empty())
    OuterStrides = accessStrides(K, IR, Outer);
  unsigned Explained = 0, ExplainedAll = 0;
  double OuterK = estimateIterations(Best, TB, OuterStrides, Outer.Step, GatheredOuter,
                                     &Explained);
  // Not vectorised across the outer loop but interleaved (znver3's
  // spmv_ell: two rows a trip, val[8 * i + k] and col[8 * i + k]
  // loaded element by element from registers advancing 128 and 64
  // bytes): the skipping references advance registers too, and the k
  // that explains more of the memory instructions with every stride
  // is the trip's.
  if (GatheredOuter > 0) {
    double AllK = estimateIterations(Best, TB, accessStrides(K, IR, Outer), Outer.Step,
                                     GatheredOuter, &ExplainedAll);
    if (ExplainedAll > Explained)
      OuterK = AllK;
  }
  BestK = double(Trips) * OuterK;
  return "the innermost loop (" + std::to_string(Trips) +
         " iterations) is fully unrolled into the loop over " + Outer.Var;
}

/// The loop's calls: their targets, the cycles the machine file gives them
/// (beside the loop's own), those whose code the block already has
/// (SPLICED), and those nobody costs.
void costCalls(InCoreResult &R, const MachineLoop &Best, const std::vector<std::string> &Spliced,
               const InCoreOptions &O) {
  // The calls' targets: the relocated symbols inside the loop that are
  // not local labels (constant pools are .LCPI...).
  std::vector<std::string> Raw;
  Best.forEachByte([&](uint64_t B) {
    auto It = Best.F->Symbols.find(B);
    if (It != Best.F->Symbols.end() && !StringRef(It->second).starts_with("."))
      Raw.push_back(It->second);
  });
  if (Raw.size() != R.Callees.size())
    Raw.assign(R.Callees.size(), "");
  std::vector<std::string> Costed, Inlined;
  for (size_t I = 0; I < Raw.size(); ++I) {
    R.Callees[I] = Raw[I].empty() ? "" : demangle(Raw[I]);
    auto It = O.CallCycles.find(Raw[I]);
    if (llvm::is_contained(Spliced, Raw[I])) {
      Inlined.push_back(R.Callees[I]);
    } else if (It != O.CallCycles.end()) {
      R.CallCycles += It->second;
      Costed.push_back(R.Callees[I]);
    } else {
      R.UncostedCallees.push_back(R.Callees[I]);
    }
  }
  // glibc's libmvec has vector versions of these (glibc 2.35 and later).
  static const llvm::StringSet<> VectorMath = {
      "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cos",  "cosh",
      "erf",  "erfc",  "exp",  "exp10", "exp2", "expm1", "hypot", "log",  "log10", "log1p",
      "log2", "pow",   "sin",  "sinh",  "tan",  "tanh"};
  bool Scalar = llvm::all_of(R.Callees, [](const std::string &C) {
    StringRef N(C);
    N.consume_back("f");
    return VectorMath.contains(C) || VectorMath.contains(N);
  });
  std::string Veclib = Scalar ? "; with -fno-math-errno -fveclib=libmvec clang calls "
                                "glibc's vector versions instead (4 or 8 elements a call)"
                              : "";
  if (R.CallCycles > 0) {
    // The callees run beside the loop's own instructions, one call after
    // the other: their measured cycles add to the body's.
    double Own = R.Cycles;
    R.Cycles += R.CallCycles;
    char Buf[200];
    snprintf(Buf, sizeof(Buf), "%.3g cy per iteration (core.call_cy), beside the loop's own %.3g",
             R.CallCycles, Own);
    R.Notes.push_back("the calls to " + calleesText(Costed) + " take " + Buf);
    if (R.CallCycles > Own) {
      R.Bottleneck = "calls";
      R.Advice = "the calls to " + calleesText(Costed) + " take " + Buf + Veclib;
    }
  }
  if (!Inlined.empty())
    R.Notes.push_back("the calls to " + calleesText(Inlined) +
                      " are costed with the callee's instructions, which this file's "
                      "object code has (straight-line code up to its return)");
  if (!R.UncostedCallees.empty())
    R.Notes.push_back("the loop calls " + calleesText(R.UncostedCallees) +
                      " every iteration, which the machine file does not cost (core.call_cy): "
                      "their instructions are not in this cost, so every prediction is a "
                      "lower bound" +
                      Veclib);
}

/// Bytes an iteration stores to places that move with the innermost loop (a
/// reduction's target, stored once after it, does not count). None where an
/// array the loop writes along it is also read at a place fixed in it
/// (floyd-warshall's path[i][k] beside path[i][j]): the compiler's run-time
/// overlap check for its unrolled vector copy fails, and the loop versions
/// run.
double storedPerIteration(const LoopKernel &K, const KernelIR &IR) {
  double StoredPerIt = 0;
  auto Bind = IR.bindings();
  auto Moves = [&](const Access &A) {
    auto C = elementsPerUnit(A, K.innermost().Var, Bind);
    return C && *C != 0;
  };
  bool Overlaps = false;
  for (const Access &W : K.Accesses)
    for (const Access &A : K.Accesses)
      Overlaps |= W.Write && Moves(W) && A.Read && A.Array == W.Array && !A.Indirect &&
                  !Moves(A);
  for (const Access &A : K.Accesses)
    if (A.Write && !A.Indirect && Moves(A) && !Overlaps)
      StoredPerIt += A.ElementBytes;
  return StoredPerIt;
}

/// Source loop K costed on the machine loop that runs it, among LOOPS.
InCoreResult costLoop(const LoopKernel &K, const KernelIR &IR, const InCoreOptions &O,
                      TargetBundle &TB, const ObjectFileBytes &Obj,
                      const std::vector<MachineLoop> &Loops, const StraightCallees &Straight) {
  InCoreResult Failed;
  Failed.Cpu = O.Cpu;
  unsigned First = K.Loc.Line, Last = std::max(K.EndLine, K.Loc.Line);
  std::vector<const MachineLoop *> Cands = candidatesFor(K, First, Last, Loops, Obj, Failed);
  if (Cands.empty())
    return Failed;
  std::vector<double> Strides = accessStrides(K, IR, K.innermost());
  double PerIt = Strides.empty() ? 0 : Strides.front();
  std::vector<double> CandIters;
  double BestK = 0;
  const MachineLoop *Best = pickLoop(K, IR, TB, Cands, CandIters, BestK);
  std::string Unrolled = unrolledInto(K, IR, TB, *Best, First, Last, BestK);
  std::vector<uint8_t> Bytes;
  std::vector<unsigned> Lines;
  std::vector<std::string> Spliced;
  Best->forEachByte(
      [&](uint64_t B) { appendExecuted(*Best->F, B, Straight, Bytes, Lines, &Spliced); });
  InCoreOptions LO = O;
  LineSplits Own = lineSplitsOf(K, IR.bindings(), O.Splits.AssumedAlign, O.LineBytes);
  LO.Splits.takeStreamFigures(Own);
  InCoreResult R = analyzeBlockBytes(Bytes, LO, Lines);
  R.BodyBytes = std::move(Bytes);
  R.BodyLines = std::move(Lines);
  R.SourceItersPerIter = BestK;
  R.BytesPerSourceIt = PerIt;
  std::string Where = demangle(Best->F->Name);
  for (size_t P = 0; P < Best->Pieces.size(); ++P) {
    char Buf[64];
    snprintf(Buf, sizeof(Buf), "%s0x%llx..0x%llx", P ? ", " : "+",
             (unsigned long long)Best->Pieces[P].first,
             (unsigned long long)Best->Pieces[P].second);
    Where += Buf;
  }
  R.MachineLoop = Where;
  if (!R.Callees.empty())
    costCalls(R, *Best, Spliced, O);
  if (!Unrolled.empty())
    R.Nest.Reason = "the innermost loop is fully unrolled into its enclosing loop";
  else
    R.Nest = nestAround(*Best, Cands, CandIters, K.Nest.size() < 2, O.CallCycles, Straight,
                        TB, {First, Last}, storedPerIteration(K, IR));
  if (Best->ColdBlocks)
    R.Notes.push_back(std::to_string(Best->ColdBlocks) +
                      " block(s) of the loop that call out (such as an errno path) are "
                      "left out: the loop can go around them");
  if (Best->Pieces.size() > 1)
    R.Notes.push_back("the loop's hot path is in " + std::to_string(Best->Pieces.size()) +
                      " pieces of the function (blocks placed out of line)");
  if (!Unrolled.empty())
    R.Notes.push_back(Unrolled);
  if (Cands.size() > 1)
    R.Notes.push_back("the compiler emitted " + std::to_string(Cands.size()) +
                      " machine loops for this source loop; costed the one covering " +
                      std::to_string(long(BestK)) +
                      " source iterations per trip (the others are remainder or "
                      "alternative versions)");
  if (PerIt <= 0 && Unrolled.empty())
    R.Notes.push_back(
        BestK > 1 ? "no access advances with the loop: its counter steps " +
                        std::to_string(long(BestK)) +
                        " source iterations per machine iteration"
                  : "no access advances with the loop: one machine iteration is taken as "
                    "one source iteration");
  return R;
}

} // namespace

std::vector<InCoreResult>
perfmodel::analyzeKernelLoops(const KernelIR &IR, const std::vector<std::string> &Args,
                              const InCoreOptions &O) {
  StageScope Timed(Stage::ObjectCode);
  std::vector<InCoreResult> Results(IR.Loops.size());
  bool Any = false;
  for (size_t I = 0; I < IR.Loops.size(); ++I) {
    Results[I].Cpu = O.Cpu;
    if (!IR.Loops[I].Modelled)
      Results[I].Reason = "loop not modelled";
    else
      Any = true;
  }
  if (!Any)
    return Results; // nothing to compile for
  ObjectFileBytes Obj;
  std::string Error;
  TargetBundle TB;
  if (!TB.init(O.Triple, O.Cpu, Error) ||
      !compileKernel(IR.File, withMachineFlags(O, Args), O.Triple, O.Cpu, Obj, Error)) {
    for (InCoreResult &R : Results)
      if (R.Reason.empty())
        R.Reason = "cannot compile the file for the in-core model: " + Error;
    return Results;
  }
  StraightCallees Straight = straightCallees(Obj, TB);
  std::vector<MachineLoop> Loops;
  std::vector<std::unique_ptr<FunctionCFG>> Cfgs;
  for (const FunctionCode &F : Obj.Functions) {
    Cfgs.push_back(std::make_unique<FunctionCFG>());
    auto L = findLoops(F, TB, *Cfgs.back());
    Loops.insert(Loops.end(), std::make_move_iterator(L.begin()),
                 std::make_move_iterator(L.end()));
  }
  for (size_t I = 0; I < IR.Loops.size(); ++I)
    if (IR.Loops[I].Modelled)
      Results[I] = costLoop(IR.Loops[I], IR, O, TB, Obj, Loops, Straight);
  return Results;
}

std::string perfmodel::calleesText(const std::vector<std::string> &Callees) {
  // Each callee once, with its count: a vector body calls _ZGVdN4v_exp 4 times.
  std::vector<std::pair<std::string, unsigned>> Counted;
  for (const std::string &C : Callees) {
    std::string Name = C.empty() ? "a function" : C;
    auto It = llvm::find_if(Counted, [&](const auto &P) { return P.first == Name; });
    if (It == Counted.end())
      Counted.push_back({Name, 1});
    else
      ++It->second;
  }
  std::string List;
  for (const auto &[Name, N] : Counted)
    List += (List.empty() ? "" : ", ") + Name + (N > 1 ? " (" + std::to_string(N) + " times)" : "");
  return List;
}

std::optional<std::vector<uint8_t>>
perfmodel::innermostLoopOfListing(const std::vector<uint8_t> &Text, const InCoreOptions &O,
                                  std::string &Note) {
  TargetBundle TB;
  std::string Error;
  if (!TB.init(O.Triple, O.Cpu, Error))
    return std::nullopt;
  FunctionCode F;
  F.Name = "listing";
  F.Bytes = Text;
  F.Lines.assign(Text.size(), 0);
  FunctionCFG Cfg;
  std::vector<MachineLoop> Loops = findLoops(F, TB, Cfg);
  if (Loops.empty())
    return std::nullopt; // straight-line code: the block is the body
  // The biggest innermost loop: a vectorised body beats its scalar remainder.
  const MachineLoop *Best = nullptr;
  uint64_t BestBytes = 0;
  for (const MachineLoop &L : Loops) {
    uint64_t Bytes = 0;
    for (const auto &[B, E] : L.Pieces)
      Bytes += E - B;
    if (Bytes > BestBytes) {
      Best = &L;
      BestBytes = Bytes;
    }
  }
  if (BestBytes == Text.size())
    return std::nullopt; // the listing is the loop
  std::vector<uint8_t> Bytes;
  Best->forEachByte([&](uint64_t B) { Bytes.push_back(Text[B]); });
  char Buf[96];
  snprintf(Buf, sizeof(Buf), "bytes 0x%llx..0x%llx", (unsigned long long)Best->Begin,
           (unsigned long long)Best->End);
  Note = "the listing holds " + std::to_string(Loops.size()) + " innermost loop(s); costed " +
         "the largest (" + Buf + " of " + std::to_string(Text.size()) +
         "), as one iteration; a listing without a loop is costed whole";
  return Bytes;
}

void perfmodel::overlapOuterIterations(InCoreResult &R, const std::vector<int64_t> &Trips,
                                       unsigned Rob) {
  if (!R.Ok || !Rob || !R.Uops || R.RecurrenceBound <= 0 || Trips.empty())
    return;
  double PerIter = R.SourceItersPerIter > 0 ? R.SourceItersPerIter : 1;
  double Window = double(Rob) / R.Uops; // machine iterations in flight
  // Chain cycles summed over the outer iterations, each sharing the window
  // with the k = W / m others around it (at least itself).
  double Chain = 0, Iters = 0;
  for (int64_t T : Trips) {
    double M = double(T) / PerIter;
    if (M <= 0)
      continue;
    double K = std::max(1.0, Window / M);
    Chain += M * R.RecurrenceBound / K;
    Iters += M;
  }
  if (Iters <= 0)
    return;
  double Rec = Chain / Iters;
  if (Rec >= R.RecurrenceBound * (1 - 1e-9))
    return;
  double Old = R.Cycles;
  R.RecurrenceBound = Rec;
  R.Cycles = std::max({R.PortBound, R.FrontEndBound, Rec});
  if (R.Cycles < Old * (1 - 1e-9) && R.Bottleneck == "recurrence" && Rec < R.Cycles) {
    bool Ports = R.PortBound >= R.FrontEndBound;
    R.Bottleneck = Ports ? "ports" : "front end";
    R.Advice = std::string("the out-of-order window overlaps the chains of neighbouring outer "
                           "iterations; ") +
               (Ports ? "port-bound on " + R.PortBottleneck + ": remove work from the ports"
                      : "issue-bound: fewer instructions per iteration help");
  }
  char Buf[200];
  snprintf(Buf, sizeof(Buf),
           "out-of-order overlap: %g machine iterations per outer iteration on average, "
           "%g in a %u-entry window: the loop-carried chain binds %.3g cy per iteration "
           "instead of its latency",
           Iters / double(Trips.size()), Window, Rob, Rec);
  R.Notes.push_back(Buf);
}

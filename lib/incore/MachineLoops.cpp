//===- MachineLoops.cpp - Machine loops in object code --------------------===//
//
// Decodes a function into basic blocks, finds its innermost natural loops
// (cold blocks that call out left aside), the straight-line callees the
// object has, and a loop's source iterations per trip from how its address
// registers advance.
//
//===----------------------------------------------------------------------===//
#include "MachineLoops.h"
#include "MemoryDeps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

using namespace perfmodel;
using namespace llvm;

namespace perfmodel::mloop {

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
                    std::vector<std::string> *Spliced) {
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

namespace {

/// Every instruction of F that decodes, in address order.
std::vector<Decoded> decodeAll(const FunctionCode &F, TargetBundle &TB) {
  std::vector<Decoded> All;
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
  return All;
}

/// Basic blocks with their successors and predecessors: leaders are the
/// entry, branch targets and the instruction after a branch or return.
void basicBlocks(FunctionCFG &Cfg, TargetBundle &TB) {
  const std::vector<Decoded> &All = Cfg.All;
  const FunctionCode &F = *Cfg.F;
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
}

/// Dominators (Cooper, Harvey, Kennedy) over the blocks reachable from the
/// entry: each block's position in reverse post-order (-1: unreachable) and
/// immediate dominator.
struct Dominators {
  std::vector<int> Rpo, Idom;
  bool dominates(size_t H, size_t B) const {
    if (Rpo[B] < 0 || Rpo[H] < 0)
      return false;
    for (int X = int(B);; X = Idom[X]) {
      if (size_t(X) == H)
        return true;
      if (X == 0)
        return false;
    }
  }
};

Dominators dominators(const std::vector<Block> &Blocks) {
  Dominators D;
  std::vector<size_t> Order; // reverse post-order
  D.Rpo.assign(Blocks.size(), -1);
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
      D.Rpo[Order[I]] = int(I);
  }
  std::vector<int> &Idom = D.Idom;
  const std::vector<int> &Rpo = D.Rpo;
  Idom.assign(Blocks.size(), -1);
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
  return D;
}

/// Natural loops, one per header (into Cfg.Body), and each header's latches.
std::map<size_t, std::vector<size_t>> naturalLoops(FunctionCFG &Cfg, const Dominators &D) {
  const std::vector<Block> &Blocks = Cfg.Blocks;
  std::map<size_t, std::vector<size_t>> Latches;
  for (size_t B = 0; B < Blocks.size(); ++B)
    for (size_t H : Blocks[B].Succs)
      if (D.dominates(H, B)) {
        Latches[H].push_back(B);
        std::set<size_t> &L = Cfg.Body[H];
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
            if (!L.count(P) && D.Rpo[P] >= 0) // not alignment padding after a jump
              Work.push_back(P);
        }
      }
  return Latches;
}

/// The blocks of loop L (header H) on a path from the header to a latch
/// that avoids every calling block, with COLD the calling blocks left out;
/// L itself when no such path exists or the header calls.
std::set<size_t> hotBlocks(const std::vector<Block> &Blocks, size_t H, const std::set<size_t> &L,
                           const std::vector<size_t> &Latches, unsigned &Cold) {
  Cold = 0;
  if (Blocks[H].Calls)
    return L;
  std::set<size_t> Fwd = {H}, Bwd;
  std::vector<size_t> Work = {H};
  while (!Work.empty()) {
    size_t X = Work.back();
    Work.pop_back();
    for (size_t S : Blocks[X].Succs)
      if (L.count(S) && !Blocks[S].Calls && Fwd.insert(S).second)
        Work.push_back(S);
  }
  for (size_t Lt : Latches)
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
  if (!Bwd.count(H))
    return L;
  std::set<size_t> Hot;
  for (size_t X : L)
    if (Fwd.count(X) && Bwd.count(X))
      Hot.insert(X);
  for (size_t X : L)
    Cold += Blocks[X].Calls;
  return Hot;
}

/// The successors of block X inside M's body (the header included), once each.
std::vector<size_t> bodySuccessors(const MachineLoop &M, const std::vector<Block> &Blocks,
                                   size_t X) {
  std::vector<size_t> N;
  for (size_t S : Blocks[X].Succs)
    if ((S == M.Header || M.Kept.count(S)) && !llvm::is_contained(N, S))
      N.push_back(S);
  return N;
}

/// One walk from M's header back to it, CHOOSE(X, successors) deciding at
/// each block with several; nullopt where it meets a block twice or leaves.
template <typename ChooseFn>
std::optional<std::vector<size_t>> walkOnce(const MachineLoop &M,
                                            const std::vector<Block> &Blocks,
                                            ChooseFn Choose) {
  std::vector<size_t> Walk;
  std::set<size_t> Seen;
  for (size_t X = M.Header;;) {
    if (!Seen.insert(X).second)
      return std::nullopt; // a cycle besides the back edge
    Walk.push_back(X);
    std::vector<size_t> N = bodySuccessors(M, Blocks, X);
    if (N.empty())
      return std::nullopt;
    size_t S = N.size() > 1 ? Choose(X, N) : N[0];
    if (S == M.Header)
      return Walk;
    X = S;
  }
}

/// M's ChoiceWalks: one walk from the header back to it per choice of arm
/// at each source branch. A branch's line (its last instruction's) names
/// its source branch; a choice takes one successor per line, the taken one
/// of a jump on the condition, the other of a jump on its negation (copies
/// of an unrolled body test `ja` here, `jbe` there). None past 64 choices.
void choiceWalks(MachineLoop &M, const std::vector<Block> &Blocks, const TargetBundle &TB) {
  auto Negated = [&](size_t X) {
    std::string Text = TB.text(M.Cfg->All[Blocks[X].Last].Inst);
    StringRef Op = StringRef(Text).trim().take_until([](char C) { return isspace(C); });
    return Op == "jbe" || Op == "jb" || Op == "jne" || Op == "jle" || Op == "jl" ||
           Op == "jns" || Op == "jnp" || Op == "jno";
  };
  auto LineOf = [&](size_t X) { return M.F->Lines[M.Cfg->All[Blocks[X].Last].Off]; };
  std::map<unsigned, unsigned> LineIndex; // line -> position in the choice
  std::vector<unsigned> Ways;
  for (size_t X : M.Kept)
    if (size_t N = bodySuccessors(M, Blocks, X).size(); N > 1) {
      unsigned Line = LineOf(X);
      if (LineIndex.emplace(Line, unsigned(Ways.size())).second)
        Ways.push_back(unsigned(N));
      else
        Ways[LineIndex[Line]] = std::max(Ways[LineIndex[Line]], unsigned(N));
    }
  size_t Combos = 1;
  for (unsigned W : Ways)
    if ((Combos *= W) > 64)
      return;
  for (size_t C = 0; C < Combos; ++C) {
    std::vector<unsigned> Pick(Ways.size());
    for (size_t I = 0, Rest = C; I < Ways.size(); Rest /= Ways[I++])
      Pick[I] = unsigned(Rest % Ways[I]);
    // The successor this choice takes at X, a block with two or more.
    auto Choose = [&](size_t X, const std::vector<size_t> &N) {
      unsigned P = Pick[LineIndex[LineOf(X)]] % N.size();
      return N[N.size() == 2 && Negated(X) ? 1 - P : P];
    };
    if (std::optional<std::vector<size_t>> Walk = walkOnce(M, Blocks, Choose))
      M.ChoiceWalks.push_back(std::move(*Walk));
  }
}

/// M's trip as its branches run it (MachineLoop::Sequence): where a block of
/// the body has two or more successors in it (an if inside the loop, each
/// copy of it in an unrolled body), two walks from the header back to it,
/// the second taking at each branch the way the first did not (the k-th
/// branch of walk c takes successor (c + k) mod n): each arm of each branch
/// runs in half the iterations, the data deciding (a body unrolled by 8 has
/// 256 paths; these two cover each arm once). Left as Kept in address order
/// for a body without such branches or where a walk meets a block twice.
void pathSequence(MachineLoop &M, const std::vector<Block> &Blocks, const TargetBundle &TB) {
  unsigned Branches = 0;
  for (size_t X : M.Kept)
    Branches += bodySuccessors(M, Blocks, X).size() > 1;
  if (!Branches)
    return;
  const unsigned Copies = 2;
  std::vector<size_t> Seq;
  for (unsigned C = 0; C < Copies; ++C) {
    unsigned K = 0; // branches met so far
    std::optional<std::vector<size_t>> Walk = walkOnce(
        M, Blocks, [&](size_t, const std::vector<size_t> &N) { return N[(C + K++) % N.size()]; });
    if (!Walk)
      return;
    Seq.insert(Seq.end(), Walk->begin(), Walk->end());
  }
  M.Sequence = std::move(Seq);
  M.Copies = Copies;
  M.Branches = Branches;
  choiceWalks(M, Blocks, TB);
}

/// The share of SHARES whose condition lines hold LINE, or null.
const ArmShare *shareAt(const std::vector<ArmShare> &Shares, unsigned Line) {
  for (const ArmShare &S : Shares)
    if (Line >= S.Line && Line <= S.LastLine)
      return &S;
  return nullptr;
}

/// The arm of branch SH that successor S of a branch block starts: +1
/// then, -1 else, 0 unknown. A block with lines of one arm is that arm; one
/// of the condition's lines alone (the next test of an &&) passes to its
/// successors; one of lines outside the if (the next copy of an unrolled
/// body, the header) skips the then-arm: where the else-arm's work was
/// hoisted above the branch or there is no else, that is the else-arm.
int armOf(const MachineLoop &M, const ArmShare &Sh, size_t S) {
  const FunctionCFG &C = *M.Cfg;
  if (Sh.ThenFirst > Sh.ThenLast && !Sh.ElseFirst) {
    // `if (c) m = k;` on one line: the arm is a block of the condition's
    // line of its own; the way around it goes to the header or to code of
    // other lines (through blocks without a line: a loop's own bookkeeping).
    for (size_t X = S, Steps = 0; Steps < 8; ++Steps) {
      if (X == M.Header)
        return -1;
      bool Outside = false, Own = false;
      for (size_t I = C.Blocks[X].First; I <= C.Blocks[X].Last; ++I) {
        unsigned L = M.F->Lines[C.All[I].Off];
        Outside |= L && (L < Sh.Line || L > Sh.LastLine);
        Own |= L >= Sh.Line && L <= Sh.LastLine;
      }
      if (Outside || Own)
        return Outside ? -1 : 1;
      std::vector<size_t> N = bodySuccessors(M, C.Blocks, X);
      if (N.size() != 1)
        return 0;
      X = N[0];
    }
    return 0;
  }
  std::vector<size_t> Queue = {S};
  std::set<size_t> Seen = {S};
  for (size_t Q = 0; Q < Queue.size() && Q < 16; ++Q) {
    size_t X = Queue[Q];
    if (X == M.Header)
      return -1;
    bool Then = false, Else = false, Outside = false;
    for (size_t I = C.Blocks[X].First; I <= C.Blocks[X].Last; ++I) {
      unsigned L = M.F->Lines[C.All[I].Off];
      bool InThen = L >= Sh.ThenFirst && L <= Sh.ThenLast;
      bool InElse = Sh.ElseFirst && L >= Sh.ElseFirst && L <= Sh.ElseLast;
      Then |= InThen;
      Else |= InElse;
      Outside |= L && !InThen && !InElse && (L < Sh.Line || L > Sh.LastLine);
    }
    if (Then || Else)
      return Then == Else ? 0 : Then ? 1 : -1;
    if (Outside)
      return -1;
    for (size_t N : bodySuccessors(M, C.Blocks, X))
      if (Seen.insert(N).second)
        Queue.push_back(N);
  }
  return 0;
}

} // namespace

std::set<unsigned> linesOf(const MachineLoop &M) {
  std::set<unsigned> Lines;
  for (size_t X : M.Kept)
    for (size_t I = M.Cfg->Blocks[X].First; I <= M.Cfg->Blocks[X].Last; ++I)
      Lines.insert(M.F->Lines[M.Cfg->All[I].Off]);
  return Lines;
}

bool weighArms(MachineLoop &M, const std::vector<ArmShare> &Shares) {
  const std::vector<Block> &Blocks = M.Cfg->Blocks;
  auto LineOf = [&](size_t X) { return M.F->Lines[M.Cfg->All[Blocks[X].Last].Off]; };
  // Each branch block of a share: its successors' arms, one then and one else.
  std::map<size_t, std::pair<const ArmShare *, std::vector<int>>> Known;
  for (size_t X : M.Kept) {
    std::vector<size_t> N = bodySuccessors(M, Blocks, X);
    const ArmShare *Sh = N.size() == 2 ? shareAt(Shares, LineOf(X)) : nullptr;
    if (!Sh)
      continue;
    std::vector<int> Arms = {armOf(M, *Sh, N[0]), armOf(M, *Sh, N[1])};
    if (Arms[0] * Arms[1] == -1)
      Known[X] = {Sh, Arms};
  }
  if (Known.empty())
    return false;
  const unsigned Copies = 4;
  std::vector<size_t> Seq;
  for (unsigned C = 0; C < Copies; ++C) {
    unsigned K = 0; // data branches met so far
    auto Choose = [&](size_t X, const std::vector<size_t> &N) {
      auto It = Known.find(X);
      if (It == Known.end())
        return N[(C + K++) % N.size()];
      bool Then = C < unsigned(std::lround(It->second.first->Taken * Copies));
      return N[It->second.second[0] == (Then ? 1 : -1) ? 0 : 1];
    };
    std::optional<std::vector<size_t>> Walk = walkOnce(M, Blocks, Choose);
    if (!Walk)
      return false;
    Seq.insert(Seq.end(), Walk->begin(), Walk->end());
  }
  M.Sequence = std::move(Seq);
  M.Copies = Copies;
  M.Weighed = true;
  // The longest chain's walks: none through an arm that seldom runs.
  std::vector<std::vector<size_t>> Kept;
  for (const std::vector<size_t> &W : M.ChoiceWalks) {
    bool Rare = false;
    for (size_t P = 0; P < W.size() && !Rare; ++P) {
      auto It = Known.find(W[P]);
      if (It == Known.end())
        continue;
      size_t Next = P + 1 < W.size() ? W[P + 1] : M.Header;
      std::vector<size_t> N = bodySuccessors(M, Blocks, W[P]);
      int Arm = It->second.second[N[0] == Next ? 0 : 1];
      double Share = Arm > 0 ? It->second.first->Taken : 1 - It->second.first->Taken;
      Rare = Share < 0.25;
    }
    if (!Rare)
      Kept.push_back(W);
  }
  if (!Kept.empty())
    M.ChoiceWalks = std::move(Kept);
  return true;
}

std::vector<unsigned> dataBranchLines(const MachineLoop &M, const std::vector<ArmShare> &Shares) {
  std::vector<unsigned> Out;
  for (size_t X : M.Sequence) {
    if (bodySuccessors(M, M.Cfg->Blocks, X).size() < 2)
      continue;
    unsigned Line = M.F->Lines[M.Cfg->All[M.Cfg->Blocks[X].Last].Off];
    if (!shareAt(Shares, Line))
      Out.push_back(Line);
  }
  return Out;
}

/// The innermost natural loops of F's control-flow graph (back edges to a
/// block that dominates their source). A block inside a loop that calls out
/// is left out when the loop's latches stay reachable without it: the
/// compiler's cold paths (sqrt's errno call) are not the steady state.
std::vector<MachineLoop> findLoops(const FunctionCode &F, TargetBundle &TB,
                                   FunctionCFG &Cfg) {
  Cfg.F = &F;
  Cfg.All = decodeAll(F, TB);
  const std::vector<Decoded> &All = Cfg.All;
  if (All.empty() || !TB.MIA)
    return {};
  basicBlocks(Cfg, TB);
  const std::vector<Block> &Blocks = Cfg.Blocks;
  std::map<size_t, std::vector<size_t>> Latches = naturalLoops(Cfg, dominators(Blocks));
  std::vector<MachineLoop> Out;
  for (const auto &[H, L] : Cfg.Body) {
    bool Innermost = true;
    for (const auto &[H2, L2] : Cfg.Body)
      if (H2 != H && L.count(H2))
        Innermost = false;
    if (!Innermost)
      continue;
    MachineLoop M;
    M.F = &F;
    M.Cfg = &Cfg;
    M.Header = H;
    M.Kept = hotBlocks(Blocks, H, L, Latches.at(H), M.ColdBlocks);
    for (size_t X : M.Kept) { // std::set: address order
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
    M.Sequence.assign(M.Kept.begin(), M.Kept.end());
    pathSequence(M, Blocks, TB);
    Out.push_back(std::move(M));
  }
  return Out;
}

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

namespace {

using Increments = std::map<unsigned, int64_t>; ///< register -> bytes or elements per trip

/// A register's step by an immediate in I (add/sub/inc/dec of itself, lea
/// of itself, AArch64's post-indexed base); nullopt for anything else.
std::optional<std::pair<unsigned, int64_t>> selfStep(const MCInst &I, TargetBundle &TB) {
  StringRef Name = TB.MII->getName(I.getOpcode());
  const MCInstrDesc &D = TB.MII->get(I.getOpcode());
  if (D.getNumDefs() != 1 || I.getNumOperands() < 2 || !I.getOperand(0).isReg())
    return std::nullopt;
  unsigned Reg = I.getOperand(0).getReg();
  int64_t Imm = 0;
  bool Found = false;
  if ((Name.starts_with("ADD") || Name.starts_with("SUB")) && I.getNumOperands() >= 3 &&
      I.getOperand(1).isReg() && I.getOperand(1).getReg() == Reg && I.getOperand(2).isImm()) {
    Imm = I.getOperand(2).getImm();
    if (Name.starts_with("SUB"))
      Imm = -Imm;
    Found = true;
  } else if ((Name.starts_with("INC") || Name.starts_with("DEC")) && I.getOperand(1).isReg() &&
             I.getOperand(1).getReg() == Reg) {
    Imm = Name.starts_with("INC") ? 1 : -1;
    Found = true;
  } else if (Name.starts_with("LEA") && I.getNumOperands() >= 6 && I.getOperand(1).isReg() &&
             I.getOperand(1).getReg() == Reg && I.getOperand(3).isReg() &&
             I.getOperand(3).getReg() == 0 && I.getOperand(4).isImm()) {
    Imm = I.getOperand(4).getImm();
    Found = true;
  }
  // AArch64 post-indexed access, `ldr q0, [x9], #32`: operand 0 is the
  // written-back base, the last operand the increment.
  if (!Found && Name.contains("post") && I.getOperand(I.getNumOperands() - 1).isImm()) {
    Imm = I.getOperand(I.getNumOperands() - 1).getImm();
    Found = true;
  }
  if (!Found || Imm == 0)
    return std::nullopt;
  return std::make_pair(Reg, Imm);
}

/// The registers a trip moves by a constant, each register's value followed
/// through the trip's walks in execution order: register moves, lea of a
/// register plus an immediate, add/sub/inc/dec of an immediate; anything
/// else that writes a register makes it unknown. clang's rotated, unrolled
/// loops step a counter through copies (`mov r14, r8` ... `lea r8, [r14 +
/// 1]` ... `inc r8`: 2 a trip, where each instruction alone says 1). The
/// steps are averaged over the walks (both arms of a branch); x86 only.
std::map<unsigned, int64_t> walkedSteps(const MachineLoop &L, TargetBundle &TB) {
  std::vector<std::vector<size_t>> Walks;
  if (L.Copies > 1) {
    for (size_t X : L.Sequence) {
      if (X == L.Header || Walks.empty())
        Walks.emplace_back();
      Walks.back().push_back(X);
    }
  } else if (auto W = walkOnce(L, L.Cfg->Blocks,
                               [](size_t, const std::vector<size_t> &N) { return N[0]; })) {
    Walks.push_back(std::move(*W));
  }
  if (Walks.empty())
    return {}; // (targets other than x86 have no gpr64: nothing is followed)
  struct Value {
    unsigned Origin = 0; ///< the register whose value at the walk's start this is; 0: unknown
    int64_t Off = 0;
  };
  std::map<unsigned, int64_t> Sum;
  std::map<unsigned, unsigned> Seen; // walks in which the register ends as itself plus a constant
  std::map<unsigned, std::set<unsigned>> CopyOf; // registers that end as another's plus a constant
  for (const std::vector<size_t> &Walk : Walks) {
    std::map<unsigned, Value> State; // 64-bit register -> value; absent: itself
    auto Get = [&](unsigned R) {
      auto It = State.find(R);
      return It == State.end() ? Value{R, 0} : It->second;
    };
    for (size_t X : Walk)
      for (size_t Idx = L.Cfg->Blocks[X].First; Idx <= L.Cfg->Blocks[X].Last; ++Idx) {
        const MCInst &I = L.Cfg->All[Idx].Inst;
        StringRef Name = TB.MII->getName(I.getOpcode());
        const MCInstrDesc &D = TB.MII->get(I.getOpcode());
        unsigned Dst = D.getNumDefs() >= 1 && I.getNumOperands() > 0 && I.getOperand(0).isReg()
                           ? TB.gpr64(I.getOperand(0).getReg())
                           : 0;
        // An 8- or 16-bit write keeps the rest of the register: not followed.
        StringRef Width = Name.drop_until(llvm::isDigit).take_while(llvm::isDigit);
        bool Narrow = Width == "8" || Width == "16";
        std::optional<Value> V;
        if (Dst && !Narrow && (Name == "MOV64rr" || Name == "MOV32rr") &&
            I.getOperand(1).isReg()) {
          V = Get(TB.gpr64(I.getOperand(1).getReg()));
        } else if (Dst && (Name == "LEA64r" || Name == "LEA64_32r") && I.getNumOperands() >= 6 &&
                   I.getOperand(1).isReg() && I.getOperand(3).isReg() &&
                   I.getOperand(3).getReg() == 0 && I.getOperand(4).isImm() &&
                   I.getOperand(5).isReg() && I.getOperand(5).getReg() == 0) {
          V = Get(TB.gpr64(I.getOperand(1).getReg()));
          V->Off += I.getOperand(4).getImm();
        } else if (Dst && !Narrow) {
          if (auto Step = selfStep(I, TB); Step && TB.gpr64(Step->first) == Dst) {
            V = Get(Dst);
            V->Off += Step->second;
          }
        }
        if (V && V->Origin)
          State[Dst] = *V;
        // Every other register the instruction writes is unknown from here.
        for (unsigned K = 0; K < D.getNumDefs() && K < I.getNumOperands(); ++K)
          if (I.getOperand(K).isReg())
            if (unsigned R = TB.gpr64(I.getOperand(K).getReg()); R && !(V && V->Origin && R == Dst))
              State[R] = Value{};
        for (MCPhysReg R : D.implicit_defs())
          if (unsigned G = TB.gpr64(R))
            State[G] = Value{};
      }
    for (const auto &[R, V] : State)
      if (V.Origin == R) {
        Sum[R] += V.Off;
        ++Seen[R];
      } else if (V.Origin) {
        CopyOf[R].insert(V.Origin);
      }
  }
  std::map<unsigned, int64_t> Steps;
  for (const auto &[R, Total] : Sum)
    if (Seen[R] == Walks.size() && Total != 0 && Total % int64_t(Walks.size()) == 0)
      Steps[R] = Total / int64_t(Walks.size());
  // A register that ends each walk as another's start value plus a constant
  // (`mov r14, r8` at the top) moves as that one does.
  for (const auto &[R, From] : CopyOf)
    if (From.size() == 1 && !Seen.count(R) && Steps.count(*From.begin()))
      Steps[R] = Steps[*From.begin()];
  return Steps;
}

/// The registers the loop advances by a constant each trip: add/sub/inc/dec
/// of an immediate, lea of itself, an accumulator's step, a counter copied
/// through lea (clang's rotated loops), scaled by imul, AArch64's
/// post-indexed bases.
Increments registerIncrements(const MachineLoop &L, TargetBundle &TB) {
  Increments Increments;
  // A register stepped more than once a pass (`add eax, 7` ... `inc eax`
  // around an unrolled body's last copy) advances by the sum: the steps are
  // added over the trip's walks (both arms of a branch, as often as they
  // run) and divided by the walks.
  std::map<unsigned, int64_t> Summed;
  for (size_t X : L.Sequence)
    for (size_t Idx = L.Cfg->Blocks[X].First; Idx <= L.Cfg->Blocks[X].Last; ++Idx)
      if (auto Step = selfStep(L.Cfg->All[Idx].Inst, TB))
        Summed[Step->first] += Step->second;
  for (const MCInst &I : L.Insts) {
    if (auto Acc = accumulatorStep(I, *TB.MII, *TB.MRI))
      Increments[Acc->first] = Acc->second;
    else if (auto Step = selfStep(I, TB))
      Increments[Step->first] = Step->second;
  }
  for (const auto &[Reg, Sum] : Summed)
    if (Sum != 0 && Sum % int64_t(L.Copies) == 0 && Increments.count(Reg))
      Increments[Reg] = Sum / int64_t(L.Copies);
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
  // Where the walks say otherwise (a counter stepped through copies), they win.
  for (const auto &[Reg, Step] : walkedSteps(L, TB))
    if (Increments.count(Reg))
      Increments[Reg] = Step;
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
  return Increments;
}

/// No access advances with the loop (a recurrence in registers): the
/// counter itself tells the unrolling, when every register that advances by
/// a constant advances by the same amount (`add rcx, -8` for eight source
/// iterations of i += 1).
double counterUnrolling(const Increments &Increments, int64_t SourceStep) {
  std::set<int64_t> Steps;
  for (const auto &[Reg, Imm] : Increments)
    Steps.insert(std::llabs(Imm));
  int64_t S = std::llabs(SourceStep ? SourceStep : 1);
  if (Steps.size() == 1 && *Steps.begin() % S == 0)
    return double(*Steps.begin() / S);
  return 1;
}

/// Position of I's memory operand (x86: base, scale, index, displacement,
/// segment from there; one per instruction); nullopt without one.
std::optional<unsigned> memoryOperand(const MCInst &I, const MCInstrDesc &D) {
  for (unsigned K = 0; K + 2 < I.getNumOperands() && K < D.getNumOperands(); ++K)
    if (D.operands()[K].OperandType == MCOI::OPERAND_MEMORY)
      return K;
  return std::nullopt;
}

/// Each memory operand's votes for the k its advance per trip is a whole
/// number of some access's stride. IMPOSSIBLE counts the vector accesses no
/// reference can be: wider than the elements of every reference that skips
/// elements, with no other one to be (clang's version for a unit step).
std::map<long, unsigned> strideVotes(const MachineLoop &L, TargetBundle &TB,
                                     Increments &Increments, const std::vector<double> &Strides,
                                     const std::map<double, unsigned> *Skipping,
                                     unsigned *Impossible,
                                     const std::vector<ModeStride> *Quotients) {
  std::map<long, unsigned> Votes;
  bool Loads = false, Stores = false; // the instruction voting
  // A vector access wider than the element of a reference that skips
  // elements (b[8 * i]) is not that reference's: gathers or scalars are.
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
    if (Quotients)
      for (const ModeStride &Q : *Quotients)
        if ((Q.Written ? Stores : Loads) && Bytes > 0) {
          double K2 = Bytes / Q.Bytes;
          Possible = true;
          if (K2 >= 1 && std::fabs(K2 - std::round(K2)) < 1e-9)
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
    Loads = D.mayLoad();
    Stores = D.mayStore();
    bool Voted = false;
    if (auto K = memoryOperand(I, D); K && I.getOperand(*K).isReg()) {
      unsigned Base = I.getOperand(*K).getReg();
      int64_t Scale = I.getOperand(*K + 1).isImm() ? I.getOperand(*K + 1).getImm() : 1;
      unsigned Index = I.getOperand(*K + 2).isReg() ? I.getOperand(*K + 2).getReg() : 0;
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
  return Votes;
}

/// Only gathers and scatters move data (strided or indirect accesses,
/// addressed through a vector of indices): each covers its lanes of source
/// iterations for one access; more of them than accesses are unrolled
/// copies. 0 without gathers.
double gatherTrip(const MachineLoop &L, TargetBundle &TB, unsigned Gathered) {
  unsigned Lanes = 0, Ops = 0;
  for (const MCInst &I : L.Insts)
    if (unsigned G = gatherLanes(TB.MII->getName(I.getOpcode()))) {
      Lanes = std::max(Lanes, G);
      ++Ops;
    }
  return Lanes ? double(Lanes) * std::max(1.0, std::floor(double(Ops) / Gathered)) : 0;
}

/// The addresses advance by a register (a step known only at run time,
/// TSVC's i += n3 at n3 = 1): the vector accesses tell the trip, their lanes
/// of the element times the copies of the source's references. 0 when no
/// access is wider than the element.
double vectorWidthTrip(const MachineLoop &L, TargetBundle &TB,
                       std::pair<unsigned, unsigned> RefsAndElement) {
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
  return 0;
}

/// Scalar accesses that advance by a register (a column walk over rows of a
/// length known at run time): the counter tells the unrolling, a register
/// stepped by an immediate that addresses nothing (`add r9, -17` beside 17
/// loads of one reference). 0 when there is no such counter.
double registerSteppedTrip(const MachineLoop &L, TargetBundle &TB, const Increments &Inc,
                           int64_t SourceStep) {
  std::set<unsigned> Addressing;
  for (const MCInst &I : L.Insts)
    if (auto K = memoryOperand(I, TB.MII->get(I.getOpcode())))
      for (unsigned Op : {*K, *K + 2}) // base, index
        if (I.getOperand(Op).isReg())
          Addressing.insert(I.getOperand(Op).getReg());
  Increments Counters;
  for (const auto &[Reg, Imm] : Inc)
    if (!Addressing.count(Reg))
      Counters[Reg] = Imm;
  if (Counters.empty())
    return 0;
  double T = counterUnrolling(Counters, SourceStep);
  return T > 1 ? T : 0;
}

} // namespace

/// Source iterations per machine iteration, from the self-increments of
/// registers that address memory: `add rax, 16` with `[rdx + 8*rax]` moves
/// 128 B per trip; at 8 B per source iteration that is 16 iterations. Each
/// memory operand votes for every k its advance is a whole multiple of some
/// source access's stride; the k most operands agree on wins (dgemm's
/// `add r11, 65536` is 4 rows of B, not 8192 elements of A).
double estimateIterations(const MachineLoop &L, TargetBundle &TB,
                          const std::vector<double> &Strides, int64_t SourceStep,
                          unsigned Gathered, unsigned *Explained,
                          const std::map<double, unsigned> *Skipping,
                          unsigned *Impossible,
                          std::pair<unsigned, unsigned> RefsAndElement,
                          const std::vector<ModeStride> *Quotients) {
  if (Explained)
    *Explained = 0;
  Increments Inc = registerIncrements(L, TB);
  if (Strides.empty() && (!Quotients || Quotients->empty()))
    return counterUnrolling(Inc, SourceStep);
  std::map<long, unsigned> Votes =
      strideVotes(L, TB, Inc, Strides, Skipping, Impossible, Quotients);
  long Best = 1;
  unsigned BestVotes = 0;
  for (const auto &[K, V] : Votes)
    if (V > BestVotes) { // on a tie the smaller k (map order) stays
      Best = K;
      BestVotes = V;
    }
  if (Explained)
    *Explained = BestVotes;
  if (Votes.empty() && Gathered)
    if (double T = gatherTrip(L, TB, Gathered))
      return T;
  if (Votes.empty() && !Gathered && RefsAndElement.first && RefsAndElement.second)
    if (double T = vectorWidthTrip(L, TB, RefsAndElement))
      return T;
  if (Votes.empty())
    if (double T = registerSteppedTrip(L, TB, Inc, SourceStep))
      return T;
  return double(Best);
}

} // namespace perfmodel::mloop

//===- MachineLoops.h - Machine loops in object code (internal) -*- C++ -*-===//
//
// A function's control-flow graph and its innermost natural loops, the
// straight-line callees a call runs through, and how many source iterations
// a machine loop's trip covers (MachineLoops.cpp); KernelLoops.cpp matches
// them to source loops and costs them.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_INCORE_MACHINELOOPS_H
#define PERFMODEL_INCORE_MACHINELOOPS_H

#include "ObjectCode.h"
#include "TargetBundle.h"

#include "llvm/MC/MCInst.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace perfmodel::mloop {

using llvm::MCInst;

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
  /// The costed blocks as one trip runs them, COPIES iterations: Kept in
  /// address order, one iteration; for a body whose branches choose
  /// between paths (an if inside the loop), walks from the header back to
  /// it that take each arm of each branch equally often, in execution order.
  std::vector<size_t> Sequence;
  unsigned Copies = 1;
  bool Weighed = false; ///< Sequence takes the arms of branches on counters by their shares
  unsigned Branches = 0; ///< blocks with two or more successors in the body
  /// For the longest loop-carried chain the branches allow: one walk from
  /// the header back to it per choice of arm at each source branch (the
  /// branches of one source line, the copies of an unrolled body, choose
  /// alike), at most 64; empty without branches.
  std::vector<std::vector<size_t>> ChoiceWalks;

  /// FN(offset) for each byte of the blocks WALK, in its order; forEachByte
  /// for the trip's Sequence.
  template <typename Fn> void forEachByteOf(const std::vector<size_t> &Walk, Fn F) const;
  template <typename Fn> void forEachByte(Fn F) const { forEachByteOf(Sequence, F); }
};

template <typename Fn>
void MachineLoop::forEachByteOf(const std::vector<size_t> &Walk, Fn Fn_) const {
  for (size_t X : Walk) {
    const Block &B = Cfg->Blocks[X];
    uint64_t Begin = Cfg->All[B.First].Off, End = Cfg->All[B.Last].Off + Cfg->All[B.Last].Size;
    for (uint64_t O = Begin; O < End; ++O)
      Fn_(O);
  }
}

/// Functions of the object a loop's call to them is costed through: code
/// without a branch or call before its first return (f's x * x + 1.0f), at
/// most 256 bytes, by symbol. Their instructions are what a call runs.
struct StraightCallees {
  std::map<std::string, std::pair<const FunctionCode *, uint64_t>> Code; ///< bytes to the ret
};

StraightCallees straightCallees(const ObjectFileBytes &Obj, TargetBundle &TB);

/// Appends F's byte at offset O (and its line); when it ends a call (E8
/// rel32) to a straight-line function of the object, that function's code
/// follows, as the core runs it. SPLICED collects the callees' names.
void appendExecuted(const FunctionCode &F, uint64_t O, const StraightCallees &C,
                    std::vector<uint8_t> &Bytes, std::vector<unsigned> &Lines,
                    std::vector<std::string> *Spliced = nullptr);

/// The innermost natural loops of F's control-flow graph (back edges to a
/// block that dominates their source). A block inside a loop that calls out
/// is left out when the loop's latches stay reachable without it: the
/// compiler's cold paths (sqrt's errno call) are not the steady state.
std::vector<MachineLoop> findLoops(const FunctionCode &F, TargetBundle &TB,
                                   FunctionCFG &Cfg);

/// A branch of the source body on counters and sizes: its condition's and
/// arms' lines and the share of iterations that take the then-arm.
struct ArmShare {
  unsigned Line = 0, LastLine = 0, ThenFirst = 0, ThenLast = 0, ElseFirst = 0, ElseLast = 0;
  double Taken = 0.5;
  bool OnData = false; ///< a share assumed of the data (a running extremum): no version is made for it
};

/// M's source lines (its costed blocks'), for weighing versions of a loop.
std::set<unsigned> linesOf(const MachineLoop &M);

/// M's Sequence rebuilt for branches whose arms' shares are known (SHARES):
/// four walks, each branch of a share taking its then-arm in round(4 x
/// share) of them, the other branches alternating as pathSequence has them;
/// ChoiceWalks keep the walks that take no arm run in under a quarter of
/// the iterations. False, M unchanged, where none of M's branches is one
/// of SHARES or a walk fails.
bool weighArms(MachineLoop &M, const std::vector<ArmShare> &Shares);

/// The source line of each branch M's trip (Sequence) meets whose arms both
/// stay in the body and whose outcome the sizes do not give (not one of
/// SHARES): branches on the data, which the predictor may miss.
std::vector<unsigned> dataBranchLines(const MachineLoop &M, const std::vector<ArmShare> &Shares);

/// Lanes of an x86 gather or scatter opcode (VGATHERQPDZrm: 8), 0 for
/// anything else.
unsigned gatherLanes(llvm::StringRef Name);

/// Bytes per iteration of a reference through quotients of the counters
/// (in[j / 4]: a quarter of its element), and whether it is written: only
/// machine accesses of its kind (a load for a read) are taken to be its.
struct ModeStride {
  double Bytes = 0;
  bool Written = false;
};

double estimateIterations(const MachineLoop &L, TargetBundle &TB,
                          const std::vector<double> &Strides, int64_t SourceStep = 1,
                          unsigned Gathered = 0, unsigned *Explained = nullptr,
                          const std::map<double, unsigned> *Skipping = nullptr,
                          unsigned *Impossible = nullptr,
                          std::pair<unsigned, unsigned> RefsAndElement = {0, 0},
                          const std::vector<ModeStride> *Quotients = nullptr);

} // namespace perfmodel::mloop

#endif

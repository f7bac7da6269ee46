//===- Block.h - The steps that cost one block (internal) -------*- C++ -*-===//
//
// analyzeBlock (BlockAnalysis.cpp) costs a block of machine code in steps,
// in this order: decode, the plain load/store/add ports, each instruction's
// cost and registers, the stack engine, issue, the front end's limits, the
// ports, the L1 data path, register and memory dependences, the recurrence,
// the list schedule and the verdict. Block holds what a step leaves for the
// next; each step's file says what it decides.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_INCORE_BLOCK_H
#define PERFMODEL_INCORE_BLOCK_H

#include "FrontEnd.h"
#include "ListSchedule.h"
#include "TargetBundle.h"
#include "perfmodel/InCore.h"

#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/Support/GlobPattern.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace perfmodel::block {

/// Cycles per set of ports: one demand of an instruction.
using Demand = std::pair<std::vector<unsigned>, double>;
/// A dependence; From is a position in the sequence of two iterations.
using Edge = SchedEdge;

/// Leaf processor resources ("ports") of a scheduling model and the leaf set
/// behind every resource index.
struct PortMap {
  std::vector<std::string> Names;
  std::vector<unsigned> Units;
  std::map<unsigned, std::vector<unsigned>> Leaves; ///< resource idx -> ports

  /// UNITS: counts that replace LLVM's, by port name (core.port_units).
  PortMap(const llvm::MCSchedModel &SM, const std::map<std::string, unsigned> &Units);
};

/// An instruction override's form, compiled once: a prefix of the
/// disassembly, or a glob over its start ("vf*[0-9]s[sd] " is every scalar
/// FMA). Not copyable: the glob refers to Pattern's text.
class FormMatcher {
  std::string Pattern;
  bool IsGlob;
  std::optional<llvm::GlobPattern> Glob;
  /// The glob's longest run of plain characters: a text without it cannot
  /// match, and most texts are ruled out by it faster than by the glob
  /// ("*div r[0-9]" has no prefix for the glob to check first).
  std::string Literal;

public:
  explicit FormMatcher(const std::string &Form);
  FormMatcher(const FormMatcher &) = delete;
  FormMatcher &operator=(const FormMatcher &) = delete;
  bool matches(llvm::StringRef Text) const {
    if (!IsGlob)
      return Text.starts_with(Pattern);
    return Glob && Text.contains(Literal) && Glob->match(Text);
  }
};

/// A machine file's overrides, compiled once per thread, with the overrides
/// each instruction text matches: the loops of a file repeat their texts, and
/// every block of them would match each text against every form again.
class OverrideIndex {
  std::vector<std::unique_ptr<FormMatcher>> Forms;
  std::unordered_map<std::string, std::vector<unsigned>> Of;

public:
  explicit OverrideIndex(const std::vector<InstructionOverride> &Overrides);
  /// The indices of the overrides whose forms match TEXT, in file order.
  const std::vector<unsigned> &matching(const std::string &Text);
  /// This thread's index of OVERRIDES (one per distinct list of forms).
  static OverrideIndex &of(const std::vector<InstructionOverride> &Overrides);
};

/// An x86 memory operand: base, scale, index, displacement, segment.
struct MemRef {
  unsigned Base = 0, Index = 0, Segment = 0;
  int64_t Scale = 1, Disp = 0;
  bool operator==(const MemRef &O) const {
    return Base == O.Base && Index == O.Index && Segment == O.Segment &&
           Scale == O.Scale && Disp == O.Disp;
  }
};

struct RegUse {
  unsigned Reg;
  unsigned UseIdx;
};
struct RegDef {
  unsigned Reg;
  double Latency;
  unsigned WriteResID;
};

/// The block being costed: its inputs, then what each step adds.
struct Block {
  Block(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
        const std::vector<unsigned> &Lines, const TargetBundle &TB, InCoreResult &R);

  const std::vector<uint8_t> &Bytes;
  const InCoreOptions &O;
  const std::vector<unsigned> &Lines;
  const TargetBundle &TB;
  const llvm::MCSchedModel &SM;
  const PortMap PM;
  InCoreResult &R; ///< filled step by step
  /// Only the block's figures are kept (analyzeBlockFigures): no
  /// per-instruction port table.
  bool FiguresOnly = false;
  const LineSplits &LS;
  const unsigned CPUID;
  /// Intel cores this model knows: their front end, renamer and memory rules.
  const bool X86;
  const std::optional<decode::Config> Legacy;
  OverrideIndex &Overrides; ///< O's overrides, by instruction text

  // decode
  std::vector<llvm::MCInst> Insts;
  std::vector<bool> Locked; ///< lock-prefixed or xchg with memory
  std::vector<std::optional<MemRef>> Mem;
  // plainPorts: the ports of a plain load and a plain store (what a split
  // access occupies twice, what ECM counts as data transfer), of a plain
  // register add (where the stack engine's sync uops go) and a plain
  // load's latency (what a forwarded load replaces).
  std::vector<bool> LoadPort, StorePort;
  std::vector<unsigned> AluPorts;
  double LoadLatency = 5;
  double VectorLoadLatency = 5; ///< a load folded into a vector operation
  // costInstruction, registersOf
  std::vector<const llvm::MCSchedClassDesc *> Classes;
  std::vector<std::vector<RegDef>> Defs;
  std::vector<std::vector<RegUse>> Uses;
  /// Per instruction: its overrides' bypass group (-1: none) and what a
  /// result reaching a consumer outside that group waits beyond its latency.
  std::vector<int> Group;
  std::vector<double> OutsideShift;
  std::vector<Demand> AllDemands;
  std::vector<size_t> DemandOwner;
  std::vector<unsigned> Eliminated; ///< moves eliminated at rename
  double SplitLoads = 0, SplitStores = 0; ///< per iteration
  // stackSync, issueUops, frontEndLimits
  std::vector<unsigned> Sync, Issue, Lcps;
  std::vector<decode::Instr> Decode;
  unsigned Width = 0;
  std::vector<double> Delivered; ///< the legacy decoders' delivery cycles
  // registerEdges, memoryEdges, recurrence
  std::vector<std::vector<Edge>> In;
  std::vector<bool> ThroughMemory; ///< loads that read a store of the block
  std::vector<double> OwnCycle;

  // The steps, in the order analyzeBlock runs them.
  bool decode();                                    // BlockCost.cpp
  void plainPorts();                                // PortModel.cpp
  bool costInstruction(size_t I, double &DefShift); // BlockCost.cpp
  void registersOf(size_t I, double DefShift);      // BlockCost.cpp
  /// Instruction I costed as instruction J before it, of the same bytes and
  /// text (a nest trace's copies of its body): what the two steps above
  /// would find again, their additions to the block's lists included.
  void copyCost(size_t I, size_t J);                // BlockCost.cpp
  /// Instruction I's port demands and its share of split accesses (SPLIT)
  /// join the block's: the end of both steps above.
  void joinBlock(size_t I, double Split);           // BlockCost.cpp
  void stackSync();                                 // X86Quirks.cpp
  void issueUops();                                 // BlockCost.cpp
  void frontEndLimits();                            // BlockCost.cpp
  void portBound();                                 // PortModel.cpp
  void l1DataPath();                                // PortModel.cpp
  void registerEdges();                             // Dependences.cpp
  void memoryEdges();                               // Dependences.cpp
  bool renameThroughMemory(size_t Pos, size_t PPos, double Lat); // Dependences.cpp
  std::optional<size_t> previousLink(size_t Store,
                                     const std::vector<bool> &Forwarded); // Dependences.cpp
  /// previousLink's walk: per position the walk that last saw it (a trace
  /// walks hundreds of times over thousands of positions).
  std::vector<uint32_t> LinkSeen;
  uint32_t LinkWalk = 0;
  std::vector<size_t> LinkWork;
  void recurrence();                                // Dependences.cpp
  void schedule();                                  // BlockVerdict.cpp
  double iterationChain() const;                    // BlockVerdict.cpp
  bool WindowBound = false; ///< schedule: the window binds, not a bound
  void verdict();                                   // BlockVerdict.cpp
};

// What the steps share.
std::vector<Demand> demandsOf(const llvm::MCSubtargetInfo &STI,
                              const llvm::MCSchedClassDesc *SC, const PortMap &PM);
bool subset(const std::vector<unsigned> &A, const std::vector<unsigned> &B);
double splitShare(const LineSplits &LS, const InstrCost &C);
std::optional<MemRef> memRef(const llvm::MCInst &I, const llvm::MCInstrDesc &D);
bool x86ZeroIdiom(llvm::StringRef Name, const llvm::MCInst &I);
/// A register-to-register move (LLVM opcode NAME) that rename can eliminate.
bool x86EliminableMove(llvm::StringRef Name);
/// Whether instruction C (LLVM opcode NAME) macro-fuses with a jcc after it.
bool x86MacroFusible(llvm::StringRef Name, const InstrCost &C);
/// The PPR class of the operation whose disassembly is TEXT.
InstrCost::FpOp fpClass(llvm::StringRef Text);
/// The memory-access facts of C (AccessBytes, VectorData, GatherScatter,
/// NonTemporal, FixedPlace), from its opcode, operands and address.
void accessFacts(InstrCost &C, const llvm::MCInst &I, llvm::StringRef Name,
                 const std::optional<MemRef> &M, const llvm::MCRegisterInfo &MRI);
bool partialGpr(llvm::StringRef Name);
bool readsDestination(llvm::StringRef Name, const llvm::MCSubtargetInfo &STI);
InstrClasses instrClasses(const std::vector<InstrCost> &Instrs);
/// V with three significant digits, as notes print cycles.
std::string shortNumber(double V);

} // namespace perfmodel::block

#endif

//===- BlockCost.cpp - Decode a block, cost its instructions, issue -------===//
//
// From bytes to costed instructions: decoding (prefixes folded in), each
// instruction's scheduling class, uops, latency and port demands with the
// core's quirks and the machine file's overrides, its register defs and uses,
// then the front end: fused uops issued, legacy decoders, loop stream,
// calls and returns.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

using namespace llvm;
using namespace perfmodel;
using namespace perfmodel::block;

namespace perfmodel::block {

FormMatcher::FormMatcher(const std::string &Form)
    : Pattern(Form), IsGlob(Form.find_first_of("*?[") != std::string::npos) {
  if (!IsGlob)
    return;
  // Runs between wildcards and bracket expressions; none where the glob has
  // escapes or braces, whose characters are not plain.
  if (Form.find_first_of("\\{}") == std::string::npos) {
    std::string Run;
    auto EndRun = [&] {
      if (Run.size() > Literal.size())
        Literal = Run;
      Run.clear();
    };
    for (size_t I = 0; I < Form.size(); ++I) {
      char C = Form[I];
      if (C == '*' || C == '?') {
        EndRun();
      } else if (C == '[') {
        EndRun();
        size_t Close = Form.find(']', I + 2); // "[]...]" holds a ']'
        I = Close == std::string::npos ? Form.size() : Close;
      } else {
        Run += C;
      }
    }
    EndRun();
  }
  Pattern += "*";
  llvm::Expected<llvm::GlobPattern> G = llvm::GlobPattern::create(Pattern);
  if (G)
    Glob = std::move(*G);
  else
    llvm::consumeError(G.takeError()); // the machine loader reports it
}

OverrideIndex::OverrideIndex(const std::vector<InstructionOverride> &Overrides) {
  for (const InstructionOverride &Ov : Overrides)
    Forms.push_back(std::make_unique<FormMatcher>(Ov.Form));
}

const std::vector<unsigned> &OverrideIndex::matching(const std::string &Text) {
  if (Of.size() >= (1u << 17)) // a long run over many files: start afresh
    Of.clear();
  auto [It, New] = Of.try_emplace(Text);
  if (New)
    for (size_t I = 0; I < Forms.size(); ++I)
      if (Forms[I]->matches(Text))
        It->second.push_back(unsigned(I));
  return It->second;
}

OverrideIndex &OverrideIndex::of(const std::vector<InstructionOverride> &Overrides) {
  // Keyed by the forms in order: the indices returned are positions in the list.
  std::string Key;
  for (const InstructionOverride &Ov : Overrides)
    (Key += Ov.Form) += '\0';
  thread_local std::map<std::string, std::unique_ptr<OverrideIndex>> Indices;
  std::unique_ptr<OverrideIndex> &I = Indices[Key];
  if (!I)
    I = std::make_unique<OverrideIndex>(Overrides);
  return *I;
}

std::string shortNumber(double V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%.3g", V);
  return std::string(Buf);
}

/// Decodes the bytes into Insts and R.Instrs (text, address, source line);
/// false, with R.Reason, when bytes are not an instruction or there are none.
namespace {
using DecodedInst = TargetBundle::Decoded;

/// The instruction at ADDR, decoded once per bundle and window of bytes (the
/// longest an instruction can be, 15); null where the bytes are none.
const DecodedInst *decodeAt(const TargetBundle &TB, ArrayRef<uint8_t> Bytes, uint64_t Addr) {
  std::unordered_map<std::string, DecodedInst> &Memo = TB.DecodeMemo;
  ArrayRef<uint8_t> Window = Bytes.slice(Addr, std::min<size_t>(15, Bytes.size() - Addr));
  std::string Key(Window.begin(), Window.end());
  if (auto It = Memo.find(Key); It != Memo.end())
    return &It->second;
  DecodedInst D;
  if (TB.Dis->getInstruction(D.Inst, D.Size, Bytes.slice(Addr), Addr, nulls()) !=
          MCDisassembler::Success ||
      D.Size == 0)
    return nullptr;
  raw_string_ostream OS(D.Text);
  TB.IP->printInst(&D.Inst, Addr, "", *TB.STI, OS);
  OS.flush();
  D.Text = StringRef(D.Text).trim().str();
  for (char &Ch : D.Text)
    if (Ch == '\t')
      Ch = ' ';
  if (Memo.size() > (1u << 20)) // a long-lived process (the plugin) stays bounded
    Memo.clear();
  return &Memo.emplace(std::move(Key), std::move(D)).first->second;
}
} // namespace

bool Block::decode() {
  // x86 lock/rep prefixes decode as instructions of their own: they are
  // folded into the instruction they prefix (one instruction, its bytes).
  std::optional<std::pair<uint64_t, std::string>> Prefix;
  uint64_t Addr = 0;
  while (Addr < Bytes.size()) {
    const DecodedInst *D = decodeAt(TB, Bytes, Addr);
    if (!D) {
      char Buf[64];
      snprintf(Buf, sizeof(Buf), "invalid instruction bytes at offset %llu (0x%02x)",
               (unsigned long long)Addr, Bytes[Addr]);
      R.Reason = Buf;
      return false;
    }
    const MCInst &Inst = D->Inst;
    uint64_t Size = D->Size;
    InstrCost C;
    C.Address = Addr;
    C.Line = Addr < Lines.size() ? Lines[Addr] : 0;
    C.Text = D->Text;
    StringRef Name = TB.MII->getName(Inst.getOpcode());
    if (Name == "LOCK_PREFIX" || Name == "REP_PREFIX" || Name == "REPNE_PREFIX") {
      if (!Prefix)
        Prefix = {Addr, ""};
      Prefix->second += C.Text + " ";
      Addr += Size;
      continue;
    }
    bool IsLocked = Name.starts_with("XCHG") && TB.MII->get(Inst.getOpcode()).mayLoad();
    if (Prefix) {
      IsLocked |= StringRef(Prefix->second).contains("lock");
      C.Address = Prefix->first;
      C.Text = Prefix->second + C.Text;
      Prefix.reset();
    }
    Locked.push_back(IsLocked);
    R.Instrs.push_back(std::move(C));
    Insts.push_back(Inst);
    Addr += Size;
  }
  if (Insts.empty()) {
    R.Reason = "no instructions";
    return false;
  }
  // x86 memory operands; the costs fill the rest per instruction.
  for (const MCInst &Inst : Insts)
    Mem.push_back(memRef(Inst, TB.MII->get(Inst.getOpcode())));
  Classes.resize(Insts.size());
  Group.assign(Insts.size(), -1);
  OutsideShift.assign(Insts.size(), 0);
  Defs.resize(Insts.size());
  Uses.resize(Insts.size());
  return true;
}

/// Instruction I's scheduling class, uops, latency and port demands, with
/// the core's quirks (move elimination, the stack engine's push and pop),
/// the machine file's overrides and line splits; DefShift is what an
/// override moved its latency by. False when LLVM has no scheduling
/// information for it: one uop, no ports, no registers.
bool Block::costInstruction(size_t I, double &DefShift) {
  const MCInst &Inst = Insts[I];
  const MCInstrDesc &Desc = TB.MII->get(Inst.getOpcode());
  unsigned SchedClass = Desc.getSchedClass();
  const MCSchedClassDesc *SC = SM.getSchedClassDesc(SchedClass);
  for (unsigned Guard = 0; SC && SC->isVariant() && Guard < 16; ++Guard) {
    SchedClass = TB.STI->resolveVariantSchedClass(SchedClass, &Inst, TB.MII.get(), CPUID);
    SC = SchedClass ? SM.getSchedClassDesc(SchedClass) : nullptr;
  }
  InstrCost &C = R.Instrs[I];
  C.MayLoad = Desc.mayLoad();
  C.MayStore = Desc.mayStore();
  accessFacts(C, Inst, TB.MII->getName(Inst.getOpcode()), Mem[I], *TB.MRI);
  C.Fp = fpClass(C.Text);
  if (Desc.isCall())
    R.Callees.emplace_back();
  if (!SC || !SC->isValid()) {
    R.Notes.push_back("'" + C.Text + "' has no scheduling information for " + O.Cpu +
                      "; counted as 1 uop with no port use");
    C.Uops = 1;
    Classes[I] = nullptr;
    return false;
  }
  Classes[I] = SC;
  C.Uops = SC->NumMicroOps;
  C.Latency = std::max(0, MCSchedModel::computeInstrLatency(*TB.STI, *SC));
  auto Known = TB.DemandMemo.find(SC);
  if (Known == TB.DemandMemo.end())
    Known = TB.DemandMemo.emplace(SC, demandsOf(*TB.STI, SC, PM)).first;
  C.Demands = Known->second;
  // Register-to-register moves eliminated at rename: no port, no latency.
  if (Legacy && Legacy->MoveElimination && x86EliminableMove(TB.MII->getName(Inst.getOpcode()))) {
    C.Demands.clear();
    C.Latency = 0;
    Eliminated.push_back(unsigned(I));
  }
  // push and pop of a register: the stack engine updates rsp in the front
  // end, so only the store (address and data) or the load remain; some
  // LLVM models charge an ALU uop for the update.
  if (StringRef Nm = TB.MII->getName(Inst.getOpcode());
      Nm == "PUSH64r" || Nm == "POP64r" || Nm == "PUSH64i8" || Nm == "PUSH64i32") {
    bool Push = Nm.starts_with("PUSH");
    const std::vector<bool> &Mem = Push ? StorePort : LoadPort;
    size_t Before = C.Demands.size();
    llvm::erase_if(C.Demands, [&](const auto &D) {
      return std::none_of(D.first.begin(), D.first.end(), [&](unsigned P) {
        return Mem[P] || (Push && LoadPort[P]); // store address: the AGU ports
      });
    });
    if (C.Demands.size() < Before)
      C.Uops = Push ? 2 : 1;
  }
  // An override's latency is the operation's (register to register); a
  // folded load adds its part, which LLVM models as the ReadAdvance of the
  // register source. DefShift moves every def latency by the difference.
  DefShift = 0;
  double ModelOpLatency =
      C.Latency - (C.MayLoad ? std::max(0, TB.STI->getReadAdvanceCycles(SC, 0, 0)) : 0);
  // Machine-file overrides: matched on the mnemonic and operand kinds.
  // A trace repeats its body's texts: each is matched against the forms once.
  // Of several that match, the last one's latency holds (each replaces the
  // model's, none adds to another's).
  const double ModelLatency = C.Latency;
  for (unsigned OI : Overrides.matching(C.Text)) {
    const InstructionOverride &Ov = O.Overrides[OI];
    if (Ov.LatencyCy) {
      DefShift = *Ov.LatencyCy - ModelOpLatency;
      C.Latency = std::max(0.0, ModelLatency + DefShift);
    }
    if (!Ov.BypassGroup.empty()) {
      // Groups are told apart by the first override that names them.
      Group[I] = int(std::find_if(O.Overrides.begin(), O.Overrides.end(),
                                  [&](const InstructionOverride &X) {
                                    return X.BypassGroup == Ov.BypassGroup;
                                  }) -
                     O.Overrides.begin());
      OutsideShift[I] = Ov.LatencyOutsideCy && Ov.LatencyCy
                            ? *Ov.LatencyOutsideCy - *Ov.LatencyCy
                            : 0;
    }
    if (Ov.Uops) {
      C.Uops = unsigned(*Ov.Uops);
      C.UopsFromFile = true;
    }
    if (!Ov.Ports.empty()) {
      // The named ports' cycles replace what the model charges to them;
      // the rest (a folded load's AGU) stays.
      std::vector<std::pair<std::vector<unsigned>, double>> Named;
      for (const auto &[Port, Cy] : Ov.Ports) {
        auto It = std::find(PM.Names.begin(), PM.Names.end(), Port);
        if (It != PM.Names.end())
          Named.push_back({{unsigned(It - PM.Names.begin())}, Cy});
        else
          R.Notes.push_back("override for '" + Ov.Form + "' names unknown port '" +
                            Port + "'");
      }
      llvm::erase_if(C.Demands, [&](const auto &D) {
        return std::any_of(Named.begin(), Named.end(), [&](const auto &N) {
          return llvm::is_contained(D.first, N.first.front());
        });
      });
      for (const auto &D : Named)
        if (D.second > 0) // 0 cycles: the form does not use the port
          C.Demands.push_back(D);
    }
  }
  double Split = splitShare(LS, C);
  if (Split > 0) {
    // A split access takes its slots COST times; a pure store takes all of
    // them so (the cost was measured on a store stream, whose data path may
    // have fewer units than store slots, as Zen's one FP store-data pipe).
    double Extra = Split * ((C.MayStore ? LS.StoreCost : LS.LoadCost) - 1);
    bool PureStore = C.MayStore && !C.MayLoad;
    for (auto &[Ports, Cy] : C.Demands) {
      const std::vector<bool> &Mem = C.MayStore ? StorePort : LoadPort;
      if (PureStore ||
          std::all_of(Ports.begin(), Ports.end(), [&](unsigned P) { return Mem[P]; }))
        Cy *= 1 + Extra;
    }
  }
  joinBlock(I, Split);
  return true;
}

void Block::joinBlock(size_t I, double Split) {
  const InstrCost &C = R.Instrs[I];
  if (Split > 0)
    (C.MayStore ? SplitStores : SplitLoads) += Split;
  for (const auto &D : C.Demands) {
    AllDemands.push_back(D);
    DemandOwner.push_back(I);
  }
}

void Block::copyCost(size_t I, size_t J) {
  InstrCost &C = R.Instrs[I];
  const uint64_t Address = C.Address;
  const unsigned Line = C.Line;
  C = R.Instrs[J];
  C.Address = Address;
  C.Line = Line;
  Classes[I] = Classes[J];
  Group[I] = Group[J];
  OutsideShift[I] = OutsideShift[J];
  Defs[I] = Defs[J];
  Uses[I] = Uses[J];
  if (std::binary_search(Eliminated.begin(), Eliminated.end(), unsigned(J)))
    Eliminated.push_back(unsigned(I)); // in order: I is past every index in it
  joinBlock(I, splitShare(LS, C));
}

/// Instruction I's register defs, with their latencies, and uses for the
/// dependence graph: a zero idiom uses nothing; a partial register or a
/// false dependence adds a use of the destination.
void Block::registersOf(size_t I, double DefShift) {
  const MCInst &Inst = Insts[I];
  const MCInstrDesc &Desc = TB.MII->get(Inst.getOpcode());
  const MCSchedClassDesc *SC = Classes[I];
  const InstrCost &C = R.Instrs[I];
  // Register defs and uses (for the dependence graph).
  unsigned NumDefs = Desc.getNumDefs();
  for (unsigned D = 0; D < NumDefs && D < Inst.getNumOperands(); ++D) {
    const MCOperand &Op = Inst.getOperand(D);
    if (!Op.isReg() || !Op.getReg())
      continue;
    double Lat = C.Latency;
    unsigned WID = 0;
    if (D < SC->NumWriteLatencyEntries) {
      const MCWriteLatencyEntry *WL = TB.STI->getWriteLatencyEntry(SC, D);
      if (WL->Cycles >= 0)
        Lat = std::max(0.0, WL->Cycles + DefShift);
      WID = WL->WriteResourceID;
    }
    if (!Eliminated.empty() && Eliminated.back() == I)
      Lat = 0; // the renamer points the destination at the source
    Defs[I].push_back({Op.getReg(), Lat, WID});
  }
  // x86's stack engine updates the stack pointer of push, pop, call and
  // ret in the front end: no dependence through implicit RSP.
  auto StackPointer = [&](unsigned Reg) {
    StringRef Name = TB.MRI->getName(Reg);
    return Name == "RSP" || Name == "ESP" || Name == "SP";
  };
  unsigned J = 0;
  for (MCPhysReg Reg : Desc.implicit_defs()) {
    if (StackPointer(Reg)) {
      ++J;
      continue;
    }
    double Lat = C.Latency;
    unsigned WID = 0;
    unsigned DefIdx = NumDefs + J++;
    if (DefIdx < SC->NumWriteLatencyEntries) {
      const MCWriteLatencyEntry *WL = TB.STI->getWriteLatencyEntry(SC, DefIdx);
      if (WL->Cycles >= 0)
        Lat = std::max(0.0, WL->Cycles + DefShift);
      WID = WL->WriteResourceID;
    }
    Defs[I].push_back({Reg, Lat, WID});
  }
  APInt Mask;
  bool Breaking = TB.MIA && (TB.MIA->isZeroIdiom(Inst, Mask, CPUID) ||
                             TB.MIA->isDependencyBreaking(Inst, Mask, CPUID));
  // Ours on every x86 core too: LLVM 19's Zen models list the VEX forms
  // only, where clang zeroes xmm16-31 with EVEX ones (Zen 4 breaks those).
  Breaking |= x86ZeroIdiom(TB.MII->getName(Inst.getOpcode()), Inst);
  if (Breaking)
    return; // xor reg,reg and friends do not wait for their inputs
  unsigned UseIdx = 0;
  for (unsigned K = NumDefs; K < Inst.getNumOperands(); ++K) {
    const MCOperand &Op = Inst.getOperand(K);
    if (!Op.isReg())
      continue;
    if (Op.getReg())
      Uses[I].push_back({Op.getReg(), UseIdx});
    ++UseIdx;
  }
  for (MCPhysReg Reg : Desc.implicit_uses()) {
    if (!StackPointer(Reg))
      Uses[I].push_back({Reg, UseIdx});
    ++UseIdx;
  }
  // Writing an 8- or 16-bit general-purpose register (sete al, mov cx, 1)
  // merges into the full register on Intel cores: it waits for the last
  // write of it (Agner Fog's microarchitecture guide, "partial registers").
  if (Legacy)
    for (unsigned D = 0; D < NumDefs && D < Inst.getNumOperands(); ++D)
      if (const MCOperand &Op = Inst.getOperand(D); Op.isReg() && Op.getReg() &&
                                                  partialGpr(TB.MRI->getName(Op.getReg())))
        Uses[I].push_back({Op.getReg(), ~0u});
  // Forms that also read their destination: bsf and bsr leave it as it was
  // when the source is zero (Intel and AMD alike), and the forms LLVM's
  // tuning for this CPU says have a false dependency on it.
  if (X86 && NumDefs >= 1 && Inst.getOperand(0).isReg() && Inst.getOperand(0).getReg() &&
      readsDestination(TB.MII->getName(Inst.getOpcode()), *TB.STI))
    Uses[I].push_back({Inst.getOperand(0).getReg(), ~0u});
}

/// Front end, in fused-domain uops: on x86 the load or store-address part of
/// an instruction with a memory operand is micro-fused with the rest, and a
/// flag-setting ALU op macro-fuses with the following jcc. Intel cores
/// un-laminate some micro-fused uops with an indexed address before rename
/// (Intel's optimization manual, "Unlamination"; Sandy/Ivy Bridge all of
/// them): they decode as one uop and issue as two. Applied to unrolled code
/// (BHive's blocks); loop bodies keep them fused until timed loops on an
/// Intel host show the effect there (docs/incore.md).
void Block::issueUops() {
  unsigned MicroFused = 0, Unlaminated = 0;
  Issue.assign(Insts.size(), 0);
  Decode.assign(Insts.size(), decode::Instr());
  for (size_t I = 0; I < Insts.size(); ++I) {
    const InstrCost &C = R.Instrs[I];
    const MCInstrDesc &Desc = TB.MII->get(Insts[I].getOpcode());
    unsigned U = C.Uops;
    decode::Encoding Enc;
    decode::Instr &D = Decode[I];
    D.Offset = unsigned(C.Address);
    D.Length = unsigned((I + 1 < Insts.size() ? R.Instrs[I + 1].Address : Bytes.size()) - C.Address);
    if (X86)
      Enc = decode::x86Encoding(ArrayRef<uint8_t>(Bytes).slice(C.Address, D.Length));
    // A file's count is measured as issued: no micro-fusion to apply.
    if (X86 && U >= 2 && (C.MayLoad || C.MayStore) && !C.UopsFromFile) {
      --U;
      ++MicroFused;
    }
    D.NominalOpcode = Enc.NominalOpcode;
    D.Lcp = Enc.Lcp;
    if (D.Lcp)
      Lcps.push_back(unsigned(I));
    D.MiteUops = U <= 4 ? std::max(1u, U) : 0;
    D.MsUops = U <= 4 ? 0 : U;
    D.MacroFusible = X86 && x86MacroFusible(TB.MII->getName(Insts[I].getOpcode()), C);
    Issue[I] = U + Sync[I];
    if (Legacy && O.Unrolled && U >= 1 && C.Uops >= 2 && (C.MayLoad || C.MayStore)) {
      bool Indexed = Mem[I] && Mem[I]->Index;
      // Haswell and later keep an indexed load-op fused only in the
      // two-operand form whose destination is also its source and that
      // reads no flags (add rax, [rsi+rdi]; not vaddps, adc, cmov or cmp).
      bool ReadsFlags = llvm::any_of(Desc.implicit_uses(), [&](MCPhysReg Reg) {
        return StringRef(TB.MRI->getName(Reg)) == "EFLAGS";
      });
      bool TwoOperand = !Enc.Vex && Desc.getNumDefs() == 1 && Desc.getNumOperands() > 1 &&
                        Desc.getOperandConstraint(1, MCOI::TIED_TO) == 0 && !ReadsFlags;
      bool LoadOp = C.MayLoad && !C.MayStore;
      if (Indexed && (Legacy->UnlaminateAllIndexed || (LoadOp && !TwoOperand))) {
        ++Issue[I];
        ++Unlaminated;
      }
    }
    if (I > 0 && Desc.isConditionalBranch() && X86 && Decode[I - 1].MacroFusible) {
      Issue[I] = 0;
      R.Notes.push_back("'" + R.Instrs[I - 1].Text + "' and '" + R.Instrs[I].Text +
                        "' macro-fuse into one uop");
    }
    R.Uops += Issue[I];
  }
  if (SplitLoads + SplitStores > 0) {
    char Buf[260];
    snprintf(Buf, sizeof(Buf),
             "line splits: %.3g load(s) and %.3g store(s) per iteration cross a cache line, "
             "each taking its port slots and L1 bytes %g and %g times%s",
             SplitLoads, SplitStores, LS.LoadCost, LS.StoreCost,
             LS.Granule ? (" (wider accesses in " + std::to_string(LS.Granule) +
                           "-byte parts: only a part that crosses splits)")
                              .c_str()
                        : "");
    R.Notes.push_back(Buf);
  }
  if (MicroFused)
    R.Notes.push_back(std::to_string(MicroFused) +
                      " memory-operand instruction(s) counted as one fused uop each "
                      "for issue");
  if (Unlaminated)
    R.Notes.push_back(std::to_string(Unlaminated) +
                      " micro-fused instruction(s) with an indexed address un-laminate: "
                      "two uops each at issue");
  // Rename width: the machine file's, else the core's (LLVM's Skylake model
  // says 6, the decoded-uop width; the renamer takes 4), else LLVM's.
  Width = O.IssueWidth ? O.IssueWidth : Legacy ? Legacy->IssueWidth : SM.IssueWidth;
  R.FrontEndBound = Width ? double(R.Uops) / Width : 0;
}

/// Unrolled straight-line code comes through the legacy decoders: the
/// cycle each instruction's uops leave them, over the list schedule's run.
void Block::frontEndLimits() {
  if (O.Unrolled && Legacy) {
    // Beyond the list schedule's run: its last iterations are not the end
    // of the stream, where nothing follows.
    const size_t Copies = scheduleIterations(Insts.size()) + 32;
    Delivered = decode::deliveryCycles(Decode, unsigned(Bytes.size()), unsigned(Copies), *Legacy);
    if (std::any_of(Delivered.begin(), Delivered.end(), [](double D) { return D < 0; }))
      Delivered.clear(); // not simulated to the end: issue at the issue width
    // Over whole periods of the copies' alignment to the 16-byte windows,
    // a period away from the end of the stream (where nothing follows).
    size_t Period = 16 / std::gcd<size_t>(Bytes.size(), 16);
    size_t Span = std::max<size_t>(1, (Copies / 3) / Period) * Period;
    size_t B = Copies - 1 - std::min(Period, Copies / 3), A = B - std::min(Span, B);
    size_t N = Insts.size();
    if (!Delivered.empty())
      R.DecodeBound = (Delivered[B * N + N - 1] - Delivered[A * N + N - 1]) / double(B - A);
    if (R.DecodeBound > R.FrontEndBound) {
      R.FrontEndBound = R.DecodeBound;
      std::string Why = "legacy decoders (unrolled code: 16-byte predecode windows, "
                        "at most 5 instructions each, 4 decoders)";
      for (unsigned I : Lcps)
        Why += "; LCP stall on '" + R.Instrs[I].Text + "' (" +
               std::to_string(Legacy->LcpPenalty) + " cy)";
      R.Notes.push_back("front end: " + Why);
    }
  } else if (Legacy && !Insts.empty() &&
             TB.MII->get(Insts.back().getOpcode()).isBranch()) {
    // A loop: its uops come from the loop stream detector or the uop cache.
    std::string How;
    double Loop = decode::loopFrontEnd(R.Uops, unsigned(Bytes.size()), *Legacy, How);
    if (Loop > R.FrontEndBound + 1e-9) {
      R.FrontEndBound = Loop;
      R.Notes.push_back("front end: " + How);
    }
  } else if (O.Unrolled && X86) {
    R.Notes.push_back("no legacy-decoder model for '" + O.Cpu +
                      "': the front end issues at the issue width");
  }

  // A call whose callee's code follows it (KernelLoops splices the file's
  // straight-line callees in) returns within the block: each pair holds the
  // branch path for core.call_return_cy, whatever the callee does beside it.
  if (O.CallReturnCycles > 0) {
    unsigned Returns = llvm::count_if(Insts, [&](const MCInst &I) {
      return TB.MII->get(I.getOpcode()).isReturn();
    });
    R.CallReturnBound = Returns * O.CallReturnCycles;
    if (R.CallReturnBound > R.FrontEndBound + 1e-9) {
      R.FrontEndBound = R.CallReturnBound;
      R.Notes.push_back("front end: " + std::to_string(Returns) +
                        " call(s) and return(s) at " + shortNumber(O.CallReturnCycles) +
                        " cy a pair (core.call_return_cy)");
    }
  }
}

} // namespace perfmodel::block

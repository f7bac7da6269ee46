//===- X86Quirks.cpp - What x86 cores do beside the scheduling model ------===//
//
// x86 rules LLVM's scheduling models leave out: zero idioms, partial-register
// merges, false dependences on the destination, memory operands, and the
// stack engine's synchronising uops.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "MemoryDeps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"

#include <cstdlib>
#include <numeric>

using namespace llvm;
using namespace perfmodel;
using namespace perfmodel::block;

namespace perfmodel::block {

/// xor/sub/pxor/xorps/pcmpgt of a register with itself, VEX or EVEX: x86
/// cores recognise the result without reading the register (LLVM 19's
/// Skylake model lacks some of these, its Zen models the EVEX forms).
bool x86ZeroIdiom(StringRef Name, const MCInst &I) {
  StringRef Op = Name.starts_with("V") ? Name.drop_front() : Name;
  bool Kind = Op.starts_with("XOR32rr") || Op.starts_with("XOR64rr") ||
              Op.starts_with("SUB32rr") || Op.starts_with("SUB64rr") || Op.starts_with("PXOR") ||
              Op.starts_with("XORPS") || Op.starts_with("XORPD") || Op.starts_with("PSUB") ||
              Op.starts_with("PCMPGT") || Op.starts_with("ANDNP");
  if (!Kind || !(Name.ends_with("rr") || Name.ends_with("rr_REV")) || I.getNumOperands() < 3)
    return false;
  const MCOperand &A = I.getOperand(I.getNumOperands() - 2), &B = I.getOperand(I.getNumOperands() - 1);
  return A.isReg() && B.isReg() && A.getReg() == B.getReg();
}

void accessFacts(InstrCost &C, const MCInst &I, StringRef Name, const std::optional<MemRef> &M,
                 const MCRegisterInfo &MRI) {
  if (!C.MayLoad && !C.MayStore)
    return;
  C.AccessBytes = accessBytes(C.Text);
  C.GatherScatter = Name.contains("GATHER") || Name.contains("SCATTER");
  C.NonTemporal = Name.starts_with("MOVNT") || Name.starts_with("VMOVNT");
  StringRef Mnemonic = StringRef(C.Text).split(' ').first;
  C.PackedElement = Mnemonic.ends_with("pd") ? 8 : Mnemonic.ends_with("ps") ? 4 : 0;
  if (C.GatherScatter)
    C.GatherElements = std::max(1u, std::max(C.AccessBytes, 16u) /
                                        (Mnemonic.ends_with("pd") || Mnemonic.ends_with("q") ? 8 : 4));
  for (const MCOperand &Op : I)
    if (Op.isReg() && Op.getReg()) {
      StringRef R = MRI.getName(Op.getReg());
      C.VectorData |= R.starts_with("XMM") || R.starts_with("YMM") || R.starts_with("ZMM");
    }
  if (M && M->Base) {
    StringRef B = MRI.getName(M->Base);
    C.FixedPlace = B == "RIP" || B == "RSP" || B == "RBP";
  }
}

/// Integer MOV and the vector register moves: eliminated at rename on Intel
/// cores from Ivy Bridge on (core.front_end.move_elimination): no port, no
/// latency (uiCA; Intel's optimization manual, "move elimination").
bool x86EliminableMove(StringRef Nm) {
  StringRef Op = Nm.starts_with("V") ? Nm.drop_front() : Nm;
  return Nm == "MOV64rr" || Nm == "MOV32rr" || Nm == "MOV64rr_REV" || Nm == "MOV32rr_REV" ||
         Op.starts_with("MOVAPSrr") || Op.starts_with("MOVAPDrr") || Op.starts_with("MOVUPSrr") ||
         Op.starts_with("MOVUPDrr") || Op.starts_with("MOVDQArr") || Op.starts_with("MOVDQUrr") ||
         Op.starts_with("MOVAPSYrr") || Op.starts_with("MOVAPDYrr") ||
         Op.starts_with("MOVDQAYrr") || Op.starts_with("MOVUPSYrr");
}

/// Macro-fusion, one rule for the decoders and the issue (Intel's
/// optimization manual): integer CMP, TEST, ADD, SUB, AND, INC and DEC (by
/// opcode, so not addsd or andps), with registers, an immediate or one memory
/// operand read; not with a memory destination or memory beside an immediate.
bool x86MacroFusible(StringRef Name, const InstrCost &C) {
  for (StringRef F : {"CMP", "TEST", "ADD", "SUB", "AND", "INC", "DEC"})
    if (Name.starts_with(F) && Name.size() > F.size() && isDigit(Name[F.size()]))
      return !C.MayStore && !(C.MayLoad && Name.contains("mi"));
  return false;
}

/// An 8- or 16-bit general-purpose register other than AH..DH.
bool partialGpr(StringRef Name) {
  static const char *Names[] = {"AL", "BL", "CL", "DL", "SIL", "DIL", "BPL", "SPL",
                                "AX", "BX", "CX", "DX", "SI",  "DI",  "BP",  "SP"};
  if (llvm::is_contained(Names, Name))
    return true;
  return Name.size() >= 3 && Name[0] == 'R' && isDigit(Name[1]) &&
         (Name.ends_with("B") || Name.ends_with("W")) && !Name.ends_with("WH") &&
         !Name.ends_with("BH");
}

/// Whether an x86 instruction (LLVM opcode NAME) waits for the last write of
/// its destination register: bsf/bsr always; popcnt, lzcnt/tzcnt, vperm*,
/// vpmullq and vrange* where the CPU has LLVM's false-deps-* tuning (popcnt
/// on Intel Sandy Bridge to Coffee Lake, lzcnt/tzcnt on Haswell and
/// Broadwell, the others on some AVX-512 cores).
bool readsDestination(StringRef Name, const MCSubtargetInfo &STI) {
  if (Name.starts_with("BSF") || Name.starts_with("BSR"))
    return true;
  static const std::pair<const char *, std::vector<const char *>> FalseDeps[] = {
      {"+false-deps-popcnt", {"POPCNT"}},
      {"+false-deps-lzcnt-tzcnt", {"LZCNT", "TZCNT"}},
      {"+false-deps-perm", {"VPERMD", "VPERMQ", "VPERMPS", "VPERMPD"}},
      {"+false-deps-mullq", {"VPMULLQ"}},
      {"+false-deps-range", {"VRANGE"}}};
  for (const auto &[Feature, Prefixes] : FalseDeps)
    if (llvm::any_of(Prefixes, [&](const char *P) { return Name.starts_with(P); }))
      return STI.checkFeatures(Feature);
  return false;
}

std::optional<MemRef> memRef(const MCInst &I, const MCInstrDesc &D) {
  for (unsigned K = 0; K + 4 < I.getNumOperands() && K < D.getNumOperands(); ++K) {
    if (D.operands()[K].OperandType != MCOI::OPERAND_MEMORY)
      continue;
    const MCOperand &B = I.getOperand(K), &S = I.getOperand(K + 1),
                    &X = I.getOperand(K + 2), &Dp = I.getOperand(K + 3),
                    &Sg = I.getOperand(K + 4);
    if (!B.isReg() || !S.isImm() || !X.isReg() || !Dp.isImm() || !Sg.isReg())
      return std::nullopt; // symbolic displacement or not x86's layout
    MemRef M;
    M.Base = B.getReg();
    M.Scale = S.getImm();
    M.Index = X.getReg();
    M.Disp = Dp.getImm();
    M.Segment = Sg.getReg();
    return M;
  }
  return std::nullopt;
}

/// The stack engine tracks rsp's offset from push and pop; an instruction
/// that reads rsp itself first gets a synchronising uop (an ALU's), as does
/// an offset beyond 192 bytes. Counted in the second of two iterations.
void Block::stackSync() {
  Sync.assign(Insts.size(), 0);
  if (X86) {
    int64_t Offset = 0;
    for (unsigned It = 0; It < 2; ++It)
      for (size_t I = 0; I < Insts.size(); ++I) {
        StringRef Nm = TB.MII->getName(Insts[I].getOpcode());
        bool ReadsSp = llvm::any_of(Uses[I], [&](const RegUse &U) {
          return StringRef(TB.MRI->getName(U.Reg)) == "RSP";
        });
        bool Needs = (ReadsSp && Offset) || std::abs(Offset) > 192;
        if (Needs)
          Offset = 0;
        if (It == 1 && Needs && !AluPorts.empty()) {
          ++Sync[I];
          R.Instrs[I].Demands.push_back({AluPorts, 1.0});
          AllDemands.push_back({AluPorts, 1.0});
          DemandOwner.push_back(I);
        }
        if (Nm.starts_with("PUSH64"))
          Offset -= 8;
        else if (Nm.starts_with("POP64"))
          Offset += 8;
        if (llvm::any_of(Defs[I], [&](const RegDef &D) {
              return StringRef(TB.MRI->getName(D.Reg)) == "RSP";
            }))
          Offset = 0;
      }
    unsigned Syncs = std::accumulate(Sync.begin(), Sync.end(), 0u);
    if (Syncs)
      R.Notes.push_back(std::to_string(Syncs) +
                        " stack-synchronisation uop(s): rsp read after push/pop moved it");
  }
}

} // namespace perfmodel::block

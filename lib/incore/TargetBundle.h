//===- TargetBundle.h - LLVM MC objects for one triple/CPU (internal) -----===//
//
// LLVM's MC objects for one triple and CPU (disassembler, instruction
// printer, scheduling model, instruction analysis), made once per thread and
// target, with the helpers that read registers and accumulator steps.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_TARGETBUNDLE_H
#define PERFMODEL_TARGETBUNDLE_H

#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <map>
#include <unordered_map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>
#include <string>

namespace perfmodel {

struct TargetBundle {
  const llvm::Target *T = nullptr;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<llvm::MCDisassembler> Dis;
  std::unique_ptr<llvm::MCInstPrinter> IP;
  std::unique_ptr<llvm::MCInstrAnalysis> MIA;

  /// The opcode LLVM names NAME (MOV64rm), if this target has one.
  std::optional<unsigned> opcode(llvm::StringRef Name) const {
    if (Opcodes.empty())
      for (unsigned Op = 0; Op < MII->getNumOpcodes(); ++Op)
        Opcodes[MII->getName(Op)] = Op;
    auto It = Opcodes.find(Name);
    return It == Opcodes.end() ? std::nullopt : std::optional<unsigned>(It->second);
  }

  /// An instruction decoded and printed (trimmed, tabs as spaces). Nest
  /// traces repeat the same machine loops many times, and decoding depends
  /// on the bytes alone (branches and rip-relative operands are relative),
  /// so the bundle keeps what it decoded, by the bytes at the address.
  struct Decoded {
    llvm::MCInst Inst;
    uint64_t Size = 0;
    std::string Text;
  };
  mutable std::unordered_map<std::string, Decoded> DecodeMemo;
  /// A scheduling class's port demands (Block's demandsOf), by the class:
  /// they follow from the scheduling model alone.
  mutable std::unordered_map<const llvm::MCSchedClassDesc *,
                             std::vector<std::pair<std::vector<unsigned>, double>>>
      DemandMemo;

  /// I as the printer spells it (Intel syntax on x86), untrimmed.
  std::string text(const llvm::MCInst &I, uint64_t Address = 0) const {
    std::string S;
    llvm::raw_string_ostream OS(S);
    IP->printInst(&I, Address, "", *STI, OS);
    return OS.str();
  }

  bool init(const std::string &Triple, const std::string &Cpu, std::string &Error) {
    static std::once_flag Once;
    std::call_once(Once, [] {
      llvm::InitializeAllTargetInfos();
      llvm::InitializeAllTargetMCs();
      llvm::InitializeAllDisassemblers();
    });
    T = llvm::TargetRegistry::lookupTarget(Triple, Error);
    if (!T)
      return false;
    llvm::Triple TT(Triple);
    MRI.reset(T->createMCRegInfo(Triple));
    llvm::MCTargetOptions Opts;
    MAI.reset(T->createMCAsmInfo(*MRI, Triple, Opts));
    STI.reset(T->createMCSubtargetInfo(Triple, Cpu, ""));
    MII.reset(T->createMCInstrInfo());
    if (!MRI || !MAI || !STI || !MII) {
      Error = "LLVM cannot create the MC layer for " + Triple;
      return false;
    }
    if (!STI->isCPUStringValid(Cpu)) {
      Error = "LLVM 19 does not know CPU '" + Cpu + "' for " + Triple;
      return false;
    }
    Ctx = std::make_unique<llvm::MCContext>(TT, MAI.get(), MRI.get(), STI.get());
    Dis.reset(T->createMCDisassembler(*STI, *Ctx));
    // Intel syntax on x86 (variant 1), the default elsewhere.
    unsigned Variant = TT.isX86() ? 1 : MAI->getAssemblerDialect();
    IP.reset(T->createMCInstPrinter(TT, Variant, *MAI, *MII, *MRI));
    MIA.reset(T->createMCInstrAnalysis(MII.get()));
    if (!Dis || !IP) {
      Error = "LLVM has no disassembler for " + Triple;
      return false;
    }
    return true;
  }

  /// The 64-bit general-purpose register REG is part of (RAX for EAX, AL),
  /// or 0: by a table made on first use (the memory tracker asks it for
  /// every operand of every traced instruction).
  unsigned gpr64(unsigned Reg) const;

private:
  mutable llvm::StringMap<unsigned> Opcodes;
  mutable std::vector<unsigned> Gpr64;
};

/// The bundle for TRIPLE and CPU, made once per thread and kept: making one
/// costs more than costing a block. Null, with ERROR, when LLVM cannot.
inline const TargetBundle *sharedBundle(const std::string &Triple, const std::string &Cpu,
                                        std::string &Error) {
  thread_local std::map<std::pair<std::string, std::string>, std::unique_ptr<TargetBundle>> Made;
  std::unique_ptr<TargetBundle> &B = Made[{Triple, Cpu}];
  if (!B) {
    auto New = std::make_unique<TargetBundle>();
    if (!New->init(Triple, Cpu, Error))
      return nullptr;
    B = std::move(New);
  }
  return B.get();
}

/// The widest register containing REG (RAX for EAX, AX, AL).
inline unsigned widestRegister(const llvm::MCRegisterInfo &MRI, unsigned Reg) {
  unsigned Top = Reg;
  for (llvm::MCPhysReg S : MRI.superregs(Reg))
    if (MRI.superregs(S).empty())
      Top = S;
  return Top;
}

inline unsigned TargetBundle::gpr64(unsigned Reg) const {
  if (Gpr64.empty()) {
    Gpr64.assign(MRI->getNumRegs(), 0);
    static const char *Gprs[] = {"RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "RSP",
                                 "R8",  "R9",  "R10", "R11", "R12", "R13", "R14", "R15"};
    for (unsigned R = 1; R < Gpr64.size(); ++R) {
      unsigned Top = widestRegister(*MRI, R);
      llvm::StringRef Name = MRI->getName(Top);
      for (const char *G : Gprs)
        if (Name == G)
          Gpr64[R] = Top;
    }
  }
  return Reg < Gpr64.size() ? Gpr64[Reg] : 0;
}

/// x86's accumulator forms of add and sub with an immediate (`add rax,
/// 320`: opcode 05, which clang picks for a counter in rax when the
/// immediate needs 32 bits) name no register operand: the register (the
/// widest one containing the accumulator) and the signed step; nullopt for
/// any other instruction.
inline std::optional<std::pair<unsigned, int64_t>>
accumulatorStep(const llvm::MCInst &I, const llvm::MCInstrInfo &MII,
                const llvm::MCRegisterInfo &MRI) {
  llvm::StringRef Name = MII.getName(I.getOpcode());
  bool Add = Name == "ADD64i32" || Name == "ADD32i32";
  bool Sub = Name == "SUB64i32" || Name == "SUB32i32";
  if ((!Add && !Sub) || I.getNumOperands() < 1 || !I.getOperand(0).isImm())
    return std::nullopt;
  for (llvm::MCPhysReg R : MII.get(I.getOpcode()).implicit_defs())
    if (llvm::StringRef(MRI.getName(R)) != "EFLAGS") {
      int64_t Imm = I.getOperand(0).getImm();
      return std::make_pair(widestRegister(MRI, R), Sub ? -Imm : Imm);
    }
  return std::nullopt;
}

} // namespace perfmodel

#endif

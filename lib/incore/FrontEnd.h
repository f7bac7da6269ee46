//===- FrontEnd.h - Intel legacy decode pipeline (internal) ----*- C++ -*-===//
//
// Straight-line code that runs unrolled (BHive's measurements: the block
// copied a hundred times, no loop) reaches the renamer through the legacy
// decode pipeline, not the uop cache or the loop stream detector:
//   predecoder: one aligned 16-byte window per cycle, at most 5 instructions
//     of it; an instruction with a length-changing prefix (66h with a 16-bit
//     immediate) stalls it 3 cycles;
//   instruction queue (20 or 25 entries) -> 4 decoders: an instruction of
//     more than one fused uop needs the complex decoder (the first of a
//     cycle's group) and leaves fewer simple decoders; more than 4 fused uops
//     come from the microcode sequencer, 4 a cycle, while decoding waits.
// The figures are data: machine-models/cores/intel-front-ends.yml (uiCA's,
// Abel and Reineke, ICS 2022, measured on the cores themselves).
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_FRONTEND_DECODE_H
#define PERFMODEL_FRONTEND_DECODE_H

#include "perfmodel/MachineModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel::decode {

/// What the legacy decode pipeline needs of one instruction.
struct Instr {
  unsigned Offset = 0, Length = 0; ///< bytes, within the block
  unsigned NominalOpcode = 0;      ///< offset of the opcode byte after prefixes/escapes
  bool Lcp = false;                ///< length-changing prefix: the predecoder stalls
  unsigned MiteUops = 1;           ///< fused uops from the decoders (at most 4)
  unsigned MsUops = 0;             ///< fused uops from the microcode sequencer
  bool MacroFusible = false;       ///< could fuse with a following jcc (cmp, test, add, ...)
};

/// One Intel core's legacy decode pipeline: the machine file's or the
/// library table's (machine-models/cores/intel-front-ends.yml).
using Config = FrontEndModel;

/// Cycles per iteration a loop of UOPS fused uops needs from the loop
/// stream detector or the uop cache (its code BYTES long); sets HOW to
/// what it used.
double loopFrontEnd(unsigned Uops, unsigned Bytes, const Config &C, std::string &How);

/// x86-64 encoding facts the predecoder depends on.
struct Encoding {
  unsigned NominalOpcode = 0; ///< offset of the opcode byte
  bool Lcp = false;           ///< 66h prefix on a 16-bit-immediate opcode
  bool Vex = false;           ///< VEX or EVEX encoded
};
Encoding x86Encoding(llvm::ArrayRef<uint8_t> Bytes);

/// The cycle at which each instruction of COPIES copies of the block (laid
/// end to end from a 64-byte aligned address, BLOCKBYTES long) delivers its
/// last uop to the decoded-uop queue; index copy * size + instruction.
std::vector<double> deliveryCycles(const std::vector<Instr> &Block, unsigned BlockBytes,
                                   unsigned Copies, const Config &C);

} // namespace perfmodel::decode

#endif

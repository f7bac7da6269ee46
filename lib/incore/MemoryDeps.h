//===- MemoryDeps.h - Which loads read what a store wrote (internal) -*- C++ -*-===//
//
// Addresses of a block's memory accesses as abstract values (a register's
// symbolic starting value plus a constant), followed through the moves,
// immediate adds and lea's that compute them, over consecutive iterations:
// a load whose bytes an earlier store (in the same or the previous
// iteration) wrote waits for that store's data, by store-to-load forwarding
// when the store covers it, after the store commits when it only overlaps.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_MEMORYDEPS_H
#define PERFMODEL_MEMORYDEPS_H

#include "TargetBundle.h"
#include "perfmodel/InCore.h"

#include "llvm/MC/MCInst.h"

#include <cstdint>
#include <vector>

namespace perfmodel {

struct MemAccess {
  bool Any = false;   ///< the instruction reads or writes memory
  bool Known = false; ///< the address is an abstract value (else: aliases nothing)
  int64_t Base = 0, Offset = 0;
  unsigned Size = 0;  ///< bytes
  bool Load = false, Store = false;
  /// A masked store (AVX-512's {k} forms, vmaskmov): some cores do not
  /// forward its bytes to a later load.
  bool Masked = false;
};

/// One access per instruction for iterations 2 and 3 of the block (2N
/// entries; iterations 0 and 1 set registers and memory up). SAMEINIT: every
/// general-purpose register starts at one value (BHive's harness: rsp 2 KiB
/// above it, rbp 16 bytes below rsp) and memory holds it (BHive fills its
/// page with it); else each register starts at a value of its own and
/// memory holds unknown values. A load returns what a store of the same
/// place and size wrote.
std::vector<MemAccess> abstractAccesses(const std::vector<llvm::MCInst> &Insts,
                                        const std::vector<InstrCost> &Costs,
                                        const TargetBundle &TB, bool SameInit);

/// Whether A's bytes and B's overlap, and whether A's contain B's. With
/// PAGEALIAS, addresses of the initial value's base compare modulo 4 KiB
/// (BHive maps every page to one physical page).
bool overlaps(const MemAccess &A, const MemAccess &B, bool PageAlias);

/// Bytes an x86 memory operand moves, from the disassembly's "qword ptr",
/// "ymmword ptr", ... (8 when it names none).
unsigned accessBytes(llvm::StringRef Text);
bool covers(const MemAccess &A, const MemAccess &B, bool PageAlias);

} // namespace perfmodel

#endif

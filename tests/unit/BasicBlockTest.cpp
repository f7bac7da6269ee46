// The in-core mechanisms of issue 20 on single blocks, each against a hand
// derivation: the legacy decoders of unrolled code (predecode windows,
// length-changing prefixes), the loop stream detector, un-lamination, the
// stack engine, partial registers, zero idioms, store-to-load forwarding
// (with BHive's register and page aliasing) and locked instructions.
// Figures: uiCA's per-core parameters (Abel and Reineke, ICS 2022), Intel's
// optimization manual (un-lamination), Agner Fog's microarchitecture guide
// (store forwarding, partial registers, locked instructions).
#include "perfmodel/InCore.h"
#include "perfmodel/MachineRegistry.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace perfmodel;

namespace {

InCoreResult block(const std::string &Hex, const std::string &Cpu, bool Unrolled = true,
                   bool BHive = false) {
  std::string Err;
  auto Bytes = parseHex(Hex, Err);
  EXPECT_TRUE(Bytes) << Err;
  InCoreOptions O;
  O.Cpu = Cpu;
  O.Unrolled = Unrolled;
  O.SameInitialRegisters = BHive;
  InCoreResult R = analyzeBlockBytes(Bytes ? *Bytes : std::vector<uint8_t>{0x90}, O);
  EXPECT_TRUE(R.Ok) << R.Reason;
  return R;
}

bool hasNote(const InCoreResult &R, const std::string &Part) {
  for (const std::string &N : R.Notes)
    if (N.find(Part) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST(BasicBlock, LengthChangingPrefixStallsThePredecoder) {
  // add ax, 1000 (66 05 e8 03): 66h makes the immediate 16 bits, a length
  // change. Four of these 4-byte instructions start in every 16-byte window;
  // the predecoder stalls 3 cycles for each (12) and spends a cycle on the
  // window: 13 cycles per 4 iterations.
  InCoreResult R = block("66 05 e8 03", "haswell");
  EXPECT_DOUBLE_EQ(R.DecodeBound, 13.0 / 4);
  EXPECT_DOUBLE_EQ(R.Cycles, 13.0 / 4);
  EXPECT_EQ(R.Bottleneck, InCoreBound::FrontEnd);
  EXPECT_TRUE(hasNote(R, "LCP stall on 'add ax, 1000'"));
  // add ax, 8 (66 83 c0 08): the same prefix with an 8-bit immediate changes
  // no length; the chain through ax (1 cy) binds.
  InCoreResult Imm8 = block("66 83 c0 08", "haswell");
  EXPECT_FALSE(hasNote(Imm8, "LCP"));
  EXPECT_DOUBLE_EQ(Imm8.Cycles, 1);
  // As a loop (from the uop cache or loop stream detector) there is no
  // predecoder on the path: the chain binds.
  EXPECT_DOUBLE_EQ(block("66 05 e8 03", "haswell", /*Unrolled=*/false).Cycles, 1);
}

TEST(BasicBlock, PredecoderTakesOneWindowACycle) {
  // mov eax, 1000 (5 bytes, one uop, no input): 16 copies fill 80 bytes,
  // five 16-byte windows, one cycle each (at most 5 instructions start in
  // any of them): 5 / 16 cy per instruction, above the 4-wide issue's 0.25.
  InCoreResult R = block("b8 e8 03 00 00", "haswell");
  EXPECT_DOUBLE_EQ(R.DecodeBound, 5.0 / 16);
  EXPECT_DOUBLE_EQ(R.Cycles, 5.0 / 16);
}

TEST(BasicBlock, LoopStreamDetectorRoundsItsGroups) {
  // 4 nops + dec rsi + jne (macro-fused): 5 fused uops, ports 0.5 cy. The
  // Haswell LSD unrolls a 5-uop loop 6 times: 30 uops leave 4 a cycle in 8
  // cycles, 8 / 6 cy per iteration. Skylake's LSD is off: the loop (9 bytes,
  // one 32-byte window) comes from the uop cache, 6 a cycle (1 cy), and the
  // renamer's 4 a cycle binds: 1.25.
  const char *Loop = "90 90 90 90 48 ff ce 75 f7";
  EXPECT_DOUBLE_EQ(block(Loop, "haswell", false).FrontEndBound, 8.0 / 6);
  EXPECT_DOUBLE_EQ(block(Loop, "skylake", false).FrontEndBound, 1.25);
  // 54 nops + dec/jne = 55 uops fit Haswell's 56-uop LSD (no unrolling at
  // that size): ceil(55 / 4) = 14 cy. 58 nops (59 uops) do not fit: the uop
  // cache delivers them 4 a cycle across the loop's end, 59 / 4 = 14.75.
  auto Nops = [](int K) {
    std::string H;
    for (int I = 0; I < K; ++I)
      H += "90";
    char Tail[16];
    snprintf(Tail, sizeof(Tail), "48ffce75%02x", (256 - (K + 5)) % 256);
    return H + Tail;
  };
  EXPECT_DOUBLE_EQ(block(Nops(54), "haswell", false).FrontEndBound, 14);
  EXPECT_DOUBLE_EQ(block(Nops(58), "haswell", false).FrontEndBound, 14.75);
}

TEST(BasicBlock, TheFrontEndIsTheMachineFilesData) {
  // The Haswell-EP machine file takes Haswell's entry of
  // machine-models/cores/intel-front-ends.yml, and its core.front_end keys
  // override it. The 5-uop loop above: 8 / 6 cy from the LSD. Without an
  // LSD (lsd_uops 0) the uop cache delivers 4 a cycle and the loop (9 bytes)
  // sits in one 32-byte window, so each iteration takes whole cycles:
  // ceil(5 / 4) = 2. With 8-byte windows it spans two: 5 / 4 = 1.25.
  auto Cost = [](const std::vector<std::string> &Sets) {
    MachineLoadResult M = loadMachineModel(resolveMachine("hsw"), Sets);
    EXPECT_TRUE(M.ok());
    EXPECT_TRUE(M.Model->Core.FrontEnd);
    std::string Err;
    InCoreOptions O = inCoreOptionsFor(*M.Model);
    return analyzeBlockBytes(*parseHex("90 90 90 90 48 ff ce 75 f7", Err), O).FrontEndBound;
  };
  EXPECT_DOUBLE_EQ(Cost({}), 8.0 / 6);
  EXPECT_DOUBLE_EQ(Cost({"core.front_end.lsd_uops=0"}), 2);
  EXPECT_DOUBLE_EQ(Cost({"core.front_end.lsd_uops=0", "core.front_end.uop_cache_window_bytes=8"}),
                   1.25);
  // Cores the table does not list have no legacy front end; one stated in
  // full for them needs every key.
  MachineLoadResult Zen = loadMachineModel(resolveMachine("zen4"));
  ASSERT_TRUE(Zen.ok());
  EXPECT_FALSE(Zen.Model->Core.FrontEnd);
  MachineLoadResult Part =
      loadMachineModel(resolveMachine("zen4"), {"core.front_end.lsd_uops=8"});
  EXPECT_FALSE(Part.ok());
  ASSERT_FALSE(Part.Diags.empty());
  EXPECT_NE(Part.Diags[0].Message.find("missing: predecode_width"), std::string::npos);
}

TEST(BasicBlock, OnlyIntegerFlagSettersMacroFuseWithTheBranch) {
  // 4 nops + dec rsi + jne: 5 fused uops. 4 nops + addsd xmm0, xmm1 + jne:
  // addsd sets no flags the jcc reads (it is no ADD of the decoders' rule):
  // 6 uops, no fusion. (The old rule matched the text "add..." and fused it.)
  InCoreResult Dec = block("90 90 90 90 48 ff ce 75 f7", "haswell", false);
  InCoreResult Sse = block("90 90 90 90 f2 0f 58 c1 75 f6", "haswell", false);
  ASSERT_TRUE(Dec.Ok && Sse.Ok) << Sse.Reason;
  EXPECT_EQ(Dec.Uops, 5u);
  EXPECT_EQ(Sse.Uops, 6u);
  auto Fuses = [](const InCoreResult &R) {
    return std::any_of(R.Notes.begin(), R.Notes.end(), [](const std::string &N) {
      return N.find("macro-fuse") != std::string::npos;
    });
  };
  EXPECT_TRUE(Fuses(Dec));
  EXPECT_FALSE(Fuses(Sse));
  // One rule for the decoders and the issue (Intel's optimization manual,
  // "Macro-fusion"): CMP and TEST with registers, an immediate or one memory
  // operand, ADD/SUB/AND/INC/DEC without a memory destination fuse with the
  // jcc after them; a memory operand beside an immediate, a memory
  // destination, OR and SSE logic do not.
  struct Pair {
    const char *Hex, *What;
    bool Fuse;
  };
  for (const Pair &P : {Pair{"48 39 d8", "cmp rax, rbx", true},
                        Pair{"48 3b 06", "cmp rax, qword ptr [rsi]", true},
                        Pair{"48 2b 06", "sub rax, qword ptr [rsi]", true},
                        Pair{"48 83 c0 01", "add rax, 1", true},
                        Pair{"85 c0", "test eax, eax", true},
                        Pair{"48 83 3e 01", "cmp qword ptr [rsi], 1", false},
                        Pair{"48 01 06", "add qword ptr [rsi], rax", false},
                        Pair{"48 ff 06", "inc qword ptr [rsi]", false},
                        Pair{"48 09 d8", "or rax, rbx", false},
                        Pair{"0f 54 c1", "andps xmm0, xmm1", false}}) {
    std::string Hex = P.Hex;
    unsigned Len = unsigned((Hex.size() + 1) / 3) + 2;
    char Jne[8];
    snprintf(Jne, sizeof(Jne), " 75 %02x", 256 - Len);
    InCoreResult R = block(Hex + Jne, "haswell", false);
    EXPECT_EQ(Fuses(R), P.Fuse) << P.What;
  }
}

TEST(BasicBlock, IndexedMicroFusedUopsUnlaminate) {
  // add rax, [rsi + rdi]: Ivy Bridge un-laminates every indexed micro-fused
  // uop (2 at issue); Haswell keeps a two-operand read-modify-write of a
  // register fused (1). vaddps xmm0, xmm1, [rsi + rdi] has three operands:
  // un-laminated on both. Without the index: fused everywhere.
  EXPECT_EQ(block("48 03 04 3e", "ivybridge").Uops, 2u);
  EXPECT_EQ(block("48 03 04 3e", "haswell").Uops, 1u);
  EXPECT_EQ(block("c5 f0 58 04 3e", "haswell").Uops, 2u);
  EXPECT_EQ(block("c5 f0 58 04 3e", "ivybridge").Uops, 2u);
  EXPECT_EQ(block("48 03 06", "ivybridge").Uops, 1u);
  EXPECT_EQ(block("c5 f0 58 06", "haswell").Uops, 1u);
}

TEST(BasicBlock, StackEngineAndSyncUops) {
  // push rbx; mov rax, rsp: push is one fused uop (its rsp update is the
  // stack engine's); mov reads rsp after push moved it, so a synchronising
  // uop is inserted: 3 fused uops per iteration.
  InCoreResult R = block("53 48 89 e0", "haswell");
  EXPECT_EQ(R.Uops, 3u);
  EXPECT_TRUE(hasNote(R, "1 stack-synchronisation uop"));
  // push rbp; mov rbp, rsp; pop rbp: pop brings the offset back to 0 before
  // the next mov reads rsp: no sync uop in the steady state (3 uops).
  EXPECT_EQ(block("55 48 89 e5 5d", "haswell").Uops, 3u);
}

TEST(BasicBlock, PartialRegisterWritesMergeAndZeroIdiomsBreakTheChain) {
  // cmp r9, 16384; setae r8b: writing r8b merges into r8, so each setae waits
  // for the last: a chain of one setae per iteration, 1 cy on Skylake
  // (uops.info, SETAE (R8): latency 1, throughput 0.5). llvm-mca-19 does not
  // see the merge and runs 100 iterations in 54 cycles.
  InCoreResult Chain = block("49 81 f9 00 40 00 00 41 0f 93 c0", "skylake");
  ASSERT_FALSE(Chain.CriticalChain.empty());
  EXPECT_EQ(Chain.Instrs[Chain.CriticalChain[0]].Text, "setae r8b");
  EXPECT_DOUBLE_EQ(Chain.RecurrenceBound, 1.0);
  EXPECT_DOUBLE_EQ(Chain.Cycles, 1.0); // above the ports' 0.5
  // xor r8d, r8d first: a zero idiom reads nothing, so nothing is carried.
  EXPECT_DOUBLE_EQ(block("45 31 c0 49 81 f9 00 40 00 00 41 0f 93 c0", "skylake").RecurrenceBound,
                   0);
}

TEST(BasicBlock, EvexZeroIdiomsBreakTheChainOnZen4) {
  // vpxord xmm16, xmm16, xmm16 (or vxorpd) then four vaddpd zmm16, zmm16,
  // zmm1: the zeroing reads nothing, so each iteration's four adds start
  // afresh: 4 cy a round, one zmm add a cycle on Zen 4's two 256-bit adders
  // (Zen 4 VM, 2026-12-07, 20 M rounds, best of 7: 1.088 ns = 4.0 cy at
  // 3.69 GHz). With vpord xmm16, xmm16, xmm17 instead the adds chain
  // through the rounds: 1 + 4 x 3 = 13 cy (timed 3.54 ns = 13.1 cy). LLVM
  // 19's Zen 4 model knows the VEX forms only (clang uses the EVEX ones for
  // xmm16-31).
  const char *Adds = " 62 e1 fd 40 58 c1 62 e1 fd 40 58 c1 62 e1 fd 40 58 c1 62 e1 fd 40 58 c1";
  for (const char *Zero : {"62 a1 7d 00 ef c0", "62 a1 fd 00 57 c0"}) {
    InCoreResult R = block(std::string(Zero) + Adds, "znver4");
    EXPECT_DOUBLE_EQ(R.RecurrenceBound, 0) << Zero;
    EXPECT_NEAR(R.Cycles, 4, 0.01) << Zero;
  }
  InCoreResult Or = block(std::string("62 a1 7d 00 eb c1") + Adds, "znver4");
  EXPECT_DOUBLE_EQ(Or.RecurrenceBound, 13);
}

TEST(BasicBlock, StoreForwardingChains) {
  // add qword ptr [rcx], 1 reads what the previous one stored: its data is
  // ready a load (L) and an add (1) after it starts, forwarded F cycles
  // later; the next add's load then counts from there: 1 + F per iteration,
  // F = 5 on Haswell (6 cy), 4 on Skylake (5 cy).
  InCoreResult Rmw = block("48 83 01 01", "haswell");
  EXPECT_DOUBLE_EQ(Rmw.Cycles, 6);
  EXPECT_NE(Rmw.Advice.find("keep the value in a register"), std::string::npos) << Rmw.Advice;
  EXPECT_DOUBLE_EQ(block("48 83 01 01", "skylake").Cycles, 5);
  // mov [rsi + 8], rax; mov rax, [rdi + 8]: under BHive's harness rsi = rdi,
  // so the load reads the store and rax goes round: F per iteration (and at
  // least the load's 5-cycle latency on Haswell). With registers of their
  // own the two do not meet: one store a cycle.
  const char *Pair = "48 89 46 08 48 8b 47 08";
  InCoreResult Aliased = block(Pair, "haswell", true, /*BHive=*/true);
  EXPECT_DOUBLE_EQ(Aliased.Cycles, 5);
  EXPECT_TRUE(hasNote(Aliased, "store-to-load forwarding"));
  EXPECT_DOUBLE_EQ(block(Pair, "skylake", true, true).Cycles, 4);
  EXPECT_DOUBLE_EQ(block(Pair, "haswell", true, false).Cycles, 1);
  // An 8-byte load from where a 4-byte store wrote: forwarding fails, the
  // load waits for the store to commit (15 cy after it could), which waits
  // for the load before it to complete: mov rax, [r11 + 16] (5) ->
  // mov [rsi + 24], rax -> sub dword [rsi + 16], 1 commits -> the next load,
  // 1 + 15 = 16 per iteration (BHive measured 15.98 on Haswell).
  InCoreResult Fail = block("49 8b 43 10 48 89 46 18 83 6e 10 01", "haswell", true, true);
  EXPECT_TRUE(hasNote(Fail, "forwarding fails"));
  EXPECT_DOUBLE_EQ(Fail.Cycles, 16);
}

// bench/incore/masked_forward.c's loop on Zen 5: b[i] stored masked with
// k1, then reloaded and stored to c[i]. Where masked stores do not forward,
// the reload waits for every older instruction and then F cycles: the
// reload (8 cy, LLVM's zmm load) -> its store to c (1) -> the next reload,
// which waits F beyond the load-use latency a plain load is charged (5):
// 8 + 1 + F - 5 = 15.7 cy at F = 11.7 (measured on the Zen 5 VM: 15.70 -
// 15.78). Where they forward, only the add of r8 is carried (1 cy).
TEST(BasicBlock, MaskedStoresThatDoNotForwardMakeTheReloadWait) {
  const char *Loop = "49 83 c0 40 62 b1 7c 48 28 04 01 62 b2 7d 48 a8 04 02 62 b1 7c 49 11 04 02 "
                     "62 b1 7c 48 28 0c 02 62 b1 7c 48 29 0c 06 49 81 f8 c0 0f 00 00 72 d0";
  std::string Err;
  auto Bytes = parseHex(Loop, Err);
  ASSERT_TRUE(Bytes) << Err;
  InCoreOptions O;
  O.Cpu = "znver5";
  InCoreResult Forwards = analyzeBlockBytes(*Bytes, O);
  ASSERT_TRUE(Forwards.Ok) << Forwards.Reason;
  EXPECT_DOUBLE_EQ(Forwards.RecurrenceBound, 1);
  EXPECT_TRUE(hasNote(Forwards, "store-to-load forwarding"));
  O.MaskedStoresForward = false;
  O.ForwardFail = 11.7;
  InCoreResult Waits = analyzeBlockBytes(*Bytes, O);
  ASSERT_TRUE(Waits.Ok) << Waits.Reason;
  EXPECT_NEAR(Waits.RecurrenceBound, 8 + 1 + 11.7 - 5, 1e-9);
  EXPECT_NEAR(Waits.Cycles, 15.7, 1e-9);
  EXPECT_TRUE(hasNote(Waits, "masked stores do not forward"));
  // A plain store in its place forwards either way.
  std::string Plain = Loop;
  Plain.replace(Plain.find("62 b1 7c 49 11"), 14, "62 b1 7c 48 11");
  auto PlainBytes = parseHex(Plain, Err);
  ASSERT_TRUE(PlainBytes) << Err;
  EXPECT_DOUBLE_EQ(analyzeBlockBytes(*PlainBytes, O).RecurrenceBound, 1);
}

TEST(BasicBlock, LockedInstructionsSerialise) {
  // lock add qword ptr [rdi], 1: a barrier of 20 cy each (the store-forward
  // chain of 6 hides under it); the advice is not more accumulators.
  InCoreResult R = block("f0 48 83 07 01", "haswell");
  EXPECT_DOUBLE_EQ(R.Cycles, 20);
  EXPECT_EQ(R.Instrs.size(), 1u);
  EXPECT_EQ(R.Instrs[0].Text.rfind("lock", 0), 0u) << R.Instrs[0].Text;
  EXPECT_NE(R.Advice.find("locked instructions serialise"), std::string::npos) << R.Advice;
  EXPECT_EQ(R.Advice.find("accumulators"), std::string::npos) << R.Advice;
}

TEST(BasicBlock, MoveEliminationFromIvyBridgeOn) {
  // mov rax, rbx; mov rbx, rax; add rbx, 1: the moves are renamed away (no
  // port, no latency) from Ivy Bridge on, so only the add carries rbx round
  // (1 cy); on Sandy Bridge each move is a 1-cycle ALU uop: 3 cy.
  const char *Moves = "48 89 d8 48 89 c3 48 83 c3 01";
  InCoreResult Hsw = block(Moves, "haswell");
  EXPECT_DOUBLE_EQ(Hsw.RecurrenceBound, 1);
  EXPECT_TRUE(Hsw.Instrs[0].Demands.empty());
  EXPECT_DOUBLE_EQ(block(Moves, "sandybridge").RecurrenceBound, 3);
}

TEST(BasicBlock, LoadsAndStoresTogetherShareTheL1sBytes) {
  // daxpy's AVX-512 body (clang-19 -O3 -march=znver5): 4 zmm loads of x, 4
  // FMAs loading y, 4 zmm stores of y, 64-byte aligned (no split). Apart,
  // the loads move 512 B at 128 B/cy (4 cy) and the stores 256 B at 64 B/cy
  // (4 cy), and 12 accesses take LLVM's 3 load/store units 4 cy. Together
  // the Zen 5 VM's L1 moves 150 B/cy (bench/incore/l1_load_store_mix.c):
  // 768 / 150 = 5.12 cy, as timed (4.9-5.2 cy a trip).
  std::string Err;
  auto Bytes = parseHex("62f1fd481014ca 62f1fd48105cca01 62f1fd481064ca02 62f1fd48106cca03 "
                        "62f2f548a814ce 62f2f548a85cce01 62f2f548a864ce02 62f2f548a86cce03 "
                        "62f1fd481114ce 62f1fd48115cce01 62f1fd481164ce02 62f1fd48116cce03 "
                        "4883c120 4839c8 759a",
                        Err);
  ASSERT_TRUE(Bytes) << Err;
  MachineLoadResult M = loadMachineModel(resolveMachine("devvm"));
  ASSERT_TRUE(M.ok());
  InCoreOptions O = inCoreOptionsFor(*M.Model);
  O.Splits.AssumedAlign = 64;
  ASSERT_DOUBLE_EQ(O.LoadBytesPerCycle, 128);
  ASSERT_DOUBLE_EQ(O.StoreBytesPerCycle, 64);
  ASSERT_DOUBLE_EQ(O.L1BytesPerCycle, 150);
  O.L1BytesPerCycle = 0;
  InCoreResult Apart = analyzeBlockBytes(*Bytes, O);
  EXPECT_NEAR(Apart.PortBound, 4, 0.05);
  O.L1BytesPerCycle = 150;
  InCoreResult R = analyzeBlockBytes(*Bytes, O);
  EXPECT_DOUBLE_EQ(R.PortBound, 768.0 / 150);
  EXPECT_DOUBLE_EQ(R.TnOL, 768.0 / 150);
  EXPECT_NE(R.PortBottleneck.find("load and store bytes"), std::string::npos)
      << R.PortBottleneck;
}

TEST(BasicBlock, TheL1sBytesPerCycleBoundStores) {
  // Four zmm stores (256 B) on Zen 4: LLVM's model takes one a cycle on
  // its store pipe (4 cy); the store path moves 32 B a cycle (the zen4
  // file's core.store_bytes_per_cycle, AMD's optimization guide): 8 cy.
  std::string Err;
  auto Bytes = parseHex("62f1fd481106 62f1fd48114601 62f1fd48114602 62f1fd48114603", Err);
  ASSERT_TRUE(Bytes) << Err;
  InCoreOptions O;
  O.Cpu = "znver4";
  EXPECT_DOUBLE_EQ(analyzeBlockBytes(*Bytes, O).Cycles, 4);
  O.StoreBytesPerCycle = 32;
  O.LoadBytesPerCycle = 64;
  InCoreResult R = analyzeBlockBytes(*Bytes, O);
  EXPECT_DOUBLE_EQ(R.Cycles, 8);
  EXPECT_DOUBLE_EQ(R.TnOL, 8);
  EXPECT_NE(R.PortBottleneck.find("store bytes"), std::string::npos) << R.PortBottleneck;
}

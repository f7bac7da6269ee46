//===- FrontEnd.cpp - Intel legacy decode pipeline ------------------------===//
//
// Intel's legacy decode pipeline for straight-line code (BHive's unrolled
// blocks): predecode windows, length-changing prefixes, the instruction queue,
// the decoders and the microcode sequencer, cycle by cycle; and where a loop's
// uops come from (loop stream detector or uop cache).
//
//===----------------------------------------------------------------------===//
#include "FrontEnd.h"

#include <algorithm>
#include <cmath>
#include <deque>

using namespace perfmodel;
using namespace perfmodel::decode;

Encoding decode::x86Encoding(llvm::ArrayRef<uint8_t> B) {
  Encoding E;
  size_t I = 0;
  bool P66 = false;
  auto Legacy = [](uint8_t X) {
    return X == 0xF0 || X == 0xF2 || X == 0xF3 || X == 0x2E || X == 0x36 || X == 0x3E ||
           X == 0x26 || X == 0x64 || X == 0x65 || X == 0x66 || X == 0x67;
  };
  for (; I < B.size() && Legacy(B[I]); ++I)
    P66 |= B[I] == 0x66;
  if (I >= B.size())
    return E;
  if (B[I] == 0xC5 || B[I] == 0xC4 || B[I] == 0x62) { // VEX2, VEX3, EVEX (64-bit mode)
    E.Vex = true;
    E.NominalOpcode = unsigned(std::min(B.size() - 1, I + (B[I] == 0xC5 ? 2 : B[I] == 0xC4 ? 3 : 4)));
    return E;
  }
  bool RexW = false;
  if ((B[I] & 0xF0) == 0x40) {
    RexW = B[I] & 8;
    if (++I >= B.size())
      return E;
  }
  bool Map0 = true;
  if (B[I] == 0x0F) {
    Map0 = false;
    if (I + 1 < B.size() && (B[I + 1] == 0x38 || B[I + 1] == 0x3A))
      ++I;
    I = std::min(B.size() - 1, I + 1);
  }
  E.NominalOpcode = unsigned(I);
  // Opcodes whose immediate is 16 bits under 66h (iw/iz operands): the
  // prefix changes the instruction's length, which the predecoder must redo.
  if (P66 && !RexW && Map0) {
    uint8_t Op = B[I];
    bool Imm16 = Op == 0x05 || Op == 0x0D || Op == 0x15 || Op == 0x1D || Op == 0x25 ||
                 Op == 0x2D || Op == 0x35 || Op == 0x3D || Op == 0x68 || Op == 0x69 ||
                 Op == 0x81 || Op == 0xA9 || Op == 0xC7 || (Op >= 0xB8 && Op <= 0xBF);
    if (Op == 0xF7 && I + 1 < B.size()) // test r/m16, imm16 is /0 (and /1)
      Imm16 = ((B[I + 1] >> 3) & 7) <= 1;
    E.Lcp = Imm16;
  }
  return E;
}

std::vector<double> decode::deliveryCycles(const std::vector<Instr> &Block, unsigned BlockBytes,
                                           unsigned Copies, const Config &C) {
  const size_t N = Block.size(), Total = N * Copies;
  std::vector<double> Deliver(Total, -1);
  if (N == 0 || BlockBytes == 0)
    return Deliver;
  auto Addr = [&](size_t K) { return uint64_t(K / N) * BlockBytes + Block[K % N].Offset; };
  auto Crosses = [&](size_t K) {
    return Addr(K) % C.PredecodeBlock + Block[K % N].Length > C.PredecodeBlock;
  };
  auto Complex = [&](size_t K) {
    const Instr &I = Block[K % N];
    return I.MsUops > 0 || I.MiteUops > 1;
  };

  // Predecoder.
  std::deque<size_t> Cur;             // instructions of the current 16-byte window
  std::optional<size_t> Partial;      // one that crosses into the next window
  std::vector<size_t> PreQ;           // predecoded, held while stalled
  size_t Next = 0;                    // next instruction not yet in a window
  unsigned Stalled = 0, NonStalled = 0;
  // Instruction queue: (instruction, cycle it was predecoded).
  std::deque<std::pair<size_t, double>> Iq;
  // Microcode sequencer.
  unsigned MsLeft = 0, MsStall = 0, MsPost = 0;
  size_t MsInstr = 0;

  // Enough cycles for every instruction's worst case (a stall, the
  // sequencer's uops); instructions left undelivered stay at -1.
  uint64_t Budget = 1000;
  for (const Instr &I : Block)
    Budget += uint64_t(Copies) * (8 + C.LcpPenalty + I.MsUops / 4 + I.Length);
  size_t Done = 0;
  for (uint64_t Clock = 0; Done < Total && Clock < Budget; ++Clock) {
    if (MsLeft || MsStall) {
      if (MsStall) {
        --MsStall;
      } else {
        MsLeft -= std::min(MsLeft, 4u);
        if (!MsLeft) {
          Deliver[MsInstr] = double(Clock);
          ++Done;
          MsStall = MsPost;
        }
      }
      continue;
    }
    // Predecode.
    if (!Stalled) {
      if (PreQ.empty() && (Next < Total || !Cur.empty() || Partial) &&
          Iq.size() + C.PredecodeWidth <= C.IqSize) {
        if (Partial) {
          PreQ.push_back(*Partial);
          Partial.reset();
        }
        if (Cur.empty() && Next < Total) {
          uint64_t Window = Addr(Next) / C.PredecodeBlock;
          unsigned Lcps = 0;
          while (Next < Total && Addr(Next) / C.PredecodeBlock == Window) {
            Lcps += Block[Next % N].Lcp;
            Cur.push_back(Next++);
          }
          unsigned Hidden = NonStalled > 0 ? NonStalled - 1 : 0;
          Stalled = Lcps * C.LcpPenalty > Hidden ? Lcps * C.LcpPenalty - Hidden : 0;
          NonStalled = 0;
        }
        while (!Cur.empty() && PreQ.size() < C.PredecodeWidth && !Crosses(Cur.front())) {
          PreQ.push_back(Cur.front());
          Cur.pop_front();
        }
        if (Cur.size() == 1 && Crosses(Cur.front())) {
          size_t K = Cur.front();
          if (PreQ.size() < C.PredecodeWidth ||
              Addr(K) % C.PredecodeBlock + Block[K % N].NominalOpcode >= C.PredecodeBlock) {
            Partial = K;
            Cur.pop_front();
          }
        }
        ++NonStalled;
      }
      if (!Stalled) {
        for (size_t K : PreQ)
          Iq.push_back({K, double(Clock)});
        PreQ.clear();
      }
    }
    if (Stalled)
      --Stalled;

    // Decode.
    unsigned Decoded = 0, Left = C.Decoders;
    while (!Iq.empty()) {
      auto [K, When] = Iq.front();
      const Instr &I = Block[K % N];
      if (When + C.PredecodeDecodeDelay > Clock)
        break;
      if (Decoded && Complex(K))
        break;
      if (I.MacroFusible) {
        if (!C.FusibleInLastDecoder && Decoded == C.Decoders - 1)
          break;
        // It waits for the next instruction (a jcc it might fuse with).
        if (Iq.size() <= 1 ? K + 1 < Total : Iq[1].second + C.PredecodeDecodeDelay > Clock)
          break;
      }
      Iq.pop_front();
      if (I.MsUops) {
        MsLeft = I.MsUops;
        MsInstr = K;
        MsStall = 1; // switching from the decoders to the sequencer
        MsPost = 1;
        break;
      }
      Deliver[K] = double(Clock);
      ++Done;
      ++Decoded;
      if (Complex(K))
        Left = std::min(Left - 1, I.MiteUops >= 4 ? 1u : std::min(5 - I.MiteUops, 3u));
      else
        --Left;
      if (!Left)
        break;
    }
  }
  return Deliver;
}

double decode::loopFrontEnd(unsigned Uops, unsigned Bytes, const Config &C, std::string &How) {
  if (!Uops)
    return 0;
  if (C.LsdUops && Uops <= C.LsdUops) {
    unsigned U = Uops < C.LsdUnroll.size() ? std::max(1u, C.LsdUnroll[Uops]) : 1;
    How = "loop stream detector: " + std::to_string(Uops) + " uops" +
          (U > 1 ? ", unrolled " + std::to_string(U) + " times," : "") + " issue " +
          std::to_string(C.IssueWidth) + " a cycle without crossing the loop's end";
    return std::ceil(double(Uops) * U / C.IssueWidth) / U;
  }
  // The uop cache: a taken branch ends a cycle's delivery; a loop within
  // one window pays that rounding every iteration.
  How = "uop cache: " + std::to_string(C.DsbWidth) + " uops a cycle";
  return Bytes <= C.DsbWindowBytes ? std::ceil(double(Uops) / C.DsbWidth) : double(Uops) / C.DsbWidth;
}

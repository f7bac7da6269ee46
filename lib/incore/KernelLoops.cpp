//===- KernelLoops.cpp - Find and cost the machine loop of a source loop --===//
//
// The file is compiled once. Machine loops are backward branches inside a
// function; the innermost ones whose instructions mostly carry the source
// loop's lines (DWARF) are its candidates. When the compiler emitted several
// (vector body, scalar remainder), the one that covers the most source
// iterations per trip is the hot body.
//
//===----------------------------------------------------------------------===//
#include "Block.h"
#include "MachineLoops.h"
#include "MemoryDeps.h"
#include "ObjectCode.h"
#include "TargetBundle.h"
#include "perfmodel/InCore.h"
#include "perfmodel/StageTimes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

using namespace perfmodel;
using namespace llvm;
using namespace perfmodel::mloop;

namespace {


/// Elements A advances per unit of VAR within a row whose pointer is
/// loaded data (za[j][k] over double **za: k within the row za[j]), where
/// that pointer does not move with VAR; nullopt otherwise.
std::optional<int64_t> elementsPerUnitInRow(const Access &A, const LoopKernel &K,
                                            const std::string &Var,
                                            const std::map<std::string, int64_t> &B) {
  if (A.Linear || !A.Indirect || A.IndirectVia != A.Array || A.Subscripts.size() != 1)
    return std::nullopt;
  const Access *Row = nullptr;
  for (const Access &R : K.Accesses)
    if (R.Text == A.Array)
      Row = &R;
  auto RowStep = Row ? elementsPerUnit(*Row, Var, B) : std::nullopt;
  if (!RowStep || *RowStep != 0)
    return std::nullopt;
  return A.Subscripts[0].substitute(B).coefficientOf(Var).evaluate(B);
}

/// Elements a reference whose subscripts go through quotients of the
/// counters (in[j / 4]) moves per unit of IN's counter on average: its last
/// subscript's change over 720,720 units (a multiple of every divisor up to
/// 16), the other subscripts unchanged, the outer counters at their first
/// values; nullopt where a subscript cannot be evaluated or another moves.
std::optional<double> quotientElements(const Access &A, const LoopKernel &K,
                                       const LoopLevel &In,
                                       std::map<std::string, int64_t> B) {
  if (A.IndexExprs.empty())
    return std::nullopt;
  for (const LoopLevel &L : K.Nest) {
    auto Lo = L.Lower.evaluate(B);
    if (!Lo)
      return std::nullopt;
    B[L.Var] = *Lo;
  }
  const int64_t Span = 720720;
  std::vector<int64_t> At, Later;
  for (int64_t *Shift : {(int64_t *)nullptr, (int64_t *)&Span}) {
    std::map<std::string, int64_t> V = B;
    if (Shift)
      V[In.Var] += *Shift;
    for (const IntExpr &E : A.IndexExprs) {
      auto X = E.evaluate(V);
      if (!X)
        return std::nullopt;
      (Shift ? Later : At).push_back(*X);
    }
  }
  for (size_t I = 0; I + 1 < At.size(); ++I)
    if (At[I] != Later[I])
      return std::nullopt;
  return double(Later.back() - At.back()) / double(Span);
}

/// Bytes each access advances per source iteration (distinct, nonzero);
/// the smallest is the unit of cycles per cache line. CONTIGUOUSONLY: only
/// accesses that advance by their own width (no gather needed).
std::vector<double> accessStrides(const LoopKernel &K, const KernelIR &IR,
                                  const LoopLevel &In, bool ContiguousOnly = false) {
  const auto &B = IR.bindings();
  std::vector<double> Out;
  for (const Access &A : K.Accesses) {
    auto C = elementsPerUnit(A, In.Var, B);
    if (!C)
      C = elementsPerUnitInRow(A, K, In.Var, B);
    if (!C || *C == 0)
      continue;
    double Bytes = std::fabs(double(*C * In.Step)) * A.StrideBytes;
    if (ContiguousOnly && Bytes > A.ElementBytes)
      continue;
    if (std::find(Out.begin(), Out.end(), Bytes) == Out.end())
      Out.push_back(Bytes);
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// The strides of IN's references through quotients of the counters
/// (quotientElements), with their kind, once each.
std::vector<ModeStride> quotientStrides(const LoopKernel &K, const KernelIR &IR,
                                        const LoopLevel &In) {
  const auto &B = IR.bindings();
  std::vector<ModeStride> Out;
  for (const Access &A : K.Accesses) {
    std::optional<double> E = quotientElements(A, K, In, B);
    if (!E || *E == 0)
      continue;
    double Bytes = std::fabs(*E * double(In.Step)) * A.StrideBytes;
    for (bool W : {false, true})
      if ((W ? A.Write : A.Read) &&
          llvm::none_of(Out, [&](const ModeStride &M) { return M.Bytes == Bytes && M.Written == W; }))
        Out.push_back({Bytes, W});
  }
  return Out;
}

/// The strides (bytes per iteration of IN) of the references that skip
/// elements there, each with its element's bytes: b[8 * i] alone, not
/// a[2 * i] beside a[2 * i + 1] (together they read every element, and one
/// vector load serves both).
std::map<double, unsigned> skippingStrides(const LoopKernel &K, const KernelIR &IR,
                                           const LoopLevel &In) {
  const auto &B = IR.bindings();
  struct Group {
    std::set<int64_t> Offsets; ///< bytes, modulo the stride
    unsigned ElementBytes = 0;
  };
  std::map<std::pair<std::string, double>, Group> Groups; // (array, stride)
  for (const Access &A : K.Accesses) {
    if (!A.Linear)
      continue;
    Poly Index = A.Linear->substitute(B);
    auto C = Index.coefficientOf(In.Var).evaluate(B);
    if (!C || *C == 0)
      continue;
    double Bytes = std::fabs(double(*C * In.Step)) * A.StrideBytes;
    Group &G = Groups[{A.Array, Bytes}];
    int64_t S = std::max<int64_t>(1, int64_t(Bytes));
    G.Offsets.insert(((Index.constantTerm() * int64_t(A.StrideBytes)) % S + S) % S);
    G.ElementBytes = std::max(G.ElementBytes, A.ElementBytes);
  }
  std::map<double, unsigned> Out;
  std::set<double> Contiguous;
  for (const auto &[Key, G] : Groups) {
    if (double(G.Offsets.size() * G.ElementBytes) < Key.second)
      Out[Key.second] = std::max(Out[Key.second], G.ElementBytes);
    else
      Contiguous.insert(Key.second);
  }
  for (double S : Contiguous) // a contiguous reference of that stride votes
    Out.erase(S);
  return Out;
}

std::vector<std::string> withMachineFlags(const InCoreOptions &O,
                                          const std::vector<std::string> &Args) {
  std::vector<std::string> All = O.CompileFlags;
  All.insert(All.end(), Args.begin(), Args.end());
  return All;
}

/// Natural loops of its function that contain L's header (L included).
size_t loopDepth(const MachineLoop &L) {
  size_t D = 0;
  for (const auto &[H, B] : L.Cfg->Body)
    D += B.count(L.Header);
  return D;
}

/// What nestAround needs of the source: the loop's lines, the bytes an
/// iteration stores, and the lines of the function's other innermost loops.
struct NestSource {
  std::pair<unsigned, unsigned> Lines;
  double StoredPerIt = 0;
  /// The widest store a written reference can be when every one skips
  /// elements at these sizes (a column walk's); 0: any width.
  unsigned WidestStore = 0;
  std::vector<std::pair<unsigned, unsigned>> Others;
  bool other(unsigned Line) const {
    for (const auto &[First, Last] : Others)
      if (Line >= First && Line <= Last)
        return true;
    return false;
  }
};

/// The widest memory access of L's instructions (its stores alone with
/// STORES), in bytes; gathers and scatters, which reach elements one by
/// one, do not count.
unsigned widestAccess(const MachineLoop &L, TargetBundle &TB, bool Stores = false) {
  unsigned W = 0;
  for (const MCInst &I : L.Insts) {
    const MCInstrDesc &D = TB.MII->get(I.getOpcode());
    if ((D.mayStore() || (!Stores && D.mayLoad())) &&
        !gatherLanes(TB.MII->getName(I.getOpcode())))
      W = std::max(W, accessBytes(TB.text(I)));
  }
  return W;
}

/// Instructions of L that read memory (gathers count once).
unsigned loadCount(const MachineLoop &L, TargetBundle &TB) {
  unsigned N = 0;
  for (const MCInst &I : L.Insts)
    N += TB.MII->get(I.getOpcode()).mayLoad();
  return N;
}

/// One trip of the machine loop enclosing BODY, as pieces: the inner machine
/// loops of the same source loop (CANDS, with their source iterations per
/// trip) where they start, and the enclosing loop's own blocks. Blocks of
/// other inner loops (other source loops), the straight-line code of their
/// lines (a sibling fully unrolled beside its loop version: its own nest
/// prices it) and blocks that call out are left out. WHOLEFUNCTION (an
/// outermost source loop): the function's reachable blocks are the trip,
/// one call.
NestCode nestAround(const MachineLoop &Body, const std::vector<const MachineLoop *> &Cands,
                    const std::vector<double> &CandIters, bool WholeFunction,
                    const std::map<std::string, double> &CallCycles,
                    const StraightCallees &Straight, TargetBundle &TB, const NestSource &Src) {
  NestCode N;
  const FunctionCFG &C = *Body.Cfg;
  const std::set<size_t> &Inner = C.Body.at(Body.Header);
  const std::set<size_t> *Parent = nullptr;
  size_t ParentHeader = 0;
  for (const auto &[H, L] : C.Body)
    if (H != Body.Header && L.count(Body.Header) && L.size() > Inner.size() &&
        (!Parent || L.size() < Parent->size())) {
      Parent = &L;
      ParentHeader = H;
    }
  std::set<size_t> Reachable;
  if (!Parent && WholeFunction && !C.Blocks.empty()) {
    // From the entry; alignment padding between blocks is never reached.
    std::vector<size_t> Work = {0};
    Reachable.insert(0);
    while (!Work.empty()) {
      size_t X = Work.back();
      Work.pop_back();
      for (size_t S : C.Blocks[X].Succs)
        if (Reachable.insert(S).second)
          Work.push_back(S);
    }
    Parent = &Reachable;
    ParentHeader = SIZE_MAX;
    N.WholeFunction = true;
  }
  if (!Parent) {
    N.Reason = "no machine loop encloses the loop's machine code (an outermost loop, or "
               "the loops around it were unrolled or are in the caller)";
    return N;
  }
  // Inner machine loops of this source loop inside the parent.
  std::vector<const MachineLoop *> Mine;
  for (size_t I = 0; I < Cands.size(); ++I)
    if (Cands[I]->Cfg == &C && Parent->count(Cands[I]->Header)) {
      Mine.push_back(Cands[I]);
      N.LoopIters.push_back(CandIters[I]);
      if (Cands[I] == &Body)
        N.Body = int(Mine.size() - 1);
    }
  // A copy covering as many iterations a trip as the body with narrower
  // accesses is the scalar fallback of a run-time overlap check (LCALS's
  // MULADDSUB on Zen 3): a version that does not run beside the body, not
  // the copy of an unrolled outer loop.
  if (N.Body >= 0) {
    unsigned BodyWidth = widestAccess(Body, TB);
    for (size_t I = 0; I < Mine.size(); ++I)
      if (int(I) != N.Body && N.LoopIters[I] == N.LoopIters[N.Body] &&
          widestAccess(*Mine[I], TB) < BodyWidth)
        N.LoopIters[I] = 0;
  }
  auto LoopOf = [&](size_t X) -> int {
    for (size_t I = 0; I < Mine.size(); ++I)
      if (C.Body.at(Mine[I]->Header).count(X))
        return int(I);
    return -1;
  };
  auto InOtherLoop = [&](size_t X) {
    for (const auto &[H, L] : C.Body)
      if (H != ParentHeader && Parent->count(H) && L.count(X))
        return true;
    return false;
  };
  auto Bytes = [&](size_t X, NestCode::Piece &P) {
    const Block &B = C.Blocks[X];
    uint64_t Begin = C.All[B.First].Off, End = C.All[B.Last].Off + C.All[B.Last].Size;
    for (uint64_t O = Begin; O < End; ++O) {
      if (P.Loop < 0 && Src.other(C.F->Lines[O]))
        continue;
      extendRanges(P.Ranges, O);
      appendExecuted(*C.F, O, Straight, P.Bytes, P.Lines);
      // A call's relocated target the machine file costs (core.call_cy).
      if (auto Sym = C.F->Symbols.find(O); Sym != C.F->Symbols.end())
        if (auto Cy = CallCycles.find(Sym->second); Cy != CallCycles.end())
          P.CallCycles += Cy->second;
    }
  };
  std::set<int> Placed;
  size_t StraightBytes = 0;
  for (size_t X : *Parent) { // block order is address order
    int L = LoopOf(X);
    if (L >= 0) {
      if (!Placed.insert(L).second)
        continue;
      NestCode::Piece P;
      P.Loop = L;
      for (size_t Y : Mine[L]->Sequence)
        Bytes(Y, P);
      N.Pieces.push_back(std::move(P));
      continue;
    }
    if (InOtherLoop(X) || C.Blocks[X].Calls)
      continue;
    NestCode::Piece P;
    Bytes(X, P);
    if (P.Bytes.empty())
      continue;
    // Stores of the inner loop's body here are a fully unrolled copy of it
    // (gemm's vector j loop at a constant nj, beside its loop versions):
    // the bytes they write over the bytes an iteration stores are the
    // iterations it does. A copy whose stores are wider than every written
    // reference can be at these sizes is a version for others (clang's
    // contiguous copy for a row length of 1): it does not run.
    bool OtherVersion = false;
    if (Src.StoredPerIt > 0)
      for (size_t I = C.Blocks[X].First; I <= C.Blocks[X].Last; ++I) {
        unsigned Line = C.F->Lines[C.All[I].Off];
        const MCInst &Inst = C.All[I].Inst;
        if (Line <= Src.Lines.first || Line > Src.Lines.second ||
            !TB.MII->get(Inst.getOpcode()).mayStore())
          continue;
        unsigned Width = accessBytes(TB.text(Inst));
        OtherVersion |= Src.WidestStore && Width > Src.WidestStore &&
                        !gatherLanes(TB.MII->getName(Inst.getOpcode()));
        P.Iters += Width / Src.StoredPerIt;
      }
    if (OtherVersion)
      continue;
    StraightBytes += P.Bytes.size();
    std::vector<size_t> Succs;
    for (size_t S : C.Blocks[X].Succs)
      if (Parent->count(S))
        Succs.push_back(S);
    if (Succs.size() == 1)
      for (size_t I = 0; I < Mine.size(); ++I)
        if (Succs[0] == Mine[I]->Header)
          P.EntersLoop = int(I);
    int From = -2;
    for (size_t Q : C.Blocks[X].Preds) {
      int LQ = Parent->count(Q) ? LoopOf(Q) : -1;
      From = From == -2 || From == LQ ? LQ : -1;
    }
    P.LeavesLoop = From >= 0 ? From : -1;
    N.Pieces.push_back(std::move(P));
  }
  if (StraightBytes > 16384 || N.Body < 0) {
    N.Pieces.clear();
    N.LoopIters.clear();
    N.Body = -1;
    N.Reason = "the enclosing machine loop is too large to replay";
    return N;
  }
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "+0x%llx..0x%llx",
           (unsigned long long)C.All[C.Blocks[*Parent->begin()].First].Off,
           (unsigned long long)(C.All[C.Blocks[*Parent->rbegin()].Last].Off +
                                C.All[C.Blocks[*Parent->rbegin()].Last].Size));
  N.Where = demangle(C.F->Name) + (N.WholeFunction ? std::string(" (one call)") : Buf);
  return N;
}

std::string baseName(const std::string &Mangled) {
  std::string D = demangle(Mangled);
  size_t Paren = D.find('(');
  return Paren == std::string::npos ? D : D.substr(0, Paren);
}

} // namespace

namespace {

/// Per machine loop, the first and last source line of its bytes (0, 0:
/// none known): a source loop's lines outside them rule it out without a
/// walk over its bytes (a file's every loop against every machine loop).
using LineRanges = std::vector<std::pair<unsigned, unsigned>>;

LineRanges lineRangesOf(const std::vector<MachineLoop> &Loops) {
  LineRanges Ranges;
  for (const MachineLoop &L : Loops) {
    unsigned Lo = 0, Hi = 0;
    L.forEachByte([&](uint64_t B) {
      unsigned Line = L.F->Lines[B];
      if (!Line)
        return;
      Lo = Lo ? std::min(Lo, Line) : Line;
      Hi = std::max(Hi, Line);
    });
    Ranges.push_back({Lo, Hi});
  }
  return Ranges;
}

/// The trips of L when its bounds are fixed at the sizes bound (no counter
/// in them) and few enough for a compiler to unroll the loop whole.
std::optional<int64_t> unrollableTrips(const LoopLevel &L, const KernelIR &IR) {
  std::optional<int64_t> T = tripCount(L, IR.bindings());
  if (!T || *T < 1 || *T > 32)
    return std::nullopt;
  return T;
}

/// The machine loops whose code is mostly on lines FIRST..LAST of K, in K's
/// function if any is (else inlined elsewhere); none with R.Reason set when
/// there is none (a library call in its place, or no loop at all).
std::vector<const MachineLoop *> candidatesFor(const LoopKernel &K, const KernelIR &IR,
                                               unsigned First, unsigned Last,
                                               const std::vector<MachineLoop> &Loops,
                                               const LineRanges &Ranges,
                                               const ObjectFileBytes &Obj, InCoreResult &R) {
  auto InLoop = [&](const MachineLoop &L) {
    const auto &[Lo, Hi] = Ranges[size_t(&L - Loops.data())];
    if (!Lo || Hi < First || Lo > Last)
      return false; // no known line, or none inside
    unsigned Inside = 0, Known = 0;
    L.forEachByte([&](uint64_t B) {
      unsigned Line = L.F->Lines[B];
      if (!Line)
        return;
      ++Known;
      Inside += Line >= First && Line <= Last;
    });
    return Known && Inside * 2 >= Known;
  };
  std::vector<const MachineLoop *> Cands;
  for (const MachineLoop &L : Loops)
    if (InLoop(L) && StringRef(baseName(L.F->Name)).ends_with(K.Function))
      Cands.push_back(&L);
  if (Cands.empty()) // inlined into a caller: any function will do
    for (const MachineLoop &L : Loops)
      if (InLoop(L))
        Cands.push_back(&L);
  // A short innermost loop unrolled whole into a long body of the loop
  // around it (bicubic interpolation: a 4 x 4 copy, then forty lines of
  // arithmetic): the machine loop holds some of its lines among the
  // enclosing bodies', none before the nest.
  if (Cands.empty() && K.Nest.size() >= 2 && unrollableTrips(K.innermost(), IR)) {
    unsigned From = K.Nest.front().Loc.Line;
    for (const MachineLoop &L : Loops) {
      const auto &[Lo, Hi] = Ranges[size_t(&L - Loops.data())];
      if (!Lo || Lo < From || Hi < First || Lo > Last ||
          !StringRef(baseName(L.F->Name)).ends_with(K.Function))
        continue;
      bool Inside = false;
      L.forEachByte([&](uint64_t B) {
        unsigned Line = L.F->Lines[B];
        Inside |= Line >= First && Line <= Last;
      });
      if (Inside)
        Cands.push_back(&L);
    }
  }
  if (!Cands.empty())
    return Cands;
  // clang turns copy and fill loops into library calls.
  for (const FunctionCode &F : Obj.Functions)
    for (const auto &[Off, Sym] : F.Symbols)
      if ((Sym == "memcpy" || Sym == "memset" || Sym == "memmove") && Off < F.Lines.size() &&
          F.Lines[Off] >= First && F.Lines[Off] <= Last && R.Reason.empty()) {
        R.Reason = "the compiler replaced the loop with a call to " + Sym +
                   " (the C library's code, not modelled; -fno-builtin keeps "
                   "the loop)";
        R.LibraryCall = Sym;
      }
  if (R.Reason.empty())
    R.Reason = "no machine loop found for lines " + std::to_string(First) + "-" +
               std::to_string(Last) +
               " (fully unrolled, removed as dead code, or not a loop in "
               "the object code)";
  return Cands;
}

/// Whether the compiler's vector copies of K fail their run-time overlap
/// check: K writes along an array and reads one element of it that the loop
/// does not move (floyd-warshall's path[i][k] beside path[i][j]), and that
/// element lies in the written range at the nest's middle iteration (the
/// outer counters at their ranges' middles). clang hoists the element out of
/// its vector copy, guarded by that check; where it fails, the scalar copy
/// runs (for j from k + 1, gaussian elimination's a[i][k] is outside and
/// the vector copy runs).
bool vectorCopiesFail(const LoopKernel &K, const KernelIR &IR) {
  std::map<std::string, int64_t> At = IR.bindings();
  for (size_t L = 0; L + 1 < K.Nest.size(); ++L) {
    auto Lo = K.Nest[L].Lower.evaluate(At), Hi = K.Nest[L].Upper.evaluate(At);
    if (!Lo || !Hi)
      return false;
    At[K.Nest[L].Var] = (*Lo + *Hi - 1) / 2;
  }
  const LoopLevel &In = K.innermost();
  auto Lo = In.Lower.evaluate(At), Hi = In.Upper.evaluate(At);
  if (!Lo || !Hi || *Hi <= *Lo)
    return false;
  for (const Access &W : K.Accesses) {
    if (!W.Write || W.Indirect || !W.Linear || !W.Linear->mentions(In.Var))
      continue;
    Poly Along = W.Linear->substitute(At); // the written place as a function of In.Var
    auto First = Along.evaluate({{In.Var, *Lo}}), Last = Along.evaluate({{In.Var, *Hi - 1}});
    for (const Access &A : K.Accesses) {
      if (!A.Read || A.Indirect || A.Array != W.Array || !A.Linear || A.Linear->mentions(In.Var))
        continue;
      auto Fixed = A.Linear->evaluate(At);
      if (First && Last && Fixed && *Fixed >= std::min(*First, *Last) &&
          *Fixed <= std::max(*First, *Last))
        return true;
    }
  }
  return false;
}

/// Marks in IMPOSSIBLE the candidates that store vectors wider than K's
/// elements (its vector copies), when those fail their overlap check.
void failedVectorCopies(const LoopKernel &K, const KernelIR &IR, TargetBundle &TB,
                        const std::vector<const MachineLoop *> &Cands,
                        std::vector<unsigned> &Impossible) {
  if (!vectorCopiesFail(K, IR))
    return;
  unsigned Widest = 0;
  for (const Access &A : K.Accesses)
    if (A.Write)
      Widest = std::max(Widest, A.ElementBytes);
  for (size_t C = 0; C < Cands.size(); ++C)
    if (widestAccess(*Cands[C], TB, /*Stores=*/true) > Widest)
      Impossible[C] = std::max(Impossible[C], 1u);
}

/// Whether L holds code of the loop around K's innermost one (its lines
/// outside FIRST..LAST): the innermost loop is unrolled into it.
bool holdsOuterCode(const MachineLoop &L, const LoopLevel &Outer, unsigned First,
                    unsigned Last) {
  bool OuterCode = false;
  L.forEachByte([&](uint64_t B) {
    unsigned Line = L.F->Lines[B];
    OuterCode |= Line && Line >= Outer.Loc.Line && (Line < First || Line > Last);
  });
  return OuterCode;
}

/// The candidate that runs K, whose accesses advance by STRIDES: each
/// one's source iterations per trip (CANDITERS, without the versions that
/// cannot run), the one covering the most, and that number in BESTK.
/// FIRST..LAST: the innermost loop's lines.
const MachineLoop *pickLoop(const LoopKernel &K, const KernelIR &IR, TargetBundle &TB,
                            unsigned First, unsigned Last,
                            const std::vector<double> &Strides,
                            std::vector<const MachineLoop *> &Cands,
                            std::vector<double> &CandIters, double &BestK) {
  std::map<double, unsigned> Skipping = skippingStrides(K, IR, K.innermost());
  // References a vector loop reaches through gathers or scatters: indirect
  // ones and those that skip elements.
  unsigned Gathered = 0;
  for (const Access &A : K.Accesses) {
    auto S = bytesPerIteration(A, K.innermost(), IR.bindings());
    Gathered += A.Indirect || (S && *S > int64_t(A.ElementBytes));
  }
  // Each version's source iterations per trip. Versions whose vector
  // accesses no reference can be (clang's copy for a unit step when the
  // step is a size bound to more) do not run here.
  // The source's references per iteration and their one element size
  // (0 when they differ): a register-stepped vector loop's fallback.
  unsigned Refs = 0, Elem = 0;
  for (const Access &A : K.Accesses) {
    Refs += A.ReadRefs + A.WriteRefs;
    Elem = !Elem || Elem == A.ElementBytes ? A.ElementBytes : ~0u;
  }
  std::pair<unsigned, unsigned> RefsAndElement = {Refs, Elem == ~0u ? 0 : Elem};
  std::vector<unsigned> Impossible(Cands.size());
  std::vector<ModeStride> Quotients = quotientStrides(K, IR, K.innermost());
  for (size_t C = 0; C < Cands.size(); ++C)
    CandIters.push_back(estimateIterations(*Cands[C], TB, Strides, K.innermost().Step,
                                           Gathered, nullptr, &Skipping, &Impossible[C],
                                           RefsAndElement, &Quotients));
  failedVectorCopies(K, IR, TB, Cands, Impossible);
  // A version whose vector accesses no reference of a short fixed
  // innermost loop can be may be the loop around it, vectorised with the
  // innermost unrolled (a 3-row dilation: 16 columns a trip, 3 rows each):
  // it runs when the enclosing level's references explain it. So may a
  // version whose trip the innermost level puts below one pass of that
  // loop (ELLPACK's rows of 8, four rows a trip through gathers on AVX-512:
  // the innermost level sees 4 iterations where a trip covers 32).
  if (K.Nest.size() >= 2) {
    const LoopLevel &Outer = K.Nest[K.Nest.size() - 2];
    std::optional<int64_t> Trips = unrollableTrips(K.innermost(), IR);
    bool Short = Trips && llvm::any_of(CandIters, [&](double I) { return I < double(*Trips); });
    if (Trips && (Short || llvm::any_of(Impossible, [](unsigned I) { return I > 0; }))) {
      std::vector<double> OuterStrides = accessStrides(K, IR, Outer);
      std::map<double, unsigned> OuterSkipping = skippingStrides(K, IR, Outer);
      for (size_t C = 0; C < Cands.size(); ++C) {
        if (!Impossible[C] &&
            (CandIters[C] >= double(*Trips) || !holdsOuterCode(*Cands[C], Outer, First, Last)))
          continue;
        unsigned OuterImpossible = 0, Explained = 0;
        double OuterK = estimateIterations(*Cands[C], TB, OuterStrides, Outer.Step, 0,
                                           &Explained, &OuterSkipping, &OuterImpossible);
        if (!OuterImpossible && Explained > 0 && OuterK > 1) {
          Impossible[C] = 0;
          CandIters[C] = double(*Trips) * OuterK;
        }
      }
    }
  }
  if (llvm::is_contained(Impossible, 0u)) {
    std::vector<const MachineLoop *> Running;
    std::vector<double> RunningIters;
    for (size_t C = 0; C < Cands.size(); ++C)
      if (!Impossible[C]) {
        Running.push_back(Cands[C]);
        RunningIters.push_back(CandIters[C]);
      }
    Cands = std::move(Running);
    CandIters = std::move(RunningIters);
  }
  const MachineLoop *Best = nullptr;
  unsigned BestW = 0, BestLoads = 0;
  BestK = 0;
  for (size_t C = 0; C < Cands.size(); ++C) {
    const MachineLoop *L = Cands[C];
    double Kx = CandIters[C];
    // On a tie the vector copy runs (the scalar one, unrolled as far, is
    // the fallback of a run-time overlap check: LCALS's MULADDSUB on Zen 3,
    // out1[i] = in1[i] * in2[i] ... with in1 and in2 loaded again for each
    // statement); between copies of one width the one inside more loops
    // runs more often (clang peels an odd outer iteration into a copy
    // outside the unrolled outer loop). Of two copies of one width, the one
    // with fewer loads keeps values a store wrote in registers: the version
    // of a run-time overlap check that runs when the arrays do not overlap
    // (loop-load elimination: PolyBench's adi reloads p[i][j-1] and
    // q[i][j-1] through memory only in the fallback).
    unsigned W = widestAccess(*L, TB);
    unsigned Ld = loadCount(*L, TB);
    if (!Best || Kx > BestK ||
        (Kx == BestK &&
         (W > BestW ||
          (W == BestW &&
           (Ld < BestLoads ||
            (Ld == BestLoads && (L->Insts.size() > Best->Insts.size() ||
                                 (L->Insts.size() == Best->Insts.size() &&
                                  loopDepth(*L) > loopDepth(*Best))))))))) {
      Best = L;
      BestK = Kx;
      BestW = W;
      BestLoads = Ld;
    }
  }
  return Best;
}

/// A machine loop that also runs code of the enclosing loop's body (lines
/// outside the innermost loop) is the enclosing loop with the innermost
/// one fully unrolled: a trip covers all of the innermost iterations. Then
/// BESTK becomes that and the note saying so is returned; else "".
std::string unrolledInto(const LoopKernel &K, const KernelIR &IR, TargetBundle &TB,
                         const MachineLoop &Best, unsigned First, unsigned Last,
                         double &BestK, SteppedLoop &Stepped) {
  if (K.Nest.size() < 2)
    return "";
  const LoopLevel &Inner = K.innermost(), &Outer = K.Nest[K.Nest.size() - 2];
  bool OuterCode = holdsOuterCode(Best, Outer, First, Last);
  const auto &Bind = IR.bindings();
  auto Lo = Inner.Lower.evaluate(Bind), Hi = Inner.Upper.evaluate(Bind);
  bool Fixed = Lo && Hi && !Inner.Lower.symbols().count(Outer.Var) &&
               !Inner.Upper.symbols().count(Outer.Var);
  if (!OuterCode || !Fixed || *Hi <= *Lo)
    return "";
  int64_t Step = std::abs(Inner.Step ? Inner.Step : 1);
  int64_t Trips = (*Hi - *Lo + Step - 1) / Step;
  // Vectorized across the outer loop, references that skip elements
  // there (val[8 * i + k]) or go through data are gathered: only the
  // contiguous ones advance a register by their stride.
  unsigned GatheredOuter = 0;
  for (const Access &A : K.Accesses) {
    auto S = bytesPerIteration(A, Outer, Bind);
    GatheredOuter += A.Indirect || (S && *S > int64_t(A.ElementBytes));
  }
  std::vector<double> OuterStrides = accessStrides(K, IR, Outer, GatheredOuter > 0);
  if (OuterStrides.empty())
    OuterStrides = accessStrides(K, IR, Outer);
  unsigned Explained = 0, ExplainedAll = 0;
  double OuterK = estimateIterations(Best, TB, OuterStrides, Outer.Step, GatheredOuter,
                                     &Explained);
  // Interleaved rather than vectorised across the outer loop (two rows a
  // trip): the skipping references advance registers too, and the k that
  // explains more memory instructions with every stride is the trip's.
  if (GatheredOuter > 0) {
    double AllK = estimateIterations(Best, TB, accessStrides(K, IR, Outer), Outer.Step,
                                     GatheredOuter, &ExplainedAll);
    if (ExplainedAll > Explained)
      OuterK = AllK;
  }
  // A short fixed level whose references no register of the trip steps
  // (no vote, no gather: one iteration a trip) is unrolled as well when the
  // level around it explains the trip (a 9x9 box blur: the loops over l and
  // k unrolled into the loop over j, 16 wide, 1024 source iterations a trip).
  std::string Levels = Inner.Var, Counts = std::to_string(Trips);
  double Factor = double(Trips);
  for (size_t D = K.Nest.size() - 2; Explained == 0 && OuterK <= 1 && D > 0; --D) {
    const LoopLevel &Mid = K.Nest[D], &Around = K.Nest[D - 1];
    std::optional<int64_t> MTrips = unrollableTrips(Mid, IR);
    if (!MTrips)
      break;
    unsigned AroundExplained = 0;
    std::vector<double> AroundStrides = accessStrides(K, IR, Around);
    double AroundK =
        estimateIterations(Best, TB, AroundStrides, Around.Step, 0, &AroundExplained);
    // Without a reference that moves along the level around (bicubic's
    // in[j / f + k]), a counter stepping once a trip tells it.
    if (AroundStrides.empty() && AroundK == 1)
      AroundExplained = 1;
    if (AroundExplained == 0)
      break;
    Factor *= double(*MTrips);
    Levels += " and " + Mid.Var;
    Counts += " x " + std::to_string(*MTrips);
    OuterK = AroundK;
    Explained = AroundExplained;
    if (Explained > 0) {
      BestK = Factor * OuterK;
      Stepped = {Around.Var, Factor};
      return "the loops over " + Levels + " (" + Counts +
             " iterations) are fully unrolled into the loop over " + Around.Var;
    }
  }
  BestK = double(Trips) * OuterK;
  Stepped = {Outer.Var, double(Trips)};
  return "the innermost loop (" + std::to_string(Trips) +
         " iterations) is fully unrolled into the loop over " + Outer.Var;
}

/// Whether glibc's CALLEE (libm, or libmvec's _ZGV... versions) computes
/// without dividing: exp, log, sin, cos and pow are polynomials over tables
/// (glibc 2.28 and later), while tan, atan and log1p divide.
bool leavesTheDivider(StringRef Callee) {
  if (Callee.consume_front("_ZGV")) // _ZGVdN4v_exp: the ISA, mask, lanes, args, '_'
    Callee = Callee.substr(Callee.find('_') == StringRef::npos ? Callee.size()
                                                                : Callee.find('_') + 1);
  static const llvm::StringSet<> NoDivide = {"exp", "exp2", "exp10", "log", "log2",
                                             "log10", "sin", "cos", "sincos", "pow"};
  return NoDivide.contains(Callee) || (Callee.consume_back("f") && NoDivide.contains(Callee));
}

/// R's own cycles per iteration without its divides and square roots (their
/// share of the ports taken off), or R.Cycles where it has none.
double cyclesBesideTheDivider(const InCoreResult &R) {
  std::vector<double> Load = R.PortLoad;
  bool Any = false;
  for (const InstrCost &C : R.Instrs) {
    StringRef M = StringRef(C.Text).split(' ').first;
    if ((M.contains("div") || M.contains("sqrt")) && C.PortCycles.size() == Load.size()) {
      for (size_t P = 0; P < Load.size(); ++P)
        Load[P] -= C.PortCycles[P];
      Any = true;
    }
  }
  if (!Any || Load.size() != R.PortUnits.size())
    return R.Cycles;
  double Ports = 0;
  for (size_t P = 0; P < Load.size(); ++P)
    Ports = std::max(Ports, std::max(0.0, Load[P]) / std::max(1u, R.PortUnits[P]));
  return std::max({Ports, R.FrontEndBound, R.RecurrenceBound});
}

/// The loop's calls: their targets, the cycles the machine file gives them
/// (beside the loop's own), those whose code the block already has
/// (SPLICED), and those nobody costs.
void costCalls(InCoreResult &R, const MachineLoop &Best, const std::vector<std::string> &Spliced,
               const InCoreOptions &O) {
  // The calls' targets: the relocated symbols inside the loop that are
  // not local labels (constant pools are .LCPI...).
  std::vector<std::string> Raw;
  Best.forEachByte([&](uint64_t B) {
    auto It = Best.F->Symbols.find(B);
    if (It != Best.F->Symbols.end() && !StringRef(It->second).starts_with("."))
      Raw.push_back(It->second);
  });
  if (Raw.size() != R.Callees.size())
    Raw.assign(R.Callees.size(), "");
  std::vector<std::string> Costed, Inlined;
  for (size_t I = 0; I < Raw.size(); ++I) {
    R.Callees[I] = Raw[I].empty() ? "" : demangle(Raw[I]);
    auto It = O.CallCycles.find(Raw[I]);
    if (llvm::is_contained(Spliced, Raw[I])) {
      Inlined.push_back(R.Callees[I]);
    } else if (It != O.CallCycles.end()) {
      R.CallCycles += It->second;
      Costed.push_back(R.Callees[I]);
    } else {
      R.UncostedCallees.push_back(R.Callees[I]);
    }
  }
  // glibc's libmvec has vector versions of these (glibc 2.35 and later).
  static const llvm::StringSet<> VectorMath = {
      "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cos",  "cosh",
      "erf",  "erfc",  "exp",  "exp10", "exp2", "expm1", "hypot", "log",  "log10", "log1p",
      "log2", "pow",   "sin",  "sinh",  "tan",  "tanh"};
  bool Scalar = llvm::all_of(R.Callees, [](const std::string &C) {
    StringRef N(C);
    N.consume_back("f");
    return VectorMath.contains(C) || VectorMath.contains(N);
  });
  std::string Veclib = Scalar ? "; with -fno-math-errno -fveclib=libmvec clang calls "
                                "glibc's vector versions instead (4 or 8 elements a call)"
                              : "";
  if (R.CallCycles > 0) {
    // The callees run beside the loop's own instructions, one call after
    // the other: their measured cycles add to the body's. Not to its
    // divides and square roots, where every callee leaves the divider
    // alone: those run on it while the calls run (Zen 4 VM: y = u / v;
    // w = x / (exp(y) - 1) at 19-20 cy an element, exp alone 18.5, the
    // divides alone 10 of the divider).
    double Own = R.Cycles;
    bool Beside = !Costed.empty() && llvm::all_of(Costed, [](const std::string &C) {
      return leavesTheDivider(C);
    });
    double Rest = Beside ? cyclesBesideTheDivider(R) : Own;
    R.Cycles = std::max(Own, Rest + R.CallCycles);
    char Buf[200];
    snprintf(Buf, sizeof(Buf), "%.3g cy per iteration (core.call_cy), beside the loop's own %.3g",
             R.CallCycles, Own);
    R.Notes.push_back("the calls to " + calleesText(Costed) + " take " + Buf);
    if (Rest < Own) {
      char Div[120];
      snprintf(Div, sizeof(Div), "%.3g cy) run on the divider while the calls run: %.3g", Own,
               Rest);
      R.Notes.push_back("the loop's divides and square roots (" + std::string(Div) +
                        " cy of its own work add to theirs");
    }
    if (R.CallCycles > Own) {
      R.Bottleneck = InCoreBound::Calls;
      R.Advice = "the calls to " + calleesText(Costed) + " take " + Buf + Veclib;
    }
  }
  if (!Inlined.empty())
    R.Notes.push_back("the calls to " + calleesText(Inlined) +
                      " are costed with the callee's instructions, which this file's "
                      "object code has (straight-line code up to its return)");
  if (!R.UncostedCallees.empty())
    R.Notes.push_back("the loop calls " + calleesText(R.UncostedCallees) +
                      " every iteration, which the machine file does not cost (core.call_cy): "
                      "their instructions are not in this cost, so every prediction is a "
                      "lower bound" +
                      Veclib);
}

/// Bytes an iteration stores to places that move with the innermost loop (a
/// reduction's target, stored once after it, does not count). None where an
/// array the loop writes along it is also read at a place fixed in it
/// (floyd-warshall's path[i][k] beside path[i][j]): the compiler's run-time
/// overlap check for its unrolled vector copy fails, and the loop versions
/// run.
double storedPerIteration(const LoopKernel &K, const KernelIR &IR) {
  double StoredPerIt = 0;
  const auto &Bind = IR.bindings();
  auto Moves = [&](const Access &A) {
    auto C = elementsPerUnit(A, K.innermost().Var, Bind);
    return C && *C != 0;
  };
  bool Overlaps = false;
  for (const Access &W : K.Accesses)
    for (const Access &A : K.Accesses)
      Overlaps |= W.Write && Moves(W) && A.Read && A.Array == W.Array && !A.Indirect &&
                  !Moves(A);
  for (const Access &A : K.Accesses)
    if (A.Write && !A.Indirect && Moves(A) && !Overlaps)
      StoredPerIt += A.ElementBytes;
  return StoredPerIt;
}

NestSource nestSource(const LoopKernel &K, const KernelIR &IR, unsigned First, unsigned Last) {
  NestSource S;
  S.Lines = {First, Last};
  S.StoredPerIt = storedPerIteration(K, IR);
  for (const Access &A : K.Accesses) {
    if (!A.Write || A.Indirect)
      continue;
    int64_t Stride = bytesPerIteration(A, K.innermost(), IR.bindings()).value_or(0);
    if (Stride <= int64_t(A.ElementBytes)) { // contiguous, or not known: any width
      S.WidestStore = 0;
      break;
    }
    S.WidestStore = std::max(S.WidestStore, A.ElementBytes);
  }
  for (const LoopKernel &L : IR.Loops) {
    unsigned LF = L.Loc.Line, LL = std::max(L.EndLine, L.Loc.Line);
    if (&L != &K && L.Function == K.Function && L.Loc.File == K.Loc.File &&
        (LL < First || LF > Last))
      S.Others.push_back({LF, LL});
  }
  return S;
}

/// A branching body's loop-carried chain as the longest any fixed choice of
/// arms makes it (MachineLoop::ChoiceWalks): data that takes the arm that
/// carries a chain every iteration (DISC_ORD's dn = z / di, TSVC s341's
/// j++) runs it every iteration, where the two walks of the trip, taking
/// each arm half the time, may each cut it. The ports stay the walks'.
void longestChainOverArms(InCoreResult &R, const MachineLoop &Best,
                          const StraightCallees &Straight, InCoreOptions O) {
  if (!R.Ok || Best.ChoiceWalks.empty())
    return;
  O.ListSchedule = false;
  O.DeferBodySchedule = false; // the walks' bounds alone: nothing to schedule later
  double Longest = 0;
  for (const std::vector<size_t> &Walk : Best.ChoiceWalks) {
    std::vector<uint8_t> Bytes;
    std::vector<unsigned> Lines;
    Best.forEachByteOf(Walk, [&](uint64_t Off) {
      appendExecuted(*Best.F, Off, Straight, Bytes, Lines, nullptr);
    });
    InCoreResult W = analyzeBlockBytes(Bytes, O, Lines);
    if (W.Ok)
      Longest = std::max(Longest, W.RecurrenceBound);
  }
  double PerTrip = Longest * Best.Copies;
  if (PerTrip <= R.RecurrenceBound * (1 + 1e-9))
    return;
  using block::shortNumber;
  R.Notes.push_back("the loop-carried chain is " + shortNumber(Longest) +
                    " cy a pass where the data takes the arms that carry it every time (the "
                    "walks, each arm half the time, find " +
                    shortNumber(R.RecurrenceBound / Best.Copies) + ")");
  R.RecurrenceBound = PerTrip;
  if (PerTrip > R.Cycles) {
    R.Cycles = PerTrip;
    R.Bottleneck = InCoreBound::Recurrence;
    R.Advice = "loop-carried dependence chain of " + shortNumber(Longest) +
               " cy a pass through the branches' arms that carry it";
  }
}

/// The shares of K's iterations that take the then-arm of each branch of
/// its body on counters and sizes, at the bound sizes (NOTES say them).
std::vector<ArmShare> armShares(const LoopKernel &K, const KernelIR &IR,
                                std::vector<std::string> &Notes) {
  std::vector<ArmShare> Out;
  if (K.Branches.empty())
    return Out;
  const auto &B = IR.bindings();
  for (const CounterBranch &Br : K.Branches) {
    std::optional<double> P = armShare(K, Br, B);
    if (!P)
      continue;
    Out.push_back({Br.Line, Br.LastLine, Br.ThenFirst, Br.ThenLast, Br.ElseFirst, Br.ElseLast,
                   *P, Br.What == CounterBranch::Kind::RunningExtremum});
    char Pct[32];
    snprintf(Pct, sizeof(Pct), "%.3g %%", 100 * *P);
    if (Br.What == CounterBranch::Kind::RunningExtremum)
      Notes.push_back("branch at line " + std::to_string(Br.Line) + " ('" + Br.Text +
                      "') takes a new minimum or maximum: taken in H(n)/n = " + Pct +
                      " of the iterations, as for data in random order (the k-th element "
                      "is a new extremum with probability 1/k); sorted data would take it "
                      "every time or never");
    else
      Notes.push_back("branch at line " + std::to_string(Br.Line) + " ('" + Br.Text +
                      "') on the counters and sizes: taken in " + Pct +
                      " of the iterations at these sizes; its arms are costed as often");
  }
  return Out;
}

/// Versions of the loop (clang's unswitched copies) whose code holds only
/// an arm that runs in less than half as many iterations as the best
/// version's: left out of CANDS, with a note. A version with both arms (or
/// with neither) runs in every iteration it is reached.
void dropRareVersions(std::vector<const MachineLoop *> &Cands,
                      const std::vector<ArmShare> &Shares, std::vector<std::string> &Notes) {
  if (Cands.size() < 2)
    return;
  std::vector<double> Runs;
  for (const MachineLoop *C : Cands) {
    std::set<unsigned> Lines = linesOf(*C);
    auto Holds = [&](unsigned A, unsigned B) {
      return A && Lines.lower_bound(A) != Lines.end() && *Lines.lower_bound(A) <= B;
    };
    double W = 1;
    for (const ArmShare &S : Shares) {
      // A branch inside another's arm (an else-if) runs only where that arm
      // does: the outermost branches weigh the versions.
      if (S.OnData || llvm::any_of(Shares, [&](const ArmShare &O) {
            return O.Line < S.Line && S.LastLine <= std::max(O.ThenLast, O.ElseLast);
          }))
        continue;
      bool Then = Holds(S.ThenFirst, S.ThenLast), Else = Holds(S.ElseFirst, S.ElseLast),
           Cond = Holds(S.Line, S.LastLine);
      if (!S.ElseFirst)
        Else = Cond && !Then; // an if without else: the copy that skips it
      if (Then != Else)
        W *= Then ? S.Taken : 1 - S.Taken;
    }
    Runs.push_back(W);
  }
  double Most = *std::max_element(Runs.begin(), Runs.end());
  std::vector<const MachineLoop *> Kept;
  for (size_t C = 0; C < Cands.size(); ++C)
    if (Runs[C] >= 0.5 * Most)
      Kept.push_back(Cands[C]);
  if (Kept.size() == Cands.size())
    return;
  char Pct[32];
  snprintf(Pct, sizeof(Pct), "%.3g %%", 100 * *std::min_element(Runs.begin(), Runs.end()));
  Notes.push_back(std::to_string(Cands.size() - Kept.size()) +
                  " version(s) of the loop for arms of its branches on the counters that run "
                  "in as little as " + Pct + " of the iterations: not costed");
  Cands = std::move(Kept);
}

/// Source loop K costed on the machine loop that runs it, among LOOPS.
InCoreResult costLoop(const LoopKernel &K, const KernelIR &IR, const InCoreOptions &O,
                      TargetBundle &TB, const ObjectFileBytes &Obj,
                      const std::vector<MachineLoop> &Loops, const LineRanges &Ranges,
                      const StraightCallees &Straight) {
  InCoreResult Failed;
  Failed.Cpu = O.Cpu;
  unsigned First = K.Loc.Line, Last = std::max(K.EndLine, K.Loc.Line);
  std::vector<const MachineLoop *> Cands =
      candidatesFor(K, IR, First, Last, Loops, Ranges, Obj, Failed);
  if (Cands.empty())
    return Failed;
  // Branches on the counters run their arms as often as the sizes say: the
  // versions of the loop for rare arms are left out, and each remaining
  // version's trip takes the arms that often.
  std::vector<std::string> ShareNotes;
  std::vector<ArmShare> Shares = armShares(K, IR, ShareNotes);
  std::vector<MachineLoop> Weighed;
  if (!Shares.empty()) {
    dropRareVersions(Cands, Shares, ShareNotes);
    Weighed.reserve(Cands.size()); // the pointers below stay valid
    for (const MachineLoop *&C : Cands) {
      MachineLoop Copy = *C;
      if (weighArms(Copy, Shares)) {
        Weighed.push_back(std::move(Copy));
        C = &Weighed.back();
      }
    }
  }
  std::vector<double> Strides = accessStrides(K, IR, K.innermost());
  double PerIt = Strides.empty() ? 0 : Strides.front();
  std::vector<double> CandIters;
  double BestK = 0;
  const MachineLoop *Best = pickLoop(K, IR, TB, First, Last, Strides, Cands, CandIters, BestK);
  SteppedLoop Stepped;
  std::string Unrolled = unrolledInto(K, IR, TB, *Best, First, Last, BestK, Stepped);
  // A trip of a branching body is Copies iterations (MachineLoop::Sequence).
  for (size_t C = 0; C < Cands.size(); ++C)
    CandIters[C] *= Cands[C]->Copies;
  BestK *= Best->Copies;
  std::vector<uint8_t> Bytes;
  std::vector<unsigned> Lines;
  std::vector<std::string> Spliced;
  CodeRanges Walked;
  Best->forEachByte([&](uint64_t B) {
    extendRanges(Walked, B);
    appendExecuted(*Best->F, B, Straight, Bytes, Lines, &Spliced);
  });
  InCoreOptions LO = O;
  LineSplits Own = lineSplitsOf(K, IR.bindings(), O.Splits.AssumedAlign, O.LineBytes);
  LO.Splits.takeStreamFigures(Own);
  if (O.DeferBodySchedule)
    LO.ListSchedule = false;
  InCoreResult R = analyzeBlockBytes(Bytes, LO, Lines);
  longestChainOverArms(R, *Best, Straight, LO);
  R.DataBranchLines = dataBranchLines(*Best, Shares);
  R.BodyBytes = std::move(Bytes);
  R.BodyLines = std::move(Lines);
  R.Code.Function = Best->F->Name;
  R.Code.FunctionOffset = Best->F->Address;
  R.Code.Align = Best->F->SectionAlign;
  R.Code.Body = std::move(Walked);
  R.SourceItersPerIter = BestK;
  R.Stepped = Stepped;
  R.BytesPerSourceIt = PerIt;
  std::string Where = demangle(Best->F->Name);
  for (size_t P = 0; P < Best->Pieces.size(); ++P) {
    char Buf[64];
    snprintf(Buf, sizeof(Buf), "%s0x%llx..0x%llx", P ? ", " : "+",
             (unsigned long long)Best->Pieces[P].first,
             (unsigned long long)Best->Pieces[P].second);
    Where += Buf;
  }
  R.MachineLoop = Where;
  if (!R.Callees.empty())
    costCalls(R, *Best, Spliced, O);
  if (!Unrolled.empty())
    R.Nest.Reason = "the innermost loop is fully unrolled into its enclosing loop";
  else
    R.Nest = nestAround(*Best, Cands, CandIters, K.Nest.size() < 2, O.CallCycles, Straight,
                        TB, nestSource(K, IR, First, Last));
  if (Best->ColdBlocks)
    R.Notes.push_back(std::to_string(Best->ColdBlocks) +
                      " block(s) of the loop that call out (such as an errno path) are "
                      "left out: the loop can go around them");
  R.Notes.insert(R.Notes.end(), ShareNotes.begin(), ShareNotes.end());
  if (Best->Copies > 1 && Best->Weighed)
    R.Notes.push_back("the loop's body branches (" + std::to_string(Best->Branches) +
                      " branch(es) between its blocks): the arms of branches on the counters "
                      "costed in their shares of the iterations, those the data decides in "
                      "half each, the branches predicted (a trip here is " +
                      std::to_string(Best->Copies) + " passes through the body)");
  else if (Best->Copies > 1)
    R.Notes.push_back(
        "the loop's body branches (" + std::to_string(Best->Branches) +
        " branch(es) between its blocks; the data decides): each arm costed in half the "
        "iterations, the branches predicted, not every block every iteration (a trip here "
        "is " + std::to_string(Best->Copies) + " iterations, one down each way)");
  if (Best->Pieces.size() > 1)
    R.Notes.push_back("the loop's hot path is in " + std::to_string(Best->Pieces.size()) +
                      " pieces of the function (blocks placed out of line)");
  if (!Unrolled.empty())
    R.Notes.push_back(Unrolled);
  if (Cands.size() > 1)
    R.Notes.push_back("the compiler emitted " + std::to_string(Cands.size()) +
                      " machine loops for this source loop; costed the one covering " +
                      std::to_string(long(BestK)) +
                      " source iterations per trip (the others are remainder or "
                      "alternative versions)");
  if (PerIt <= 0 && Unrolled.empty())
    R.Notes.push_back(
        BestK > 1 ? "no access advances with the loop: its counter steps " +
                        std::to_string(long(BestK)) +
                        " source iterations per machine iteration"
                  : "no access advances with the loop: one machine iteration is taken as "
                    "one source iteration");
  // A trip of several walks repeats its instructions' notes (macro-fusion).
  std::set<std::string> Seen;
  llvm::erase_if(R.Notes, [&](const std::string &N) { return !Seen.insert(N).second; });
  return R;
}

/// Loops of one function that the compiler merged into one machine loop
/// (fully unrolled into the loop around them: the same small function
/// called twice in a body, two short loops side by side) share its trip:
/// each is charged the trip's cycles over all their source iterations, so
/// that together they cost the trip once.
void shareMachineLoops(const KernelIR &IR, std::vector<InCoreResult> &Results) {
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> ByLoop;
  for (size_t I = 0; I < Results.size(); ++I)
    if (Results[I].Ok && !Results[I].MachineLoop.empty())
      ByLoop[{IR.Loops[I].Function, Results[I].MachineLoop}].push_back(I);
  for (const auto &[Key, Members] : ByLoop) {
    if (Members.size() < 2)
      continue;
    double Total = 0;
    std::set<unsigned> LineSet;
    for (size_t I : Members) {
      Total += Results[I].SourceItersPerIter;
      LineSet.insert(IR.Loops[I].Loc.Line);
    }
    std::string Lines;
    for (unsigned L : LineSet)
      Lines += (Lines.empty() ? "" : ", ") + std::to_string(L);
    for (size_t I : Members) {
      InCoreResult &R = Results[I];
      char Buf[48];
      snprintf(Buf, sizeof(Buf), "%g", Total);
      R.Notes.push_back("the machine loop also runs " + std::to_string(Members.size() - 1) +
                        " other loop(s) of the source (at line(s) " + Lines +
                        ", merged into it by the compiler): each is charged its trip's "
                        "cycles over their " + Buf + " source iterations a trip");
      R.SourceItersPerIter = Total;
    }
  }
}

} // namespace

std::vector<InCoreResult>
perfmodel::analyzeKernelLoops(const KernelIR &IR, const std::vector<std::string> &Args,
                              const InCoreOptions &O) {
  StageScope Timed(Stage::ObjectCode);
  std::vector<InCoreResult> Results(IR.Loops.size());
  bool Any = false;
  for (size_t I = 0; I < IR.Loops.size(); ++I) {
    Results[I].Cpu = O.Cpu;
    if (!IR.Loops[I].Modelled)
      Results[I].Reason = "loop not modelled";
    else
      Any = true;
  }
  if (!Any)
    return Results; // nothing to compile for
  ObjectFileBytes Obj;
  std::string Error;
  TargetBundle TB;
  if (!TB.init(O.Triple, O.Cpu, Error) ||
      !compileKernel(IR.File, withMachineFlags(O, Args), O.Triple, O.Cpu, Obj, Error)) {
    for (InCoreResult &R : Results)
      if (R.Reason.empty())
        R.Reason = "cannot compile the file for the in-core model: " + Error;
    return Results;
  }
  StraightCallees Straight = straightCallees(Obj, TB);
  std::vector<MachineLoop> Loops;
  std::vector<std::unique_ptr<FunctionCFG>> Cfgs;
  for (const FunctionCode &F : Obj.Functions) {
    Cfgs.push_back(std::make_unique<FunctionCFG>());
    auto L = findLoops(F, TB, *Cfgs.back());
    Loops.insert(Loops.end(), std::make_move_iterator(L.begin()),
                 std::make_move_iterator(L.end()));
  }
  LineRanges Ranges = lineRangesOf(Loops);
  for (size_t I = 0; I < IR.Loops.size(); ++I)
    if (IR.Loops[I].Modelled)
      Results[I] = costLoop(IR.Loops[I], IR, O, TB, Obj, Loops, Ranges, Straight);
  shareMachineLoops(IR, Results);
  return Results;
}

std::string perfmodel::calleesText(const std::vector<std::string> &Callees) {
  // Each callee once, with its count: a vector body calls _ZGVdN4v_exp 4 times.
  std::vector<std::pair<std::string, unsigned>> Counted;
  for (const std::string &C : Callees) {
    std::string Name = C.empty() ? "a function" : C;
    auto It = llvm::find_if(Counted, [&](const auto &P) { return P.first == Name; });
    if (It == Counted.end())
      Counted.push_back({Name, 1});
    else
      ++It->second;
  }
  std::string List;
  for (const auto &[Name, N] : Counted)
    List += (List.empty() ? "" : ", ") + Name + (N > 1 ? " (" + std::to_string(N) + " times)" : "");
  return List;
}

std::optional<std::vector<uint8_t>>
perfmodel::innermostLoopOfListing(const std::vector<uint8_t> &Text, const InCoreOptions &O,
                                  std::string &Note) {
  TargetBundle TB;
  std::string Error;
  if (!TB.init(O.Triple, O.Cpu, Error))
    return std::nullopt;
  FunctionCode F;
  F.Name = "listing";
  F.Bytes = Text;
  F.Lines.assign(Text.size(), 0);
  FunctionCFG Cfg;
  std::vector<MachineLoop> Loops = findLoops(F, TB, Cfg);
  if (Loops.empty())
    return std::nullopt; // straight-line code: the block is the body
  // The biggest innermost loop: a vectorised body beats its scalar remainder.
  const MachineLoop *Best = nullptr;
  uint64_t BestBytes = 0;
  for (const MachineLoop &L : Loops) {
    uint64_t Bytes = 0;
    for (const auto &[B, E] : L.Pieces)
      Bytes += E - B;
    if (Bytes > BestBytes) {
      Best = &L;
      BestBytes = Bytes;
    }
  }
  if (BestBytes == Text.size())
    return std::nullopt; // the listing is the loop
  std::vector<uint8_t> Bytes;
  Best->forEachByte([&](uint64_t B) { Bytes.push_back(Text[B]); });
  char Buf[96];
  snprintf(Buf, sizeof(Buf), "bytes 0x%llx..0x%llx", (unsigned long long)Best->Begin,
           (unsigned long long)Best->End);
  Note = "the listing holds " + std::to_string(Loops.size()) + " innermost loop(s); costed " +
         "the largest (" + Buf + " of " + std::to_string(Text.size()) +
         "), as one iteration; a listing without a loop is costed whole";
  return Bytes;
}

void perfmodel::overlapOuterIterations(InCoreResult &R, const std::vector<int64_t> &Trips,
                                       unsigned Rob) {
  if (!R.Ok || !Rob || !R.Uops || R.RecurrenceBound <= 0 || Trips.empty())
    return;
  double PerIter = R.SourceItersPerIter > 0 ? R.SourceItersPerIter : 1;
  double Window = double(Rob) / R.Uops; // machine iterations in flight
  // Chain cycles summed over the outer iterations, each sharing the window
  // with the k = W / m others around it (at least itself).
  double Chain = 0, Iters = 0;
  for (int64_t T : Trips) {
    double M = double(T) / PerIter;
    if (M <= 0)
      continue;
    double K = std::max(1.0, Window / M);
    Chain += M * R.RecurrenceBound / K;
    Iters += M;
  }
  if (Iters <= 0)
    return;
  double Rec = Chain / Iters;
  if (Rec >= R.RecurrenceBound * (1 - 1e-9))
    return;
  double Old = R.Cycles;
  R.RecurrenceBound = Rec;
  R.Cycles = std::max({R.PortBound, R.FrontEndBound, Rec});
  if (R.Cycles < Old * (1 - 1e-9) && R.Bottleneck == InCoreBound::Recurrence && Rec < R.Cycles) {
    bool Ports = R.PortBound >= R.FrontEndBound;
    R.Bottleneck = Ports ? InCoreBound::Ports : InCoreBound::FrontEnd;
    R.Advice = std::string("the out-of-order window overlaps the chains of neighbouring outer "
                           "iterations; ") +
               (Ports ? "port-bound on " + R.PortBottleneck + ": remove work from the ports"
                      : "issue-bound: fewer instructions per iteration help");
  }
  char Buf[200];
  snprintf(Buf, sizeof(Buf),
           "out-of-order overlap: %g machine iterations per outer iteration on average, "
           "%g in a %u-entry window: the loop-carried chain binds %.3g cy per iteration "
           "instead of its latency",
           Iters / double(Trips.size()), Window, Rob, Rec);
  R.Notes.push_back(Buf);
}

std::optional<bool> perfmodel::compileWithFrontEnd(
    const std::string &File, const std::vector<std::string> &CompileArgs,
    const InCoreOptions &O, const std::vector<std::string> &ExtraFlags,
    const std::function<std::unique_ptr<clang::ASTConsumer>()> &Make,
    std::string &Diagnostics) {
  std::string Error;
  std::optional<bool> Ok = compileKernelParsing(File, withMachineFlags(O, CompileArgs), O.Triple,
                                                O.Cpu, ExtraFlags, Make, Diagnostics, Error);
  if (Ok && !*Ok && Diagnostics.empty())
    Diagnostics = Error;
  return Ok;
}

void perfmodel::chargeDataBranches(InCoreResult &R, double MissRate, double MispredictCy,
                                   double PatternCapacity) {
  if (!R.Ok || R.DataBranchLines.empty() || R.SourceItersPerIter <= 0)
    return;
  std::set<unsigned> Lines(R.DataBranchLines.begin(), R.DataBranchLines.end());
  std::string Where;
  for (unsigned L : Lines)
    Where += (Where.empty() ? "" : ", ") + std::to_string(L);
  using block::shortNumber;
  double PerSourceIt = double(R.DataBranchLines.size()) / R.SourceItersPerIter;
  std::string What = shortNumber(PerSourceIt) + " branch" + (PerSourceIt == 1 ? "" : "es") +
                     " on the data an iteration (line" + (Lines.size() > 1 ? "s " : " ") +
                     Where + ")";
  if (!(MispredictCy > 0)) {
    R.Notes.push_back(What + ": not charged, the machine file has no core.branch_mispredict_cy");
    return;
  }
  double AtRandom = double(R.DataBranchLines.size()) * 0.5 * MispredictCy;
  // Outcomes the predictor learns: the same data again within its capacity
  // (the Zen 4 VM: 2,000-20,000 random ints counted again and again ran at
  // 2.1-2.2 cy an element, 200,000 at 11.1).
  std::string Learns =
      PatternCapacity > 0
          ? "; data that comes again within " + shortNumber(PatternCapacity) +
                " outcomes (core.branch_pattern_capacity) is learned, as if predicted"
          : "";
  if (!(MissRate > 0)) {
    R.Notes.push_back(What + ": taken as predicted (--branch-miss-rate 0); outcomes at random "
                      "(--branch-miss-rate 0.5) would add " +
                      shortNumber(AtRandom / R.SourceItersPerIter) + " cy/it (" +
                      shortNumber(MispredictCy) + " cy a misprediction)" + Learns);
    return;
  }
  double Cost = double(R.DataBranchLines.size()) * MissRate * MispredictCy;
  R.Notes.push_back(What + ": " + shortNumber(100 * MissRate) +
                    " % of their outcomes mispredicted (--branch-miss-rate) x " +
                    shortNumber(MispredictCy) + " cy = " +
                    shortNumber(Cost / R.SourceItersPerIter) + " cy/it added" + Learns);
  if (Cost > R.Cycles) {
    R.Bottleneck = InCoreBound::Branches;
    R.Advice = "mispredicted branches on the data: make the choice branch-free (a select, "
               "min/max or a blend the compiler can vectorise) or order the data";
  }
  R.Cycles += Cost;
  R.TOL += Cost;
}

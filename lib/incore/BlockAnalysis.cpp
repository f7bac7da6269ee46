//===- BlockAnalysis.cpp - Cost a loop body on LLVM's scheduling model ----===//
#include "FrontEnd.h"
#include "ListSchedule.h"
#include "MemoryDeps.h"
#include "TargetBundle.h"
#include "perfmodel/InCore.h"
#include "perfmodel/StageTimes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

using namespace perfmodel;
using namespace llvm;

namespace {

/// Leaf processor resources ("ports") of a scheduling model and the leaf set
/// behind every resource index.
struct PortMap {
  std::vector<std::string> Names;
  std::vector<unsigned> Units;
  std::map<unsigned, std::vector<unsigned>> Leaves; ///< resource idx -> ports

  explicit PortMap(const MCSchedModel &SM) {
    std::map<unsigned, unsigned> PortOf;
    for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I) {
      const MCProcResourceDesc *D = SM.getProcResource(I);
      if (D->SubUnitsIdxBegin)
        continue;
      PortOf[I] = Names.size();
      Names.push_back(D->Name);
      Units.push_back(std::max(1u, D->NumUnits));
    }
    std::function<void(unsigned, std::vector<unsigned> &)> Collect =
        [&](unsigned Idx, std::vector<unsigned> &Out) {
          const MCProcResourceDesc *D = SM.getProcResource(Idx);
          if (!D->SubUnitsIdxBegin) {
            Out.push_back(PortOf[Idx]);
            return;
          }
          for (unsigned U = 0; U < D->NumUnits; ++U)
            Collect(D->SubUnitsIdxBegin[U], Out);
        };
    for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I) {
      std::vector<unsigned> L;
      Collect(I, L);
      std::sort(L.begin(), L.end());
      L.erase(std::unique(L.begin(), L.end()), L.end());
      Leaves[I] = L;
    }
  }
};

bool subset(const std::vector<unsigned> &A, const std::vector<unsigned> &B) {
  return std::includes(B.begin(), B.end(), A.begin(), A.end());
}

/// An instruction override's form, compiled once: a prefix of the
/// disassembly, or a glob over its start ("vf*[0-9]s[sd] " is every scalar
/// FMA). Not copyable: the glob refers to Pattern's text.
class FormMatcher {
  std::string Pattern;
  bool IsGlob;
  std::optional<llvm::GlobPattern> Glob;

public:
  explicit FormMatcher(const std::string &Form)
      : Pattern(Form), IsGlob(Form.find_first_of("*?[") != std::string::npos) {
    if (!IsGlob)
      return;
    Pattern += "*";
    llvm::Expected<llvm::GlobPattern> G = llvm::GlobPattern::create(Pattern);
    if (G)
      Glob = std::move(*G);
    else
      llvm::consumeError(G.takeError()); // the machine loader reports it
  }
  FormMatcher(const FormMatcher &) = delete;
  FormMatcher &operator=(const FormMatcher &) = delete;
  bool matches(llvm::StringRef Text) const {
    return IsGlob ? Glob && Glob->match(Text) : Text.starts_with(Pattern);
  }
};

/// Resource demands of one scheduling class: cycles per leaf set, where a
/// group's cycles exclude those already charged to a smaller set inside it.
std::vector<std::pair<std::vector<unsigned>, double>>
demandsOf(const MCSubtargetInfo &STI, const MCSchedClassDesc *SC, const PortMap &PM) {
  std::vector<std::pair<std::vector<unsigned>, double>> W;
  for (const MCWriteProcResEntry *E = STI.getWriteProcResBegin(SC),
                                 *End = STI.getWriteProcResEnd(SC);
       E != End; ++E) {
    double Cycles = double(E->ReleaseAtCycle) - double(E->AcquireAtCycle);
    auto It = PM.Leaves.find(E->ProcResourceIdx);
    if (Cycles <= 0 || It == PM.Leaves.end() || It->second.empty())
      continue;
    W.push_back({It->second, Cycles});
  }
  // TableGen lists every group containing a used resource with the same
  // cycles, so several groups with the same ports (Zen 4's FPFMul01,
  // FPVAdd01, FPAES01, ... for one FMA) describe one demand, not several.
  std::stable_sort(W.begin(), W.end(), [](const auto &A, const auto &B) {
    return A.first.size() < B.first.size() ||
           (A.first.size() == B.first.size() && A.first < B.first);
  });
  for (size_t I = 0; I + 1 < W.size();)
    if (W[I].first == W[I + 1].first) {
      W[I].second = std::max(W[I].second, W[I + 1].second);
      W.erase(W.begin() + I + 1);
    } else {
      ++I;
    }
  for (size_t I = 0; I < W.size(); ++I)
    for (size_t J = I + 1; J < W.size(); ++J)
      if (W[J].first.size() > W[I].first.size() && subset(W[I].first, W[J].first))
        W[J].second = std::max(0.0, W[J].second - W[I].second);
  W.erase(std::remove_if(W.begin(), W.end(), [](const auto &D) { return D.second <= 0; }),
          W.end());
  return W;
}

/// Optimal min-max load: the largest (demand inside S) / (units of S) over
/// unions S of demand sets is exactly the best fractional assignment's
/// makespan (max-flow / min-cut).
double optimalBound(const std::vector<std::pair<std::vector<unsigned>, double>> &Demands,
                    const std::vector<unsigned> &Units) {
  // Demands summed per port set: the ratio only needs the sums (a nest
  // trace has thousands of demands on a dozen sets).
  std::vector<std::vector<unsigned>> Masks;
  std::vector<double> MaskCycles;
  for (const auto &D : Demands) {
    auto It = std::find(Masks.begin(), Masks.end(), D.first);
    if (It == Masks.end()) {
      Masks.push_back(D.first);
      MaskCycles.push_back(D.second);
    } else {
      MaskCycles[It - Masks.begin()] += D.second;
    }
  }
  // (cycles of the demands inside S) / (units of S)
  auto Ratio = [&](const std::vector<unsigned> &S) {
    double Sum = 0, Cap = 0;
    for (size_t M = 0; M < Masks.size(); ++M)
      if (subset(Masks[M], S))
        Sum += MaskCycles[M];
    for (unsigned P : S)
      Cap += Units[P];
    return Sum / Cap;
  };
  double Best = 0;
  if (Masks.size() > 20) { // never seen in practice; fall back to single sets
    for (const auto &M : Masks)
      Best = std::max(Best, Ratio(M));
    return Best;
  }
  // Port sets as bit sets, and every union of them once (many selections
  // give the same union).
  if (Units.size() <= 64) {
    std::vector<uint64_t> Bits(Masks.size(), 0);
    for (size_t M = 0; M < Masks.size(); ++M)
      for (unsigned P : Masks[M])
        Bits[M] |= uint64_t(1) << P;
    std::vector<uint64_t> Union(size_t(1) << Masks.size(), 0);
    std::unordered_set<uint64_t> Seen;
    for (uint64_t Sel = 1; Sel < Union.size(); ++Sel) {
      uint64_t S = Union[Sel] = Union[Sel & (Sel - 1)] | Bits[__builtin_ctzll(Sel)];
      if (!Seen.insert(S).second)
        continue;
      double Sum = 0, Cap = 0;
      for (size_t M = 0; M < Masks.size(); ++M)
        if ((Bits[M] & ~S) == 0)
          Sum += MaskCycles[M];
      for (uint64_t Rest = S; Rest; Rest &= Rest - 1)
        Cap += Units[__builtin_ctzll(Rest)];
      Best = std::max(Best, Sum / Cap);
    }
    return Best;
  }
  for (uint64_t Sel = 1; Sel < (uint64_t(1) << Masks.size()); ++Sel) {
    std::vector<unsigned> S;
    for (size_t I = 0; I < Masks.size(); ++I)
      if (Sel >> I & 1)
        S.insert(S.end(), Masks[I].begin(), Masks[I].end());
    std::sort(S.begin(), S.end());
    S.erase(std::unique(S.begin(), S.end()), S.end());
    Best = std::max(Best, Ratio(S));
  }
  return Best;
}

/// A balanced assignment: minimises the sum over ports of load^2 / units by
/// block coordinate descent, re-pouring each demand into its ports so the
/// least-loaded fill first. Its makespan is the optimum (the bound above);
/// unlike a bare max-flow it also spreads the flexible uops evenly, which is
/// what the port table should show. Returns per demand the cycles per port.
std::vector<std::vector<double>>
assign(const std::vector<std::pair<std::vector<unsigned>, double>> &Demands,
       const std::vector<unsigned> &Units) {
  size_t ND = Demands.size(), NP = Units.size();
  std::vector<std::vector<double>> Out(ND, std::vector<double>(NP, 0));
  std::vector<double> Load(NP, 0);
  for (size_t D = 0; D < ND; ++D) { // start with even splits
    double Cap = 0;
    for (unsigned P : Demands[D].first)
      Cap += Units[P];
    for (unsigned P : Demands[D].first) {
      Out[D][P] = Demands[D].second * Units[P] / Cap;
      Load[P] += Out[D][P];
    }
  }
  for (unsigned Round = 0; Round < 200; ++Round) {
    double Moved = 0;
    for (size_t D = 0; D < ND; ++D) {
      const std::vector<unsigned> &Mask = Demands[D].first;
      if (Mask.size() < 2)
        continue;
      for (unsigned P : Mask)
        Load[P] -= Out[D][P];
      // Water level L with sum over ports of max(0, L*units - load) = cycles.
      std::vector<unsigned> Order(Mask);
      std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
        return Load[A] / Units[A] < Load[B] / Units[B];
      });
      double Level = 0, Need = Demands[D].second;
      double SumLoad = 0, SumUnits = 0;
      size_t Used = 0;
      for (; Used < Order.size(); ++Used) {
        SumLoad += Load[Order[Used]];
        SumUnits += Units[Order[Used]];
        Level = (Need + SumLoad) / SumUnits;
        if (Used + 1 == Order.size() ||
            Level <= Load[Order[Used + 1]] / Units[Order[Used + 1]])
          break;
      }
      for (unsigned P : Mask) {
        double New = std::max(0.0, Level * Units[P] - Load[P]);
        bool Filled = std::find(Order.begin(), Order.begin() + Used + 1, P) !=
                      Order.begin() + Used + 1;
        if (!Filled)
          New = 0;
        Moved += std::fabs(New - Out[D][P]);
        Out[D][P] = New;
        Load[P] += New;
      }
    }
    if (Moved < 1e-12)
      break;
  }
  return Out;
}

/// xor/sub/pxor/xorps/pcmpgt of a register with itself: Intel cores
/// recognise the result without reading the register (LLVM 19's Skylake
/// model lacks some of these).
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

/// An x86 memory operand: base, scale, index, displacement, segment.
struct MemRef {
  unsigned Base = 0, Index = 0, Segment = 0;
  int64_t Scale = 1, Disp = 0;
  bool operator==(const MemRef &O) const {
    return Base == O.Base && Index == O.Index && Segment == O.Segment &&
           Scale == O.Scale && Disp == O.Disp;
  }
};

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

struct RegUse {
  unsigned Reg;
  unsigned UseIdx;
};
struct RegDef {
  unsigned Reg;
  double Latency;
  unsigned WriteResID;
};

} // namespace

namespace {
/// PPR's classes by mnemonic: x86 (v)add/sub/mul/fmadd.. on ss/sd/ps/pd,
/// AArch64 fadd/fsub/fmul/fmla/fmadd...
InstrClasses instrClasses(const std::vector<InstrCost> &Instrs) {
  InstrClasses K;
  for (const InstrCost &C : Instrs) {
    StringRef Mn = StringRef(C.Text).split(' ').first;
    bool X86Fp = Mn.ends_with("ps") || Mn.ends_with("pd") || Mn.ends_with("ss") ||
                 Mn.ends_with("sd");
    StringRef Op = X86Fp && Mn.starts_with("v") ? Mn.drop_front() : Mn;
    if (X86Fp ? (Op.starts_with("fmadd") || Op.starts_with("fmsub") ||
                 Op.starts_with("fnmadd") || Op.starts_with("fnmsub"))
              : (Mn == "fmla" || Mn == "fmls" || Mn == "fmadd" || Mn == "fmsub" ||
                 Mn == "fnmadd" || Mn == "fnmsub"))
      K.Fma += 1;
    else if (X86Fp ? (Op.starts_with("add") || Op.starts_with("sub"))
                   : (Mn == "fadd" || Mn == "fsub"))
      K.Add += 1;
    else if (X86Fp ? Op.starts_with("mul") : Mn == "fmul")
      K.Mul += 1;
    K.Load += C.MayLoad;
    K.Store += C.MayStore;
  }
  return K;
}
} // namespace

unsigned perfmodel::llvmIssueWidth(const std::string &Triple, const std::string &Cpu) {
  TargetBundle TB;
  std::string Error;
  if (!TB.init(Triple, Cpu, Error))
    return 0;
  const MCSchedModel &SM = TB.STI->getSchedModel();
  return SM.hasInstrSchedModel() ? SM.IssueWidth : 0;
}

InCoreOptions perfmodel::inCoreOptionsFor(const MachineModel &M) {
  InCoreOptions O;
  O.Triple = M.Triple;
  O.Cpu = M.Cpu;
  O.IssueWidth = M.Core.IssueWidth;
  O.Rob = M.Core.ReorderBuffer;
  O.Overrides = M.Core.Overrides;
  O.CallCycles = M.Core.CallCycles;
  O.CallReturnCycles = M.Core.CallReturnCycles;
  O.MaskedStoresForward = M.Core.MaskedStoresForward;
  if (M.Core.ForwardFailCycles > 0)
    O.ForwardFail = M.Core.ForwardFailCycles;
  O.QueueSizes = M.Core.SchedulerQueues;
  O.LoadQueue = M.Core.LoadQueue;
  O.StoreQueue = M.Core.StoreQueue;
  O.LoadBytesPerCycle = M.Core.LoadBytesPerCycle;
  O.StoreBytesPerCycle = M.Core.StoreBytesPerCycle;
  O.LoadSlotsPerCycle = M.Core.LoadsPerCycle;
  O.VectorLoadSlots = M.Core.VectorLoadSlots;
  O.Splits.LoadCost = M.Core.LineSplitLoadCost;
  O.Splits.StoreCost = M.Core.LineSplitStoreCost;
  if (M.Core.FpPipeBits && M.Core.FpPipeBits < M.Core.SimdBits)
    O.Splits.Granule = M.Core.FpPipeBits / 8;
  if (!M.Caches.empty() && M.Caches.front().LineBytes)
    O.LineBytes = M.Caches.front().LineBytes;
  llvm::Triple T(M.Triple);
  if (T.isAArch64() && M.Core.SimdBits >= 128 && M.Core.SimdBits % 128 == 0)
    O.CompileFlags.push_back("-msve-vector-bits=" + std::to_string(M.Core.SimdBits));
  // Cross targets: clang finds Debian's cross C library headers
  // (libc6-dev-<arch>-cross) only next to a cross GCC, so name them.
  llvm::Triple Host(llvm::sys::getDefaultTargetTriple());
  if (T.getArch() != Host.getArch()) {
    std::string Triple = T.getArchName().str() + "-linux-gnu";
    std::string Inc = "/usr/" + Triple + "/include";
    // libstdc++ first (C++ only), newest version present.
    std::string Cxx;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Inc + "/c++", EC), End; !EC && It != End;
         It.increment(EC))
      if (Cxx.empty() || It->path() > Cxx)
        Cxx = It->path();
    if (!Cxx.empty())
      for (const std::string &D : {Cxx, Cxx + "/" + Triple})
        if (llvm::sys::fs::is_directory(D)) {
          O.CompileFlags.push_back("-cxx-isystem");
          O.CompileFlags.push_back(D);
        }
    if (llvm::sys::fs::is_directory(Inc)) {
      O.CompileFlags.push_back("-isystem");
      O.CompileFlags.push_back(Inc);
    }
  }
  return O;
}

std::optional<std::vector<uint8_t>> perfmodel::parseHex(const std::string &Text,
                                                       std::string &Error) {
  std::vector<uint8_t> Out;
  std::string Digits;
  for (char C : Text) {
    if (isspace(static_cast<unsigned char>(C)) || C == ',')
      continue;
    if (!isxdigit(static_cast<unsigned char>(C))) {
      Error = std::string("'") + C + "' is not a hex digit";
      return std::nullopt;
    }
    Digits += C;
  }
  if (Digits.size() % 2) {
    Error = "odd number of hex digits";
    return std::nullopt;
  }
  if (Digits.empty()) {
    Error = "no bytes given";
    return std::nullopt;
  }
  for (size_t I = 0; I < Digits.size(); I += 2)
    Out.push_back(uint8_t(std::stoi(Digits.substr(I, 2), nullptr, 16)));
  return Out;
}

namespace {

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

/// The fraction of instruction C's executions that cross a cache line (its
/// width's share from the loop's streams; 0 when splits are free). Only
/// vector moves and arithmetic on the loop's streams: gathers, constants
/// (rip-relative) and stack slots are aligned or of their own kind.
double splitShare(const LineSplits &LS, const InstrCost &C) {
  if (!C.MayLoad && !C.MayStore)
    return 0;
  StringRef T(C.Text);
  if (C.gathersOrScatters() || T.contains("rip") || T.contains("[rsp") || T.contains("[rbp"))
    return 0;
  double Cost = C.MayStore ? LS.StoreCost : LS.LoadCost;
  return Cost > 1 ? LS.fractionOf(T, C.MayStore) : 0;
}

} // namespace

namespace {

/// Everything analyzeBlockBytes reads but the source lines: the bytes and
/// every option, numbers in exact hexadecimal.
std::string blockKey(const std::vector<uint8_t> &Bytes, const InCoreOptions &O) {
#if defined(__GLIBCXX__) && defined(__x86_64__)
  static_assert(sizeof(InCoreOptions) == 552 && sizeof(LineSplits) == 240 &&
                    sizeof(LineSplits::Stream) == 80,
                "an option was added: make blockKey write it");
#endif
  std::string Key(Bytes.begin(), Bytes.end());
  raw_string_ostream OS(Key);
  auto Num = [&](double V) { OS << format("%a,", V); };
  auto Str = [&](const std::string &S) { OS << S.size() << ':' << S; };
  OS << '|';
  Str(O.Triple);
  Str(O.Cpu);
  for (double V : {double(O.IssueWidth), double(O.Rob), double(O.SchedulerQueues),
                   double(O.LoadQueue), double(O.StoreQueue), O.CallReturnCycles,
                   double(O.LineBytes), O.LoadBytesPerCycle, O.StoreBytesPerCycle,
                   O.LoadSlotsPerCycle, O.VectorLoadSlots, double(O.Unrolled),
                   double(O.SameInitialRegisters), O.StoreForward, O.ForwardFail,
                   double(O.MaskedStoresForward),
                   double(O.ListSchedule)})
    Num(V);
  for (const auto &[Name, Size] : O.QueueSizes) {
    Str(Name);
    Num(Size);
  }
  OS << '|';
  for (const InstructionOverride &Ov : O.Overrides) {
    Str(Ov.Form);
    Num(Ov.LatencyCy.value_or(-1));
    Num(Ov.Uops.value_or(-1));
    for (const auto &[Port, Cy] : Ov.Ports) {
      Str(Port);
      Num(Cy);
    }
    OS << ';';
  }
  OS << '|';
  for (const auto &[Name, Cy] : O.CallCycles) {
    Str(Name);
    Num(Cy);
  }
  OS << '|';
  for (const std::string &F : O.CompileFlags)
    Str(F);
  const LineSplits &L = O.Splits;
  OS << '|';
  for (double V : {L.LoadCost, L.StoreCost, double(L.AssumedAlign), double(L.Granule)})
    Num(V);
  for (const auto *Fractions : {&L.Load, &L.Store})
    for (const auto &[Width, F] : *Fractions) {
      Num(Width);
      Num(F);
    }
  OS << '|';
  for (const auto *Fractions : {&L.LoadOfElement, &L.StoreOfElement})
    for (const auto &[Width, F] : *Fractions) {
      Num(Width.first);
      Num(Width.second);
      Num(F);
    }
  OS << '|';
  for (const LineSplits::Stream &S : L.Streams) {
    Str(S.Array);
    Str(S.Text);
    for (double V : {double(S.AlignBytes), double(S.Declared), S.Split32})
      Num(V);
  }
  return Key;
}

/// Blocks already analysed (a nest's body again at its sizes, a file's
/// copies of one kernel), up to about a hundred thousand instructions.
struct BlockMemo {
  std::mutex Lock;
  std::unordered_map<std::string, InCoreResult> Results;
  size_t Instructions = 0;
};

BlockMemo &blockMemo() {
  static BlockMemo M;
  return M;
}

} // namespace

static InCoreResult analyzeBlock(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                                  const std::vector<unsigned> &Lines);

InCoreResult perfmodel::analyzeBlockBytes(const std::vector<uint8_t> &Bytes,
                                          const InCoreOptions &O,
                                          const std::vector<unsigned> &Lines) {
  StageScope Timed(Stage::InCore);
  std::string Key = blockKey(Bytes, O);
  BlockMemo &Memo = blockMemo();
  std::optional<InCoreResult> R;
  {
    std::lock_guard<std::mutex> G(Memo.Lock);
    auto It = Memo.Results.find(Key);
    if (It != Memo.Results.end())
      R = It->second;
  }
  if (!R) {
    R = analyzeBlock(Bytes, O, Lines);
    std::lock_guard<std::mutex> G(Memo.Lock);
    if (Memo.Instructions > 100'000) {
      Memo.Results.clear();
      Memo.Instructions = 0;
    }
    Memo.Instructions += R->Instrs.size();
    Memo.Results.emplace(std::move(Key), *R);
    return std::move(*R);
  }
  // The same code at other lines (another copy of a kernel).
  for (InstrCost &C : R->Instrs)
    C.Line = C.Address < Lines.size() ? Lines[C.Address] : 0;
  return std::move(*R);
}

/// The block costed (analyzeBlockBytes without the memo).
static InCoreResult analyzeBlock(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                                 const std::vector<unsigned> &Lines) {
  InCoreResult R;
  R.Cpu = O.Cpu;
  R.Splits = O.Splits;
  const TargetBundle *Bundle = sharedBundle(O.Triple, O.Cpu, R.Reason);
  if (!Bundle)
    return R;
  const TargetBundle &TB = *Bundle;
  const MCSchedModel &SM = TB.STI->getSchedModel();
  if (!SM.hasInstrSchedModel()) {
    R.Reason = "LLVM 19 has no instruction scheduling model for CPU '" + O.Cpu + "'";
    return R;
  }
  PortMap PM(SM);
  R.Ports = PM.Names;
  R.PortUnits = PM.Units;

  // Decode.
  std::vector<MCInst> Insts;
  // x86 lock/rep prefixes decode as instructions of their own: they are
  // folded into the instruction they prefix (one instruction, its bytes).
  std::vector<bool> Locked;
  std::optional<std::pair<uint64_t, std::string>> Prefix;
  uint64_t Addr = 0;
  while (Addr < Bytes.size()) {
    MCInst Inst;
    uint64_t Size = 0;
    auto Status = TB.Dis->getInstruction(Inst, Size, ArrayRef<uint8_t>(Bytes).slice(Addr),
                                         Addr, nulls());
    if (Status != MCDisassembler::Success || Size == 0) {
      char Buf[64];
      snprintf(Buf, sizeof(Buf), "invalid instruction bytes at offset %llu (0x%02x)",
               (unsigned long long)Addr, Bytes[Addr]);
      R.Reason = Buf;
      return R;
    }
    InstrCost C;
    C.Address = Addr;
    C.Line = Addr < Lines.size() ? Lines[Addr] : 0;
    raw_string_ostream OS(C.Text);
    TB.IP->printInst(&Inst, Addr, "", *TB.STI, OS);
    OS.flush();
    C.Text = StringRef(C.Text).trim().str();
    for (char &Ch : C.Text)
      if (Ch == '\t')
        Ch = ' ';
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
    return R;
  }

  auto Fmt = [](double V) {
    char Buf[32];
    snprintf(Buf, sizeof(Buf), "%.3g", V);
    return std::string(Buf);
  };

  // Scheduling information per instruction.
  unsigned CPUID = SM.getProcessorID();
  std::vector<std::optional<MemRef>> Mem(Insts.size()); // x86 memory operands
  for (size_t I = 0; I < Insts.size(); ++I)
    Mem[I] = memRef(Insts[I], TB.MII->get(Insts[I].getOpcode()));
  std::vector<std::vector<RegDef>> Defs(Insts.size());
  std::vector<std::vector<RegUse>> Uses(Insts.size());
  std::vector<const MCSchedClassDesc *> Classes(Insts.size());
  std::vector<std::pair<std::vector<unsigned>, double>> AllDemands;
  std::vector<size_t> DemandOwner;
  // The ports of a plain load and a plain store: what a split access
  // occupies twice, and what the ECM model counts as data transfer.
  // Also the ports of a plain register add (where the stack engine's sync
  // uops go) and a plain load's latency (what a forwarded load replaces).
  std::vector<bool> LoadPort(PM.Names.size(), false), StorePort(PM.Names.size(), false);
  std::vector<unsigned> AluPorts;
  double LoadLatency = 5;
  for (StringRef Name : {"MOV64rm", "LDRXui", "MOV64mr", "STRXui", "ADD64rr"}) {
    std::optional<unsigned> Op = TB.opcode(Name);
    if (!Op)
      continue;
    bool Load = Name == "MOV64rm" || Name == "LDRXui", Store = Name == "MOV64mr" || Name == "STRXui";
    bool Alu = Name == "ADD64rr";
    const MCSchedClassDesc *SC = SM.getSchedClassDesc(TB.MII->get(*Op).getSchedClass());
    if (!SC || !SC->isValid() || SC->isVariant())
      continue;
    for (const auto &D : demandsOf(*TB.STI, SC, PM)) {
      if (Alu)
        AluPorts = D.first;
      else
        for (unsigned P : D.first)
          (Load ? LoadPort : StorePort)[P] = true;
    }
    if (Load)
      LoadLatency = std::max(0, MCSchedModel::computeInstrLatency(*TB.STI, *SC));
  }
  const LineSplits &LS = O.Splits;
  double SplitLoads = 0, SplitStores = 0; // per iteration
  // Intel cores this model knows: their front end, renamer and memory rules.
  const bool X86 = StringRef(O.Triple).starts_with("x86");
  const std::optional<decode::Config> Legacy = X86 ? decode::configFor(O.Cpu) : std::nullopt;
  std::vector<unsigned> Eliminated;
  std::vector<std::unique_ptr<FormMatcher>> Forms;
  for (const InstructionOverride &Ov : O.Overrides)
    Forms.push_back(std::make_unique<FormMatcher>(Ov.Form));
  for (size_t I = 0; I < Insts.size(); ++I) {
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
    if (Desc.isCall())
      R.Callees.emplace_back();
    if (!SC || !SC->isValid()) {
      R.Notes.push_back("'" + C.Text + "' has no scheduling information for " + O.Cpu +
                        "; counted as 1 uop with no port use");
      C.Uops = 1;
      Classes[I] = nullptr;
      continue;
    }
    Classes[I] = SC;
    C.Uops = SC->NumMicroOps;
    C.Latency = std::max(0, MCSchedModel::computeInstrLatency(*TB.STI, *SC));
    C.Demands = demandsOf(*TB.STI, SC, PM);
    // Register-to-register moves are eliminated at rename on Intel cores
    // from Ivy Bridge on: no execution port, no latency (uiCA; Intel's
    // optimization manual, "move elimination").
    if (Legacy && Legacy->MoveElimination) {
      StringRef Nm = TB.MII->getName(Inst.getOpcode());
      StringRef Op = Nm.starts_with("V") ? Nm.drop_front() : Nm;
      bool Move = Nm == "MOV64rr" || Nm == "MOV32rr" || Nm == "MOV64rr_REV" ||
                  Nm == "MOV32rr_REV" || Op.starts_with("MOVAPSrr") || Op.starts_with("MOVAPDrr") ||
                  Op.starts_with("MOVUPSrr") || Op.starts_with("MOVUPDrr") ||
                  Op.starts_with("MOVDQArr") || Op.starts_with("MOVDQUrr") ||
                  Op.starts_with("MOVAPSYrr") || Op.starts_with("MOVAPDYrr") ||
                  Op.starts_with("MOVDQAYrr") || Op.starts_with("MOVUPSYrr");
      if (Move) {
        C.Demands.clear();
        C.Latency = 0;
        Eliminated.push_back(unsigned(I));
      }
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
    double DefShift = 0;
    double ModelOpLatency =
        C.Latency - (C.MayLoad ? std::max(0, TB.STI->getReadAdvanceCycles(SC, 0, 0)) : 0);
    // Machine-file overrides: matched on the mnemonic and operand kinds.
    for (size_t OI = 0; OI < O.Overrides.size(); ++OI) {
      const InstructionOverride &Ov = O.Overrides[OI];
      if (Forms[OI]->matches(C.Text)) {
        if (Ov.LatencyCy) {
          DefShift = *Ov.LatencyCy - ModelOpLatency;
          C.Latency = std::max(0.0, C.Latency + DefShift);
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
    }
    if (double Split = splitShare(LS, C); Split > 0) {
      // A split access takes its load or store slots COST times. A pure
      // store (a move to memory) takes all of its slots so: the cost was
      // measured on a store stream whatever bound it, and where a vector
      // store's data path has fewer units than the store slots (Zen's one
      // FP store-data pipe beside two store units) that path binds the
      // stream and the split's second write.
      double Extra = Split * ((C.MayStore ? LS.StoreCost : LS.LoadCost) - 1);
      bool PureStore = C.MayStore && !C.MayLoad;
      for (auto &[Ports, Cy] : C.Demands) {
        const std::vector<bool> &Mem = C.MayStore ? StorePort : LoadPort;
        if (PureStore ||
            std::all_of(Ports.begin(), Ports.end(), [&](unsigned P) { return Mem[P]; }))
          Cy *= 1 + Extra;
      }
      (C.MayStore ? SplitStores : SplitLoads) += Split;
    }
    for (const auto &D : C.Demands) {
      AllDemands.push_back(D);
      DemandOwner.push_back(I);
    }

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
    Breaking |= Legacy && x86ZeroIdiom(TB.MII->getName(Inst.getOpcode()), Inst);
    if (Breaking)
      continue; // xor reg,reg and friends do not wait for their inputs
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

  // The stack engine tracks rsp's offset from push and pop; an instruction
  // that reads rsp itself first gets a synchronising uop (an ALU's), as does
  // an offset beyond 192 bytes. Counted in the second of two iterations.
  std::vector<unsigned> Sync(Insts.size(), 0);
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

  // Front end, in fused-domain uops: on x86 the load or store-address part of
  // an instruction with a memory operand is micro-fused with the rest, and a
  // flag-setting ALU op macro-fuses with the following jcc. Intel cores
  // un-laminate some micro-fused uops with an indexed address before rename
  // (Intel's optimization manual, "Unlamination"; Sandy/Ivy Bridge all of
  // them): they decode as one uop and issue as two. Applied to unrolled code
  // (BHive's blocks); loop bodies keep them fused until timed loops on an
  // Intel host show the effect there (docs/incore.md).
  unsigned MicroFused = 0, Unlaminated = 0;
  std::vector<unsigned> Issue(Insts.size(), 0);
  std::vector<decode::Instr> Decode(Insts.size());
  std::vector<unsigned> Lcps;
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
    StringRef Name = TB.MII->getName(Insts[I].getOpcode());
    for (StringRef F : {"CMP", "TEST", "ADD", "SUB", "AND", "INC", "DEC"})
      if (Name.starts_with(F) && Name.size() > F.size() && isDigit(Name[F.size()]) &&
          !C.MayStore && !(C.MayLoad && Name.contains("mi")))
        D.MacroFusible = true;
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
    // The decoders' rule (integer CMP/TEST/ADD/SUB/AND/INC/DEC by opcode, so
    // not addsd or andps); a flag-setter with a memory operand is issued
    // unfused.
    if (I > 0 && Desc.isConditionalBranch() && X86 && Decode[I - 1].MacroFusible &&
        !R.Instrs[I - 1].MayLoad && !R.Instrs[I - 1].MayStore) {
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
  unsigned Width = O.IssueWidth ? O.IssueWidth : Legacy ? Legacy->IssueWidth : SM.IssueWidth;
  R.FrontEndBound = Width ? double(R.Uops) / Width : 0;

  // Unrolled straight-line code comes through the legacy decoders: the
  // cycle each instruction's uops leave them, over the list schedule's run.
  std::vector<double> Delivered;
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
                        " call(s) and return(s) at " + Fmt(O.CallReturnCycles) +
                        " cy a pair (core.call_return_cy)");
    }
  }

  // Ports.
  R.PortBound = optimalBound(AllDemands, PM.Units);
  auto Share = assign(AllDemands, PM.Units);
  R.PortLoad.assign(PM.Names.size(), 0);
  for (InstrCost &C : R.Instrs)
    C.PortCycles.assign(PM.Names.size(), 0);
  for (size_t D = 0; D < AllDemands.size(); ++D)
    for (size_t P = 0; P < PM.Names.size(); ++P) {
      R.PortLoad[P] += Share[D][P];
      R.Instrs[DemandOwner[D]].PortCycles[P] += Share[D][P];
    }
  double Busiest = 0;
  for (size_t P = 0; P < PM.Names.size(); ++P)
    Busiest = std::max(Busiest, R.PortLoad[P] / PM.Units[P]);
  for (size_t P = 0; P < PM.Names.size(); ++P)
    if (Busiest > 0 && R.PortLoad[P] / PM.Units[P] >= Busiest * (1 - 1e-6))
      R.PortBottleneck += (R.PortBottleneck.empty() ? "" : ", ") + PM.Names[P];

  // ECM split: ports a plain load or store uses carry data transfers.
  std::vector<bool> MemPort(PM.Names.size(), false);
  for (size_t P = 0; P < MemPort.size(); ++P)
    MemPort[P] = LoadPort[P] || StorePort[P];
  for (size_t P = 0; P < PM.Names.size(); ++P)
    (MemPort[P] ? R.TnOL : R.TOL) =
        std::max(MemPort[P] ? R.TnOL : R.TOL, R.PortLoad[P] / PM.Units[P]);

  // The L1's data path, two bounds a port count does not see. Its bytes per
  // cycle: scheduling models count accesses per port, not their width
  // (LLVM's Zen 4 takes two 64-byte stores a cycle; its store path moves
  // 32 B); a split access moves its bytes COST times (a 32-byte stream with
  // every other access split: 0.98 cy per access on Zen 4, aligned 0.5,
  // (1 + 2.95) / 2 x 0.5). And integer and vector loads on shared pipes
  // (Zen 4: integer loads three a cycle, vector loads two 32-byte parts a
  // cycle, each part taking 1.5 of the three slots): their times add, so the
  // outer loop's reloads and address loads take cycles from a vector body's
  // loads; a split part takes the split cost.
  if (X86) {
    double Loaded = 0, Stored = 0, IntLoads = 0, VectorParts = 0;
    for (const InstrCost &C : R.Instrs) {
      if (!C.MayLoad && !C.MayStore)
        continue;
      StringRef T(C.Text);
      double Bytes = accessBytes(C.Text), Split = splitShare(LS, C);
      auto Grown = [&](double Cost) { return Split > 0 ? 1 + Split * (Cost - 1) : 1.0; };
      double B = Bytes * Grown(C.MayStore ? LS.StoreCost : LS.LoadCost);
      Loaded += C.MayLoad ? B : 0;
      Stored += C.MayStore ? B : 0;
      if (!C.MayLoad || C.gathersOrScatters())
        continue;
      if (!T.contains("mm")) // no xmm, ymm or zmm register
        ++IntLoads;
      else
        VectorParts += std::max(1.0, std::ceil(Bytes / 32.0)) * Grown(LS.LoadCost);
    }
    double LoadCy = O.LoadBytesPerCycle > 0 ? Loaded / O.LoadBytesPerCycle : 0;
    double StoreCy = O.StoreBytesPerCycle > 0 ? Stored / O.StoreBytesPerCycle : 0;
    double BytesCy = std::max(LoadCy, StoreCy);
    double MixCy = O.VectorLoadSlots > 0 && O.LoadSlotsPerCycle > 0 && IntLoads > 0 &&
                           VectorParts > 0
                       ? (IntLoads + VectorParts * O.VectorLoadSlots) / O.LoadSlotsPerCycle
                       : 0;
    double Bound = std::max(BytesCy, MixCy);
    if (Bound > R.PortBound + 1e-9) {
      char Buf[200];
      if (MixCy > BytesCy + 1e-9)
        snprintf(Buf, sizeof(Buf),
                 "load pipes (%g integer loads and %g 32-byte vector load parts per "
                 "iteration, %g slots each, %g slots a cycle)",
                 IntLoads, VectorParts, O.VectorLoadSlots, O.LoadSlotsPerCycle);
      else
        snprintf(Buf, sizeof(Buf), "L1 %s bytes (%g B per iteration at %g B/cy)",
                 StoreCy >= LoadCy ? "store" : "load", StoreCy >= LoadCy ? Stored : Loaded,
                 StoreCy >= LoadCy ? O.StoreBytesPerCycle : O.LoadBytesPerCycle);
      R.PortBound = Bound;
      R.PortBottleneck = Buf;
      R.Notes.push_back(std::string("the ") + Buf + " bind before the ports do");
    }
    R.TnOL = std::max(R.TnOL, Bound);
  }

  // Loop-carried recurrence: longest path from each instruction to its copy
  // in the next iteration, over register dependences (two iterations laid
  // out in program order).
  size_t N = Insts.size();
  using Edge = SchedEdge; // From: a position in the 2N sequence
  std::vector<std::vector<Edge>> In(2 * N);
  // Fast pointer chasing (Sandy Bridge to Skylake): a load whose address is
  // a register plus a displacement below 2 KiB, the register loaded by a
  // plain load, returns a cycle early (uiCA's rule, from measurements).
  std::vector<unsigned> FastChase(N, 0); // the base register of such a load
  std::vector<bool> ChaseSource(N, false);
  if (Legacy && Legacy->FastPointerChasing)
    for (size_t I = 0; I < N; ++I) {
      StringRef Nm = TB.MII->getName(Insts[I].getOpcode());
      ChaseSource[I] = Nm == "MOV64rm" || Nm == "MOV32rm" || Nm == "MOVSX64rm32" || Nm == "POP64r";
      if (!R.Instrs[I].MayLoad)
        continue;
      if (const std::optional<MemRef> &M = Mem[I];
          M && M->Base && !M->Index && !M->Segment && M->Disp >= 0 && M->Disp < 2048)
        FastChase[I] = M->Base;
    }
  {
    // The last writer of an overlapping register before each use: the
    // latest definition of any of its register units (a long nest trace
    // would make a backward search per use quadratic).
    std::map<unsigned, std::pair<size_t, size_t>> LastDef; // unit -> (position, def)
    for (size_t Pos = 0; Pos < 2 * N; ++Pos) {
      size_t I = Pos % N;
      for (const RegUse &U : Uses[I]) {
        const std::pair<size_t, size_t> *Last = nullptr;
        for (MCRegUnit Unit : TB.MRI->regunits(U.Reg)) {
          auto It = LastDef.find(Unit);
          if (It != LastDef.end() && (!Last || It->second.first > Last->first))
            Last = &It->second;
        }
        if (!Last)
          continue;
        const RegDef &D = Defs[Last->first % N][Last->second];
        double Lat = D.Latency;
        if (Classes[I])
          Lat -= TB.STI->getReadAdvanceCycles(Classes[I], U.UseIdx, D.WriteResID);
        if (FastChase[I] && U.Reg == FastChase[I] && ChaseSource[Last->first % N])
          Lat -= 1;
        // A folded load's ReadAdvance may exceed its producer's latency
        // (a 3-cycle add feeding `vaddsd xmm1, xmm1, [mem]`, 7 on znver3):
        // the load starts before the register is ready and the operation
        // follows the register by its own latency, so the edge may be
        // negative; the consumer still waits for its dispatch and ports.
        In[Pos].push_back({Last->first, Lat});
      }
      for (size_t DI = 0; DI < Defs[I].size(); ++DI)
        for (MCRegUnit Unit : TB.MRI->regunits(Defs[I][DI].Reg))
          LastDef[Unit] = {Pos, DI};
    }
  }
  // Memory: a load whose bytes a store in this or the previous iteration
  // wrote gets them by store-to-load forwarding when the store covers it
  // (the value StoreForward cycles after the store's data), else after the
  // store commits (ForwardFail). A read-modify-write instruction's data is
  // ready a load and an operation after it starts. ForwardFail counts from
  // when the store can commit.
  std::vector<MemAccess> Access =
      X86 ? abstractAccesses(Insts, R.Instrs, TB, O.SameInitialRegisters)
          : std::vector<MemAccess>(2 * N);
  unsigned Forwarded = 0, Failed = 0, MaskedFailed = 0;
  std::vector<bool> ThroughMemory(N, false); // loads that read a store of the block
  double StoreForward = O.StoreForward ? O.StoreForward : Legacy ? Legacy->StoreForward : 5;
  // Stores by the base of their address, in program order: a load looks
  // only at stores of its own base (nest traces have thousands of accesses).
  std::map<int64_t, std::vector<size_t>> StoresOf;
  for (size_t Pos = 0; Pos < 2 * N; ++Pos)
    if (R.Instrs[Pos % N].MayStore && Access[Pos].Known)
      StoresOf[Access[Pos].Base].push_back(Pos);
  for (size_t Pos = 0; Pos < 2 * N; ++Pos) {
    size_t I = Pos % N;
    if (!R.Instrs[I].MayLoad || !Access[Pos].Known)
      continue;
    auto Same = StoresOf.find(Access[Pos].Base);
    if (Same == StoresOf.end())
      continue;
    const std::vector<size_t> &Stores = Same->second;
    for (auto It = std::lower_bound(Stores.begin(), Stores.end(), Pos); It != Stores.begin();) {
      size_t PPos = *--It, P = PPos % N;
      if (Pos - PPos > N)
        break; // beyond the previous iteration
      if (!overlaps(Access[PPos], Access[Pos], O.SameInitialRegisters))
        continue;
      bool Masked = Access[PPos].Masked && !O.MaskedStoresForward;
      bool Covered = !Masked && covers(Access[PPos], Access[Pos], O.SameInitialRegisters);
      MaskedFailed += Masked && Pos >= N;
      double DataDelay = R.Instrs[P].MayLoad ? LoadLatency + 1 : 0;
      double Lat = DataDelay + (Covered ? StoreForward : O.ForwardFail) - LoadLatency;
      // May be negative: a forwarded value can arrive sooner than the
      // load-use latency the load's consumers are charged.
      In[Pos].push_back({PPos, Lat});
      // The store commits only once every older instruction has completed.
      if (!Covered)
        for (size_t X = Pos >= N ? Pos - N : 0; X < PPos; ++X)
          In[Pos].push_back(
              {X, std::max(0.0, R.Instrs[X % N].Latency + O.ForwardFail - LoadLatency)});
      ThroughMemory[I] = true;
      bool Once = Pos >= N; // each pair once: the load in the second iteration
      (Covered ? Forwarded : Failed) += Once;
      break;
    }
  }
  // Locked read-modify-writes (lock-prefixed, xchg with memory) are full
  // barriers: each waits for the one before to complete.
  unsigned Locks = unsigned(std::count(Locked.begin(), Locked.end(), true));
  if (Locks && Legacy) {
    for (size_t Pos = 0; Pos < 2 * N; ++Pos) {
      if (!Locked[Pos % N])
        continue;
      for (size_t Back = 1; Back <= N && Back <= Pos; ++Back)
        if (Locked[(Pos - Back) % N]) {
          In[Pos].push_back({Pos - Back, Legacy->LockedCycles});
          break;
        }
    }
    R.Notes.push_back(std::to_string(Locks) + " locked instruction(s) (lock prefix, xchg with "
                      "memory): each a barrier of " + Fmt(Legacy->LockedCycles) + " cy");
  }
  if (Forwarded)
    R.Notes.push_back(std::to_string(Forwarded) +
                      " load(s) read what a store in the loop wrote to the same "
                      "address: store-to-load forwarding, " + Fmt(StoreForward) +
                      " cy from the store's data");
  if (Failed > MaskedFailed)
    R.Notes.push_back(std::to_string(Failed - MaskedFailed) +
                      " load(s) partly overlap an earlier store: forwarding fails, the load "
                      "waits " + Fmt(O.ForwardFail) + " cy for the store to commit");
  if (MaskedFailed)
    R.Notes.push_back(std::to_string(MaskedFailed) +
                      " load(s) read what a masked store wrote: masked stores do not forward "
                      "on this core (core.masked_stores_forward), the load waits " +
                      Fmt(O.ForwardFail) + " cy for the store to commit");

  std::vector<double> OwnCycle(N, 0);
  // Only an instruction whose value reaches the next iteration at all can
  // reach its own copy there (a nest trace's loads and stores mostly do
  // not): edges go forward, so one backward sweep finds them.
  std::vector<bool> ReachesNext(2 * N, false);
  for (size_t Pos = 2 * N; Pos-- > 0;) {
    if (Pos >= N)
      ReachesNext[Pos] = true;
    if (ReachesNext[Pos])
      for (const Edge &E : In[Pos])
        ReachesNext[E.From] = true;
  }
  // Longest paths pushed forward from the positions reached (edges go
  // forward, so a position is final when it is reached in order); on a tie
  // the edge listed first in In wins, as a pull over In would pick it.
  struct Out {
    size_t To, Index; ///< the consumer's position; the edge's place in In[To]
    double Lat;
  };
  std::vector<std::vector<Out>> Outs(2 * N);
  for (size_t Pos = 0; Pos < 2 * N; ++Pos)
    for (size_t K = 0; K < In[Pos].size(); ++K)
      Outs[In[Pos][K].From].push_back({Pos, K, In[Pos][K].Lat});
  std::vector<double> Dist(2 * N, -1);
  std::vector<size_t> Prev(2 * N, SIZE_MAX), PrevIndex(2 * N, SIZE_MAX);
  for (size_t Start = 0; Start < N; ++Start) {
    if (!ReachesNext[Start])
      continue; // no path to its copy: OwnCycle 0, no chain
    std::fill(Dist.begin() + Start, Dist.begin() + Start + N + 1, -1.0);
    std::fill(Prev.begin() + Start, Prev.begin() + Start + N + 1, SIZE_MAX);
    Dist[Start] = 0;
    for (size_t Pos = Start; Pos < Start + N; ++Pos) {
      if (Dist[Pos] < 0)
        continue;
      for (const Out &E : Outs[Pos]) {
        if (E.To > Start + N)
          continue;
        double Via = Dist[Pos] + E.Lat;
        if (Via > Dist[E.To] ||
            (Via == Dist[E.To] && Prev[E.To] != SIZE_MAX && E.Index < PrevIndex[E.To])) {
          Dist[E.To] = Via;
          Prev[E.To] = Pos;
          PrevIndex[E.To] = E.Index;
        }
      }
    }
    OwnCycle[Start] = std::max(0.0, Dist[Start + N]);
    if (Dist[Start + N] > R.RecurrenceBound) {
      R.RecurrenceBound = Dist[Start + N];
      R.CriticalChain.clear();
      for (size_t Pos = Prev[Start + N]; Pos != SIZE_MAX && Pos >= Start; Pos = Prev[Pos]) {
        R.CriticalChain.push_back(unsigned(Pos % N));
        if (Pos == Start)
          break;
      }
      std::reverse(R.CriticalChain.begin(), R.CriticalChain.end());
    }
  }

  // Loads the chain reaches through their address registers.
  for (size_t K = 0; K < R.CriticalChain.size(); ++K) {
    unsigned Cur = R.CriticalChain[K];
    unsigned Prev = R.CriticalChain[(K + R.CriticalChain.size() - 1) % R.CriticalChain.size()];
    if (!R.Instrs[Cur].MayLoad || !Mem[Cur])
      continue;
    bool Feeds = false;
    for (const RegDef &D : Defs[Prev])
      Feeds |= (Mem[Cur]->Base && TB.MRI->regsOverlap(D.Reg, Mem[Cur]->Base)) ||
               (Mem[Cur]->Index && TB.MRI->regsOverlap(D.Reg, Mem[Cur]->Index));
    R.ChainAddressLoads += Feeds;
  }

  // Verdict.
  R.Cycles = std::max({R.PortBound, R.FrontEndBound, R.RecurrenceBound});
  SchedQueues Q;
  if (O.Rob && O.SchedulerQueues) { // the window model: queues next to the ROB
    std::vector<std::vector<unsigned>> Leaves;
    for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I)
      if (const MCProcResourceDesc *D = SM.getProcResource(I); D->BufferSize > 0) {
        auto Given = O.QueueSizes.find(D->Name);
        Q.Size.push_back(Given != O.QueueSizes.end() ? Given->second : unsigned(D->BufferSize));
        Q.UntilRetire.push_back(false);
        Leaves.push_back(PM.Leaves[I]);
      }
    Q.Schedulers = !Q.Size.empty();
    Q.Of.resize(N);
    for (size_t I = 0; I < N; ++I)
      for (size_t B = 0; B < Leaves.size(); ++B)
        if (std::any_of(R.Instrs[I].Demands.begin(), R.Instrs[I].Demands.end(),
                        [&](const auto &D) { return subset(D.first, Leaves[B]); }))
          Q.Of[I].push_back(unsigned(B));
  }
  if (O.Rob) { // the load and store queues, entries held until retirement
    Q.Of.resize(N);
    for (auto [Size, Store] : {std::pair{O.LoadQueue, false}, std::pair{O.StoreQueue, true}}) {
      if (!Size)
        continue;
      unsigned B = unsigned(Q.Size.size());
      Q.Size.push_back(Size);
      Q.UntilRetire.push_back(true);
      for (size_t I = 0; I < N; ++I)
        if (Store ? R.Instrs[I].MayStore : R.Instrs[I].MayLoad)
          Q.Of[I].push_back(B);
    }
  }
  ScheduleInput SI;
  SI.Instrs = &R.Instrs;
  SI.PortUnits = &R.PortUnits;
  SI.In = &In;
  SI.Width = Width;
  SI.Rob = O.Rob;
  SI.Queues = &Q;
  SI.Issue = &Issue;
  SI.Deliver = Delivered.empty() ? nullptr : &Delivered;
  R.ScheduledCycles = O.ListSchedule ? listSchedule(SI) : 0;
  if (R.ScheduledCycles > R.Cycles * 1.05 + 0.05) {
    char Sched[32];
    snprintf(Sched, sizeof(Sched), "%.3g", R.ScheduledCycles);
    R.Notes.push_back(std::string("the body's list schedule needs ") + Sched +
                      " cy per iteration, more than the analytic bound: a microcoded "
                      "instruction holding one unit (the bound spreads its cycles over "
                      "every unit it may use), greedy port choices, or a recurrence "
                      "and the ports competing leave slots unused");
  }
  // On a tie the ports win: more independent chains would not help.
  if (R.Cycles == R.RecurrenceBound && R.RecurrenceBound > R.PortBound &&
      R.RecurrenceBound > 0) {
    R.Bottleneck = "recurrence";
    std::string Chain;
    for (unsigned Idx : R.CriticalChain)
      Chain += (Chain.empty() ? "" : " -> ") + R.Instrs[Idx].Text;
    double Other = std::max(R.PortBound, R.FrontEndBound);
    // Parallel chains like the critical one (same instruction, same cycle
    // length): together they need Chains x Rec / Other independent chains.
    unsigned Chains = 0;
    if (!R.CriticalChain.empty()) {
      StringRef Head = StringRef(R.Instrs[R.CriticalChain.front()].Text).split(' ').first;
      for (size_t I = 0; I < N; ++I)
        if (std::fabs(OwnCycle[I] - R.RecurrenceBound) < 1e-9 &&
            StringRef(R.Instrs[I].Text).split(' ').first == Head)
          ++Chains;
    }
    // Instructions of that kind on the critical cycle itself are one chain.
    unsigned OnChain = 0;
    if (!R.CriticalChain.empty()) {
      StringRef Head = StringRef(R.Instrs[R.CriticalChain.front()].Text).split(' ').first;
      for (unsigned Idx : R.CriticalChain)
        OnChain += StringRef(R.Instrs[Idx].Text).split(' ').first == Head;
    }
    Chains = std::max(1u, OnChain ? Chains / OnChain : Chains);
    unsigned Needed =
        Other > 0 ? unsigned(std::ceil(Chains * R.RecurrenceBound / Other - 1e-9)) : 0;
    R.Advice = "loop-carried dependence chain of " + Fmt(R.RecurrenceBound) +
               " cy per iteration (" + Chain + ")";
    bool ThroughLock = llvm::any_of(R.CriticalChain, [&](unsigned I) { return Locked[I]; });
    bool ThroughStore =
        !ThroughLock && llvm::any_of(R.CriticalChain, [&](unsigned I) { return ThroughMemory[I]; });
    if (ThroughStore) {
      Needed = 0;
      R.Advice += ": the chain goes through memory (a store and a load of the same place "
                  "every iteration); keep the value in a register";
    }
    if (ThroughLock) {
      Needed = 0; // more chains do not help: every locked instruction waits for the last
      R.Advice += ": locked instructions serialise memory; keep partial results per "
                  "thread and combine them once instead of a locked update per iteration";
    }
    if (Chains > 1)
      R.Advice += ", " + std::to_string(Chains) + " such chains in parallel";
    if (Needed > Chains)
      R.Advice += ": use " + std::to_string(Needed) +
                  " independent chains (accumulators) to reach the " + Fmt(Other) +
                  " cy per iteration the " +
                  (R.PortBound >= R.FrontEndBound ? "ports allow" : "front end allows");
  } else if (R.Cycles == R.PortBound) {
    R.Bottleneck = "ports";
    R.Advice = "port-bound on " + R.PortBottleneck + " (" + Fmt(R.PortBound) +
               " cy per iteration): remove work from " +
               (R.PortBottleneck.find(',') != std::string::npos ? "these ports" : "this port");
    if (StringRef(R.PortBottleneck).starts_with("L1 "))
      R.Advice = "bound by the " + R.PortBottleneck + ": " + Fmt(R.PortBound) +
                 " cy per iteration; fewer bytes moved per iteration (narrower types, "
                 "values kept in registers) help, wider vectors do not";
    else if (StringRef(R.PortBottleneck).starts_with("load pipes "))
      R.Advice = "bound by the " + R.PortBottleneck + ": " + Fmt(R.PortBound) +
                 " cy per iteration; integer loads beside vector loads take their slots: "
                 "fewer reloads (spilled pointers and counters, loop-invariant values kept "
                 "in registers) or fewer vector bytes loaded help";
  } else {
    R.Bottleneck = "front end";
    R.Advice = "issue-bound: " + std::to_string(R.Uops) + " uops at " +
               std::to_string(Width) + " per cycle; fewer instructions per iteration help";
    if (R.CallReturnBound > 0 && R.CallReturnBound >= R.FrontEndBound - 1e-9)
      R.Advice = "call-bound: each call and return takes " + Fmt(O.CallReturnCycles) +
                 " cy; let the compiler inline the callee (no noinline, static inline or "
                 "visible at the call) or call it once for many elements";
    else if (R.DecodeBound > 0 && R.DecodeBound >= R.FrontEndBound - 1e-9)
      R.Advice = "decode-bound: the legacy decoders need " + Fmt(R.DecodeBound) +
                 " cy per iteration" +
                 (Lcps.empty() ? std::string(": fewer or shorter instructions (16 bytes are "
                                             "predecoded a cycle)")
                               : ": length-changing prefixes stall the predecoder; use "
                                 "32-bit operations or 8-bit immediates instead of 16-bit "
                                 "immediates");
  }
  R.Classes = instrClasses(R.Instrs);
  R.Ok = true;
  return R;
}

bool perfmodel::overrideMatches(const std::string &Form, llvm::StringRef Text) {
  return FormMatcher(Form).matches(Text);
}

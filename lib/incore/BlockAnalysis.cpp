//===- BlockAnalysis.cpp - Cost a block on LLVM's scheduling model --------===//
//
// The in-core library's entry points for a block of machine code: options
// from a machine model, hex parsing, a memo of blocks already costed, and
// analyzeBlock, which runs the steps of Block.h in order.
//
//===----------------------------------------------------------------------===//
#include "Block.h"
#include "perfmodel/MachineRegistry.h"
#include "perfmodel/StageTimes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

using namespace perfmodel;
using namespace llvm;

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
  O.FetchLineBytes = M.Core.FetchLineBytes;
  O.MaskedStoresForward = M.Core.MaskedStoresForward;
  if (M.Core.ForwardFailCycles > 0)
    O.ForwardFail = M.Core.ForwardFailCycles;
  O.StoreForward = M.Core.StoreForwardCycles;
  O.StoreForwardVector = M.Core.StoreForwardVectorCycles;
  O.VectorMemoryRoundTrip = M.Core.VectorMemoryRoundTrip;
  O.QueueSizes = M.Core.SchedulerQueues;
  O.QueueAlsoHolds = M.Core.QueueAlsoHolds;
  O.PortUnits = M.Core.PortUnits;
  O.FrontEnd = M.Core.FrontEnd;
  O.LoadQueue = M.Core.LoadQueue;
  O.StoreQueue = M.Core.StoreQueue;
  O.LoadBytesPerCycle = M.Core.LoadBytesPerCycle;
  O.StoreBytesPerCycle = M.Core.StoreBytesPerCycle;
  O.L1BytesPerCycle = M.Core.L1BytesPerCycle;
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





} // namespace

namespace {

/// Everything analyzeBlockBytes reads but the source lines: the bytes and
/// every option, numbers in exact hexadecimal (FetchLineBytes and
/// FunctionAddresses place a nest's code, which a block's cost never reads).
std::string blockKey(const std::vector<uint8_t> &Bytes, const InCoreOptions &O) {
#if defined(__GLIBCXX__) && defined(__x86_64__)
  static_assert(sizeof(InCoreOptions) == 840 && sizeof(LineSplits) == 240 &&
                    sizeof(LineSplits::Stream) == 80,
                "an option was added: make blockKey write it");
#endif
  std::string Key(Bytes.begin(), Bytes.end());
  raw_string_ostream OS(Key);
  // A number's 8 bytes: exact, and no printf per number (a key has a few
  // hundred, and a nest's replays make thousands of keys).
  auto Num = [&](double V) {
    char B[sizeof(double)];
    std::memcpy(B, &V, sizeof(B));
    OS.write(B, sizeof(B));
  };
  auto Str = [&](const std::string &S) { OS << S.size() << ':' << S; };
  OS << '|';
  Str(O.Triple);
  Str(O.Cpu);
  for (double V : {double(O.IssueWidth), double(O.Rob), double(O.SchedulerQueues),
                   double(O.LoadQueue), double(O.StoreQueue), O.CallReturnCycles,
                   double(O.LineBytes), O.LoadBytesPerCycle, O.StoreBytesPerCycle,
                   O.L1BytesPerCycle,
                   O.LoadSlotsPerCycle, O.VectorLoadSlots, double(O.Unrolled),
                   double(O.SameInitialRegisters), O.StoreForward.value_or(-1),
                   O.StoreForwardVector.value_or(-1),
                   O.VectorMemoryRoundTrip, O.ForwardFail,
                   double(O.MaskedStoresForward),
                   double(O.ListSchedule), double(O.DeferBodySchedule)})
    Num(V);
  for (const auto &[Name, Size] : O.QueueSizes) {
    Str(Name);
    Num(Size);
  }
  OS << '|';
  for (const auto &[Name, Units] : O.PortUnits) {
    Str(Name);
    Num(Units);
  }
  OS << '|';
  for (const auto &[Name, Also] : O.QueueAlsoHolds) {
    Str(Name);
    Num(double(Also.size()));
    for (const std::string &A : Also)
      Str(A);
  }
  OS << '|';
  if (const std::optional<FrontEndModel> &F = O.FrontEnd) {
    for (double V : {double(F->PredecodeWidth), double(F->PredecodeBlock), double(F->LcpPenalty),
                     double(F->Decoders), double(F->IqSize), double(F->PredecodeDecodeDelay),
                     double(F->IssueWidth), double(F->FastChaseBelow), F->StoreForward,
                     F->LockedCycles, double(F->LsdUops), double(F->DsbWidth),
                     double(F->DsbWindowBytes), double(F->FusibleInLastDecoder),
                     double(F->UnlaminateAllIndexed), double(F->MoveElimination)})
      Num(V);
    Num(double(F->LsdUnroll.size()));
    for (unsigned U : F->LsdUnroll)
      Num(U);
  }
  OS << '|';
  for (const InstructionOverride &Ov : O.Overrides) {
    Str(Ov.Form);
    Num(Ov.LatencyCy.value_or(-1));
    Num(Ov.Uops.value_or(-1));
    Str(Ov.BypassGroup);
    Num(Ov.LatencyOutsideCy.value_or(-1));
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
  // Each list with its length: Load = {x} and Store = {x} are other keys.
  for (const auto *Fractions : {&L.Load, &L.Store}) {
    Num(double(Fractions->size()));
    for (const auto &[Width, F] : *Fractions) {
      Num(Width);
      Num(F);
    }
  }
  OS << '|';
  for (const auto *Fractions : {&L.LoadOfElement, &L.StoreOfElement}) {
    Num(double(Fractions->size()));
    for (const auto &[Width, F] : *Fractions) {
      Num(Width.first);
      Num(Width.second);
      Num(F);
    }
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
                                  const std::vector<unsigned> &Lines, bool Figures);

/// analyzeBlockBytes, or with FIGURES only its figures: a nest's trace of
/// a thousand instructions is kept and copied without its table.
static InCoreResult analyzeMemo(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                                const std::vector<unsigned> &Lines, bool Figures) {
  StageScope Timed(Stage::InCore);
  std::string Key = blockKey(Bytes, O);
  Key += Figures ? 'F' : 'T';
  BlockMemo &Memo = blockMemo();
  std::optional<InCoreResult> R;
  {
    std::lock_guard<std::mutex> G(Memo.Lock);
    auto It = Memo.Results.find(Key);
    if (It != Memo.Results.end())
      R = It->second;
  }
  if (!R) {
    R = analyzeBlock(Bytes, O, Lines, Figures);
    if (Figures) {
      R->Instrs = {};
      R->CriticalChain = {};
    }
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

InCoreResult perfmodel::analyzeBlockBytes(const std::vector<uint8_t> &Bytes,
                                          const InCoreOptions &O,
                                          const std::vector<unsigned> &Lines) {
  return analyzeMemo(Bytes, O, Lines, false);
}

InCoreResult perfmodel::analyzeBlockFigures(const std::vector<uint8_t> &Bytes,
                                            const InCoreOptions &O,
                                            const std::vector<unsigned> &Lines) {
  return analyzeMemo(Bytes, O, Lines, true);
}

/// The block costed (analyzeBlockBytes without the memo): the steps of
/// Block.h in order.
static InCoreResult analyzeBlock(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                                 const std::vector<unsigned> &Lines, bool Figures) {
  InCoreResult R;
  R.Cpu = O.Cpu;
  R.Splits = O.Splits;
  const TargetBundle *Bundle = sharedBundle(O.Triple, O.Cpu, R.Reason);
  if (!Bundle)
    return R;
  if (!Bundle->STI->getSchedModel().hasInstrSchedModel()) {
    R.Reason = "LLVM 19 has no instruction scheduling model for CPU '" + O.Cpu + "'";
    return R;
  }
  block::Block B(Bytes, O, Lines, *Bundle, R);
  B.FiguresOnly = Figures;
  if (!B.decode())
    return R;
  B.plainPorts();
  // A nest's trace repeats its body: an instruction of the same bytes and
  // text as one costed before costs as that one did (nothing either step
  // reads depends on its place). Those that added notes or callees are
  // costed again, so that each copy adds its own.
  std::unordered_map<std::string, size_t> Costed;
  for (size_t I = 0; I < B.Insts.size(); ++I) {
    const InstrCost &C = R.Instrs[I];
    uint64_t End = I + 1 < R.Instrs.size() ? R.Instrs[I + 1].Address : Bytes.size();
    std::string Key(Bytes.begin() + C.Address, Bytes.begin() + End);
    Key += '\0';
    Key += C.Text;
    if (auto It = Costed.find(Key); It != Costed.end()) {
      B.copyCost(I, It->second);
      continue;
    }
    size_t Notes = R.Notes.size(), Callees = R.Callees.size();
    double DefShift = 0;
    bool Ok = B.costInstruction(I, DefShift);
    if (Ok)
      B.registersOf(I, DefShift);
    if (Ok && R.Notes.size() == Notes && R.Callees.size() == Callees)
      Costed.emplace(std::move(Key), I);
  }
  B.stackSync();
  B.issueUops();
  B.frontEndLimits();
  B.portBound();
  B.l1DataPath();
  B.registerEdges();
  B.memoryEdges();
  B.recurrence();
  B.schedule();
  B.verdict();
  R.Classes = block::instrClasses(R.Instrs);
  R.Ok = true;
  return R;
}

block::Block::Block(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                    const std::vector<unsigned> &Lines, const TargetBundle &TB,
                    InCoreResult &R)
    : Bytes(Bytes), O(O), Lines(Lines), TB(TB), SM(TB.STI->getSchedModel()), PM(SM, O.PortUnits), R(R),
      LS(O.Splits), CPUID(SM.getProcessorID()), X86(StringRef(O.Triple).starts_with("x86")),
      Legacy(!X86 ? std::nullopt : O.FrontEnd ? O.FrontEnd : libraryFrontEnd(O.Cpu)),
      Overrides(OverrideIndex::of(O.Overrides)) {
  R.Ports = PM.Names;
  R.PortUnits = PM.Units;
}


bool perfmodel::overrideMatches(const std::string &Form, llvm::StringRef Text) {
  return block::FormMatcher(Form).matches(Text);
}

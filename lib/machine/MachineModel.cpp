//===- MachineModel.cpp - Load and validate machine YAML -----------------===//
//
// The reader walks the YAML tree once, remembering the dotted key path of each
// value so every message can name file:line and key. --set overrides are
// applied to the tree before validation; values they introduce have no line in
// the file, so their messages name the override instead.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/MachineModel.h"
#include "perfmodel/MachineRegistry.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

using namespace perfmodel;

std::string MachineDiag::str() const {
  std::string S = File;
  if (Line)
    S += ":" + std::to_string(Line) + ":" + std::to_string(Column);
  S += Severity == Kind::Error ? ": error: " : ": warning: ";
  if (!Key.empty())
    S += Key + ": ";
  return S + Message;
}

std::optional<double> MachineModel::libraryCyclesPerByte(const std::string &Function,
                                                         const std::string &Level) const {
  bool Copy = Function == "memcpy" || Function == "memmove";
  if (!Copy && Function != "memset")
    return std::nullopt;
  if (Level == "MEM") {
    std::optional<double> GBs = Copy ? Memory.MemcpyOneCoreGBs : Memory.MemsetOneCoreGBs;
    if (!GBs || *GBs <= 0 || ClockGHz <= 0)
      return std::nullopt;
    return ClockGHz / *GBs;
  }
  const auto &Rates = Copy ? Core.MemcpyBytesPerCycle : Core.MemsetBytesPerCycle;
  auto It = Rates.find(Level);
  if (It == Rates.end() || It->second <= 0)
    return std::nullopt;
  return 1 / It->second;
}

const CacheLevel *MachineModel::cache(const std::string &LevelName) const {
  for (const CacheLevel &C : Caches)
    if (C.Name == LevelName)
      return &C;
  return nullptr;
}

std::optional<uint64_t> perfmodel::parseByteSize(const std::string &Text,
                                                 std::string &Error) {
  llvm::StringRef S = llvm::StringRef(Text).trim();
  size_t NumEnd = 0;
  while (NumEnd < S.size() && (isdigit(S[NumEnd]) || S[NumEnd] == '.'))
    ++NumEnd;
  llvm::StringRef Num = S.substr(0, NumEnd), Unit = S.substr(NumEnd).trim();
  double Value;
  if (Num.empty() || Num.getAsDouble(Value)) {
    Error = "expected a size such as 32KiB, got '" + Text + "'";
    return std::nullopt;
  }
  static const std::pair<const char *, uint64_t> Units[] = {
      {"B", 1}, {"KiB", 1ull << 10}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30},
      {"TiB", 1ull << 40}};
  if (Unit.empty()) {
    Error = "size '" + Text + "' needs a unit (B, KiB, MiB, GiB)";
    return std::nullopt;
  }
  for (const auto &[Name, Mult] : Units) {
    if (Unit != Name)
      continue;
    double Bytes = Value * double(Mult);
    if (Bytes != std::floor(Bytes) || Bytes > 9.0e15) {
      Error = "size '" + Text + "' is not a whole number of bytes";
      return std::nullopt;
    }
    return uint64_t(Bytes);
  }
  if (Unit.equals_insensitive("KB") || Unit.equals_insensitive("MB") ||
      Unit.equals_insensitive("GB") || Unit.equals_insensitive("K") ||
      Unit.equals_insensitive("M") || Unit.equals_insensitive("G"))
    Error = "size '" + Text + "': use binary units (KiB, MiB, GiB), which is "
            "what cache sizes mean";
  else
    Error = "size '" + Text + "' has unknown unit '" + Unit.str() +
            "' (use B, KiB, MiB, GiB)";
  return std::nullopt;
}

std::vector<FpUnit> CoreModel::fpPipes() const {
  if (!FpUnits.empty())
    return FpUnits;
  unsigned N = FmaUnits;
  if (!N && pipeBits() >= 64)
    N = unsigned(std::lround(PeakFlopsPerCycleDouble / (pipeBits() / 64.0)));
  return std::vector<FpUnit>(std::max(N, 1u), FpUnit{true, true, FmaUnits > 0});
}

std::optional<double> CoreModel::fpMixCycles(double Add, double Mul, double Fma) const {
  std::vector<FpUnit> Units = fpPipes();
  double Need[3] = {Add, Mul, Fma};
  double Worst = 0;
  for (unsigned S = 1; S < 8; ++S) { // every set of kinds, exact for three
    double Ops = 0;
    unsigned Able = 0;
    for (unsigned K = 0; K < 3; ++K)
      if (S & (1u << K))
        Ops += Need[K];
    if (Ops == 0)
      continue;
    for (const FpUnit &U : Units)
      Able += ((S & 1) && U.Add) || ((S & 2) && U.Mul) || ((S & 4) && U.Fma);
    if (!Able)
      return std::nullopt;
    Worst = std::max(Worst, Ops / Able);
  }
  return Worst;
}

std::string perfmodel::formatByteSize(uint64_t Bytes) {
  static const char *Names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  unsigned U = 0;
  while (U < 4 && Bytes != 0 && Bytes % 1024 == 0) {
    Bytes /= 1024;
    ++U;
  }
  return std::to_string(Bytes) + Names[U];
}

bool perfmodel::checkLLVMCpu(const std::string &Triple, const std::string &Cpu,
                             std::string &Error) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargetMCs();
  });
  std::string Err;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  if (!T) {
    Error = "LLVM 19 has no target for triple '" + Triple + "': " + Err;
    return false;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> STI(
      T->createMCSubtargetInfo(Triple, "", ""));
  if (!STI || !STI->isCPUStringValid(Cpu)) {
    Error = "LLVM 19 does not know CPU '" + Cpu + "' for " + Triple +
            " (see: llc-19 -mtriple=" + Triple + " -mcpu=help)";
    return false;
  }
  return true;
}

std::map<std::string, unsigned> perfmodel::llvmSchedulerQueues(const std::string &Triple,
                                                               const std::string &Cpu) {
  std::map<std::string, unsigned> Out;
  std::string Err;
  if (!checkLLVMCpu(Triple, Cpu, Err))
    return Out;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  std::unique_ptr<llvm::MCSubtargetInfo> STI(T->createMCSubtargetInfo(Triple, Cpu, ""));
  const llvm::MCSchedModel &SM = STI->getSchedModel();
  if (!SM.hasInstrSchedModel())
    return Out;
  for (unsigned I = 1; I < SM.getNumProcResourceKinds(); ++I)
    if (const llvm::MCProcResourceDesc *D = SM.getProcResource(I); D->BufferSize > 0)
      Out[D->Name] = unsigned(D->BufferSize);
  return Out;
}

namespace {

/// Splits "caches.L2.size=2MiB" into path segments and the value text.
bool splitSet(const std::string &Set, std::vector<std::string> &Path,
              std::string &Value) {
  size_t Eq = Set.find('=');
  if (Eq == std::string::npos || Eq == 0)
    return false;
  Value = Set.substr(Eq + 1);
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  llvm::StringRef(Set).substr(0, Eq).trim().split(Parts, '.');
  for (llvm::StringRef P : Parts) {
    if (P.empty())
      return false;
    Path.push_back(P.str());
  }
  return true;
}

bool matchesPattern(llvm::StringRef Pattern, llvm::StringRef Path) {
  llvm::SmallVector<llvm::StringRef, 6> P, K;
  Pattern.split(P, '.');
  Path.split(K, '.');
  if (P.size() > K.size())
    return false;
  for (size_t I = 0; I < P.size(); ++I)
    if (P[I] != "*" && P[I] != K[I])
      return false;
  return true; // a shorter pattern covers everything below it
}

class Reader {
public:
  Reader(std::string File, std::vector<MachineDiag> &Diags)
      : File(std::move(File)), Diags(Diags) {}

  std::map<std::string, std::string> SetOrigins; ///< path -> "--set p=v"
  std::vector<std::pair<std::string, YAML::Node>> NumericPaths; ///< every number read
  /// With `base:`: each file's own nodes, the file first; a diagnostic names
  /// the file whose tree holds its node.
  std::vector<std::pair<YAML::Node, std::string>> Origins;

  bool failed() const { return Errors > 0; }

  void diag(MachineDiag::Kind K, const YAML::Node &N, const std::string &Path,
            const std::string &Msg) {
    MachineDiag D;
    D.Severity = K;
    D.Key = Path;
    D.Message = Msg;
    if (auto Origin = overrideFor(Path)) {
      D.File = "--set " + *Origin;
    } else {
      D.File = File;
      for (const auto &[Tree, Name] : Origins)
        if (N.IsDefined() && holds(Tree, N)) {
          D.File = Name;
          break;
        }
      if (N.IsDefined() && N.Mark().line >= 0) {
        D.Line = N.Mark().line + 1;
        D.Column = N.Mark().column + 1;
      }
    }
    if (K == MachineDiag::Kind::Error)
      ++Errors;
    Diags.push_back(std::move(D));
  }
  void error(const YAML::Node &N, const std::string &Path, const std::string &M) {
    diag(MachineDiag::Kind::Error, N, Path, M);
  }
  void warning(const YAML::Node &N, const std::string &Path, const std::string &M) {
    diag(MachineDiag::Kind::Warning, N, Path, M);
  }

  static bool holds(const YAML::Node &Tree, const YAML::Node &N) {
    if (Tree.is(N))
      return true;
    if (Tree.IsMap()) {
      for (const auto &KV : Tree)
        if (KV.first.is(N) || holds(KV.second, N))
          return true;
    } else if (Tree.IsSequence()) {
      for (const auto &E : Tree)
        if (holds(E, N))
          return true;
    }
    return false;
  }

  std::optional<std::string> overrideFor(const std::string &Path) const {
    for (const auto &[P, Origin] : SetOrigins)
      if (Path == P || llvm::StringRef(Path).starts_with(P + "."))
        return Origin;
    return std::nullopt;
  }

  static std::string join(const std::string &Path, const std::string &Key) {
    return Path.empty() ? Key : Path + "." + Key;
  }

  /// Checks N is a map and that it holds only ALLOWED keys.
  bool checkMap(const YAML::Node &N, const std::string &Path,
                std::initializer_list<const char *> Allowed) {
    if (!N.IsMap()) {
      error(N, Path, "expected a mapping of keys");
      return false;
    }
    for (const auto &KV : N) {
      std::string Key = KV.first.Scalar();
      bool Known = false;
      for (const char *A : Allowed)
        Known |= Key == A;
      if (Known)
        continue;
      std::string Msg = "unknown key '" + Key + "'";
      unsigned Best = 3;
      std::string Suggest;
      for (const char *A : Allowed) {
        unsigned D = llvm::StringRef(Key).edit_distance(A, true, Best);
        if (D < Best) {
          Best = D;
          Suggest = A;
        }
      }
      if (!Suggest.empty())
        Msg += " (did you mean '" + Suggest + "'?)";
      else {
        Msg += "; allowed here:";
        for (const char *A : Allowed)
          Msg += std::string(" ") + A;
      }
      error(KV.first, join(Path, Key), Msg);
    }
    return true;
  }

  YAML::Node child(const YAML::Node &Map, const char *Key,
                   const std::string &Path, bool Required) {
    YAML::Node C = Map.IsMap() ? Map[Key] : YAML::Node();
    if (Required && (!C.IsDefined() || C.IsNull()))
      error(Map, join(Path, Key), "required key is missing");
    return C;
  }

  std::optional<std::string> str(const YAML::Node &Map, const char *Key,
                                 const std::string &Path, bool Required) {
    YAML::Node C = child(Map, Key, Path, Required);
    if (!C.IsDefined() || C.IsNull())
      return std::nullopt;
    if (!C.IsScalar() || C.Scalar().empty()) {
      error(C, join(Path, Key), "expected a non-empty string");
      return std::nullopt;
    }
    return C.Scalar();
  }

  enum Range { Positive, NonNegative };
  std::optional<double> num(const YAML::Node &Map, const char *Key,
                            const std::string &Path, bool Required,
                            Range R = Positive) {
    YAML::Node C = child(Map, Key, Path, Required);
    if (!C.IsDefined() || C.IsNull())
      return std::nullopt;
    std::string P = join(Path, Key);
    double V;
    if (!C.IsScalar() || llvm::StringRef(C.Scalar()).trim().getAsDouble(V)) {
      std::string Got = C.IsScalar() ? "'" + C.Scalar() + "'" : "a collection";
      error(C, P, "expected a number, got " + Got +
                      " (units belong in the key name, e.g. clock_ghz: 2.7)");
      return std::nullopt;
    }
    if (!std::isfinite(V) || V > 1e12) {
      error(C, P, "value " + C.Scalar() + " is out of range");
      return std::nullopt;
    }
    if (R == Positive && V <= 0) {
      error(C, P, "must be greater than zero, got " + C.Scalar());
      return std::nullopt;
    }
    if (R == NonNegative && V < 0) {
      error(C, P, "must not be negative, got " + C.Scalar());
      return std::nullopt;
    }
    NumericPaths.emplace_back(P, C);
    return V;
  }

  std::optional<unsigned> count(const YAML::Node &Map, const char *Key,
                                const std::string &Path, bool Required,
                                Range R = Positive) {
    auto V = num(Map, Key, Path, Required, R);
    if (!V)
      return std::nullopt;
    if (*V != std::floor(*V) || *V > 1e9) {
      error(Map[Key], join(Path, Key), "expected a whole number, got " +
                                           Map[Key].Scalar());
      return std::nullopt;
    }
    return unsigned(*V);
  }

  std::optional<bool> boolean(const YAML::Node &Map, const char *Key,
                              const std::string &Path) {
    YAML::Node C = child(Map, Key, Path, false);
    if (!C.IsDefined() || C.IsNull())
      return std::nullopt;
    bool B;
    if (!C.IsScalar() || !YAML::convert<bool>::decode(C, B)) {
      error(C, join(Path, Key), "expected true or false");
      return std::nullopt;
    }
    return B;
  }

  std::optional<uint64_t> size(const YAML::Node &Map, const char *Key,
                               const std::string &Path, bool Required) {
    YAML::Node C = child(Map, Key, Path, Required);
    if (!C.IsDefined() || C.IsNull())
      return std::nullopt;
    std::string P = join(Path, Key), Err;
    if (!C.IsScalar()) {
      error(C, P, "expected a size such as 32KiB");
      return std::nullopt;
    }
    auto V = parseByteSize(C.Scalar(), Err);
    if (!V) {
      error(C, P, Err);
      return std::nullopt;
    }
    if (*V == 0) {
      error(C, P, "must be greater than zero");
      return std::nullopt;
    }
    NumericPaths.emplace_back(P, C);
    return V;
  }

  template <typename E>
  std::optional<E> choice(const YAML::Node &Map, const char *Key,
                          const std::string &Path,
                          std::initializer_list<std::pair<const char *, E>> Options) {
    auto S = str(Map, Key, Path, false);
    if (!S)
      return std::nullopt;
    std::string Allowed;
    for (const auto &[Name, Value] : Options) {
      if (*S == Name)
        return Value;
      Allowed += std::string(Allowed.empty() ? "" : ", ") + Name;
    }
    error(Map[Key], join(Path, Key),
          "unknown value '" + *S + "' (expected one of: " + Allowed + ")");
    return std::nullopt;
  }

  std::string File;
  std::vector<MachineDiag> &Diags;
  unsigned Errors = 0;
};

std::string shortNumber(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", V);
  return Buf;
}

void readCore(Reader &R, const YAML::Node &N, CoreModel &C) {
  const std::string P = "core";
  if (!R.checkMap(N, P, {"issue_width", "reorder_buffer", "simd_bits", "fp_pipe_bits", "fma_units",
                         "peak_flops_per_cycle", "loads_per_cycle",
                         "load_bytes_per_cycle", "vector_load_slots", "stores_per_cycle",
                         "store_bytes_per_cycle", "fp_units",
                         "unaligned_vector_cost", "line_split_load_cost",
                         "line_split_store_cost", "scheduler_queues", "load_queue", "store_queue",
                         "branch_mispredict_cy", "branch_pattern_capacity",
                         "instruction_overrides", "call_cy", "call_return_cy",
                         "masked_stores_forward", "forward_fail_cy",
                         "memcpy_bytes_per_cy",
                         "memset_bytes_per_cy"}))
    return;
  C.IssueWidth = R.count(N, "issue_width", P, true).value_or(0);
  C.ReorderBuffer = R.count(N, "reorder_buffer", P, false).value_or(0);
  C.LoadQueue = R.count(N, "load_queue", P, false).value_or(0);
  C.StoreQueue = R.count(N, "store_queue", P, false).value_or(0);
  C.BranchMispredictCycles = R.num(N, "branch_mispredict_cy", P, false).value_or(0);
  C.BranchPatternCapacity = R.num(N, "branch_pattern_capacity", P, false).value_or(0);
  C.CallReturnCycles = R.num(N, "call_return_cy", P, false).value_or(0);
  C.MaskedStoresForward = R.boolean(N, "masked_stores_forward", P).value_or(true);
  C.ForwardFailCycles = R.num(N, "forward_fail_cy", P, false).value_or(0);
  C.SimdBits = R.count(N, "simd_bits", P, true).value_or(0);
  C.FmaUnits = R.count(N, "fma_units", P, true, Reader::NonNegative).value_or(0);
  C.FpPipeBits = R.count(N, "fp_pipe_bits", P, false).value_or(0);
  if (C.FpPipeBits && C.SimdBits && C.FpPipeBits > C.SimdBits)
    R.error(R.child(N, "fp_pipe_bits", P, false), "core.fp_pipe_bits",
            "a pipe (" + std::to_string(C.FpPipeBits) +
                " bits) cannot be wider than the widest register (simd_bits " +
                std::to_string(C.SimdBits) + ")");
  YAML::Node Peak = R.child(N, "peak_flops_per_cycle", P, true);
  if (Peak.IsDefined() && !Peak.IsNull() &&
      R.checkMap(Peak, "core.peak_flops_per_cycle", {"double", "single"})) {
    C.PeakFlopsPerCycleDouble =
        R.num(Peak, "double", "core.peak_flops_per_cycle", true).value_or(0);
    C.PeakFlopsPerCycleSingle =
        R.num(Peak, "single", "core.peak_flops_per_cycle", true).value_or(0);
  }
  C.LoadsPerCycle = R.count(N, "loads_per_cycle", P, true).value_or(0);
  C.LoadBytesPerCycle = R.num(N, "load_bytes_per_cycle", P, true).value_or(0);
  C.VectorLoadSlots = R.num(N, "vector_load_slots", P, false, Reader::NonNegative).value_or(0);
  C.StoresPerCycle = R.count(N, "stores_per_cycle", P, true).value_or(0);
  C.StoreBytesPerCycle = R.num(N, "store_bytes_per_cycle", P, true).value_or(0);
  C.UnalignedVectorCost = R.num(N, "unaligned_vector_cost", P, false).value_or(1);
  if (C.UnalignedVectorCost < 1)
    R.error(R.child(N, "unaligned_vector_cost", P, false), "core.unaligned_vector_cost",
            "an unaligned access cannot cost fewer port slots than an aligned one (>= 1)");

  for (const char *Key : {"line_split_load_cost", "line_split_store_cost"}) {
    double V = R.num(N, Key, P, false).value_or(0);
    if (V != 0 && V < 1)
      R.error(R.child(N, Key, P, false), std::string("core.") + Key,
              "an access that crosses a cache line cannot cost fewer port slots than one "
              "that does not (>= 1)");
    (std::string_view(Key) == "line_split_load_cost" ? C.LineSplitLoadCost
                                                     : C.LineSplitStoreCost) = V;
  }

  // Mappings of names to values: each entry read by READ (map, name, path).
  auto Named = [&](const char *Key, const char *Expected, auto Read) {
    YAML::Node Q = R.child(N, Key, P, false);
    if (!Q.IsDefined() || Q.IsNull())
      return;
    std::string Path = Reader::join(P, Key);
    if (!Q.IsMap()) {
      R.error(Q, Path, std::string("expected a mapping ") + Expected);
      return;
    }
    for (const auto &KV : Q)
      Read(Q, KV.first.Scalar(), Path);
  };
  Named("call_cy", "function: cycles, e.g. {exp: 18}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          if (auto V = R.num(Q, Name.c_str(), Path, true))
            C.CallCycles[Name] = *V;
        });
  for (auto [Key, Rates] : {std::pair{"memcpy_bytes_per_cy", &C.MemcpyBytesPerCycle},
                            std::pair{"memset_bytes_per_cy", &C.MemsetBytesPerCycle}})
    Named(Key, "cache level: bytes per cycle, e.g. {L1: 40, L2: 24}",
          [&, Rates = Rates](const YAML::Node &Q, const std::string &Name,
                             const std::string &Path) {
            if (auto V = R.num(Q, Name.c_str(), Path, true))
              (*Rates)[Name] = *V;
          });
  Named("scheduler_queues", "queue: entries, e.g. {Zn4FP: 64}",
        [&](const YAML::Node &Q, const std::string &Name, const std::string &Path) {
          if (auto V = R.count(Q, Name.c_str(), Path, true))
            C.SchedulerQueues[Name] = *V;
        });


  // Which vector operations each floating-point pipe executes; decides the
  // compute ceiling of a given add/mul/FMA mix.
  if (YAML::Node U = R.child(N, "fp_units", P, false); U.IsDefined() && !U.IsNull()) {
    if (!U.IsSequence() || U.size() == 0) {
      R.error(U, "core.fp_units", "expected a list of pipes, each a list of "
                                  "operations, e.g. [[fma, mul], [fma, mul, add]]");
    } else {
      for (size_t I = 0; I < U.size(); ++I) {
        const YAML::Node E = U[I];
        FpUnit Unit;
        bool Good = E.IsSequence() && E.size() > 0;
        for (size_t J = 0; Good && J < E.size(); ++J) {
          std::string Op = E[J].IsScalar() ? E[J].Scalar() : "";
          if (Op == "add")
            Unit.Add = true;
          else if (Op == "mul")
            Unit.Mul = true;
          else if (Op == "fma")
            Unit.Fma = true;
          else
            Good = false;
        }
        if (!Good) {
          R.error(E, "core.fp_units." + std::to_string(I),
                  "expected a list of operations among add, mul, fma");
          continue;
        }
        C.FpUnits.push_back(Unit);
      }
      // The pipes must give the stated peak, counted the vendors' way: the
      // FMA pipes at two flops per lane when there are any (Zen's extra add
      // pipes do not raise the quoted peak), otherwise every add/mul pipe.
      unsigned FmaPipes = 0;
      for (const FpUnit &F : C.FpUnits)
        FmaPipes += F.Fma;
      if (FmaPipes && C.FmaUnits && FmaPipes != C.FmaUnits)
        R.error(U, "core.fp_units",
                std::to_string(FmaPipes) + " of these pipes run FMA, but core.fma_units is " +
                    std::to_string(C.FmaUnits));
      unsigned Bits = C.pipeBits();
      if (C.FpUnits.size() == U.size() && Bits >= 64)
        for (auto [Key, Bytes, Peak] :
             {std::tuple<const char *, unsigned, double>{"double", 8, C.PeakFlopsPerCycleDouble},
              {"single", 4, C.PeakFlopsPerCycleSingle}}) {
          double Lanes = Bits / (8.0 * Bytes);
          double FromUnits = FmaPipes ? 2.0 * FmaPipes * Lanes : C.FpUnits.size() * Lanes;
          if (Peak > 0 && std::fabs(FromUnits - Peak) > 1e-9)
            R.error(U, "core.fp_units",
                    "these pipes give " + shortNumber(FromUnits) + " " + Key +
                        " flop/cycle at " + std::to_string(Bits) +
                        " bits per pipe, but core.peak_flops_per_cycle." + Key + " is " +
                        shortNumber(Peak));
        }
    }
  }

  YAML::Node Ov = R.child(N, "instruction_overrides", P, false);
  if (!Ov.IsDefined() || Ov.IsNull())
    return;
  if (!Ov.IsSequence()) {
    R.error(Ov, "core.instruction_overrides", "expected a list");
    return;
  }
  for (size_t I = 0; I < Ov.size(); ++I) {
    std::string IP = "core.instruction_overrides." + std::to_string(I);
    const YAML::Node E = Ov[I];
    if (!R.checkMap(E, IP, {"form", "latency_cy", "uops", "ports"}))
      continue;
    InstructionOverride O;
    O.Form = R.str(E, "form", IP, true).value_or("");
    if (O.Form.find_first_of("*?[") != std::string::npos) {
      llvm::Expected<llvm::GlobPattern> G = llvm::GlobPattern::create(O.Form);
      if (!G) {
        R.error(E, IP + ".form", "'" + O.Form + "' is not a valid glob: " +
                                     llvm::toString(G.takeError()));
        continue;
      }
    }
    O.LatencyCy = R.num(E, "latency_cy", IP, false, Reader::NonNegative);
    O.Uops = R.num(E, "uops", IP, false, Reader::NonNegative);
    YAML::Node Ports = R.child(E, "ports", IP, false);
    if (Ports.IsDefined() && !Ports.IsNull()) {
      if (!Ports.IsMap()) {
        R.error(Ports, IP + ".ports", "expected a mapping port: cycles");
      } else {
        for (const auto &KV : Ports) {
          std::string Port = KV.first.Scalar();
          // 0: the form does not use that port at all.
          if (auto V = R.num(Ports, Port.c_str(), IP + ".ports", true, Reader::NonNegative))
            O.Ports[Port] = *V;
        }
      }
    }
    C.Overrides.push_back(std::move(O));
  }
}

/// One core's memory bandwidth by Little's law: the lines the outermost
/// private cache that states misses_in_flight keeps outstanding (the
/// prefetched streams' fills queue there), times the line, over the memory
/// latency. Without both keys there is no figure.
void deriveLittle(MachineModel &M) {
  M.Memory.LittleGBs.reset();
  M.Memory.LittleBasis.clear();
  if (!M.Memory.LatencyNs || *M.Memory.LatencyNs <= 0)
    return;
  const CacheLevel *Q = nullptr;
  for (const CacheLevel &C : M.Caches)
    if (C.MissesInFlight && *C.MissesInFlight > 0 && (!Q || C.SharedBy <= 1))
      Q = &C;
  if (!Q || !Q->LineBytes)
    return;
  M.Memory.LittleGBs = double(*Q->MissesInFlight) * Q->LineBytes / *M.Memory.LatencyNs;
  M.Memory.LittleBasis = std::to_string(*Q->MissesInFlight) + " misses in flight (caches." +
                         Q->Name + ") x " + std::to_string(Q->LineBytes) + " B / " +
                         shortNumber(*M.Memory.LatencyNs) + " ns = " +
                         shortNumber(std::round(*M.Memory.LittleGBs * 100) / 100) + " GB/s";
}

void readCaches(Reader &R, const YAML::Node &N, std::vector<CacheLevel> &Out) {
  if (!N.IsSequence() || N.size() == 0) {
    R.error(N, "caches", "expected a non-empty list of cache levels, L1 first");
    return;
  }
  std::set<std::string> Seen;
  for (size_t I = 0; I < N.size(); ++I) {
    const YAML::Node E = N[I];
    CacheLevel C;
    std::string P = "caches." + std::to_string(I);
    if (E.IsMap() && E["name"].IsScalar())
      P = "caches." + E["name"].Scalar();
    if (!R.checkMap(E, P, {"name", "size", "ways", "line", "latency_cy",
                           "bytes_per_cycle_from_next", "shared_by", "policy",
                           "prefetch", "write_allocate", "misses_in_flight",
                           "prefetch_max_stride", "bytes_per_cycle_to_next"}))
      continue;
    C.Name = R.str(E, "name", P, true).value_or("");
    if (!C.Name.empty() && !Seen.insert(C.Name).second)
      R.error(E["name"], P + ".name", "duplicate cache level '" + C.Name + "'");
    auto Size = R.size(E, "size", P, true);
    auto Ways = R.count(E, "ways", P, true);
    auto Line = R.count(E, "line", P, true);
    C.LatencyCy = R.num(E, "latency_cy", P, false).value_or(0); // 0: unknown
    C.BytesPerCycleFromNext = R.num(E, "bytes_per_cycle_from_next", P, false);
    C.BytesPerCycleToNext = R.num(E, "bytes_per_cycle_to_next", P, false);
    if (C.BytesPerCycleToNext && I + 1 == N.size())
      R.error(E["bytes_per_cycle_to_next"], P + ".bytes_per_cycle_to_next",
              "the last level's write-backs go to memory, whose bandwidth is memory's");
    C.SharedBy = R.count(E, "shared_by", P, false).value_or(1);
    C.Policy = R.choice<CachePolicy>(E, "policy", P,
                                     {{"inclusive", CachePolicy::Inclusive},
                                      {"non-inclusive", CachePolicy::NonInclusive},
                                      {"victim", CachePolicy::Victim}})
                   .value_or(CachePolicy::Inclusive);
    C.Prefetch = R.choice<PrefetchKind>(E, "prefetch", P,
                                        {{"none", PrefetchKind::None},
                                         {"next-line", PrefetchKind::NextLine},
                                         {"stream", PrefetchKind::Stream}})
                     .value_or(PrefetchKind::None);
    C.WriteAllocate = R.boolean(E, "write_allocate", P).value_or(true);
    C.MissesInFlight = R.count(E, "misses_in_flight", P, false);
    C.PrefetchMaxStride = R.count(E, "prefetch_max_stride", P, false, Reader::NonNegative).value_or(0);
    if (Line && (*Line & (*Line - 1)))
      R.error(E["line"], P + ".line", "line size must be a power of two, got " +
                                          std::to_string(*Line));
    if (Size && Ways && Line) {
      uint64_t WayBytes = uint64_t(*Ways) * *Line;
      if (*Size % WayBytes != 0)
        R.error(E["ways"], P + ".ways",
                std::to_string(*Ways) + " ways of " + std::to_string(*Line) +
                    " B lines do not divide the size " + formatByteSize(*Size) +
                    " into whole sets");
      C.SizeBytes = *Size;
      C.Ways = *Ways;
      C.LineBytes = *Line;
    }
    if (I + 1 < N.size() && !C.BytesPerCycleFromNext)
      R.warning(E, P + ".bytes_per_cycle_from_next",
                "not given: the bandwidth from the next level into " + C.Name +
                    " is unknown, so Roofline and ECM leave that link unbounded");
    Out.push_back(std::move(C));
  }
  for (size_t I = 1; I < Out.size(); ++I) {
    if (Out[I].SizeBytes && Out[I].SizeBytes <= Out[I - 1].SizeBytes)
      R.warning(N[I]["size"], "caches." + Out[I].Name + ".size",
                "is not larger than " + Out[I - 1].Name);
    if (Out[I].LineBytes && Out[0].LineBytes && Out[I].LineBytes != Out[0].LineBytes)
      R.warning(N[I]["line"], "caches." + Out[I].Name + ".line",
                "differs from L1's line size; traffic is counted in " +
                    std::to_string(Out[0].LineBytes) + " B lines");
  }
}

void readSources(Reader &R, const YAML::Node &N, std::vector<SourceRef> &Out) {
  if (!N.IsSequence() || N.size() == 0) {
    R.error(N, "sources", "expected a non-empty list; every number needs a source");
    return;
  }
  for (size_t I = 0; I < N.size(); ++I) {
    const YAML::Node E = N[I];
    std::string P = "sources." + std::to_string(I);
    if (!R.checkMap(E, P, {"id", "cite", "covers"}))
      continue;
    SourceRef S;
    S.Id = R.str(E, "id", P, true).value_or("");
    S.Cite = R.str(E, "cite", P, true).value_or("");
    YAML::Node Cov = R.child(E, "covers", P, true);
    if (Cov.IsDefined() && !Cov.IsNull()) {
      if (!Cov.IsSequence()) {
        R.error(Cov, P + ".covers", "expected a list of key paths");
      } else {
        for (const auto &C : Cov)
          if (C.IsScalar())
            S.Covers.push_back(C.Scalar());
          else
            R.error(C, P + ".covers", "expected a key path such as caches.L1.size");
      }
    }
    Out.push_back(std::move(S));
  }
}

/// Applies one --set override to the tree. Caches are addressed by name.
bool applySet(Reader &R, YAML::Node Root, const std::string &Set) {
  std::vector<std::string> Path;
  std::string Value;
  MachineDiag D;
  D.File = "--set " + Set;
  if (!splitSet(Set, Path, Value)) {
    D.Message = "expected key.path=value, e.g. caches.L2.size=2MiB";
    R.Diags.push_back(D);
    ++R.Errors;
    return false;
  }
  YAML::Node ValueNode;
  try {
    ValueNode = YAML::Load(Value);
  } catch (const YAML::Exception &E) {
    D.Message = "value is not valid YAML: " + E.msg;
    R.Diags.push_back(D);
    ++R.Errors;
    return false;
  }
  YAML::Node Cur = Root;
  std::string Dotted;
  for (size_t I = 0; I < Path.size(); ++I) {
    const std::string &Seg = Path[I];
    Dotted = Reader::join(Dotted, Seg);
    bool Last = I + 1 == Path.size();
    if (Cur.IsSequence()) {
      YAML::Node Found;
      bool HaveFound = false; // a default yaml-cpp Node counts as defined
      std::string Names;
      for (YAML::Node E : Cur) {
        if (E.IsMap() && E["name"].IsScalar()) {
          if (E["name"].Scalar() == Seg && !HaveFound) {
            Found.reset(E);
            HaveFound = true;
          }
          Names += (Names.empty() ? "" : ", ") + E["name"].Scalar();
        }
      }
      if (!HaveFound) {
        D.Key = Dotted;
        D.Message = "no entry named '" + Seg + "' (have: " + Names + ")";
        R.Diags.push_back(D);
        ++R.Errors;
        return false;
      }
      if (Last) {
        D.Key = Dotted;
        D.Message = "cannot replace a whole list entry; set one of its keys";
        R.Diags.push_back(D);
        ++R.Errors;
        return false;
      }
      Cur.reset(Found);
      continue;
    }
    if (!Cur.IsMap()) {
      D.Key = Dotted;
      D.Message = "'" + Dotted.substr(0, Dotted.size() - Seg.size() - (I ? 1 : 0)) +
                  "' has no keys to set";
      R.Diags.push_back(D);
      ++R.Errors;
      return false;
    }
    if (Last) {
      Cur[Seg] = ValueNode;
    } else {
      YAML::Node Next = Cur[Seg];
      if (!Next.IsDefined() || Next.IsNull())
        Cur[Seg] = YAML::Node(YAML::NodeType::Map);
      YAML::Node Tmp = Cur[Seg];
      Cur.reset(Tmp);
    }
  }
  R.SetOrigins[Dotted] = Set;
  return true;
}

/// Merges DERIVED over BASE: maps key by key; `caches` entries by name (a new
/// name is appended); `sources` concatenated with DERIVED's first, so its
/// citation is the one shown where both cover a key; `instruction_overrides`
/// concatenated with DERIVED's last, so they apply after the base's; any other
/// value replaced. Nodes are shared with the inputs, not cloned: each keeps
/// the position it was read at, so a diagnostic names the file and line the
/// value came from (a clone has none).
YAML::Node mergeOver(const YAML::Node &Base, const YAML::Node &Derived, const std::string &Key) {
  if (!Base.IsDefined() || Base.IsNull())
    return Derived;
  if (Base.IsMap() && Derived.IsMap()) {
    YAML::Node Out(YAML::NodeType::Map);
    // Keys are inserted as the inputs' own key nodes (lookup by identity), one
    // per name: the derived one where both have it.
    for (const auto &KV : Base) {
      std::string K = KV.first.Scalar();
      bool Merged = false;
      for (const auto &DKV : Derived)
        if (!Merged && DKV.first.Scalar() == K) {
          Out[DKV.first] = mergeOver(KV.second, DKV.second, K);
          Merged = true;
        }
      if (!Merged)
        Out[KV.first] = KV.second;
    }
    for (const auto &DKV : Derived)
      if (!Base[DKV.first.Scalar()].IsDefined())
        Out[DKV.first] = DKV.second;
    return Out;
  }
  if (Base.IsSequence() && Derived.IsSequence()) {
    YAML::Node Out(YAML::NodeType::Sequence);
    if (Key == "sources" || Key == "instruction_overrides") {
      const YAML::Node &First = Key == "sources" ? Derived : Base;
      const YAML::Node &Second = Key == "sources" ? Base : Derived;
      for (const auto &E : First)
        Out.push_back(E);
      for (const auto &E : Second)
        Out.push_back(E);
      return Out;
    }
    if (Key == "caches") {
      auto NameOf = [](const YAML::Node &E) {
        return E.IsMap() && E["name"].IsScalar() ? E["name"].Scalar() : std::string();
      };
      std::set<std::string> Used;
      for (const auto &B : Base) {
        YAML::Node Merged = B;
        for (const auto &D : Derived)
          if (!NameOf(B).empty() && NameOf(D) == NameOf(B)) {
            Merged = mergeOver(B, D, "");
            Used.insert(NameOf(B));
          }
        Out.push_back(Merged);
      }
      for (const auto &D : Derived)
        if (!Used.count(NameOf(D)))
          Out.push_back(D);
      return Out;
    }
  }
  return Derived;
}

/// Replaces ROOT by its `base:` model with ROOT's keys merged over it,
/// following the base's own base. A base is a library name or alias, or a
/// path relative to the file that names it. False (with a diagnostic) when a
/// base cannot be had.
bool resolveBase(YAML::Node &Root, const std::string &FileName, std::vector<MachineDiag> &Diags,
                 std::vector<std::string> &Chain,
                 std::vector<std::pair<YAML::Node, std::string>> &Origins) {
  const YAML::Node &Const = Root;
  YAML::Node B = Const["base"];
  if (!B.IsDefined())
    return true;
  MachineDiag D;
  D.File = FileName;
  D.Key = "base";
  D.Line = B.Mark().line >= 0 ? B.Mark().line + 1 : 0;
  D.Column = B.Mark().column >= 0 ? B.Mark().column + 1 : 0;
  if (!B.IsScalar() || B.Scalar().empty()) {
    D.Message = "expected a library model name (e.g. zen4) or a path to a machine file";
    Diags.push_back(D);
    return false;
  }
  std::string Name = B.Scalar(), File;
  if (Name.find('/') != std::string::npos && !llvm::sys::path::is_absolute(Name)) {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(FileName));
    llvm::sys::path::append(P, Name);
    File = llvm::sys::fs::exists(P) ? std::string(P) : std::string();
  } else {
    File = resolveMachine(Name);
  }
  if (File.empty()) {
    D.Message = "no machine model '" + Name + "' (see `perfmodel machine list`)";
    Diags.push_back(D);
    return false;
  }
  // One spelling per file, so that a loop (./self.yml naming ./self.yml) is
  // found as one.
  if (llvm::SmallString<256> Real; !llvm::sys::fs::real_path(File, Real))
    File = std::string(Real);
  if (std::find(Chain.begin(), Chain.end(), File) != Chain.end() || Chain.size() >= 8) {
    D.Message = Chain.size() >= 8
                    ? "'" + Name + "' is a ninth base in a row; at most 8 are followed"
                    : "'" + Name + "' leads back to a model already in the chain of bases";
    Diags.push_back(D);
    return false;
  }
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  YAML::Node BaseRoot;
  try {
    if (Buf)
      BaseRoot = YAML::Load((*Buf)->getBuffer().str());
  } catch (const YAML::Exception &E) {
    D.Message = "base '" + File + "' is not valid YAML: " + E.msg;
    Diags.push_back(D);
    return false;
  }
  if (!Buf || !BaseRoot.IsMap()) {
    D.Message = "cannot read base '" + File + "' as a machine model";
    Diags.push_back(D);
    return false;
  }
  Chain.push_back(File);
  // ROOT's own keys in a map of their own (sharing its nodes), remembered
  // with the file they were read from.
  YAML::Node Own(YAML::NodeType::Map);
  for (const auto &KV : Const)
    if (KV.first.Scalar() != "base")
      Own[KV.first] = KV.second;
  Origins.emplace_back(Own, FileName);
  size_t Before = Origins.size();
  if (!resolveBase(BaseRoot, File, Diags, Chain, Origins))
    return false;
  if (Origins.size() == Before) // the last base: its document as read
    Origins.emplace_back(BaseRoot, File);
  Root = mergeOver(BaseRoot, Own, "");
  return true;
}

} // namespace

MachineLoadResult perfmodel::parseMachineModel(const std::string &Text,
                                               const std::string &FileName,
                                               const std::vector<std::string> &Sets) {
  MachineLoadResult Result;
  Reader R(FileName, Result.Diags);
  YAML::Node Root;
  try {
    Root = YAML::Load(Text);
  } catch (const YAML::ParserException &E) {
    MachineDiag D;
    D.File = FileName;
    D.Line = E.mark.line >= 0 ? E.mark.line + 1 : 0;
    D.Column = E.mark.column >= 0 ? E.mark.column + 1 : 0;
    D.Message = "malformed YAML: " + E.msg;
    Result.Diags.push_back(D);
    return Result;
  } catch (const YAML::Exception &E) {
    MachineDiag D;
    D.File = FileName;
    D.Message = "malformed YAML: " + E.msg;
    Result.Diags.push_back(D);
    return Result;
  }
  if (!Root.IsMap()) {
    MachineDiag D;
    D.File = FileName;
    D.Message = Root.IsNull() ? "the file is empty; expected a machine model "
                                "mapping (name, llvm, clock_ghz, core, caches, "
                                "memory, sources)"
                              : "expected a mapping at the top level";
    Result.Diags.push_back(D);
    return Result;
  }

  MachineModel M;
  M.File = FileName;
  try {
    std::vector<std::string> Chain;
    if (!resolveBase(Root, FileName, Result.Diags, Chain, R.Origins))
      return Result;
    M.Bases = Chain;
    for (const std::string &S : Sets)
      if (applySet(R, Root, S))
        M.Overrides.push_back(S);
    if (R.failed())
      return Result;

    R.checkMap(Root, "", {"name", "aliases", "llvm", "clock_ghz", "base_clock_ghz",
                          "cores_per_socket", "sockets", "core", "caches",
                          "memory", "tlb", "ecm", "cpuid", "sources"});
    M.Name = R.str(Root, "name", "", true).value_or("");
    if (YAML::Node A = R.child(Root, "aliases", "", false); A.IsDefined() && !A.IsNull()) {
      if (!A.IsSequence())
        R.error(A, "aliases", "expected a list of short names");
      else
        for (const auto &E : A)
          if (E.IsScalar())
            M.Aliases.push_back(E.Scalar());
    }
    YAML::Node L = R.child(Root, "llvm", "", true);
    if (L.IsDefined() && !L.IsNull() && R.checkMap(L, "llvm", {"triple", "cpu"})) {
      M.Triple = R.str(L, "triple", "llvm", true).value_or("");
      M.Cpu = R.str(L, "cpu", "llvm", true).value_or("");
      std::string Err;
      if (!M.Triple.empty() && !M.Cpu.empty() && !checkLLVMCpu(M.Triple, M.Cpu, Err))
        R.error(L["cpu"], "llvm.cpu", Err);
    }
    M.ClockGHz = R.num(Root, "clock_ghz", "", true).value_or(0);
    M.BaseClockGHz = R.num(Root, "base_clock_ghz", "", false);
    M.CoresPerSocket = R.count(Root, "cores_per_socket", "", true).value_or(0);
    M.Sockets = R.count(Root, "sockets", "", false).value_or(1);
    if (YAML::Node C = R.child(Root, "core", "", true); C.IsDefined() && !C.IsNull()) {
      readCore(R, C, M.Core);
      if (!M.Core.SchedulerQueues.empty() && !M.Triple.empty() && !M.Cpu.empty()) {
        std::map<std::string, unsigned> Known = llvmSchedulerQueues(M.Triple, M.Cpu);
        std::string Names;
        for (const auto &[Q, Size] : Known)
          Names += (Names.empty() ? "" : ", ") + Q + " (" + std::to_string(Size) + ")";
        for (const auto &[Q, Size] : M.Core.SchedulerQueues)
          if (!Known.count(Q))
            R.error(C["scheduler_queues"][Q], "core.scheduler_queues." + Q,
                    "LLVM 19's model of " + M.Cpu + " has no scheduler queue '" + Q +
                        "' (it has: " + (Names.empty() ? "none" : Names) + ")");
      }
    }
    if (YAML::Node C = R.child(Root, "caches", "", true); C.IsDefined() && !C.IsNull())
      readCaches(R, C, M.Caches);
    // The library's streaming rates name the file's cache levels.
    for (const char *Fn : {"memcpy", "memset"}) {
      std::string Key = std::string(Fn) + "_bytes_per_cy";
      for (const auto &[Level, V] : std::string_view(Fn) == "memcpy"
                                        ? M.Core.MemcpyBytesPerCycle
                                        : M.Core.MemsetBytesPerCycle)
        if (!M.cache(Level))
          R.error(Root["core"][Key][Level], "core." + Key + "." + Level,
                  Level == "MEM" ? "memory is not a cache level: memory." + std::string(Fn) +
                                       "_one_core_gbs (GB/s) gives it"
                                 : "no cache level '" + Level + "' in caches");
    }
    YAML::Node Mem = R.child(Root, "memory", "", true);
    if (Mem.IsDefined() && !Mem.IsNull() &&
        R.checkMap(Mem, "memory", {"bandwidth_gbs", "sustained_gbs",
                                   "sustained_one_core_gbs", "one_core_writeback_gbs",
                                   "cache_line_cy", "latency_ns", "stride_latency_ns",
                                   "channels", "memcpy_one_core_gbs", "memset_one_core_gbs"})) {
      M.Memory.MemcpyOneCoreGBs = R.num(Mem, "memcpy_one_core_gbs", "memory", false);
      M.Memory.MemsetOneCoreGBs = R.num(Mem, "memset_one_core_gbs", "memory", false);
      M.Memory.BandwidthGBs = R.num(Mem, "bandwidth_gbs", "memory", true).value_or(0);
      M.Memory.SustainedGBs = R.num(Mem, "sustained_gbs", "memory", false);
      M.Memory.OneCoreGBs = R.num(Mem, "sustained_one_core_gbs", "memory", false);
      if (M.Memory.OneCoreGBs && *M.Memory.OneCoreGBs > M.Memory.effectiveGBs())
        R.error(Mem["sustained_one_core_gbs"], "memory.sustained_one_core_gbs",
                "one core's bandwidth exceeds the socket's (sustained_gbs, else bandwidth_gbs)");
      M.Memory.OneCoreWritebackGBs = R.num(Mem, "one_core_writeback_gbs", "memory", false);
      if (M.Memory.OneCoreWritebackGBs && *M.Memory.OneCoreWritebackGBs > M.Memory.effectiveGBs())
        R.error(Mem["one_core_writeback_gbs"], "memory.one_core_writeback_gbs",
                "one core's write-back rate exceeds the socket's bandwidth (sustained_gbs, else "
                "bandwidth_gbs)");
      M.Memory.CacheLineCy = R.num(Mem, "cache_line_cy", "memory", false, Reader::NonNegative);
      if (M.Memory.CacheLineCy && *M.Memory.CacheLineCy > 1000)
        R.error(Mem["cache_line_cy"], "memory.cache_line_cy",
                "more than 1000 cycles for a line from a cache: not a plausible figure");
      M.Memory.LatencyNs = R.num(Mem, "latency_ns", "memory", false);
      M.Memory.StrideLatencyNs = R.num(Mem, "stride_latency_ns", "memory", false);
      M.Memory.Channels = R.count(Mem, "channels", "memory", false);
      if (M.Memory.SustainedGBs && *M.Memory.SustainedGBs > M.Memory.BandwidthGBs)
        R.error(Mem["sustained_gbs"], "memory.sustained_gbs",
                "sustained bandwidth exceeds the theoretical bandwidth_gbs");
    }
    if (YAML::Node T = R.child(Root, "tlb", "", false); T.IsDefined() && !T.IsNull() &&
        R.checkMap(T, "tlb",
                   {"entries", "ways", "page", "load_miss_cy", "store_miss_cy", "l1_entries",
                    "l1_ways", "l1_load_miss_cy", "l1_store_miss_cy"})) {
      TlbModel Tlb;
      Tlb.Entries = R.count(T, "entries", "tlb", true).value_or(0);
      Tlb.Ways = R.count(T, "ways", "tlb", true).value_or(0);
      Tlb.PageBytes = R.size(T, "page", "tlb", true).value_or(4096);
      Tlb.LoadMissCy = R.num(T, "load_miss_cy", "tlb", true).value_or(0);
      Tlb.StoreMissCy = R.num(T, "store_miss_cy", "tlb", true).value_or(0);
      Tlb.L1Entries = R.count(T, "l1_entries", "tlb", false).value_or(0);
      Tlb.L1Ways = R.count(T, "l1_ways", "tlb", false).value_or(Tlb.L1Entries);
      Tlb.L1LoadMissCy = R.num(T, "l1_load_miss_cy", "tlb", false, Reader::NonNegative).value_or(0);
      Tlb.L1StoreMissCy =
          R.num(T, "l1_store_miss_cy", "tlb", false, Reader::NonNegative).value_or(0);
      if (Tlb.L1Entries && (!Tlb.L1Ways || Tlb.L1Entries % Tlb.L1Ways))
        R.error(T["l1_ways"], "tlb.l1_ways", "l1_entries must be a multiple of l1_ways");
      else if (Tlb.L1Entries && Tlb.L1Entries >= Tlb.Entries)
        R.error(T["l1_entries"], "tlb.l1_entries",
                "the first-level TLB must hold fewer entries than the last level (entries)");
      else if (Tlb.Ways && Tlb.Entries % Tlb.Ways)
        R.error(T["ways"], "tlb.ways", "entries must be a multiple of ways");
      else if (Tlb.PageBytes & (Tlb.PageBytes - 1))
        R.error(T["page"], "tlb.page", "the page size must be a power of two");
      else if (Tlb.Entries && Tlb.Ways)
        M.Tlb = Tlb;
    }
    deriveLittle(M);
    if (M.Memory.OneCoreWritebackGBs && !M.Memory.oneCoreGBs())
      R.error(Mem["one_core_writeback_gbs"], "memory.one_core_writeback_gbs",
              "a write-back rate of one core needs its fill rate: sustained_one_core_gbs, or "
              "latency_ns with a cache's misses_in_flight (Little's law)");
    if (YAML::Node E = R.child(Root, "ecm", "", false); E.IsDefined() && !E.IsNull()) {
      if (R.checkMap(E, "ecm", {"overlap"}))
        if (auto O = R.choice<std::string>(E, "overlap", "ecm",
                                           {{"none", "none"}, {"full", "full"}}))
          M.EcmOverlap = *O;
    }
    if (YAML::Node C = R.child(Root, "cpuid", "", false); C.IsDefined() && !C.IsNull()) {
      if (R.checkMap(C, "cpuid", {"vendor", "family", "models"})) {
        CpuidMatch Match;
        Match.Vendor = R.str(C, "vendor", "cpuid", true).value_or("");
        Match.Family = R.count(C, "family", "cpuid", true).value_or(0);
        YAML::Node Models = R.child(C, "models", "cpuid", true);
        if (Models.IsSequence()) {
          for (const auto &E : Models) {
            unsigned long long V;
            if (E.IsScalar() && !llvm::StringRef(E.Scalar()).getAsInteger(0, V))
              Match.Models.push_back(unsigned(V));
            else
              R.error(E, "cpuid.models", "expected an integer such as 0x3f");
          }
        } else if (Models.IsDefined()) {
          R.error(Models, "cpuid.models", "expected a list of model numbers");
        }
        M.Cpuid = Match;
      }
    }
    if (YAML::Node S = R.child(Root, "sources", "", true); S.IsDefined() && !S.IsNull())
      readSources(R, S, M.Sources);
  } catch (const YAML::Exception &E) {
    MachineDiag D;
    D.File = FileName;
    D.Message = std::string("malformed machine model: ") + E.what();
    Result.Diags.push_back(D);
    return Result;
  }

  // Every number must name its source; overridden values are hypothetical and
  // are covered by the override itself.
  for (const auto &[P, Node] : R.NumericPaths) {
    if (R.overrideFor(P))
      continue;
    bool Covered = false;
    for (const SourceRef &S : M.Sources)
      for (const std::string &Pat : S.Covers)
        Covered |= matchesPattern(Pat, P);
    if (!Covered)
      R.warning(Node, P, "no entry in 'sources' covers this number");
  }

  if (!R.failed())
    Result.Model = std::move(M);
  return Result;
}

MachineLoadResult perfmodel::loadMachineModel(const std::string &File,
                                              const std::vector<std::string> &Sets) {
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf) {
    MachineLoadResult R;
    R.Diags.push_back({MachineDiag::Kind::Error, File, 0, 0, "",
                       "cannot read machine file: " + Buf.getError().message()});
    return R;
  }
  return parseMachineModel((*Buf)->getBuffer().str(), File, Sets);
}

//===- MachineYaml.h - Reading a machine file's YAML (internal) -*- C++ -*-===//
//
// The reader that walks a machine file's YAML tree once, remembering each
// value's dotted key path so every message names file:line and key; the
// readers of its sections (MachineRead.cpp); --set overrides and `base:`
// inheritance applied to the tree before it is read (MachineLoad.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_MACHINE_MACHINEYAML_H
#define PERFMODEL_MACHINE_MACHINEYAML_H

#include "perfmodel/MachineModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace perfmodel::machine_yaml {

/// Splits "caches.L2.size=2MiB" into path segments and the value text.
inline bool splitSet(const std::string &Set, std::vector<std::string> &Path,
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

inline bool matchesPattern(llvm::StringRef Pattern, llvm::StringRef Path) {
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
                llvm::ArrayRef<const char *> Allowed) {
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

inline std::string shortNumber(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%g", V);
  return Buf;
}

void readCore(Reader &R, const YAML::Node &N, CoreModel &C);

/// Reads the front-end keys of N present into F (core.front_end, or an
/// entry of the library's table); unless ALLBECAUSE is empty, every key must
/// be there (the error says why); EXTRA keys are allowed beside them.
void readFrontEnd(Reader &R, const YAML::Node &N, const std::string &Path, FrontEndModel &F,
                  const std::string &AllBecause, std::initializer_list<const char *> Extra);

/// One core's memory bandwidth by Little's law: the lines the outermost
/// private cache that states misses_in_flight keeps outstanding (the
/// prefetched streams' fills queue there), times the line, over the memory
/// latency. Without both keys there is no figure.
void deriveLittle(MachineModel &M);

void readCaches(Reader &R, const YAML::Node &N, std::vector<CacheLevel> &Out);

void readSources(Reader &R, const YAML::Node &N, std::vector<SourceRef> &Out);

void readMemory(Reader &R, const YAML::Node &Mem, MachineModel &M);

void readTlb(Reader &R, const YAML::Node &Root, MachineModel &M);

void readCpuid(Reader &R, const YAML::Node &Root, MachineModel &M);

/// Applies one --set override to the tree. Caches are addressed by name.
bool applySet(Reader &R, YAML::Node Root, const std::string &Set);

/// Merges DERIVED over BASE: maps key by key; `caches` entries by name (a new
/// name is appended); `sources` concatenated with DERIVED's first, so its
/// citation is the one shown where both cover a key; `instruction_overrides`
/// concatenated with DERIVED's last, so they apply after the base's; any other
/// value replaced. Nodes are shared with the inputs, not cloned: each keeps
/// the position it was read at, so a diagnostic names the file and line the
/// value came from (a clone has none).
YAML::Node mergeOver(const YAML::Node &Base, const YAML::Node &Derived, const std::string &Key);

/// Replaces ROOT by its `base:` model with ROOT's keys merged over it,
/// following the base's own base. A base is a library name or alias, or a
/// path relative to the file that names it. False (with a diagnostic) when a
/// base cannot be had.
bool resolveBase(YAML::Node &Root, const std::string &FileName, std::vector<MachineDiag> &Diags,
                 std::vector<std::string> &Chain,
                 std::vector<std::pair<YAML::Node, std::string>> &Origins);

} // namespace perfmodel::machine_yaml

#endif

//===- ViewHelpers.h - What the text and JSON views share -*- C++ -*-===//
#ifndef PERFMODEL_REPORT_VIEWHELPERS_H
#define PERFMODEL_REPORT_VIEWHELPERS_H

#include "perfmodel/Report.h"

#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfmodel::views {

/// Where a parameter's value came from, as the views name it.
const char *originName(Parameter::Origin O);

/// The calls a loop makes that no model costs: the prediction is a lower
/// bound (none when the in-core model did not run or costs them all).
const std::vector<std::string> &uncostedCalls(const LoopReport &LR);

/// A level's fill rates by working set: "46 B/cy at 64KiB, 61.4 at 512KiB".
std::string fromNextBySetText(const CacheLevel &L);

/// One JSON object's members, written in the order json::Value prints its
/// keys (sorted) without building a json::Object: a report's loops as trees
/// of small hash tables cost more than the rest of the JSON view. Keys and
/// str() values are referenced and must outlive write(); a key is given once.
class JsonMembers {
public:
  using Writer = std::function<void(llvm::json::OStream &)>;
  /// jsonNumber(V): 6 significant digits, null when not finite.
  JsonMembers &num(llvm::StringRef Key, double V);
  JsonMembers &integer(llvm::StringRef Key, int64_t V);
  JsonMembers &boolean(llvm::StringRef Key, bool V);
  JsonMembers &str(llvm::StringRef Key, llvm::StringRef V);
  /// A string that the members keep (a temporary).
  JsonMembers &owned(llvm::StringRef Key, std::string V);
  JsonMembers &null(llvm::StringRef Key);
  JsonMembers &value(llvm::StringRef Key, llvm::json::Value V);
  /// A value W writes when the object is written (an array, an object).
  JsonMembers &nested(llvm::StringRef Key, Writer W);
  /// A list of strings, referenced.
  JsonMembers &strings(llvm::StringRef Key, const std::vector<std::string> &V);
  /// A list of numbers (each as num()), referenced.
  JsonMembers &numbers(llvm::StringRef Key, const std::vector<double> &V);
  /// The object, its members sorted by key.
  void write(llvm::json::OStream &J);
  /// Adds "ok"; when !OK also REASON and writes the object (a result that
  /// failed says only why). Returns OK.
  bool okElseWrite(llvm::json::OStream &J, bool Ok, llvm::StringRef Reason);

private:
  enum class Kind { Number, Integer, Bool, String, Owned, Null, Value, Nested };
  struct Member {
    llvm::StringRef Key;
    Kind K;
    double D = 0;
    int64_t I = 0;
    llvm::StringRef S;
    std::string Own;
    std::unique_ptr<llvm::json::Value> V; // a pointer: Value's move may throw
    Writer W;
  };
  Member &add(llvm::StringRef Key, Kind K);
  // An instruction's object has five members, a loop's about twenty: the
  // small ones stay on the stack.
  llvm::SmallVector<Member, 8> M;
};

/// A writer of V as a JSON array, each element written by EACH(J, E); V is
/// referenced and must outlive the writer.
template <typename T, typename F>
JsonMembers::Writer jsonArray(const std::vector<T> &V, F Each) {
  return [&V, Each](llvm::json::OStream &J) {
    J.arrayBegin();
    for (const T &E : V)
      Each(J, E);
    J.arrayEnd();
  };
}

/// A number as jsonNumber rounds it and writeJSON writes it.
void writeNumber(llvm::json::OStream &J, double V);

} // namespace perfmodel::views

#endif

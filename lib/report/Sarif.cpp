//===- Sarif.cpp - SARIF 2.1.0 view for editors and code scanning ---------===//
//
// One result per loop: the headline prediction and its bottleneck as the
// message, at the loop's location. SARIF's `fix` must carry text edits, and
// perfmodel's advice is not one, so the advice is the message's second
// sentence and a property of the result (docs/sarif.md).
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Report.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace perfmodel;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

const char *const ToolVersion = "0.1.0";
const char *const PredictionRule = "perfmodel.prediction";
const char *const NotModelledRule = "perfmodel.not-modelled";

/// A path as a URI reference: relative paths stay relative, absolute ones
/// become file URIs; characters outside RFC 3986's unreserved set and '/'
/// are percent-encoded.
std::string uriOf(const std::string &Path) {
  std::string Out;
  if (llvm::sys::path::is_absolute(Path))
    Out = "file://";
  for (unsigned char C : Path) {
    if (std::isalnum(C) || C == '/' || C == '-' || C == '.' || C == '_' || C == '~') {
      Out += char(C);
    } else {
      static const char Hex[] = "0123456789ABCDEF";
      Out += '%';
      Out += Hex[C >> 4];
      Out += Hex[C & 15];
    }
  }
  return Out;
}

Value number(double V) { return jsonNumber(V); }

Object rule(const char *Id, const char *Name, const char *Short, const char *Full) {
  return Object{{"id", Id},
                {"name", Name},
                {"shortDescription", Object{{"text", Short}}},
                {"fullDescription", Object{{"text", Full}}},
                {"defaultConfiguration", Object{{"level", "note"}}}};
}

Object resultFor(const LoopReport &LR, const MachineModel &M) {
  const LoopKernel &K = *LR.Loop;
  Object Region{{"startLine", std::max(1u, K.Loc.Line)}};
  if (K.Loc.Column > 0)
    Region["startColumn"] = K.Loc.Column;
  Object Loc{{"physicalLocation",
              Object{{"artifactLocation", Object{{"uri", uriOf(K.Loc.File)}}},
                     {"region", std::move(Region)}}}};
  Object R{{"level", "note"}, {"kind", "informational"}};
  R["locations"] = Array{std::move(Loc)};
  const Prediction *P = LR.headline();
  const LevelPrediction *At = LR.headlineLevel();
  if (!K.Modelled || !P || !At) {
    R["ruleId"] = NotModelledRule;
    R["ruleIndex"] = 1;
    std::string Why = !K.Modelled ? K.Reason : "no model succeeded";
    R["message"] = Object{{"text", "Loop in " + K.Function + " not modelled: " + Why}};
    R["properties"] = Object{{"function", K.Function}, {"reason", Why}};
    return R;
  }
  R["ruleId"] = PredictionRule;
  R["ruleIndex"] = 0;
  std::string Text = "Loop in " + K.Function + " on " + M.Name + ": " + headlineText(LR) + ".";
  if (!P->Advice.empty())
    Text += " Advice: " + P->Advice + ".";
  R["message"] = Object{{"text", Text}};
  Value Props = headlineJSON(LR, M);
  Props.getAsObject()->insert({"function", K.Function});
  Props.getAsObject()->insert(
      {"iterations", LR.Iterations ? number(*LR.Iterations) : Value(nullptr)});
  R["properties"] = std::move(Props);
  return R;
}

} // namespace

void perfmodel::printSARIF(llvm::raw_ostream &OS, const AnalysisReport &R) {
  Array Rules;
  Rules.push_back(rule(PredictionRule, "LoopPrediction", "Predicted performance of a loop nest",
                       "perfmodel's headline prediction for the loop nest at the bound "
                       "sizes (ECM, else PPR, else the Roofline), what bounds it and what "
                       "to change."));
  Rules.push_back(rule(NotModelledRule, "LoopNotModelled", "A loop perfmodel cannot model",
                       "The loop nest was found but cannot be modelled; the message says "
                       "why."));
  Array Results;
  for (const LoopReport &LR : R.Loops)
    Results.push_back(resultFor(LR, *R.Machine));
  Object Driver{{"name", "perfmodel"},
                {"version", ToolVersion},
                {"semanticVersion", ToolVersion},
                {"rules", std::move(Rules)}};
  Object Run{{"tool", Object{{"driver", std::move(Driver)}}},
             {"results", std::move(Results)},
             {"properties", Object{{"machine", R.Machine->Name},
                                   {"machine_file", R.Machine->File},
                                   {"clock_ghz", number(R.Machine->ClockGHz)}}}};
  Object Log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
             {"version", "2.1.0"},
             {"runs", Array{std::move(Run)}}};
  OS << llvm::formatv("{0:2}", Value(std::move(Log))) << "\n";
}

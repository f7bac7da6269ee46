//===- ReportJson.cpp - The JSON view of an analysis ----------------------===//
//
// The analysis as JSON (docs/json-schema.md): per loop what the text
// view shows, every number a JSON number (null where not known).
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Report.h"
#include "ViewHelpers.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>

using namespace perfmodel;
using namespace perfmodel::views;

llvm::json::Value perfmodel::jsonNumber(double V) {
  if (!std::isfinite(V))
    return nullptr;
  // Round to 6 significant digits so golden files do not churn on last bits.
  if (V == 0)
    return 0.0;
  double Scale = std::pow(10.0, 5 - int(std::floor(std::log10(std::fabs(V)))));
  return std::round(V * Scale) / Scale;
}

void perfmodel::writeJSON(llvm::json::OStream &J, const llvm::json::Value &V) {
  using llvm::json::Value;
  switch (V.kind()) {
  case Value::Number: {
    char Buf[64];
    if (std::optional<int64_t> I = V.getAsInteger())
      return J.value(*I);
    if (std::optional<uint64_t> U = V.getAsUINT64())
      return J.value(*U);
    double D = *V.getAsNumber();
    if (!std::isfinite(D)) // JSON has no spelling for these: as LLVM writes them
      return J.value(V);
    auto [End, Error] = std::to_chars(Buf, Buf + sizeof(Buf), D);
    if (Error != std::errc())
      return J.value(V);
    return J.rawValue(llvm::StringRef(Buf, size_t(End - Buf)));
  }
  case Value::Array:
    J.arrayBegin();
    for (const Value &E : *V.getAsArray())
      writeJSON(J, E);
    J.arrayEnd();
    return;
  case Value::Object:
    J.objectBegin();
    for (const llvm::json::Object::value_type *E : llvm::json::sortedElements(*V.getAsObject())) {
      J.attributeBegin(E->first);
      writeJSON(J, E->second);
      J.attributeEnd();
    }
    J.objectEnd();
    return;
  default:
    J.value(V);
  }
}

void perfmodel::views::writeNumber(llvm::json::OStream &J, double V) {
  writeJSON(J, jsonNumber(V));
}

JsonMembers::Member &JsonMembers::add(llvm::StringRef Key, Kind K) {
  M.emplace_back();
  M.back().Key = Key;
  M.back().K = K;
  return M.back();
}
JsonMembers &JsonMembers::num(llvm::StringRef Key, double V) {
  add(Key, Kind::Number).D = V;
  return *this;
}
JsonMembers &JsonMembers::integer(llvm::StringRef Key, int64_t V) {
  add(Key, Kind::Integer).I = V;
  return *this;
}
JsonMembers &JsonMembers::boolean(llvm::StringRef Key, bool V) {
  add(Key, Kind::Bool).I = V;
  return *this;
}
JsonMembers &JsonMembers::str(llvm::StringRef Key, llvm::StringRef V) {
  add(Key, Kind::String).S = V;
  return *this;
}
JsonMembers &JsonMembers::owned(llvm::StringRef Key, std::string V) {
  add(Key, Kind::Owned).Own = std::move(V);
  return *this;
}
JsonMembers &JsonMembers::null(llvm::StringRef Key) {
  add(Key, Kind::Null);
  return *this;
}
JsonMembers &JsonMembers::value(llvm::StringRef Key, llvm::json::Value V) {
  add(Key, Kind::Value).V = std::make_unique<llvm::json::Value>(std::move(V));
  return *this;
}
JsonMembers &JsonMembers::nested(llvm::StringRef Key, Writer W) {
  add(Key, Kind::Nested).W = std::move(W);
  return *this;
}
JsonMembers &JsonMembers::strings(llvm::StringRef Key, const std::vector<std::string> &V) {
  return nested(Key, jsonArray(V, [](llvm::json::OStream &J, const std::string &S) { J.value(S); }));
}
JsonMembers &JsonMembers::numbers(llvm::StringRef Key, const std::vector<double> &V) {
  return nested(Key, jsonArray(V, writeNumber));
}

bool JsonMembers::okElseWrite(llvm::json::OStream &J, bool Ok, llvm::StringRef Reason) {
  boolean("ok", Ok);
  if (!Ok)
    str("reason", Reason).write(J);
  return Ok;
}

void JsonMembers::write(llvm::json::OStream &J) {
  std::sort(M.begin(), M.end(), [](const Member &A, const Member &B) { return A.Key < B.Key; });
  J.objectBegin();
  for (size_t I = 0; I < M.size(); ++I) {
    Member &X = M[I];
    assert((I == 0 || M[I - 1].Key != X.Key) && "a JSON key given twice");
    J.attributeBegin(X.Key);
    switch (X.K) {
    case Kind::Number:
      writeNumber(J, X.D);
      break;
    case Kind::Integer:
      J.value(X.I);
      break;
    case Kind::Bool:
      J.value(X.I != 0);
      break;
    case Kind::String:
      J.value(X.S);
      break;
    case Kind::Owned:
      J.value(X.Own);
      break;
    case Kind::Null:
      J.value(nullptr);
      break;
    case Kind::Value:
      writeJSON(J, *X.V);
      break;
    case Kind::Nested:
      X.W(J);
      break;
    }
    J.attributeEnd();
  }
  J.objectEnd();
}

llvm::json::Value perfmodel::headlineJSON(const LoopReport &LR, const MachineModel &M) {
  const Prediction *P = LR.headline();
  const LevelPrediction *At = LR.headlineLevel();
  if (!P || !At)
    return nullptr;
  llvm::json::Object O{{"model", P->name()},
                       {"data_level", At->Level},
                       {"cy_per_it", jsonNumber(At->CyclesPerIt)},
                       {"gflops", jsonNumber(At->GFlops)},
                       {"bottleneck", At->Bottleneck},
                       {"advice", P->Advice},
                       {"promised_gain_cy_per_it", jsonNumber(LR.promisedGainCyclesPerIt())}};
  // Calls in the loop: the prediction leaves their callees out.
  const std::vector<std::string> &Calls = uncostedCalls(LR);
  O["lower_bound"] = !Calls.empty();
  if (!Calls.empty()) {
    llvm::json::Array A;
    for (const std::string &C : Calls)
      A.push_back(C);
    O["uncosted_calls"] = std::move(A);
  }
  if (LR.Iterations && M.ClockGHz > 0)
    O["seconds"] = jsonNumber(At->CyclesPerIt * *LR.Iterations / (M.ClockGHz * 1e9));
  else
    O["seconds"] = nullptr;
  return O;
}

namespace {

using llvm::json::OStream;

void writePrediction(OStream &J, const Prediction &P) {
  JsonMembers O;
  O.owned("model", P.name());
  if (!O.okElseWrite(J, P.Ok, P.Reason))
    return;
  O.nested("levels", jsonArray(P.Levels, [](OStream &J, const LevelPrediction &L) {
    JsonMembers X;
    X.str("level", L.Level)
        .num("cy_per_it", L.CyclesPerIt)
        .num("gflops", L.GFlops)
        .str("bottleneck", L.Bottleneck)
        .write(J);
  }));
  O.str("data_level", P.DataLevel).str("advice", P.Advice).write(J);
}

void writeEcm(OStream &J, const EcmResult &E) {
  JsonMembers O;
  if (!O.okElseWrite(J, E.Ok, E.Reason))
    return;
  O.str("overlap", overlapRuleName(E.Overlap))
      .num("iterations_per_cl", E.ItersPerCL)
      .num("t_ol", E.TOL)
      .num("t_nol", E.TnOL)
      .boolean("incore_estimated", E.InCoreEstimated)
      .strings("links", E.Links)
      .numbers("transfers_cy_per_cl", E.Transfers)
      .numbers("tnol_serial_share", E.SerialShares)
      .numbers("latency_cy_per_cl", E.Latency)
      .strings("levels", E.Levels)
      .numbers("predictions_cy_per_cl", E.Predictions)
      .owned("notation", E.contributions() + " -> " + E.predictions())
      .integer("saturation_cores", E.SaturationCores)
      .num("saturated_gflops", E.SaturatedGFlops)
      .numbers("scaling_gflops", E.ScalingGFlops)
      .strings("notes", E.Notes)
      .write(J);
}

void writePpr(OStream &J, const PprResult &P) {
  JsonMembers O;
  if (!O.okElseWrite(J, P.Ok, P.Reason))
    return;
  O.nested("instructions_per_it",
           [&P](OStream &J) {
             JsonMembers X;
             X.num("add", P.A).num("mul", P.M).num("fma", P.Fma).num("load", P.L).num("store", P.S);
             X.write(J);
           })
      .num("s_dag_compute", P.ComputeCy)
      .num("s_dag_load_store", P.LoadStoreCy)
      .strings("levels", P.Levels)
      .numbers("regular_bytes_per_it", P.RegularBytes)
      .numbers("t_regular", P.RegularCy)
      .num("t_irregular", P.IrregularCy)
      .numbers("cy_per_it", P.TotalCy)
      .strings("notes", P.Notes)
      .write(J);
}

void writeFlops(OStream &J, const FlopCounts &F) {
  JsonMembers X;
  X.integer("add", F.Add)
      .integer("mul", F.Mul)
      .integer("div", F.Div)
      .integer("sqrt", F.Sqrt)
      .integer("other", F.Other)
      .integer("fma_contractible", F.FmaContractible)
      .integer("total", F.total())
      .write(J);
}

void writeTraffic(OStream &J, const TrafficResult &T) {
  JsonMembers O;
  if (!O.okElseWrite(J, T.Ok, T.Reason))
    return;
  O.nested("links", [&T](OStream &J) {
    J.arrayBegin();
    for (size_t I = 0; I < T.Links.size(); ++I) {
      const LinkTraffic &L = T.Links[I];
      JsonMembers X;
      X.str("inner", L.Inner)
          .str("outer", L.Outer)
          .num("load_bytes_per_it", L.LoadBytesPerIt)
          .num("evict_bytes_per_it", L.EvictBytesPerIt);
      if (I < T.MissesPerIt.size())
        X.num("misses_per_it", T.MissesPerIt[I]);
      X.write(J);
    }
    J.arrayEnd();
  });
  if (!T.Conditions.empty())
    O.nested("conditions", jsonArray(T.Conditions, [](OStream &J, const LayerCondition &C) {
      JsonMembers X;
      X.str("level", C.Level).str("text", C.Text).boolean("holds", C.Holds);
      if (C.Limit)
        X.str("param", C.Param).integer("limit", *C.Limit);
      X.write(J);
    }));
  if (T.SimulatedIterations)
    O.value("simulated_iterations", T.SimulatedIterations);
  if (T.RatedIterations)
    O.value("rated_iterations", T.RatedIterations);
  O.strings("notes", T.Notes).write(J);
}

void writeLoc(OStream &J, const SourceLoc &L) {
  JsonMembers X;
  X.str("file", L.File).integer("line", L.Line).integer("column", L.Column).write(J);
}

/// The nest's levels: bounds, step, trip count at the bound sizes, pragma.
void writeNest(OStream &J, const LoopKernel &K, const std::map<std::string, int64_t> &Bindings) {
  J.arrayBegin();
  for (const LoopLevel &LL : K.Nest) {
    JsonMembers N;
    N.str("var", LL.Var)
        .owned("lower", LL.Lower.str())
        .owned("upper", LL.Upper.str())
        .integer("step", LL.Step)
        .nested("location", [&LL](OStream &J) { writeLoc(J, LL.Loc); });
    if (auto TC = tripCount(LL, Bindings))
      N.integer("trip_count", *TC);
    else
      N.null("trip_count");
    LL.Pragma.empty() ? N.null("pragma") : N.str("pragma", LL.Pragma);
    LL.Exit.empty() ? N.null("exit") : N.str("exit", LL.Exit);
    N.write(J);
  }
  J.arrayEnd();
}

/// The loop's references: array, subscripts, stride, read/write, indirection.
void writeAccesses(OStream &J, const LoopKernel &K) {
  J.arrayBegin();
  for (const Access &A : K.Accesses) {
    JsonMembers O;
    O.str("array", A.Array)
        .str("text", A.Text)
        .boolean("read", A.Read)
        .boolean("write", A.Write)
        .integer("bytes", A.ElementBytes)
        .integer("stride_bytes", A.StrideBytes)
        .integer("field_offset", A.FieldOffset)
        .nested("subscripts",
                jsonArray(A.Subscripts, [](OStream &J, const Poly &P) { J.value(P.str()); }))
        .boolean("indirect", A.Indirect)
        .nested("location", [&A](OStream &J) { writeLoc(J, A.Loc); });
    A.Linear ? O.owned("linear", A.Linear->str()) : O.null("linear");
    A.Indirect ? O.str("indirect_via", A.IndirectVia) : O.null("indirect_via");
    A.NonAffine.empty() ? O.null("non_affine") : O.str("non_affine", A.NonAffine);
    O.write(J);
  }
  J.arrayEnd();
}

/// The Roofline's levels (link, bytes, intensity, roofs, binding) and ceilings.
void writeRoofline(OStream &J, const RooflineResult &RF) {
  JsonMembers O;
  O.str("precision", RF.Precision)
      .num("incore_cy_per_it", RF.InCoreCyclesPerIt)
      .num("incore_gflops", RF.InCoreGFlops)
      .num("flops_per_it", RF.FlopsPerIt)
      .num("peak_gflops", RF.PeakGFlops)
      .num("ridge_intensity", RF.RidgeIntensity)
      .nested("levels", jsonArray(RF.Levels,
                                [](OStream &J, const RooflineLink &X) {
                                  JsonMembers L;
                                  L.str("level", X.Level)
                                      .str("link", X.Link)
                                      .num("bytes_per_it", X.BytesPerIt)
                                      .num("intensity", X.Intensity)
                                      .num("bandwidth_gbs", X.BandwidthGBs)
                                      .num("link_cy_per_it", X.CyclesPerIt)
                                      .num("roof_gflops", X.RoofGFlops)
                                      .num("bound_gflops", X.BoundGFlops)
                                      .num("bound_cy_per_it", X.BoundCyclesPerIt)
                                      .str("binding", X.Binding)
                                      .write(J);
                                }))
      .nested("ceilings", jsonArray(RF.Ceilings,
                                  [](OStream &J, const ComputeCeiling &C) {
                                    JsonMembers X;
                                    X.str("name", C.Name).num("gflops", C.GFlops).write(J);
                                  }))
      .integer("cores", RF.Cores)
      .strings("notes", RF.Notes)
      .write(J);
}

void writeTlb(OStream &J, const TlbMisses &T) {
  JsonMembers X;
  if (!T.Ok) {
    X.str("reason", T.Reason).write(J);
    return;
  }
  X.num("load_misses_per_it", T.LoadsPerIt)
      .num("store_misses_per_it", T.StoresPerIt)
      .num("cycles_per_it", T.CyclesPerIt)
      .num("l1_load_misses_per_it", T.L1LoadsPerIt)
      .num("l1_store_misses_per_it", T.L1StoresPerIt)
      .num("l1_cycles_per_it", T.L1CyclesPerIt)
      .write(J);
}

/// One loop's object, written as it is built: nothing of it is kept.
void writeLoop(OStream &J, const LoopReport &LR, unsigned Id, const MachineModel &M,
               const std::map<std::string, int64_t> &Bindings) {
  const LoopKernel &K = *LR.Loop;
  JsonMembers L;
  L.integer("id", Id)
      .str("function", K.Function)
      .nested("location", [&K](OStream &J) { writeLoc(J, K.Loc); })
      .boolean("modelled", K.Modelled);
  K.Modelled ? L.null("reason") : L.str("reason", K.Reason);
  L.nested("nest", [&](OStream &J) { writeNest(J, K, Bindings); });
  if (K.Modelled) {
    L.nested("flops", [&K](OStream &J) {
      JsonMembers F;
      F.integer("total", K.flops())
          .nested("double", [&K](OStream &J) { writeFlops(J, K.Double); })
          .nested("single", [&K](OStream &J) { writeFlops(J, K.Single); })
          .write(J);
    });
    L.nested("accesses", [&K](OStream &J) { writeAccesses(J, K); });
    L.strings("reductions", K.Reductions);
  }
  if (LR.Roofline) {
    const RooflineResult &RF = *LR.Roofline;
    L.nested("traffic", [&LR, &RF](OStream &J) {
      JsonMembers Tr;
      Tr.str("model", trafficSourceName(RF.TrafficModel))
          .num("load_bytes", RF.Traffic.LoadBytes)
          .num("store_bytes", RF.Traffic.StoreBytes)
          .num("write_allocate_bytes", RF.Traffic.WriteAllocateBytes);
      if (LR.Conditions)
        Tr.nested("layer_conditions", [&LR](OStream &J) { writeTraffic(J, *LR.Conditions); });
      if (LR.Simulated)
        Tr.nested("simulator", [&LR](OStream &J) { writeTraffic(J, *LR.Simulated); });
      Tr.write(J);
    });
    if (LR.InCore)
      L.nested("incore", [&LR](OStream &J) { writeInCoreJSON(J, *LR.InCore); });
    L.nested("roofline", [&RF](OStream &J) { writeRoofline(J, RF); });
  }
  if (LR.Ecm)
    L.nested("ecm", [&LR](OStream &J) { writeEcm(J, *LR.Ecm); });
  if (LR.Ppr)
    L.nested("ppr", [&LR](OStream &J) { writePpr(J, *LR.Ppr); });
  if (K.Modelled) {
    LR.WorkingSetBytes ? L.num("working_set_bytes", *LR.WorkingSetBytes)
                       : L.null("working_set_bytes");
    L.nested("predictions", [&LR](OStream &J) {
      J.arrayBegin();
      for (const Prediction *P : LR.predictions())
        writePrediction(J, *P);
      J.arrayEnd();
    });
    LR.Iterations ? L.num("iterations", *LR.Iterations) : L.null("iterations");
    if (LR.Tlb)
      L.nested("tlb", [&LR](OStream &J) { writeTlb(J, *LR.Tlb); });
    L.value("prediction", headlineJSON(LR, M));
  }
  L.strings("notes", K.Notes).write(J);
}

} // namespace

void perfmodel::printJSON(llvm::raw_ostream &OS, const AnalysisReport &R) {
  using llvm::json::Array;
  using llvm::json::Object;
  using llvm::json::Value;
  const KernelIR &IR = *R.IR;
  const MachineModel &M = *R.Machine;
  const auto &Bindings = IR.bindings();

  Array Params;
  Params.reserve(IR.Parameters.size());
  for (const auto &[Name, P] : IR.Parameters) {
    Object O{{"name", Name}, {"origin", originName(P.From)}};
    O["value"] = Bindings.count(Name) ? Value(Bindings.at(Name)) : Value(nullptr);
    if (!P.Where.empty())
      O["where"] = P.Where;
    Params.push_back(std::move(O));
  }
  Array Notes;
  Notes.reserve(R.Notes.size() + IR.Notes.size());
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  for (const std::string &N : IR.Notes)
    Notes.push_back(N);

  // The root's members in the order json::Value prints them (sorted keys),
  // the loops streamed one by one.
  llvm::json::OStream J(OS, 2);
  J.objectBegin();
  J.attribute("file", IR.File);
  J.attributeArray("loops", [&] {
    unsigned Id = 0;
    for (const LoopReport &LR : R.Loops)
      writeLoop(J, LR, ++Id, M, Bindings);
  });
  J.attributeBegin("machine");
  JsonMembers Machine;
  Machine.str("name", M.Name)
      .str("file", M.File)
      .str("llvm_cpu", M.Cpu)
      .num("clock_ghz", M.ClockGHz)
      .strings("overrides", M.Overrides)
      .write(J);
  J.attributeEnd();
  J.attribute("notes", std::move(Notes));
  J.attributeBegin("parameters");
  writeJSON(J, Value(std::move(Params)));
  J.attributeEnd();
  J.attribute("schema", "perfmodel-analysis");
  J.attribute("version", JsonSchemaVersion);
  J.objectEnd();
  OS << "\n";
}

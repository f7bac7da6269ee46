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

namespace {

llvm::json::Value num(double V) { return jsonNumber(V); }


llvm::json::Array strings(const std::vector<std::string> &V) {
  llvm::json::Array A;
  A.reserve(V.size());
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

llvm::json::Array numbers(const std::vector<double> &V) {
  llvm::json::Array A;
  A.reserve(V.size());
  for (double D : V)
    A.push_back(num(D));
  return A;
}

llvm::json::Array ceilingsJSON(const RooflineResult &R) {
  llvm::json::Array A;
  A.reserve(R.Ceilings.size());
  for (const ComputeCeiling &C : R.Ceilings)
    A.push_back(llvm::json::Object{{"name", C.Name}, {"gflops", num(C.GFlops)}});
  return A;
}

} // namespace

llvm::json::Value perfmodel::headlineJSON(const LoopReport &LR, const MachineModel &M) {
  const Prediction *P = LR.headline();
  const LevelPrediction *At = LR.headlineLevel();
  if (!P || !At)
    return nullptr;
  llvm::json::Object O{{"model", P->name()},
                       {"data_level", At->Level},
                       {"cy_per_it", num(At->CyclesPerIt)},
                       {"gflops", num(At->GFlops)},
                       {"bottleneck", At->Bottleneck},
                       {"advice", P->Advice},
                       {"promised_gain_cy_per_it", num(LR.promisedGainCyclesPerIt())}};
  // Calls in the loop: the prediction leaves their callees out.
  const std::vector<std::string> &Calls = uncostedCalls(LR);
  O["lower_bound"] = !Calls.empty();
  if (!Calls.empty())
    O["uncosted_calls"] = strings(Calls);
  if (LR.Iterations && M.ClockGHz > 0)
    O["seconds"] = num(At->CyclesPerIt * *LR.Iterations / (M.ClockGHz * 1e9));
  else
    O["seconds"] = nullptr;
  return O;
}

namespace {

llvm::json::Object predictionJSON(const Prediction &P) {
  llvm::json::Object O{{"model", P.name()}, {"ok", P.Ok}};
  if (!P.Ok) {
    O["reason"] = P.Reason;
    return O;
  }
  llvm::json::Array Levels;
  Levels.reserve(P.Levels.size());
  for (const LevelPrediction &L : P.Levels)
    Levels.push_back(llvm::json::Object{{"level", L.Level},
                                        {"cy_per_it", num(L.CyclesPerIt)},
                                        {"gflops", num(L.GFlops)},
                                        {"bottleneck", L.Bottleneck}});
  O["levels"] = std::move(Levels);
  O["data_level"] = P.DataLevel;
  O["advice"] = P.Advice;
  return O;
}

llvm::json::Object ecmJSON(const EcmResult &E) {
  llvm::json::Object O{{"ok", E.Ok}};
  if (!E.Ok) {
    O["reason"] = E.Reason;
    return O;
  }
  O["overlap"] = overlapRuleName(E.Overlap);
  O["iterations_per_cl"] = num(E.ItersPerCL);
  O["t_ol"] = num(E.TOL);
  O["t_nol"] = num(E.TnOL);
  O["incore_estimated"] = E.InCoreEstimated;
  O["links"] = strings(E.Links);
  O["transfers_cy_per_cl"] = numbers(E.Transfers);
  O["tnol_serial_share"] = numbers(E.SerialShares);
  O["latency_cy_per_cl"] = numbers(E.Latency);
  O["levels"] = strings(E.Levels);
  O["predictions_cy_per_cl"] = numbers(E.Predictions);
  O["notation"] = E.contributions() + " -> " + E.predictions();
  O["saturation_cores"] = E.SaturationCores;
  O["saturated_gflops"] = num(E.SaturatedGFlops);
  O["scaling_gflops"] = numbers(E.ScalingGFlops);
  O["notes"] = strings(E.Notes);
  return O;
}

llvm::json::Object pprJSON(const PprResult &P) {
  llvm::json::Object O{{"ok", P.Ok}};
  if (!P.Ok) {
    O["reason"] = P.Reason;
    return O;
  }
  O["instructions_per_it"] = llvm::json::Object{{"add", num(P.A)}, {"mul", num(P.M)},
                                                {"fma", num(P.Fma)}, {"load", num(P.L)},
                                                {"store", num(P.S)}};
  O["s_dag_compute"] = num(P.ComputeCy);
  O["s_dag_load_store"] = num(P.LoadStoreCy);
  O["levels"] = strings(P.Levels);
  O["regular_bytes_per_it"] = numbers(P.RegularBytes);
  O["t_regular"] = numbers(P.RegularCy);
  O["t_irregular"] = num(P.IrregularCy);
  O["cy_per_it"] = numbers(P.TotalCy);
  O["notes"] = strings(P.Notes);
  return O;
}

llvm::json::Object flopsJSON(const FlopCounts &F) {
  return llvm::json::Object{{"add", F.Add},     {"mul", F.Mul},
                            {"div", F.Div},     {"sqrt", F.Sqrt},
                            {"other", F.Other}, {"fma_contractible", F.FmaContractible},
                            {"total", F.total()}};
}

llvm::json::Object trafficJSON(const TrafficResult &T) {
  using llvm::json::Array;
  using llvm::json::Object;
  Object O{{"ok", T.Ok}};
  if (!T.Ok) {
    O["reason"] = T.Reason;
    return O;
  }
  Array Links;
  Links.reserve(T.Links.size());
  for (size_t I = 0; I < T.Links.size(); ++I) {
    const LinkTraffic &L = T.Links[I];
    Object LO{{"inner", L.Inner},
              {"outer", L.Outer},
              {"load_bytes_per_it", num(L.LoadBytesPerIt)},
              {"evict_bytes_per_it", num(L.EvictBytesPerIt)}};
    if (I < T.MissesPerIt.size())
      LO["misses_per_it"] = num(T.MissesPerIt[I]);
    Links.push_back(std::move(LO));
  }
  O["links"] = std::move(Links);
  Array Conds;
  Conds.reserve(T.Conditions.size());
  for (const LayerCondition &C : T.Conditions) {
    Object CO{{"level", C.Level}, {"text", C.Text}, {"holds", C.Holds}};
    if (C.Limit) {
      CO["param"] = C.Param;
      CO["limit"] = *C.Limit;
    }
    Conds.push_back(std::move(CO));
  }
  if (!T.Conditions.empty())
    O["conditions"] = std::move(Conds);
  if (T.SimulatedIterations)
    O["simulated_iterations"] = T.SimulatedIterations;
  if (T.RatedIterations)
    O["rated_iterations"] = T.RatedIterations;
  O["notes"] = strings(T.Notes);
  return O;
}

llvm::json::Object locJSON(const SourceLoc &L) {
  return llvm::json::Object{{"file", L.File}, {"line", L.Line}, {"column", L.Column}};
}

} // namespace

namespace {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

/// The nest's levels: bounds, step, trip count at the bound sizes, pragma.
Array nestJSON(const LoopKernel &K, const std::map<std::string, int64_t> &Bindings) {
  Array Nest;
  Nest.reserve(K.Nest.size());
  for (const LoopLevel &LL : K.Nest) {
    Object N{{"var", LL.Var},
             {"lower", LL.Lower.str()},
             {"upper", LL.Upper.str()},
             {"step", LL.Step},
             {"location", locJSON(LL.Loc)}};
    auto TC = tripCount(LL, Bindings);
    N["trip_count"] = TC ? Value(*TC) : Value(nullptr);
    N["pragma"] = LL.Pragma.empty() ? Value(nullptr) : Value(LL.Pragma);
    N["exit"] = LL.Exit.empty() ? Value(nullptr) : Value(LL.Exit);
    Nest.push_back(std::move(N));
  }
  return Nest;
}

/// The loop's references: array, subscripts, stride, read/write, indirection.
Array accessesJSON(const LoopKernel &K) {
  Array Acc;
  Acc.reserve(K.Accesses.size());
  for (const Access &A : K.Accesses) {
    Array Subs;
    Subs.reserve(A.Subscripts.size());
    for (const Poly &P : A.Subscripts)
      Subs.push_back(P.str());
    Object O{{"array", A.Array},     {"text", A.Text},
             {"read", A.Read},       {"write", A.Write},
             {"bytes", A.ElementBytes}, {"stride_bytes", A.StrideBytes},
             {"field_offset", A.FieldOffset}, {"subscripts", std::move(Subs)},
             {"indirect", A.Indirect}, {"location", locJSON(A.Loc)}};
    O["linear"] = A.Linear ? Value(A.Linear->str()) : Value(nullptr);
    O["indirect_via"] = A.Indirect ? Value(A.IndirectVia) : Value(nullptr);
    O["non_affine"] = A.NonAffine.empty() ? Value(nullptr) : Value(A.NonAffine);
    Acc.push_back(std::move(O));
  }
  return Acc;
}

/// The Roofline's levels (link, bytes, intensity, roofs, binding) and ceilings.
Object rooflineJSON(const RooflineResult &RF) {
  Array Levels;
  Levels.reserve(RF.Levels.size());
  for (const RooflineLink &X : RF.Levels)
    Levels.push_back(Object{{"level", X.Level},
                            {"link", X.Link},
                            {"bytes_per_it", num(X.BytesPerIt)},
                            {"intensity", num(X.Intensity)},
                            {"bandwidth_gbs", num(X.BandwidthGBs)},
                            {"link_cy_per_it", num(X.CyclesPerIt)},
                            {"roof_gflops", num(X.RoofGFlops)},
                            {"bound_gflops", num(X.BoundGFlops)},
                            {"bound_cy_per_it", num(X.BoundCyclesPerIt)},
                            {"binding", X.Binding}});
  return Object{{"precision", RF.Precision},
                {"incore_cy_per_it", num(RF.InCoreCyclesPerIt)},
                {"incore_gflops", num(RF.InCoreGFlops)},
                {"flops_per_it", num(RF.FlopsPerIt)},
                {"peak_gflops", num(RF.PeakGFlops)},
                {"ridge_intensity", num(RF.RidgeIntensity)},
                {"levels", std::move(Levels)},
                {"ceilings", ceilingsJSON(RF)},
                {"cores", RF.Cores},
                {"notes", strings(RF.Notes)}};
}

/// One loop's object: built, written and dropped before the next (a file's
/// whole tree of small objects, each with LLVM's least hash table, took
/// more time and memory than the analysis of some files).
Object loopJSON(const LoopReport &LR, unsigned Id, const MachineModel &M,
                const std::map<std::string, int64_t> &Bindings) {
  const LoopKernel &K = *LR.Loop;
  Object L{{"id", Id},
           {"function", K.Function},
           {"location", locJSON(K.Loc)},
           {"modelled", K.Modelled}};
  L["reason"] = K.Modelled ? Value(nullptr) : Value(K.Reason);
  L["nest"] = nestJSON(K, Bindings);
  if (K.Modelled) {
    L["flops"] = Object{{"total", K.flops()},
                        {"double", flopsJSON(K.Double)},
                        {"single", flopsJSON(K.Single)}};
    L["accesses"] = accessesJSON(K);
    L["reductions"] = strings(K.Reductions);
  }
  if (LR.Roofline) {
    const RooflineResult &RF = *LR.Roofline;
    Object Tr{{"model", trafficSourceName(RF.TrafficModel)},
              {"load_bytes", num(RF.Traffic.LoadBytes)},
              {"store_bytes", num(RF.Traffic.StoreBytes)},
              {"write_allocate_bytes", num(RF.Traffic.WriteAllocateBytes)}};
    if (LR.Conditions)
      Tr["layer_conditions"] = trafficJSON(*LR.Conditions);
    if (LR.Simulated)
      Tr["simulator"] = trafficJSON(*LR.Simulated);
    L["traffic"] = std::move(Tr);
    if (LR.InCore)
      L["incore"] = inCoreJSON(*LR.InCore);
    L["roofline"] = rooflineJSON(RF);
  }
  if (LR.Ecm)
    L["ecm"] = ecmJSON(*LR.Ecm);
  if (LR.Ppr)
    L["ppr"] = pprJSON(*LR.Ppr);
  if (K.Modelled) {
    L["working_set_bytes"] = LR.WorkingSetBytes ? num(*LR.WorkingSetBytes) : Value(nullptr);
    Array Ps;
    for (const Prediction *P : LR.predictions())
      Ps.push_back(predictionJSON(*P));
    L["predictions"] = std::move(Ps);
    L["iterations"] = LR.Iterations ? num(*LR.Iterations) : Value(nullptr);
    if (LR.Tlb)
      L["tlb"] = LR.Tlb->Ok ? Value(Object{{"load_misses_per_it", num(LR.Tlb->LoadsPerIt)},
                                           {"store_misses_per_it", num(LR.Tlb->StoresPerIt)},
                                           {"cycles_per_it", num(LR.Tlb->CyclesPerIt)},
                                           {"l1_load_misses_per_it", num(LR.Tlb->L1LoadsPerIt)},
                                           {"l1_store_misses_per_it", num(LR.Tlb->L1StoresPerIt)},
                                           {"l1_cycles_per_it", num(LR.Tlb->L1CyclesPerIt)}})
                            : Value(Object{{"reason", LR.Tlb->Reason}});
    L["prediction"] = headlineJSON(LR, M);
  }
  L["notes"] = strings(K.Notes);
  return L;
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
      writeJSON(J, loopJSON(LR, ++Id, M, Bindings));
  });
  J.attributeBegin("machine");
  writeJSON(J, Object{{"name", M.Name},
                      {"file", M.File},
                      {"llvm_cpu", M.Cpu},
                      {"clock_ghz", num(M.ClockGHz)},
                      {"overrides", strings(M.Overrides)}});
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

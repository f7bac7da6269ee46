//===- ChooseVariants.cpp - Rank functions computing the same thing --------===//
//
// Each variant is the loops of one function. At every size asked for, the
// pipeline predicts each loop (in-core results computed once per file), the
// variant's time is the sum of its loops' times, and the fastest wins.
// Where the winner changes between two sizes asked for, bisection on the
// size finds the crossover to within 1 %.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Choose.h"

#include <algorithm>
#include <chrono>
#include <cmath>

using namespace perfmodel;

namespace {

VariantEstimate predictVariant(const VariantInput &V, const MachineModel &M,
                               std::optional<ModelKind> Model) {
  VariantEstimate E;
  PipelineOptions PO = V.Pipeline;
  const std::string &Fn = V.Function;
  PO.Select = [&Fn](const LoopKernel &K) { return K.Function == Fn; };
  AnalysisReport R;
  modelLoops(R, *V.IR, M, PO, V.InCore);
  if (R.Loops.empty()) {
    E.Reason = "'" + Fn + "' has no loops";
    return E;
  }
  double Longest = -1, Flops = 0;
  for (const LoopReport &LR : R.Loops) {
    const LoopKernel &K = *LR.Loop;
    if (!K.Modelled) {
      E.Reason = "loop at " + K.Loc.str() + " not modelled: " + K.Reason;
      return E;
    }
    const Prediction *P = rankingPrediction(LR, Model);
    const LevelPrediction *At = P ? P->atDataLevel() : nullptr;
    if (!At || At->CyclesPerIt <= 0) {
      E.Reason = "loop at " + K.Loc.str() + ": " +
                 (!Model ? "no model succeeded" : rankingModelName(Model) + " did not succeed");
      return E;
    }
    if (!LR.Iterations || *LR.Iterations < 0) {
      E.Reason = "loop at " + K.Loc.str() + ": its iteration count is unknown";
      return E;
    }
    double S = At->CyclesPerIt * *LR.Iterations / (M.ClockGHz * 1e9);
    E.Seconds += S;
    Flops += double(K.flops()) * *LR.Iterations;
    if (S > Longest) {
      Longest = S;
      E.DataLevel = P->DataLevel;
      E.Bottleneck = P->name() + ": " + At->Bottleneck;
    }
  }
  E.Ok = true;
  E.GFlops = E.Seconds > 0 ? Flops / E.Seconds * 1e-9 : 0;
  return E;
}

VariantPoint predictPoint(std::vector<VariantInput> &Vs, const MachineModel &M,
                          const VariantOptions &O, int64_t Value) {
  VariantPoint P;
  P.Value = Value;
  if (!O.Param.empty())
    bindVariants(Vs, O.Param, Value);
  for (const VariantInput &V : Vs)
    P.Variants.push_back(predictVariant(V, M, O.Model));
  P.Winner = fastestVariant(P.Variants, false);
  return P;
}

} // namespace

void perfmodel::bindVariants(std::vector<VariantInput> &Vs, const std::string &Param,
                             int64_t Value) {
  // Several variants may share one IR: binding twice is harmless.
  for (VariantInput &V : Vs) {
    auto It = V.IR->Parameters.find(Param);
    if (It == V.IR->Parameters.end())
      continue;
    It->second.Value = Value;
    It->second.From = Parameter::Origin::CommandLine;
  }
}

int perfmodel::fastestVariant(const std::vector<VariantEstimate> &E, bool Measured) {
  int Best = -1;
  double BestS = 0;
  for (size_t I = 0; I < E.size(); ++I) {
    std::optional<double> S = Measured ? E[I].Measured
                              : E[I].Ok ? std::optional<double>(E[I].Seconds)
                                        : std::nullopt;
    if (!S)
      continue;
    // Ties (equal to 1e-9) go to the first given, so that a crossover is
    // never reported between two equal predictions.
    if (Best < 0 || *S < BestS * (1 - 1e-9)) {
      Best = int(I);
      BestS = *S;
    }
  }
  return Best;
}

std::vector<VariantCrossover> perfmodel::winnerChanges(const std::vector<VariantPoint> &Points,
                                                       bool Measured) {
  std::vector<VariantCrossover> Out;
  for (size_t I = 1; I < Points.size(); ++I) {
    int A = Measured ? Points[I - 1].MeasuredWinner : Points[I - 1].Winner;
    int B = Measured ? Points[I].MeasuredWinner : Points[I].Winner;
    if (A >= 0 && B >= 0 && A != B)
      Out.push_back({Points[I - 1].Value, Points[I].Value, A, B});
  }
  return Out;
}

bool perfmodel::chooseVariants(std::vector<VariantInput> &Vs, const MachineModel &M,
                               const VariantOptions &O, VariantChoice &Out,
                               std::string &Error) {
  auto Start = std::chrono::steady_clock::now();
  Out = VariantChoice();
  Out.Param = O.Param;
  Out.Model = O.Model;
  if (Vs.size() < 2) {
    Error = "choose needs at least two variants to compare";
    return false;
  }
  for (const VariantInput &V : Vs) {
    Out.Names.push_back(V.Name);
    bool Found = false, Uses = O.Param.empty();
    for (const LoopKernel &K : V.IR->Loops)
      if (K.Function == V.Function) {
        Found = true;
        for (const LoopLevel &L : K.Nest)
          for (const Poly *P : {&L.Lower, &L.Upper})
            for (const std::string &S : P->symbols())
              Uses |= S == O.Param;
        for (const Access &A : K.Accesses) {
          for (const Poly &P : A.Subscripts)
            for (const std::string &S : P.symbols())
              Uses |= S == O.Param;
          if (A.Linear)
            for (const std::string &S : A.Linear->symbols())
              Uses |= S == O.Param;
        }
      }
    if (!Found) {
      std::string Known;
      for (const auto &[Name, F] : V.IR->Functions)
        Known += (Known.empty() ? "" : ", ") + Name;
      Error = "--variant " + V.Name + ": no function '" + V.Function + "' with loops" +
              (Known.empty() ? "" : " (functions with loops: " + Known + ")");
      return false;
    }
    if (!Uses) {
      Error = "--variant " + V.Name + ": its loops do not depend on '" + O.Param +
              "', so sweeping it cannot rank them";
      return false;
    }
  }
  std::vector<int64_t> Values = O.Values;
  if (Values.empty()) // one point at the sizes the front end bound
    Values.push_back(0);
  size_t Done = 0, Total = Values.size();
  auto Progress = [&](const std::string &What) {
    if (O.Progress)
      O.Progress(Done, Total, What);
  };
  for (int64_t V : Values) {
    Progress(O.Param.empty() ? "predicting" : O.Param + "=" + std::to_string(V));
    Out.Points.push_back(predictPoint(Vs, M, O, V));
    ++Done;
  }
  if (std::all_of(Out.Points.begin(), Out.Points.end(),
                  [](const VariantPoint &P) { return P.Winner < 0; })) {
    Error = "no variant could be predicted";
    for (size_t I = 0; I < Vs.size(); ++I)
      Error += "\n  " + Vs[I].Name + ": " + Out.Points.front().Variants[I].Reason;
    return false;
  }

  // Bisection between two sizes asked for whose winners differ: the size
  // moves geometrically (working sets cross cache capacities by factors).
  for (VariantCrossover C : winnerChanges(Out.Points, false)) {
    int64_t Lo = C.Last, Hi = C.First;
    int ToWinner = C.To;
    for (unsigned Step = 0; Step < O.RefineSteps && Hi - Lo > 1 &&
                            double(Hi - Lo) > 0.01 * double(Lo);
         ++Step) {
      int64_t Mid = int64_t(std::llround(std::sqrt(double(Lo) * double(Hi))));
      Mid = std::clamp(Mid, Lo + 1, Hi - 1);
      Progress(O.Param + "=" + std::to_string(Mid) + " (crossover)");
      int W = predictPoint(Vs, M, O, Mid).Winner;
      if (W == C.From) {
        Lo = Mid;
      } else {
        Hi = Mid;
        if (W >= 0)
          ToWinner = W;
      }
    }
    Out.Crossovers.push_back({Lo, Hi, C.From, ToWinner});
  }
  // Leave the IR bound at the last size asked for.
  if (!O.Param.empty())
    bindVariants(Vs, O.Param, Values.back());
  Out.AnalysisSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  return true;
}

//===- ChooseBcsr.cpp - Predict SpMV for every BCSR block size ------------===//
//
// One generated source holds the kernel of every block shape; it is
// compiled once for the in-core model. Each candidate then gets the cache
// simulator on its own block structure (the block row pointers and block
// column indices are the index data of browptr and bcol) and the models.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Choose.h"
#include "perfmodel/Frontend.h"
#include "perfmodel/Pipeline.h"
#include "perfmodel/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <cmath>

using namespace perfmodel;

namespace {

/// The cycles per innermost iteration (one block) of MODEL on simulated
/// traffic: every link carries what the simulator says, so the prediction
/// is the slowest of the model's levels (for ECM and PPR the memory level,
/// which sums or bounds them all; for the Roofline the binding roof).
const LevelPrediction *slowestLevel(const Prediction &P) {
  const LevelPrediction *Worst = nullptr;
  for (const LevelPrediction &L : P.Levels)
    if (!Worst || L.CyclesPerIt > Worst->CyclesPerIt)
      Worst = &L;
  return Worst;
}

} // namespace

const Prediction *perfmodel::rankingPrediction(const LoopReport &LR,
                                               std::optional<ModelKind> Model) {
  if (!Model)
    return LR.headline();
  for (const Prediction *P : LR.predictions())
    if (P->Kind == *Model)
      return P->Ok ? P : nullptr;
  return nullptr;
}

std::string perfmodel::rankingModelName(std::optional<ModelKind> Model) {
  return Model ? modelKindName(*Model) : "headline";
}

namespace {

/// One BCSR choice: the kernels compiled once, every block shape's lower
/// bound with its data in L1, the promising shapes simulated, the ranking.
class BcsrChooser {
public:
  BcsrChooser(const CsrPattern &A, const std::string &Name, const MachineModel &M,
              const ChooseOptions &O, BcsrChoice &Out, std::string &Error)
      : A(A), Name(Name), M(M), O(O), Out(Out), Error(Error),
        Shapes(bcsrShapes(O.MaxR, O.MaxC)) {}

  bool run() {
    auto Start = std::chrono::steady_clock::now();
    Out = BcsrChoice();
    Out.Matrix = Name;
    Out.Rows = A.Rows;
    Out.Cols = A.Cols;
    Out.Nonzeros = A.nonzeros();
    Out.Model = O.Model;
    if (A.nonzeros() == 0) {
      Error = Name + ": the matrix has no nonzeros";
      return false;
    }
    if (!compileKernels())
      return false;
    lowerBounds();
    simulateInOrder();
    if (!rank())
      return false;
    notes();
    Out.AnalysisSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    return true;
  }

private:
  const CsrPattern &A;
  const std::string &Name;
  const MachineModel &M;
  const ChooseOptions &O;
  BcsrChoice &Out;
  std::string &Error;
  std::vector<std::pair<unsigned, unsigned>> Shapes;
  FrontendResult FR;
  InCoreOptions IO;
  std::vector<InCoreResult> InCore;
  std::vector<BlockPattern> Blocks;
  std::set<ModelKind> Ranked; // the models the headline rule picked
  size_t Simulated = 0;

  void progress(size_t Done, const std::string &What) {
    if (O.Progress)
      O.Progress(Done, Shapes.size() + 1, What);
  }

  /// The kernels, compiled once (in-core does not depend on the matrix).
  bool compileKernels() {
    progress(0, "compiling " + std::to_string(Shapes.size()) + " kernels");
    llvm::SmallString<128> Path;
    if (std::error_code EC = llvm::sys::fs::createTemporaryFile("perfmodel-bcsr", "c", Path)) {
      Error = "cannot create a temporary file: " + EC.message();
      return false;
    }
    llvm::FileRemover Remove(Path);
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(Path, EC);
      if (EC) {
        Error = std::string(Path) + ": cannot write: " + EC.message();
        return false;
      }
      OS << bcsrKernelSource(Shapes);
    }
    FrontendOptions FO;
    FO.File = std::string(Path);
    FO.CompileArgs = O.CompileArgs;
    FO.HasCompileArgs = true;
    FR = runFrontend(FO);
    if (!FR.Ok) {
      Error = "the generated BCSR kernels did not compile: " + FR.Error + "\n" + FR.Diagnostics;
      return false;
    }
    IO = inCoreOptionsFor(M);
    InCore = analyzeKernelLoops(FR.IR, FR.CompileArgs, IO);
    return true;
  }

  /// One candidate's kernel through the pipeline: the prediction that ranks
  /// it, LR its loop (the 2-deep nest) in REP.
  const Prediction *model(const BlockPattern &B, const std::string &Fn, TrafficMethod Cache,
                          const IndexData *Index, const LoopReport *&LR, AnalysisReport &Rep) {
    KernelIR &IR = FR.IR;
    auto NB = IR.Parameters.find("nbrows");
    if (NB != IR.Parameters.end()) {
      NB->second.Value = B.BlockRows;
      NB->second.From = Parameter::Origin::Source;
    }
    PipelineOptions PO;
    PO.Cache = Cache;
    PO.Sim = O.Sim;
    PO.Sim.Repeated = true; // an SpMV runs again and again (solvers, timing)
    PO.Sim.Index = Index;
    PO.Basis = InCoreBasis::Steady; // the nest as executed over the matrix's rows is given
    PO.Select = [&](const LoopKernel &K) { return K.Function == Fn; };
    modelLoops(Rep, IR, M, PO, &InCore);
    LR = nullptr;
    for (const LoopReport &L : Rep.Loops)
      if (L.Loop && L.Loop->Nest.size() == 2)
        LR = &L;
    return LR ? rankingPrediction(*LR, O.Model) : nullptr;
  }

  /// Every candidate's model in L1 (no traffic beyond it): a lower bound of
  /// its time without the simulator.
  void lowerBounds() {
    KernelIR &IR = FR.IR;
    Blocks.resize(Shapes.size());
    for (size_t SI = 0; SI < Shapes.size(); ++SI) {
      auto [R, C] = Shapes[SI];
      BcsrCandidate Cand;
      Cand.R = R;
      Cand.C = C;
      const BlockPattern &B = Blocks[SI] = buildBlockPattern(A, R, C);
      Cand.Blocks = B.blocks();
      Cand.Fill = double(Cand.Blocks) * R * C / double(A.nonzeros());
      // The nest as executed over the matrix's block rows (their own trip
      // counts, in order): the row's code, remainder loops, overlap of short
      // rows in the window, and the inner loops' exits mispredicted where a
      // row's count differs from the previous row's.
      std::vector<int64_t> Trips(size_t(B.BlockRows));
      for (int64_t I = 0; I < B.BlockRows; ++I)
        Trips[size_t(I)] = B.RowPtr[size_t(I) + 1] - B.RowPtr[size_t(I)];
      for (size_t LI = 0; LI < IR.Loops.size() && LI < InCore.size(); ++LI)
        if (IR.Loops[LI].Function == bcsrKernelName(R, C)) {
          executeNestRows(InCore[LI], Trips, IO, M.Core.BranchMispredictCycles,
                          M.Core.BranchPatternCapacity);
          if (!InCore[LI].Executed.Ok) // no enclosing machine loop to replay
            overlapOuterIterations(InCore[LI], Trips, M.Core.ReorderBuffer);
        }
      AnalysisReport Rep;
      const LoopReport *LR;
      const Prediction *P = model(B, bcsrKernelName(R, C), TrafficMethod::None, nullptr, LR, Rep);
      if (!LR || !LR->Loop->Modelled)
        Cand.Reason = LR ? LR->Loop->Reason : "no loop nest found in " + bcsrKernelName(R, C);
      else if (!P || P->Levels.empty() || !(P->Levels.front().CyclesPerIt > 0))
        Cand.Reason = !O.Model ? "no model succeeded" : rankingModelName(O.Model) + " did not succeed";
      else
        Cand.LowerBoundSeconds =
            P->Levels.front().CyclesPerIt * double(Cand.Blocks) / (M.ClockGHz * 1e9);
      Out.Candidates.push_back(Cand);
    }
  }

  /// Candidates simulated in the order of their bounds, until the next bound
  /// is above the best time found: the rest cannot win (branch and bound;
  /// the choice is that of simulating them all).
  void simulateInOrder() {
    std::vector<size_t> Order(Shapes.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(), [&](size_t X, size_t Y) {
      return Out.Candidates[X].LowerBoundSeconds < Out.Candidates[Y].LowerBoundSeconds;
    });
    double Best = INFINITY;
    size_t Done = 0;
    for (size_t SI : Order) {
      BcsrCandidate &Cand = Out.Candidates[SI];
      auto [R, C] = Shapes[SI];
      std::string Fn = bcsrKernelName(R, C);
      progress(++Done, Fn);
      if (!Cand.Reason.empty())
        continue;
      // CSR (1 x 1) is always simulated: the speed-up over it is a prediction.
      bool Explain = O.Explain == std::make_pair(R, C);
      if (Cand.LowerBoundSeconds >= Best && !(R == 1 && C == 1) && !Explain) {
        Cand.Ok = true;
        Cand.Pruned = true;
        Cand.Seconds = Cand.LowerBoundSeconds;
        Cand.CyclesPerBlock = Cand.Seconds * M.ClockGHz * 1e9 / double(Cand.Blocks);
        Cand.GFlops = 2.0 * double(A.nonzeros()) / Cand.Seconds / 1e9;
        Cand.Bottleneck = "not simulated: with the data in L1 already slower than the best";
        continue;
      }
      const BlockPattern &B = Blocks[SI];
      IndexData Index;
      Index.Arrays["browptr"] = B.RowPtr;
      Index.Arrays["bcol"] = B.Col;
      Index.Origin["browptr"] = Name + " (" + std::to_string(R) + " x " + std::to_string(C) +
                                " block row pointers)";
      Index.Origin["bcol"] = Name + " (block column indices)";
      AnalysisReport Rep;
      const LoopReport *LR;
      const Prediction *P = model(B, Fn, TrafficMethod::Simulator, &Index, LR, Rep);
      ++Simulated;
      if (Explain) {
        llvm::raw_string_ostream EO(Out.Explanation);
        printText(EO, Rep);
      }
      const LevelPrediction *At = P ? slowestLevel(*P) : nullptr;
      if (!At || !(At->CyclesPerIt > 0)) {
        Cand.Reason = P ? "the " + P->name() + " model gave no time" :
                          (!O.Model ? "no model succeeded" : rankingModelName(O.Model) + " did not succeed");
        if (LR && LR->Simulated && !LR->Simulated->Ok)
          Cand.Reason += " (simulator: " + LR->Simulated->Reason + ")";
        continue;
      }
      Cand.Ok = true;
      Cand.CyclesPerBlock = At->CyclesPerIt;
      Cand.Bottleneck = P->name() + ": " + At->Bottleneck + " (data from " + At->Level + ")";
      if (LR->InCore && LR->InCore->Ok)
        Cand.InCoreCyclesPerBlock =
            LR->InCore->Cycles / std::max(1.0, double(LR->InCore->SourceItersPerIter));
      if (LR->Simulated && LR->Simulated->Ok && !LR->Simulated->Links.empty())
        Cand.MemoryBytesPerBlock = LR->Simulated->Links.back().totalBytesPerIt();
      Cand.Seconds = Cand.CyclesPerBlock * double(Cand.Blocks) / (M.ClockGHz * 1e9);
      Cand.GFlops = 2.0 * double(A.nonzeros()) / Cand.Seconds / 1e9;
      Best = std::min(Best, Cand.Seconds);
      Ranked.insert(P->Kind);
    }
  }

  /// Fastest first; false (with ERROR) when no candidate has a time.
  bool rank() {
    if (!O.Model && Ranked.size() == 1)
      Out.Model = *Ranked.begin();
    std::stable_sort(Out.Candidates.begin(), Out.Candidates.end(),
                     [](const BcsrCandidate &X, const BcsrCandidate &Y) {
                       if (X.Ok != Y.Ok)
                         return X.Ok;
                       if (X.Ok && X.Pruned != Y.Pruned)
                         return !X.Pruned;
                       return X.Ok && X.Seconds < Y.Seconds;
                     });
    const BcsrCandidate *Csr = nullptr;
    for (const BcsrCandidate &Cn : Out.Candidates)
      if (Cn.R == 1 && Cn.C == 1 && Cn.Ok)
        Csr = &Cn;
    if (!Out.chosen()) {
      Error = Name + ": no block size could be predicted (" + Out.Candidates.front().Reason + ")";
      return false;
    }
    if (Csr)
      Out.SpeedupOverCsr = Csr->Seconds / Out.chosen()->Seconds;
    return true;
  }

  void notes() {
    Out.Notes.push_back("simulated " + std::to_string(Simulated) + " of " +
                        std::to_string(Shapes.size()) +
                        " candidates; the others' time with the data in L1 alone was above "
                        "the best simulated time (shown as a lower bound, >=); CSR (1x1) is always simulated");
    Out.Notes.push_back("each candidate: the in-core cost of its compiled kernel per block and "
                        "the cache simulator replaying its block structure twice (the second, "
                        "warm SpMV measured); time = cycles per block x blocks at " +
                        formatNumber(M.ClockGHz) + " GHz");
    Out.Notes.push_back(
        M.Core.BranchMispredictCycles > 0
            ? "each block row: its code outside the inner loop, the remainder loops and the "
              "inner loops' exits, mispredicted where the row's trip count differs from the "
              "previous row's (" + formatNumber(M.Core.BranchMispredictCycles) + " cy each) " +
              (M.Core.BranchPatternCapacity > 0
                   ? "unless the predictor learns them over repeated SpMVs (it learns " +
                         formatNumber(M.Core.BranchPatternCapacity) + " outcomes)"
                   : std::string("(no core.branch_pattern_capacity: none learned)"))
            : "each block row: its code outside the inner loop and the remainder loops; "
              "mispredicted exits not charged (the machine file has no core.branch_mispredict_cy)");
  }
};

} // namespace

bool perfmodel::chooseBcsr(const CsrPattern &A, const std::string &Name, const MachineModel &M,
                           const ChooseOptions &O, BcsrChoice &Out, std::string &Error) {
  return BcsrChooser(A, Name, M, O, Out, Error).run();
}

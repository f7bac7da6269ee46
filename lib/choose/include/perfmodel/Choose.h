//===- Choose.h - Choosing a variant from the models ----------*- C++ -*-===//
//
// The PPR paper's feedback stage: predict every candidate and pick the
// fastest before running any. BCSR block sizes for a sparse matrix (the
// block structure from the matrix, the in-core cost of each compiled r x c
// kernel, the traffic of its block-column index and vector accesses from the
// cache simulator on the real index data), and code variants (functions
// computing the same thing) at given sizes.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_CHOOSE_H
#define PERFMODEL_CHOOSE_H

#include "perfmodel/MachineModel.h"
#include "perfmodel/Pipeline.h"
#include "perfmodel/Traffic.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

/// The nonzero pattern of a sparse matrix in CSR (0-based, sorted rows).
struct CsrPattern {
  int64_t Rows = 0, Cols = 0;
  std::vector<int64_t> RowPtr, Col;
  int64_t nonzeros() const { return int64_t(Col.size()); }
};

/// The BCSR structure for r x c blocks: the CSR pattern of the block matrix
/// (block rows of R rows, block columns of C columns, a block wherever the
/// matrix has a nonzero in it; the last block row and column are padded).
struct BlockPattern {
  unsigned R = 1, C = 1;
  int64_t BlockRows = 0, BlockCols = 0;
  std::vector<int64_t> RowPtr, Col;
  int64_t blocks() const { return int64_t(Col.size()); }
};

BlockPattern buildBlockPattern(const CsrPattern &A, unsigned R, unsigned C);

/// Blocks of every shape r x c, 1 <= r <= MAXR, 1 <= c <= MAXC, indexed
/// [r - 1][c - 1]; one pass over the matrix per r.
std::vector<std::vector<int64_t>> countBlocks(const CsrPattern &A, unsigned MaxR,
                                              unsigned MaxC);

/// C source of the r x c BCSR SpMV kernels (functions bcsr_RxC, fully
/// unrolled block, one accumulator per block row), as choose models them and
/// bench/choose times them.
std::string bcsrKernelSource(const std::vector<std::pair<unsigned, unsigned>> &Shapes);
std::string bcsrKernelName(unsigned R, unsigned C);
/// Every shape r x c, 1 <= r <= MAXR, 1 <= c <= MAXC, rows first.
std::vector<std::pair<unsigned, unsigned>> bcsrShapes(unsigned MaxR, unsigned MaxC);

struct BcsrCandidate {
  unsigned R = 1, C = 1;
  int64_t Blocks = 0;
  double Fill = 1; ///< stored values (blocks x r x c) per nonzero
  bool Ok = false;
  std::string Reason;        ///< why it could not be predicted
  double CyclesPerBlock = 0; ///< the chosen model, data where the simulator puts it
  double InCoreCyclesPerBlock = 0;
  double MemoryBytesPerBlock = 0; ///< beyond the last cache, loads and write-backs
  double Seconds = 0;             ///< one SpMV: blocks x cycles per block / clock
  /// The model with the data in L1 (no traffic beyond it): a lower bound of
  /// Seconds known without the simulator.
  double LowerBoundSeconds = 0;
  /// Not simulated: its lower bound is already above a simulated
  /// candidate's time, so it cannot be the fastest (Seconds is the bound).
  bool Pruned = false;
  double GFlops = 0;              ///< useful flops (2 per nonzero) / Seconds
  std::string Bottleneck;
};

struct BcsrChoice {
  std::string Matrix;
  int64_t Rows = 0, Cols = 0, Nonzeros = 0;
  /// The model whose predictions rank the candidates; nullopt: the headline
  /// rule, when it picked different models for different candidates.
  std::optional<ModelKind> Model;
  std::vector<BcsrCandidate> Candidates; ///< fastest first; failed ones last
  double SpeedupOverCsr = 1;             ///< predicted, chosen vs 1 x 1
  double AnalysisSeconds = 0;            ///< wall time of the choice
  std::vector<std::string> Notes;
  /// ChooseOptions::Explain's analyze report (text), empty without one.
  std::string Explanation;
  const BcsrCandidate *chosen() const {
    return !Candidates.empty() && Candidates.front().Ok ? &Candidates.front() : nullptr;
  }
};

struct ChooseOptions {
  unsigned MaxR = 8, MaxC = 8;
  /// The model that ranks; nullopt: the headline rule (ECM, else PPR, else
  /// Roofline), fixed before any measurement.
  std::optional<ModelKind> Model;
  SimOptions Sim;
  /// Extra clang flags for the kernels (after -O3 and the machine's CPU).
  std::vector<std::string> CompileArgs;
  /// Called with (candidates done, candidates in all, what is running).
  std::function<void(size_t, size_t, const std::string &)> Progress;
  /// A candidate (r, c) to explain: always simulated, and its full analyze
  /// report (text) kept in BcsrChoice::Explanation. (0, 0): none.
  std::pair<unsigned, unsigned> Explain{0, 0};
};

/// Predicts one SpMV with every block size and ranks them. False with
/// ERROR when nothing can be predicted (the kernels do not compile).
bool chooseBcsr(const CsrPattern &A, const std::string &Name, const MachineModel &M,
                const ChooseOptions &O, BcsrChoice &Out, std::string &Error);

void printBcsrChoice(llvm::raw_ostream &OS, const BcsrChoice &C, const MachineModel &M);
void printBcsrChoiceJSON(llvm::raw_ostream &OS, const BcsrChoice &C, const MachineModel &M);

/// The prediction that ranks candidates: MODEL's when it succeeded, or the
/// headline rule's without one; null when it did not succeed.
const Prediction *rankingPrediction(const LoopReport &LR, std::optional<ModelKind> Model);
/// The ranking model in the reports' words ("ECM", ..., "headline").
std::string rankingModelName(std::optional<ModelKind> Model);

//===----------------------------------------------------------------------===//
// Code variants
//===----------------------------------------------------------------------===//

/// One variant: the loops of one function, as the front end found them in
/// its file. The size being swept is rebound in IR for each prediction.
struct VariantInput {
  std::string Name;     ///< as the user named it ("f" or "file.c:f")
  std::string Function; ///< the function whose loops are the variant
  KernelIR *IR = nullptr;
  /// In-core results for every loop of IR (the machine code does not
  /// depend on the sizes); null with --no-incore.
  const std::vector<InCoreResult> *InCore = nullptr;
  PipelineOptions Pipeline;
};

/// One variant at one size: the time of one call of its function, the sum
/// over its loops of cycles per iteration x iterations / clock.
struct VariantEstimate {
  bool Ok = false;
  std::string Reason; ///< why it was not predicted
  double Seconds = 0;
  double GFlops = 0;      ///< 0 for loops without flops
  std::string DataLevel;  ///< where the data of its longest loop sits
  std::string Bottleneck; ///< of its longest loop
  std::optional<double> Measured; ///< seconds per call, when timed
};

struct VariantPoint {
  int64_t Value = 0;
  std::vector<VariantEstimate> Variants; ///< in the order given
  int Winner = -1;         ///< predicted fastest (ties: the first given)
  int MeasuredWinner = -1; ///< when every variant was timed
};

/// Where the winner changes: FROM is fastest at LAST, TO at FIRST (the next
/// size examined; LAST + 1 == FIRST when bisection resolved it exactly).
struct VariantCrossover {
  int64_t Last = 0, First = 0;
  int From = -1, To = -1;
};

struct VariantChoice {
  std::string File, Param; ///< Param empty: one point at the bound sizes
  std::vector<std::string> Names;
  std::optional<ModelKind> Model; ///< as BcsrChoice::Model
  std::vector<VariantPoint> Points; ///< the sizes asked for, in order
  std::vector<VariantCrossover> Crossovers, MeasuredCrossovers;
  double AnalysisSeconds = 0;
  std::vector<std::string> Notes;
};

struct VariantOptions {
  std::string Param;           ///< the swept size (empty: one point)
  std::vector<int64_t> Values; ///< its values, ascending
  std::optional<ModelKind> Model; ///< as ChooseOptions::Model
  /// Bisection steps per crossover between two sizes asked for (0: none);
  /// it stops when the interval is within 1 % of its lower end.
  unsigned RefineSteps = 24;
  std::function<void(size_t, size_t, const std::string &)> Progress;
};

/// Predicts every variant at every size, names the fastest at each and
/// where the winner changes. False with ERROR when the swept size is not a
/// parameter of some variant or no variant can be predicted at all.
bool chooseVariants(std::vector<VariantInput> &Variants, const MachineModel &M,
                    const VariantOptions &O, VariantChoice &Out, std::string &Error);

/// Binds size PARAM to VALUE in every variant's IR (as -D would).
void bindVariants(std::vector<VariantInput> &Vs, const std::string &Param, int64_t Value);

/// The index of the fastest Ok estimate (-1: none); ties go to the first.
int fastestVariant(const std::vector<VariantEstimate> &E, bool Measured);
/// The changes of winner between consecutive points (predicted or measured).
std::vector<VariantCrossover> winnerChanges(const std::vector<VariantPoint> &Points,
                                            bool Measured);

void printVariantChoice(llvm::raw_ostream &OS, const VariantChoice &C, const MachineModel &M);
void printVariantChoiceJSON(llvm::raw_ostream &OS, const VariantChoice &C,
                            const MachineModel &M);

} // namespace perfmodel

#endif

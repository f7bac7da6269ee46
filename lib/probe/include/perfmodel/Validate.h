//===- Validate.h - Timing harnesses for analysed loop kernels --*- C++ -*-===//
//
// `perfmodel validate`: the function holding a loop is compiled with the
// flags of the prediction into a harness that allocates and initialises its
// arguments from the KernelIR sizes, and timed; the measured cycles per
// iteration sit beside each model's prediction.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_VALIDATE_H
#define PERFMODEL_VALIDATE_H

#include "perfmodel/KernelIR.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfmodel {

/// The C (or C++) source of a harness for the function of loop K: it
/// includes the analysed file and its main() takes, per function parameter,
/// an integer value or an array length, calls the function once to warm up,
/// then times calls until each sample lasts MINSECONDS and prints
/// "perfmodel-samples N" and a line per sample (see Sample): at least REPS
/// samples, more up to 64 while they take less than 4 x REPS x MINSECONDS.
struct Harness {
  bool Ok = false;
  std::string Why; ///< when the arguments cannot be synthesised
  std::string Function;
  std::string Source;
};
/// Whether ARRAY's values index other data or bound loops in K (col of
/// x[col[k]], rowptr of a CSR row): such an integer array's contents decide
/// what is timed and must be given, not guessed.
bool indexesData(const KernelIR &IR, const LoopKernel &K, const std::string &Array);

/// Integer arrays named in INDEXARRAYS hold index data: after the
/// parameters' arguments, the harness takes one file per such array (in
/// parameter order) of 64-bit values, repeated to the array's length.
/// Other integer arrays that index data (indexesData) are refused (their
/// contents would be guessed); integer arrays of plain data are filled.
Harness makeHarness(const KernelIR &IR, const LoopKernel &K, unsigned Reps = 5,
                    double MinSeconds = 0.02, const std::set<std::string> &IndexArrays = {});

/// The command-line arguments of the harness at IR's current sizes: scalar
/// values and array lengths (elements, with room for every access of the
/// nest; an indirect access x[idx[i]] reaches the ends of INDEXRANGES of
/// idx, and so do loop bounds loaded from index data; an index array only
/// the bounds read, rowptr, holds its INDEXCOUNTS values). Empty with WHY
/// set when an extent cannot be bounded.
std::optional<std::vector<std::string>>
harnessArgs(const KernelIR &IR, const LoopKernel &K, std::string &Why,
            const std::map<std::string, std::pair<int64_t, int64_t>> *IndexRanges = nullptr,
            const std::map<std::string, size_t> *IndexCounts = nullptr);

/// Compiles SOURCE with clang-19 -O3 and FLAGS into an executable at EXE.
bool buildHarness(const std::string &Source, bool Cxx, const std::vector<std::string> &Flags,
                  const std::string &Exe, std::string &Error);

/// One timed sample of a harness: seconds per call, the clock (GHz) of an
/// add chain timed before and after it, and the adds per cycle this thread
/// retired in independent chains then (the lower of the two probes; about
/// the core's ALU count when no neighbour shares the physical core). 0 for
/// both where the harness has no add chains (not x86-64).
struct Sample {
  double Seconds = 0, ClockGHz = 0, AddsPerCycle = 0;
  /// With the memory probe (memory-sized rows): GB/s of a 1 MiB read from
  /// memory beside the sample (the lower of before and after; neighbours on
  /// the memory bus lower it), else 0.
  double MemGBs = 0;
  /// Independent FP adds this thread retires per cycle beside the sample
  /// (the lower of before and after): a neighbour busy with FP work shares
  /// the FP pipes and leaves the integer adds alone. 0 where not measured.
  double FpAddsPerCycle = 0;
  /// GB/s of a 128 KiB read from the L2 (a load a line, the buffer read once
  /// untimed first) beside the sample, the lower of before and after: a
  /// neighbour on the core's load pipes, L1 or L2 (its loads, its misses,
  /// its share of the L2) lowers it, which neither kind of add sees. 0
  /// where not measured.
  double CacheGBs = 0;
};

/// A sample counts as taken on an unshared core when its adds per cycle are
/// at least this share of the reference (a neighbour on the core takes 20-40
/// % of the issue slots, so such samples fall well below it), and at most
/// QuietCeiling of it (more than an unshared core retires: the clock's
/// chain was disturbed, and so are the sample's cycles).
inline constexpr double QuietShare = 0.9, QuietCeiling = 1.15;
inline bool isQuiet(double AddsPerCycle, double Reference) {
  return AddsPerCycle >= QuietShare * Reference && AddsPerCycle <= QuietCeiling * Reference;
}
/// What an unshared core gives the measurements beside each sample: adds
/// per cycle, GB/s of the memory read (memory-sized rows), FP adds per
/// cycle, GB/s of the L2 read; 0: not checked.
struct QuietReferences {
  double Adds = 0, Mem = 0, Fp = 0, Cache = 0;
};
/// A sample on an unshared core (isQuiet of its adds), with the FP pipes
/// unshared where R.Fp is given (isQuiet of its FP adds), and, where R.Mem
/// (memory-sized rows) or R.Cache is given, beside a memory bus or an L2
/// that gave it at least QuietShare of the reference's bandwidth.
inline bool isQuietSample(const Sample &X, const QuietReferences &R) {
  return isQuiet(X.AddsPerCycle, R.Adds) && (R.Fp <= 0 || isQuiet(X.FpAddsPerCycle, R.Fp)) &&
         (R.Mem <= 0 || X.MemGBs >= QuietShare * R.Mem) &&
         (R.Cache <= 0 || X.CacheGBs >= QuietShare * R.Cache);
}
/// The reference of one run's adds per cycle alone: the second highest (one
/// probe pair disturbed the other way, the chain timed slow and the adds
/// not, would otherwise set the bar).
double ownReference(std::vector<double> AddsPerCycle);

/// Seconds per call (median, min, max) over the quiet samples (all of them
/// when none is quiet) and, on x86-64, their median clock and cycles per
/// call (each sample's seconds at its own clock).
struct Timing {
  double Median = 0, Min = 0, Max = 0;
  double ClockGHz = 0, MedianCycles = 0, MinCycles = 0, MaxCycles = 0;
  unsigned Kept = 0, Total = 0; ///< quiet samples of all
  double Reference = 0;         ///< adds per cycle of an unshared core
  double MemReference = 0;      ///< GB/s of the memory probe on a quiet bus (0: none)
  double FpReference = 0;       ///< FP adds per cycle with the FP pipes unshared (0: none)
  double CacheReference = 0;    ///< GB/s of the L2 read on an unshared core (0: none)
  double Share = 0;             ///< median adds per cycle of the summarised samples / Reference
  std::vector<Sample> Samples;
};
/// The reference of one run's samples alone: its second highest adds per
/// cycle.
double ownReference(const std::vector<Sample> &Samples);
/// The same for the memory probe's GB/s (0 without it).
double ownMemReference(const std::vector<Sample> &Samples);
/// The same for the FP adds per cycle (0 without them).
double ownFpReference(const std::vector<Sample> &Samples);
/// The same for the L2 read's GB/s (0 without it).
double ownCacheReference(const std::vector<Sample> &Samples);
/// All four of the samples' own references (0 for what was not measured).
QuietReferences ownReferences(const std::vector<Sample> &Samples);
/// SAMPLES summarised against the references R (see Timing, isQuietSample).
Timing summariseSamples(std::vector<Sample> Samples, const QuietReferences &R);
/// Several harness processes' timings of one size as one: each process's
/// samples against the references R; where at least REPS samples of all
/// were quiet, the median of the medians of the processes with a quiet
/// sample, else (a median of one or two quiet samples is the clock's noise)
/// the median of every process's median over all its samples. Min and max
/// span the processes used; Kept and Total count over all of them.
Timing combineRuns(std::vector<Timing> Runs, const QuietReferences &R, unsigned Reps);
/// Microseconds an OpenMP parallel loop (omp parallel for schedule(static),
/// one iteration a thread) costs on 1 .. MAXTHREADS threads, one a core as
/// the harness places them: its start, split and join, the median of 9
/// timings of 2000 executions each (bench/openmp/forkjoin.c's measurement).
/// Empty, with ERROR set, where it cannot be built or run.
std::map<unsigned, double> measureParallelLoopUs(unsigned MaxThreads, std::string &Error);

/// Runs EXE with ARGS: its samples summarised against their own reference.
/// MEMORYPROBE: a memory read beside every sample as well (PERFMODEL_MEMPROBE
/// in its environment), for memory-sized rows only (it evicts the caches).
/// THREADS: OpenMP threads the kernel runs on (OMP_NUM_THREADS, one a
/// core), 0: the environment's.
std::optional<Timing> runHarness(const std::string &Exe, const std::vector<std::string> &Args,
                                 std::string &Error, unsigned TimeoutSeconds = 300,
                                 bool MemoryProbe = false, unsigned Threads = 0);

} // namespace perfmodel

#endif

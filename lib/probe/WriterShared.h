//===- WriterShared.h - What the probe's writer files share -*- C++ -*-===//
//
// The figures a probe result yields for a machine model (Derived) and the
// pieces of the file the writer puts together: WriterDerive.cpp derives
// the figures, WriterCosts.cpp writes the measured instruction costs and
// ports, WriterBase.cpp a model over its base, Writer.cpp the whole file.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_PROBE_WRITERSHARED_H
#define PERFMODEL_PROBE_WRITERSHARED_H

#include "perfmodel/MachineModel.h"
#include "perfmodel/Probe.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace perfmodel::probe_writer {

std::string num(double V, int Decimals = 1);

/// ns per miss with as many misses in flight as the core keeps: the faster
/// of 32 chases at once (capped at 32 by construction) and independent
/// random loads (a gather's misses); 0 when neither was measured.
double parallelMissNs(const ProbeResult &R);

std::string spread(const Measured &M);

const BandwidthPoint *point(const ProbeResult &R, const std::string &Level, bool AllCores);

/// What the kernels measured, turned into the figures the models use.
struct Derived {
  double GHz = 0;
  // Ports: the most accesses per cycle of any width, the most bytes per
  // cycle of any width, and the widths that gave them.
  double Loads = 0, LoadBytes = 0, Stores = 0, StoreBytes = 0;
  const PortPoint *LoadsAt = nullptr, *LoadBytesAt = nullptr, *StoresAt = nullptr,
                  *StoreBytesAt = nullptr;
  OverlapFit Fit;
  std::vector<LevelTimes> Times; ///< the fit's input, one level each
  std::map<std::string, double> FromNext; ///< cache name -> B/cy from the next level
  /// The first level's fills by working set (set bytes, B/cy), when the
  /// fill sweep differs from FromNext by more than a tenth somewhere.
  std::vector<std::pair<uint64_t, double>> FirstFromNextBySet;
  /// The first level's fills of descending streams, when they differ from
  /// the upward ones at the same set by more than a tenth.
  std::optional<double> FirstFromNextDescending;
  /// Caches whose strided fills (a column read, a line per load) run more
  /// than a tenth slower than their streams' -> B/cy of those fills;
  /// derived under the `full` rule only (a line's time is then the slowest
  /// link's).
  std::map<std::string, double> FromNextStrided;
  /// Caches whose write-backs have a path of their own (the fit's duplex
  /// links) -> B/cy of that path, the time of a line written back.
  std::map<std::string, double> OwnWritebackPath;
  double OneCoreGBs = 0;                  ///< the fitted memory link's fills
  double OneCoreWritebackGBs = 0;         ///< and its write-backs
  double MemLatencyNs = 0, InFlight = 0;
  /// The latency a stream only the stride prefetcher follows waits: its
  /// time per line x the misses in flight written (0: not measured).
  double StrideLatencyNs = 0;
  uint64_t KeptL3 = 0; ///< the L3 capacity the chase sweep shows (0: none)
  /// Cycles a line from the L2 adds beside memory streams (copy with two
  /// cached streams against the plain copy), written under the `full` rule
  /// only (`none` adds those lines' transfers); -1: not written.
  double CacheLineCy = -1;
  double CopyCy = 0, CopyCachedCy = 0; ///< per line of the copied stream
  const BandwidthPoint *CacheLinePoint = nullptr; ///< where they were timed
  /// A scalar sum over memory: its add chain alone (the add latency), the
  /// load stream beside it, and the two together, cycles an element; the
  /// share of the smaller the sum adds beyond the larger (-1: not measured).
  double ChainCy = 0, ChainStreamCy = 0, ChainBothCy = 0;
  double RecurrenceShare = -1;
};

/// The L3 capacity the probe saw kept, in whole sets, when it is below three
/// quarters of FULL (CPUID's or the base's size: a VM's share, a busy
/// neighbour), with COMMENT saying so; else 0.
uint64_t keptL3Size(const ProbeResult &R, const Derived &D, uint64_t Full, unsigned Ways,
                    unsigned Line, std::string &Comment);

/// PREFER: the base model's ECM overlap rule, kept where the fit is close.
Derived derive(const ProbeResult &R, std::optional<OverlapRule> Prefer = std::nullopt);

/// The peak kernel with the most double flop/cy among those with (or
/// without) FMA; null when none ran.
const PeakPoint *bestPeak(const ProbeResult &R, bool Fma);

std::string widthName(unsigned W);

/// "BRAND (VENDOR, family 0x.. model 0x..), N online CPUs."
std::string hostDescription(const ProbeResult &R);

/// The probe's notes and every bandwidth measured, for the record (the model
/// uses some of them), as comments.
void writeNotesAndBandwidths(llvm::raw_ostream &OS, const ProbeResult &R);

/// The C library's memcpy and memset rates of the one-core points: core keys
/// in bytes per cycle for the caches (each repetition at its own clock), "" if none.
std::string libraryCoreKeys(const ProbeResult &R, const MachineModel *Base = nullptr);

/// The same in memory: ", memcpy_one_core_gbs: X, memset_one_core_gbs: Y".
std::string libraryMemoryKeys(const ProbeResult &R);

/// The source keys the two above cover.
std::string libraryCovers(const ProbeResult &R);

/// The ECM rule and the fit behind it, as a comment and a line of YAML.
void writeOverlap(llvm::raw_ostream &OS, const Derived &D);

/// The load slots each 32-byte part of a vector load takes of the
/// loads_per_cycle, from 8 vector parts (8 ymm or 4 zmm loads) and 8
/// integer loads timed together: their cycles are (8 + 8 S) /
/// loads_per_cycle (Zen 4 with zmm: 6.67 where separate pipes would take
/// 4). 0 when the vector parts take no more than an integer load's slot
/// (the pipes are not shared beyond the ports' count).
double vectorLoadSlots(const ProbeResult &R, const Derived &D);

/// Loads and stores per cycle and bytes per cycle from the port kernels.
void writePorts(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D);

/// The line-split costs, latencies and divider throughputs measured, as
/// `core` keys; true when instruction_overrides were written.
bool writeMeasuredCosts(llvm::raw_ostream &OS, const ProbeResult &R,
                        const FormPorts &LlvmCosts, const MachineModel *Base = nullptr);

const char *const KernelsCite =
    "clock from a dependent add chain; peak flop/s from 12-chain FMA and add+mul kernels "
    "per ISA; loads and stores per cycle from 16 independent accesses of each width in L1, "
    "and of 8 ymm (with AVX-512 4 zmm) and 8 integer loads together; "
    "add, multiply, FMA, divide and square-root latency from dependent scalar chains; "
    "divide and square-root throughput from 8 independent operations per form; what an FP "
    "store costs beside FMAs from 24 FMAs on 12 accumulators with and without 8 ymm stores; "
    "line-split "
    "costs from a 32-byte load or store stream in L1 with every other access crossing a "
    "line vs none; branch misprediction from a branch on random bytes over 16 MiB vs 8 KiB "
    "and the predictor's capacity from repeated patterns of 12 K-768 K branches; "
    "data-TLB misses from one load or store per 4 KiB page over 2048 pages 8 apart vs 64, "
    "library calls (libm, libmvec) from y[i] = f(x[i]) over 1024 elements in L1 with "
    "arguments in [0.5, 2] less the same loop without the call, "
    "the TLB's entries from stores over 256-8192 pages 1 apart; the first-level TLB's "
    "entries from loads over 24-160 pages a page and a line apart (lines in L1) and its "
    "misses from loads or stores over 256 such pages vs 16; "
    "load and store queues from two pointer chases missing to memory with 16-256 L1-hit "
    "loads (16-128 stores to one line) between them (Henry Wong's window test); "
    "latencies from one pointer chase over random lines in each level (huge "
    "pages; the L3's over three L2 sizes with the L2's hits taken out), "
    "misses in flight from 32 chases at once in memory (latency / time per line); the "
    "latency of strided streams from a scalar load per two lines in memory (time per line x "
    "misses in flight); the ECM "
    "overlap rule and each link's bandwidth fitted to load, copy, update and triad kernels "
    "with the working set in each level (one core; memory's fills and write-backs apart; "
    "vectors of the width clang-19 -march=native uses here), strided fills from a column read "
    "(a double every 200 B into four sums) over half and twice the L2's lines, and the copy in "
    "memory with two L2-resident read streams beside it (memory.cache_line_cy), and a scalar "
    "sum's chain over memory against its add latency and the load kernel over the same "
    "buffer (ecm.recurrence_serial_share)";

/// Where a link's fitted bandwidth comes from: the load kernel's rate in
/// LEVEL beside what the fit made of it.
std::string linkComment(const ProbeResult &R, const Derived &D, const std::string &Level);

/// The `tlb` line the probe's measurements give (empty when they did not
/// run), with its comment, and the keys it measured (MEASURED, for the
/// probe's covers). Over a base that states the TLB's geometry the vendor's
/// entries and ways stay and the measured costs replace its; else the knee
/// of each sweep gives a level's entries and the TLB is written fully
/// associative (the last level's ways hide behind the first level).
std::string tlbText(const ProbeResult &R, const TlbModel *Base, std::string &Comment,
                    std::vector<std::string> &Measured);

/// How the memory link's write-back rate was had, capped at SOCKET GB/s.
std::string writebackComment(const Derived &D, double Socket);

/// How memory.cache_line_cy was had.
std::string cacheLineComment(const ProbeResult &R, const Derived &D);

std::string inFlightComment(const ProbeResult &R, double InFlight);

std::string strideComment(const ProbeResult &R, double LatencyNs);

/// The probe's figures over a library model: only what was measured, each
/// beside its spread and kernel; the rest is the base's.
void writeOverBase(llvm::raw_ostream &OS, const ProbeResult &R, const Derived &D,
                   const ProbeBase &Base, const FormPorts &LlvmCosts);

} // namespace perfmodel::probe_writer

#endif

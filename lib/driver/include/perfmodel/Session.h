//===- Session.h - What one run of perfmodel works from --------*- C++ -*-===//
//
// The inputs of a run of the tool, free of its command line: the request
// (AnalyzeArgs), the machine loaded for it (the host's clock, one core's
// memory, the L3 kept), the analysed source, -D sizes and sweeps, exit
// codes, messages, report files and the progress bar.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_SESSION_H
#define PERFMODEL_SESSION_H

#include "perfmodel/Frontend.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Pipeline.h"
#include "perfmodel/Report.h"
#include "perfmodel/Traffic.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {
struct InCoreOptions;
struct HostMemory; // perfmodel/Probe.h
struct L3Streams;  // perfmodel/Probe.h
} // namespace perfmodel

namespace perfmodel::driver {

constexpr int ExitOk = 0, ExitFailed = 1, ExitUsage = 2;

/// Prints "perfmodel: error: MSG" and returns CODE.
int error(const std::string &Msg, int Code = ExitFailed);

/// Prints machine-file diagnostics, at most 20 (like a compiler's error limit).
void printDiags(const std::vector<MachineDiag> &Diags, bool Warnings);

/// Loads -m NAME|FILE (or the host's default) with --set overrides; prints
/// problems and returns nullopt when it cannot. Notes gain the choice made.
/// HOSTCLOCK: when the model is this host's (CPUID) and clock_ghz is not
/// --set, the clock is measured on the host and replaces the file's;
/// MEASUREDGHZ, when given, is that measurement made earlier (project mode
/// measures once for all its files); then, where the model states nothing of
/// one core's memory, that is measured too. MEASURED, when given, says what
/// was measured.
struct HostMeasured {
  /// In: the caller measures the host's memory itself (analyze
  /// --host-memory), so loadMachine leaves one core's figures to it.
  bool MemoryLater = false;
  bool Clock = false;  ///< clock_ghz is the host's, measured now (or MEASUREDGHZ)
  bool Memory = false; ///< one core's memory figures measured now
  /// core.parallel_loop_us measured now (validate --cores N with OpenMP)
  bool ParallelLoops = false;
};
std::optional<MachineModel> loadMachine(const std::string &Name,
                                        const std::vector<std::string> &Sets,
                                        std::vector<std::string> &Notes,
                                        bool HostClock = true,
                                        std::optional<double> MeasuredGHz = std::nullopt,
                                        HostMeasured *Measured = nullptr);

/// What timings on this host see of its memory now, in place of M's
/// figures (a VM's instances of one CPU differ by a third in bandwidth and
/// twice in write-back cost): one core's fills and write-backs, latency,
/// and with several threads the socket's bandwidth, each from H where H
/// has it and SETS does not give it.
/// RECORDED gains every key replaced (a recording replays them); a note
/// says what was measured.
void useHostMemory(MachineModel &M, const HostMemory &H, const std::vector<std::string> &Sets,
                   std::vector<std::string> &Notes, std::map<std::string, double> &Recorded);

/// The bytes a working set "in memory" spans on M: four times its last
/// level, at least 256 MiB and at most 1 GiB (validate's memory rows; the
/// host's memory figures are measured over as many, since a page walk's
/// share of a miss grows with the pages spanned).
uint64_t memoryRowBytes(const MachineModel &M);

/// This host's memory now, for useHostMemory: over memoryRowBytes(M), its
/// streams, and THREADS cores for the socket (several seconds; 0: all the
/// host's cores; 1: no socket figure).
HostMemory hostMemoryNow(const MachineModel &M, unsigned Threads = 0);

/// Puts FIGURES, keys useHostMemory recorded, into M (a replayed row's
/// memory as measured beside it) but for those SETS gives; false with ERR
/// naming a key it does not know.
bool useRecordedMemory(MachineModel &M, const std::map<std::string, double> &Figures,
                       const std::vector<std::string> &Sets, std::string &Err);

/// For commands that time kernels on this host (validate, choose --measure):
/// an error (WHAT says what runs) when M is for another architecture, else
/// ExitOk, with a note when M is not the host's own model.
int checkRunsOnHost(const MachineModel &M, const std::string &What,
                    std::vector<std::string> &Notes);

/// The flags a timing harness compiles a kernel of FILE with: the machine's
/// CPU, the in-core model's flags and the code-shaping part of CMD, as the
/// prediction compiled it.
std::vector<std::string> harnessFlags(const MachineModel &M, const std::vector<std::string> &Cmd,
                                      const std::string &File);

/// "N=4096", "N=1e6", "N=1<<20" -> binding.
bool parseDefine(const std::string &S, std::map<std::string, int64_t> &Out, std::string &Err);

/// A size running over a range: "N=1e3:1e8:x2" (geometric) or
/// "N=1000:64000:+1000" (arithmetic), at most 1000 values.
struct SweepSpec {
  std::string Name;
  std::vector<int64_t> Values;
};
std::optional<SweepSpec> parseSweep(const std::string &S, std::string &Err);
/// The one -D with a range into SPEC, the others (NAME=VALUE) into FIXED;
/// false with ERR for a malformed range or a second one.
bool splitSizeRange(const std::vector<std::string> &Defines, std::optional<SweepSpec> &Spec,
                    std::vector<std::string> &Fixed, std::string &Err);

/// 0 when -o PATH can take a report; else the error (exit 1) saying why: a
/// directory, or an existing file that is no perfmodel report. The
/// subcommands call it before their work too, so a bad -o fails at once.
int checkOutput(const std::string &Path);

/// Prints a report to the stream it is given.
using ReportWriter = llvm::function_ref<void(llvm::raw_ostream &)>;

/// Standard output for "" or "-", otherwise the file OUTPUT (atomically; an
/// existing file only when it is a perfmodel report itself).
int emitReport(const std::string &Output, const std::string &Text);
/// The same with the report printed straight into the file's stream: a
/// report of megabytes is not built up in memory first.
int emitReport(const std::string &Output, ReportWriter Write);

/// What follows a bare `--`: the compile command of the analysed file.
struct CompileCommand {
  std::vector<std::string> Args;
  bool Given = false;
};

/// Options of the commands that analyse a source file.
struct AnalyzeArgs {
  std::string File; ///< "-": standard input
  std::string Shown; ///< the name messages give File ("<stdin>"); empty: File
  std::string Machine;
  std::vector<std::string> Sets;
  std::vector<std::string> Defines;
  double ExitFraction = 1.0; ///< --exit-fraction
  double BranchMissRate = 0; ///< --branch-miss-rate
  ReportFormat Format = ReportFormat::Text;
  std::string CompileCommandsDir;
  std::string Output;
  std::string Cache = "auto";
  std::vector<std::string> Index;
  uint64_t SimAccesses = 40'000'000;
  bool Prefetch = false;
  bool NoInCore = false;
  std::string InCoreBasis = "compiled"; ///< --incore compiled|source
  unsigned AssumeAlign = 16;            ///< --assume-align BYTES
  std::vector<std::string> ModelNames;  ///< --model, parsed into Models
  ModelSelection Models;
  /// Hidden: the host clock the project run measured, for its files.
  std::optional<double> HostClockGHz;
  /// --kept-l3: the L3 this host keeps now, not the model's.
  bool KeptL3 = false;
  /// --host-l3 SIZE: what this host keeps of its L3, given, not measured.
  std::string HostL3;
  /// --host-memory: this host's memory figures measured now, not the model's.
  bool HostMemory = false;
};


/// What this host keeps of an L3 of L3BYTES behind an L2 of L2BYTES now:
/// --host-l3 when given (side-by-side runs that must see one L3), else
/// load streams over growing sets (STREAM, where given, gets their sweep;
/// empty with --host-l3). 0 with ERR set when --host-l3 does not parse.
uint64_t hostKeptL3(const AnalyzeArgs &A, uint64_t L2Bytes, uint64_t L3Bytes, std::string &Err,
                    L3Streams *Stream = nullptr);

/// The L2's fill rate from the L3 (bytes a cycle at M's clock) that a load
/// stream in the L3 taking NSPERLINE a line with loads LOADBITS wide
/// shows, where M overlaps its transfers fully and that link, not the L1's
/// nor the loads, binds such a stream (a third slower or more than
/// either); 0 otherwise.
double l3FillsFromStream(const MachineModel &M, double NsPerLine, unsigned LoadBits);

/// Makes M's L3 the KEPT bytes (whole sets of its ways and lines) where that
/// is a share of it (keptL3IsAShare); returns the new size, 0 when M keeps
/// its L3 (or has none).
uint64_t shrinkL3To(MachineModel &M, uint64_t Kept);

/// --kept-l3: where M is this host's model and the host keeps less than 3/4
/// of M's L3 now (a VM's share of a shared L3; hostKeptL3), M's L3 becomes
/// that size (whole sets); NOTES say which L3 the predictions use. False
/// with ERR set when --host-l3 does not parse.
bool useKeptL3(MachineModel &M, const AnalyzeArgs &A, std::vector<std::string> &Notes,
               std::string &Err);

/// Turns --model names into A.Models; false with ERR set when one is unknown.
bool parseModels(AnalyzeArgs &A, std::string &Err);

/// The pipeline's options from the command line's.
PipelineOptions pipelineOptions(const AnalyzeArgs &A, const std::vector<std::string> &CompileArgs,
                                const IndexData &Index);

/// The machine and the analysed source of one analyze, sweep or validate.
struct Inputs {
  std::vector<std::string> Notes;
  std::optional<MachineModel> Machine;
  HostMeasured Measured; ///< what loadMachine measured on this host for Machine
  IndexData Index;
  std::optional<FrontendResult> FR;
};

/// Reads and analyses the source (with -D sizes and --index data); prints
/// what is wrong and returns nullopt (RC the exit status) when it cannot.
/// COMPILEFOR: the in-core model's options where it will compile the file,
/// whose compile then parses it for the front end too.
std::optional<FrontendResult> prepareSource(const AnalyzeArgs &A, const CompileCommand &CC,
                                            IndexData &Index, int &RC,
                                            const InCoreOptions *CompileFor = nullptr);

/// Loads -m and the source; 0 when both are there, else the exit status.
int loadInputs(const AnalyzeArgs &A, const CompileCommand &CC, Inputs &In);

/// A one-line progress bar on standard error, only when it is a terminal.
class ProgressBar {
  size_t Total;
  bool Shown;

public:
  explicit ProgressBar(size_t Total);
  void setTotal(size_t T) { Total = T; }
  void clear();
  void update(size_t Done, const std::string &What);
  ~ProgressBar() { clear(); }
};


/// Reads standard input into a temporary file with SUFFIX; "" and an error
/// printed when it cannot. The file is removed at exit.
std::string stdinToTempFile(const std::string &Suffix);
/// Standard input as a source file: .cpp when the compile flags say -x c++,
/// else .c; "" (after an error message) when it cannot be kept.
std::string stdinToSourceFile(const CompileCommand &CC);

} // namespace perfmodel::driver

#endif

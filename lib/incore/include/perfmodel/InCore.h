//===- InCore.h - Steady-state cycles of a loop body -----------*- C++ -*-===//
//
// The in-core model: a machine loop body (from a compiled kernel, an assembly
// file or raw bytes) decoded with LLVM MC and costed with the target's
// MCSchedModel. Throughput per iteration is the largest of
//   - port pressure: the optimal (fractional) assignment of every micro-op's
//     resource cycles to the ports allowed to execute it, min-max load;
//   - front end: micro-ops / issue width;
//   - the loop-carried recurrence: the longest dependence cycle per iteration.
// Data is assumed to be in L1.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_INCORE_H
#define PERFMODEL_INCORE_H

#include "perfmodel/KernelIR.h"
#include "perfmodel/MachineModel.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTConsumer;
}

namespace perfmodel {

/// The source loop a machine loop steps when the loops inside it are fully
/// unrolled into it (Var empty: the innermost, as usual).
struct SteppedLoop {
  std::string Var;
  double SourceIters = 1; ///< source iterations per iteration of Var
};

struct InstrCost {
  std::string Text;     ///< disassembly, Intel syntax
  uint64_t Address = 0;
  unsigned Line = 0;    ///< source line from DWARF, 0 if unknown
  unsigned Uops = 0;
  bool UopsFromFile = false; ///< Uops is the machine file's issue count as is
  double Latency = 0;   ///< of its first definition
  bool MayLoad = false, MayStore = false;
  /// Resource cycles as (set of port indices, cycles), after removing the
  /// part already charged to a smaller set (as llvm-mca does).
  std::vector<std::pair<std::vector<unsigned>, double>> Demands;
  std::vector<double> PortCycles; ///< this instruction's share per port
  /// Facts of its memory access, filled once at decode (0 and false for an
  /// instruction that neither loads nor stores).
  unsigned AccessBytes = 0; ///< bytes moved (zmmword: 64, ..., byte: 1)
  bool VectorData = false;  ///< an xmm, ymm or zmm register's data
  /// A gather or scatter (vgather*, vpgather*, vscatter*, vpscatter*): its
  /// elements' addresses come from a vector, one instruction, many lines.
  bool GatherScatter = false;
  /// A gather's or scatter's elements: its register's bytes over an
  /// element's (8 for the *pd and *q forms, else 4); 0 for other accesses.
  unsigned GatherElements = 0;
  bool NonTemporal = false; ///< movnt*: bypasses the caches, allocates no line
  unsigned PackedElement = 0; ///< 8 for packed doubles (*pd), 4 for singles (*ps)
  /// The PPR paper's class of a floating-point operation (eq. 1).
  enum class FpOp { None, Add, Mul, Fma } Fp = FpOp::None;
  /// Addressed off rip, rsp or rbp: a constant or a stack slot, not one of
  /// the loop's streams.
  bool FixedPlace = false;
  /// The width of a vector access (16, 32 or 64 bytes), 0 for a scalar one.
  unsigned vectorBytes() const { return AccessBytes >= 16 && AccessBytes % 16 == 0 ? AccessBytes : 0; }
};

/// The PPR paper's instruction classes (its eq. 1): floating-point adds,
/// multiplies and FMAs, loads and stores, per machine iteration.
struct InstrClasses {
  double Add = 0, Mul = 0, Fma = 0, Load = 0, Store = 0;
};

/// The machine code around a source loop's hot machine loop: one trip of the
/// machine loop that encloses it (the next outer source loop, possibly
/// unrolled), as pieces in address order. Filled by analyzeKernelLoops; the
/// trip counts come later, per size (executeNest).
/// Byte ranges [begin, end) of machine code, as offsets in its function.
using CodeRanges = std::vector<std::pair<uint64_t, uint64_t>>;

/// Adds byte O, executed after the last one of R, to R: a new range where
/// the code does not run on in address order (a taken branch).
inline void extendRanges(CodeRanges &R, uint64_t O) {
  if (!R.empty() && R.back().second == O)
    ++R.back().second;
  else
    R.push_back({O, O + 1});
}

/// Where a loop's code lies: its function (symbol), the function's offset in
/// the object and the alignment the object keeps it at when linked, and the
/// costed loop's ranges in it.
struct CodePlace {
  std::string Function;
  uint64_t FunctionOffset = 0;
  uint64_t Align = 16;
  CodeRanges Body;
};

struct NestCode {
  struct Piece {
    std::vector<uint8_t> Bytes;
    std::vector<unsigned> Lines;
    int Loop = -1;       ///< index into LoopIters; -1: straight-line code
    int EntersLoop = -1; ///< straight-line code that only leads into that loop
    int LeavesLoop = -1; ///< straight-line code entered only from that loop
    double CallCycles = 0; ///< its calls' cycles from core.call_cy, per run
    /// Straight-line code: source iterations of the inner loop it does (a
    /// fully unrolled vector copy of the inner loop beside its loop versions).
    double Iters = 0;
    /// Where its bytes lie: [begin, end) offsets in the function.
    CodeRanges Ranges;
  };
  std::vector<Piece> Pieces;
  /// Source iterations per trip of each inner machine loop of this source
  /// loop in the enclosing one (vector bodies, epilogues, scalar remainders).
  std::vector<double> LoopIters;
  int Body = -1;       ///< the hot body among them
  /// The trip is one call of the function (a loop no source loop encloses):
  /// its code before and after the loop, run once per call.
  bool WholeFunction = false;
  std::string Where;   ///< the enclosing machine loop: function+range
  std::string Reason;  ///< why there are no pieces
};

/// The nest as executed: one trip of the enclosing machine loop replayed with
/// the inner loop's trip count through the list scheduler (reorder buffer
/// included). Cycles per source iteration of the inner loop; the split says
/// where they go: Body + Remainder + Overhead + Joins - Overlap = Cycles.
struct NestResult {
  bool Ok = false;
  std::string Reason;      ///< why the steady state stands alone
  double TripsPerOuter = 0; ///< source iterations of the inner loop per outer iteration
  unsigned Copies = 1;     ///< outer iterations per trip of the enclosing machine loop
  bool PerCall = false;    ///< the trip is one call of the function (an outermost loop)
  /// A row this many reorder buffers of the body long or longer was priced
  /// from its parts (body, remainders, outer code at their own rates), its
  /// joins not scheduled; 0: the trace was scheduled.
  double RowWindows = 0;
  double Cycles = 0, Body = 0, Remainder = 0, Overhead = 0;
  double Overlap = 0; ///< what the pieces save run together (>= 0)
  double Joins = 0;   ///< latency exposed where one loop drains and the next fills (>= 0)
  /// What the front end's lines add beyond all that (core.fetch_line_bytes:
  /// loops whose code spans more lines than their work needs cycles).
  double Fetch = 0;
  double Steady = 0;       ///< the hot body's steady state per source iteration
  double SteadyRecurrence = 0; ///< the body's loop-carried chain per machine iteration
  unsigned Rob = 0;        ///< reorder buffer of the schedule (uops)
  unsigned LoadQueue = 0, StoreQueue = 0; ///< its load and store queues (0: none)
  /// (source iterations per trip, trips per outer iteration) of each inner machine loop.
  std::vector<std::pair<double, double>> Runs;
  std::string Where;
};

/// Cache-line splits of a loop's vector loads and stores: the machine's cost
/// and, per access width in bytes (16, 32, 64), the fraction that crosses a
/// line, from where the rows of its contiguous streams start.
struct LineSplits {
  double LoadCost = 0, StoreCost = 0; ///< port slots of a split access; 0: free
  std::map<unsigned, double> Load, Store;
  /// The same per (width, element bytes) over the streams of that element:
  /// a packed-double move splits as the double streams do, not as an int
  /// index stream beside them (absent key: no such stream).
  std::map<std::pair<unsigned, unsigned>, double> LoadOfElement, StoreOfElement;
  unsigned AssumedAlign = 16; ///< bytes, for bases whose alignment the source does not give
  /// Bytes a vector access is cut into on the way to L1 when the data path
  /// is narrower than the registers (Zen 4: a 64-byte access is two 32-byte
  /// halves, and only a half that crosses a line splits); 0: whole accesses.
  unsigned Granule = 0;
  struct Stream {
    std::string Array, Text;
    unsigned AlignBytes = 0; ///< base alignment used; 0: aligned by contract (intrinsics)
    bool Declared = false;   ///< from the source, else assumed
    double Split32 = 0;      ///< fraction of its 32-byte accesses that split
  };
  std::vector<Stream> Streams;
  bool any() const;
  /// The fraction of the vector move or operand INSTR (its disassembly)
  /// that crosses a line: its width's (a part's when Granule cuts it), of
  /// its element's streams for packed doubles and singles; 0 for scalar
  /// accesses. WIDTH, if given, receives the width the fraction is of.
  double fractionOf(unsigned VectorBytes, unsigned PackedElement, bool Store,
                    unsigned *Width = nullptr) const;
  /// The figures that follow from the loop's streams (fractions and the
  /// streams themselves), from O; and whether O's are the same.
  void takeStreamFigures(const LineSplits &O);
  bool sameStreamFigures(const LineSplits &O) const;
};

/// The line splits of K's contiguous streams at the sizes BIND, bases the
/// source does not align taken as ASSUMEDALIGN-byte aligned.
LineSplits lineSplitsOf(const LoopKernel &K, const std::map<std::string, int64_t> &Bind,
                        unsigned AssumedAlign, unsigned LineBytes);

/// What binds a block or a loop in the core.
enum class InCoreBound {
  None,
  Ports,       ///< the execution ports (or the L1's data path)
  FrontEnd,    ///< issue, the decoders, calls and returns
  Recurrence,  ///< a loop-carried dependence chain
  Calls,       ///< library calls costed by core.call_cy
  Nest,        ///< the remainder loops and the code around the loop
  Latency,     ///< chains the window overlaps only partly across outer iterations
  PortsAndTlb, ///< the ports with the first-level TLB's misses on them
  Branches,    ///< mispredicted branches on the data (an assumed miss rate)
};

/// The bound as the reports word it: "ports", "front end", ...
const char *inCoreBoundName(InCoreBound B);

/// compiled: the loop nest as executed (the machine loop with its remainder
/// loops and the outer loop's code at the bound sizes); steady: the machine
/// loop's steady state alone; source: the operations as written.
enum class InCoreBasis { Compiled, Steady, Source };

/// A list schedule set up and not run (the in-core library's own).
struct PendingSchedule;

struct InCoreResult {
  bool Ok = false;
  /// What was costed: the machine loop (Compiled) or the operations as the
  /// source writes them, on the machine file's ports (Source).
  InCoreBasis Basis = InCoreBasis::Compiled;
  std::string Reason;
  /// The C library function the compiler replaced the loop with ("memcpy",
  /// "memset", "memmove"; Reason says so), else empty.
  std::string LibraryCall;
  std::string Cpu;                ///< LLVM CPU whose scheduling model was used
  std::vector<std::string> Ports; ///< port (processor resource unit) names
  std::vector<unsigned> PortUnits; ///< units behind each port (dividers: 1)
  std::vector<InstrCost> Instrs;
  /// Functions the loop calls every iteration, one entry per call ("" when
  /// the target is not known). Those the machine file costs (core.call_cy)
  /// are in CallCycles (per machine iteration, in Cycles); the others are
  /// not in the cost.
  std::vector<std::string> Callees;
  double CallCycles = 0;
  std::vector<std::string> UncostedCallees; ///< those not in core.call_cy
  std::vector<double> PortLoad;   ///< cycles per iteration, optimal assignment
  double PortBound = 0;           ///< max of PortLoad (per unit)
  std::string PortBottleneck;     ///< the busiest port(s), or the L1's bytes per cycle
  /// What PortBound is: the ports, the L1's bytes per cycle, or the load pipes
  /// integer and vector loads share.
  enum class PortLimit { Ports, L1Bytes, LoadPipes } PortKind = PortLimit::Ports;
  double FrontEndBound = 0;       ///< uops / issue width, or the decoders' bound
  /// Unrolled code (InCoreOptions::Unrolled): cycles per iteration the
  /// legacy decoders need (predecode windows, LCP stalls, decoder groups).
  double DecodeBound = 0;
  /// Calls with their return in the block (a callee of the file spliced
  /// in) at core.call_return_cy each; 0 when none or not given.
  double CallReturnBound = 0;
  unsigned Uops = 0;
  double RecurrenceBound = 0;     ///< longest loop-carried cycle
  std::vector<unsigned> CriticalChain; ///< instruction indices along it
  /// Loads on that chain whose address the chain computes (a pointer chase,
  /// j = next[j]): each waits the latency of wherever its line lives, which
  /// the chain's L1 latency understates when the data is farther out.
  unsigned ChainAddressLoads = 0;
  double Cycles = 0;              ///< predicted cycles per machine iteration
  /// Event-driven list schedule of many iterations on the same resources
  /// (in-order issue at the issue width, out-of-order dispatch to the ports,
  /// greedy port choice): cycles per iteration in steady state.
  double ScheduledCycles = 0;
  /// False where a loop's body was costed without its list schedule
  /// (InCoreOptions::DeferBodySchedule) and scheduleBody has not run:
  /// ScheduledCycles is then unknown, not 0.
  bool BodyScheduled = true;
  /// Where BodyScheduled is false: the schedule set up, for scheduleBody.
  std::shared_ptr<const PendingSchedule> Pending;
  InCoreBound Bottleneck = InCoreBound::None; ///< what binds (inCoreBoundName words it)
  std::string Advice;             ///< what to change
  double TOL = 0;   ///< ECM: cycles on non-memory ports
  double TnOL = 0;  ///< ECM: cycles on load/store ports
  double SourceItersPerIter = 1;  ///< source iterations one machine iteration covers
  SteppedLoop Stepped;            ///< the loop it steps, where inner ones are unrolled
  std::string MachineLoop;        ///< which machine loop: function, address range
  double BytesPerSourceIt = 0;    ///< of the leading unit-stride stream (cy/CL)
  InstrClasses Classes;           ///< per machine iteration
  std::vector<std::string> Notes;
  /// The source line of each branch on the data (both arms in the body, an
  /// outcome the sizes do not give) a machine iteration meets; what their
  /// assumed mispredictions add is in Cycles (chargeDataBranches).
  std::vector<unsigned> DataBranchLines;
  NestCode Nest;                  ///< the enclosing machine loop's code
  NestResult Executed;            ///< the nest as executed (executeNest)
  LineSplits Splits;              ///< what the vector accesses were charged for splits
  /// The costed machine loop's bytes and source lines (re-costed when the
  /// sizes move which accesses split).
  std::vector<uint8_t> BodyBytes;
  std::vector<unsigned> BodyLines;
  CodePlace Code; ///< where the body and its nest's pieces lie
};

struct InCoreOptions {
  std::string Triple = "x86_64-unknown-linux-gnu";
  std::string Cpu = "haswell";
  unsigned IssueWidth = 0; ///< 0: take it from LLVM's scheduling model
  /// Micro-ops in flight (reorder buffer) in the list schedule; 0: unbounded.
  unsigned Rob = 0;
  /// With a reorder buffer, also LLVM's scheduler queues (instructions that
  /// wait for their inputs hold an entry: Haswell's 60-entry reservation
  /// station, Zen 4's 64-entry FP scheduler).
  bool SchedulerQueues = true;
  /// An Intel core's legacy decode pipeline (core.front_end); unset: the
  /// library table's entry for Cpu, if any (libraryFrontEnd).
  std::optional<FrontEndModel> FrontEnd;
  /// Queue sizes that replace LLVM's, by resource name (core.scheduler_queues).
  std::map<std::string, unsigned> QueueSizes;
  /// Further resources whose operations hold an entry of a queue, by the
  /// queue's name (core.queue_also_holds).
  std::map<std::string, std::vector<std::string>> QueueAlsoHolds;
  /// Units of LLVM's ports that replace its counts, by name (core.port_units).
  std::map<std::string, unsigned> PortUnits;
  /// With a reorder buffer, loads (stores) in flight from issue to
  /// retirement (core.load_queue, core.store_queue); 0: no limit.
  unsigned LoadQueue = 0, StoreQueue = 0;
  std::vector<InstructionOverride> Overrides;
  /// Cycles per call of library functions the loop calls (core.call_cy).
  std::map<std::string, double> CallCycles;
  /// Cycles a call and its return take on the branch path
  /// (core.call_return_cy); 0: what the scheduling model charges them.
  double CallReturnCycles = 0;
  /// Bytes of the code line the front end delivers from a cycle
  /// (core.fetch_line_bytes; 0: no such bound on a loop's iterations).
  unsigned FetchLineBytes = 0;
  /// Where functions start when that is known (a linked timing harness), by
  /// symbol; else a function's code lies at any placement its object's
  /// alignment allows.
  std::map<std::string, uint64_t> FunctionAddresses;
  /// Compiler flags the machine implies, before the user's (AArch64: the SVE
  /// width, so vector loops advance by a known number of bytes).
  std::vector<std::string> CompileFlags;
  /// Line splits charged to vector loads and stores (a loop's own fractions
  /// are filled in per loop by analyzeKernelLoops).
  LineSplits Splits;
  unsigned LineBytes = 64; ///< L1 line
  /// Bytes the L1 serves to loads and takes from stores per cycle (the
  /// machine file's core.load/store_bytes_per_cycle; 0: unbounded): Zen 4's
  /// two store pipes move 32 B a cycle, so a 64-byte store takes two.
  double LoadBytesPerCycle = 0, StoreBytesPerCycle = 0;
  /// Bytes a cycle for loads and stores together (core.l1_bytes_per_cycle;
  /// 0: the two apart bound).
  double L1BytesPerCycle = 0;
  /// Load slots a cycle and those each 32 bytes of a vector load take, where
  /// integer and vector loads share the pipes (core.loads_per_cycle,
  /// core.vector_load_slots; 0: no such bound).
  double LoadSlotsPerCycle = 0, VectorLoadSlots = 0;
  /// The block runs unrolled, as straight-line code (BHive's measurements):
  /// on Intel cores its uops come from the legacy decoders, not the uop
  /// cache or loop stream detector a loop runs from.
  bool Unrolled = false;
  /// Every general-purpose register starts at one address (rsp and rbp 2 KiB
  /// above it), loads return it and all pages alias modulo 4 KiB: BHive's
  /// harness, under which stores and loads through different registers meet.
  bool SameInitialRegisters = false;
  /// Cycles from a store's data to a load that reads it by store-to-load
  /// forwarding (unset: the Intel front end's, else 5; 0: memory renamed,
  /// the load runs ahead), and from when the store can commit to a load it
  /// covers only in part (forwarding fails).
  std::optional<double> StoreForward;
  double ForwardFail = 15;
  /// The same for stores of vector registers (xmm, ymm, zmm); unset: StoreForward.
  std::optional<double> StoreForwardVector;
  /// The fewest cycles from a load to the next load of what the loop stores
  /// back from a vector register (0: none).
  double VectorMemoryRoundTrip = 0;
  /// Whether masked stores forward to loads (core.masked_stores_forward).
  bool MaskedStoresForward = true;
  /// Run the list schedule (ScheduledCycles); callers that read only the
  /// bounds (a nest's remainder loops and straight code) skip it.
  bool ListSchedule = true;
  /// Cost a loop's body without its list schedule, which only a scheduled
  /// nest trace (executeNest) needs and which is a check beside the
  /// analytic bounds otherwise; scheduleBody runs it where it is wanted.
  bool DeferBodySchedule = false;
};

InCoreOptions inCoreOptionsFor(const MachineModel &M);

/// Charges R's branches on the data (DataBranchLines) MISSRATE of their
/// outcomes mispredicted (0: predicted, the default; 0.5: outcomes at random)
/// at MISPREDICTCY each, and says what was assumed: a static model cannot
/// know the data, so the assumption and its option are in the notes (with
/// PATTERNCAPACITY, core.branch_pattern_capacity, what the predictor learns
/// of data that comes again).
void chargeDataBranches(InCoreResult &R, double MissRate, double MispredictCy,
                        double PatternCapacity = 0);

/// The addresses of the function symbols of a linked program (a timing
/// harness), by name; empty when it cannot be read.
std::map<std::string, uint64_t> functionAddresses(const std::string &Path);

/// Whether an instruction override's FORM applies to the disassembly TEXT:
/// TEXT starts with FORM, or FORM is a glob (`*`, `?`, `[...]`) matching the
/// start of TEXT ("vf*[0-9]s[sd] " for every scalar FMA).
bool overrideMatches(const std::string &Form, llvm::StringRef Text);

/// The flags of a build command that shape the code (macros, include paths,
/// optimisation, target): without the compiler's inputs (SOURCE and other
/// source files), outputs, -c/-S/-E and dependency-file options. What every
/// later compile of the kernel (in-core, timing harness) passes on.
std::vector<std::string> codeFlags(const std::vector<std::string> &Args,
                                   const std::string &Source);

/// Micro-ops LLVM 19's scheduling model of CPU issues per cycle; 0 when it
/// has no model for it.
unsigned llvmIssueWidth(const std::string &Triple, const std::string &Cpu);

/// Costs the instructions in BYTES (machine code of one loop iteration; a
/// trailing backward branch is part of it).
InCoreResult analyzeBlockBytes(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                               const std::vector<unsigned> &Lines = {});
/// The same figures without the per-instruction table (Instrs and
/// CriticalChain empty): what a nest's trace of one outer trip needs.
InCoreResult analyzeBlockFigures(const std::vector<uint8_t> &Bytes, const InCoreOptions &O,
                                 const std::vector<unsigned> &Lines = {});

/// Assembles FILE (GNU syntax, `.intel_syntax noprefix` allowed) with clang-19
/// and costs its .text as one loop body.
InCoreResult analyzeAssemblyFile(const std::string &File, const InCoreOptions &O);

/// In a listing of machine code (a whole function, as a compiler prints it),
/// the bytes of its largest innermost loop, with a note saying so; nullopt
/// when the listing has no loop or is one loop as a whole.
std::optional<std::vector<uint8_t>>
innermostLoopOfListing(const std::vector<uint8_t> &Text, const InCoreOptions &O,
                       std::string &Note);

/// The in-core cost of an inner loop whose loop-carried chains start anew in
/// every iteration of the loop around it (an accumulator set to zero per
/// row): the out-of-order window of ROB micro-ops holds W = ROB / uops
/// machine iterations, so outer iterations of m < W machine iterations run
/// W / m chains at once and the recurrence binds m / W as much. TRIPS are
/// the inner loop's source iterations in each outer iteration. Ports and the
/// front end still bind; a note says what changed. R unchanged when ROB is 0.
void overlapOuterIterations(InCoreResult &R, const std::vector<int64_t> &Trips, unsigned Rob);

/// Compiles the analysed file once (clang-19 -O3 -g for the machine's CPU,
/// then the user's flags) and costs the machine loop that implements each
/// innermost source loop. The result parallels IR.Loops; loops that are not
/// modelled, or whose machine code is not found, carry the reason.
std::vector<InCoreResult> analyzeKernelLoops(const KernelIR &IR,
                                             const std::vector<std::string> &CompileArgs,
                                             const InCoreOptions &O);

/// The compile analyzeKernelLoops(FILE's IR, COMPILEARGS, O) makes, run now
/// with a second consumer of its AST (MAKE's: the front end's, so that the
/// file is parsed once) and EXTRAFLAGS (warnings) on it alone;
/// analyzeKernelLoops then takes its object. nullopt where it cannot run
/// in this process (nothing was parsed), else whether the file compiled;
/// DIAGNOSTICS gets Clang's.
std::optional<bool>
compileWithFrontEnd(const std::string &File, const std::vector<std::string> &CompileArgs,
                    const InCoreOptions &O, const std::vector<std::string> &ExtraFlags,
                    const std::function<std::unique_ptr<clang::ASTConsumer>()> &Make,
                    std::string &Diagnostics);

/// Whether that compile runs clang-19's driver and cc1 in this process (the
/// perfmodel tool: no second process to start) or a clang-19 process (the
/// default: the plugin already runs inside a compile).
void compileInProcess(bool On);
/// Compiles run in this process so far (compileInProcess), for tests.
unsigned inProcessCompiles();

/// The nest as executed: replays R.Nest for one trip of the enclosing machine
/// loop with the inner loop's trips at the sizes BIND (its vector body,
/// remainder loops, the outer loop's own code), schedules it with O's
/// reorder buffer, and makes R's cycles (and T_OL, T_nOL, classes) those of
/// the nest per source iteration; R.Executed says how they split. R keeps
/// its steady state (and Executed.Reason says why) when the loop has no
/// enclosing machine loop or its trips are unknown.
void executeNest(InCoreResult &R, const LoopKernel &K,
                 const std::map<std::string, int64_t> &Bind, const InCoreOptions &O);

/// executeNest with the inner loop's source iterations per outer iteration
/// given (a loop whose trip count is data, as a sparse matrix's rows).
void executeNestTrips(InCoreResult &R, double TripsPerOuter, const InCoreOptions &O);

/// How TRIPSPEROUTER source iterations split over the inner machine loops of
/// N (parallel to N.LoopIters: the vector body takes whole trips, epilogues
/// and scalar remainders the rest); COPIES, when given, receives the copies
/// of the inner loop per trip of the enclosing one.
std::vector<double> nestMachineTrips(const NestCode &N, double TripsPerOuter,
                                     unsigned *Copies = nullptr);

/// The nest as executed when each outer iteration has its own trip count
/// (TRIPS, in order: a sparse matrix's rows): R's cycles and T_OL, T_nOL,
/// classes become the average over the outer iterations of executeNestTrips
/// at each count, plus MISPREDICTCYCLES for each inner machine loop whose
/// trip count differs from the previous outer iteration's (its exit branch
/// mispredicted; 0: not charged). The sequence of outer iterations repeats
/// (an SpMV run again and again): a predictor that learns PATTERNCAPACITY
/// outcomes of a repeated pattern learns that share of the changing exits
/// (0: none). R keeps its steady state when its nest cannot be replayed.
void executeNestRows(InCoreResult &R, const std::vector<int64_t> &Trips,
                     const InCoreOptions &O, double MispredictCycles,
                     double PatternCapacity = 0);

/// The body's list schedule where its costing deferred it
/// (R.BodyScheduled false): ScheduledCycles and the note on it, as the
/// costing would have given them, from the schedule it set up (R.Pending).
void scheduleBody(InCoreResult &R);

/// Re-costs R's machine loop when the sizes BIND move which of K's vector
/// accesses cross cache lines (rows whose length changes their alignment);
/// R is left as it is otherwise.
void splitsAtSizes(InCoreResult &R, const LoopKernel &K,
                   const std::map<std::string, int64_t> &Bind, const InCoreOptions &O);

/// The in-core estimate from the source as written, the way the PPR paper
/// counts its kernels: one instruction per operation (a SIMD intrinsic is
/// one, FMA where the source's multiply feeds an add and the machine has
/// FMA), one load or store per memory reference except loop-invariant ones
/// (kept in registers), a vector access not provably aligned to its width at
/// the machine's core.unaligned_vector_cost port slots; scheduled on the
/// machine file's pipes and load/store ports. The loop-carried recurrence
/// comes from COMPILED (the compiled loop) when given. One source iteration
/// per "machine iteration".
/// Callees for a sentence: "exp", "_ZGVdN4v_exp (4 times)".
std::string calleesText(const std::vector<std::string> &Callees);

InCoreResult sourceInCore(const LoopKernel &K, const MachineModel &M,
                          const InCoreResult *Compiled);

/// Parses "c5 fd 58 c1 ..." or "c5fd58c1"; nullopt with Error on bad input.
std::optional<std::vector<uint8_t>> parseHex(const std::string &Text, std::string &Error);

} // namespace perfmodel

#endif

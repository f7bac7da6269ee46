//===- Harness.cpp - Timing harness generation and execution --------------===//
//
// validate's timing harness: a C program that includes the user's file,
// calls the loop's function through a volatile pointer with synthesised
// arguments (index data from files), and prints each sample's seconds beside
// probes of the clock, the core's share and the memory bus; built with
// clang-19 and run by the caller.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Validate.h"
#include "perfmodel/Probe.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <functional>
#include <sstream>
#include <unistd.h>

using namespace perfmodel;
using namespace llvm;

namespace {

bool isCIdentifier(const std::string &S) {
  if (S.empty() || !(isalpha(static_cast<unsigned char>(S[0])) || S[0] == '_'))
    return false;
  return std::all_of(S.begin(), S.end(),
                     [](char C) { return isalnum(static_cast<unsigned char>(C)) || C == '_'; });
}

} // namespace

std::optional<std::vector<std::string>>
perfmodel::harnessArgs(const KernelIR &IR, const LoopKernel &K, std::string &Why,
                       const std::map<std::string, std::pair<int64_t, int64_t>> *IndexRanges,
                       const std::map<std::string, size_t> *IndexCounts) {
  auto FI = IR.Functions.find(K.Function);
  if (FI == IR.Functions.end()) {
    Why = "the function of the loop was not recorded";
    return std::nullopt;
  }
  const auto &B = IR.bindings();
  std::vector<std::string> Out;
  for (const FunctionParam &P : FI->second.Params) {
    if (P.What == FunctionParam::Kind::Integer) {
      auto It = B.find(P.Name);
      // Integers that are not size parameters (flags, strides) get 1.
      Out.push_back(std::to_string(It == B.end() ? 1 : It->second));
      continue;
    }
    if (P.What == FunctionParam::Kind::Floating) {
      Out.push_back("0");
      continue;
    }
    // Arrays: the largest element any access of the nest reaches (indirect
    // ones: at the ends of their index data's range).
    int64_t Max = -1, Min = 0;
    bool Seen = false, Bounded = true;
    for (const Access &A : llvm::concat<const Access>(K.Accesses, K.OuterAccesses)) {
      if (A.Array != P.Name)
        continue;
      Seen = true;
      std::optional<Poly> Off = A.Indirect ? elementOffset(A) : A.Linear;
      if (!Off || A.FieldOffset || (P.PointeeBytes && A.StrideBytes != P.PointeeBytes) ||
          (A.Indirect && !IndexRanges)) {
        Bounded = false;
        break;
      }
      auto R = offsetRange(K, IR, *Off, B, IndexRanges);
      if (!R) {
        Bounded = false;
        break;
      }
      Max = std::max(Max, R->second + int64_t(A.ElementBytes / std::max(1u, A.StrideBytes)));
      Min = std::min(Min, R->first);
    }
    if (!Seen && IndexCounts && IndexCounts->count(P.Name)) {
      // Read by the loop bounds only (row pointers): the index data's length.
      Out.push_back(std::to_string(IndexCounts->at(P.Name) + 64));
      continue;
    }
    if (!Seen) {
      Why = "array '" + P.Name + "' is not accessed in the loop nest: its length is unknown";
      return std::nullopt;
    }
    if (!Bounded) {
      Why = "array '" + P.Name + "' is accessed through data or a field: its contents cannot be "
            "synthesised";
      return std::nullopt;
    }
    if (Min < 0) {
      Why = "array '" + P.Name + "' is accessed before its start";
      return std::nullopt;
    }
    Out.push_back(std::to_string(Max + 64)); // a line of slack for vector remainders
  }
  return Out;
}

bool perfmodel::indexesData(const KernelIR &IR, const LoopKernel &K, const std::string &Array) {
  for (const auto &[Sym, Ref] : IR.DataRefs)
    if (Ref.Array == Array)
      return true;
  // "idx[i]", "p->col[k]": the name as a whole word before its subscript.
  auto Names = [&](StringRef Via) {
    for (size_t At = Via.find(Array + "["); At != StringRef::npos;
         At = Via.find(Array + "[", At + 1))
      if (At == 0 || !(isAlnum(Via[At - 1]) || Via[At - 1] == '_'))
        return true;
    return false;
  };
  return llvm::any_of(K.Accesses, [&](const Access &A) { return A.Indirect && Names(A.IndirectVia); });
}

namespace {

/// Why the harness cannot call F's loop (a parameter it cannot synthesise,
/// index data it would guess); "" when it can.
std::string unharnessable(const KernelIR &IR, const LoopKernel &K, const FunctionInfo &F,
                          const std::set<std::string> &IndexArrays) {
  for (const FunctionParam &P : F.Params) {
    if (P.What == FunctionParam::Kind::Other)
      return "parameter '" + P.Name + "' of type " + P.Type + " cannot be synthesised";
    // Integer element types, signed or not ("unsigned char", "uint8_t").
    StringRef Elem = StringRef(P.Pointee);
    Elem.consume_front("unsigned ");
    Elem.consume_front("signed ");
    bool IntegerElem = Elem.contains("int") || Elem == "long" || Elem == "long long" ||
                       Elem == "short" || Elem == "char" || Elem == "size_t" ||
                       Elem == "unsigned" || Elem == "ptrdiff_t";
    if (P.What == FunctionParam::Kind::Pointer &&
        (!P.PointeeBytes || (!P.PointeeIsFloating && !IntegerElem)))
      return "parameter '" + P.Name + "' points to " + P.Pointee + ", which cannot be synthesised";
    if (P.What == FunctionParam::Kind::Pointer && !P.PointeeIsFloating &&
        !IndexArrays.count(P.Name) && indexesData(IR, K, P.Name))
      return "parameter '" + P.Name + "' is an integer array (index data): its contents "
              "would be guessed (give them with --index " + P.Name + "=..., e.g. " + P.Name +
              "=uniform:0:n:n for a gather over n elements)";
  }
  return "";
}

/// The harness's head: the user's file included, the clock, core-share,
/// memory and cache probes each sample is read beside, and main's argument
/// check (the function's parameters and one file per index array).
void harnessPrologue(std::ostringstream &S, const KernelIR &IR, const FunctionInfo &F,
                     size_t NIndex) {
  SmallString<256> Path(IR.File);
  sys::fs::make_absolute(Path);
  std::string Quoted;
  for (char C : Path.str())
    Quoted += C == '"' || C == '\\' ? std::string("\\") + C : std::string(1, C);
  S << "// Timing harness generated by perfmodel validate for " << F.Name << ".\n"
    << "#define main perfmodel_user_main\n"
    << "#include \"" << Quoted << "\"\n"
    << "#undef main\n"
    << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n\n"
    << "static double perfmodel_now(void) {\n"
    << "  struct timespec T;\n  clock_gettime(CLOCK_MONOTONIC, &T);\n"
    << "  return (double)T.tv_sec + 1e-9 * (double)T.tv_nsec;\n}\n\n"
    // Beside each sample: the clock (a dependent add chain), and the ALUs'
    // and FP pipes' share this thread had (independent adds): a VM's clock
    // and its neighbours move within a run (docs/testing.md, "Timing").
    // The adds take a register, not an immediate: Golden Cove and later
    // fold add-immediate chains at rename, about six a cycle. The
    // independent adds are eight chains of one add an iteration, so that
    // the ALUs bind them, not their latency (3.5 a cycle on that core with
    // four chains of two, against 4.2 with eight).
    << "#if defined(__x86_64__)\n"
    << "static void perfmodel_probe(double *ghz, double *adds, double *fpadds) {\n"
    << "  long long n = 100000, m = 100000, f = 100000, x = 0, a = 0, b = 0, c = 0, d = 0;\n"
    << "  long long e = 0, g = 0, h = 0, k = 0, one = 1;\n"
    << "  double t0 = perfmodel_now();\n"
    << "  __asm__ volatile(\"1:\\n\\tadd %2, %0\\n\\tadd %2, %0\\n\\tadd %2, %0\\n\\t\"\n"
    << "                   \"add %2, %0\\n\\tsub $1, %1\\n\\tjnz 1b\" : \"+r\"(x), \"+r\"(n) : \"r\"(one));\n"
    << "  double t1 = perfmodel_now();\n"
    << "  __asm__ volatile(\"1:\\n\\tadd %9, %0\\n\\tadd %9, %1\\n\\tadd %9, %2\\n\\tadd %9, %3\\n\\t\"\n"
    << "                   \"add %9, %4\\n\\tadd %9, %5\\n\\tadd %9, %6\\n\\tadd %9, %7\\n\\t\"\n"
    << "                   \"sub $1, %8\\n\\tjnz 1b\"\n"
    << "                   : \"+r\"(a), \"+r\"(b), \"+r\"(c), \"+r\"(d), \"+r\"(e), \"+r\"(g),\n"
    << "                     \"+r\"(h), \"+r\"(k), \"+r\"(m) : \"r\"(one));\n"
    << "  double t2 = perfmodel_now();\n"
    << "  __asm__ volatile(\".irp k,0,1,2,3,4,5,6,7,8\\n\\txorpd %%xmm\\\\k, %%xmm\\\\k\\n\\t.endr\\n\"\n"
    << "                   \"1:\\n\\t.irp k,0,1,2,3,4,5,6,7\\n\\taddpd %%xmm8, %%xmm\\\\k\\n\\t.endr\\n\\t\"\n"
    << "                   \"sub $1, %0\\n\\tjnz 1b\" : \"+r\"(f) :\n"
    << "                   : \"xmm0\", \"xmm1\", \"xmm2\", \"xmm3\", \"xmm4\", \"xmm5\", \"xmm6\",\n"
    << "                     \"xmm7\", \"xmm8\");\n"
    << "  double t3 = perfmodel_now();\n"
    << "  *ghz = 1e-9 * 4 * 100000 / (t1 - t0);\n"
    << "  *adds = (8.0 * 100000 / (t2 - t1)) / (4.0 * 100000 / (t1 - t0));\n"
    << "  *fpadds = (8.0 * 100000 / (t3 - t2)) / (4.0 * 100000 / (t1 - t0));\n}\n"
    << "#else\n"
    << "static void perfmodel_probe(double *ghz, double *adds, double *fpadds) {\n"
    << "  *ghz = 0; *adds = 0; *fpadds = 0;\n}\n"
    << "#endif\n\n"
    // With PERFMODEL_MEMPROBE set (memory-sized rows): GB/s of a read of 1
    // MiB, a load a line, from a 64 MiB buffer walked on, so its lines come
    // from memory: a neighbour streaming beside us on the memory bus lowers
    // it, which the adds above do not see.
    << "static char *perfmodel_mem;\nstatic size_t perfmodel_memat;\n"
    << "static volatile long perfmodel_memsink;\n"
    << "static double perfmodel_memprobe(void) {\n"
    << "  if (!perfmodel_mem) return 0;\n"
    << "  const long *p = (const long *)(perfmodel_mem + perfmodel_memat);\n"
    << "  long s = 0;\n  double t0 = perfmodel_now();\n"
    << "  for (size_t i = 0; i < (1u << 20) / sizeof(long); i += 64 / sizeof(long)) s += p[i];\n"
    << "  double t = perfmodel_now() - t0;\n  perfmodel_memsink = s;\n"
    << "  perfmodel_memat = (perfmodel_memat + (1u << 20)) % (64u << 20);\n"
    << "  return t > 0 ? (1u << 20) / t / 1e9 : 0;\n}\n\n"
    // GB/s of a 128 KiB read from the L2 (more than any L1, less than any
    // L2), a load a line into eight sums, after an untimed pass that brings
    // it back from wherever the kernel's data pushed it: a neighbour on the
    // core's load pipes, L1 or L2 lowers it, which the adds do not see.
    << "static long perfmodel_l2[(128u << 10) / sizeof(long)];\n"
    << "static double perfmodel_cacheprobe(void) {\n"
    << "  const size_t n = sizeof perfmodel_l2 / sizeof(long), step = 64 / sizeof(long);\n"
    << "  long s[8] = {0};\n  double t0 = 0;\n"
    << "  for (int pass = 0; pass < 2; ++pass) {\n"
    << "    if (pass) t0 = perfmodel_now();\n"
    << "    for (size_t i = 0; i < n; i += 8 * step)\n"
    << "      for (int k = 0; k < 8; ++k) s[k] += ((volatile long *)perfmodel_l2)[i + k * step];\n"
    << "  }\n"
    << "  double t = perfmodel_now() - t0;\n"
    << "  perfmodel_memsink = s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];\n"
    << "  return t > 0 ? (128u << 10) / t / 1e9 : 0;\n}\n\n"
    << "int main(int argc, char **argv) {\n"
    << "  if (argc != " << F.Params.size() + NIndex + 1 << ") {\n"
    << "    fprintf(stderr, \"usage: harness " << F.Params.size() + NIndex << " arguments\\n\");\n"
    << "    return 2;\n  }\n";
}

/// main's arguments: sizes, scale factors, arrays filled with values near 1
/// (index arrays from their files).
void harnessArguments(std::ostringstream &S, const FunctionInfo &F,
                      const std::set<std::string> &IndexArrays) {
  size_t IndexArg = F.Params.size() + 1;
  for (size_t I = 0; I < F.Params.size(); ++I) {
    const FunctionParam &P = F.Params[I];
    std::string V = "a" + std::to_string(I);
    if (P.What == FunctionParam::Kind::Integer) {
      S << "  long long " << V << " = atoll(argv[" << I + 1 << "]);\n";
    } else if (P.What == FunctionParam::Kind::Floating) {
      // A scale factor near 1 keeps repeated updates finite and normal.
      S << "  double " << V << " = 1.0000001;\n";
    } else {
      S << "  size_t " << V << "_n = (size_t)atoll(argv[" << I + 1 << "]);\n"
        << "  " << P.Pointee << " *" << V << " = (" << P.Pointee << " *)aligned_alloc(64, ("
        << V << "_n * sizeof(" << P.Pointee << ") + 63) / 64 * 64);\n"
        << "  if (!" << V << ") { fprintf(stderr, \"out of memory\\n\"); return 1; }\n"
        << "  for (size_t i = 0; i < " << V << "_n; ++i) " << V << "[i] = ("
        << P.Pointee << ")"
        << (P.PointeeIsFloating ? "(1.0 + (double)(i % 7) * 1e-3)" : "(1 + i % 7)") << ";\n";
      if (!P.PointeeIsFloating && IndexArrays.count(P.Name)) {
        // Index data: the values perfmodel simulated, from a file of int64.
        S << "  {\n    FILE *f = fopen(argv[" << IndexArg++ << "], \"rb\");\n"
          << "    long long v[4096];\n    size_t got, i = 0;\n"
          << "    if (!f) { perror(\"index data\"); return 1; }\n"
          << "    while (i < " << V << "_n && (got = fread(v, sizeof v[0], 4096, f)) > 0)\n"
          << "      for (size_t k = 0; k < got && i < " << V << "_n; ++k) " << V << "[i++] = ("
          << P.Pointee << ")v[k];\n"
          << "    fclose(f);\n"
          << "    if (i == 0) { fprintf(stderr, \"index data: empty\\n\"); return 1; }\n"
          << "    for (size_t k = i; k < " << V << "_n; ++k) " << V << "[k] = " << V
          << "[k % i];\n  }\n";
      }
    }
  }
}

/// The file-scope arrays the function's loops use, filled as the arrays
/// passed are (a program writes its data before its loops read it; pages
/// never written all map to one zero page). Those holding indices stay as
/// the file leaves them: their contents decide what is timed.
void harnessFileArrays(std::ostringstream &S, const KernelIR &IR, const LoopKernel &K,
                       const FunctionInfo &F) {
  for (const FileArray &A : F.FileArrays) {
    if (!A.Floating && indexesData(IR, K, A.Name))
      continue;
    S << "  {\n    " << A.Element << " *p = (" << A.Element << " *)(void *)&" << A.Name
      << ";\n    for (size_t i = 0; i < sizeof " << A.Name << " / sizeof(" << A.Element
      << "); ++i) p[i] = (" << A.Element << ")"
      << (A.Floating ? "(1.0 + (double)(i % 7) * 1e-3)" : "(1 + i % 7)") << ";\n  }\n";
  }
}

/// The timed calls: doubling until a call batch takes MINSECONDS, then at
/// least REPS samples, each beside its probes, printed for the caller.
void harnessTiming(std::ostringstream &S, const KernelIR &IR, const FunctionInfo &F,
                   unsigned Reps, double MinSeconds) {
  double Budget = 4 * Reps * MinSeconds;
  // C converts void * to any object pointer, whatever its qualifiers or
  // array shape; C++ needs the parameter's own type.
  // Calls go through a volatile function pointer: the compiler can neither
  // inline the kernel into the timing loop nor drop repeated identical
  // calls (a copy into the same buffer is idempotent).
  std::string Call = "perfmodel_kernel(";
  for (size_t I = 0; I < F.Params.size(); ++I) {
    const FunctionParam &P = F.Params[I];
    std::string Cast = P.What == FunctionParam::Kind::Pointer && !IR.Cxx ? "void *" : P.Type;
    Call += (I ? ", " : "") + std::string("(") + Cast + ")a" + std::to_string(I);
  }
  Call += ")";
  S << "  " << (IR.Cxx ? "decltype(&" : "__typeof__(&") << F.Name
    << ") volatile perfmodel_kernel = &" << F.Name << ";\n"
    << "  " << Call << "; /* warm-up */\n"
    << "  long long calls = 1;\n"
    << "  for (;;) {\n"
    << "    double t0 = perfmodel_now();\n"
    << "    for (long long c = 0; c < calls; ++c) " << Call << ";\n"
    << "    if (perfmodel_now() - t0 >= " << MinSeconds << " || calls >= (1LL << 40)) break;\n"
    << "    calls *= 2;\n  }\n"
    // At least REPS samples, more while the run is short (up to 64 or a
    // tenth of a second): the more samples, the likelier some find the core
    // unshared. Each prints its seconds per call, clock and adds per cycle
    // (the lower of the probes before and after); the caller summarises.
    << "  if (getenv(\"PERFMODEL_MEMPROBE\") && (perfmodel_mem = malloc(64u << 20)))\n"
    << "    memset(perfmodel_mem, 1, 64u << 20);\n"
    << "  memset(perfmodel_l2, 1, sizeof perfmodel_l2); /* pages of its own, not the zero page */\n"
    << "  double sec[64], ghz[64], adds[64], fp[64], mem[64], l2[64], start = perfmodel_now();\n"
    << "  int r = 0;\n"
    << "  for (; r < 64 && (r < " << Reps << " || perfmodel_now() - start < " << Budget
    << "); ++r) {\n"
    << "    double g0, q0, p0, g1, q1, p1, m0, m1, c0, c1;\n"
    << "    m0 = perfmodel_memprobe();\n"
    << "    c0 = perfmodel_cacheprobe();\n"
    << "    perfmodel_probe(&g0, &q0, &p0);\n"
    << "    double t0 = perfmodel_now();\n"
    << "    for (long long c = 0; c < calls; ++c) " << Call << ";\n"
    << "    sec[r] = (perfmodel_now() - t0) / (double)calls;\n"
    << "    perfmodel_probe(&g1, &q1, &p1);\n"
    << "    c1 = perfmodel_cacheprobe();\n"
    << "    m1 = perfmodel_memprobe();\n"
    << "    ghz[r] = 0.5 * (g0 + g1);\n"
    << "    adds[r] = q0 < q1 ? q0 : q1;\n"
    << "    fp[r] = p0 < p1 ? p0 : p1;\n"
    << "    mem[r] = m0 < m1 ? m0 : m1;\n"
    << "    l2[r] = c0 < c1 ? c0 : c1;\n  }\n"
    << "  printf(\"perfmodel-samples %d\\n\", r);\n"
    << "  for (int k = 0; k < r; ++k)\n"
    << "    printf(\"%.9g %.9g %.9g %.9g %.9g %.9g\\n\", sec[k], ghz[k], adds[k], mem[k], fp[k],\n"
    << "           l2[k]);\n"
    << "  return 0;\n}\n";
}

} // namespace

Harness perfmodel::makeHarness(const KernelIR &IR, const LoopKernel &K, unsigned Reps,
                               double MinSeconds, const std::set<std::string> &IndexArrays) {
  Harness H;
  H.Function = K.Function;
  auto FI = IR.Functions.find(K.Function);
  if (FI == IR.Functions.end()) {
    H.Why = "the function of the loop was not recorded";
    return H;
  }
  const FunctionInfo &F = FI->second;
  if (!F.Callable) {
    H.Why = "'" + F.Name + "' is " + F.Why + ": the harness calls plain functions only";
    return H;
  }
  if (!isCIdentifier(F.Name)) {
    H.Why = "'" + F.Name + "' is not a plain C identifier";
    return H;
  }
  if (std::string Why = unharnessable(IR, K, F, IndexArrays); !Why.empty()) {
    H.Why = Why;
    return H;
  }
  size_t NIndex = 0;
  for (const FunctionParam &P : F.Params)
    NIndex += P.What == FunctionParam::Kind::Pointer && IndexArrays.count(P.Name);
  std::ostringstream S;
  harnessPrologue(S, IR, F, NIndex);
  harnessArguments(S, F, IndexArrays);
  harnessFileArrays(S, IR, K, F);
  harnessTiming(S, IR, F, Reps, MinSeconds);
  H.Source = S.str();
  H.Ok = true;
  return H;
}

bool perfmodel::buildHarness(const std::string &Source, bool Cxx,
                             const std::vector<std::string> &Flags, const std::string &Exe,
                             std::string &Error) {
  auto Clang = sys::findProgramByName(Cxx ? "clang++-19" : "clang-19");
  if (!Clang) {
    Error = std::string(Cxx ? "clang++-19" : "clang-19") + " not found on PATH";
    return false;
  }
  SmallString<128> Src, Log;
  int FD;
  if (sys::fs::createTemporaryFile("perfmodel-harness", Cxx ? "cpp" : "c", FD, Src) ||
      sys::fs::createTemporaryFile("perfmodel-harness", "log", Log)) {
    Error = "cannot create a temporary file";
    return false;
  }
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Source;
  }
  std::vector<std::string> Args = {*Clang, "-O3", "-w"};
  Args.insert(Args.end(), Flags.begin(), Flags.end());
  Args.insert(Args.end(), {std::string(Src), "-o", Exe, "-lm"});
  std::vector<StringRef> Argv(Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Log), StringRef(Log)};
  std::string ExecError;
  int RC = sys::ExecuteAndWait(*Clang, Argv, std::nullopt, Redirects, 300, 0, &ExecError);
  auto Buf = MemoryBuffer::getFile(Log);
  sys::fs::remove(Src);
  sys::fs::remove(Log);
  if (RC == 0)
    return true;
  Error = "the compiler failed" + (ExecError.empty() ? "" : " (" + ExecError + ")") +
          (Buf ? ":\n" + (*Buf)->getBuffer().trim().str() : "");
  return false;
}

namespace {
/// ExecuteAndWait's status never taken by a program: no temporary file.
constexpr int TempFileFailed = -1000;

/// Runs EXE with ARGS and returns its status, its output and errors in TEXT
/// (trimmed): in the environment as it is, with PERFMODEL_MEMPROBE for
/// memory rows (MEMORYPROBE) and THREADS OpenMP threads, each on a core of
/// its own (0: the environment's).
int runCapturing(const std::string &Exe, const std::vector<std::string> &Args,
                 unsigned TimeoutSeconds, bool MemoryProbe, unsigned Threads, std::string &Text,
                 std::string &ExecError) {
  SmallString<128> Out;
  if (sys::fs::createTemporaryFile("perfmodel-harness", "out", Out))
    return TempFileFailed;
  std::vector<std::string> All = {Exe};
  All.insert(All.end(), Args.begin(), Args.end());
  std::vector<StringRef> Argv(All.begin(), All.end());
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(Out), StringRef(Out)};
  std::optional<ArrayRef<StringRef>> Env;
  std::vector<std::string> EnvOwned;
  std::vector<StringRef> EnvRefs;
  if (MemoryProbe || Threads) {
    for (char **E = environ; E && *E; ++E)
      if (!Threads || (!StringRef(*E).starts_with("OMP_NUM_THREADS=") &&
                       !StringRef(*E).starts_with("OMP_PROC_BIND=") &&
                       !StringRef(*E).starts_with("OMP_PLACES=")))
        EnvOwned.push_back(*E);
    if (MemoryProbe)
      EnvOwned.push_back("PERFMODEL_MEMPROBE=1");
    if (Threads) {
      EnvOwned.push_back("OMP_NUM_THREADS=" + std::to_string(Threads));
      EnvOwned.push_back("OMP_PROC_BIND=spread");
      EnvOwned.push_back("OMP_PLACES=cores");
    }
    EnvRefs.assign(EnvOwned.begin(), EnvOwned.end());
    Env = EnvRefs;
  }
  int RC = sys::ExecuteAndWait(Exe, Argv, Env, Redirects, TimeoutSeconds, 0, &ExecError);
  auto Buf = MemoryBuffer::getFile(Out);
  sys::fs::remove(Out);
  Text = Buf ? (*Buf)->getBuffer().trim().str() : "";
  return RC;
}
} // namespace

std::map<unsigned, double> perfmodel::measureParallelLoopUs(unsigned MaxThreads,
                                                           std::string &Error) {
  std::map<unsigned, double> Us;
  static const char *Source = R"(#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + 1e-9 * T.tv_nsec;
}
static int cmp(const void *A, const void *B) {
  double D = *(const double *)A - *(const double *)B;
  return (D > 0) - (D < 0);
}
static volatile double Sink;
__attribute__((noinline)) static void region(int Threads) {
  double S = 0;
#pragma omp parallel for schedule(static) num_threads(Threads) reduction(+ : S)
  for (int I = 0; I < Threads; ++I)
    S += I;
  Sink = S;
}
int main(int argc, char **argv) {
  int Max = atoi(argv[1]);
  for (int T = 1; T <= Max; ++T) {
    double Med[9];
    for (int C = 0; C < 200; ++C)
      region(T);
    for (int R = 0; R < 9; ++R) {
      double T0 = now();
      for (int C = 0; C < 2000; ++C)
        region(T);
      Med[R] = (now() - T0) / 2000;
    }
    qsort(Med, 9, sizeof(double), cmp);
    printf("%d %.6f\n", T, Med[4] * 1e6);
  }
  return 0;
}
)";
  SmallString<128> Exe;
  if (sys::fs::createTemporaryFile("perfmodel-forkjoin", "exe", Exe)) {
    Error = "cannot create a temporary file";
    return Us;
  }
  if (!buildHarness(Source, /*Cxx=*/false, {"-fopenmp"}, std::string(Exe), Error)) {
    sys::fs::remove(Exe);
    return Us;
  }
  // The threads placed as the harness places a kernel's: one a core.
  unsigned Threads = std::max(MaxThreads, 1u);
  std::string Text, ExecError;
  int RC = runCapturing(std::string(Exe), {std::to_string(Threads)}, 120, /*MemoryProbe=*/false,
                        Threads, Text, ExecError);
  sys::fs::remove(Exe);
  if (RC == TempFileFailed) {
    Error = "cannot create a temporary file";
    return Us;
  }
  std::istringstream Lines(Text);
  unsigned T;
  double V;
  while (Lines >> T >> V)
    if (T >= 1 && V > 0)
      Us[T] = V;
  if (RC != 0 || Us.size() != Threads) {
    Error = "the parallel loop timing failed" +
            (RC < 0 ? " (" + ExecError + ")" : " with status " + std::to_string(RC));
    Us.clear();
  }
  return Us;
}

std::optional<Timing> perfmodel::runHarness(const std::string &Exe,
                                            const std::vector<std::string> &Args,
                                            std::string &Error, unsigned TimeoutSeconds,
                                            bool MemoryProbe, unsigned Threads) {
  std::string Text, ExecError;
  int RC = runCapturing(Exe, Args, TimeoutSeconds, MemoryProbe, Threads, Text, ExecError);
  if (RC == TempFileFailed) {
    Error = "cannot create a temporary file";
    return std::nullopt;
  }
  std::vector<Sample> Samples;
  const char *At = Text.c_str();
  int N = 0, Used = 0;
  bool Parsed = std::sscanf(At, "perfmodel-samples %d%n", &N, &Used) == 1 && N > 0;
  for (int K = 0; Parsed && K < N; ++K) {
    At += Used;
    Sample X;
    Parsed = std::sscanf(At, "%lf %lf %lf %lf %lf %lf%n", &X.Seconds, &X.ClockGHz,
                         &X.AddsPerCycle, &X.MemGBs, &X.FpAddsPerCycle, &X.CacheGBs,
                         &Used) == 6;
    Samples.push_back(X);
  }
  if (RC != 0 || !Parsed) {
    Error = "the harness failed" +
            (RC < 0 ? " (" + ExecError + ")" : " with status " + std::to_string(RC)) +
            (Text.empty() ? "" : ": " + Text.substr(0, 200));
    return std::nullopt;
  }
  QuietReferences R = ownReferences(Samples);
  return summariseSamples(std::move(Samples), R);
}

double perfmodel::ownReference(std::vector<double> AddsPerCycle) {
  std::sort(AddsPerCycle.rbegin(), AddsPerCycle.rend());
  return AddsPerCycle.empty() ? 0 : AddsPerCycle[std::min<size_t>(1, AddsPerCycle.size() - 1)];
}

namespace {
/// ownReference of one measurement taken beside every sample.
double ownReferenceOf(const std::vector<Sample> &Samples, double Sample::*Field) {
  std::vector<double> R;
  for (const Sample &X : Samples)
    R.push_back(X.*Field);
  return ownReference(std::move(R));
}
} // namespace

double perfmodel::ownReference(const std::vector<Sample> &Samples) {
  return ownReferenceOf(Samples, &Sample::AddsPerCycle);
}

double perfmodel::ownMemReference(const std::vector<Sample> &Samples) {
  return ownReferenceOf(Samples, &Sample::MemGBs);
}

double perfmodel::ownFpReference(const std::vector<Sample> &Samples) {
  return ownReferenceOf(Samples, &Sample::FpAddsPerCycle);
}

double perfmodel::ownCacheReference(const std::vector<Sample> &Samples) {
  return ownReferenceOf(Samples, &Sample::CacheGBs);
}

QuietReferences perfmodel::ownReferences(const std::vector<Sample> &Samples) {
  return {ownReference(Samples), ownMemReference(Samples), ownFpReference(Samples),
          ownCacheReference(Samples)};
}

Timing perfmodel::summariseSamples(std::vector<Sample> Samples, const QuietReferences &R) {
  Timing T;
  T.Reference = R.Adds;
  T.MemReference = R.Mem;
  T.FpReference = R.Fp;
  T.CacheReference = R.Cache;
  T.Total = unsigned(Samples.size());
  std::vector<Sample> Kept;
  for (const Sample &X : Samples)
    if (isQuietSample(X, R))
      Kept.push_back(X);
  // No sample had the core to itself: all of them, and the share says so.
  T.Kept = unsigned(Kept.size());
  if (Kept.empty())
    Kept = Samples;
  std::vector<double> Sec, GHz, Cy, Share;
  for (const Sample &X : Kept) {
    Sec.push_back(X.Seconds);
    GHz.push_back(X.ClockGHz);
    Cy.push_back(X.Seconds * X.ClockGHz * 1e9);
    Share.push_back(R.Adds > 0 ? X.AddsPerCycle / R.Adds : 0);
  }
  T.Median = median(Sec);
  T.Min = *std::min_element(Sec.begin(), Sec.end());
  T.Max = *std::max_element(Sec.begin(), Sec.end());
  if (llvm::all_of(GHz, [](double G) { return G > 0; })) {
    T.ClockGHz = median(GHz);
    T.MedianCycles = median(Cy);
    T.MinCycles = *std::min_element(Cy.begin(), Cy.end());
    T.MaxCycles = *std::max_element(Cy.begin(), Cy.end());
  }
  T.Share = median(Share);
  T.Samples = std::move(Samples);
  return T;
}

Timing perfmodel::combineRuns(std::vector<Timing> Runs, const QuietReferences &Now,
                              unsigned Reps) {
  std::vector<double> Medians, Cycles, Clocks;
  unsigned Kept = 0, Total = 0;
  for (Timing &R : Runs) {
    R = summariseSamples(std::move(R.Samples), Now);
    Kept += R.Kept;
    Total += R.Total;
  }
  bool UseQuiet = Kept >= Reps;
  if (!UseQuiet)
    for (Timing &R : Runs)
      R = summariseSamples(std::move(R.Samples), {HUGE_VAL});
  std::optional<Timing> T;
  for (const Timing &R : Runs) {
    if (UseQuiet && !R.Kept)
      continue;
    Medians.push_back(R.Median);
    Cycles.push_back(R.MedianCycles);
    Clocks.push_back(R.ClockGHz);
    if (!T)
      T = R;
    T->Min = std::min(T->Min, R.Min);
    T->Max = std::max(T->Max, R.Max);
    T->MinCycles = std::min(T->MinCycles, R.MinCycles);
    T->MaxCycles = std::max(T->MaxCycles, R.MaxCycles);
  }
  if (!T)
    return Timing();
  T->Median = median(Medians);
  T->MedianCycles = median(Cycles);
  T->ClockGHz = median(Clocks);
  T->Kept = Kept;
  T->Total = Total;
  return *T;
}

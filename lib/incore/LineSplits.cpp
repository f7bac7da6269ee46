//===- LineSplits.cpp - Which vector accesses cross a cache line ----------===//
//
// A vectorised loop reads and writes its contiguous streams W bytes at a time
// from where each row starts; clang does not peel for alignment on x86, so a
// stream whose start is not a multiple of W crosses a line boundary once per
// line: W / 64 of its accesses split. Where a row starts depends on the base
// address (declared alignment, or the allocator's when the source does not
// say), the constant offset of the reference and the outer loops' strides.
//
//===----------------------------------------------------------------------===//
#include "ListSchedule.h"
#include "perfmodel/InCore.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <set>

using namespace perfmodel;

namespace {

/// Offsets of the row starts of A modulo LINE as {C + k G mod LINE}, each
/// equally likely: the byte offset with the innermost counter at its lower
/// bound, the other counters and unbound symbols taken as any integer
/// (their coefficients join the lattice G), the base aligned to ALIGN.
struct Residues {
  int64_t C = 0, G = 64;
};

std::optional<Residues> rowStarts(const Access &A, const LoopKernel &K,
                                  const std::map<std::string, int64_t> &Bind, unsigned Align,
                                  unsigned Line) {
  if (!A.Linear || A.Indirect || A.StrideBytes == 0)
    return std::nullopt;
  const LoopLevel &In = K.innermost();
  Poly Off = A.Linear->substitute(Bind);
  if (Off.degreeIn(In.Var) != 1)
    return std::nullopt;
  // Contiguous: one element per iteration of the innermost loop.
  Poly Coef = Off.coefficientOf(In.Var);
  int64_t Step = In.Step ? std::abs(In.Step) : 1;
  if (!Coef.isConstant() ||
      std::abs(Coef.constantTerm()) * Step * int64_t(A.StrideBytes) != int64_t(A.ElementBytes))
    return std::nullopt;
  auto Lower = In.Lower.substitute(Bind);
  Off = (Off - Coef * Poly::symbol(In.Var)) + Coef * Lower;
  int64_t G = std::min<int64_t>(Align, Line);
  G = std::gcd(G, int64_t(Line));
  int64_t C = int64_t(A.FieldOffset);
  for (const auto &[Mono, V] : Off.terms()) {
    int64_t Bytes = V * int64_t(A.StrideBytes);
    if (Mono.empty())
      C += Bytes;
    else
      G = std::gcd(G, Bytes);
  }
  Residues R;
  R.G = G ? G : Line;
  R.C = ((C % int64_t(Line)) + int64_t(Line)) % int64_t(Line);
  return R;
}

/// K's accesses as the vectoriser streams them, in their order, each with
/// its element bytes. References to consecutive elements that together step
/// by their bytes (val[2*k] and val[2*k + 1]) are one contiguous stream
/// loaded whole: the lowest of them, as wide as the group, stands for the
/// group where its first member stands; everything else as it is.
std::vector<std::pair<Access, unsigned>>
streamsOf(const LoopKernel &K, const std::map<std::string, int64_t> &Bind) {
  using Key = std::pair<std::string, Poly>; // array, offset without its constant
  auto Groupable = [](const Access &A) {
    return A.Linear && !A.Indirect && !A.AlignedByContract && A.StrideBytes == A.ElementBytes;
  };
  auto KeyOf = [&](const Access &A) {
    Poly Off = A.Linear->substitute(Bind);
    return Key{A.Array, Off - Poly::constant(Off.constantTerm())};
  };
  std::map<Key, std::vector<const Access *>> Members;
  for (const Access &A : K.Accesses)
    if (Groupable(A))
      Members[KeyOf(A)].push_back(&A);
  // Each group decided once: the stream standing for it, if consecutive.
  std::map<Key, std::optional<Access>> Merged;
  int64_t Step = K.innermost().Step ? std::abs(K.innermost().Step) : 1;
  for (const auto &[G, Ms] : Members) {
    std::optional<Access> &Out = Merged[G];
    Poly Coef = G.second.coefficientOf(K.innermost().Var);
    int64_t Lo = INT64_MAX, Hi = INT64_MIN;
    const Access *Low = Ms.front();
    for (const Access *M : Ms) {
      int64_t O = M->Linear->substitute(Bind).constantTerm();
      if (O < Lo)
        Lo = O, Low = M;
      Hi = std::max(Hi, O);
    }
    if (!Coef.isConstant() || Ms.size() < 2 || Hi - Lo + 1 != int64_t(Ms.size()) ||
        std::abs(Coef.constantTerm()) * Step != int64_t(Ms.size()))
      continue;
    Out = *Low;
    Out->ElementBytes = Low->ElementBytes * unsigned(Ms.size());
    Out->ReadRefs = Out->WriteRefs = 0;
    Out->Read = Out->Write = false;
    for (const Access *M : Ms) {
      Out->Read |= M->Read;
      Out->Write |= M->Write;
      Out->ReadRefs += M->Read ? std::max(1u, M->ReadRefs) : 0;
      Out->WriteRefs += M->Write ? std::max(1u, M->WriteRefs) : 0;
    }
  }
  std::vector<std::pair<Access, unsigned>> Streams;
  std::set<Key> Done;
  for (const Access &A : K.Accesses) {
    const std::optional<Access> *G = nullptr;
    Key At;
    if (Groupable(A)) {
      At = KeyOf(A);
      G = &Merged[At];
    }
    if (!G || !*G)
      Streams.push_back({A, A.ElementBytes});
    else if (Done.insert(At).second)
      Streams.push_back({**G, A.ElementBytes});
  }
  return Streams;
}

/// Of the accesses of width W from row starts R, the fraction that crosses a
/// line: W / LINE for each row start that is not a multiple of W.
double splitFraction(const Residues &R, unsigned W, unsigned Line) {
  if (W == 0 || W > Line || Line % W)
    return 0;
  unsigned N = unsigned(int64_t(Line) / R.G), Off = 0;
  for (unsigned K = 0; K < N; ++K)
    Off += (R.C + int64_t(K) * R.G) % W != 0;
  return double(Off) / N * double(W) / Line;
}

} // namespace

double LineSplits::fractionOf(unsigned VectorBytes, unsigned PackedElement, bool Store,
                              unsigned *Width) const {
  unsigned W = VectorBytes;
  // Cut into granules, the share of the access that splits is its granules'
  // (the extra cost is per granule, each an equal part of it).
  if (Granule && W > Granule)
    W = Granule;
  if (Width)
    *Width = W;
  if (!W)
    return 0;
  // Packed doubles or singles: the streams of that element alone.
  if (unsigned E = PackedElement) {
    const auto &FE = Store ? StoreOfElement : LoadOfElement;
    auto It = FE.find({W, E});
    return It != FE.end() ? It->second : 0;
  }
  const std::map<unsigned, double> &F = Store ? this->Store : Load;
  auto It = F.find(W);
  return It != F.end() ? It->second : 0;
}

void LineSplits::takeStreamFigures(const LineSplits &O) {
  Load = O.Load;
  Store = O.Store;
  LoadOfElement = O.LoadOfElement;
  StoreOfElement = O.StoreOfElement;
  Streams = O.Streams;
}

bool LineSplits::sameStreamFigures(const LineSplits &O) const {
  return Load == O.Load && Store == O.Store && LoadOfElement == O.LoadOfElement &&
         StoreOfElement == O.StoreOfElement;
}

bool LineSplits::any() const {
  auto Some = [](const std::map<unsigned, double> &F) {
    for (const auto &[W, V] : F)
      if (V > 0)
        return true;
    return false;
  };
  return (LoadCost > 1 && Some(Load)) || (StoreCost > 1 && Some(Store));
}

LineSplits perfmodel::lineSplitsOf(const LoopKernel &K, const std::map<std::string, int64_t> &Bind,
                                   unsigned AssumedAlign, unsigned Line) {
  LineSplits S;
  S.AssumedAlign = AssumedAlign;
  if (!Line || K.Nest.empty())
    return S;
  std::map<unsigned, double> Load, Store;
  double Reads = 0, Writes = 0;
  std::vector<std::pair<Access, unsigned>> Streams = streamsOf(K, Bind);
  std::map<std::pair<unsigned, unsigned>, double> LoadOf, StoreOf, ReadsOf, WritesOf;
  for (const auto &[A, Elem] : Streams) {
    std::optional<Residues> R;
    unsigned Align = 0;
    if (!A.AlignedByContract) {
      Align = A.BaseAlignBytes ? A.BaseAlignBytes : AssumedAlign;
      R = rowStarts(A, K, Bind, Align, Line);
      if (!R)
        continue;
    }
    double Rd = A.Read ? std::max(1u, A.ReadRefs) : 0;
    double Wr = A.Write ? std::max(1u, A.WriteRefs) : 0;
    Reads += Rd;
    Writes += Wr;
    for (unsigned W : {16u, 32u, 64u}) {
      double F = R ? splitFraction(*R, W, Line) : 0;
      Load[W] += Rd * F;
      Store[W] += Wr * F;
      std::pair<unsigned, unsigned> Key{W, Elem};
      LoadOf[Key] += Rd * F;
      StoreOf[Key] += Wr * F;
      ReadsOf[Key] += Rd;
      WritesOf[Key] += Wr;
    }
    LineSplits::Stream St;
    St.Array = A.Array;
    St.Text = A.Text;
    St.AlignBytes = A.AlignedByContract ? 0 : Align;
    St.Declared = A.AlignedByContract || A.BaseAlignBytes;
    St.Split32 = R ? splitFraction(*R, 32, Line) : 0;
    S.Streams.push_back(St);
  }
  for (unsigned W : {16u, 32u, 64u}) {
    S.Load[W] = Reads > 0 ? Load[W] / Reads : 0;
    S.Store[W] = Writes > 0 ? Store[W] / Writes : 0;
  }
  for (const auto &[Key, N] : ReadsOf)
    S.LoadOfElement[Key] = N > 0 ? LoadOf[Key] / N : 0;
  for (const auto &[Key, N] : WritesOf)
    S.StoreOfElement[Key] = N > 0 ? StoreOf[Key] / N : 0;
  return S;
}

void perfmodel::splitsAtSizes(InCoreResult &R, const LoopKernel &K,
                              const std::map<std::string, int64_t> &Bind,
                              const InCoreOptions &O) {
  if (!R.Ok || R.BodyBytes.empty() || (!R.Splits.LoadCost && !R.Splits.StoreCost))
    return;
  LineSplits Now = lineSplitsOf(K, Bind, R.Splits.AssumedAlign, O.LineBytes);
  if (Now.sameStreamFigures(R.Splits))
    return;
  InCoreOptions LO = O;
  LO.Splits = R.Splits;
  LO.Splits.takeStreamFigures(Now);
  if (O.DeferBodySchedule)
    LO.ListSchedule = false;
  InCoreResult B = analyzeBlockBytes(R.BodyBytes, LO, R.BodyLines);
  if (!B.Ok)
    return;
  // The block's own figures change; what the loop search found stays.
  std::vector<std::string> Notes = B.Notes;
  for (const std::string &N : R.Notes)
    if (N.rfind("line splits:", 0) != 0 &&
        std::find(Notes.begin(), Notes.end(), N) == Notes.end())
      Notes.push_back(N);
  B.Notes = std::move(Notes);
  B.SourceItersPerIter = R.SourceItersPerIter;
  B.BytesPerSourceIt = R.BytesPerSourceIt;
  B.MachineLoop = R.MachineLoop;
  B.Nest = std::move(R.Nest);
  B.BodyBytes = std::move(R.BodyBytes);
  B.BodyLines = std::move(R.BodyLines);
  B.Code = std::move(R.Code);
  R = std::move(B);
}

void perfmodel::scheduleBody(InCoreResult &R) {
  if (R.BodyScheduled || !R.Ok)
    return;
  // The costing set the schedule up (every costing that defers it does):
  // run it, its note after the one the costing had added before it, where
  // the costing would have put it.
  std::shared_ptr<const PendingSchedule> P = std::move(R.Pending);
  if (!P)
    return;
  R.BodyScheduled = true;
  R.ScheduledCycles = listSchedule(P->input());
  std::string Note = listScheduleNote(R.ScheduledCycles, P->Cycles);
  if (Note.empty())
    return;
  auto At = R.Notes.begin();
  if (P->NoteBefore)
    if (auto Prev = std::find(R.Notes.begin(), R.Notes.end(), *P->NoteBefore);
        Prev != R.Notes.end())
      At = Prev + 1;
  R.Notes.insert(At, std::move(Note));
}

//===- OuterAccesses.cpp - Traffic of the enclosing loops' references ----===//
//
// References in an enclosing loop's body beside the inner loop (y[i] = sum
// after a row's reduction, a = A[i][k] before a row update) run once per
// iteration of their level, not of the innermost loop. Each moves with the
// innermost level that changes its address (its own, or one further out):
// per iteration of that level it touches one element, a new line every
// time when it steps a line or more, else a line every line / step
// iterations if the line stays in the cache while the loops inside run
// once; the lines are spread over the innermost iterations those loops run.
//
//===----------------------------------------------------------------------===//
#include "NestGeometry.h"
#include "perfmodel/Traffic.h"

#include <cmath>
#include <cstdio>
#include <set>

using namespace perfmodel;

namespace {

/// The byte advance of A per iteration of each level of K's nest (0 where the
/// level does not move it); nullopt when A is not affine at the bound sizes.
std::optional<std::vector<double>> advances(const Access &A, const LoopKernel &K,
                                            const std::map<std::string, int64_t> &B) {
  std::optional<Poly> Off = elementOffset(A);
  if (!Off || A.Indirect)
    return std::nullopt;
  std::vector<double> Adv(K.Nest.size(), 0);
  for (size_t L = 0; L < K.Nest.size(); ++L) {
    const std::string &V = K.Nest[L].Var;
    if (!Off->mentions(V))
      continue;
    if (Off->degreeIn(V) != 1)
      return std::nullopt;
    std::optional<int64_t> C = Off->coefficientOf(V).evaluate(B);
    if (!C)
      return std::nullopt;
    Adv[L] = double(*C) * A.StrideBytes * double(K.Nest[L].Step);
  }
  return Adv;
}

} // namespace

void perfmodel::outerL1Bytes(const LoopKernel &K, const NestGeometry &G, TrafficResult &R) {
  if (!G.ok() || G.totalIterations() <= 0)
    return;
  for (const Access &A : K.OuterAccesses) {
    if (!ownOuterReference(A, K))
      continue;
    // Executions per innermost iteration.
    double PerIt = G.points(K, size_t(A.OuterLevel)) / G.totalIterations();
    if (A.Read)
      R.OuterLoadBytesPerIt += A.ElementBytes * PerIt;
    if (A.Write)
      R.OuterStoreBytesPerIt += A.ElementBytes * PerIt;
  }
}

void perfmodel::addOuterTraffic(const LoopKernel &K, const NestGeometry &G, const KernelIR &IR,
                                const MachineModel &M, TrafficResult &R, bool AlignedBases) {
  if (K.OuterAccesses.empty() || R.Links.size() != M.Caches.size())
    return;
  outerL1Bytes(K, G, R);
  if (!G.ok() || G.totalIterations() <= 0)
    return;
  const auto &B = IR.bindings();
  // Points of the loops 0..L (their bounding box: triangular nests are
  // counted at their widest, the inner iterations per point shrink to match).
  auto Points = [&](size_t L) { return G.points(K, L); };
  const double Total = G.totalIterations();
  // The inner loops' traffic into each cache per innermost iteration, before
  // the outer references are added: what passes through between two of
  // their touches.
  std::vector<double> InnerLoad;
  for (const LinkTraffic &L : R.Links)
    InnerLoad.push_back(L.LoadBytesPerIt);
  std::set<std::string> InnerArrays, InnerWritten;
  for (const Access &A : K.Accesses) {
    InnerArrays.insert(A.Array);
    if (A.Write)
      InnerWritten.insert(A.Array);
  }
  // Page-aligned arrays put the same element of each in the same set: the
  // references that move with one level share a set at every step.
  std::map<int, unsigned> SameSet;
  for (const Access &A : K.OuterAccesses)
    if (ownOuterReference(A, K) && !InnerArrays.count(A.Array))
      ++SameSet[A.OuterLevel];
  std::string Counted, Skipped;
  for (const Access &A : K.OuterAccesses) {
    if (!ownOuterReference(A, K))
      continue;
    std::optional<std::vector<double>> Adv = advances(A, K, B);
    if (!Adv) {
      Skipped += (Skipped.empty() ? "" : ", ") + A.Text;
      continue;
    }
    int E = -1;
    for (int L = A.OuterLevel; L >= 0; --L)
      if ((*Adv)[L] != 0) {
        E = L;
        break;
      }
    if (E < 0)
      continue; // one element for the whole nest
    double Outer = Points(size_t(E));
    double Inner = Outer > 0 ? Total / Outer : 0; // innermost iterations per step
    if (Inner <= 0)
      continue;
    double Step = std::fabs((*Adv)[E]);
    double TripsE = G.trips(K.Nest[size_t(E)]);
    for (size_t C = 0; C < M.Caches.size(); ++C) {
      const CacheLevel &Cache = M.Caches[C];
      double Line = Cache.LineBytes ? Cache.LineBytes : 64;
      double Half = 0.5 * double(Cache.SizeBytes);
      bool Stays = InnerLoad[C] * Inner < Half;
      if (AlignedBases && Cache.sets() && Cache.Ways) {
        double Passing = InnerLoad[C] * Inner / Line / double(Cache.sets());
        Stays &= double(SameSet[A.OuterLevel]) + Passing <= double(Cache.Ways);
      }
      double Lines = Step >= Line || !Stays ? 1.0 : Step / Line;
      // Loops outside E that do not move it (sum[p] of a (r, q, p, s) nest
      // under r and q) read its lines again: where what one of their
      // iterations passes through the cache fits half of it, the lines of
      // one run of E come in once per iteration of the loop outside them.
      int Top = E;
      while (Top > 0 && (*Adv)[size_t(Top) - 1] == 0 &&
             InnerLoad[C] * Total / Points(size_t(Top) - 1) + Step * TripsE < Half)
        --Top;
      double Bytes = Lines * Line / Inner;
      if (Top < E)
        Bytes = Lines * TripsE * Line / (Total / (Top > 0 ? Points(size_t(Top) - 1) : 1.0));
      LinkTraffic &L = R.Links[C];
      // An array the inner loop streams brings the lines its outer
      // references touch (A[i][i] beside the row A[i][i+1..n), x[i] beside
      // x[i+1..n)); a write there still dirties them, unless the inner loop
      // writes the array too (its own write-backs count them).
      bool Streamed = InnerArrays.count(A.Array) > 0;
      if (!Streamed && (A.Read || (A.Write && Cache.WriteAllocate)))
        L.LoadBytesPerIt += Bytes;
      if (A.Write && !InnerWritten.count(A.Array))
        L.EvictBytesPerIt += Bytes;
    }
    char Buf[160];
    std::snprintf(Buf, sizeof Buf, "%s (once per %.4g iterations)", A.Text.c_str(), Inner);
    Counted += (Counted.empty() ? "" : ", ") + std::string(Buf);
  }
  if (!Counted.empty())
    R.Notes.push_back("the enclosing loops' references counted at their own rate: " + Counted);
  if (!Skipped.empty())
    R.Notes.push_back("the enclosing loops' references " + Skipped +
                      " are not affine: not counted");
}

//===- IndexData.cpp - Contents of index arrays for the simulator --------===//
//
// The contents of index arrays the simulator replays (--index): Matrix Market
// files (row pointers or column indices, by how the loop uses the array),
// lists of integers, and generated distributions (uniform, banded, CSR rows)
// sized from what the loops read at the bound sizes.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Traffic.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <random>

using namespace perfmodel;

bool perfmodel::readMatrixMarket(const std::string &File, std::vector<int64_t> &RowPtr,
                                 std::vector<int64_t> &Col, int64_t &Rows, int64_t &Cols,
                                 std::string &Error) {
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buf) {
    Error = File + ": cannot read: " + Buf.getError().message();
    return false;
  }
  return parseMatrixMarket((*Buf)->getBuffer(), File, RowPtr, Col, Rows, Cols, Error);
}

bool perfmodel::parseMatrixMarket(llvm::StringRef Text, const std::string &File,
                                  std::vector<int64_t> &RowPtr, std::vector<int64_t> &Col,
                                  int64_t &Rows, int64_t &Cols, std::string &Error) {
  unsigned LineNo = 0;
  auto Fail = [&](const std::string &Msg) {
    Error = File + ":" + std::to_string(LineNo) + ": " + Msg;
    return false;
  };
  llvm::StringRef Line;
  std::tie(Line, Text) = Text.split('\n');
  ++LineNo;
  llvm::SmallVector<llvm::StringRef, 5> H;
  Line.trim().split(H, ' ', -1, false);
  if (H.size() < 4 || !H[0].equals_insensitive("%%MatrixMarket") ||
      !H[1].equals_insensitive("matrix"))
    return Fail("not a Matrix Market file (expected '%%MatrixMarket matrix "
                "coordinate ...')");
  if (!H[2].equals_insensitive("coordinate"))
    return Fail("only the sparse 'coordinate' format is supported, not '" + H[2].str() +
                "'");
  bool Pattern = H[3].equals_insensitive("pattern");
  bool Symmetric = H.size() > 4 && (H[4].equals_insensitive("symmetric") ||
                                    H[4].equals_insensitive("skew-symmetric") ||
                                    H[4].equals_insensitive("hermitian"));
  bool HaveSize = false;
  int64_t Entries = 0;
  std::vector<std::pair<int64_t, int64_t>> Coo;
  while (!Text.empty()) {
    std::tie(Line, Text) = Text.split('\n');
    ++LineNo;
    Line = Line.trim();
    if (Line.empty() || Line.starts_with("%"))
      continue;
    llvm::SmallVector<llvm::StringRef, 4> F;
    Line.split(F, ' ', -1, false);
    if (F.size() == 1) // tabs
      Line.split(F, '\t', -1, false);
    if (!HaveSize) {
      if (F.size() != 3 || F[0].getAsInteger(10, Rows) || F[1].getAsInteger(10, Cols) ||
          F[2].getAsInteger(10, Entries) || Rows <= 0 || Cols <= 0 || Entries < 0)
        return Fail("expected the size line 'rows columns entries'");
      // Bounded so a hostile size line cannot exhaust memory (1 GiB of CSR).
      if (Symmetric && Rows != Cols)
        return Fail("a symmetric matrix must be square, not " + std::to_string(Rows) +
                    " x " + std::to_string(Cols));
      if (Entries > (int64_t(1) << 26) || Rows > (int64_t(1) << 26) ||
          Cols > (int64_t(1) << 40))
        return Fail("matrix too large for the simulator (at most 2^26 rows and "
                    "entries)");
      Coo.reserve(Entries * (Symmetric ? 2 : 1));
      HaveSize = true;
      continue;
    }
    int64_t R, C;
    if (F.size() < (Pattern ? 2u : 3u) || F[0].getAsInteger(10, R) ||
        F[1].getAsInteger(10, C))
      return Fail("expected 'row column" + std::string(Pattern ? "" : " value") + "'");
    if (R < 1 || R > Rows || C < 1 || C > Cols)
      return Fail("entry (" + std::to_string(R) + ", " + std::to_string(C) +
                  ") is outside the " + std::to_string(Rows) + " x " +
                  std::to_string(Cols) + " matrix");
    Coo.push_back({R - 1, C - 1});
    if (Symmetric && R != C)
      Coo.push_back({C - 1, R - 1});
    if (int64_t(Coo.size()) > Entries * (Symmetric ? 2 : 1))
      return Fail("more entries than the size line announces (" +
                  std::to_string(Entries) + ")");
  }
  if (!HaveSize) {
    LineNo = 0;
    return Fail("no size line");
  }
  size_t Expected = 0;
  (void)Expected;
  if (!Symmetric && int64_t(Coo.size()) != Entries) {
    Error = File + ": truncated: " + std::to_string(Coo.size()) + " of " +
            std::to_string(Entries) + " entries";
    return false;
  }
  std::sort(Coo.begin(), Coo.end());
  RowPtr.assign(Rows + 1, 0);
  Col.clear();
  Col.reserve(Coo.size());
  for (const auto &[R, C] : Coo) {
    ++RowPtr[R + 1];
    Col.push_back(C);
  }
  for (int64_t I = 0; I < Rows; ++I)
    RowPtr[I + 1] += RowPtr[I];
  return true;
}

namespace {

/// Arrays whose elements appear in some loop's bounds (CSR row pointers).
bool usedInBounds(const std::string &Array, const KernelIR &IR, std::string *OuterParam) {
  for (const LoopKernel &K : IR.Loops)
    for (size_t L = 0; L < K.Nest.size(); ++L)
      for (const Poly *P : {&K.Nest[L].Lower, &K.Nest[L].Upper})
        for (const std::string &S : P->symbols()) {
          auto It = IR.DataRefs.find(S);
          if (It == IR.DataRefs.end() || It->second.Array != Array)
            continue;
          if (OuterParam && L > 0) {
            auto Syms = K.Nest[L - 1].Upper.symbols();
            if (Syms.size() == 1 && K.Nest[L - 1].Lower == Poly::constant(0))
              *OuterParam = *Syms.begin();
          }
          return true;
        }
  return false;
}

/// Elements of ARRAY the loops read at the sizes bound now: one past the
/// highest index of its direct references and of its values in bounds
/// (rowptr[i + 1]); 0 when no loop tells.
int64_t elementsRead(const std::string &Array, const KernelIR &IR) {
  const auto &B = IR.bindings();
  int64_t Count = 0;
  for (const LoopKernel &K : IR.Loops) {
    for (const Access &A : K.Accesses)
      if (A.Array == Array && A.Linear && !A.Indirect)
        if (auto R = offsetRange(K, IR, *A.Linear, B); R && R->second >= 0)
          Count = std::max(Count, R->second + 1);
    for (const auto &[Sym, Ref] : IR.DataRefs)
      if (Ref.Array == Array)
        if (auto R = offsetRange(K, IR, Ref.Index, B); R && R->second >= 0)
          Count = std::max(Count, R->second + 1);
  }
  return Count;
}

} // namespace

namespace {

/// One --index NAME=SOURCE read into Out: a generated distribution
/// (uniform, rows, banded), a Matrix Market file or a list of integers.
class IndexSpecReader {
public:
  IndexSpecReader(const std::string &Spec, const KernelIR &IR, IndexData &Out,
                  std::string &Error, bool Generate)
      : Spec(Spec), IR(IR), Out(Out), Error(Error), Generate(Generate) {}

  bool read() {
    size_t Eq = Spec.find('=');
    if (Eq == std::string::npos || Eq == 0 || Eq + 1 == Spec.size()) {
      Error = "--index " + Spec + ": expected NAME=FILE.mtx, NAME=uniform:LO:HI, "
              "NAME=banded:WIDTH or NAME=FILE";
      return false;
    }
    Name = Spec.substr(0, Eq);
    llvm::StringRef Src = llvm::StringRef(Spec).substr(Eq + 1);
    Out.Specs[Name] = Spec;
    Values = &Out.Arrays[Name];
    Values->clear();
    if (Src.starts_with("uniform:"))
      return uniform(Src);
    if (Src.starts_with("rows:"))
      return rows(Src);
    if (Src.starts_with("banded:"))
      return banded(Src);
    if (Src.ends_with(".mtx"))
      return matrixMarket(Src);
    return list(Src);
  }

private:
  const std::string &Spec;
  const KernelIR &IR;
  IndexData &Out;
  std::string &Error;
  bool Generate;
  std::string Name;
  std::vector<int64_t> *Values = nullptr;
  std::string Counted; ///< how an unstated COUNT was had, for the origin

  /// The range of what a file holds, once its values are in.
  void setRange() {
    if (!Values->empty())
      Out.Ranges[Name] = {*std::min_element(Values->begin(), Values->end()),
                          *std::max_element(Values->begin(), Values->end())};
  }

  /// A number, a size parameter at its current value, or a product of them
  /// (8*n).
  bool field(llvm::StringRef F, int64_t &V) const {
    V = 1;
    llvm::SmallVector<llvm::StringRef, 3> Factors;
    F.split(Factors, '*');
    for (llvm::StringRef X : Factors) {
      int64_t Y;
      X = X.trim();
      if (X.getAsInteger(0, Y)) {
        auto It = IR.Parameters.find(X.str());
        if (It == IR.Parameters.end() || !It->second.Value)
          return false;
        Y = *It->second.Value;
      }
      if (__builtin_mul_overflow(V, Y, &V))
        return false;
    }
    return true;
  }

  /// Without a COUNT, as many values as the loops read at the bound sizes
  /// (2^20 where no loop tells), said in the origin.
  int64_t unstated() {
    int64_t Read = std::min(elementsRead(Name, IR), int64_t(1) << 28);
    Counted = Read > 0 ? " (what the loops read at the bound sizes)"
                       : " (no loop tells how many it reads: --index NAME=...:COUNT)";
    return Read > 0 ? Read : int64_t(1) << 20;
  }

  bool uniform(llvm::StringRef Src) {
    llvm::SmallVector<llvm::StringRef, 5> P;
    Src.split(P, ':');
    int64_t Lo, Hi, Count = P.size() > 3 ? 0 : unstated(), Seed = 1;
    if (P.size() < 3 || P.size() > 5 || !field(P[1], Lo) || !field(P[2], Hi) || Hi <= Lo ||
        (P.size() > 3 && (!field(P[3], Count) || Count <= 0 || Count > (int64_t(1) << 28))) ||
        (P.size() > 4 && !field(P[4], Seed))) {
      Error = "--index " + Spec + ": expected uniform:LO:HI[:COUNT[:SEED]] with LO < HI "
              "(numbers or size parameters), COUNT at most 2^28";
      return false;
    }
    Out.Ranges[Name] = {Lo, Hi - 1};
    Out.Origin[Name] = "uniform random in [" + std::to_string(Lo) + ", " +
                       std::to_string(Hi) + "), " + std::to_string(Count) + " values" +
                       Counted + ", seed " + std::to_string(Seed);
    if (!Generate)
      return true;
    std::mt19937_64 Rng(Seed);
    std::uniform_int_distribution<int64_t> D(Lo, Hi - 1);
    Values->resize(Count);
    for (int64_t &V : *Values)
      V = D(Rng);
    return true;
  }

  /// Row pointers of ROWS rows of K entries each: 0, K, 2K, ..., K x ROWS
  /// (a CSR matrix with K nonzeros per row).
  bool rows(llvm::StringRef Src) {
    llvm::SmallVector<llvm::StringRef, 3> P;
    Src.split(P, ':');
    int64_t K, Rows;
    if (P.size() != 3 || !field(P[1], K) || K < 0 || !field(P[2], Rows) || Rows < 0 ||
        Rows >= (int64_t(1) << 28)) {
      Error = "--index " + Spec + ": expected rows:K:ROWS (numbers or size parameters), ROWS "
              "below 2^28";
      return false;
    }
    Out.Ranges[Name] = {0, K * Rows};
    Out.Origin[Name] = "row pointers of " + std::to_string(Rows) + " rows of " +
                       std::to_string(K) + " entries";
    if (!Generate)
      return true;
    Values->resize(size_t(Rows) + 1);
    for (int64_t I = 0; I <= Rows; ++I)
      (*Values)[size_t(I)] = I * K;
    return true;
  }

  /// Element k holds k + U(-W, W), clipped at 0: the column indices of a
  /// banded matrix walked row by row, or a gather with short-range jitter.
  bool banded(llvm::StringRef Src) {
    llvm::SmallVector<llvm::StringRef, 4> P;
    Src.split(P, ':');
    int64_t W, Count = P.size() > 2 ? 0 : unstated(), Seed = 1;
    if (P.size() < 2 || P.size() > 4 || !field(P[1], W) || W < 0 ||
        (P.size() > 2 && (!field(P[2], Count) || Count <= 0 || Count > (int64_t(1) << 28))) ||
        (P.size() > 3 && !field(P[3], Seed))) {
      Error = "--index " + Spec + ": expected banded:WIDTH[:COUNT[:SEED]] (numbers or size "
              "parameters), COUNT at most 2^28";
      return false;
    }
    Out.Ranges[Name] = {0, Count - 1 + W};
    Out.Origin[Name] = "banded: element k in [k - " + std::to_string(W) + ", k + " +
                       std::to_string(W) + "], " + std::to_string(Count) + " values" +
                       Counted + ", seed " + std::to_string(Seed);
    if (!Generate)
      return true;
    std::mt19937_64 Rng(Seed);
    std::uniform_int_distribution<int64_t> D(-W, W);
    Values->resize(Count);
    for (int64_t K = 0; K < Count; ++K)
      (*Values)[K] = std::max<int64_t>(0, K + D(Rng));
    return true;
  }

  /// A Matrix Market file: its row pointers where the array bounds a loop,
  /// else its column indices.
  bool matrixMarket(llvm::StringRef Src) {
    std::vector<int64_t> RowPtr, Col;
    int64_t Rows, Cols;
    if (!readMatrixMarket(Src.str(), RowPtr, Col, Rows, Cols, Error))
      return false;
    std::string Outer;
    bool Bounds = usedInBounds(Name, IR, &Outer);
    *Values = Bounds ? RowPtr : Col;
    Out.Origin[Name] = Src.str() + " (" + std::to_string(Rows) + " x " +
                       std::to_string(Cols) + ", " + std::to_string(Col.size()) +
                       " nonzeros; " + (Bounds ? "row pointers" : "column indices") + ")";
    if (Bounds && !Outer.empty())
      Out.Sizes[Outer] = Rows;
    setRange();
    return true;
  }

  /// A file of integers separated by white space.
  bool list(llvm::StringRef Src) {
    auto Buf = llvm::MemoryBuffer::getFile(Src, /*IsText=*/true);
    if (!Buf) {
      Error = "--index " + Spec + ": cannot read " + Src.str() + ": " +
              Buf.getError().message();
      return false;
    }
    llvm::StringRef T = (*Buf)->getBuffer();
    unsigned LineNo = 1;
    while (!T.empty()) {
      T = T.ltrim(" \t\r");
      if (T.consume_front("\n")) {
        ++LineNo;
        continue;
      }
      size_t End = T.find_first_of(" \t\r\n");
      llvm::StringRef Tok = T.substr(0, End);
      int64_t V;
      if (Tok.getAsInteger(0, V)) {
        Error = Src.str() + ":" + std::to_string(LineNo) + ": '" + Tok.str() +
                "' is not an integer";
        return false;
      }
      Values->push_back(V);
      T = T.substr(Tok.size());
    }
    Out.Origin[Name] = Src.str() + " (" + std::to_string(Values->size()) + " values)";
    setRange();
    return true;
  }
};

} // namespace

bool perfmodel::loadIndexSpec(const std::string &Spec, const KernelIR &IR, IndexData &Out,
                              std::string &Error, bool Generate) {
  return IndexSpecReader(Spec, IR, Out, Error, Generate).read();
}

bool perfmodel::reloadIndexData(IndexData &Data, const KernelIR &IR, std::string &Error,
                                bool Generate) {
  // Only the generated specs follow the sizes; what a file (Matrix Market
  // or a list) holds stays as it was read, not read again.
  IndexData Fresh;
  Fresh.Sizes = Data.Sizes;
  for (const auto &[Name, Spec] : Data.Specs) {
    llvm::StringRef Src = llvm::StringRef(Spec).split('=').second;
    if (!Src.starts_with("uniform:") && !Src.starts_with("banded:") &&
        !Src.starts_with("rows:")) {
      Fresh.Specs[Name] = Spec;
      if (auto It = Data.Arrays.find(Name); It != Data.Arrays.end())
        Fresh.Arrays[Name] = std::move(It->second);
      if (auto It = Data.Ranges.find(Name); It != Data.Ranges.end())
        Fresh.Ranges[Name] = It->second;
      if (auto It = Data.Origin.find(Name); It != Data.Origin.end())
        Fresh.Origin[Name] = It->second;
      continue;
    }
    if (!loadIndexSpec(Spec, IR, Fresh, Error, Generate))
      return false;
  }
  Data = std::move(Fresh);
  return true;
}

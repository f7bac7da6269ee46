// The golden files' figures, held to hand derivations and to each other.
// CliTest compares the program's output with tests/golden/ byte for byte;
// this file says why those bytes are right: the key figures of every golden
// derived by hand from the machine file (Haswell-EP, hsw) or the paper, and
// checks that each report agrees with itself. scripts/update-golden.sh runs
// it after regenerating, so a backed figure cannot change unnoticed.
#include "Run.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// PERFMODEL_GOLDEN_DIR points it at another copy (to show it fails on one).
const std::string Golden = getenv("PERFMODEL_GOLDEN_DIR")
                               ? std::string(getenv("PERFMODEL_GOLDEN_DIR")) + "/"
                               : std::string(PERFMODEL_SOURCE_DIR) + "/tests/golden/";

/// The text of golden file NAME.
std::string golden(const std::string &Name) { return slurp(Golden + Name); }

std::vector<std::string> lines(const std::string &Text) {
  std::vector<std::string> Out;
  std::stringstream SS(Text);
  for (std::string L; std::getline(SS, L);)
    Out.push_back(L);
  return Out;
}

/// A loop's section of a text report: from "[k] file:line" to the next.
std::vector<std::vector<std::string>> sections(const std::string &Text) {
  std::vector<std::vector<std::string>> Out;
  for (const std::string &L : lines(Text)) {
    if (!L.empty() && L[0] == '[')
      Out.emplace_back();
    if (!Out.empty())
      Out.back().push_back(L);
  }
  return Out;
}

/// The line of S that contains Key (empty if none).
std::string lineWith(const std::vector<std::string> &S, const std::string &Key) {
  for (const std::string &L : S)
    if (L.find(Key) != std::string::npos)
      return L;
  return "";
}

/// The number that follows Label in Line; NaN when there is none.
double after(const std::string &Line, const std::string &Label) {
  size_t P = Line.find(Label);
  if (P == std::string::npos)
    return NAN;
  std::smatch M;
  std::string Rest = Line.substr(P + Label.size());
  if (!std::regex_search(Rest, M, std::regex("^\\s*(-?[0-9.]+(e-?[0-9]+)?)")))
    return NAN;
  return std::stod(M[1]);
}

/// All numbers of Line, in order.
std::vector<double> numbers(const std::string &Line) {
  std::vector<double> Out;
  std::regex Num("-?[0-9]+\\.?[0-9]*(e-?[0-9]+)?");
  for (auto It = std::sregex_iterator(Line.begin(), Line.end(), Num); It != std::sregex_iterator();
       ++It)
    Out.push_back(std::stod((*It)[0]));
  return Out;
}

/// Half a unit in the last place of V printed with three significant digits
/// (the reports' formatNumber).
double ulp3(double V) {
  if (V == 0)
    return 0;
  return 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(V))) - 2);
}

/// A row of a table after the header line containing After: the line whose
/// first word is Key (empty if none).
std::string rowLine(const std::vector<std::string> &S, const std::string &Key,
                    const std::string &After) {
  bool On = false;
  for (const std::string &L : S) {
    if (!On) {
      On = L.find(After) != std::string::npos;
      continue;
    }
    std::stringstream SS(L);
    std::string First;
    SS >> First;
    if (First == Key)
      return L;
  }
  return "";
}

/// The row's whitespace-separated words as numbers (NaN for words).
std::vector<double> row(const std::vector<std::string> &S, const std::string &Key,
                        const std::string &After) {
  std::vector<double> Out;
  std::stringstream SS(rowLine(S, Key, After));
  for (std::string W; SS >> W;) {
    char *End = nullptr;
    double V = std::strtod(W.c_str(), &End);
    Out.push_back(End && *End == 0 && !W.empty() ? V : NAN);
  }
  return Out;
}

// Haswell-EP, machine-models/haswell-ep-e5-2680v3.yml: 2.7 GHz; L2->L1 64
// B/cy, L3->L2 32 B/cy; one core's memory bandwidth 34.56 GB/s
// (ppr-sec5: 5 cy per line); memory latency 90 ns; 10 L1 fill buffers.
constexpr double Ghz = 2.7, L1L2 = 64, L2L3 = 32, MemGbs = 34.56, MemNs = 90, L1Mshr = 10;
double memCyPerLine() { return 64 * Ghz / MemGbs; } // 5 cy

/// The section of golden G for the loop in function Fn.
std::vector<std::string> loopIn(const std::string &G, const std::string &Fn) {
  for (const auto &S : sections(golden(G)))
    if (!S.empty() && S[0].find(" in " + Fn) != std::string::npos)
      return S;
  ADD_FAILURE() << "no loop in " << Fn << " in " << G;
  return {};
}

/// The ECM line's numbers: it/CL, T_OL, T_nOL, three transfers, four predictions.
std::vector<double> ecmLine(const std::vector<std::string> &S) {
  return numbers(lineWith(S, "ECM (overlap"));
}

/// The prediction table's cy/it of Model.
double predicted(const std::vector<std::string> &S, const std::string &Model) {
  std::vector<double> R = row(S, Model, "model     cy/it");
  return R.size() > 1 ? R[1] : NAN;
}

const std::vector<std::string> TextGoldens = {"triad.txt", "williams-fig9.2.txt",
                                              "williams-fig9.2-cache.txt", "unsupported.txt",
                                              "incore-fma-4acc-hsw.txt"};

} // namespace

//===----------------------------------------------------------------------===//
// Every report agrees with itself.
//===----------------------------------------------------------------------===//

// "as executed: C = body B + remainder R + code O [+ joins J] [- overlap V]":
// the parts add up, and neither the overlap nor the joins is negative.
TEST(GoldenConsistency, AsExecutedPartsAddUp) {
  int Seen = 0;
  for (const std::string &G : TextGoldens)
    for (const std::string &L : lines(golden(G))) {
      if (L.find("  as executed: ") == std::string::npos)
        continue;
      ++Seen;
      double C = after(L, "as executed:"), B = after(L, "body "), R = after(L, "remainder ");
      double O = after(L, " code "), J = after(L, "joins "), V = after(L, "overlap ");
      J = std::isnan(J) ? 0 : J;
      V = std::isnan(V) ? 0 : V;
      ASSERT_FALSE(std::isnan(C) || std::isnan(B) || std::isnan(R) || std::isnan(O)) << L;
      EXPECT_GE(J, 0) << G << ": " << L;
      EXPECT_GE(V, 0) << G << ": " << L;
      double Tol = ulp3(C) + ulp3(B) + ulp3(R) + ulp3(O) + ulp3(J) + ulp3(V) + 1e-12;
      EXPECT_NEAR(B + R + O + J - V, C, Tol) << G << ": " << L;
    }
  EXPECT_EQ(Seen, 9); // triad 1, williams 3 twice, scale 1, first_negative 1
}

// One list-schedule figure per loop: the bounds line's and the note's.
TEST(GoldenConsistency, OneListScheduleFigurePerLoop) {
  int Checked = 0;
  for (const std::string &G : TextGoldens) {
    std::string Text = golden(G);
    auto Secs = sections(Text);
    if (Secs.empty())
      Secs.push_back(lines(Text)); // the incore golden: one block
    for (const auto &S : Secs) {
      std::string Bounds = lineWith(S, "list schedule:");
      if (Bounds.empty()) {
        // Not scheduled (a long row priced from its parts): no note on it.
        EXPECT_TRUE(lineWith(S, "list schedule needs").empty()) << G;
        continue;
      }
      double Sched = after(Bounds, "list schedule:");
      std::string Note = lineWith(S, "list schedule needs");
      if (!Note.empty()) {
        ++Checked;
        EXPECT_NEAR(after(Note, "list schedule needs"), Sched, ulp3(Sched) * 2) << G;
      }
      // No other figure is called the list schedule.
      for (const std::string &L : S)
        if (L.find("list schedule") != std::string::npos && L != Bounds && L != Note)
          ADD_FAILURE() << G << ": a second list-schedule figure: " << L;
    }
  }
  // The stencil twice; first_negative. Triad's rows are priced from their
  // parts: its body is not scheduled.
  EXPECT_EQ(Checked, 3);
}

// ECM's predictions from its contributions, overlap "none" (Haswell):
// L1 = max(T_OL, T_nOL), then each level adds its link's transfer to the
// non-overlapping sum; a latency bound may only raise a prediction, and the
// table's cy/it is cy/CL over the iterations per line.
TEST(GoldenConsistency, EcmPredictionsFromContributions) {
  int Checked = 0;
  for (const std::string &G : TextGoldens)
    for (const auto &S : sections(golden(G))) {
      std::string L = lineWith(S, "ECM (overlap none");
      if (L.empty())
        continue;
      ++Checked;
      std::vector<double> N = numbers(L); // it/CL, 5 contributions, 4 predictions
      ASSERT_EQ(N.size(), 10u) << L;
      double ItPerCL = N[0], TOL = N[1], Sum = N[2];
      for (int K = 0; K < 4; ++K) {
        if (K > 0)
          Sum += N[2 + K];
        double Pred = N[6 + K], Expected = std::max(TOL, Sum);
        double Tol = 5 * (ulp3(Pred) + ulp3(Sum)) + 1e-12;
        std::string Level = std::vector<std::string>{"L1", "L2", "L3", "MEM"}[K];
        std::vector<double> Row = row(S, Level, "data in  cy/CL");
        ASSERT_GE(Row.size(), 4u) << G << " " << Level; // level, cy/CL, cy/it, GFLOP/s
        bool Latency = rowLine(S, Level, "data in  cy/CL").find("latency of") != std::string::npos;
        if (Latency)
          EXPECT_GE(Pred, Expected - Tol) << G << " " << Level;
        else
          EXPECT_NEAR(Pred, Expected, Tol) << G << " " << Level << ": " << L;
        EXPECT_NEAR(Row[1], Pred, ulp3(Pred) * 2) << G << " " << Level;
        EXPECT_NEAR(Row[2], Pred / ItPerCL, ulp3(Row[2]) + ulp3(Pred) / ItPerCL) << G << " " << Level;
      }
    }
  EXPECT_EQ(Checked, 9); // triad, 3 + 3 Williams, scale, first_negative
}

// The Roofline's rows: cy/it is the larger of the in-core time and the link's
// bytes over its bandwidth (unless latency binds), GFLOP/s is flops x GHz
// over cy/it, and flop/B the flops over the bytes.
TEST(GoldenConsistency, RooflineRowsFromTheirColumns) {
  int Checked = 0;
  for (const std::string &G : TextGoldens)
    for (const auto &S : sections(golden(G))) {
      std::string Flops = lineWith(S, "flops/it:");
      if (Flops.empty() || lineWith(S, "Roofline (").empty())
        continue;
      double F = after(Flops, "flops/it:");
      double InCore = after(lineWith(S, "in-core ("), "= ");
      if (std::isnan(InCore)) // scalar reports: cy per machine iteration = cy/it
        InCore = after(lineWith(S, "in-core ("), "):");
      for (const char *Level : {"L1", "L2", "L3", "MEM"}) {
        // level, link, B/it, flop/B, GB/s, roof, bound, cy/it, binding
        std::vector<double> R = row(S, Level, "data in  link");
        ASSERT_EQ(R.size(), 9u) << G << " " << Level;
        double Bytes = R[2], Intensity = R[3], Gbs = R[4], Bound = R[6], Cy = R[7];
        ++Checked;
        EXPECT_NEAR(Intensity, F / Bytes, ulp3(Intensity) + F / Bytes * 0.01) << G << " " << Level;
        EXPECT_NEAR(Bound, F * Ghz / Cy, ulp3(Bound) + F * Ghz / Cy * 0.01) << G << " " << Level;
        double Link = Bytes * Ghz / Gbs;
        bool Latency = rowLine(S, Level, "data in  link").find("latency") != std::string::npos;
        if (!Latency)
          EXPECT_NEAR(Cy, std::max(InCore, Link), ulp3(Cy) + 0.01 * Cy) << G << " " << Level;
        else
          EXPECT_GE(Cy, std::max(InCore, Link) * 0.99) << G << " " << Level;
      }
    }
  EXPECT_EQ(Checked, 9 * 4);
}

// The headline repeats its model's row in the prediction table.
TEST(GoldenConsistency, HeadlineIsItsModelsRow) {
  int Checked = 0;
  for (const std::string &G : TextGoldens)
    for (const auto &S : sections(golden(G))) {
      std::string H = lineWith(S, "headline:");
      if (H.empty())
        continue;
      ++Checked;
      std::smatch M;
      // A loop without floating-point work has no GFLOP/s column.
      ASSERT_TRUE(std::regex_search(
          H, M, std::regex("headline: (\\w+) ([0-9.]+) cy/it(, ([0-9.]+) GFLOP/s)?")))
          << H;
      std::vector<double> R = row(S, M[1], "model     cy/it");
      ASSERT_GE(R.size(), M[3].matched ? 3u : 2u) << G << " " << H;
      EXPECT_EQ(R[1], std::stod(M[2])) << G;
      if (M[3].matched)
        EXPECT_EQ(R[2], std::stod(M[4])) << G;
    }
  EXPECT_EQ(Checked, 9);
}

// The JSON goldens: the same identities on the unrounded figures.
TEST(GoldenConsistency, JsonGoldensAgreeWithThemselves) {
  for (const char *Name : {"triad.json", "spmv-mtx.json"}) {
    auto V = llvm::json::parse(golden(Name));
    ASSERT_TRUE(bool(V)) << Name;
    const llvm::json::Array *Loops = V->getAsObject()->getArray("loops");
    ASSERT_TRUE(Loops && !Loops->empty());
    for (const llvm::json::Value &LV : *Loops) {
      const llvm::json::Object &L = *LV.getAsObject();
      const llvm::json::Object &In = *L.getObject("incore");
      const llvm::json::Object &N = *In.getObject("nest");
      ASSERT_TRUE(N.getBoolean("ok").value_or(false)) << Name;
      double Parts = *N.getNumber("body") + *N.getNumber("remainder") +
                     *N.getNumber("outer_code") + N.getNumber("joins").value_or(NAN) -
                     *N.getNumber("overlap");
      EXPECT_NEAR(Parts, *N.getNumber("cy_per_it"), 1e-5 * Parts) << Name; // 6 digits each
      EXPECT_GE(*N.getNumber("overlap"), 0) << Name;
      EXPECT_GE(N.getNumber("joins").value_or(-1), 0) << Name;
      EXPECT_DOUBLE_EQ(*N.getNumber("cy_per_it"), *In.getNumber("cy_per_it")) << Name;
      // ECM: predictions from the contributions (overlap none), latency may raise.
      const llvm::json::Object &E = *L.getObject("ecm");
      const llvm::json::Array &T = *E.getArray("transfers_cy_per_cl");
      const llvm::json::Array &P = *E.getArray("predictions_cy_per_cl");
      double Sum = *E.getNumber("t_nol");
      for (size_t K = 0; K < 4; ++K) {
        if (K)
          Sum += *T[K - 1].getAsNumber();
        double Floor = std::max(*E.getNumber("t_ol"), Sum); // each to 6 digits
        EXPECT_GE(*P[K].getAsNumber(), Floor * (1 - 1e-5)) << Name << K;
      }
      // The headline is its model's row at its level.
      const llvm::json::Object &H = *L.getObject("prediction");
      bool Found = false;
      for (const llvm::json::Value &MV : *L.getArray("predictions")) {
        const llvm::json::Object &M = *MV.getAsObject();
        if (M.getString("model") != H.getString("model"))
          continue;
        for (const llvm::json::Value &RV : *M.getArray("levels"))
          if (RV.getAsObject()->getString("level") == H.getString("data_level")) {
            Found = true;
            EXPECT_DOUBLE_EQ(*RV.getAsObject()->getNumber("cy_per_it"), *H.getNumber("cy_per_it"));
          }
      }
      EXPECT_TRUE(Found) << Name;
    }
  }
}

//===----------------------------------------------------------------------===//
// The key figures, derived by hand (Haswell-EP, 2.7 GHz).
//===----------------------------------------------------------------------===//

// examples/triad.c, a[i] = b[i] + s * c[i], n = 10^7 (229 MiB: memory).
// In-core: AVX2, 4 doubles a ymm, unrolled 4 -> 16 iterations a trip: 8 loads
// and 4 store addresses share ports 2, 3 and 7 (12 / 3 = 4 cy), 4 store data
// on port 4 (4 cy), 4 FMAs on ports 0/1 (2 cy), 14 fused uops / 4 = 3.5 cy:
// 4 cy a trip, 0.25 cy/it.
// Traffic: 16 B loaded, 8 B stored and 8 B write-allocated per iteration:
// 4 lines per 8 iterations (one CL of each array + a's write-back).
// Roofline MEM: 32 B x 2.7 GHz / 34.56 GB/s = 2.5 cy/it, 2 flops -> 2.16 GF/s.
// ECM per CL (8 it): T_OL = 2 cy / 2 = 1, T_nOL = 4 / 2 = 2, T_L1L2 = 4 x 64 /
// 64 = 4, T_L2L3 = 4 x 64 / 32 = 8, T_L3Mem = 4 x 5 = 20: MEM 2 + 4 + 8 + 20
// = 34 cy/CL = 4.25 cy/it (the headline).
// PPR MEM: S_DAG(L,S) 0.25 + 24 B x 2.7 / 34.56 = 0.25 + 1.875 = 2.125 cy/it.
TEST(GoldenFigures, TriadOnHaswell) {
  auto S = loopIn("triad.txt", "triad");
  std::string In = lineWith(S, "in-core (");
  EXPECT_EQ(after(In, "):"), 4.0) << In;
  EXPECT_EQ(after(In, "= "), 0.25) << In;
  EXPECT_EQ(after(In, "cy/it ("), 16.0) << In;
  std::string B = lineWith(S, "bounds:");
  EXPECT_EQ(after(B, "ports"), 4.0);
  EXPECT_EQ(after(B, "front end"), 3.5);
  std::vector<double> Mem = row(S, "MEM", "data in  link");
  ASSERT_EQ(Mem.size(), 9u);
  EXPECT_EQ(Mem[2], 32.0);
  EXPECT_NEAR(Mem[7], 32 * Ghz / MemGbs, 0.005);
  EXPECT_NEAR(Mem[6], 2 * Ghz / (32 * Ghz / MemGbs), 0.005);
  std::vector<double> E = ecmLine(S);
  ASSERT_EQ(E.size(), 10u);
  const double Expect[] = {8, 1, 2, 4 * 64 / L1L2, 4 * 64 / L2L3, 4 * memCyPerLine(), 2, 6, 14, 34};
  for (size_t I = 0; I < E.size(); ++I)
    EXPECT_NEAR(E[I], Expect[I], ulp3(Expect[I])) << "ECM figure " << I;
  EXPECT_NEAR(predicted(S, "ECM"), 34.0 / 8, 0.005);
  EXPECT_NEAR(predicted(S, "PPR"), 0.25 + 24 * Ghz / MemGbs, 0.005);
  EXPECT_NEAR(after(lineWith(S, "headline:"), "ECM"), 4.25, 1e-9);
  // The JSON golden is the same analysis, unrounded.
  auto V = llvm::json::parse(golden("triad.json"));
  ASSERT_TRUE(bool(V));
  const llvm::json::Object &L = *(*V->getAsObject()->getArray("loops"))[0].getAsObject();
  const llvm::json::Array &P = *L.getObject("ecm")->getArray("predictions_cy_per_cl");
  const double Cl[] = {2, 6, 14, 2 + 4 + 8 + 4 * memCyPerLine()};
  for (size_t K = 0; K < 4; ++K)
    EXPECT_NEAR(*P[K].getAsNumber(), Cl[K], 1e-3) << K;
  EXPECT_DOUBLE_EQ(*L.getObject("incore")->getNumber("cy_per_it"), 0.25);
  EXPECT_NEAR(*L.getObject("prediction")->getNumber("cy_per_it"), Cl[3] / 8, 1e-3);
}

// Williams figure 9.2(a), sum += A[i] * A[i] without -ffast-math: one chain of
// 8 FMAs a trip of 8 iterations, 5 cy each on Haswell (uops.info
// VFMADD213SD), 40 cy a trip = 5 cy/it at every level, far above the 4.5 cy
// of issue (18 uops): ceil(40 / 4.5) = 9 chains would reach issue. 2 flops
// per 8 B: intensity 0.25 (Williams counts 1 flop: 0.125).
TEST(GoldenFigures, WilliamsMagnitudeOnHaswell) {
  auto S = loopIn("williams-fig9.2.txt", "magnitude");
  EXPECT_EQ(after(lineWith(S, "in-core ("), "):"), 40.0);
  EXPECT_EQ(after(lineWith(S, "in-core ("), "= "), 5.0);
  EXPECT_NE(lineWith(S, "use 9 independent chains").find("4.5 cy per iteration the front end"),
            std::string::npos);
  for (const char *M : {"Roofline", "ECM", "PPR"})
    EXPECT_EQ(predicted(S, M), 5.0) << M;
  EXPECT_EQ(row(S, "MEM", "data in  link")[3], 0.25);
}

// Williams figure 9.2(b), the 5-point stencil at N = 2048 (64 MiB: memory).
// Body: 16 iterations a trip, 12 vaddpd all on port 1 (Haswell adds only
// there: intel-opt-manual-hsw-ports) = 12 cy, 0.75 cy/it. A row of 2046
// points runs 127 trips (2032 points) and 14 scalar remainder iterations, each
// with 4 adds on port 1: body 127 x 12 / 2046 = 0.745; the row costs at most
// (1524 + 14 x 4) / 2046 = 0.772 plus its outer code.
// Traffic per CL of C (8 points): rows j-1, j, j+1 of A and C's write-allocate
// come from L2 (3 rows of 16 KiB exceed the L1; 32 x N - 16 B <= 256 KiB holds
// in L2) plus C's write-back: 5 lines = 5 cy at 64 B/cy; from L3 and memory
// one line of A, C's allocate and write-back: 3 lines, 6 cy at 32 B/cy and
// 15 cy at 5 cy a line. Williams: 6 flops over 24 B, intensity 0.25.
TEST(GoldenFigures, WilliamsStencilOnHaswell) {
  auto S = loopIn("williams-fig9.2.txt", "stencil");
  std::string X = lineWith(S, "as executed:");
  EXPECT_EQ(after(X, "steady state alone:"), 0.75);
  EXPECT_NEAR(after(X, "body"), 127 * 12.0 / 2046, ulp3(0.745));
  double C = after(X, "as executed:");
  EXPECT_GE(C, 127 * 12.0 / 2046);
  EXPECT_LE(C, (127 * 12.0 + 14 * 4) / 2046 + after(X, "outer code") + 0.001);
  std::vector<double> E = ecmLine(S);
  ASSERT_EQ(E.size(), 10u);
  EXPECT_EQ(E[3], 5 * 64 / L1L2);
  EXPECT_EQ(E[4], 3 * 64 / L2L3);
  EXPECT_EQ(E[5], 3 * memCyPerLine());
  EXPECT_NEAR(E[9], E[2] + 5 + 6 + 15, ulp3(E[9])); // MEM: T_nOL + transfers
  std::vector<double> Mem = row(S, "MEM", "data in  link");
  EXPECT_EQ(Mem[2], 24.0);
  EXPECT_EQ(Mem[3], 0.25);
  EXPECT_NEAR(predicted(S, "Roofline"), 24 * Ghz / MemGbs, 0.005);
  EXPECT_NEAR(predicted(S, "ECM"), E[9] / 8, 0.005);
}

// Williams figure 9.2(c), ijk dgemm at N = 2048. In-core: C[i][j] carries
// one chain of 4 FMAs a trip of 4 k, 5 cy each: 5 cy/it in the steady state.
// In memory: B[k][j] steps 16 KiB, a new line every iteration that no
// prefetcher follows (the L1's stride prefetcher reaches 2 KB, the L2's
// streamer stays in a 4 KiB page), so each waits the memory latency with the
// L1's 10 fill buffers overlapping them: 90 ns x 2.7 GHz / 10 = 24.3 cy/it.
TEST(GoldenFigures, WilliamsDgemmOnHaswell) {
  auto S = loopIn("williams-fig9.2-cache.txt", "dgemm");
  EXPECT_EQ(after(lineWith(S, "as executed:"), "steady state alone:"), 5.0);
  double MemLatency = MemNs * Ghz / L1Mshr;
  for (const char *M : {"Roofline", "ECM", "PPR"})
    EXPECT_NEAR(predicted(S, M), MemLatency, ulp3(MemLatency)) << M;
  // The simulator's misses: one line of B per iteration at every level.
  for (const char *L : {"L2-L1", "L3-L2", "MEM-L3"}) {
    std::vector<double> R = row(S, L, "link    layer conditions  simulator");
    ASSERT_EQ(R.size(), 9u) << L; // link, LC load + evict, simulator load + evict, misses, (level)
    EXPECT_EQ(R[7], 1.0) << L;
  }
}

// SpMV (CSR) over the 30 x 30 Laplacian: 4380 nonzeros in 900 rows, 4.87 a
// row, so every row runs the scalar loop (the 8-wide body never does).
// Issue per row: the scalar loop's 5 fused uops an iteration (vmovsd, movsxd,
// vfmadd with its load, inc, dec+jne) and about 15 of outer code (the y store,
// the row's bounds, the zeroing, three compare-and-branch pairs): (15 + 5 x
// 4.87) / 4 = 9.8 cy, 2.02 cy/it. The sum's chain (4.87 FMAs x 5 cy = 24 cy a
// row) starts afresh each row, so the reorder buffer overlaps rows: the nest
// costs less than 5 cy/it and at least its issue.
// Traffic from cold caches: val 35040 B, col 17520 B, x 7200 B and y 7200 B
// (stored once a row after the inner loop: allocated, written back at the
// end) = 1046.25 lines, and alignment adds at most one per array:
// 1046.25..1050.25 misses / 4380; y's 112.5..113.5 lines written back.
// ECM T_OL is the in-core time of the 16 iterations per line.
TEST(GoldenFigures, SpmvOnHaswell) {
  auto V = llvm::json::parse(golden("spmv-mtx.json"));
  ASSERT_TRUE(bool(V));
  const llvm::json::Object &L = *(*V->getAsObject()->getArray("loops"))[0].getAsObject();
  EXPECT_EQ(*L.getInteger("iterations"), 4380);
  double C = *L.getObject("incore")->getNumber("cy_per_it");
  EXPECT_GE(C, (15 + 5 * 4380.0 / 900) / 4 / (4380.0 / 900));
  EXPECT_LT(C, 5.0);
  const llvm::json::Object &E = *L.getObject("ecm");
  EXPECT_NEAR(*E.getNumber("t_ol"), C * *E.getNumber("iterations_per_cl"), 1e-3);
  const llvm::json::Object &Sim = *L.getObject("traffic")->getObject("simulator");
  for (const llvm::json::Value &Link : *Sim.getArray("links")) {
    double M = *Link.getAsObject()->getNumber("misses_per_it");
    EXPECT_GE(M, 1046.25 / 4380);
    EXPECT_LE(M, 1050.25 / 4380);
    double W = *Link.getAsObject()->getNumber("evict_bytes_per_it");
    EXPECT_GE(W, 112.5 * 64 / 4380);
    EXPECT_LE(W, 113.5 * 64 / 4380);
  }
}

// tests/incore/fma-4acc.s: 4 accumulators, FMA latency 5 (uops.info
// VFMADD231PD ymm on Haswell): 5 cy a trip, where the 4 FMAs need 2 cy of
// ports 0/1; 2 x 5 = 10 chains would reach the ports.
TEST(GoldenFigures, FourAccumulatorsOnHaswell) {
  auto S = lines(golden("incore-fma-4acc-hsw.txt"));
  EXPECT_EQ(after(lineWith(S, "in-core ("), "):"), 5.0);
  std::string B = lineWith(S, "bounds:");
  EXPECT_EQ(after(B, "ports"), 2.0);
  EXPECT_EQ(after(B, "recurrence"), 5.0);
  EXPECT_NE(lineWith(S, "use 10 independent chains").find("2 cy per iteration the ports"),
            std::string::npos);
}

// examples/unsupported.c: two loops declined with their reasons; scale's
// a[i] *= s runs 16 iterations a trip with 4 stores on port 4 (4 cy): its
// steady state 0.25 cy/it. 100 iterations (800 B) stay in L1.
// first_negative's goto out is an early exit, priced as running to its
// bound: 5 fused uops an iteration (the rotated loop's copy, the counter's
// compare-and-branch, lea, the load-compare, the exit branch) issue at 4 a
// cycle: 1.25 cy/it, the loop stream detector's unrolling to whole cycles
// raising it at most to 8 cy for 6 iterations (1.33).
TEST(GoldenFigures, UnsupportedOnHaswell) {
  std::string T = golden("unsupported.txt");
  EXPECT_NE(T.find("not modelled: while loop"), std::string::npos);
  EXPECT_NE(T.find("not modelled: call to 'printf'"), std::string::npos);
  auto E = loopIn("unsupported.txt", "first_negative");
  EXPECT_FALSE(lineWith(E, "can exit early (goto at line 19): priced as running to its bound").empty());
  EXPECT_NE(lineWith(E, "bounds:").find("front end 1.3 (5 uops)"), std::string::npos);
  double Cy = after(lineWith(E, "headline:"), "ECM");
  EXPECT_GE(Cy, 1.25);
  EXPECT_LE(Cy, 1.34);
  auto S = loopIn("unsupported.txt", "scale");
  EXPECT_EQ(after(lineWith(S, "as executed:"), "steady state alone:"), 0.25);
  EXPECT_NE(lineWith(S, "headline:").find("with data in L1"), std::string::npos);
}

// machine show hsw: 2 FMA units x 4 doubles x 2 flops = 16 DP flop/cy, x 2.7
// GHz = 43.2 GFLOP/s; Little's law: 16 misses x 64 B / 90 ns = 11.38 GB/s.
TEST(GoldenFigures, MachineShowHaswell) {
  auto S = lines(golden("machine-show-hsw.txt"));
  std::string Peak = lineWith(S, "peak:");
  EXPECT_EQ(after(Peak, "peak:"), 2 * 4 * 2.0);
  EXPECT_NEAR(after(Peak, "flop/cy ="), 16 * Ghz, 1e-9);
  EXPECT_NEAR(after(lineWith(S, "memory:"), "90 ns ="), 16 * 64 / 90.0, 0.005);
}

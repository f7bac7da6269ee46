#include "perfmodel/Poly.h"

#include <gtest/gtest.h>

using namespace perfmodel;

TEST(Poly, LinearisedSubscriptKeepsSymbolicCoefficients) {
  // a[i*n + j]: the coefficient of i is the parameter n, that of j is 1.
  Poly P = Poly::symbol("i") * Poly::symbol("n") + Poly::symbol("j");
  EXPECT_EQ(P.coefficientOf("i"), Poly::symbol("n"));
  EXPECT_EQ(P.coefficientOf("j"), Poly::constant(1));
  EXPECT_EQ(P.coefficientOf("k"), Poly());
  EXPECT_EQ(P.str(), "i*n + j");
}

TEST(Poly, ArithmeticCancelsAndEvaluates) {
  Poly N = Poly::symbol("N");
  Poly Upper = N - Poly::constant(1), Lower = Poly::constant(1);
  EXPECT_EQ((Upper - Lower).str(), "N - 2");
  EXPECT_EQ((N - N), Poly());
  EXPECT_TRUE((N - N).isZero());
  EXPECT_EQ((Upper - Lower).evaluate({{"N", 2048}}), 2046);
  EXPECT_FALSE((Upper - Lower).evaluate({}).has_value());
  // (i + 1) * (i - 1) = i^2 - 1
  Poly I = Poly::symbol("i");
  Poly Sq = (I + Poly::constant(1)) * (I - Poly::constant(1));
  EXPECT_EQ(Sq.degreeIn("i"), 2u);
  EXPECT_EQ(Sq.evaluate({{"i", 5}}), 24);
}

TEST(Poly, SubstitutePartially) {
  Poly P = Poly::symbol("i") * Poly::symbol("n") + Poly::constant(3);
  Poly Q = P.substitute({{"n", 100}});
  EXPECT_EQ(Q, Poly::constant(100) * Poly::symbol("i") + Poly::constant(3));
  EXPECT_EQ(Q.symbols(), std::set<std::string>{"i"});
}

// Values beyond 64 bits are unknown, not wrapped: the layer-condition search
// probes sizes up to 2^40, and 2^40 cubed (a 3D nest's working set) overflows.
TEST(Poly, EvaluateReportsOverflow) {
  Poly N = Poly::symbol("n");
  Poly Cube = N * N * N * Poly::constant(8);
  EXPECT_EQ(Cube.evaluate({{"n", 1000}}), 8'000'000'000);
  EXPECT_EQ(Cube.evaluate({{"n", int64_t(1) << 40}}), std::nullopt);
  EXPECT_EQ((N + Poly::constant(INT64_MAX)).evaluate({{"n", 1}}), std::nullopt);
}

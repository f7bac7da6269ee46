// The driver's use of what a host measured of its memory now in place of a
// machine file's figures (validate's memory rows, analyze --host-memory).
#include "perfmodel/MachineModel.h"
#include "perfmodel/Probe.h"
#include "perfmodel/Recording.h"
#include "perfmodel/Session.h"

#include <gtest/gtest.h>

using namespace perfmodel;

namespace {

MachineModel zen4Like() {
  MachineModel M;
  M.Name = "test";
  M.ClockGHz = 3.6;
  CacheLevel L1;
  L1.Name = "L1";
  L1.MissesInFlight = 23;
  M.Caches = {L1};
  M.Memory.LatencyNs = 219;
  M.Memory.StrideLatencyNs = 148;
  return M;
}

// One chase took 160 ns and 32 at once 8.16 ns a line: 19.6 misses in
// flight. An irregular miss costs latency / misses in flight: with the
// file's 23 beside the fresh 160 ns it would cost 6.96 ns a line, 15 %
// below the 8.16 measured. The pair replaces the file's pair: 160 ns and
// 20 in flight (8.0 ns). The file's strided streams cost 148 / 23 = 6.43 ns
// a line, as measured: their latency becomes 6.43 x 20 = 128.7 -> 129 ns.
TEST(HostMemory, MissesInFlightAreTakenWithTheLatencyTheyWereMeasuredBeside) {
  MachineModel M = zen4Like();
  HostMemory H;
  H.LatencyNs = 160;
  H.InFlight = 160 / 8.16;
  std::vector<std::string> Notes;
  std::map<std::string, double> Recorded;
  driver::useHostMemory(M, H, {}, Notes, Recorded);
  ASSERT_TRUE(M.Caches[0].MissesInFlight);
  EXPECT_EQ(*M.Caches[0].MissesInFlight, 20u);
  EXPECT_DOUBLE_EQ(*M.Memory.LatencyNs, 160);
  EXPECT_DOUBLE_EQ(*M.Memory.StrideLatencyNs, 129);
  EXPECT_DOUBLE_EQ(Recorded["caches.L1.misses_in_flight"], 20);
  EXPECT_DOUBLE_EQ(Recorded["memory.stride_latency_ns"], 129);
  ASSERT_FALSE(Notes.empty());
  EXPECT_NE(Notes.back().find("20 misses in flight"), std::string::npos) << Notes.back();
}

// A count given with --set stands, and so does the stride latency it goes
// with; the latency is still the host's.
TEST(HostMemory, AGivenMissesInFlightStands) {
  MachineModel M = zen4Like();
  HostMemory H;
  H.LatencyNs = 160;
  H.InFlight = 19.6;
  std::vector<std::string> Notes;
  std::map<std::string, double> Recorded;
  driver::useHostMemory(M, H, {"caches.L1.misses_in_flight=23"}, Notes, Recorded);
  EXPECT_EQ(*M.Caches[0].MissesInFlight, 23u);
  EXPECT_DOUBLE_EQ(*M.Memory.StrideLatencyNs, 148);
  EXPECT_DOUBLE_EQ(*M.Memory.LatencyNs, 160);
  EXPECT_EQ(Recorded.count("caches.L1.misses_in_flight"), 0u);
  EXPECT_EQ(Recorded.count("memory.stride_latency_ns"), 0u);
}

} // namespace

// A recorded row keeps where the harness placed the loop's function (its
// page offset): the replay predicts the loop's code lines as timed. Rows
// recorded before it have none and read as none.
TEST(Recording, ARowKeepsWhereTheHarnessPlacedItsCode) {
  using namespace perfmodel::driver;
  Recording R;
  R.Host.Vendor = "AuthenticAMD";
  R.Host.Family = 0x19;
  R.Host.Model = 0x11;
  RecordedRun Run;
  Run.File = "k.c";
  RecordedRow Row;
  Row.Function = "k";
  Row.Level = "L1";
  Row.MedianCy = Row.MinCy = Row.MaxCy = 2.19;
  Row.ClockGHz = 3.69;
  Row.CodeAt["k"] = 0x6b0;
  Run.Rows.push_back(Row);
  Row.CodeAt.clear();
  Run.Rows.push_back(Row);
  R.Runs.push_back(Run);
  Recording Back;
  std::string Err;
  ASSERT_TRUE(fromJson(toJson(R), Back, "k.json", Err)) << Err;
  ASSERT_EQ(Back.Runs.size(), 1u);
  ASSERT_EQ(Back.Runs[0].Rows.size(), 2u);
  EXPECT_EQ(Back.Runs[0].Rows[0].CodeAt, (std::map<std::string, uint64_t>{{"k", 0x6b0}}));
  EXPECT_TRUE(Back.Runs[0].Rows[1].CodeAt.empty());
}

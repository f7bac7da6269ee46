// Throughput of the cache simulator (Google Benchmark): accesses per second
// through the 3-level Haswell-EP hierarchy, raw and through the KernelIR
// replay. Run with bench/cache/speed.sh.
#include "perfmodel/CacheSim.h"
#include "perfmodel/Frontend.h"
#include "perfmodel/MachineModel.h"
#include "perfmodel/Traffic.h"

#include <benchmark/benchmark.h>

#include <random>

using namespace perfmodel;

static MachineModel haswell() {
  return *loadMachineModel(std::string(PERFMODEL_SOURCE_DIR) +
                           "/machine-models/haswell-ep-e5-2680v3.yml")
              .Model;
}

// Three interleaved unit-stride streams of doubles (a triad's addresses).
static void BM_StreamingTriad(benchmark::State &S) {
  CacheSim Sim(CacheSim::fromMachine(haswell(), false));
  const uint64_t N = 1 << 24;
  uint64_t I = 0;
  for (auto _ : S) {
    for (int K = 0; K < 1024; ++K, ++I) {
      uint64_t J = I % N;
      Sim.load(0x100000000 + 8 * J, 8);
      Sim.load(0x200000000 + 8 * J, 8);
      Sim.store(0x300000000 + 8 * J, 8);
    }
  }
  S.SetItemsProcessed(int64_t(S.iterations()) * 1024 * 3);
}
BENCHMARK(BM_StreamingTriad);

// Uniformly random 8-byte loads over 256 MiB: every access misses everywhere.
static void BM_RandomLoads(benchmark::State &S) {
  CacheSim Sim(CacheSim::fromMachine(haswell(), false));
  std::mt19937_64 Rng(1);
  std::vector<uint64_t> Addr(1 << 16);
  for (uint64_t &A : Addr)
    A = (Rng() % (256u << 20)) & ~uint64_t(7);
  size_t I = 0;
  for (auto _ : S) {
    for (int K = 0; K < 1024; ++K)
      Sim.load(Addr[I++ & 0xffff], 8);
  }
  S.SetItemsProcessed(int64_t(S.iterations()) * 1024);
}
BENCHMARK(BM_RandomLoads);

// The whole path: the 2D stencil's nest replayed from its KernelIR.
static void BM_ReplayStencil(benchmark::State &S) {
  FrontendOptions O;
  O.File = std::string(PERFMODEL_SOURCE_DIR) + "/examples/williams-fig9.2.c";
  O.Defines = {{"N", 1002}};
  FrontendResult R = runFrontend(O);
  MachineModel M = haswell();
  const LoopKernel *K = nullptr;
  for (const LoopKernel &L : R.IR.Loops)
    if (L.Function == "stencil")
      K = &L;
  uint64_t Accesses = 0;
  for (auto _ : S) {
    TrafficResult T = simulateTraffic(*K, R.IR, M, {});
    Accesses += T.SimulatedIterations * K->Accesses.size();
  }
  S.SetItemsProcessed(int64_t(Accesses));
}
BENCHMARK(BM_ReplayStencil)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();

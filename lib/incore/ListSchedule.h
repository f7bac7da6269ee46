//===- ListSchedule.h - Cycle-driven list schedule of a loop body -*- C++ -*-===//
//
// The body run many times on the core's ports, reorder buffer and queues:
// what the analytic bounds (ports, front end, recurrence) cannot see of how
// they interact. Internal to the in-core library; BlockAnalysis builds the
// inputs (costs, dependence edges, queues) and reads the cycles back.
//
//===----------------------------------------------------------------------===//
#ifndef PERFMODEL_INCORE_LISTSCHEDULE_H
#define PERFMODEL_INCORE_LISTSCHEDULE_H

#include "perfmodel/InCore.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace perfmodel {

/// A dependence: the producer's position in the two-iteration sequence
/// (below N: the previous iteration; N and above: the same one) and the
/// cycles from its start until the consumer may start.
struct SchedEdge {
  size_t From;
  double Lat;
};

/// Scheduler queues: instructions wait in them from issue until they start;
/// one entry each in every queue they use (LLVM's buffered resources: Zen
/// 4's 64-entry FP and 96-entry integer schedulers, Haswell's 60-entry
/// reservation station). The load and store queues hold an entry from issue
/// until the instruction retires, not until it starts: loads that completed
/// behind a long chain keep theirs, which bounds how many short rows of a
/// nest overlap.
struct SchedQueues {
  std::vector<unsigned> Size;
  std::vector<bool> UntilRetire;
  std::vector<std::vector<unsigned>> Of; ///< per instruction, the queues it uses
  bool Schedulers = false; ///< LLVM's scheduler queues are among them
};

/// What the schedule runs on.
struct ScheduleInput {
  const std::vector<InstrCost> *Instrs = nullptr; ///< latency and port demands
  const std::vector<unsigned> *PortUnits = nullptr;
  /// Per position of the second iteration (N + I), its inputs.
  const std::vector<std::vector<SchedEdge>> *In = nullptr;
  unsigned Width = 0; ///< fused uops issued and retired a cycle (0: unbounded)
  unsigned Rob = 0;   ///< reorder buffer in fused uops (0: unbounded)
  const SchedQueues *Queues = nullptr;
  const std::vector<unsigned> *Issue = nullptr; ///< fused uops per instruction
  /// Optional: per instruction of the run, the cycle the front end hands its
  /// uops over (the legacy decoders of unrolled code); it issues after.
  const std::vector<double> *Deliver = nullptr;
  /// Jump ahead whole periods once the state repeats (off: run every
  /// iteration; the result is the same, which a test checks).
  bool Periodic = true;
};

/// A run's result and how it was reached.
struct ScheduleRun {
  double Cycles = 0;        ///< per iteration in steady state
  bool Jumped = false;      ///< the state repeated and the run jumped ahead
  size_t Simulated = 0;     ///< instructions dispatched one by one
};

/// Iterations the list schedule runs: enough for a steady state of long
/// bodies (nest traces) too.
unsigned scheduleIterations(size_t N);

/// Cycles per iteration in steady state (the run's second half).
double listSchedule(const ScheduleInput &In);

ScheduleRun listScheduleRun(const ScheduleInput &In);

/// The note a list schedule of SCHEDULED cycles adds against the analytic
/// bound CYCLES; empty where it does not exceed it.
std::string listScheduleNote(double Scheduled, double Cycles);

/// A body's list schedule set up and not run (InCoreOptions::
/// DeferBodySchedule): scheduleBody runs it later from these, where it ran
/// the whole costing again before. It owns what ScheduleInput points to.
struct PendingSchedule {
  std::vector<InstrCost> Instrs; ///< latency and port demands alone
  std::vector<unsigned> PortUnits;
  std::vector<std::vector<SchedEdge>> In;
  SchedQueues Queues;
  std::vector<unsigned> Issue;
  std::vector<double> Deliver;
  unsigned Width = 0, Rob = 0;
  double Cycles = 0; ///< the analytic bound the schedule is set against
  /// The note the costing had added last when it set the schedule up (where
  /// the schedule's note goes); none where it had added none.
  std::optional<std::string> NoteBefore;
  ScheduleInput input() const;
};

} // namespace perfmodel

#endif

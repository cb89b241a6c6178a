// Runs a function in a forked child process and returns the bytes it produced: SimGrid keeps
// global state (one engine, its clock) per process, so every simulation gets a fresh process.
//
// The child never outlives its run: it dies with its parent (PR_SET_PDEATHSIG, so a SIGKILLed
// parent takes it along), its own timer ends it shortly after `deadline` (so a stopped parent
// cannot leave it running), and the parent's SIGINT/SIGTERM/SIGHUP handlers kill it
// (sim/core/interrupt.hpp).
#pragma once

#include <functional>
#include <string>

#include "sim/core/deadline.hpp"
#include "sim/core/units.hpp"

namespace sim {

// A bound on the child's resident memory (--max-memory), checked by the parent every few tens of
// milliseconds. `bytes` 0 means none; `what` names the run's file ("configs/a.json") and `where`
// its JSON path there ("/runs/3/scenario" for a validation table's row; empty for a whole file) in
// the message.
struct MemoryBound {
  Bytes bytes;
  std::string what;
  std::string where;
};

// The child calls `work` and its return value is sent back; an InputError in the child is an
// InputError with its message in the parent, any other exception a std::runtime_error. When
// `deadline` passes first, the child is killed and WallTimeExceeded thrown; when its resident
// memory passes `memory`, it is killed and an InputError thrown; when a signal kills it (from
// elsewhere, or an abort in SimGrid), RunStopped names the signal. The child's standard error never
// reaches the terminal (child_stderr.hpp): the message of a child that ended without a result
// quotes the last line it wrote.
std::string run_in_child(const std::function<std::string()>& work, const Deadline& deadline = {},
                         const MemoryBound& memory = {});

}  // namespace sim

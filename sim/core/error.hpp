// The two error channels of trainsim (STYLE.md §7).
//
// InputError: the user's input is wrong (a file, a JSON value, an infeasible plan). Its message is
// one line, "FILE: /json/path: what is wrong (expected ...)"; `main` prints it after
// "trainsim: error: " and exits with code 2.
//
// SIM_ASSERT: a simulator invariant is broken (a bug in trainsim). Never compiled out; never used
// on user data.
#pragma once

#include <stdexcept>
#include <string>

namespace sim {

class InputError : public std::runtime_error {
 public:
  // `expected` may be empty; it is then left out of the message.
  InputError(const std::string& file, const std::string& path, const std::string& what,
             const std::string& expected = "");
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// An input this machine cannot simulate within the limits the user set (--max-memory, the wall
// time the resource estimate foresees against --max-wall, full fidelity's GPU cap): reported like
// any InputError, but about the run's budget rather than the scenario, so `trainsim validate`
// stops the table on it instead of counting the row as one the simulator cannot run.
class SimulationLimit : public InputError {
 public:
  using InputError::InputError;
};

// The wall-time part of those: the resource estimate foresees a simulation longer than allowed.
// `trainsim search` takes it as "this plan cannot run here" and goes on to the next plan.
class SimulationTimeLimit : public SimulationLimit {
 public:
  using SimulationLimit::SimulationLimit;
};

// The run was stopped from outside before it finished: its simulation process was killed by a
// signal (the out-of-memory killer's SIGKILL, a SIGTERM sent to it). `main` reports it as one line
// and exit code 3, as a run stopped by --max-wall; nothing is written.
class RunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void assertion_failed(const char* cond, const char* file, int line, const std::string& msg);

}  // namespace sim

#define SIM_ASSERT(cond, msg)                                               \
  do {                                                                      \
    if (!(cond)) ::sim::assertion_failed(#cond, __FILE__, __LINE__, (msg)); \
  } while (0)

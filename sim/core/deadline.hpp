// A wall-clock bound on a run (`--max-wall SECONDS`): the long phases (planning, the engine's
// child process) check it and stop with WallTimeExceeded, which `main` reports as one line and
// exit code 3. A default Deadline never passes. Wall-clock time never reaches results: it only
// decides whether a run finishes.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include "sim/core/error.hpp"

namespace sim {

// The run stopped by its own bound rather than from outside: the same exit code 3 (error.hpp).
class WallTimeExceeded : public RunStopped {
 public:
  using RunStopped::RunStopped;
};

class Deadline {
 public:
  Deadline() = default;
  // `seconds` from now; `what` names the run in the message ("configs/a.json").
  Deadline(double seconds, std::string what);

  bool is_set() const { return set_; }
  // Milliseconds left, at least 0; -1 when no deadline is set (poll()'s "wait forever").
  int remaining_ms() const;
  bool passed() const { return set_ && std::chrono::steady_clock::now() >= at_; }
  // Throws WallTimeExceeded once the deadline has passed.
  void check() const;
  [[noreturn]] void exceeded() const;

 private:
  bool set_ = false;
  double seconds_ = 0;
  std::string what_;
  std::chrono::steady_clock::time_point at_;
};

}  // namespace sim
